"""Out of scope on an intent pack (default: the shipped ``config/intents``), measured as a user meets it.

    .venv/bin/python scripts/bench/nlu_pack_oos.py [--dirs config/intents] [--baseline DIR]
        [--heldout tests/nlu/data/everyday_heldout.yaml tests/nlu/data/nearmiss_heldout.yaml] [--folds 5]
        [--seeds 13 1 2]

Every figure goes through :func:`hermesd.nlu.parser.parse` — templates, then the scorer and its
rejection — as the daemon decides, never the scorer alone:

- **cv**: k-fold cross-validation by example over the pack's own examples, stratified by intent,
  out-of-scope examples included: each fold is parsed by an engine trained (rejection fitted by its
  own inner cross-validation, as :func:`~hermesd.nlu.intents.train` does) on the other folds.
  ``in_scope_accuracy``: a held-out in-scope example parsed to its intent (rejected = wrong);
  ``oos_recall``: a held-out out-of-scope example rejected.
  The in-scope misses by kind: ``missed_rejected_right`` (rejected, though the intent ranked first
  was right: all a rejection change can win back), ``missed_rejected_wrong``, ``missed_confused``
  (read as another intent: the closed-set scorer's error).
  ``cv:<file>``: the OOS recall on one pack file's out-of-scope examples (two packs compare on the
  files they share).
- **heldout:<file>**: the engine trained on the whole pack, on each held-out file, written before any
  tuning: everyday utterances (out-of-scope by category, and everyday-register in-scope phrasings) and
  near misses (everyday sentences that use an intent's words about something else, issue 17).
- ``--seeds``: each figure is the mean over these training seeds, with its range (one seed's figure
  moves by a point or more when one example is added: the perceptron's order changes).
- ``--baseline DIR``: the same figures for another pack folder (e.g. the previous release's
  ``config/intents``), side by side in the same run; ``--learner`` / ``--baseline-learner``: the
  learner of each (``--baseline-learner`` alone compares two learners on the same pack).

Prints a table (the pack beside ``--baseline``, with the ratio), then the whole JSON. A benchmark,
not a test: it never fails on a figure.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from hermesd.nlu.artifact import PACK_BAG, PACK_OOS_PRIOR  # noqa: E402
from hermesd.nlu.intents import LEARNERS, folds_of, train  # noqa: E402
from hermesd.nlu.packs import OOS_LABEL, Packs, load_packs  # noqa: E402
from hermesd.nlu.parser import NluEngine, parse  # noqa: E402

REF = datetime(2026, 11, 29, 7, 30, tzinfo=ZoneInfo("Asia/Shanghai"))
#: the shipped directory's people, as the daemon gives them to the NLU (templates need {person})
PEOPLE = {"张工": "person:zhang", "李经理": "person:li", "王总": "person:wang", "刘老师": "person:liu",
          "陈医生": "person:chen", "mr. smith": "person:smith", "ms. lee": "person:lee", "dr. chen": "person:chen"}


def _engine(packs: Packs, examples: list[tuple[str, str]], oos_prior: float, learner: str | None,
            seed: int, bag: int) -> NluEngine:
    model = train(examples, oos_label=OOS_LABEL, oos_prior=oos_prior, seed=seed, bag=bag,
                  **({"learner": learner} if learner else {}))
    return NluEngine(packs.intents, model, PEOPLE, packs.gazetteers)


def _reads(engine: NluEngine, text: str) -> str:
    return _reads_top(engine, text)[0]


def _reads_top(engine: NluEngine, text: str) -> tuple[str, str | None]:
    """(what the daemon reads — an intent or :data:`OOS_LABEL` —, the in-scope intent the ranking
    put first: a template's, else the scorer's top in-scope intent; None when none scored)."""
    r = parse(text, ref=REF, tz=REF.tzinfo, engine=engine)  # type: ignore[arg-type]
    first = next((m.intent for m in r.intents if m.intent != OOS_LABEL), None)
    return (OOS_LABEL if r.out_of_scope or r.intent is None else r.intent), first


def _score(pairs: list[tuple[str, str, str]], firsts: list[str | None] | None = None) -> dict[str, Any]:
    """pairs: (text, gold, read) → in-scope accuracy, OOS recall, counts, and the misses. With
    ``firsts`` (per pair, the in-scope intent ranked first, :func:`_reads_top`) the in-scope misses
    are also counted by kind: ``missed_rejected_right`` (rejected, the intent ranked first was right:
    what a rejection change can win back), ``missed_rejected_wrong`` (rejected, and wrong anyway) and
    ``missed_confused`` (read as another intent: the closed-set scorer's error)."""
    ins = [(t, g, p) for t, g, p in pairs if g != OOS_LABEL]
    oos = [(t, g, p) for t, g, p in pairs if g == OOS_LABEL]
    kinds: dict[str, Any] = {}
    if firsts is not None:
        miss = [(g, p, f) for (_, g, p), f in zip(pairs, firsts) if g != OOS_LABEL and g != p]
        kinds = {"missed_rejected_right": sum(1 for g, p, f in miss if p == OOS_LABEL and f == g),
                 "missed_rejected_wrong": sum(1 for g, p, f in miss if p == OOS_LABEL and f != g),
                 "missed_confused": sum(1 for _, p, _ in miss if p != OOS_LABEL)}
    return {**kinds, "n_in_scope": len(ins), "n_oos": len(oos),
            "in_scope_accuracy": round(sum(g == p for _, g, p in ins) / len(ins), 4) if ins else None,
            "oos_recall": round(sum(p == OOS_LABEL for *_, p in oos) / len(oos), 4) if oos else None,
            "taken_oos": [(t, p) for t, _, p in oos if p != OOS_LABEL],
            "missed_in_scope": [(t, g, p) for t, g, p in ins if g != p]}


def _oos_sources(dirs: list[Path]) -> dict[str, str]:
    """Out-of-scope example (lower case) → the stem of the pack file that says it."""
    out: dict[str, str] = {}
    for d in dirs:
        for f in sorted(Path(d).glob("*.yaml")):
            for t in (yaml.safe_load(f.read_text(encoding="utf-8")) or {}).get("out_of_scope") or []:
                out.setdefault(str(t).lower(), f.stem)
    return out


#: the in-scope misses of cv by kind (:func:`_score`)
_MISS_KINDS = ("missed_rejected_right", "missed_rejected_wrong", "missed_confused")


def _mean(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One seed's figures as they are; several seeds' as the mean, with ``<figure>_range`` [min, max]
    and the misses of the first seed."""
    if len(runs) == 1:
        return runs[0]
    out = dict(runs[0])
    for k in ("in_scope_accuracy", "oos_recall") + _MISS_KINDS:
        xs = [r[k] for r in runs if r.get(k) is not None]
        if xs:
            out[k] = round(sum(xs) / len(xs), 4)
            out[k + "_range"] = [min(xs), max(xs)]
    return out


def measure(dirs: list[Path], heldout: list[Path], k: int, oos_prior: float, learner: str | None = None,
            seeds: list[int] | None = None, bag: int = PACK_BAG) -> dict[str, Any]:
    """The cv and held-out figures of the pack in ``dirs`` (see the module docstring), each the mean
    over the training ``seeds`` (the perceptron's order: one seed's in-scope figure moves by a point
    or more with one example added). ``cv:<file>``: the cv OOS recall on one pack file's
    out-of-scope examples, so two packs compare on the examples they share."""
    seeds = seeds or [13]
    packs = load_packs(dirs)
    examples = packs.examples()
    fold = folds_of([y for _, y in examples], k, 7)
    src = _oos_sources(dirs)
    helds = {}
    for h in heldout:
        doc = yaml.safe_load(h.read_text(encoding="utf-8"))
        helds[h.stem] = ([(t, OOS_LABEL) for ts in doc["out_of_scope"].values() for t in ts]
                         + [tuple(x) for x in doc.get("in_scope") or []])
    runs: dict[str, list[dict[str, Any]]] = {}
    report = {}
    for seed in seeds:
        pairs, firsts = [], []
        for f in range(k):
            eng = _engine(packs, [ex for ex, g in zip(examples, fold) if g != f], oos_prior, learner, seed, bag)
            for (t, y), g in zip(examples, fold):
                if g == f:
                    read, first = _reads_top(eng, t)
                    pairs.append((t, y, read))
                    firsts.append(first)
        runs.setdefault("cv", []).append(_score(pairs, firsts))
        for stem in sorted({v for v in src.values()}):
            part = [p for p in pairs if p[1] == OOS_LABEL and src.get(p[0].lower()) == stem]
            if part:
                runs.setdefault("cv:" + stem, []).append(_score(part))
        full = _engine(packs, examples, oos_prior, learner, seed, bag)
        for stem, held in helds.items():
            runs.setdefault("heldout:" + stem, []).append(_score([(t, y, _reads(full, t)) for t, y in held]))
        if not report:
            report = {k_: v for k_, v in full.model.report.items() if k_ != "curve"}  # type: ignore[union-attr]
    out: dict[str, Any] = {"n_examples": len(examples), "n_oos_examples": sum(y == OOS_LABEL for _, y in examples),
                           "seeds": seeds, "bag": bag}
    out.update({part: _mean(rs) for part, rs in runs.items()})
    out["train_cv_report"] = report
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dirs", nargs="+", default=[str(REPO / "config" / "intents")])
    ap.add_argument("--baseline", nargs="*", default=None, help="another pack folder, measured in the same run")
    ap.add_argument("--heldout", nargs="+", default=[str(REPO / "tests" / "nlu" / "data" / f) for f in
                                                      ("everyday_heldout.yaml", "nearmiss_heldout.yaml")])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seeds", nargs="+", type=int, default=[13],
                    help="training seeds; each figure is their mean (13: the daemon's)")
    ap.add_argument("--bag", type=int, default=PACK_BAG, help="perceptron orders per training (default: the daemon's)")
    ap.add_argument("--oos-prior", type=float, default=PACK_OOS_PRIOR,
                    help="share of out-of-scope utterances the rejection is tuned for (default: the daemon's)")
    ap.add_argument("--misses", action="store_true", help="list what each figure got wrong")
    ap.add_argument("--learner", choices=LEARNERS, help="the pack's learner (default: train()'s)")
    ap.add_argument("--baseline-learner", choices=LEARNERS,
                    help="the baseline's learner (default: train()'s); without --baseline, the pack again")
    a = ap.parse_args(argv)
    held = [Path(h) for h in a.heldout]
    out: dict[str, Any] = {"pack": measure([Path(d) for d in a.dirs], held, a.folds, a.oos_prior, a.learner,
                                           a.seeds, a.bag)}
    if a.baseline_learner and a.baseline is None:
        a.baseline = a.dirs
    if a.baseline:
        out["baseline"] = measure([Path(d) for d in a.baseline], held, a.folds, a.oos_prior,
                                  a.baseline_learner, a.seeds, a.bag)
    parts = [p for p in out["pack"] if p == "cv" or p.startswith(("cv:", "heldout:"))]
    print(f"{'figure':48} {'pack':>8}" + (f" {'baseline':>9} {'ratio':>6}" if a.baseline else ""))
    for part in parts:
        for key in ("in_scope_accuracy", "oos_recall") + _MISS_KINDS:
            mine = out["pack"][part].get(key)
            if mine is None:
                continue
            line = f"{part + ' ' + key:48} {mine:8.4f}"
            if a.baseline:
                base = out["baseline"].get(part, {}).get(key)
                line += (f" {base:9.4f} {mine / base if base else float('nan'):6.3f}" if base is not None
                         else f" {'-':>9}")
            print(line)
    for v in out.values():
        for part in [p for p in v if p == "cv" or p.startswith(("cv:", "heldout:"))]:
            if not a.misses:
                v[part] = {k: (len(x) if k in ("taken_oos", "missed_in_scope") else x) for k, x in v[part].items()}
    print(json.dumps(out, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
