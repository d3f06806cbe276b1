"""Evaluation CLI: ``python -m hermesd.nlu.eval intents|slots|temporal`` → one JSON object on stdout.

Works on any JSON Lines file in the ``../shared/data`` format, so the same command
runs on data we do not have (the held-out 20%):

- ``intents --train F --test F [--split-field source_split --train-splits train,oos_train
  --test-splits val,oos_val] [--oos-label oos] [--lang zh|en] [--cache-dir D]``: in-scope accuracy
  (an in-scope utterance rejected as out of scope counts as wrong), closed-set accuracy (top-1, no
  rejection: the figure for closed-set benchmarks such as SNIPS), OOS recall/precision, macro F1 over
  in-scope intents, n, p50/p99 µs per utterance; ``cv``: the same figures estimated by k-fold
  cross-validation over the training data while training (``--folds``), and ``curve``: in-scope
  accuracy / OOS recall on the test split and in cross-validation at several rejection cuts. A long
  utterance out of scope as a whole gets the second reading of its last clause, as in ``parse()``
  (``--no-clauses``: the whole utterance only);
  ``--long N`` adds a synthetic check of that reading (long texts made of test utterances).
  ``--train`` and ``--test`` may name the same file when splits select the records; without
  split options, the whole ``--train`` file trains and the whole ``--test`` file tests.
- ``slots --data F --map MAP.yaml [--ref ISO] [--tz ZONE]``: precision/recall/F1 per hermesd
  entity type against the annotated spans (exact span match). MAP maps dataset slot names to
  hermesd entity types, e.g. ``{timeRange: datetime}``.
- ``temporal --data F``: lines ``{"text","ref","tz","kind","start","end"[,"seconds"]}`` → accuracy
  and every mismatch (an expected ``end`` of null is not compared).

This is a development tool: it reads files and measures time, the parser it drives does neither.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable
from zoneinfo import ZoneInfo

import orjson
import yaml

from .entities import EntityExtractor
from .intents import LEARNERS, IntentRecognizer, IntentSpec, train_cached
from .normalize import normalize
from .temporal import parse_times


def _read(path: str) -> list[dict[str, Any]]:
    with open(path, "rb") as f:
        return [orjson.loads(line) for line in f if line.strip()]


def _split_ok(rec: dict[str, Any], field: str | None, splits: set[str] | None) -> bool:
    if not field or not splits:
        return True
    v = rec.get(field)
    vals = v if isinstance(v, list) else [v]
    return any(x in splits for x in vals)


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def cmd_intents(a: argparse.Namespace) -> dict[str, Any]:
    tr_splits = set(a.train_splits.split(",")) if a.train_splits else None
    te_splits = set(a.test_splits.split(",")) if a.test_splits else None
    rows_tr = _read(a.train)
    rows_te = rows_tr if a.test == a.train else _read(a.test)
    train = [r for r in rows_tr if _split_ok(r, a.split_field, tr_splits) and (not a.lang or r.get("lang", a.lang) == a.lang)]
    test = [r for r in rows_te if _split_ok(r, a.split_field, te_splits) and (not a.lang or r.get("lang", a.lang) == a.lang)]
    if a.train == a.test:
        if not (tr_splits or te_splits):
            raise SystemExit("--train and --test are the same file: give --split-field and splits")
        # a record listed in both splits (SNIPS has a few) is a test record only
        test_ids = {id(r) for r in test}
        train = [r for r in train if id(r) not in test_ids]
    t0 = time.perf_counter()
    model = train_cached([(r["text"], r[a.label_field]) for r in train], a.cache_dir,
                         oos_label=a.oos_label, epochs=a.epochs, oos_prior=a.oos_prior, folds=a.folds,
                         max_in_scope_loss=a.max_in_scope_loss if a.max_in_scope_loss >= 0 else None,
                         **({"learner": a.learner} if a.learner else {}), **({"l2": a.l2} if a.l2 is not None else {}))
    train_s = time.perf_counter() - t0
    rec = IntentRecognizer([IntentSpec(c) for c in model.classes], model, None)
    lat: list[float] = []
    gold: list[str] = []
    pred: list[str] = []
    first: list[str | None] = []  # top-1 with no out-of-scope rejection (closed-set accuracy)
    points: list[tuple[float, bool, bool]] = []  # (confidence, is out of scope, top in-scope intent right)
    for r in test:
        t1 = time.perf_counter_ns()
        ranked, top, oos = _read_intent(rec, r["text"], a.clauses)
        lat.append((time.perf_counter_ns() - t1) / 1000)
        gold.append(r[a.label_field])
        pred.append(a.oos_label if oos else top)
        first.append(ranked[0].intent if ranked else None)
        points.append(_point(model, ranked, r[a.label_field]))
    oos_l = a.oos_label
    ins = [(g, p) for g, p in zip(gold, pred) if g != oos_l]
    oos = [(g, p) for g, p in zip(gold, pred) if g == oos_l]
    pred_oos = sum(1 for p in pred if p == oos_l)
    f1s = []
    for c in sorted({g for g, _ in ins}):
        tp = sum(1 for g, p in zip(gold, pred) if g == c and p == c)
        fp = sum(1 for g, p in zip(gold, pred) if g != c and p == c)
        fn = sum(1 for g, p in zip(gold, pred) if g == c and p != c)
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    out = {
        "n_train": len(train), "n": len(test), "n_in_scope": len(ins), "n_oos": len(oos),
        "in_scope_accuracy": round(sum(g == p for g, p in ins) / len(ins), 4) if ins else None,
        "closed_set_accuracy": round(sum(g == f for g, f in zip(gold, first) if g != oos_l) / len(ins), 4) if ins else None,
        "oos_recall": round(sum(p == oos_l for _, p in oos) / len(oos), 4) if oos else None,
        "oos_precision": round(sum(p == oos_l for _, p in oos) / pred_oos, 4) if pred_oos and oos else None,
        "macro_f1": round(sum(f1s) / len(f1s), 4) if f1s else None,
        "threshold": round(model.threshold, 4),
        "reject_threshold": round(model.reject.threshold, 4) if model.reject else None,
        "ambiguity_margin": model.margin,
        # the same figures estimated by k-fold cross-validation over the training data while training
        "cv": {k: v for k, v in model.report.items() if k != "curve"},
        # in-scope accuracy / OOS recall on the test split at several rejection cuts (whole utterances,
        # no last-clause reading), beside the cross-validation estimate at the same cuts
        "curve": _test_curve(points, model),
        "p50_us": round(_pct(lat, 0.5), 1), "p99_us": round(_pct(lat, 0.99), 1),
        "train_s": round(train_s, 2),
    }
    if a.long:
        out["long"] = _long_check(rec, test, a)
    return out


def _point(model: Any, ranked: list[Any], gold: str) -> tuple[float, bool, bool]:
    """(confidence — the rejection model's P(accept), else the top score —, is out of scope, the top
    in-scope intent is right); an utterance whose top is the out-of-scope class gets −1e9 (rejected)."""
    lead = next((m for m in ranked if m.confidence is not None), None) if model.reject is not None else None
    if lead is not None:  # the rejection model decides, the out-of-scope class's lead among its features
        return lead.confidence, gold == model.oos_label, lead.intent == gold
    if not ranked or ranked[0].intent == model.oos_label:
        return -1e9, gold == model.oos_label, False
    m = ranked[0]
    conf = m.score
    return conf, gold == model.oos_label, m.intent == gold


def _test_curve(points: list[tuple[float, bool, bool]], model: Any) -> list[dict[str, Any]]:
    ins = [p for p in points if not p[1]]
    oos = [p for p in points if p[1]]
    cv = {c["threshold"]: c for c in model.report.get("curve", [])}
    out = []
    for th in sorted(cv):
        row: dict[str, Any] = {"threshold": th}
        if ins:
            row["in_scope_accuracy"] = round(sum(1 for c, _, ok in ins if ok and c >= th) / len(ins), 4)
        if oos:
            row["oos_recall"] = round(sum(1 for c, _, _ in oos if c < th) / len(oos), 4)
        row["cv_in_scope_accuracy"] = cv[th]["in_scope_accuracy"]
        if cv[th]["oos_recall"] is not None:
            row["cv_oos_recall"] = cv[th]["oos_recall"]
        out.append(row)
    return out


def _read_intent(rec: IntentRecognizer, text: str, clauses: bool) -> tuple[list[Any], str | None, bool]:
    """(scorer ranking, top intent, out of scope) as :func:`~.parser.parse` decides without templates."""
    norm = normalize(text).text
    ranked = rec.score(norm, top_k=5)
    top, oos, _ = rec.decide(ranked)
    if oos and (spelled := rec.spelled(norm)) != norm:  # typos read as the pack's words, as parse() does
        again = rec.score(spelled, top_k=5)
        if not (decided := rec.decide(again))[1]:
            ranked, (top, oos, _) = again, decided
    if oos and clauses:  # a long utterance out of scope as a whole: its last clause, as parse() reads it
        reading = rec.rank_clauses(norm, (), ranked)
        if reading is not None:
            top, oos, _ = rec.decide(list(reading.ranked))
    return ranked, top, oos


_JOINERS = (", ", ", and ", ", so ", ". ", ", but ")


def _long_check(rec: IntentRecognizer, test: list[dict[str, Any]], a: argparse.Namespace) -> dict[str, Any]:
    """Synthetic long utterances from the test split (seeded): ``n`` joins of 2–3 out-of-scope test
    utterances, and ``n`` in-scope test utterances with 1–2 out-of-scope ones before (3 in 4) or after.

    :return: per reading (``whole``: the whole utterance only; ``clauses``: with the last-clause
        reading) the share of long out-of-scope texts taken as an intent and of long in-scope texts
        read right.
    """
    import random

    rng = random.Random(a.long_seed)
    oos_texts = [r["text"] for r in test if r[a.label_field] == a.oos_label]
    ins = [(r["text"], r[a.label_field]) for r in test if r[a.label_field] != a.oos_label]
    if len(oos_texts) < 3 or not ins:
        return {"error": "the test split needs 3 out-of-scope and 1 in-scope utterance"}
    join = lambda parts: rng.choice(_JOINERS).join(parts)  # noqa: E731
    long_oos = [join(rng.sample(oos_texts, rng.choice((2, 3)))) for _ in range(a.long)]
    long_in = []
    for _ in range(a.long):
        t, y = rng.choice(ins)
        noise = join(rng.sample(oos_texts, rng.choice((1, 2))))
        long_in.append((join([noise, t]) if rng.random() < 0.75 else join([t, noise]), y))
    out: dict[str, Any] = {"n": a.long, "seed": a.long_seed}
    for name, clauses in (("whole", False), ("clauses", True)):
        taken = sum(not _read_intent(rec, t, clauses)[2] for t in long_oos)
        right = 0
        for t, y in long_in:
            _, top, oos = _read_intent(rec, t, clauses)
            right += not oos and top == y
        out[name] = {"long_oos_taken": round(taken / a.long, 4), "long_in_scope_accuracy": round(right / a.long, 4)}
    return out


def _spans(rec: dict[str, Any]) -> Iterable[dict[str, Any]]:
    return rec.get("entities") or rec.get("spans") or []


def cmd_slots(a: argparse.Namespace) -> dict[str, Any]:
    mapping: dict[str, str] = yaml.safe_load(Path(a.map).read_text(encoding="utf-8")) or {}
    tz = ZoneInfo(a.tz)
    ref = datetime.fromisoformat(a.ref) if a.ref else datetime(2026, 1, 15, 12, 0, tzinfo=tz)
    ex = EntityExtractor()
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    n = 0
    for r in _read(a.data):
        if "text" not in r or (a.lang and r.get("lang", a.lang) != a.lang):
            continue
        n += 1
        gold = {(mapping[s["slot"]], s["start"], s["end"]) for s in _spans(r) if s.get("slot") in mapping}
        norm = normalize(r["text"])
        times = parse_times(norm, ref, tz)
        types = set(mapping.values())
        pred = {(e.type, *e.span) for e in ex.extract(norm, times) if e.type in types}
        for typ in types:
            g = {x for x in gold if x[0] == typ}
            p = {x for x in pred if x[0] == typ}
            counts[typ]["tp"] += len(g & p)
            counts[typ]["fp"] += len(p - g)
            counts[typ]["fn"] += len(g - p)
    out: dict[str, Any] = {"n": n, "types": {}}
    for typ, c in sorted(counts.items()):
        p = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 0.0
        r_ = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else 0.0
        out["types"][typ] = {"precision": round(p, 4), "recall": round(r_, 4),
                             "f1": round(2 * p * r_ / (p + r_), 4) if p + r_ else 0.0, **c}
    return out


def _fmt(v: Any) -> str | None:
    return v.isoformat() if v is not None else None


def cmd_temporal(a: argparse.Namespace) -> dict[str, Any]:
    ok = 0
    mismatches = []
    rows = _read(a.data)
    for r in rows:
        ref = datetime.fromisoformat(r["ref"])
        got = parse_times(r["text"], ref, r["tz"])
        first = got[0] if got else None
        actual = {"kind": first.kind if first else None, "start": _fmt(first.start) if first else None,
                  "end": _fmt(first.end) if first else None, "seconds": first.seconds if first else None}
        good = actual["kind"] == r["kind"]
        if good and r["kind"] == "duration":
            good = r.get("seconds") is None or actual["seconds"] == float(r["seconds"])
        elif good and r["kind"] != "invalid":
            good = actual["start"] == r["start"] and (r.get("end") is None or actual["end"] == r["end"])
        if good and r.get("span") is not None:
            good = list(first.span) == list(r["span"])
        if good:
            ok += 1
        else:
            mismatches.append({"text": r["text"], "ref": r["ref"], "expected": {k: r.get(k) for k in ("kind", "start", "end", "seconds", "span") if k in r},
                               "actual": actual | ({"span": list(first.span)} if first else {})})
    return {"n": len(rows), "correct": ok, "accuracy": round(ok / len(rows), 4) if rows else None, "mismatches": mismatches}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hermesd.nlu.eval", description=(__doc__ or "").split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    pi = sub.add_parser("intents")
    pi.add_argument("--train", required=True)
    pi.add_argument("--test", required=True)
    pi.add_argument("--split-field")
    pi.add_argument("--train-splits")
    pi.add_argument("--test-splits")
    pi.add_argument("--oos-label", default="oos")
    pi.add_argument("--label-field", default="intent")
    pi.add_argument("--lang", choices=["zh", "en"])
    pi.add_argument("--epochs", type=int, default=10)
    pi.add_argument("--learner", choices=LEARNERS, default=None,
                    help="how the scorer's weights are learnt (train()'s learner; default: train()'s default)")
    pi.add_argument("--l2", type=float, default=None, help="L2 penalty per example of the softmax learner")
    pi.add_argument("--oos-prior", type=float, default=0.05,
                    help="share of out-of-scope utterances the threshold calibration assumes (train())")
    pi.add_argument("--folds", type=int, default=5,
                    help="k of the cross-validation that fits the out-of-scope rejection (train())")
    pi.add_argument("--max-in-scope-loss", type=float, default=0.005,
                    help="choose the rejection cut as the one that rejects the most out-of-scope training "
                         "records (5-fold CV) while losing at most this share of in-scope accuracy against "
                         "the closed-set CV accuracy (0.005 = 0.5 point; a negative value: the --oos-prior "
                         "objective instead)")
    pi.add_argument("--cache-dir", default=None, help="cache trained models here (content-hash keyed)")
    pi.add_argument("--no-clauses", dest="clauses", action="store_false",
                    help="do not read a long out-of-scope utterance's last clause (parse() does)")
    pi.add_argument("--long", type=int, default=0, metavar="N",
                    help="also build N long out-of-scope and N long in-scope utterances from the test split "
                         "and report how the whole-utterance and the last-clause readings take them")
    pi.add_argument("--long-seed", type=int, default=7)
    ps = sub.add_parser("slots")
    ps.add_argument("--data", required=True)
    ps.add_argument("--map", required=True)
    ps.add_argument("--ref", help="reference instant, ISO 8601 with offset")
    ps.add_argument("--tz", default="UTC")
    ps.add_argument("--lang", choices=["zh", "en"])
    pt = sub.add_parser("temporal")
    pt.add_argument("--data", required=True)
    a = p.parse_args(argv)
    result = {"intents": cmd_intents, "slots": cmd_slots, "temporal": cmd_temporal}[a.cmd](a)
    sys.stdout.write(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
