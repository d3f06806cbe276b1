#!/usr/bin/env python3
"""Issue 15's figures in one table, read from the sections ``scripts/bench/all`` just wrote.

Each figure stands beside its aim, on both CPUs and pinned to one (``taskset -c 0``: the
``…, pinned to one CPU`` sections, and footprint's own pinned block), and beside the baseline
the same benchmark measured in the same run (``admin.ping``, the bare pre-forked worker,
hassil's ``recognize``, the pack trained at start). A figure a section did not print (a bench
that failed, or was skipped) shows ``-``. Nothing is measured here.

    python scripts/bench/issue15.py BENCHMARKS.body.md     # prints the Markdown table
"""

from __future__ import annotations

import re
import sys
from pathlib import Path


def sections(text: str) -> dict[str, str]:
    """``## name`` → the section's text up to the next ``## ``."""
    out: dict[str, str] = {}
    for block in re.split(r"^## ", text, flags=re.M)[1:]:
        name, _, body = block.partition("\n")
        out[name.strip()] = body
    return out


def _find(rx: str, text: str | None, fmt: str = "{}") -> str:
    m = re.search(rx, text or "", flags=re.M)
    return fmt.format(*m.groups()) if m else "-"


def _footprint(text: str | None, pinned: bool) -> str:
    """The footprint section's block for one CPU setting (its own ``== … ==`` headings)."""
    if not text:
        return ""
    for block in text.split("\n== ")[1:]:
        if block.startswith("pinned") == pinned:
            return block
    return ""


def rows(sec: dict[str, str]) -> list[tuple[str, str, str, str, str]]:
    """``(figure, aim, both CPUs, one CPU, same-run baseline)`` per issue-15 figure."""
    out = []
    fp = sec.get("footprint")
    both, one = _footprint(fp, False), _footprint(fp, True)
    ready = r"^{}\s+prebuilt artifact\s+(\d+)\s+(\d+)"
    trained = r"^{}\s+baseline: trained at start\s+(\d+)\s+(\d+)"
    out.append(("idle RSS, full daemon, shipped packs", "≤ 40 MB",
                _find(r"idle RSS, shipped packs: (\S+) MB", both, "{} MB"),
                _find(r"idle RSS, shipped packs: (\S+) MB", one, "{} MB"),
                _find(r"trained at start: (\S+) MB\)", both, "{} MB with the pack trained at start")))
    n_sessions = _find(r"RSS with (\S+) sessions' memories", both)
    out.append((f"RSS with {n_sessions} sessions' memories (the aim is for 10,000)", "≤ 60 MB",
                _find(r"sessions' memories: \S+ → (\S+) MB", both, "{} MB"),
                _find(r"sessions' memories: \S+ → (\S+) MB", one, "{} MB"),
                _find(r"sessions' memories: (\S+) →", both, "{} MB idle before them")))
    for pack, aim in (("shipped", "≤ 500 ms"), ("sgd", "≤ 1 s")):
        out.append((f"exec → READY, {'shipped packs' if pack == 'shipped' else 'SGD pack'}", aim,
                    _find(ready.format(pack), both, "{} ms (CPU {} ms)"), _find(ready.format(pack), one, "{} ms (CPU {} ms)"),
                    _find(trained.format(pack), both, "{} ms (CPU {} ms) trained at start")))
    s, sp = sec.get("session"), sec.get("session, pinned to one CPU")
    rule = r"rule-routed turn without tools vs ping: p50 (\S+)x, daemon CPU (\S+)x"
    ping = r"^admin\.ping\s+(\S+)"
    out.append(("rule-routed turn without tools, p50", "≤ 10× ping", _find(rule, s, "{}× ping (CPU {}×)"),
                _find(rule, sp, "{}× ping (CPU {}×)"), "admin.ping p50 " + _find(ping, s, "{} ms") + " / "
                + _find(ping, sp, "{} ms") + " pinned"))
    n, nump = sec.get("nlu"), sec.get("nlu, pinned to one CPU")
    parse = r"{}: hermesd parse p50\s+(\S+) µs"
    hassil = r"~30-char xSID \+ SNIPS \(unlabelled\)\s+\d+\s+\S+\s+\S+\s+\S+\s+(\S+)\s+(\S+)"
    out.append(("NLU parse of a ~30-character utterance, p50", "≤ 100 µs",
                _find(parse.format("zh"), n, "zh {} µs") + ", " + _find(parse.format("en"), n, "en {} µs"),
                _find(parse.format("zh"), nump, "zh {} µs") + ", " + _find(parse.format("en"), nump, "en {} µs"),
                _find(hassil, n, "hassil recognize p50 {1} µs (hermesd {0} µs, same sentences)")))
    t, tp = sec.get("tools"), sec.get("tools, pinned to one CPU")
    tool = r"hermesd p95 / bare floor p95\s+= (\S+)x"
    bare = r"^bare pre-forked worker \(floor\)\s+\d+\s+\S+\s+(\S+)"
    out.append(("pooled tool call p95 vs a bare pre-forked worker", "≤ 3×", _find(tool, t, "{}×"), _find(tool, tp, "{}×"),
                "bare worker p95 " + _find(bare, t, "{} µs") + " / " + _find(bare, tp, "{} µs") + " pinned"))
    resend = r"resend, both turns together: p50 (\S+) ms"
    out.append(("the resend story, both turns, p50", "≤ 5 ms", _find(resend, s, "{} ms"), _find(resend, sp, "{} ms"),
                "reference design 300 ms (published, not measured)"))
    return out


def table(text: str) -> str:
    lines = ["| figure | aim | both CPUs | pinned (taskset -c 0) | baseline, same run |", "| --- | --- | --- | --- | --- |"]
    lines += [f"| {' | '.join(r)} |" for r in rows(sections(text))]
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(Path(sys.argv[1]).read_text(encoding="utf-8")))
