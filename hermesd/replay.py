"""Replay recorded task-oriented dialogues through a running hermesd and score it.

Three input formats (JSON Lines, as in ``../shared/data``):

- SGD turns (``sgd/sgd_turns.jsonl``: ``dialogue_id, service, turn, speaker, text, intent, actions,
  api_call, api_results``) — :func:`run_replay`: one session per dialogue, the USER turns in
  order at a fixed reference time (:data:`SGD_REFERENCE_TIME`, the "today" of SGD's simulated
  dialogues), a confirmation card answered as the recorded user did (``AFFIRM`` → accept,
  ``NEGATE`` without new values → decline, anything else is sent as text). Before the
  dialogues, the file's recorded API calls are written to a results file and its path is
  stored for the caller under the memory key ``sgd_results_file``, which the SGD pack's
  tools read (a call answers the recorded ``api_results`` of an exactly matching method and
  arguments, else no results).
- CrossWOZ turns (``crosswoz/crosswoz_turns.jsonl``: ``dialogue_id, turn, speaker (user|system),
  text, dialog_act, api_call``), in :mod:`hermesd.replay_crosswoz` beside this module
  (``hermesctl replay`` recognises the file, :func:`~hermesd.replay_crosswoz.is_crosswoz`): one
  session per dialogue, the user turns in order, database queries scored per domain at the change points of the wizard's
  cumulative ``api_call`` (the rule, exact after folding spacing, full-width forms and number
  formats, is written in that module's docstring), request recall, turns/s and latency.
- xSID (``xsid/xsid_zh.jsonl``: ``id, text, intent, slots.datetime``) — :func:`run_xsid`:
  one single-turn session per record; intent accuracy and whether a ``datetime`` entity was
  resolved where the record annotates one.

Scores (per service and overall): user-turn intent accuracy (the daemon's tracked active
intent, ``session.get`` → ``vars.sgd.active``, against SGD's ``active_intent``; ``NONE`` =
no active intent); API-call recall and precision of (method, arguments) after folding case
and spacing; dialogues whose calls all matched (every annotated call made, no other call);
false transactional calls (a transactional method run without the user's recorded
confirmation, or with arguments the user never agreed to: must be 0); confirmations declined
(the daemon's card named values other than those the recorded user confirmed, so the
simulated user said no); turns/s and turn
latency p50/p99 (client-side round trip of ``session.turn``/``session.confirm``); turns/s is user turns over
the wall time with :data:`CONCURRENCY` dialogues at once, each on its own connection.

SGD: Rastogi et al., "Towards Scalable Multi-domain Conversational Agents: The Schema-Guided
Dialogue Dataset", AAAI 2020 (CC BY-SA 4.0). xSID: van der Goot et al., NAACL 2021 (CC BY-SA 4.0).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable

from .client import Client, on_connections
from .metrics import percentile

__all__ = ["SGD_REFERENCE_TIME", "main", "norm_call", "run_replay", "run_xsid", "write_results"]

#: SGD's simulated "today" is Friday 2019-03-01 (e.g. ReserveRestaurant's default date); Pacific time.
SGD_REFERENCE_TIME = "2019-03-01T10:00:00-08:00"
SGD_TZ = "America/Los_Angeles"
XSID_REFERENCE_TIME = "2024-06-19T10:00:00+08:00"
#: xSID intents the shipped packs (config/intents) cover; every other xSID intent (weather,
#: alarms, music, …) is outside them, and the right answer is "out of scope" (intent null)
XSID_TO_SHIPPED = {"reminder/set_reminder": "reminder.set", "reminder/show_reminders": "reminder.list",
                   "reminder/cancel_reminder": "reminder.cancel"}
#: dialogues replayed at once (:func:`run_replay`), below the per-user session cap (8); as the CrossWOZ replay
CONCURRENCY = 4
TRANSACTIONAL_PREFIXES = ("Reserve", "Add", "Make", "Buy", "Request", "Book", "Transfer", "Pay")


def _fold(v: Any) -> str:
    return re.sub(r"\s+", " ", str(v)).strip().lower()


def norm_call(method: str, args: dict[str, Any]) -> tuple[str, tuple[tuple[str, str], ...]]:
    """A call as compared: method and arguments with case and spacing folded, arguments sorted."""
    return _fold(method), tuple(sorted((_fold(k), _fold(v)) for k, v in args.items()))


def is_transactional(method: str) -> bool:
    """Reserve/Add/Make/Buy/Request… methods change the world (SGD's ``is_transactional`` intents)."""
    return method.startswith(TRANSACTIONAL_PREFIXES)


def load_dialogues(path: str | os.PathLike[str], limit: int | None = None) -> dict[str, list[dict[str, Any]]]:
    """``dialogue_id`` → its records in turn order (the first ``limit`` dialogues of the file)."""
    out: dict[str, list[dict[str, Any]]] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            did = r["dialogue_id"]
            if did not in out and limit is not None and len(out) >= limit:
                continue
            out.setdefault(did, []).append(r)
    for turns in out.values():
        turns.sort(key=lambda r: r["turn"])
    return out


def write_results(dialogues: dict[str, list[dict[str, Any]]], path: str | os.PathLike[str]) -> int:
    """Write every recorded ``api_call`` with its ``api_results`` (JSON Lines); returns the count."""
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for turns in dialogues.values():
            for r in turns:
                call = r.get("api_call")
                if call:
                    f.write(json.dumps({"method": call["method"], "args": call["args"],
                                        "results": r.get("api_results") or []}) + "\n")
                    n += 1
    os.chmod(path, 0o644)
    return n


def _acts(r: dict[str, Any]) -> set[str]:
    return {a["act"] for a in r.get("actions") or []}


class _Score:
    def __init__(self) -> None:
        self.turns = self.intent_ok = self.gold = self.pred = self.hit = 0
        self.dialogues = self.all_matched = self.false_tx = self.declined = 0

    def row(self) -> dict[str, Any]:
        return {"dialogues": self.dialogues, "user_turns": self.turns,
                "intent_accuracy": round(self.intent_ok / self.turns, 4) if self.turns else None,
                "calls_annotated": self.gold, "calls_made": self.pred, "calls_matched": self.hit,
                "call_recall": round(self.hit / self.gold, 4) if self.gold else None,
                "call_precision": round(self.hit / self.pred, 4) if self.pred else None,
                "dialogues_all_calls_matched": self.all_matched, "false_transactional_calls": self.false_tx,
                "confirmations_declined": self.declined}


def _calls_of(res: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(method, args) of the API tools a reply ran (tool steps whose params carry ``method`` and ``args``)."""
    out = []
    for a in res.get("actions") or []:
        p = a.get("params") or {}
        if a.get("kind") == "tool" and a.get("outcome") == "ok" and "method" in p and isinstance(p.get("args"), dict):
            out.append((p["method"], p["args"]))
    return out


def _card_agrees(card: dict[str, Any] | None, system_turn: dict[str, Any] | None,
                 agreed: dict[str, set[str]], intent: str | None = None) -> bool:
    """The daemon's confirmation card names the values the recorded user confirmed.

    The recorded user said yes to the recorded system's ``CONFIRM`` acts (``system_turn``, the
    turn just before; ``agreed`` holds the latest confirmed values of every slot so far in the
    dialogue). A card whose arguments differ from any of them, or lack one the system just
    confirmed, asks something that user never agreed to; so does a card shown when the
    recorded system asked no confirmation at all, or one for another intent than the user's
    (``intent``: the user turn's annotated active intent).
    """
    fields = (card or {}).get("fields") or {}
    args = fields.get("args")
    if not isinstance(args, dict) or system_turn is None:
        return False
    if intent and fields.get("method") and _fold(fields["method"]) != _fold(intent):
        return False
    folded = {_fold(k): _fold(v) for k, v in args.items()}
    now = {_fold(a["slot"]) for a in system_turn.get("actions") or [] if a["act"] == "CONFIRM"}
    if not now or not now <= folded.keys():
        return False
    return all(folded[k] in agreed[k] for k in folded if k in agreed)


def _note_confirms(system_turn: dict[str, Any], agreed: dict[str, set[str]]) -> None:
    for a in system_turn.get("actions") or []:
        if a["act"] == "CONFIRM":
            agreed[_fold(a["slot"])] = {_fold(v) for v in (a.get("canonical_values") or []) + (a.get("values") or [])}


def _timed(c: Client, method: str, params: dict[str, Any], latencies: list[float]) -> dict[str, Any]:
    t0 = time.perf_counter()
    res = c.call(method, params)
    latencies.append((time.perf_counter() - t0) * 1000)
    return res


def _replay_dialogue(c: Client, turns: list[dict[str, Any]], latencies: list[float]) -> dict[str, Any]:
    sid = c.call("session.open", {"locale": "en", "tz": SGD_TZ, "channel": "replay"})["session_id"]
    made: list[tuple[tuple, bool]] = []  # (call, confirmed by the recorded user)
    intents: list[tuple[str, str | None]] = []
    state, card, declined = "LISTENING", None, 0
    log: list[dict[str, Any]] = []  # per user turn: what was sent and what came back (for diagnosis)
    system_turn: dict[str, Any] | None = None
    agreed: dict[str, set[str]] = {}
    try:
        for r in turns:
            if r["speaker"] != "USER":
                system_turn = r
                _note_confirms(r, agreed)
                continue
            acts = _acts(r)
            confirmed = False
            if state == "CONFIRMING" and "AFFIRM" in acts and "NEGATE" not in acts:
                # the recorded user agreed to the recorded system's values: yes only to the same ones
                confirmed = _card_agrees(card, system_turn, agreed, r.get("intent"))
                declined += not confirmed
                method, params = "session.confirm", {"session_id": sid, "accept": confirmed}
                if not confirmed and "INFORM" in acts:
                    # declined, then the user's new values are still said
                    res = _timed(c, method, params, latencies)
                    for m, args in _calls_of(res):
                        made.append(((m, args), False))
                    method, params = "session.turn", {"session_id": sid, "text": r["text"],
                                                      "reference_time": SGD_REFERENCE_TIME}
            elif state == "CONFIRMING" and "NEGATE" in acts and "INFORM" not in acts:
                method, params = "session.confirm", {"session_id": sid, "accept": False}
            else:
                method, params = "session.turn", {"session_id": sid, "text": r["text"],
                                                  "reference_time": SGD_REFERENCE_TIME}
            was = state
            res = _timed(c, method, params, latencies)
            state = res.get("state", state)
            card = (res.get("reply") or {}).get("card")
            for m, args in _calls_of(res):
                made.append(((m, args), confirmed))
            vars_ = c.call("session.get", {"session_id": sid}).get("vars") or {}
            active = (vars_.get("sgd") or {}).get("active")
            intents.append((r.get("intent") or "NONE", active or "NONE"))
            log.append({"turn": r["turn"], "sent": method, "before": was, "after": state, "active": active,
                        "calls": [{"method": m, "args": a} for m, a in _calls_of(res)],
                        "card": ((card or {}).get("fields") or {}) if card else None,
                        # the recorded user said yes, to other values than the card's
                        "declined": was == "CONFIRMING" and "AFFIRM" in acts and "NEGATE" not in acts
                        and not confirmed})
    finally:
        c.call("session.close", {"session_id": sid})
    gold = [(r["api_call"]["method"], r["api_call"]["args"]) for r in turns if r.get("api_call")]
    gold_turns = [r["turn"] for r in turns if r.get("api_call")]
    return {"gold": gold, "made": made, "intents": intents, "declined": declined, "log": log, "gold_turns": gold_turns}


def _match(gold: list[tuple[str, dict]], made: list[tuple[tuple[str, dict], bool]]) -> tuple[int, int]:
    """(matched calls, false transactional calls)."""
    left = Counter(norm_call(m, a) for m, a in gold)
    hit = false_tx = 0
    agreed = {norm_call(m, a) for m, a in gold if is_transactional(m)}
    for (m, a), confirmed in made:
        k = norm_call(m, a)
        if left[k] > 0:
            left[k] -= 1
            hit += 1
        if is_transactional(m) and (not confirmed or k not in agreed):
            false_tx += 1
    return hit, false_tx


#: where replays keep their recorded results: the one folder the SGD pack's sandboxed tools may read
#: (their ``grants: {fs: {read: [/tmp/hermesd-replay]}}``; scripts/build_sgd_pack.py writes them)
RESULTS_ROOT = Path("/tmp/hermesd-replay")


def results_folder() -> Path:
    """A fresh folder under :data:`RESULTS_ROOT`, readable by the tool workers (another uid)."""
    RESULTS_ROOT.mkdir(mode=0o755, exist_ok=True)
    RESULTS_ROOT.chmod(0o755)
    folder = Path(tempfile.mkdtemp(dir=RESULTS_ROOT))
    folder.chmod(0o755)
    return folder


def run_replay(socket_path: str | os.PathLike[str] | None, file: str | os.PathLike[str], *, json_out: bool = False,
               limit: int | None = None, results_file: str | os.PathLike[str] | None = None,
               out: Any = None, concurrency: int = CONCURRENCY) -> dict[str, Any]:
    """Replay the SGD-format ``file`` through the daemon at ``socket_path``; print and return the scores.

    :param json_out: print the result as JSON instead of a table. :param limit: first N dialogues only.
    :param concurrency: dialogues replayed at once, each on its own connection (a turn returns once
        its state is committed, so one sequential client measures that round trip, not throughput);
        each dialogue's turns stay in order in its own session, so the scores do not depend on it.
    :param results_file: where to write the recorded results (default: a fresh folder under
        :data:`RESULTS_ROOT`, the only place the SGD pack's sandboxed tools may read);
        it must be readable by the daemon's tool workers (same machine).
    :return: ``{"services": {name: row}, "overall": row, "turns_per_s", "latency_ms": {p50, p99},
        "dialogues": [{dialogue_id, service, calls_made, calls_annotated, calls_matched, ...}]}``
        (``dialogues`` is returned, not printed).
    :raises hermesd.client.DaemonNotRunning, HermesError: from the client.
    """
    out = out or sys.stdout
    dialogues = load_dialogues(file, limit)
    if results_file is None:
        results_file = results_folder() / "sgd-results.jsonl"
    results_file = Path(results_file).resolve()
    write_results(dialogues, results_file)
    scores: dict[str, _Score] = defaultdict(_Score)
    latencies: list[float] = []
    per_dialogue: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    with Client(socket_path) as c:
        c.call("memory.put", {"session_id": f"user:{os.getuid()}", "anchor": "sgd_results_file",
                              "data": {"value": str(results_file)}})

    def one(c: Client, turns: list[dict[str, Any]]) -> tuple[dict[str, Any], list[float]]:
        lat: list[float] = []
        return _replay_dialogue(c, turns, lat), lat

    done = on_connections(socket_path, list(dialogues.values()), one, concurrency)
    for (did, turns), (r, lat) in zip(dialogues.items(), done):
        latencies.extend(lat)
        hit, false_tx = _match(r["gold"], r["made"])
        per_dialogue.append({"dialogue_id": did, "service": turns[0].get("service"),
                             "calls_made": [{"method": m, "args": a, "confirmed": cf} for (m, a), cf in r["made"]],
                             "calls_annotated": [{"method": m, "args": a, "turn": t}
                                                 for (m, a), t in zip(r["gold"], r["gold_turns"])],
                             "turns": r["log"],
                             "calls_matched": hit, "false_transactional_calls": false_tx,
                             "intents": [{"annotated": g, "tracked": p} for g, p in r["intents"]]})
        for sc in (scores[turns[0].get("service") or "?"], scores["overall"]):
            sc.dialogues += 1
            sc.turns += len(r["intents"])
            sc.intent_ok += sum(g == p for g, p in r["intents"])
            sc.gold += len(r["gold"])
            sc.pred += len(r["made"])
            sc.hit += hit
            sc.all_matched += int(hit == len(r["gold"]) == len(r["made"]))
            sc.false_tx += false_tx
            sc.declined += r["declined"]
    elapsed = time.perf_counter() - t0
    result = {"file": str(file), "services": {k: v.row() for k, v in sorted(scores.items()) if k != "overall"},
              "overall": scores["overall"].row(), "turns_per_s": round(len(latencies) / elapsed, 1) if elapsed else None,
              "latency_ms": {"p50": percentile(latencies, 0.5), "p99": percentile(latencies, 0.99)}}
    _print(result, json_out, out)
    result["dialogues"] = per_dialogue
    return result


def _print(result: dict[str, Any], json_out: bool, out: Any) -> None:
    if json_out:
        print(json.dumps(result, indent=1, ensure_ascii=False), file=out)
        return
    cols = ("dialogues", "user_turns", "intent_accuracy", "call_recall", "call_precision",
            "dialogues_all_calls_matched", "false_transactional_calls")
    heads = ("service", "dlg", "turns", "intent", "recall", "precision", "all-calls", "false-tx")
    rows = [(k, *[v.get(c) for c in cols]) for k, v in (*result["services"].items(), ("overall", result["overall"]))]
    fmt = "{:<16}{:>6}{:>7}{:>8}{:>8}{:>10}{:>10}{:>9}"
    print(fmt.format(*heads), file=out)
    for row in rows:
        print(fmt.format(*[f"{x:.1%}" if isinstance(x, float) else ("-" if x is None else x) for x in row]), file=out)
    print(f"turns/s {result['turns_per_s']}  latency p50 {result['latency_ms']['p50']} ms  "
          f"p99 {result['latency_ms']['p99']} ms", file=out)


def _xsid_records(path: str | os.PathLike[str], limit: int | None) -> Iterable[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        n = 0
        for line in f:
            if line.strip():
                if limit is not None and n >= limit:
                    return
                n += 1
                yield json.loads(line)


def run_xsid(socket_path: str | os.PathLike[str] | None, file: str | os.PathLike[str], *, json_out: bool = False,
             limit: int | None = None, intent_map: dict[str, str] | None = None, out: Any = None) -> dict[str, Any]:
    """Replay xSID records as single-turn sessions; print and return the scores.

    :param intent_map: xSID intent → the daemon's intent name (default :data:`XSID_TO_SHIPPED`);
        an unmapped xSID intent is expected to be answered out of scope (intent null).
    :return: ``{"intents": {name: {n, correct}}, "overall": {records, intent_accuracy, in_scope_records,
        in_scope_accuracy, out_of_scope_rejected, datetime_annotated, datetime_resolved,
        datetime_text_overlap}, "turns_per_s", "latency_ms"}``.
    ``datetime_resolved``: records with an annotated ``datetime`` where the daemon returned a
    datetime entity with a start; ``datetime_text_overlap``: of those, the entity's text overlaps
    the annotated span.
    """
    out = out or sys.stdout
    intent_map = XSID_TO_SHIPPED if intent_map is None else intent_map
    per: dict[str, Counter] = defaultdict(Counter)
    latencies: list[float] = []
    dt_n = dt_ok = dt_overlap = 0
    t0 = time.perf_counter()
    with Client(socket_path) as c:
        for r in _xsid_records(file, limit):
            sid = c.call("session.open", {"locale": r.get("lang") if r.get("lang") in ("zh", "en") else None})["session_id"]
            t1 = time.perf_counter()
            res = c.call("session.turn", {"session_id": sid, "text": r["text"], "reference_time": XSID_REFERENCE_TIME})
            latencies.append((time.perf_counter() - t1) * 1000)
            c.call("session.close", {"session_id": sid})
            gold = r["intent"]
            per[gold]["n"] += 1
            per[gold]["correct"] += int(res.get("intent") == intent_map.get(gold))
            ann = [e for e in r.get("entities") or [] if e["slot"] == "datetime"]
            if ann:
                dt_n += 1
                got = [e for e in res.get("entities") or [] if e.get("type") == "datetime"
                       and (e.get("value") or {}).get("start")]
                if got:
                    dt_ok += 1
                    spans = [(e["span"][0], e["span"][1]) for e in got]
                    if any(a < e["end"] and e["start"] < b for a, b in spans for e in ann):
                        dt_overlap += 1
    elapsed = time.perf_counter() - t0
    n = sum(v["n"] for v in per.values())
    correct = sum(v["correct"] for v in per.values())
    in_scope = {k: v for k, v in per.items() if k in intent_map}
    n_in, ok_in = sum(v["n"] for v in in_scope.values()), sum(v["correct"] for v in in_scope.values())
    result = {"file": str(file), "intents": {k: dict(v) for k, v in sorted(per.items())},
              "overall": {"records": n, "intent_accuracy": round(correct / n, 4) if n else None,
                          "in_scope_records": n_in, "in_scope_accuracy": round(ok_in / n_in, 4) if n_in else None,
                          "out_of_scope_rejected": round((correct - ok_in) / (n - n_in), 4) if n > n_in else None,
                          "datetime_annotated": dt_n, "datetime_resolved": dt_ok, "datetime_text_overlap": dt_overlap},
              "turns_per_s": round(len(latencies) / elapsed, 1) if elapsed else None,
              "latency_ms": {"p50": percentile(latencies, 0.5), "p99": percentile(latencies, 0.99)}}
    if json_out:
        print(json.dumps(result, indent=1, ensure_ascii=False), file=out)
    else:
        for k, v in result["intents"].items():
            print(f"{k:<32}{v['n']:>6}{v['correct'] / v['n']:>8.1%}", file=out)
        o = result["overall"]
        print(f"overall {o['records']} records, intent accuracy {o['intent_accuracy']:.1%} (in scope "
              f"{o['in_scope_accuracy']}, out of scope rejected {o['out_of_scope_rejected']}); datetime resolved "
              f"{o['datetime_resolved']}/{o['datetime_annotated']} (span overlap {o['datetime_text_overlap']}); "
              f"turns/s {result['turns_per_s']}, p50 {result['latency_ms']['p50']} ms, "
              f"p99 {result['latency_ms']['p99']} ms", file=out)
    return result


def main(argv: list[str] | None = None) -> int:
    """``python -m hermesd.replay [--socket P] FILE [--json] [--limit N] [--xsid] [--results PATH]``."""
    ap = argparse.ArgumentParser(prog="hermesd.replay", description="Replay dialogues through a running hermesd.")
    ap.add_argument("file")
    ap.add_argument("--socket")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--xsid", action="store_true", help="the file is xSID (single-turn sessions)")
    ap.add_argument("--results", help="where to write the recorded API results (SGD)")
    a = ap.parse_args(argv)
    if a.xsid:
        run_xsid(a.socket, a.file, json_out=a.json, limit=a.limit)
    else:
        run_replay(a.socket, a.file, json_out=a.json, limit=a.limit, results_file=a.results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
