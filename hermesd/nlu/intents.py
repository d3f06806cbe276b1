"""Intent recognition: templates, a trained linear scorer with out-of-scope detection, keywords (pure).

Order of matching (:meth:`IntentRecognizer.rank`):

1. **Templates** such as ``把{doc}发给{person}``: the utterance, with its
   entities replaced by ``{type}`` placeholders, must match the whole
   template (polite words and end particles aside). A hit scores 1.0.
2. **Scorer**: a multi-class linear model over sparse TF-IDF features
   (:mod:`.features`), trained as an averaged margin perceptron (Crammer &
   Singer 2003; averaging: Freund & Schapire 1999). It needs no numpy and
   scores an utterance in tens to hundreds of microseconds.
3. **Keywords**: the fallback when the parse is over budget (``degraded``).

Long utterances: one of at least :data:`LONG_MIN_WORDS` words that is out of scope as a whole
("so I was wondering, since the device has been slow …, whether you could tell me how much
disk space is left") gets a second reading (:meth:`IntentRecognizer.rank_clauses`): its last
clause that asks for something, ranked like an utterance of its own, decides when it is a
template hit or confirms the in-scope intent the whole utterance already scored at the threshold.

Out of scope (:mod:`.rejection`): the top in-scope intent is accepted when a small logistic model
over confidence features of the scoring (top score, lead over the runner-up, the out-of-scope
class's gap, score entropy, coverage of the utterance by the intent's training vocabulary, share
of unseen words, evidence — the share of its words that are the intent's and in no out-of-scope
example —, length) gives P(accept) at its threshold. The out-of-scope class's lead is one of those
features, not a veto: a request said in everyday words ("我想知道网络通不通") may score the
out-of-scope class a little higher while its content words are the intent's own. Without a
rejection model, an utterance whose best class is the out-of-scope one is rejected. The model, its threshold, the plain score threshold and the
ambiguity margin are fitted at training time on out-of-fold scorings — k-fold cross-validation
over the training data by record, stratified by intent, out-of-scope examples included — never on
test data and never on one dev split. With out-of-scope training examples the thresholds maximise
``(1 − oos_prior)·in-scope accuracy + oos_prior·OOS recall`` (or, given ``max_in_scope_loss``, the
rejection cut rejects the most out-of-scope records within that in-scope accuracy budget); without any, they keep
``target_in_scope_recall`` of the out-of-fold in-scope examples. ``ambiguous`` is set when the top
two are closer than the margin.

Training is deterministic (seeded) and cached by a SHA-256 of the examples
and hyper-parameters (:func:`train_cached`), so a restart with the same
intents loads a JSON file instead of training.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import operator
import os
import random
import re
import sys
from array import array
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import orjson

from .. import lazyre
from .features import _SUBLINEAR, raw_features, tfidf_vector, vocab_units
from .spelling import Speller
from .normalize import normalize
from .rejection import SOFTMAX_T, RejectionModel, budget_threshold, choose_threshold, regime_prior
from .rejection import features as rejection_features
from .rejection import fit as fit_rejection
from .softmax import fit_softmax

__all__ = ["CURVE_CUTS", "ClauseReading", "IntentMatch", "IntentModel", "IntentRecognizer", "IntentSpec",
           "LEARNERS", "LONG_MIN_WORDS", "clause_spans", "content_of", "cross_validate", "folds_of", "train", "train_cached"]

#: 8: compact tables (feature list, packed arrays) instead of dicts of dicts
#: 9: the rejection's ``oos_lead`` feature
#: 10: the cue features in the deciding scorer (a work branch only; its files must not load as 11)
#: 11: the cue ranker (:attr:`IntentModel.ranker`, :data:`.features.CUES`), the cue-free scorer decides
MODEL_VERSION = 11


@dataclass(frozen=True, slots=True)
class IntentSpec:
    """One intent from ``config/intents/*.yaml``.

    :param name: e.g. ``doc.send``. :param examples: training utterances (any language).
    :param templates: e.g. ``把{doc}发给{person}``; ``{slot}`` names a key of ``slots``.
    :param keywords: words whose presence suggests the intent (degraded path).
    :param slots: slot name → entity type, e.g. ``{"doc": "doc_type", "person": "person"}``.
    :param pack: the pack that defines it. :param description: language (``zh``/``en``) → what it
        does in a few words ("查看磁盘空间"), for "what can you do".
    """

    name: str
    examples: tuple[str, ...] = ()
    templates: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    slots: Mapping[str, str] = field(default_factory=dict)
    pack: str = ""
    description: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class IntentMatch:
    """A ranked intent: ``score`` is 1.0 for a template, the linear score for the scorer,
    the fraction of keywords found for the keyword path; ``slots`` maps slot → entity index;
    ``confidence`` (scorer, the top in-scope intent only, when the model has a rejection model):
    P(in scope and right) from :mod:`.rejection`."""

    intent: str
    score: float
    source: str
    slots: Mapping[str, int] = field(default_factory=dict)
    confidence: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"intent": self.intent, "score": round(self.score, 4), "source": self.source, "slots": dict(self.slots)}


class IntentModel:
    """Trained scorer: idf table, weights ``feature → {class: weight}``, out-of-scope rejection.

    :param classes: class names; a weight or vocabulary entry names a class by its index here.
    :param idf: feature → inverse document frequency. :param weights: feature → ``{class: weight}``,
        what :func:`_fit` returns (features without an idf are dropped: no text can activate them).
    :param threshold: out-of-scope cut on the top *score* (used without ``reject``, and by the
        long-utterance reading). :param vocab: vocabulary unit (:func:`.features.vocab_units`) →
        indices into ``classes`` of the intents whose training examples contain it.
    :param reject: the accept/reject model over confidence features (:mod:`.rejection`), or None.
    :param margin: ambiguity margin chosen by cross-validation (score units), or None.
    :param report: the cross-validation estimate (``folds``, ``in_scope_accuracy``, ``oos_recall``,
        ``curve``) measured while training; plain JSON values.
    :param cues: the features include the cues (:data:`.features.CUES`; ``raw_features(…, cues=True)``).
    :param ranker: a scorer over the same classes trained with the cues, or None. It only reorders the
        in-scope intents the cue-free scorer scored (:meth:`analyse`): which intent is first among
        siblings (doc.send / doc.resend / doc.list_sent) is its, whether anything is in scope is never
        its — a cue word alone ("again", 取消, "which") lifted an intent over the out-of-scope class
        when the cues were features of the deciding scorer (issue 17: near-miss false accepts 10.8 →
        17.7 %, everyday 1.6 → 3.7 %).

    Held compactly (a loaded model is most of the NLU's resident memory): one dict feature → row
    number, whose keys are the only copy of each feature string; ``idf`` an ``array('d')`` by row;
    the weights in compressed sparse rows (row start, class index, weight: ``array`` of C integers
    and doubles); a vocabulary unit's intents one int bit mask. The doubles are the floats given,
    bit for bit, and scores are summed in the same order as over the dicts (the text's features in
    order, each row in its given class order), so every score and decision is unchanged. The
    ``idf``, ``weights`` and ``vocab`` attributes rebuild the plain dicts (for :meth:`to_json` and
    inspection); every field round-trips through :meth:`to_json` / :meth:`from_json`.
    """

    __slots__ = ("classes", "threshold", "oos_label", "reject", "margin", "report", "cues", "ranker", "_fid", "_idf",
                 "_row", "_cls", "_w", "_vmask", "_cid", "_unseen_idf")

    def __init__(self, classes: list[str], idf: Mapping[str, float], weights: Mapping[str, Mapping[str, float]],
                 threshold: float, oos_label: str | None = None, vocab: Mapping[str, Sequence[int]] | None = None,
                 reject: RejectionModel | None = None, margin: float | None = None,
                 report: dict[str, Any] | None = None, cues: bool = False,
                 ranker: "IntentModel | None" = None) -> None:
        self.classes = classes
        self.cues = cues
        self.ranker = ranker
        self.threshold = threshold
        self.oos_label = oos_label
        self.reject = reject
        self.margin = margin
        self.report = report if report is not None else {}
        self._cid = {c: i for i, c in enumerate(classes)}
        self._fid: dict[str, int] = {}
        self._idf = array("d")
        for k, x in idf.items():
            self._fid[k] = len(self._idf)
            self._idf.append(x)
        # a unit seen in no training example weighs like the rarest seen one
        self._unseen_idf = max(self._idf, default=1.0)
        n = len(self._idf)
        rows: list[Mapping[str, float] | None] = [None] * n
        for k, r in weights.items():
            j = self._fid.get(k)
            if j is not None:
                rows[j] = r
        self._row = array("I", [0])
        self._cls = array("B" if len(classes) <= 256 else "H" if len(classes) <= 1 << 16 else "I")
        self._w = array("d")
        cid = self._cid
        for r in rows:
            if r:
                for c, x in r.items():
                    self._cls.append(cid[c])
                    self._w.append(x)
            self._row.append(len(self._w))
        self._vmask = _masks(vocab or {}, self._fid)

    @property
    def idf(self) -> dict[str, float]:
        """Feature → idf, rebuilt (a new dict on every access)."""
        return dict(zip(self._fid, self._idf))

    @property
    def weights(self) -> dict[str, dict[str, float]]:
        """Feature → ``{class: weight}``, rebuilt; features without a weight are absent."""
        out: dict[str, dict[str, float]] = {}
        row, cls, w, classes = self._row, self._cls, self._w, self.classes
        for k, j in self._fid.items():
            a, b = row[j], row[j + 1]
            if a < b:
                out[k] = {classes[cls[i]]: w[i] for i in range(a, b)}
        return out

    @property
    def vocab(self) -> dict[str, list[int]]:
        """Vocabulary unit → sorted class indices, rebuilt."""
        return {u: [i for i in range(m.bit_length()) if m >> i & 1] for u, m in self._vmask.items()}

    def replace(self, **changes: Any) -> "IntentModel":
        """A copy with the public fields in ``changes`` set (``threshold``, ``reject`` …), as
        :func:`dataclasses.replace` would; the feature tables are shared, not copied (they are never
        changed after construction)."""
        new = object.__new__(IntentModel)
        for s in self.__slots__:
            setattr(new, s, getattr(self, s))
        for k, v in changes.items():
            if k not in ("threshold", "oos_label", "reject", "margin", "report", "ranker"):  # the tables index the classes
                raise TypeError(f"IntentModel.replace: cannot change {k!r}")
            setattr(new, k, v)
        return new

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IntentModel):
            return NotImplemented
        return all(getattr(self, s) == getattr(other, s) for s in self.__slots__)

    def __repr__(self) -> str:
        return (f"IntentModel(classes={len(self.classes)}, features={len(self._idf)}, weights={len(self._w)}, "
                f"threshold={self.threshold!r}, oos_label={self.oos_label!r})")

    def scores(self, text: str) -> dict[str, float]:
        """Linear score per class for a normalised text (classes with no active feature are absent);
        this scorer's own, never reordered by :attr:`ranker`."""
        return self._score(self._vector(raw_features(text, self.cues)))

    def _vector(self, counts: Mapping[str, int]) -> list[tuple[int, float]]:
        """:func:`.features.tfidf_vector` by row number: the same floats, in the same order."""
        v: list[tuple[int, float]] = []
        get, idf = self._fid.get, self._idf
        for k, c in counts.items():
            j = get(k)
            if j is not None:
                v.append((j, (_SUBLINEAR[c] if c < 64 else 1.0 + math.log(c)) * idf[j]))
        n = math.sqrt(sum([a * a for _, a in v]))
        return [(j, a / n) for j, a in v] if n else []

    def _score(self, v: Sequence[tuple[int, float]]) -> dict[str, float]:
        """Class → the sum of ``a * weight`` over ``v``'s rows, each class's terms added in ``v``'s
        order from 0.0, the classes in the order a row first names them (a class no row names is
        absent). The sums are kept by class number and the rows sliced whole: indexing the tables
        weight by weight cost a fifth more."""
        acc = [0.0] * len(self.classes)
        row, cls, w = self._row, self._cls, self._w
        named = array(cls.typecode)
        for j, a in v:
            lo, hi = row[j], row[j + 1]
            cs = cls[lo:hi]
            named += cs
            for c, x in zip(cs, w[lo:hi]):
                acc[c] += a * x
        classes = self.classes
        return {classes[c]: acc[c] for c in dict.fromkeys(named)}

    def analyse(self, text: str, rank_text: str | None = None) -> tuple[dict[str, float], str | None, list[float] | None]:
        """``(scores, top in-scope intent, its rejection features)`` for a normalised text.

        :param rank_text: the text the :attr:`ranker` reads instead of ``text`` (the recognizer
            gives it the text with its typos read as the pack's words, :meth:`IntentRecognizer.spelled`:
            which sibling is meant is the words' as meant — "restrat the nginx service" is a restart).

        The features (:func:`.rejection.features`) are None when no in-scope intent scored. They,
        the out-of-scope class's score and the scores' values are this scorer's; with a
        :attr:`ranker` the in-scope intents are then reordered (:meth:`_reorder`), so the top intent
        returned is the ranker's first and the accept/reject decision on the features is the one the
        cue-free scorer would make.
        """
        counts = raw_features(text, self.cues)
        sc = self._score(self._vector(counts))
        top = max((c for c in sc if c != self.oos_label), key=sc.__getitem__, default=None)
        if top is None:
            return sc, None, None
        x = self._rejection_features(counts, sc, top)
        if self.ranker is not None:
            sc = self._reorder(sc, self.ranker.scores(text if rank_text is None else rank_text))
            top = max((c for c in sc if c != self.oos_label), key=sc.__getitem__)
        return sc, top, x

    def _reorder(self, sc: dict[str, float], rsc: Mapping[str, float]) -> dict[str, float]:
        """``sc`` with the siblings of its top in-scope intent reordered by the ranker's scores ``rsc``.

        Siblings are the in-scope intents of the top one's family, the name before its first dot
        (doc.send, doc.resend and doc.list_sent; an intent without a dot is a family of its own):
        the cues tell a family's actions apart (again, which, cancel, a service), they are no
        evidence for what the request is about — in a ranker over every intent 取消 / 不用 pulled
        "不用发了，先看看网络通不通" from device.network_check to reminder.cancel. The siblings keep
        the ranks they hold, in the ranker's order (ties, and intents the ranker does not score, in
        ``sc``'s order), and the scores' values stay where they are, rank by rank: the top in-scope
        score, the lead over the runner-up, the out-of-scope class's score and gap are unchanged.
        Every other intent keeps its rank."""
        oos = self.oos_label
        ins = sorted((c for c in sc if c != oos), key=lambda c: -sc[c])
        fam = ins[0].split(".", 1)[0] + "." if ins and "." in ins[0] else None
        if fam is None:
            return sc
        sib = [c for c in ins if c.startswith(fam)]
        order = sorted(sib, key=lambda c: -rsc.get(c, -math.inf))
        if order == sib:
            return sc
        out = dict(sc)
        for c, d in zip(order, sib):
            out[c] = sc[d]
        return out

    def _rejection_features(self, counts: Mapping[str, int], sc: Mapping[str, float], top: str) -> list[float]:
        """:func:`.rejection.features` of ``top`` for a text's ``counts`` and scores ``sc``."""
        ci = self._cid[top]
        oi = self._cid.get(self.oos_label) if self.oos_label else None
        tot = cov = uns = ev = 0.0
        units = vocab_units(counts)
        fid, idfs, vmask = self._fid, self._idf, self._vmask
        for u in units:
            j = fid.get(u)
            if j is None:
                tot += self._unseen_idf
                uns += self._unseen_idf
                continue
            idf = idfs[j]
            tot += idf
            vs = vmask.get(u)
            if vs is not None and vs >> ci & 1:
                cov += idf
                if oi is None or not vs >> oi & 1:  # a unit everyday sentences use too is no evidence for the intent
                    ev += idf
        coverage, unseen, evidence = (cov / tot, uns / tot, ev / tot) if tot else (0.0, 1.0, 0.0)
        return rejection_features(sc, top, self.oos_label, coverage, unseen, len(units), evidence)

    def confidence(self, text: str, rank_text: str | None = None) -> tuple[dict[str, float], str | None, float | None]:
        """``(scores, top in-scope intent, P(accept))``; P is None without a rejection model;
        ``rank_text``: see :meth:`analyse`."""
        sc, top, x = self.analyse(text, rank_text)
        if self.reject is None or x is None:
            return sc, top, None
        return sc, top, self.reject.probability(x)

    def to_json(self) -> bytes:
        """The model as JSON (format :data:`MODEL_VERSION`): the feature strings as a list, the
        idf, row starts, class indices and weights as base64 of their little-endian C arrays (so a
        load builds no per-weight Python object and reads back the same doubles, bit for bit); the
        :attr:`ranker` the same way, nested under ``ranker``."""
        return orjson.dumps(self._as_dict())

    def _as_dict(self) -> dict[str, Any]:
        return {"version": MODEL_VERSION, "classes": self.classes, "features": list(self._fid),
                "idf": _pack(self._idf), "row": _pack(self._row), "cls": _pack(self._cls),
                "w": _pack(self._w), "threshold": self.threshold, "oos_label": self.oos_label,
                "vocab": self.vocab, "reject": self.reject.to_dict() if self.reject else None,
                "margin": self.margin, "report": self.report, "cues": self.cues,
                "ranker": self.ranker._as_dict() if self.ranker is not None else None}

    @classmethod
    def from_json(cls, data: bytes) -> "IntentModel":
        """:raises ValueError: another model version, malformed JSON, or tables that do not fit
        together (lengths, row starts, class indices, non-finite numbers), a ranker's included, or a
        ranker over other classes."""
        return cls._from_dict(orjson.loads(data))

    @classmethod
    def _from_dict(cls, d: Any, strings: Mapping[str, str] | None = None) -> "IntentModel":
        """``strings``: feature → the same string already held (the deciding model's, for its ranker:
        the two share all but a few features, ~1 MB of strings held once)."""
        if not isinstance(d, dict) or d.get("version") != MODEL_VERSION:
            raise ValueError("model version mismatch")
        # a cached or compiled model is read from a file: check its shape before it scores a turn
        classes, features, threshold = d["classes"], d["features"], d["threshold"]
        vocab, margin, report, rj = d.get("vocab") or {}, d.get("margin"), d.get("report") or {}, d.get("reject")
        num = (int, float)
        if not (isinstance(classes, list) and all(isinstance(c, str) for c in classes)
                and isinstance(features, list) and all(isinstance(f, str) for f in features)
                and isinstance(threshold, num) and isinstance(vocab, dict)
                and all(isinstance(ix, list) and all(isinstance(i, int) and 0 <= i < len(classes) for i in ix)
                        for ix in vocab.values())
                and isinstance(report, dict) and (margin is None or isinstance(margin, num))
                and (rj is None or isinstance(rj, dict)) and isinstance(d.get("cues", False), bool)):
            raise ValueError("model has fields of the wrong type")
        idf, row, cl, w = _unpack(d["idf"], "d"), _unpack(d["row"], "I"), _unpack(d["cls"], "BHI"), _unpack(d["w"], "d")
        n = len(features)
        if (len(set(features)) != n or len(idf) != n or len(row) != n + 1 or row[0] != 0 or row[-1] != len(w)
                or len(cl) != len(w) or not all(map(operator.le, row, row[1:]))
                or (len(cl) and max(cl) >= len(classes))
                or not all(map(math.isfinite, idf)) or not all(map(math.isfinite, w))):
            raise ValueError("model tables do not fit together")
        m = object.__new__(cls)
        m.classes, m.threshold, m.oos_label, m.margin, m.report = classes, threshold, d.get("oos_label"), margin, report
        m.reject = RejectionModel.from_dict(rj) if rj else None
        m.cues = d.get("cues", False)
        m._cid = {c: i for i, c in enumerate(classes)}
        m._fid = {f: i for i, f in enumerate(features)} if strings is None else \
            {strings.get(f, f): i for i, f in enumerate(features)}
        m.ranker = cls._from_dict(d["ranker"], {f: f for f in m._fid}) if d.get("ranker") is not None else None
        if m.ranker is not None and m.ranker.classes != classes:
            raise ValueError("model ranker has other classes")
        m._idf, m._row, m._cls, m._w = idf, row, cl, w
        m._unseen_idf = max(idf, default=1.0)
        m._vmask = _masks(vocab, m._fid)
        return m


def _pack(a: array) -> dict[str, str]:
    """``{"type": typecode, "le": base64 of the items, little-endian}``."""
    if sys.byteorder != "little":
        a = array(a.typecode, a)
        a.byteswap()
    return {"type": a.typecode, "le": base64.b64encode(a.tobytes()).decode("ascii")}


def _unpack(v: Any, types: str) -> array:
    """The array :func:`_pack` wrote. :raises ValueError: not such a value, or a typecode not in ``types``."""
    if not isinstance(v, dict) or v.get("type") not in tuple(types) or not isinstance(v.get("le"), str):
        raise ValueError("model table is not a packed array")
    a = array(v["type"])
    try:
        a.frombytes(base64.b64decode(v["le"], validate=True))
    except (binascii.Error, ValueError):
        raise ValueError("model table is not a whole number of items") from None
    if sys.byteorder != "little":
        a.byteswap()
    return a


def _masks(vocab: Mapping[str, Sequence[int]], fid: Mapping[str, int]) -> dict[str, int]:
    """Vocabulary unit → bit mask of its class indices; a unit that is a feature shares its string."""
    same = {k: k for k in fid}
    return {same.get(u, u): sum(1 << i for i in set(ix)) for u, ix in vocab.items()}


def _vectorise(texts: Sequence[str], cues: bool = False) -> tuple[list[dict[str, float]], dict[str, float]]:
    counts = [raw_features(normalize(t).text, cues) for t in texts]
    df: Counter[str] = Counter()
    for c in counts:
        df.update(c.keys())
    n = len(counts)
    idf = {k: math.log((1 + n) / (1 + v)) + 1.0 for k, v in df.items()}
    return [tfidf_vector(c, idf) for c in counts], idf


def _fit(vecs: list[dict[str, float]], labels: list[str], classes: list[str], epochs: int, margin: float,
         seed: int) -> dict[str, dict[str, float]]:
    """Averaged multi-class margin perceptron; returns averaged weights feature → {class: w}.

    An update happens when the true class does not beat the best rival by ``margin``
    (Crammer & Singer 2003 multi-class perceptron with a margin; Freund & Schapire 1999
    averaging). Updates touch two rows per feature, so rows stay sparse and a pass over
    CLINC150's 15k utterances takes seconds in pure Python.
    """
    fid: dict[str, int] = {}
    cid = {c: i for i, c in enumerate(classes)}
    data = []
    for v, y in zip(vecs, labels):
        data.append(([(fid.setdefault(k, len(fid)), a) for k, a in v.items()], cid[y]))
    W: list[dict[int, float]] = [{} for _ in fid]
    U: list[dict[int, float]] = [{} for _ in fid]
    step = 1
    order = list(range(len(data)))
    rng = random.Random(seed)
    default_rival = [1 if y == 0 else 0 for y in range(len(classes))]
    for _ in range(epochs):
        rng.shuffle(order)
        for i in order:
            v, y = data[i]
            sc: dict[int, float] = {}
            for k, a in v:
                for c, x in W[k].items():
                    sc[c] = sc.get(c, 0.0) + a * x
            sy = sc.pop(y, 0.0)
            if sc:
                rival = max(sc, key=sc.__getitem__)
                rs = sc[rival]
            else:
                rival, rs = default_rival[y], 0.0
            if sy - rs <= margin:
                for k, a in v:
                    wk, uk = W[k], U[k]
                    wk[y] = wk.get(y, 0.0) + a
                    uk[y] = uk.get(y, 0.0) + step * a
                    wk[rival] = wk.get(rival, 0.0) - a
                    uk[rival] = uk.get(rival, 0.0) - step * a
            step += 1
    out: dict[str, dict[str, float]] = {}
    for k, j in fid.items():
        row, uk = W[j], U[j]
        avg = {classes[c]: round(w - uk.get(c, 0.0) / step, 5) for c, w in row.items()}
        avg = {c: x for c, x in avg.items() if abs(x) >= 1e-4}
        if avg:
            out[k] = avg
    return out


def _top(sc: Mapping[str, float]) -> tuple[str | None, float]:
    if not sc:
        return None, 0.0
    c = max(sc, key=sc.__getitem__)
    return c, sc[c]


def _vocab(texts: Sequence[str], labels: Sequence[str], classes: Sequence[str]) -> dict[str, list[int]]:
    cid = {c: i for i, c in enumerate(classes)}
    out: dict[str, set[int]] = defaultdict(set)
    for t, y in zip(texts, labels):
        for u in vocab_units(raw_features(normalize(t).text)):
            out[u].add(cid[y])
    return {u: sorted(v) for u, v in sorted(out.items())}


#: the build-time learners of the scorer's weights (:func:`train`'s ``learner``)
LEARNERS = ("perceptron", "softmax")


def _bagged_fit(vecs: list[dict[str, float]], labels: list[str], classes: list[str], epochs: int, margin: float,
                seed: int, bag: int) -> dict[str, dict[str, float]]:
    """The mean of ``bag`` averaged perceptrons (:func:`_fit`) trained in ``bag`` example orders.

    One perceptron's weights depend on the order it met the examples in: on a pack of ~20 examples
    an intent, adding out-of-scope examples that share none of a request's words (issue 17's near
    misses) turned 查一下系统状态 from device.system_status (0.86 against 0.34) into device.reboot
    (0.58 against 0.55), and a training seed moved the cross-validated in-scope accuracy by ±1.5
    points. The mean over orders keeps what they agree on (one linear model: scoring costs the same).
    ``bag=1`` is :func:`_fit` itself, weight for weight.
    """
    if bag <= 1:
        return _fit(vecs, labels, classes, epochs, margin, seed)
    acc: dict[str, dict[str, float]] = {}
    for j in range(bag):
        for f, row in _fit(vecs, labels, classes, epochs, margin, seed + _BAG_SEED_STEP * j).items():
            r = acc.setdefault(f, {})
            for c, x in row.items():
                r[c] = r.get(c, 0.0) + x
    out: dict[str, dict[str, float]] = {}
    for f, r in acc.items():
        avg = {c: round(x / bag, 5) for c, x in r.items()}
        avg = {c: x for c, x in avg.items() if abs(x) >= 1e-4}
        if avg:
            out[f] = avg
    return out


#: seeds of the orders of :func:`_bagged_fit` (a prime step: the orders of seed s and s + 1 differ)
_BAG_SEED_STEP = 7919


def _ranker(model: IntentModel) -> IntentModel:
    """``model`` as :attr:`IntentModel.ranker`: only the order of its in-scope scores is used, so the
    out-of-scope class's weights, the features left with no weight and the vocabulary (the rejection's)
    are dropped. A text's in-scope scores are then its full scores times one positive factor (the L2
    norm over fewer features), the same order; on the shipped pack half the features and weights."""
    oos = model.oos_label
    weights = {}
    for f, row in model.weights.items():
        r = {c: x for c, x in row.items() if c != oos}
        if r:
            weights[f] = r
    idf = {f: x for f, x in model.idf.items() if f in weights}
    return IntentModel(model.classes, idf, weights, 0.0, oos, cues=model.cues)


def _build(examples: Sequence[tuple[str, str]], classes: list[str], oos_label: str | None, epochs: int,
           margin: float, seed: int, learner: str = "perceptron", l2: float = 1e-5, bag: int = 1,
           cues: bool = False) -> IntentModel:
    """The scorer (weights, idf, vocabulary) trained on ``examples``, with no rejection yet.

    :param learner: ``perceptron`` (:func:`_bagged_fit` of ``bag`` orders, ``margin``) or ``softmax``
        (:func:`.softmax.fit_softmax`, ``l2``). :param cues: the features include the cues
        (:data:`.features.CUES`). :raises ValueError: another learner.
    """
    texts, labels = [t for t, _ in examples], [y for _, y in examples]
    vecs, idf = _vectorise(texts, cues)
    if learner == "perceptron":
        weights = _bagged_fit(vecs, labels, classes, epochs, margin, seed, bag)
    elif learner == "softmax":
        # scores in units of SOFTMAX_T logits: the rejection's entropy is then the model's own softmax
        weights = fit_softmax(vecs, labels, classes, epochs, l2, seed, scale=SOFTMAX_T)
    else:
        raise ValueError(f"unknown learner {learner!r} (one of {', '.join(LEARNERS)})")
    return IntentModel(classes, idf, weights, 0.0, oos_label, _vocab(texts, labels, classes), cues=cues)


def folds_of(labels: Sequence[str], k: int, seed: int) -> list[int]:
    """Fold index (0 … k−1) per record: stratified by label (each label's records, shuffled with
    ``seed``, dealt round-robin starting at a rotating fold, so small labels spread too)."""
    rng = random.Random(seed)
    by_class: dict[str, list[int]] = defaultdict(list)
    for i, y in enumerate(labels):
        by_class[y].append(i)
    fold = [0] * len(labels)
    start = 0
    for _, idx in sorted(by_class.items()):
        idx = idx[:]
        rng.shuffle(idx)
        for j, i in enumerate(idx):
            fold[i] = (start + j) % k
        start = (start + len(idx)) % k
    return fold


@dataclass(frozen=True, slots=True)
class _Held:
    """One out-of-fold scoring: gold label; overall top; top in-scope intent and its score,
    the runner-up in-scope intent and its lead; the rejection features."""

    gold: str
    top: str | None
    top_in: str | None
    score: float
    second: str | None
    gap: float
    x: list[float] | None


def cross_validate(examples: Sequence[tuple[str, str]], *, oos_label: str | None = None, epochs: int = 10,
                   margin: float = 1.0, seed: int = 13, folds: int = 5, learner: str = "perceptron",
                   l2: float = 1e-5, bag: int = 1) -> list[_Held]:
    """Out-of-fold scorings of every training example: k-fold by record, stratified by intent
    (out-of-scope examples included, so the folds see out of scope), each fold scored by a model
    trained on the other folds. Costs ``folds`` trainings on (k−1)/k of the data."""
    classes = sorted({y for _, y in examples})
    fold = folds_of([y for _, y in examples], folds, seed + 1)
    out: list[_Held | None] = [None] * len(examples)
    for f in range(folds):
        part = [ex for ex, g in zip(examples, fold) if g != f]
        if not part:
            continue
        m = _build(part, classes, oos_label, epochs, margin, seed, learner, l2, bag)
        for i, (t, y) in enumerate(examples):
            if fold[i] != f:
                continue
            sc, top_in, x = m.analyse(normalize(t).text)
            top, _ = _top(sc)
            ins = sorted(((x_, c) for c, x_ in sc.items() if c != oos_label), reverse=True)[:2]
            s1 = ins[0][0] if ins else 0.0
            second = ins[1][1] if len(ins) > 1 else None
            gap = s1 - (ins[1][0] if len(ins) > 1 else 0.0)
            out[i] = _Held(y, top, top_in, s1, second, gap, x)
    return [h for h in out if h is not None]


#: probability cuts the cross-validation curve reports (besides the chosen one)
CURVE_CUTS = (0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7)
#: the ambiguity margin is the largest lead under which the top intent is right at most this share of
#: the times the right intent is one of the top two (the runner-up is then right often enough that
#: offering both is worth a turn)
AMBIGUOUS_TOP_SHARE = 2 / 3


def _curve(points: Sequence[tuple[float, bool, bool]], cuts: Iterable[float]) -> list[dict[str, float]]:
    ins = [p for p in points if not p[1]]
    oos = [p for p in points if p[1]]
    out = []
    for th in cuts:
        acc = sum(1 for c, _, ok in ins if ok and c >= th) / len(ins) if ins else 0.0
        rec = round(sum(1 for c, _, _ in oos if c < th) / len(oos), 4) if oos else None
        out.append({"threshold": round(th, 4), "in_scope_accuracy": round(acc, 4), "oos_recall": rec})
    return out


def _ambiguity_margin(held: Sequence[_Held], accepted: Sequence[bool]) -> float | None:
    pts = sorted((h.gap, h.top_in == h.gold) for h, ok in zip(held, accepted)
                 if ok and h.top_in is not None and h.gold in (h.top_in, h.second))
    if not pts:
        return None
    best = 0.0
    right = 0
    for n, (gap, first) in enumerate(pts, 1):
        right += first
        if right / n <= AMBIGUOUS_TOP_SHARE and (n == len(pts) or pts[n][0] > gap):
            best = gap if n == len(pts) else (gap + pts[n][0]) / 2
    return round(best, 5)


#: Fewest out-of-fold (in-scope, out-of-scope) records a rejection model is fitted on; below either,
#: the score threshold keeps ``target_in_scope_recall`` of the in-scope records and no rejection
#: model is fitted (a pack of a few dozen examples cannot estimate one).
MIN_CALIBRATION = (50, 10)


def train(examples: Sequence[tuple[str, str]], *, oos_label: str | None = None, epochs: int = 10,
          margin: float = 1.0, seed: int = 13, folds: int = 5, oos_prior: float = 0.05,
          target_in_scope_recall: float = 0.98, min_calibration: tuple[int, int] = MIN_CALIBRATION,
          max_in_scope_loss: float | None = None, learner: str = "perceptron", l2: float = 1e-5,
          bag: int = 1, cue_ranker: bool = True) -> IntentModel:
    """Train a scorer on ``(text, intent)`` pairs and its out-of-scope rejection by cross-validation.

    :param examples: training pairs; texts are normalised here.
    :param oos_label: label of out-of-scope training examples (e.g. ``oos``), if any.
    :param epochs: passes over the data. :param margin: update unless the true class wins by this.
    :param folds: k of the k-fold cross-validation (:func:`cross_validate`) whose out-of-fold
        scorings fit the rejection model, its threshold, the score threshold and the ambiguity
        margin; the final model is then trained on everything. Training costs ``folds + 1`` fits.
        ``folds=0``: no calibration (score threshold 0, no rejection model, no margin) — for a
        caller that fixes its own threshold.
    :param oos_prior: assumed share of out-of-scope utterances in real traffic. With OOS examples
        the thresholds maximise ``(1 − oos_prior)·in-scope accuracy + oos_prior·OOS recall`` on the
        out-of-fold scorings (expected accuracy at that prevalence, independent of how many OOS
        examples the training set happens to have).
    :param target_in_scope_recall: without OOS examples, the thresholds keep this share of the
        out-of-fold in-scope examples.
    :param min_calibration: fewest out-of-fold (in-scope, OOS) records to fit a rejection model on
        (:data:`MIN_CALIBRATION`); with fewer, the score threshold keeps ``target_in_scope_recall``.
    :param max_in_scope_loss: with OOS examples, choose the rejection cut by a budget instead of the
        ``oos_prior`` objective: the highest cut (most OOS rejected) whose out-of-fold in-scope
        accuracy is within this share (0.005 = 0.5 point) of the out-of-fold closed-set accuracy
        (:func:`.rejection.budget_threshold`). None: the objective.
    :param learner: how the weights are learnt (:data:`LEARNERS`): ``perceptron``, the averaged
        margin perceptron (:func:`_fit`, ``margin``); ``softmax``, multinomial logistic regression
        with an L2 penalty ``l2`` per example (:func:`.softmax.fit_softmax`). Either gives sparse
        weights feature → ``{class: weight}``, scored by the same dot product.
    :param bag: the perceptron's weights are the mean of this many trained in different example
        orders (:func:`_bagged_fit`; costs ``bag`` times the training). 1: one order, as before.
    :param cue_ranker: also train the :attr:`IntentModel.ranker` (the same learner with the cue
        features, on the same examples; one more fit): it reorders the in-scope intents and never
        decides in or out of scope, so the rejection and its cross-validation are the cue-free
        scorer's. Not trained when no intent name has a family (``doc.send``; CLINC150's names
        have none): it would reorder nothing.
    :raises ValueError: fewer than two classes, ``folds`` is 1 or negative, or an unknown learner.
    """
    classes = sorted({y for _, y in examples})
    if len(classes) < 2:
        raise ValueError("need at least two intents to train a scorer")
    if learner not in LEARNERS:
        raise ValueError(f"unknown learner {learner!r} (one of {', '.join(LEARNERS)})")
    if folds == 1 or folds < 0:
        raise ValueError("folds must be 0 (no calibration) or at least 2")
    # the ranker only reorders a family's intents (IntentModel._reorder): without one, no ranker
    families = any("." in c for c in classes if c != oos_label)
    ranker = _ranker(_build(examples, classes, oos_label, epochs, margin, seed, learner, l2, bag, cues=True)) \
        if cue_ranker and families else None
    if folds == 0:
        return _build(examples, classes, oos_label, epochs, margin, seed, learner, l2, bag).replace(ranker=ranker)
    held = cross_validate(examples, oos_label=oos_label, epochs=epochs, margin=margin, seed=seed, folds=folds,
                          learner=learner, l2=l2, bag=bag)
    model = _build(examples, classes, oos_label, epochs, margin, seed, learner, l2, bag)
    _calibrate(model, held, oos_prior, target_in_scope_recall, folds, min_calibration, max_in_scope_loss)
    model.report["learner"] = learner
    model.ranker = ranker
    return model


def _calibrate(model: IntentModel, held: Sequence[_Held], oos_prior: float, target: float, folds: int,
               min_calibration: tuple[int, int] = MIN_CALIBRATION, max_loss: float | None = None) -> None:
    """Set ``threshold``, ``reject``, ``margin`` and ``report`` of ``model`` from out-of-fold scorings."""
    oos_label = model.oos_label
    is_oos = [h.gold == oos_label for h in held]
    # the score threshold alone (no rejection model) rejects an utterance whose overall top is the
    # out-of-scope class whatever its score
    lost = [h.top == oos_label or h.top_in is None for h in held]
    right = [h.top_in == h.gold for h in held]
    has_oos = any(is_oos)
    # too few out-of-fold records to fit a rejection model (a small custom pack): keep the target
    # share of the in-scope records instead of a cut that, fitted on a handful, rejects them all
    small = sum(1 for o in is_oos if not o) < min_calibration[0] or sum(is_oos) < min_calibration[1]
    # the score threshold (no rejection model; the long-utterance reading)
    spts = [(-1e9 if ls else h.score, o, ok) for h, o, ls, ok in zip(held, is_oos, lost, right)]
    if has_oos and not small:
        model.threshold = choose_threshold(spts, oos_prior)
    else:
        ins = sorted(p[0] for p in spts if not p[1] and p[0] > -1e9)
        model.threshold = ins[int((1 - target) * len(ins))] if ins else 0.0
    # the rejection model sees every scoring with an in-scope top, the out-of-scope class's lead
    # included (its ``oos_gap``): the out-of-scope class may lead by a little on a request said with
    # everyday words ("我想知道网络通不通") whose content words are the intent's own
    fit_i = [i for i, h in enumerate(held) if h.top_in is not None]
    xs = [held[i].x for i in fit_i]
    kinds = {(is_oos[i], right[i]) for i in fit_i}
    reject = None
    if not small and (any(o for o, _ in kinds) or (False, False) in kinds):
        if (False, True) in kinds:
            reject = fit_rejection(xs, [is_oos[i] for i in fit_i], [right[i] for i in fit_i], oos_prior)  # type: ignore[arg-type]
    if reject is not None:
        conf = [-1.0] * len(held)
        for i, x in zip(fit_i, xs):
            conf[i] = reject.probability(x)  # type: ignore[arg-type]
        pts = list(zip(conf, is_oos, right))
        if has_oos:
            # one cut by the global objective; where the out-of-scope class leads (mostly out of
            # scope) the cut of those scorings alone, by the same objective (regime_prior), never lower
            reject.threshold = choose_threshold(pts, oos_prior)
            n_in, n_oos = sum(1 for o in is_oos if not o), sum(is_oos)
            sub = [p for p, h in zip(pts, held) if h.top == oos_label]
            si, so = sum(1 for p in sub if not p[1]), sum(1 for p in sub if p[1])
            led = choose_threshold(sub, regime_prior(oos_prior, n_in, n_oos, si, so)) if si else 1.0 + 1e-9
            reject.threshold_led = max(reject.threshold, led)
            if max_loss is not None:
                # the budget: the highest global cut whose in-scope loss, the led regime's cut included,
                # stays within max_loss of the closed-set accuracy (the led cut is dropped when it alone
                # spends more than the budget)
                leads = [h.top == oos_label for h in held]
                reject.threshold, reject.threshold_led = budget_threshold(pts, leads, led, max_loss)
            conf_cut = [reject.cut(h.top == oos_label) for h in held]
        else:
            ins = sorted(c for c, o, _ in pts)
            reject.threshold = ins[int((1 - target) * len(ins))]
            conf_cut = [reject.threshold] * len(held)
        accepted = [c >= t for c, t in zip(conf, conf_cut)]
        cuts = sorted(set(CURVE_CUTS) | {reject.threshold})
    else:
        pts = spts
        accepted = [p[0] >= model.threshold for p in spts]
        cuts = [model.threshold]
    model.reject = reject
    model.margin = _ambiguity_margin(held, accepted)
    n_in = max(1, sum(1 for o in is_oos if not o))
    chosen = {"in_scope_accuracy": round(sum(1 for a, o, ok in zip(accepted, is_oos, right) if a and ok and not o)
                                         / n_in, 4),
              "oos_recall": round(sum(1 for a, o in zip(accepted, is_oos) if o and not a) / max(1, sum(is_oos)), 4)}
    model.report = {"folds": folds, "n": len(held), "n_oos": sum(is_oos),
                    "in_scope_accuracy": chosen["in_scope_accuracy"],
                    "closed_set_accuracy": round(sum(1 for o, ok in zip(is_oos, right) if not o and ok)
                                                 / max(1, len(held) - sum(is_oos)), 4),
                    "oos_recall": chosen["oos_recall"] if has_oos else None,
                    "curve": _curve(pts, cuts)}


def content_hash(examples: Iterable[tuple[str, str]], **params: Any) -> str:
    """SHA-256 of the training pairs (order-independent) and hyper-parameters."""
    h = hashlib.sha256()
    h.update(orjson.dumps({"v": MODEL_VERSION, "p": params}, option=orjson.OPT_SORT_KEYS))
    for t, y in sorted(examples):
        h.update(orjson.dumps([t, y]))
    return h.hexdigest()


def train_cached(examples: Sequence[tuple[str, str]], cache_dir: Path | str | None, **params: Any) -> IntentModel:
    """:func:`train`, or load the model cached under ``cache_dir`` for the same content hash.

    The cache file is ``intent-model-<hash>.json``, written atomically (temp file + rename).
    An unreadable cache file is ignored and rewritten.
    """
    if cache_dir is None:
        return train(examples, **params)
    # hash the effective hyper-parameters (defaults included), so a changed default retrains
    import inspect

    full = {k: p.default for k, p in inspect.signature(train).parameters.items() if p.kind is p.KEYWORD_ONLY}
    full.update(params)
    cache = Path(cache_dir)
    path = cache / f"intent-model-{content_hash(examples, **full)[:32]}.json"
    try:
        return IntentModel.from_json(path.read_bytes())
    except (OSError, ValueError, KeyError, orjson.JSONDecodeError):
        pass
    model = train(examples, **params)
    cache.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_bytes(model.to_json())
    os.replace(tmp, path)
    return model


# ---- templates and keywords ------------------------------------------------------------------
_SLOT = lazyre.compile(r"\{(\w+)\}")
_STRIP = lazyre.compile(r"[\s,.!?;:'\"~，。！？；：、]+")
_SPACES = lazyre.compile(r"\s+")
#: words around a template that do not change the request ("请帮我…", "could you please …", "…一下吧");
#: matched on the stripped text, so they are stripped the same way (no spaces, no apostrophes)
_POLITE_HEAD_WORDS = ("请", "麻烦", "麻烦你", "帮我", "帮忙", "你能", "能不能", "可以", "我要", "我想", "我需要", "也",
                      "please", "can you", "could you", "would you", "will you", "i want to", "i'd like to",
                      "i would like to", "i need to")
#: additive adverbs ("… as well", "… too", "也…") add the request to an earlier one without changing it
_POLITE_TAIL_WORDS = ("一下", "吧", "好吗", "可以吗", "行吗", "谢谢", "please", "thanks", "thank you", "for me", "now",
                      "as well", "too", "also")


def _alternatives(words: Sequence[str]) -> str:
    alts = sorted({_STRIP.sub("", w) for w in words}, key=lambda w: (-len(w), w))
    return "(?:" + "|".join(map(re.escape, alts)) + ")*"


_POLITE_HEAD = _alternatives(_POLITE_HEAD_WORDS)
_POLITE_TAIL = _alternatives(_POLITE_TAIL_WORDS)


def _template_pieces(tpl: str, slots: Mapping[str, str]) -> tuple[list[tuple[str, bool]], list[str]]:
    """A template's pieces in order, ``(text, is_slot)`` (literals normalised and stripped; a slot
    as its entity type), and its slot names."""
    pieces, names = [], []
    pos = 0
    for m in _SLOT.finditer(tpl):
        pieces.append((_STRIP.sub("", normalize(tpl[pos:m.start()]).text), False))
        name = m[1]
        names.append(name)
        pieces.append((slots.get(name, name), True))
        pos = m.end()
    pieces.append((_STRIP.sub("", normalize(tpl[pos:]).text), False))
    return pieces, names


class _LazyPattern:
    """A regular expression compiled at its first :meth:`match`: a pack's ~200 template patterns
    (each with the polite head and tail alternations) took ~150 ms of start-up and ~0.4 MB to
    compile, and a template is only tried once its core literal is in the text
    (:meth:`IntentRecognizer.match_templates`), so most are never needed. Compiling twice in a
    race is harmless (the same pattern)."""

    __slots__ = ("pattern", "_rx")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._rx: re.Pattern[str] | None = None

    def match(self, text: str) -> re.Match[str] | None:
        rx = self._rx
        if rx is None:
            rx = self._rx = re.compile(self.pattern)
        return rx.match(text)


def _compile_template(tpl: str, slots: Mapping[str, str]) -> tuple[_LazyPattern, list[str]]:
    """The template's whole-utterance pattern (compiled at first use) and its slot names."""
    pieces, names = _template_pieces(tpl, slots)
    core = "".join(r"\{" + re.escape(p) + r"\}" if slot else re.escape(p) for p, slot in pieces)
    return _LazyPattern("^" + _POLITE_HEAD + core + _POLITE_TAIL + "$"), names


def _template_core(tpl: str, slots: Mapping[str, str]) -> str:
    """The literal every match of :func:`_compile_template`'s pattern contains (the template
    between its polite head and tail, a slot as ``{type}``): a substring test that skips the
    pattern when it cannot match."""
    pieces, _ = _template_pieces(tpl, slots)
    return "".join("{" + p + "}" if slot else p for p, slot in pieces)


# ---- long utterances: clause by clause ------------------------------------------------------
#: an utterance at least this long (words; a CJK character counts half a word) that is out of scope
#: as a whole is read clause by clause
LONG_MIN_WORDS = 10
#: a clause shorter than this (same units) is not read on its own ("so", "嗯")
_CLAUSE_MIN_WORDS = 1.5
_WORD = lazyre.compile(r"[a-z0-9]+(?:'[a-z]+)?|[\u3400-\u4dbf\u4e00-\u9fff]")
#: clause boundaries: punctuation (a "." or ":" inside a number or a time is not one)
_CLAUSE_BREAK = lazyre.compile(r"[,;!?~]+|[.:](?!\d)")
#: words that open a new clause; the opener stays with the clause it opens
_CLAUSE_OPENER = lazyre.compile(
    r"(?<![a-z'])(?:but|so|whether|because|anyway|and then|then|if you could|could you|can you|would you|please)(?![a-z'])"
    r"|但是|不过|所以|然后|能不能|可不可以|麻烦你|请问|你能")
#: a clause that only thanks or pleases ("thank you", "谢谢你啊") is not the request
_COURTESY = lazyre.compile("(?:" + "|".join(re.escape(_STRIP.sub("", w)) for w in (
    "谢谢", "谢谢你", "多谢", "辛苦了", "辛苦", "麻烦了", "thanks", "thank you", "cheers", "please")) + ")+[啊呀了啦哈]*")
#: Words that carry no request of their own — courtesy (please, 请, 麻烦, thanks, 谢谢) and
#: hesitation (um, 呃) — removed before the scorer reads an utterance (:func:`content_of`): one
#: learnt weight on "please" must not pull "please be slow" or "zebra stripes please" into a task.
#: English words go wherever they stand; Chinese ones only at the start (请, 麻烦你, 呃) or the end
#: (吧, 啊, 谢谢) of the utterance, since inside it they are parts of words (请假, 麻烦事).
_EMPTY_EN = ("please", "pls", "plz", "kindly", "thanks", "thank you", "thank u", "thx", "cheers", "um", "umm",
             "uh", "uhh", "er", "erm", "hmm", "hm")
_EMPTY_ZH_HEAD = ("请问", "请你", "请", "麻烦你", "麻烦您", "麻烦", "劳驾", "呃", "额", "嗯", "唔", "那个", "这个", "就是")
_EMPTY_ZH_TAIL = ("谢谢你", "谢谢您", "谢谢", "多谢", "谢了", "麻烦了", "辛苦了", "吧", "啊", "呀", "呢", "哦", "啦",
                  "嘛", "哈", "呗", "了")
_EMPTY_EN_RX = lazyre.compile(r"(?<![a-z0-9'])(?:" + "|".join(
    re.escape(w).replace(r"\ ", r"\s+") for w in sorted(_EMPTY_EN, key=len, reverse=True)) + r")(?![a-z0-9'])")
_EMPTY_ZH_HEAD_RX = lazyre.compile(r"^(?:[\s,.!?;:~，。！？；：、]*(?:" + "|".join(
    sorted(_EMPTY_ZH_HEAD, key=len, reverse=True)) + "))+")
_EMPTY_ZH_TAIL_RX = lazyre.compile(r"(?:(?:" + "|".join(
    sorted(_EMPTY_ZH_TAIL, key=len, reverse=True)) + r")[\s,.!?;:~，。！？；：、]*)+$")


def content_of(text: str) -> str:
    """A normalised utterance without the words that ask for nothing (:data:`_EMPTY_EN`, …).

    :param text: normalised text (lower case, half width). :return: the text without its English
        courtesy and hesitation words, spaces collapsed; ``""`` when the utterance was only such
        words ("please", "请", "um, thanks", "那个吧"). Chinese ones at its edges are only looked at
        to tell that nothing is left: cut off a longer utterance they could split a word (请假条).
        An utterance with no such word is returned unchanged.
    """
    t = _SPACES.sub(" ", _EMPTY_EN_RX.sub(" ", text)).strip()
    head = _EMPTY_ZH_HEAD_RX.match(t)
    rest = _EMPTY_ZH_TAIL_RX.sub("", t[head.end():] if head else t)
    if not _STRIP.sub("", rest):
        return ""
    return text if t == _SPACES.sub(" ", text).strip() else t


#: a negated clause asks for nothing ("不要把这件事记成待办", "there is no need to remind me")
_NEGATED = lazyre.compile(
    r"(?<![a-z'])(?:not|never|no need|no longer|don't|dont|do not|doesn't|didn't|won't|shouldn't|without)(?![a-z'])|n't(?![a-z])"
    r"|不要|不用|无需|不必|没必要|不需要|不想|先不|(?<![特区识级类性分告个])别(?![的人处])")


def _words(text: str) -> float:
    return sum(0.5 if not t[0].isascii() else 1.0 for t in _WORD.findall(text))


def clause_spans(text: str, keep: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """Half-open spans of the clauses of a normalised text, in order, stripped of spaces.

    Clauses end at punctuation and before an opener ("but", "whether", "could you", 但是, 所以,
    能不能, …); a boundary inside a ``keep`` span (an entity: "Mr. Smith", "10:30") is no boundary.
    """
    def inside(i: int) -> bool:
        return any(a < i < b for a, b in keep)

    gaps: list[tuple[int, int]] = [(m.start(), m.end()) for m in _CLAUSE_BREAK.finditer(text)
                                   if not inside(m.start())]
    gaps += [(m.start(), m.start()) for m in _CLAUSE_OPENER.finditer(text) if m.start() and not inside(m.start())]
    out: list[tuple[int, int]] = []
    pos = 0
    for a, b in sorted(gaps) + [(len(text), len(text))]:
        if a < pos:
            pos = max(pos, b)
            continue
        lo, hi = pos, a
        while lo < hi and text[lo].isspace():
            lo += 1
        while hi > lo and text[hi - 1].isspace():
            hi -= 1
        if lo < hi:
            out.append((lo, hi))
        pos = b
    return out


@dataclass(frozen=True, slots=True)
class ClauseReading:
    """The in-scope reading of one clause of a long utterance.

    :param span: the clause, a half-open span of the normalised text. :param ranked: its ranking
        (templates, then the scorer), best first; template slots index the entities passed in.
    """

    span: tuple[int, int]
    ranked: tuple[IntentMatch, ...]


@dataclass(slots=True)
class IntentRecognizer:
    """Templates + scorer + keywords for a set of intents; :meth:`rank` is pure.

    :param specs: the intents. :param model: trained scorer, or None (templates/keywords only).
    :param margin: ambiguity margin between the top two scorer scores; None = the model's
        cross-validated margin (:attr:`IntentModel.margin`).
    """

    specs: Sequence[IntentSpec]
    model: IntentModel | None = None
    margin: float | None = 0.1
    #: ``(intent, pattern, slot names, core literal)`` per template (:func:`_template_core`)
    _templates: list[tuple[str, _LazyPattern, list[str], str]] = field(init=False, default_factory=list)
    _keywords: list[tuple[str, list[str]]] = field(init=False, default_factory=list)
    #: the scorer's English words, for :meth:`spelled` (built at the first call)
    _speller: Speller | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        for s in self.specs:
            for tpl in s.templates:
                rx, names = _compile_template(tpl, s.slots)
                self._templates.append((s.name, rx, names, _template_core(tpl, s.slots)))
            kws = [normalize(k).text for k in s.keywords]
            if kws:
                self._keywords.append((s.name, kws))

    def match_templates(self, delex: str, entity_types: Sequence[str]) -> list[IntentMatch]:
        """Template hits on a delexicalised text (entities replaced by ``{type}``).

        :param entity_types: types of the entities in the order they appear in ``delex``.
        """
        t = _STRIP.sub("", delex)
        out: list[IntentMatch] = []
        for name, rx, names, core in self._templates:
            if core in t and rx.match(t):
                slots: dict[str, int] = {}
                spec = next(s for s in self.specs if s.name == name)
                used: set[int] = set()
                for slot in names:
                    typ = spec.slots.get(slot, slot)
                    j = next((i for i, et in enumerate(entity_types) if et == typ and i not in used), None)
                    if j is not None:
                        used.add(j)
                        slots[slot] = j
                if all(o.intent != name for o in out):
                    out.append(IntentMatch(name, 1.0, "template", slots))
        return out

    def spelled(self, text: str) -> str:
        """A normalised text with its out-of-vocabulary English words mistyped by one letter read as
        words of the in-scope intents' examples (:class:`.spelling.Speller`; the out-of-scope class's
        words are no target: a correction to one routes nowhere); the text itself without a model."""
        model = self.model
        if model is None:
            return text
        if self._speller is None:
            oos = model.classes.index(model.oos_label) if model.oos_label in model.classes else -1
            words = [u[1:] for u, ix in model.vocab.items() if u[:1] == "w" and any(i != oos for i in ix)]
            # the vocabulary's other words are still words: never corrected, whatever their class
            self._speller = Speller(words, known=(u[1:] for u in model.vocab if u[:1] == "w"))
        return self._speller.correct(text)

    def score(self, text: str, top_k: int = 5) -> list[IntentMatch]:
        """Scorer ranking for a normalised text, best first (may include the OOS label)."""
        return self._scored(text, top_k)[1]

    def _scored(self, text: str, top_k: int = 5) -> tuple[dict[str, float], list[IntentMatch]]:
        if self.model is None:
            return {}, []
        text = content_of(text)  # courtesy and hesitation are no evidence for any intent
        if not text:
            return {}, []
        # the ranker reads the words as meant (typos as the pack's words); the decision, as typed
        sc, top_in, conf = self.model.confidence(text, self.spelled(text) if self.model.ranker is not None else None)
        best = sorted(sc.items(), key=lambda kv: -kv[1])[:top_k]
        return sc, [IntentMatch(c, s, "scorer", confidence=conf if c == top_in else None) for c, s in best]

    def keywords(self, text: str, top_k: int = 5) -> list[IntentMatch]:
        """Keyword ranking for a normalised text: share of an intent's keywords present."""
        out = []
        for name, kws in self._keywords:
            hit = sum(1 for k in kws if k in text)
            if hit:
                out.append(IntentMatch(name, min(1.0, hit / 2), "keyword"))
        out.sort(key=lambda m: -m.score)
        return out[:top_k]

    def rank_clauses(self, text: str, spans: Sequence[tuple[int, int, str]] = (),
                     whole: Sequence[IntentMatch] = ()) -> ClauseReading | None:
        """The reading of the last clause of a long utterance that is out of scope as a whole.

        People put the request last after a ramble ("so I was wondering, since …, whether you
        could tell me how much disk space is left"). The last clause that asks for something (not
        negated, not only "thanks") is ranked like an utterance of its own; its reading is taken
        when it is a template hit, or when its scorer top is in scope by :meth:`decide` *and* is the
        in-scope intent the whole utterance leaned to with a score at the threshold (the whole was
        rejected only because the out-of-scope class scored higher) and beats the out-of-scope class
        on the clause by at least the threshold. Anything else stays out of scope: a long utterance is
        never taken when its last clause, said alone, would not be.

        :param text: the normalised utterance. :param spans: its entities ``(start, end, type)`` in
            the normalised text, in order (templates are matched on the clause's delexicalised text;
            slots index these entities). :param whole: the whole utterance's ranking.
        :return: None when the text is shorter than :data:`LONG_MIN_WORDS`, has a single clause, or
            its last clause does not qualify.
        """
        if self.model is None or _words(text) < LONG_MIN_WORDS:
            return None
        clauses = clause_spans(text, [(a, b) for a, b, _ in spans])
        asks = [(lo, hi) for lo, hi in clauses if _words(text[lo:hi]) >= _CLAUSE_MIN_WORDS
                and not _NEGATED.search(text[lo:hi]) and not _COURTESY.fullmatch(_STRIP.sub("", text[lo:hi]))]
        if len(clauses) < 2 or not asks:
            return None
        lo, hi = asks[-1]
        part = text[lo:hi]
        idx = [i for i, (a, b, _) in enumerate(spans) if lo <= a and b <= hi]
        delex, pos = [], 0
        for i in idx:
            a, b, typ = spans[i]
            delex.append(part[pos:a - lo] + "{" + typ + "}")
            pos = b - lo
        delex.append(part[pos:])
        ranked = [IntentMatch(m.intent, m.score, m.source, {k: idx[j] for k, j in m.slots.items()})
                  for m in self.match_templates("".join(delex), [spans[i][2] for i in idx])]
        if not ranked:
            model = self.model
            scores, ranked = self._scored(part)
            top, oos, _ = self.decide(ranked)
            lean = next((m for m in whole if m.source == "scorer" and m.intent != model.oos_label), None)
            if oos or lean is None or lean.intent != top or lean.score < model.threshold:
                return None
            # and the clause is clearly not out of scope: without a rejection model it beats the
            # out-of-scope class by a threshold (with one, decide() weighed that class's lead already)
            if model.reject is None and model.oos_label \
                    and ranked[0].score - scores.get(model.oos_label, 0.0) < model.threshold:
                return None
        return ClauseReading((lo, hi), tuple(ranked))

    def decide(self, ranked: Sequence[IntentMatch]) -> tuple[str | None, bool, bool]:
        """(top intent or None when out of scope, out_of_scope, ambiguous) for a ranking."""
        if not ranked:
            return None, True, False
        top = ranked[0]
        if top.source == "template":
            return top.intent, False, len(ranked) > 1 and ranked[1].source == "template"
        if top.source == "scorer" and self.model is not None:
            model = self.model
            if model.reject is not None:
                # the rejection model decides, the out-of-scope class's lead over the top in-scope
                # intent being one of its features (``oos_gap``); only the in-scope top has a confidence
                lead = next((m for m in ranked if m.source == "scorer" and m.confidence is not None), None)
                if lead is None:
                    return None, True, False
                oos = lead.confidence < model.reject.cut(top.intent == model.oos_label)  # type: ignore[operator]
                top = lead
            elif top.intent == model.oos_label:
                oos = True
            else:
                oos = top.score < model.threshold
            margin = self.margin if self.margin is not None else (model.margin or 0.0)
            rival = next((m for m in ranked if m is not top and m.intent != model.oos_label), None)
            amb = rival is not None and top.score - rival.score < margin
            return (None if oos else top.intent), oos, (amb and not oos)
        return top.intent, False, len(ranked) > 1 and ranked[1].score == top.score
