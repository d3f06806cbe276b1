#!/usr/bin/env python3
"""Where CrossWOZ call recall and precision are lost: every false query and every miss in one class.

Usage (from the repository root; the pack built first)::

    .venv/bin/python scripts/build_crosswoz_pack.py [--holdout-fold K --out /tmp/cw-foldK]
    .venv/bin/python scripts/crosswoz_misses.py [--pack config/packs/crosswoz] [--fold K [--folds 5]]
        [--examples N] [--json FILE]

The pack's handler (``tools/_cw/query.py``) is run **in-process**, one user turn after another
with the state it returned (what the daemon does with ``split_requests: false``, without the
sandbox, the act classifier and the taxi booking card — a query is what this tool logs either way,
so the figures are those of ``hermesctl replay`` up to the taxi turns), and scored with
:func:`hermesd.replay_crosswoz.score_dialogue` (the replay's rule, unchanged). ``--fold K``
replays only the dialogues of fold K (build the pack with ``--holdout-fold K`` for a held-out look).

Classes, each query or change point in one (first that applies):

- a query hermesd made that matches no change point (precision):
  ``no change: same as wizard`` (the wizard's constraints of the domain did not change at that
  turn and hermesd's query equals them: hermesd catches up a change it missed before),
  ``no change: <diff>`` (the wizard did not change them; hermesd's query differs from them),
  ``domain not queried`` (the wizard has no query of that domain yet),
  ``changed: <diff>`` (a change point, but hermesd's constraints differ);
- a change point not matched (recall): ``no query`` (hermesd made none of that domain at the
  turn; ``no query, late`` when the wizard's change repeats values hermesd queried before) or
  ``<diff>``;

where ``<diff>`` is the first differing slot: ``extra <slot>`` (hermesd carries a slot the wizard's
query has not), ``missing <slot>``, ``wrong <slot>``. ``extra``/``missing`` are tagged with what the
dialogue's user said: ``(user stated it)`` when the user turn's own dialogue acts inform that slot
(the wizard left it out: a relaxation or an annotation gap), ``(not said)`` when no user act of
the dialogue so far carries the value (the wizard took it from elsewhere, e.g. its own offer).

A stricter count follows the classes: the false queries equal to the wizard's own final query
of that turn (``api_call_final``), the only ones that are the annotation's and not hermesd's
without doubt (the "who is at fault" classes also blame the wizard for a value the user gave by
reference, "这些景点里…", which hermesd missed).

Data: CrossWOZ (Zhu et al., TACL 2020), Apache-2.0.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from build_crosswoz_pack import fold_of  # noqa: E402
from hermesd.replay_crosswoz import DOMAINS, _fold_cons, load_dialogues, score_dialogue  # noqa: E402


def _handler(pack: Path, db: Path):
    os.environ["HERMESD_DATA_DIR"] = str(db)
    sys.path.insert(0, str(pack / "tools" / "_cw"))
    return importlib.import_module("query").handle


def replay(handle, turns: list[dict]) -> dict[int, dict]:
    """User turn index → ``{"queries": [(domain, constraints)], "text": reply}`` (in-process)."""
    state, out, n = None, {}, 0
    for i, t in enumerate(turns):
        if t["speaker"] != "user":
            continue
        res = handle({"utterance": t["text"], "state": state, "turn": n})
        n += 1
        state = res["state"]
        out[i] = {"queries": [(q["domain"], q["constraints"]) for q in res["queries"]], "text": res["say"]}
    return out


def _diff(ours: dict, gold: dict) -> tuple[str, str] | None:
    o, g = dict(_fold_cons(ours)), dict(_fold_cons(gold))
    for k in sorted(o.keys() | g.keys(), key=lambda k: (k in o and k in g, k)):
        if k not in g:
            return "extra", k
        if k not in o:
            return "missing", k
        if o[k] != g[k]:
            return "wrong", k
    return None


def _said(turns: list[dict], upto: int, dom: str, slot: str, value=None) -> str:
    """``user stated it`` when user turn ``upto`` informs (dom, slot); ``not said`` when no user
    turn up to it informs that value; else ``said before``."""
    acts = turns[upto].get("dialog_act") or []
    if any(a[0] in ("Inform", "Select") and a[1] == dom and a[2] == slot for a in acts):
        return "user stated it"
    if value is not None:
        for t in turns[:upto + 1]:
            if t["speaker"] == "user" and any(a[0] in ("Inform", "Select") and str(a[3]) == str(value)
                                              for a in t.get("dialog_act") or []):
                return "said before"
        return "not said"
    return "said before"


NEAR = {"周边景点", "周边餐馆", "周边酒店"}


def wizard_side(cls: str, dom: str, ours: dict | None, gold: dict | None, db_values) -> str | None:
    """The part the wizard's annotation plays in a false query or miss, or None when hermesd's
    reading is at fault: ``wizard left out a stated constraint`` (extra X, the user's own act
    informs it), ``wizard added an unsaid value`` (missing X, no user act carries it),
    ``wizard's choice of place`` (wrong 名称 / 周边X: a place among equals), ``wizard's spelling``
    (wrong X where hermesd's value is the database's and the wizard's is not), ``wizard's near slot``
    (the same place under another 周边X slot: hermesd's slot is the kind the database gives that
    place, 景点 near a restaurant is 周边餐馆; the wizard wrote 周边景点)."""
    o_near = {k: v for k, v in (ours or {}).items() if k in NEAR}
    g_near = {k: v for k, v in (gold or {}).items() if k in NEAR}
    if any(v == gv and k != gk for k, v in o_near.items() for gk, gv in g_near.items()):
        return "wizard's near slot (the place is of another kind)"
    if "(user stated it)" in cls and cls.split(": ")[-1].startswith("extra"):
        return "wizard left out a stated constraint"
    if "(not said)" in cls and cls.split(": ")[-1].startswith("missing"):
        return "wizard added an unsaid value"
    tail = cls.split(": ")[-1]
    if tail.startswith("wrong "):
        slot = tail.split(" ", 1)[1]
        if slot == "名称" or slot in NEAR:
            return "wizard's choice of place"
        o, g = str((ours or {}).get(slot, "")), str((gold or {}).get(slot, ""))
        vocab = db_values(dom, slot)
        if vocab and all(p in vocab for p in o.split()) and not all(p in vocab for p in g.split()):
            return "wizard's spelling (not the database's)"
    return None


def classify(turns: list[dict], replies: dict[int, dict]) -> tuple[list[tuple], list[tuple]]:
    """:return: (false queries, misses) as ``(class, domain, turn, ours, gold, text)``."""
    false, misses = [], []
    prev: dict = {}
    last_user = None
    seen: dict[str, list] = defaultdict(list)  # every constraint set hermesd queried, per domain
    for i, t in enumerate(turns):
        if t["speaker"] == "user":
            last_user = i
            continue
        args = (t.get("api_call") or {}).get("args") or {}
        got = replies.get(last_user, {}) if last_user is not None else {}
        last = {}
        for d, c in got.get("queries", []):
            last[d] = c
        made = list(got.get("queries", []))
        text = turns[last_user]["text"] if last_user is not None else ""
        for dom in DOMAINS:
            def mismatch(ours: dict, gold: dict, dom: str = dom) -> str:
                """"<kind> <slot>", and for a value one side lacks, who said it."""
                kind, slot = _diff(ours, gold)
                if kind not in ("extra", "missing"):
                    return f"{kind} {slot}"
                val = (ours if kind == "extra" else gold).get(slot)
                return f"{kind} {slot} ({_said(turns, last_user, dom, slot, val)})"

            counted = dom in args and _fold_cons(args[dom]) != _fold_cons(prev.get(dom))
            gold = args.get(dom)
            mine = [c for d, c in made if d == dom]
            # the turn's queries of a domain: all but the last one are false by construction
            for c in mine[:-1]:
                false.append(("earlier part of the turn", dom, t["turn"], c, gold, text))
            ours = last.get(dom)
            if counted:
                if ours is not None and _fold_cons(ours) == _fold_cons(gold):
                    pass
                else:
                    if ours is None:
                        late = any(_fold_cons(c) == _fold_cons(gold) for c in seen[dom])
                        cls = "no query, late" if late else "no query"
                    else:
                        cls = mismatch(ours, gold)
                        false.append(("changed: " + cls, dom, t["turn"], ours, gold, text))
                    misses.append((cls, dom, t["turn"], ours, gold, text))
            elif ours is not None:
                if gold is None:
                    false.append(("domain not queried", dom, t["turn"], ours, gold, text))
                elif _fold_cons(ours) == _fold_cons(gold):
                    false.append(("no change: same as wizard", dom, t["turn"], ours, gold, text))
                else:
                    false.append(("no change: " + mismatch(ours, gold), dom, t["turn"], ours, gold, text))
            if ours is not None:
                seen[dom].append(ours)
        prev = args
    return false, misses


def _relaxed(turns: list[dict], turn: int, dom: str) -> bool:
    """The change point at system turn ``turn`` only repeats the relaxed query (``api_call_final``)
    the wizard made at its previous system turn."""
    idx = next(i for i, t in enumerate(turns) if t["turn"] == turn)
    gold = ((turns[idx].get("api_call") or {}).get("args") or {}).get(dom)
    for t in reversed(turns[:idx]):
        if t["speaker"] == "system":
            call = ((t.get("api_call") or {}).get("args") or {}).get(dom)
            final = ((t.get("api_call_final") or {}).get("args") or {}).get(dom)
            return _fold_cons(final) == _fold_cons(gold) and _fold_cons(call) != _fold_cons(gold)
    return False


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pack", type=Path, default=ROOT / "config" / "packs" / "crosswoz")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "crosswoz")
    ap.add_argument("--fold", type=int, help="replay only this fold's dialogues")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--examples", type=int, default=0, help="example utterances shown per class")
    ap.add_argument("--top", type=int, default=40, help="classes shown per table")
    ap.add_argument("--json", type=Path, help="write every false query and miss to this file")
    a = ap.parse_args(argv)
    handle = _handler(a.pack, a.data / "database")
    dialogues = load_dialogues(a.data / "crosswoz_turns.jsonl")
    if a.fold is not None:
        dialogues = {k: v for k, v in dialogues.items() if fold_of(k, a.folds) == a.fold}
    sys.path.insert(0, str(a.pack / "tools" / "_cw"))
    import cw_db  # noqa: E402  (the pack's, beside its handler)

    def db_values(dom: str, slot: str) -> set[str]:
        return cw_db.vocabulary(dom, slot) if slot in cw_db.CATEGORICAL else set()

    wiz: Counter = Counter()
    totals: dict = defaultdict(Counter)
    false_c, miss_c = Counter(), Counter()
    ex: dict = defaultdict(list)
    rows = []
    n_turns, t0, relaxed, as_final = 0, time.perf_counter(), 0, 0
    for did, turns in dialogues.items():
        replies = replay(handle, turns)
        n_turns += len(replies)
        s = score_dialogue(turns, replies)
        for dom, r in s["domains"].items():
            totals[dom].update(r)
            totals["overall"].update(r)
        f, m = classify(turns, replies)
        relaxed += sum(1 for cls, dom, turn, *_ in m if cls.startswith("no query") and _relaxed(turns, turn, dom))
        by_turn = {t["turn"]: t for t in turns}
        for kind, items, counter in (("false", f, false_c), ("miss", m, miss_c)):
            for cls, dom, turn, ours, gold, text in items:
                counter[cls] += 1
                if kind == "false":
                    wiz[wizard_side(cls, dom, ours, gold, db_values) or "hermesd's reading"] += 1
                    final = (((by_turn[turn].get("api_call_final") or {}).get("args") or {}).get(dom))
                    as_final += final is not None and _fold_cons(final) == _fold_cons(ours)
                counter[f"  [{dom}]"] += 0
                if len(ex[(kind, cls)]) < a.examples:
                    ex[(kind, cls)].append(f"{did}#{turn} {dom} «{text}» ours={ours} gold={gold}")
                rows.append({"kind": kind, "class": cls, "dialogue_id": did, "turn": turn, "domain": dom,
                             "ours": ours, "gold": gold, "text": text})
    el = time.perf_counter() - t0
    print(f"{'domain':<8}{'counted':>8}{'made':>7}{'matched':>8}{'recall':>8}{'precision':>10}{'req-recall':>11}")
    for dom in (*DOMAINS, "overall"):
        r = totals.get(dom)
        if not r:
            continue
        def pct(a: int, b: int) -> str:
            return f"{a / b:.1%}" if b else "-"
        print(f"{dom:<8}{r['counted']:>8}{r['made']:>7}{r['matched']:>8}{pct(r['matched'], r['counted']):>8}"
              f"{pct(r['matched'], r['made']):>10}{pct(r['req_matched'], r['req_counted']):>11}")
    print(f"{len(dialogues)} dialogues, {n_turns} user turns, {n_turns / el:.0f} turns/s in-process\n")
    for title, counter, kind in (("false queries", false_c, "false"), ("misses", miss_c, "miss")):
        items = [(c, n) for c, n in counter.most_common() if not c.startswith("  [")]
        print(f"{title}: {sum(n for _, n in items)}")
        for c, n in items[:a.top]:
            print(f"  {n:>5}  {c}")
            for e in ex[(kind, c)]:
                print(f"           {e}")
        print()
    # a miss where the wizard changed nothing the user said: its api_call repeats the relaxed query
    # (api_call_final) of its previous turn (it dropped a constraint to find something)
    print("false queries by who is at fault:")
    for c, n in wiz.most_common():
        print(f"  {n:>5}  {c}")
    # the strict test of "the annotation's fault": the wizard's own last query of that turn
    # (api_call_final, what it searched after relaxing or completing its first one) is exactly
    # hermesd's; the classes above also blame the wizard where hermesd missed a reference
    print(f"false queries equal to the wizard's own final query of that turn (api_call_final): "
          f"{as_final} of {sum(false_c.values())}")
    print(f"misses that are the wizard's relaxation carried to the next turn: {relaxed} of {sum(miss_c.values())}")
    if a.json:
        a.json.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
