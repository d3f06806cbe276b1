"""Replay CrossWOZ dialogues through a running hermesd (with the CrossWOZ pack) and score it.

Input: ``../shared/data/crosswoz/crosswoz_turns.jsonl`` (JSON Lines: ``dialogue_id, turn,
speaker (user|system), text, dialog_act, api_call`` …; :func:`is_crosswoz` recognises it).
One session per dialogue (locale zh); the ``user`` turns are sent in order as
``session.turn``; the daemon's database queries of a turn are the entries of the pack's
numbered ``query_log`` (``[{seq, domain, constraints}]``, what its ``crosswoz_query`` tool ran;
several requests in one utterance run it once each, and the tool logs the turn's last query of
each domain — a later part's query of a domain replaces an earlier part's) newer than before the turn, read from the
session's tracked state (``session.get`` → ``vars.cw``) after each turn whose reply ran that tool.

**Scoring rule** (keep it; a looser match helps no one). The wizard's ``api_call`` is the
cumulative query state of every domain, repeated on each system turn, so calls are scored at
the change points:

- a system turn *counts* for a domain when that domain's constraints in its ``api_call``
  differ from the domain's constraints in the previous ``api_call`` of the dialogue (none
  before the first one): the user added or changed a constraint;
- hermesd *matches* it when its last query of that domain, made in reply to the preceding
  user turn, carries exactly the same constraints — same slots, same values after folding
  spacing, full-width forms (NFKC) and number formats (``4.0`` = ``4``); 推荐菜 and 酒店设施
  hold several values separated by spaces, each one condition (CrossWOZ ``database.md``), so
  their values compare as sets of those parts;
- ``call_recall`` = matched / counted; ``call_precision`` = matched / queries hermesd made
  (every query of the replay, a query at a turn where nothing changed counts against it).

``request_recall``: each attribute the user requests (``Request`` acts, except 名称 — which
place to recommend is the wizard's choice among equals — and 出租's 车型/车牌, placeholders in
the database) that the next system turn answers with a value (``Inform`` of the same domain and
slot, not 无) counts; it is matched when hermesd's reply to that user turn contains the value
(any one of them for a list such as 周边餐馆; every part, in any order, of a value made of several,
such as two phone numbers; for a facility asked yes/no, the reply says 有X for 是 and 没有X for
否), compared after the same folding.

Per domain (景点 餐馆 酒店 地铁 出租) and ``overall``; also turns/s (user turns over the wall time,
:data:`CONCURRENCY` dialogues at once, each on its own connection) and the client-side round trip
of ``session.turn`` (p50/p99, ms; a turn returns once its state is committed). CrossWOZ: Zhu et al., TACL 2020 (Apache-2.0).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
import unicodedata
from collections import defaultdict
from typing import Any

from .client import Client, on_connections
from .metrics import percentile

__all__ = ["DOMAINS", "fold", "is_crosswoz", "load_dialogues", "main", "run_crosswoz", "score_dialogue"]

DOMAINS = ("景点", "餐馆", "酒店", "地铁", "出租")
QUERY_TOOL = "crosswoz_query"
#: requested slots not scored (see the module docstring)
UNSCORED_REQUESTS = {"名称", "车型", "车牌"}
#: dialogues replayed at once (:func:`run_crosswoz`); below the per-user session cap (8)
CONCURRENCY = 4


def fold(v: Any) -> str:
    """NFKC (full-width → ASCII), spacing removed, lower case, ``4.0`` → ``4``."""
    t = unicodedata.normalize("NFKC", str(v)).lower()
    t = re.sub(r"\s+", "", t)
    return re.sub(r"(\d+)\.0(?!\d)", r"\1", t)


#: slots that hold several values separated by spaces, each a condition (CrossWOZ database.md)
MULTI_VALUED = {"推荐菜", "酒店设施"}


def _fold_value(slot: str, v: Any) -> str:
    if slot in MULTI_VALUED:
        return " ".join(sorted(fold(p) for p in unicodedata.normalize("NFKC", str(v)).split()))
    return fold(v)


def _fold_cons(c: dict[str, Any] | None) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((fold(k), _fold_value(k, v)) for k, v in (c or {}).items()))


def is_crosswoz(path: str | os.PathLike[str]) -> bool:
    """True when the file's first record is a CrossWOZ turn (``dialog_act``, speaker user/system)."""
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    return "dialog_act" in r and r.get("speaker") in ("user", "system")
    except (OSError, ValueError):
        return False
    return False


def load_dialogues(path: str | os.PathLike[str], limit: int | None = None) -> dict[str, list[dict[str, Any]]]:
    """``dialogue_id`` → its turns in order (the first ``limit`` dialogues of the file)."""
    out: dict[str, list[dict[str, Any]]] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            did = str(r["dialogue_id"])
            if did not in out and limit is not None and len(out) >= limit:
                continue
            out.setdefault(did, []).append(r)
    for turns in out.values():
        turns.sort(key=lambda r: r["turn"])
    return out


