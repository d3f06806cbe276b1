"""Out-of-scope rejection: a tiny logistic model over a few confidence features of the scorer (pure).

A linear scorer's top score alone separates in-scope from out-of-scope utterances badly, and a
threshold on it chosen on one dev split does not transfer (CLINC150: 49 % OOS recall on ``val``,
39.5 % on the official test). Larson et al. (2019, "An Evaluation Dataset for Intent
Classification and Out-of-Scope Prediction") show the threshold is the weak part; here the
decision uses several features of one scoring and is fitted on *out-of-fold* scores — k-fold
cross-validation over the training data by record, stratified by intent, with the out-of-scope
training records in the folds — so the model sees how the scorer behaves on utterances it was
not trained on (:func:`fit`).

Features of the winning in-scope intent ``c`` of one utterance (:func:`features`):

- ``top``: its linear score; ``gap``: its lead over the runner-up in-scope intent (the
  ambiguity margin of Hendrycks & Gimpel 2017's max-softmax baseline, in score units);
- ``oos_gap``: the out-of-scope class's score minus ``top`` (0 without such a class);
- ``entropy``: normalised Shannon entropy of the softmax of the scores (temperature
  :data:`SOFTMAX_T`), 0 = one class takes everything, 1 = uniform (Lewis & Gale 1994 use
  entropy for uncertainty);
- ``coverage``: the IDF-weighted share of the utterance's words (CJK: character bigrams) that
  occur in ``c``'s training examples; ``unseen``: the IDF-weighted share that occur in no training
  example ("I am hungry" to an office assistant: *hungry* is in none);
- ``evidence``: the IDF-weighted share of the utterance's units that occur in ``c``'s training
  examples *and in no out-of-scope example* — the content words of the request, not the function
  words every sentence has. In a small pack a generic unit (我想, "did i", "to") occurs in one or two
  examples of one intent, so ``coverage`` counts it as that intent's vocabulary and "我想吃火锅" looked
  like a send; the out-of-scope examples (everyday sentences) say which units are generic. Without
  an out-of-scope class it equals ``coverage``;
- ``length``: ``log(1 + units)``;
- ``oos_lead``: ``max(0, oos_gap)``, the out-of-scope class's lead alone. One linear weight on
  ``oos_gap`` is one slope for two regimes — an intent ahead of the out-of-scope class by some
  margin, and the class ahead of every intent — and its fit was pulled to near 0 by the first
  (0.012 on the shipped pack before issue 17; −0.2 after its near misses), so a long everyday text
  the class led by 1.7 (of a top score of 0.5) was accepted. The hinge lets the lead count on its
  own: weight −0.8 on the same data, and that text is rejected.

The model is :math:`P(\\text{accept}) = σ(b + Σ w_i z_i)` over standardised features
(:math:`z = (x − μ)/σ`), fitted by Newton's method (IRLS) with a small L2 penalty; an utterance is
accepted when its probability reaches ``threshold``, chosen on the same out-of-fold points to
maximise ``(1 − oos_prior)·in-scope accuracy + oos_prior·OOS recall``. A scoring whose out-of-scope
class outscores every intent is a regime of its own (mostly out of scope, but a request said in
everyday words can land there) with its own cut ``threshold_led``, chosen on those scorings for the
same global objective (:func:`regime_prior`) and never below ``threshold``: the out-of-scope class's
lead is evidence against an intent, never for it. Instead of the prevalence objective a caller can
state a budget (:func:`budget_threshold`, ``train(max_in_scope_loss=…)``, the eval CLI's default
0.5 point): the highest cut whose out-of-fold in-scope accuracy stays within the budget of the
closed-set accuracy. On CLINC150 the 0.05-prior objective spent 0.8 point of CV in-scope accuracy
(1.3 on ``val``) for its OOS recall; the cost was the cut, not the ``evidence`` feature or the led
regime (each on or off moved ``val`` by under 0.1 point at a given budget). The model — not a veto — decides either way. Everything is plain floats
and lists: the model serialises to JSON and scores in a few microseconds without numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

__all__ = ["FEATURES", "RejectionModel", "SOFTMAX_T", "budget_threshold", "choose_threshold", "features", "fit", "fit_logistic",
           "regime_prior"]

FEATURES = ("top", "gap", "oos_gap", "entropy", "coverage", "unseen", "evidence", "length", "oos_lead")
#: softmax temperature for ``entropy``, in score units (the scorer's scores of a confident top
#: lie around 1–3 and of the rest around 0, so 0.25 spreads the probabilities usefully)
SOFTMAX_T = 0.25
_L2 = 1e-3
_NEWTON_STEPS = 30


def features(scores: Mapping[str, float], top: str, oos_label: str | None, coverage: float, unseen: float,
             units: int, evidence: float | None = None) -> list[float]:
    """The feature vector (order of :data:`FEATURES`) of the in-scope intent ``top`` of one scoring.

    :param scores: class → linear score (classes with no active feature absent: score 0).
    :param top: the in-scope intent with the highest score. :param oos_label: the out-of-scope class.
    :param coverage: IDF-weighted share of the utterance's units in ``top``'s training vocabulary.
    :param unseen: IDF-weighted share of units seen in no training example. :param units: unit count.
    :param evidence: IDF-weighted share of units in ``top``'s vocabulary and in no out-of-scope
        example (None: ``coverage``).
    """
    s1 = scores.get(top, 0.0)
    s2 = max((x for c, x in scores.items() if c != top and c != oos_label), default=0.0)
    oos = scores.get(oos_label, 0.0) if oos_label else 0.0
    n = len(scores)
    if n > 1:
        m = max(scores.values())
        exp, log = math.exp, math.log
        ex = [exp((x - m) / SOFTMAX_T) for x in scores.values()]
        z = sum(ex)
        h = -sum([p * log(p) for p in [e / z for e in ex if e > 0.0]])  # p = e / z once, the same floats
        ent = h / math.log(n)
    else:
        ent = 0.0
    return [s1, s1 - s2, oos - s1 if oos_label else 0.0, ent, coverage, unseen,
            coverage if evidence is None else evidence, math.log1p(units),
            max(0.0, oos - s1) if oos_label else 0.0]


@dataclass(slots=True)
class RejectionModel:
    """Logistic accept/reject model: standardisation ``mean``/``scale``, ``weights``, ``bias``, and
    the probability ``threshold`` below which the top intent is rejected as out of scope.

    Plain lists and floats (JSON via :meth:`to_dict` / :meth:`from_dict`)."""

    mean: list[float]
    scale: list[float]
    weights: list[float]
    bias: float
    threshold: float
    #: the cut when the out-of-scope class outscores every intent (None: ``threshold``): a regime
    #: of its own — most such utterances are out of scope — cut by the same objective, never lower
    threshold_led: float | None = None

    def cut(self, oos_leads: bool) -> float:
        """The probability cut for a scoring whose out-of-scope class leads (or not)."""
        return self.threshold_led if oos_leads and self.threshold_led is not None else self.threshold

    def probability(self, x: Sequence[float]) -> float:
        """P(accept) for a feature vector (order of :data:`FEATURES`)."""
        t = self.bias
        for xi, m, s, w in zip(x, self.mean, self.scale, self.weights):
            t += w * (xi - m) / s
        return _sigmoid(t)

    def to_dict(self) -> dict[str, object]:
        return {"features": list(FEATURES), "mean": self.mean, "scale": self.scale, "weights": self.weights,
                "bias": self.bias, "threshold": self.threshold, "threshold_led": self.threshold_led}

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> "RejectionModel":
        """:raises ValueError: the features differ from :data:`FEATURES` (a model of another version)."""
        if list(d.get("features", ())) != list(FEATURES):  # type: ignore[call-overload]
            raise ValueError("rejection model features mismatch")
        led = d.get("threshold_led")
        return cls(list(d["mean"]), list(d["scale"]), list(d["weights"]), float(d["bias"]),  # type: ignore[arg-type]
                   float(d["threshold"]), None if led is None else float(led))  # type: ignore[arg-type]


def _sigmoid(t: float) -> float:
    if t >= 0:
        return 1.0 / (1.0 + math.exp(-t))
    e = math.exp(t)
    return e / (1.0 + e)


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a is small and, with the L2 term, positive definite)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        piv = m[c][c]
        if abs(piv) < 1e-12:
            continue
        for r in range(c + 1, n):
            f = m[r][c] / piv
            if f:
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    x = [0.0] * n
    for c in range(n - 1, -1, -1):
        piv = m[c][c]
        x[c] = (m[c][n] - sum(m[c][k] * x[k] for k in range(c + 1, n))) / piv if abs(piv) >= 1e-12 else 0.0
    return x


def fit_logistic(xs: Sequence[Sequence[float]], ys: Sequence[int], sample_weight: Sequence[float] | None = None,
                 l2: float = _L2) -> tuple[list[float], list[float], list[float], float]:
    """Weighted L2-regularised logistic regression by Newton's method (IRLS).

    :param xs: feature vectors (raw; standardised here). :param ys: 1 = accept, 0 = reject.
    :param sample_weight: per-point weights (default 1). :param l2: penalty on the standardised
        weights (not on the bias), relative to the total weight.
    :return: ``(mean, scale, weights, bias)``; a constant feature gets scale 1 and weight 0.
    :raises ValueError: no points, or only one class.
    """
    if not xs or len(set(ys)) < 2:
        raise ValueError("logistic fit needs points of both classes")
    d = len(xs[0])
    sw = list(sample_weight) if sample_weight is not None else [1.0] * len(xs)
    tot = sum(sw)
    mean = [sum(w * x[j] for x, w in zip(xs, sw)) / tot for j in range(d)]
    scale = []
    for j in range(d):
        v = sum(w * (x[j] - mean[j]) ** 2 for x, w in zip(xs, sw)) / tot
        scale.append(math.sqrt(v) if v > 1e-12 else 1.0)
    zs = [[(x[j] - mean[j]) / scale[j] for j in range(d)] + [1.0] for x in xs]
    beta = [0.0] * (d + 1)
    lam = l2 * tot
    for _ in range(_NEWTON_STEPS):
        g = [0.0] * (d + 1)
        h = [[0.0] * (d + 1) for _ in range(d + 1)]
        for z, y, w in zip(zs, ys, sw):
            p = _sigmoid(sum(b * zi for b, zi in zip(beta, z)))
            r = w * (y - p)
            q = w * p * (1.0 - p)
            for i in range(d + 1):
                g[i] += r * z[i]
                qi = q * z[i]
                hi = h[i]
                for k in range(i + 1):
                    hi[k] += qi * z[k]
        for i in range(d + 1):
            for k in range(i):
                h[k][i] = h[i][k]
        for i in range(d):
            g[i] -= lam * beta[i]
            h[i][i] += lam
        step = _solve(h, g)
        beta = [b + s for b, s in zip(beta, step)]
        if max(abs(s) for s in step) < 1e-7:
            break
    return mean, scale, beta[:d], beta[d]


def choose_threshold(points: Sequence[tuple[float, bool, bool]], oos_prior: float) -> float:
    """The cut that maximises ``(1 − oos_prior)·in-scope accuracy + oos_prior·OOS recall``.

    :param points: ``(confidence, is_out_of_scope, top_is_right)`` per held-out utterance; an
        utterance is accepted when its confidence reaches the cut. Ties in the objective keep the
        midpoint of the best run of cuts (the middle of the flat optimum moves least with new data).
    :return: the cut (``-inf``-safe: the smallest confidence when accepting everything is best).
    """
    ins = sum(1 for _, o, _ in points if not o)
    oos = sum(1 for _, o, _ in points if o)
    if not ins:
        return 0.0
    pts = sorted(points)
    w_in = (1 - oos_prior) / ins
    w_oos = oos_prior / oos if oos else 0.0
    # cuts[j] = (index k: the cut rejects pts[:k], objective); k = 0 accepts everything
    val = w_in * sum(1 for _, o, ok in pts if not o and ok)
    cuts = [(0, val)]
    i, n = 0, len(pts)
    while i < n:
        c = pts[i][0]
        while i < n and pts[i][0] == c:  # a cut never separates equal confidences
            _, o, ok = pts[i]
            val += w_oos if o else (-w_in if ok else 0.0)
            i += 1
        cuts.append((i, val))
    best = max(v for _, v in cuts)
    j = next(j for j, (_, v) in enumerate(cuts) if v >= best - 1e-12)
    e = j
    while e + 1 < len(cuts) and cuts[e + 1][1] >= best - 1e-12:
        e += 1
    k = cuts[(j + e) // 2][0]
    if k == 0:
        return pts[0][0]
    if k >= n:
        return pts[-1][0] + 1e-9
    return (pts[k - 1][0] + pts[k][0]) / 2


def budget_threshold(points: Sequence[tuple[float, bool, bool]], leads: Sequence[bool], led: float,
                     max_loss: float) -> tuple[float, float | None]:
    """The cut that rejects the most out-of-scope utterances while the in-scope accuracy stays within
    ``max_loss`` of the closed-set accuracy (the share of in-scope points whose top is right).

    A stated rule instead of a prevalence: "maximise OOS recall subject to an in-scope accuracy loss
    of at most ``max_loss``" (0.005 = 0.5 point). Out-of-scope recall only grows with the cut and
    in-scope accuracy only falls, so the answer is the highest cut within the budget.

    :param points: ``(confidence, is_out_of_scope, top_is_right)`` per held-out utterance.
    :param leads: per point, the out-of-scope class outscored every intent (that regime is cut at
        ``max(cut, led)``). :param led: the led regime's own cut (see :class:`RejectionModel`).
    :return: ``(threshold, threshold_led)``; ``threshold_led`` is None (one cut for all) when the led
        cut alone spends more than the budget.
    """
    right = [(c, ld) for (c, o, ok), ld in zip(points, leads) if not o and ok]
    n_in = sum(1 for _, o, _ in points if not o)
    if not n_in or not right:
        return 0.0, None
    floor = len(right) - max_loss * n_in  # fewest right in-scope points the cut must keep

    def kept(th: float, lc: float | None) -> int:
        return sum(1 for c, ld in right if c >= (max(th, lc) if ld and lc is not None else th))

    lc: float | None = led
    if kept(-math.inf, lc) < floor - 1e-9:
        lc = None
    cands = sorted({c for c, _ in right})
    lo, hi = 0, len(cands) - 1  # kept(cands[0]) keeps every right point the led cut keeps
    while lo < hi:  # the largest index whose cut keeps enough
        mid = (lo + hi + 1) // 2
        if kept(cands[mid], lc) >= floor - 1e-9:
            lo = mid
        else:
            hi = mid - 1
    th = cands[lo]
    return th, (None if lc is None else max(th, lc))


def regime_prior(oos_prior: float, n_in: int, n_oos: int, sub_in: int, sub_oos: int) -> float:
    """The prior that makes :func:`choose_threshold` on a subset of the points (``sub_in`` in scope,
    ``sub_oos`` out of scope) weigh each point as the global objective over all of them does
    (``n_in``, ``n_oos``): the objective is a sum over points, so the best cut of each subset alone
    is the best pair of cuts overall."""
    if not sub_in or not sub_oos or not n_in or not n_oos:
        return oos_prior
    odds = oos_prior / (1 - oos_prior) * (sub_oos / n_oos) * (n_in / sub_in)
    return odds / (1 + odds)


def fit(xs: Sequence[Sequence[float]], is_oos: Sequence[bool], right: Sequence[bool],
        oos_prior: float) -> RejectionModel:
    """Fit the accept/reject model on out-of-fold feature vectors and choose its threshold.

    :param xs: feature vectors of held-out training utterances (scored by models that did not
        see them). :param is_oos: the utterance is out of scope. :param right: its in-scope top is
        its intent. :param oos_prior: weight of OOS recall in the threshold objective.
    A point is positive when it is in scope and its top is right. The negatives (out of scope, and
    in scope but wrong: rejecting those costs no in-scope accuracy) get equal total weight per
    kind, so the few out-of-scope examples are not drowned by the wrong in-scope ones.
    :raises ValueError: no positive or no negative point.
    """
    ys = [1 if (not o and ok) else 0 for o, ok in zip(is_oos, right)]
    n_pos = sum(ys)
    n_oos = sum(1 for o in is_oos if o)
    n_wrong = len(ys) - n_pos - n_oos
    sw = []
    for y, o in zip(ys, is_oos):
        if y:
            sw.append(1.0)
        elif o:
            sw.append(n_pos / (2 * n_oos))
        else:
            sw.append(n_pos / (2 * n_wrong) if n_oos else n_pos / n_wrong)
    mean, scale, w, b = fit_logistic(xs, ys, sw)
    model = RejectionModel(mean, scale, w, b, 0.5)
    model.threshold = choose_threshold([(model.probability(x), o, ok) for x, o, ok in zip(xs, is_oos, right)],
                                       oos_prior)
    return model
