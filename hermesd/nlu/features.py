"""Sparse text features for the intent scorer (pure).

English and other Latin-script text: word unigrams and bigrams plus character
3- and 4-grams inside each word (with ``<``/``>`` word boundaries), which
carries morphology and typos (Cavnar & Trenkle 1994; the char-n-gram SVM
baseline of Larson et al. 2019). Chinese: character unigrams, bigrams and
trigrams over each CJK run (Chinese has no spaces; character bigrams are the
standard strong baseline, Li & Sun 2007). Values are sublinear TF-IDF,
L2-normalised (Salton & Buckley 1988).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Mapping

from .. import lazyre

__all__ = ["raw_features", "tfidf_vector", "vocab_units"]

_TOKEN = lazyre.compile(r"[a-z0-9]+(?:'[a-z]+)?|[\u3400-\u4dbf\u4e00-\u9fff]+")


def raw_features(text: str) -> Counter[str]:
    """Term counts of a normalised text (see :func:`hermesd.nlu.normalize.normalize`).

    Keys are listed in a fixed order (per token its n-grams, then words, then bigrams) and
    counted in one pass: the order is the scorer's summation order, so it is part of the result.
    """
    keys: list[str] = []
    words = _TOKEN.findall(text)
    for tok in words:
        if tok[0].isascii():
            w = "<" + tok + ">"
            keys += ["c" + w[i:i + 3] for i in range(len(w) - 2)]
            keys += ["c" + w[i:i + 4] for i in range(len(w) - 3)]
        else:
            r = "<" + tok + ">"
            keys += ["h" + c for c in tok]  # the 1-grams of r but its two boundary marks
            keys += ["h" + r[i:i + 2] for i in range(len(r) - 1)]
            keys += ["h" + r[i:i + 3] for i in range(len(r) - 2)]
    keys += ["w" + w for w in words]
    keys += ["b" + a + " " + b for a, b in zip(words, words[1:])]
    return Counter(keys)


#: 1 + ln(c) for the term counts a short text has (sublinear TF); the same floats math.log gives
_SUBLINEAR = tuple(1.0 + math.log(c) if c else 0.0 for c in range(64))


def tfidf_vector(counts: Mapping[str, int], idf: Mapping[str, float]) -> dict[str, float]:
    """Sublinear TF-IDF, L2-normalised; features without an idf (unseen in training) are dropped."""
    v = {}
    get = idf.get
    for k, c in counts.items():
        x = get(k)
        if x is not None:
            v[k] = (_SUBLINEAR[c] if c < 64 else 1.0 + math.log(c)) * x
    n = math.sqrt(sum([a * a for a in v.values()]))
    return {k: a / n for k, a in v.items()} if n else {}


def vocab_units(counts: Mapping[str, int]) -> list[str]:
    """The vocabulary units among a text's features (:func:`raw_features`): its words (Latin
    script) and its CJK character bigrams — the units of the out-of-scope ``coverage`` and
    ``unseen`` features (:mod:`.rejection`). A one-character CJK run has no bigram and no unit."""
    return [k for k in counts if (k[0] == "w" and k[1:2].isascii())
            or (k[0] == "h" and len(k) == 3 and "<" not in k and ">" not in k)]
