"""SGD API stand-in: answers a call from a recorded-results file (no network).

Input ``{method, args, results_file}``; ``results_file`` is JSON Lines, one recorded call a
line: ``{"method": "FindRestaurants", "args": {...}, "results": [{...}, ...]}`` (built by
``hermesctl replay`` / :func:`hermesd.replay.write_results` from the dialogues' ``api_call`` and
``api_results``). A call whose method and arguments match a recorded one exactly (after
lower-casing and collapsing spaces) returns its results; any other call returns ``[]``
("no results"). The file is read once per (path, mtime).

Generated into each SGD tool folder by scripts/build_sgd_pack.py. Data conventions from the
Schema-Guided Dialogue dataset (CC BY-SA 4.0, see the pack's ATTRIBUTION.md).
"""

from __future__ import annotations

import json
import os
import re

_CACHE: dict = {}


class ResultsFileMissing(Exception):
    code = "RESULTS_FILE_MISSING"


def norm(v) -> str:
    """Case and spacing folded, as the replay compares arguments."""
    return re.sub(r"\s+", " ", str(v)).strip().lower()


def key(method: str, args: dict) -> str:
    return json.dumps([norm(method), sorted((norm(k), norm(v)) for k, v in args.items())])


def _table(path: str) -> dict:
    try:
        mtime = os.stat(path).st_mtime_ns
    except OSError as exc:
        raise ResultsFileMissing(f"cannot read {path}: {exc.strerror}") from None
    hit = _CACHE.get(path)
    if hit and hit[0] == mtime:
        return hit[1]
    table: dict = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rec = json.loads(line)
                table.setdefault(key(rec["method"], rec["args"]), rec.get("results") or [])
    _CACHE.clear()
    _CACHE[path] = (mtime, table)
    return table


def handle(input: dict) -> dict:
    method, args = input["method"], {k: str(v) for k, v in input["args"].items()}
    results = _table(input["results_file"]).get(key(method, args), [])
    return {"method": method, "args": args, "results": results[:10]}
