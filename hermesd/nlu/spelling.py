"""English words mistyped by one character, read as the pack's own word before scoring (pure).

"remnd me tomorow" has no feature of ``remind`` or ``tomorrow`` but a few character n-grams: the
scorer may still lean to the right intent, but too weakly to pass the out-of-scope rejection. A
Latin word the pack's examples never use (out of its vocabulary) of :data:`MIN_CHARS` letters or
more is replaced by the one vocabulary word at optimal-string-alignment distance 1 (one letter
substituted, inserted, deleted, or two adjacent ones swapped: Damerau 1964, *CACM* 7(3)) — when
exactly one is so near; two equally near words are no guess at all, and a shorter word ("cal",
"null": call, can, car; full) is too easily one letter from several, or a real word one letter from
another. A real word the pack never saw can still be one letter from a pack word ("waiter": water,
"lonely": lovely), so the parser reads the corrected text only when the utterance as typed is out
of scope, and keeps that reading only when it is in scope (:func:`hermesd.nlu.parser.parse`). Candidates are found through the words'
single-deletion variants (the symmetric-delete index of SymSpell, Garbe 2012), so a lookup costs a
few dictionary probes, not a pass over the vocabulary. Only the scorer reads the corrected text:
spans, times and entities are still the utterance's own.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from .. import lazyre

__all__ = ["MIN_CHARS", "Speller", "osa_distance"]

#: shortest word that is corrected (and shortest vocabulary word it is corrected to)
MIN_CHARS = 5
_WORD = lazyre.compile(r"[a-z]+")


def osa_distance(a: str, b: str, limit: int = 2) -> int:
    """Optimal string alignment distance of ``a`` and ``b`` (substitution, insertion, deletion,
    adjacent transposition), capped at ``limit``."""
    if abs(len(a) - len(b)) >= limit:
        return limit
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return min(prev[-1], limit)


def _deletes(w: str) -> set[str]:
    return {w[:i] + w[i + 1:] for i in range(len(w))}


class Speller:
    """One-edit corrections of out-of-vocabulary English words against a vocabulary.

    :param words: the words a typo is read as (lower-case Latin words; others are ignored).
    :param known: more words that are never corrected (nor corrected to); ``words`` are known too.
    """

    __slots__ = ("_words", "_index")

    def __init__(self, words: Iterable[str], known: Iterable[str] = ()) -> None:
        targets = frozenset(w for w in words if w.isascii() and w.isalpha())
        self._words = targets | frozenset(known)
        index: dict[str, set[str]] = defaultdict(set)
        for w in targets:
            if len(w) >= MIN_CHARS:
                index[w].add(w)
                for d in _deletes(w):
                    index[d].add(w)
        self._index = dict(index)

    def word(self, w: str) -> str | None:
        """The one vocabulary word at distance 1 from ``w`` (out of the vocabulary, :data:`MIN_CHARS`
        letters or more), or None."""
        if w in self._words or len(w) < MIN_CHARS:
            return None
        near: set[str] = set()
        for key in _deletes(w) | {w}:
            near |= self._index.get(key, set())
        near = {c for c in near if osa_distance(w, c) == 1}
        return next(iter(near)) if len(near) == 1 else None

    def correct(self, text: str) -> str:
        """``text`` (normalised, lower case) with each correctable word replaced; the same text
        when none is."""
        if not self._words:
            return text
        return _WORD.sub(lambda m: self.word(m.group()) or m.group(), text)
