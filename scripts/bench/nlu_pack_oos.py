"""Out of scope on an intent pack (default: the shipped ``config/intents``), measured as a user meets it.

    .venv/bin/python scripts/bench/nlu_pack_oos.py [--dirs config/intents] [--baseline DIR]
        [--heldout tests/nlu/data/everyday_heldout.yaml] [--folds 5]

Every figure goes through :func:`hermesd.nlu.parser.parse` — templates, then the scorer and its
rejection — as the daemon decides, never the scorer alone:

- **cv**: k-fold cross-validation by example over the pack's own examples, stratified by intent,
  out-of-scope examples included: each fold is parsed by an engine trained (rejection fitted by its
  own inner cross-validation, as :func:`~hermesd.nlu.intents.train` does) on the other folds.
  ``in_scope_accuracy``: a held-out in-scope example parsed to its intent (rejected = wrong);
  ``oos_recall``: a held-out out-of-scope example rejected.
- **heldout**: the engine trained on the whole pack, on everyday utterances written for the held-out
  file before any tuning (out-of-scope by category, and everyday-register in-scope phrasings).
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

from hermesd.nlu.artifact import PACK_OOS_PRIOR  # noqa: E402
from hermesd.nlu.intents import LEARNERS, folds_of, train  # noqa: E402
from hermesd.nlu.packs import OOS_LABEL, Packs, load_packs  # noqa: E402
from hermesd.nlu.parser import NluEngine, parse  # noqa: E402

REF = datetime(2026, 11, 29, 7, 30, tzinfo=ZoneInfo("Asia/Shanghai"))
#: the shipped directory's people, as the daemon gives them to the NLU (templates need {person})
PEOPLE = {"张工": "person:zhang", "李经理": "person:li", "王总": "person:wang", "刘老师": "person:liu",
          "陈医生": "person:chen", "mr. smith": "person:smith", "ms. lee": "person:lee", "dr. chen": "person:chen"}


def _engine(packs: Packs, examples: list[tuple[str, str]], oos_prior: float, learner: str | None) -> NluEngine:
    model = train(examples, oos_label=OOS_LABEL, oos_prior=oos_prior, **({"learner": learner} if learner else {}))
    return NluEngine(packs.intents, model, PEOPLE, packs.gazetteers)


def _reads(engine: NluEngine, text: str) -> str:
    r = parse(text, ref=REF, tz=REF.tzinfo, engine=engine)  # type: ignore[arg-type]
    return OOS_LABEL if r.out_of_scope or r.intent is None else r.intent


def _score(pairs: list[tuple[str, str, str]]) -> dict[str, Any]:
    """pairs: (text, gold, read) → in-scope accuracy, OOS recall, counts, and the misses."""
    ins = [(t, g, p) for t, g, p in pairs if g != OOS_LABEL]
    oos = [(t, g, p) for t, g, p in pairs if g == OOS_LABEL]
    return {"n_in_scope": len(ins), "n_oos": len(oos),
            "in_scope_accuracy": round(sum(g == p for _, g, p in ins) / len(ins), 4) if ins else None,
            "oos_recall": round(sum(p == OOS_LABEL for *_, p in oos) / len(oos), 4) if oos else None,
            "taken_oos": [(t, p) for t, _, p in oos if p != OOS_LABEL],
            "missed_in_scope": [(t, g, p) for t, g, p in ins if g != p]}


def measure(dirs: list[Path], heldout: Path, k: int, oos_prior: float, learner: str | None = None) -> dict[str, Any]:
    """The cv and heldout figures of the pack in ``dirs`` (see the module docstring)."""
    packs = load_packs(dirs)
    examples = packs.examples()
    fold = folds_of([y for _, y in examples], k, 7)
    pairs = []
    for f in range(k):
        eng = _engine(packs, [ex for ex, g in zip(examples, fold) if g != f], oos_prior, learner)
        pairs += [(t, y, _reads(eng, t)) for (t, y), g in zip(examples, fold) if g == f]
    full = _engine(packs, examples, oos_prior, learner)
    doc = yaml.safe_load(heldout.read_text(encoding="utf-8"))
    held = [(t, OOS_LABEL) for ts in doc["out_of_scope"].values() for t in ts] + [tuple(x) for x in doc["in_scope"]]
    cv, ho = _score(pairs), _score([(t, y, _reads(full, t)) for t, y in held])
    return {"n_examples": len(examples), "n_oos_examples": sum(y == OOS_LABEL for _, y in examples),
            "cv": cv, "heldout": ho,
            "train_cv_report": {k_: v for k_, v in full.model.report.items() if k_ != "curve"}}  # type: ignore[union-attr]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dirs", nargs="+", default=[str(REPO / "config" / "intents")])
    ap.add_argument("--baseline", nargs="*", default=None, help="another pack folder, measured in the same run")
    ap.add_argument("--heldout", default=str(REPO / "tests" / "nlu" / "data" / "everyday_heldout.yaml"))
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--oos-prior", type=float, default=PACK_OOS_PRIOR,
                    help="share of out-of-scope utterances the rejection is tuned for (default: the daemon's)")
    ap.add_argument("--misses", action="store_true", help="list what each figure got wrong")
    ap.add_argument("--learner", choices=LEARNERS, help="the pack's learner (default: train()'s)")
    ap.add_argument("--baseline-learner", choices=LEARNERS,
                    help="the baseline's learner (default: train()'s); without --baseline, the pack again")
    a = ap.parse_args(argv)
    out: dict[str, Any] = {"pack": measure([Path(d) for d in a.dirs], Path(a.heldout), a.folds, a.oos_prior,
                                           a.learner)}
    if a.baseline_learner and a.baseline is None:
        a.baseline = a.dirs
    if a.baseline:
        out["baseline"] = measure([Path(d) for d in a.baseline], Path(a.heldout), a.folds, a.oos_prior,
                                  a.baseline_learner)
    rows = [("cv", "in_scope_accuracy"), ("cv", "oos_recall"), ("heldout", "in_scope_accuracy"),
            ("heldout", "oos_recall")]
    print(f"{'figure':34} {'pack':>8}" + (f" {'baseline':>9} {'ratio':>6}" if a.baseline else ""))
    for part, key in rows:
        mine = out["pack"][part][key]
        line = f"{part + ' ' + key:34} {mine:8.4f}"
        if a.baseline:
            base = out["baseline"][part][key]
            line += f" {base:9.4f} {mine / base if base else float('nan'):6.3f}"
        print(line)
    for v in out.values():
        for part in ("cv", "heldout"):
            if not a.misses:
                v[part] = {k: (len(x) if isinstance(x, list) else x) for k, x in v[part].items()}
    print(json.dumps(out, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
