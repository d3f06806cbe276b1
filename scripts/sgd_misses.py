#!/usr/bin/env python3
"""Where SGD call recall is lost: each annotated API call the replay did not match, put in one class.

Usage (from the repository root)::

    .venv/bin/python scripts/crossval_sgd.py --no-all --details /tmp/cv-details.jsonl
    .venv/bin/python scripts/sgd_misses.py /tmp/cv-details.jsonl [--data ../shared/data/sgd] [--examples N]

Input: the per-dialogue details ``crossval_sgd.py --details`` (or ``hermesd.replay.run_replay``'s
``dialogues``) writes, and the SGD turns they came from. Every annotated call is paired with an
identical made call (matched) or, failing that, with the unmatched made call of the same method
that differs in the fewest arguments; the class of a miss is that of its first differing argument
(in the order: date, time, count, named values, categorical values, extra arguments):

- no unmatched call of that method was made; from the replay's turn log (``turns``): for a
  transactional method, ``card declined: <slot>`` (the recorded user said yes to other values: the
  first argument the card had otherwise), ``correction while card open read as no`` (a turn with
  the recorded user's NEGATE + INFORM closed the card and ran nothing), ``card shown, never
  accepted``, ``transactional intent never tracked``, ``no card (a required value never heard)``;
  for a search, ``search: intent missed at the turn`` (another intent was tracked at the user turn
  before the annotated call) or ``search: no (re)query at the turn`` (the right intent, no call:
  the changed value was not heard). Details without a turn log (or ``--no-turns``) give
  ``no call: transactional`` / ``no call: search``;
- ``date`` / ``time`` / ``count``: the argument is missing or its value differs (normalisation);
- ``<slot>: missing`` / ``<slot>: wrong``: a named or categorical value not extracted, or another
  one taken (``said``: the annotated value was said by the user in some turn; ``offered``: only
  the system or the results named it);
- ``extra: <slot>``: the call carried an argument the annotated one does not.

Data: Schema-Guided Dialogue (Rastogi et al., AAAI 2020), CC BY-SA 4.0.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hermesd.replay import is_transactional, norm_call  # noqa: E402

DATE = {"date", "event_date"}
TIME = {"time", "event_time", "new_alarm_time", "alarm_time"}
COUNT = {"party_size", "number_of_seats"}


def _fold(v: object) -> str:
    return " ".join(str(v).split()).lower()


def _first_diff(gold: dict, args: dict) -> str:
    g = {k: _fold(v) for k, v in gold.items()}
    a = {k: _fold(v) for k, v in args.items()}
    d = sorted({k for k in g.keys() | a.keys() if g.get(k) != a.get(k)},
               key=lambda k: (k not in DATE, k not in TIME, k not in COUNT, k not in g, k))
    return d[0] if d else "-"


def no_call(gold: dict, turns: list[dict], acts: dict[int, set[str]]) -> tuple[str, str]:
    """Why no call of ``gold``'s method was left to pair with it, from the replay's turn log."""
    method, t = gold["method"], gold.get("turn")
    if is_transactional(method):
        shown = None  # the card open when the recorded user answered
        for u in turns:
            if u.get("declined") and (shown or {}).get("method") == method:
                args = shown.get("args") or {}
                k = _first_diff(gold["args"], args)
                return f"card declined: {k}", f"{k}: {gold['args'].get(k)!r} vs {args.get(k)!r}"
            shown = u.get("card")
        for u in turns:
            if u["before"] == "CONFIRMING" and u["after"] != "CONFIRMING" and u["sent"] == "session.turn" \
                    and not u["calls"] and {"NEGATE", "INFORM"} <= acts.get(u["turn"], set()):
                return "correction while card open read as no", str(u["turn"])
        if any((u.get("card") or {}).get("method") == method for u in turns):
            return "card shown, never accepted", ""
        if not any(u.get("active") == method for u in turns):
            return "transactional intent never tracked", ""
        return "no card (a required value never heard)", ""
    u = next((u for u in turns if u["turn"] == (t or 0) - 1), None)
    if u is None:
        return "search: no turn", ""
    if u.get("active") != method:
        return "search: intent missed at the turn", f"tracked {u.get('active')}"
    return "search: no (re)query at the turn", f"calls {[c['method'] for c in u['calls']]}"


def classify(gold: dict, made: list[dict], user_text: str, turns: list[dict] | None = None,
             acts: dict[int, set[str]] | None = None) -> tuple[str, str]:
    """``(class, detail)`` of the annotated call ``gold`` against the unmatched ``made`` calls."""
    same = [m for m in made if m["method"] == gold["method"]]
    if not same:
        if turns is not None:
            return no_call(gold, turns, acts or {})
        kind = "transactional" if is_transactional(gold["method"]) else "search"
        return f"no call: {kind}", gold["method"]
    g = {k: _fold(v) for k, v in gold["args"].items()}

    def diff(m: dict) -> list[str]:
        a = {k: _fold(v) for k, v in m["args"].items()}
        return sorted({k for k in g.keys() | a.keys() if g.get(k) != a.get(k)})

    best = min(same, key=lambda m: len(diff(m)))
    a = {k: _fold(v) for k, v in best["args"].items()}
    d = diff(best)
    order = sorted(d, key=lambda k: (k not in DATE, k not in TIME, k not in COUNT, k not in g, k))
    k = order[0]
    detail = f"{k}: {gold['args'].get(k)!r} vs {best['args'].get(k)!r}"
    if k in DATE:
        return "date", detail
    if k in TIME:
        return "time", detail
    if k in COUNT:
        return "count", detail
    if k not in g:
        return f"extra: {k}", detail
    said = "said" if g[k] in user_text else "offered"
    return f"{k}: {'missing' if k not in a else 'wrong'} ({said})", detail


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("details", type=Path)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "sgd")
    ap.add_argument("--examples", type=int, default=0, help="print this many examples of each class")
    ap.add_argument("--json", type=Path, help="also write the table to this file")
    ap.add_argument("--no-turns", action="store_true",
                    help="ignore the turn log (classes comparable with details that have none)")
    a = ap.parse_args(argv)
    texts: dict[str, str] = defaultdict(str)
    acts: dict[str, dict[int, set[str]]] = defaultdict(dict)
    with (a.data / "sgd_turns.jsonl").open() as f:
        for line in f:
            r = json.loads(line)
            if r["speaker"] == "USER":
                texts[r["dialogue_id"]] += " " + r["text"].lower()
                acts[r["dialogue_id"]][r["turn"]] = {x["act"] for x in r.get("actions") or []}
    classes: Counter = Counter()
    examples: dict[str, list[str]] = defaultdict(list)
    annotated = matched = made_n = 0
    for line in a.details.read_text().splitlines():
        d = json.loads(line)
        gold = d["calls_annotated"]
        made = list(d["calls_made"])
        annotated += len(gold)
        made_n += len(made)
        left = []
        for g in gold:
            k = norm_call(g["method"], g["args"])
            hit = next((i for i, m in enumerate(made) if norm_call(m["method"], m["args"]) == k), None)
            if hit is None:
                left.append(g)
            else:
                made.pop(hit)
                matched += 1
        for g in left:
            cls, detail = classify(g, made, texts[d["dialogue_id"]], None if a.no_turns else d.get("turns"),
                                   acts[d["dialogue_id"]])
            classes[cls] += 1
            examples[cls].append(f"{d['dialogue_id']}: {detail}")
    missed = annotated - matched
    print(f"annotated {annotated}, matched {matched} ({matched / annotated:.1%}), made {made_n}, missed {missed}")
    print(f"{'class':<44}{'missed':>7}{'share':>8}")
    for cls, n in classes.most_common():
        print(f"{cls:<44}{n:>7}{n / missed:>8.1%}")
        for ex in examples[cls][:a.examples]:
            print(f"    {ex}")
    if a.json:
        a.json.write_text(json.dumps({"annotated": annotated, "matched": matched, "made": made_n,
                                      "classes": dict(classes.most_common())}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
