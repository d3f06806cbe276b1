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
import re
from collections import Counter
from typing import Mapping

__all__ = ["raw_features", "tfidf_vector", "vocab_units"]

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[\u3400-\u4dbf\u4e00-\u9fff]+")


def raw_features(text: str) -> Counter[str]:
    """Term counts of a normalised text (see :func:`hermesd.nlu.normalize.normalize`)."""
    f: Counter[str] = Counter()
    words: list[str] = []
    for tok in _TOKEN.findall(text):
        if tok[0].isascii():
            words.append(tok)
            w = "<" + tok + ">"
            for n in (3, 4):
                for i in range(len(w) - n + 1):
                    f["c" + w[i:i + n]] += 1
        else:
            words.append(tok)
            r = "<" + tok + ">"
            for n in (1, 2, 3):
                for i in range(len(r) - n + 1):
                    g = r[i:i + n]
                    if g not in ("<", ">"):
                        f["h" + g] += 1
    for w in words:
        f["w" + w] += 1
    for a, b in zip(words, words[1:]):
        f["b" + a + " " + b] += 1
    return f


def tfidf_vector(counts: Mapping[str, int], idf: Mapping[str, float]) -> dict[str, float]:
    """Sublinear TF-IDF, L2-normalised; features without an idf (unseen in training) are dropped."""
    v = {k: (1.0 + math.log(c)) * idf[k] for k, c in counts.items() if k in idf}
    n = math.sqrt(sum(a * a for a in v.values()))
    return {k: a / n for k, a in v.items()} if n else {}


def vocab_units(counts: Mapping[str, int]) -> list[str]:
    """The vocabulary units among a text's features (:func:`raw_features`): its words (Latin
    script) and its CJK character bigrams — the units of the out-of-scope ``coverage`` and
    ``unseen`` features (:mod:`.rejection`). A one-character CJK run has no bigram and no unit."""
    return [k for k in counts if (k[0] == "w" and k[1:2].isascii())
            or (k[0] == "h" and len(k) == 3 and "<" not in k and ">" not in k)]