def _ran_query(res: dict[str, Any]) -> bool:
    return any(a.get("kind") == "tool" and a.get("tool") == QUERY_TOOL and a.get("outcome") == "ok"
               for a in res.get("actions") or [])


def _queries_since(vars_: dict[str, Any], seen: int) -> tuple[list[tuple[str, dict[str, Any]]], int]:
    """The logged queries numbered above ``seen``, and the newest number."""
    cw = vars_.get("cw") or {}
    out = []
    for q in cw.get("query_log") or []:
        if isinstance(q, dict) and int(q.get("seq") or 0) > seen and isinstance(q.get("constraints"), dict):
            out.append((str(q.get("domain")), q["constraints"]))
    return out, max(seen, int(cw.get("queries_made") or 0))


def _answered(reply: str, slot: str, values: list[str]) -> bool:
    r = fold(reply)
    if slot.startswith("酒店设施-"):
        fac = fold(slot.split("-", 1)[1])
        says_no = f"没有{fac}" in r
        return any((v == "是" and f"有{fac}" in r and not says_no) or (v == "否" and says_no) for v in values)
    # a value of several parts ("010-64214657 010-84257506", two phone numbers) is answered when
    # every part is in the reply, in any order
    return any(fold(v) and all(p in r for p in re.split(r"[,，、;；/]+|\s+", unicodedata.normalize("NFKC", v).lower()) if p)
               for v in values)


def score_dialogue(turns: list[dict[str, Any]], replies: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """Score one dialogue. :param replies: user turn index → ``{"queries": [(domain, constraints)],
    "text": reply}``. :return: per domain ``{counted, matched, made, req_counted, req_matched}``
    plus ``misses`` (change points not matched, with what hermesd queried)."""
    per: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(
        ("counted", "matched", "made", "req_counted", "req_matched"), 0))
    misses = []
    prev: dict[str, Any] = {}
    last_user: int | None = None
    for i, t in enumerate(turns):
        if t["speaker"] == "user":
            last_user = i
            for dom, _ in (replies.get(i) or {}).get("queries", []):
                per[dom]["made"] += 1
            continue
        args = (t.get("api_call") or {}).get("args") or {}
        got = replies.get(last_user) or {} if last_user is not None else {}
        last: dict[str, dict[str, Any]] = {}
        for dom, cons in got.get("queries", []):
            last[dom] = cons
        for dom in DOMAINS:
            if dom in args and _fold_cons(args[dom]) != _fold_cons(prev.get(dom)):
                per[dom]["counted"] += 1
                if dom in last and _fold_cons(last[dom]) == _fold_cons(args[dom]):
                    per[dom]["matched"] += 1
                else:
                    misses.append({"turn": t["turn"], "domain": dom, "annotated": args[dom], "queried": last.get(dom)})
        prev = args
        if last_user is not None:
            asked = [(a[1], a[2]) for a in turns[last_user].get("dialog_act") or [] if a[0] == "Request"]
            for dom, slot in dict.fromkeys(asked):
                if slot in UNSCORED_REQUESTS or dom not in DOMAINS:
                    continue
                values = [str(a[3]) for a in t.get("dialog_act") or []
                          if a[0] == "Inform" and a[1] == dom and a[2] == slot and a[3] not in ("", "无", None)]
                if values:
                    per[dom]["req_counted"] += 1
                    per[dom]["req_matched"] += int(_answered(got.get("text") or "", slot, values))
    return {"domains": {k: dict(v) for k, v in per.items()}, "misses": misses}


def _row(c: dict[str, int]) -> dict[str, Any]:
    def ratio(a: int, b: int) -> float | None:
        return round(a / b, 4) if b else None
    return {"calls_counted": c["counted"], "calls_made": c["made"], "calls_matched": c["matched"],
            "call_recall": ratio(c["matched"], c["counted"]), "call_precision": ratio(c["matched"], c["made"]),
            "requests_counted": c["req_counted"], "requests_answered": c["req_matched"],
            "request_recall": ratio(c["req_matched"], c["req_counted"])}


def _replay_dialogue(c: Client, turns: list[dict[str, Any]], latencies: list[float]) -> dict[int, dict[str, Any]]:
    """Send one dialogue's user turns in a session of its own; user turn index → queries and reply."""
    sid = c.call("session.open", {"locale": "zh", "channel": "replay"})["session_id"]
    replies: dict[int, dict[str, Any]] = {}
    seen = 0
    try:
        for i, t in enumerate(turns):
            if t["speaker"] != "user":
                continue
            t1 = time.perf_counter()
            res = c.call("session.turn", {"session_id": sid, "text": t["text"]})
            latencies.append((time.perf_counter() - t1) * 1000)
            queries = []
            if _ran_query(res):
                queries, seen = _queries_since(c.call("session.get", {"session_id": sid}).get("vars") or {}, seen)
            replies[i] = {"queries": queries, "text": (res.get("reply") or {}).get("text") or ""}
    finally:
        c.call("session.close", {"session_id": sid})
    return replies


