"""CLINC150 out-of-scope: hermesd's cross-validated rejection vs scikit-learn TF-IDF + logistic regression.

    .venv/bin/pip install -e ".[bench]"      # scikit-learn is a bench-only dependency
    .venv/bin/python scripts/bench/nlu_oos.py [--data ../shared/data] [--cache-dir var/bench-cache]

(``scripts/bench/nlu.py`` runs it as its last section.) Both train on CLINC150 ``train`` +
``oos_train`` and are measured on ``val`` + ``oos_val`` in the same run:

- **hermesd**: :func:`hermesd.nlu.intents.train` — one row per learner (``--learner``, repeatable;
  default every one of :data:`~hermesd.nlu.intents.LEARNERS`: the averaged perceptron and the
  softmax) over TF-IDF n-grams, the rejection model and its threshold fitted on 5-fold out-of-fold
  scorings of the training data (never on ``val``). Trained models are cached by content hash in
  ``--cache-dir``.
- **scikit-learn baseline**: ``TfidfVectorizer(sublinear_tf=True)`` (word unigrams) +
  ``LogisticRegression`` (lbfgs, C=10) with ``oos`` as a class; an utterance is out of scope when
  ``oos`` is the argmax or the top probability is under a threshold. The threshold is chosen the
  same way as hermesd's — by 5-fold cross-validation over the training data
  (``cross_val_predict``, stratified) rejecting the most out-of-scope records while losing at most 0.5 point of in-scope
  accuracy against the closed-set accuracy (:func:`hermesd.nlu.rejection.budget_threshold`) — and,
  for comparison, on ``val`` itself (an optimistic figure: it is tuned on the data it reports).

Printed: in-scope accuracy / OOS recall on ``val`` with the chosen threshold and the CV estimate
beside it; the in-scope/OOS curve of both at several thresholds; µs per utterance (one utterance at
a time, as the daemon sees them). A benchmark, not a test: it never fails on a figure.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Sequence

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from hermesd.nlu.intents import CURVE_CUTS, LEARNERS, IntentRecognizer, IntentSpec, train_cached  # noqa: E402
from hermesd.nlu.normalize import normalize  # noqa: E402
from hermesd.nlu.rejection import budget_threshold  # noqa: E402
from _sample import pct  # noqa: E402 - a sibling module of this script

OOS = "oos"
OOS_PRIOR = 0.05  # the eval CLI's and train()'s default
#: the rule that chooses both systems' cuts (the eval CLI's default --max-in-scope-loss): reject the
#: most out-of-scope training records (5-fold CV) losing at most 0.5 point of in-scope accuracy
#: against the closed-set CV accuracy
MAX_LOSS = 0.005
FOLDS = 5


def load(data: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(train + oos_train, val + oos_val) pairs of CLINC150."""
    tr, va = [], []
    with (data / "clinc150" / "clinc150.jsonl").open(encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            pair = (r["text"], r["intent"])
            if r["source_split"] in ("train", "oos_train"):
                tr.append(pair)
            elif r["source_split"] in ("val", "oos_val"):
                va.append(pair)
    return tr, va


def figures(points: Sequence[tuple[float, bool, bool]], th: float) -> tuple[float, float]:
    """(in-scope accuracy, OOS recall) of ``(confidence, is_oos, top_right)`` points at cut ``th``."""
    ins = [p for p in points if not p[1]]
    oos = [p for p in points if p[1]]
    acc = sum(1 for c, _, ok in ins if ok and c >= th) / len(ins)
    rec = sum(1 for c, _, _ in oos if c < th) / len(oos) if oos else 0.0
    return acc, rec


def run_hermesd(tr, va, cache_dir: Path | None, learner: str) -> dict[str, Any]:
    t0 = time.perf_counter()
    model = train_cached(tr, cache_dir, oos_label=OOS, max_in_scope_loss=MAX_LOSS, learner=learner)
    train_s = time.perf_counter() - t0
    rec = IntentRecognizer([IntentSpec(c) for c in model.classes], model, None)
    pts, lat, took = [], [], []
    for t, y in va:
        t1 = time.perf_counter_ns()
        ranked = rec.score(normalize(t).text)
        top_i, out, _ = rec.decide(ranked)
        lat.append((time.perf_counter_ns() - t1) / 1000)
        took.append((y == OOS, out, top_i == y))
        top = ranked[0] if ranked else None
        if top is None or top.intent == OOS:
            pts.append((-1e9, y == OOS, False))
        else:
            pts.append((top.confidence if top.confidence is not None else top.score, y == OOS, top.intent == y))
    th = model.reject.threshold if model.reject else model.threshold
    ins = [k for k in took if not k[0]]
    oos = [k for k in took if k[0]]
    decided = (sum(1 for _, o, ok in ins if ok and not o) / len(ins), sum(1 for _, o, _ in oos if o) / len(oos))
    return {"points": pts, "threshold": th, "decided": decided, "cv": model.report, "train_s": train_s,
            "p50_us": pct(lat, 0.5), "p99_us": pct(lat, 0.99)}


def run_sklearn(tr, va) -> dict[str, Any]:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline

    def pipe():
        return make_pipeline(TfidfVectorizer(sublinear_tf=True), LogisticRegression(C=10, max_iter=2000))

    xs, ys = [t for t, _ in tr], [y for _, y in tr]
    t0 = time.perf_counter()
    cv = StratifiedKFold(FOLDS, shuffle=True, random_state=13)
    proba = cross_val_predict(pipe(), xs, ys, cv=cv, method="predict_proba")
    clf = pipe().fit(xs, ys)
    train_s = time.perf_counter() - t0
    classes = list(clf.classes_)

    def points(probs, gold):
        out = []
        for p, y in zip(probs, gold):
            order = sorted(range(len(classes)), key=lambda i: -p[i])
            top = classes[order[0]]
            if top == OOS:
                out.append((-1e9, y == OOS, False))
            else:
                out.append((float(p[order[0]]), y == OOS, top == y))
        return out

    cv_pts = points(proba, ys)
    th_cv = budget_threshold(cv_pts, [False] * len(cv_pts), 0.0, MAX_LOSS)[0]
    va_x, va_y = [t for t, _ in va], [y for _, y in va]
    va_pts = points(clf.predict_proba(va_x), va_y)
    th_val = budget_threshold(va_pts, [False] * len(va_pts), 0.0, MAX_LOSS)[0]
    lat = []
    for t in va_x[:500]:
        t1 = time.perf_counter_ns()
        clf.predict_proba([t])
        lat.append((time.perf_counter_ns() - t1) / 1000)
    return {"points": va_pts, "cv_points": cv_pts, "threshold": th_cv, "threshold_val": th_val, "train_s": train_s,
            "p50_us": pct(lat, 0.5), "p99_us": pct(lat, 0.99)}


def report(data: Path, cache_dir: Path | None, learners: Sequence[str] = LEARNERS) -> int:
    """Print the comparison; 2 when scikit-learn is missing."""
    try:
        import sklearn  # noqa: F401
    except ImportError:
        print("scikit-learn is not installed: .venv/bin/pip install -e '.[bench]'", file=sys.stderr)
        return 2
    tr, va = load(data)
    print(f"CLINC150 out of scope: train+oos_train {len(tr)}, measured on val+oos_val {len(va)} "
          f"({sum(y == OOS for _, y in va)} out of scope); each cut rejects the most out-of-scope "
          f"records while losing <= {MAX_LOSS:.1%} in-scope accuracy against the closed-set accuracy")
    hs = {name: run_hermesd(tr, va, cache_dir, name) for name in learners}
    s = run_sklearn(tr, va)
    sa, sr = figures(s["points"], s["threshold"])
    sca, scr = figures(s["cv_points"], s["threshold"])
    sva, svr = figures(s["points"], s["threshold_val"])
    print("   system                              threshold   val in-scope / OOS recall   CV estimate (train, 5-fold)")
    for name, h in hs.items():
        ha, hr = h["decided"]  # as decide() takes them (the out-of-scope-led regime has a cut of its own)
        cv = h["cv"]
        print(f"   hermesd {name:<11} (CV-chosen)    {h['threshold']:9.4f}   {ha:6.1%} / {hr:6.1%}           "
              f"{cv.get('in_scope_accuracy', 0):6.1%} / {cv.get('oos_recall') or 0:6.1%}   "
              f"closed set CV {cv.get('closed_set_accuracy', 0):6.1%}")
    print(f"   sklearn TF-IDF+LR (CV-chosen)       {s['threshold']:9.4f}   {sa:6.1%} / {sr:6.1%}           "
          f"{sca:6.1%} / {scr:6.1%}")
    print(f"   sklearn TF-IDF+LR (val-chosen)      {s['threshold_val']:9.4f}   {sva:6.1%} / {svr:6.1%}   (tuned on val)")
    for name, h in hs.items():
        ha, hr = h["decided"]
        print(f"   ratio hermesd {name}/sklearn on val: in-scope {ha / sa:.3f}×, OOS recall {hr / max(sr, 1e-9):.3f}×")
        print(f"   per utterance (one at a time): hermesd {name} p50 {h['p50_us']:.0f} µs p99 {h['p99_us']:.0f} µs | "
              f"sklearn predict_proba p50 {s['p50_us']:.0f} µs p99 {s['p99_us']:.0f} µs = "
              f"{s['p50_us'] / h['p50_us']:.1f}× hermesd p50")
        print(f"   training: hermesd {name} {h['train_s']:.1f} s (0 = cached) | sklearn {s['train_s']:.1f} s "
              f"(5-fold CV + final)")
    print("   curve on val (in-scope accuracy / OOS recall) at several thresholds:")
    for name, h in hs.items():
        print(f"     hermesd {name} P(accept) cut   val               CV estimate")
        cvc = {c["threshold"]: c for c in h["cv"].get("curve", [])}
        for th in sorted(set(CURVE_CUTS) | set(cvc)):
            a, r = figures(h["points"], th)
            c = cvc.get(round(th, 4))
            est = f"{c['in_scope_accuracy']:6.1%} / {c['oos_recall'] or 0:6.1%}" if c else ""
            print(f"     {th:8.4f}{' (chosen)' if abs(th - h['threshold']) < 5e-5 else '         '}   "
                  f"{a:6.1%} / {r:6.1%}   {est}")
    print("     sklearn max-probability cut   val               CV estimate")
    for th in sorted(set(CURVE_CUTS) | {round(s["threshold"], 4)}):
        a, r = figures(s["points"], th)
        ca, cr = figures(s["cv_points"], th)
        print(f"     {th:8.4f}{' (chosen)' if abs(th - round(s['threshold'], 4)) < 5e-5 else '         '}   "
              f"{a:6.1%} / {r:6.1%}   {ca:6.1%} / {cr:6.1%}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(REPO / ".." / "shared" / "data"))
    ap.add_argument("--cache-dir", default=str(REPO / "var" / "bench-cache"),
                    help="trained hermesd models, by content hash ('' = no cache)")
    ap.add_argument("--learner", action="append", choices=LEARNERS,
                    help="hermesd learner(s) to measure (repeatable; default: every one, side by side)")
    a = ap.parse_args()
    return report(Path(a.data), Path(a.cache_dir) if a.cache_dir else None, a.learner or LEARNERS)


if __name__ == "__main__":
    raise SystemExit(main())
