"""Multinomial logistic regression (softmax, L2) over sparse vectors, by SGD in pure Python.

The build-time learner of the intent scorer (:func:`.intents.train` with ``learner="softmax"``):
it returns the same shape as the perceptron, feature → ``{class: weight}``, so the run-time scorer
stays a sparse dot product and the scores are log-odds (logits) between classes.

Objective: the mean negative log-likelihood of the softmax over the classes plus
``l2/2·‖W‖²``, minimised by stochastic gradient descent with Bottou's (2012, "Stochastic Gradient
Descent Tricks") schedule ``η_t = η0 / (1 + η0·l2·t)``; the L2 shrinkage is one scale factor for
all weights (``W = s·V``), so a step costs only the weights the example touches. The weights
returned are the average over all steps (Polyak & Juditsky 1992; Xu 2011, "Towards Optimal One Pass
Large Scale Learning with Averaged SGD"), kept sparse as the averaged perceptron's are: with ``S``
the running sum of ``s``, each change ``δ`` to ``V`` adds ``δ·S`` to an accumulator ``A``, and the
average of ``s·V`` over ``t`` steps is ``(S·V − A) / t``.

Sparsity: a row holds only the classes that ever got a gradient on that feature; every other class
has weight 0. Softmax is invariant to adding one constant to a feature's weights for all classes,
so the gradient of the classes an example's features do not reach (one value, ``−p0·x`` with
``p0 = e⁰/Z``) is subtracted from every class: those classes get no update and the others get
``x·(1[c=y] − p_c + p0)``, the predictions being the same as after the full dense step. A
gradient under :data:`_GRAD_EPS` is skipped, so a class the example does not confuse with its own
is left alone, and weights under :data:`_PRUNE` are dropped at the end: rows stay about as sparse
as the perceptron's and a score stays well under a millisecond.
"""

from __future__ import annotations

import math
import random
from typing import Mapping, Sequence

__all__ = ["fit_softmax"]

#: a per-class gradient (probability units) below this is not applied
_GRAD_EPS = 1e-2
#: weights whose magnitude ends under this are dropped from the model
_PRUNE = 1e-3
#: the scale factor is folded back into the weights when it falls below this (keeps V finite)
_RESCALE = 1e-6


def fit_softmax(vecs: Sequence[Mapping[str, float]], labels: Sequence[str], classes: Sequence[str], epochs: int,
                l2: float, seed: int, eta0: float = 1.0, scale: float = 1.0) -> dict[str, dict[str, float]]:
    """Fit the softmax model; return its weights feature → ``{class: weight}``.

    :param vecs: one sparse vector per example (feature → value; L2-normalised TF-IDF here).
    :param labels: the class of each example, one of ``classes``. :param classes: every class.
    :param epochs: passes over the data (shuffled each pass with ``seed``).
    :param l2: the L2 penalty per example (sklearn's ``1 / (C·n)``). :param eta0: first step size.
    :param scale: the weights are returned times this (a score is then ``scale`` × the logit: the
        intent scorer's rejection reads a softmax of the scores at temperature
        :data:`.rejection.SOFTMAX_T`, which with ``scale=SOFTMAX_T`` is this model's own softmax).
    :return: rounded (5 decimals) nonzero weights; a feature with no weight left is absent.
    :raises ValueError: a label not in ``classes``.
    """
    fid: dict[str, int] = {}
    cid = {c: i for i, c in enumerate(classes)}
    data = []
    for v, y in zip(vecs, labels):
        if y not in cid:
            raise ValueError(f"label {y!r} is not a class")
        data.append(([(fid.setdefault(k, len(fid)), a) for k, a in v.items()], cid[y]))
    n_cls = len(classes)
    V: list[dict[int, float]] = [{} for _ in fid]
    A: list[dict[int, float]] = [{} for _ in fid]  # Σ of each step's change to V times S before it
    s = 1.0  # W = s·V
    S = 0.0  # Σ of s over the steps so far
    t = 0
    rng = random.Random(seed)
    order = list(range(len(data)))
    exp = math.exp
    for _ in range(epochs):
        rng.shuffle(order)
        for i in order:
            x, y = data[i]
            eta = eta0 / (1.0 + eta0 * l2 * t)
            t += 1
            sc: dict[int, float] = {y: 0.0}
            for j, a in x:
                for c, w in V[j].items():
                    sc[c] = sc.get(c, 0.0) + a * w
            m = max(0.0, max(sc.values()) * s)
            e0 = exp(-m)  # every class outside ``sc`` scores 0
            ez = {c: exp(v * s - m) for c, v in sc.items()}
            z = sum(ez.values()) + (n_cls - len(sc)) * e0
            p0 = e0 / z
            g = []
            for c, e in ez.items():
                d = e / z - p0 - (1.0 if c == y else 0.0)
                if d > _GRAD_EPS or d < -_GRAD_EPS:
                    g.append((c, d))
            s *= 1.0 - eta * l2
            step = eta / s
            for j, a in x if g else ():
                row, acc = V[j], A[j]
                f = step * a
                for c, d in g:
                    row[c] = row.get(c, 0.0) - f * d
                    acc[c] = acc.get(c, 0.0) - f * d * S
            S += s
            if s < _RESCALE:  # the same weights and averages, in units that keep V finite
                for row in V:
                    for c in row:
                        row[c] *= s
                S /= s
                s = 1.0
    out: dict[str, dict[str, float]] = {}
    for k, j in fid.items():
        acc = A[j]
        # the average over the steps of s·V: (S·V − A) / t
        r = {c: (S * w - acc.get(c, 0.0)) / t for c, w in V[j].items()} if t else {}
        r = {classes[c]: round(w * scale, 5) for c, w in r.items() if abs(w) >= _PRUNE}
        if r:
            out[k] = r
    return out