def run_crosswoz(socket_path: str | os.PathLike[str] | None, file: str | os.PathLike[str], *,
                 json_out: bool = False, limit: int | None = None, concurrency: int = CONCURRENCY,
                 out: Any = None) -> dict[str, Any]:
    """Replay the CrossWOZ ``file`` through the daemon at ``socket_path``; print and return the scores.

    :param json_out: print JSON instead of a table. :param limit: the first N dialogues only.
    :param concurrency: dialogues replayed at once, each on its own connection (a turn waits for
        its state to be committed, so one sequential client measures commit latency, not throughput).
    :return: ``{"file", "domains": {domain: row}, "overall": row, "dialogues", "user_turns",
        "turns_per_s", "latency_ms": {p50, p99}, "per_dialogue": [{dialogue_id, queries, misses}]}``
        (``per_dialogue`` is returned, not printed); a row holds ``calls_counted, calls_made,
        calls_matched, call_recall, call_precision, requests_counted, requests_answered, request_recall``.
    :raises hermesd.client.DaemonNotRunning, HermesError: from the client.
    """
    out = out or sys.stdout
    dialogues = load_dialogues(file, limit)
    totals: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(
        ("counted", "matched", "made", "req_counted", "req_matched"), 0))
    latencies: list[float] = []
    per_dialogue = []
    items = list(dialogues.items())
    t0 = time.perf_counter()

    def one(c: Client, item: tuple[str, list[dict[str, Any]]]) -> tuple[str, list, dict, list[float]]:
        lat: list[float] = []
        return item[0], item[1], _replay_dialogue(c, item[1], lat), lat

    done = on_connections(socket_path, items, one, concurrency)
    for did, turns, replies, lat in done:
        latencies.extend(lat)
        scored = score_dialogue(turns, replies)
        for dom, row in scored["domains"].items():
            for k, v in row.items():
                totals[dom][k] += v
                totals["overall"][k] += v
        per_dialogue.append({"dialogue_id": did, "misses": scored["misses"],
                             "queries": [{"turn": turns[i]["turn"], "domain": d, "constraints": q}
                                         for i, r in replies.items() for d, q in r["queries"]]})
    elapsed = time.perf_counter() - t0
    result = {"file": str(file), "domains": {d: _row(totals[d]) for d in DOMAINS if d in totals},
              "overall": _row(totals["overall"]), "dialogues": len(dialogues), "user_turns": len(latencies),
              "turns_per_s": round(len(latencies) / elapsed, 1) if elapsed else None,
              "latency_ms": {"p50": percentile(latencies, 0.5), "p99": percentile(latencies, 0.99)}}
    _print(result, json_out, out)
    result["per_dialogue"] = per_dialogue
    return result


def _print(result: dict[str, Any], json_out: bool, out: Any) -> None:
    if json_out:
        print(json.dumps(result, indent=1, ensure_ascii=False), file=out)
        return
    fmt = "{:<10}{:>8}{:>8}{:>8}{:>9}{:>10}{:>10}{:>10}"
    print(fmt.format("domain", "counted", "made", "matched", "recall", "precision", "requests", "req-recall"), file=out)
    for name, row in (*result["domains"].items(), ("overall", result["overall"])):
        cells = [row["calls_counted"], row["calls_made"], row["calls_matched"], row["call_recall"],
                 row["call_precision"], row["requests_counted"], row["request_recall"]]
        print(fmt.format(name, *[f"{x:.1%}" if isinstance(x, float) else ("-" if x is None else x)
                                 for x in cells]), file=out)
    print(f"{result['dialogues']} dialogues, {result['user_turns']} user turns; turns/s {result['turns_per_s']}  "
          f"latency p50 {result['latency_ms']['p50']} ms  p99 {result['latency_ms']['p99']} ms", file=out)


def main(argv: list[str] | None = None) -> int:
    """``python -m hermesd.replay_crosswoz [--socket P] FILE [--json] [--limit N]``."""
    import argparse

    ap = argparse.ArgumentParser(prog="hermesd.replay_crosswoz", description="Replay CrossWOZ dialogues.")
    ap.add_argument("file")
    ap.add_argument("--socket")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--limit", type=int)
    a = ap.parse_args(argv)
    run_crosswoz(a.socket, a.file, json_out=a.json, limit=a.limit)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
