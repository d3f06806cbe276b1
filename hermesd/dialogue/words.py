"""A longest-match table of normalised words (dict look-ups, no regex alternation).

A regex alternation of a few hundred words tries every alternative at every
position; a table keyed by the first character and probed by length costs a few
dict look-ups per position, which keeps :func:`hermesd.dialogue.reader.read_answer`
well under its 100 µs budget. Latin words match only at word boundaries ("no" is
not in "now"); Chinese words match anywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping

from ..nlu.termtrie import longest_term_pattern

__all__ = ["Words", "bounded"]


def _latin(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def bounded(text: str, start: int, end: int) -> bool:
    """True when ``text[start:end]`` does not cut a Latin word or number in two."""
    if start > 0 and _latin(text[start]) and _latin(text[start - 1]):
        return False
    return not (end < len(text) and _latin(text[end - 1]) and _latin(text[end]))


@dataclass(frozen=True, slots=True)
class Words:
    """Words → the kinds they carry (an entry may carry several: 是 is affirm and a filler).

    :param kinds: normalised word → kinds, in the order they were added.
    :param lens: first character → the lengths of the words starting with it, longest first.
    :param longest: length of the longest word.
    """

    kinds: Mapping[str, tuple[str, ...]]
    lens: Mapping[str, tuple[int, ...]]
    longest: int = 0
    #: the words' trie as one pattern (:meth:`finditer`), compiled at its first use
    _rx: list[re.Pattern[str] | None] = field(default_factory=list, compare=False, repr=False)

    @classmethod
    def build(cls, pairs: Iterable[tuple[str, str]]) -> "Words":
        """From ``(word, kind)`` pairs; a word with an apostrophe also matches without it."""
        kinds: dict[str, list[str]] = {}
        for word, kind in pairs:
            for w in {word, word.replace("'", "")}:
                if w and kind not in kinds.setdefault(w, []):
                    kinds[w].append(kind)
        lens: dict[str, set[int]] = {}
        for w in kinds:
            lens.setdefault(w[0], set()).add(len(w))
        return cls({w: tuple(k) for w, k in kinds.items()},
                   {c: tuple(sorted(n, reverse=True)) for c, n in lens.items()},
                   max(map(len, kinds), default=0))

    def match(self, text: str, pos: int = 0) -> str | None:
        """The longest word starting at ``pos`` (on word boundaries), or None."""
        lens = self.lens.get(text[pos:pos + 1])
        if not lens:
            return None
        for n in lens:
            w = text[pos:pos + n]
            if len(w) == n and w in self.kinds and bounded(text, pos, pos + n):
                return w
        return None

    def finditer(self, text: str, start: int = 0) -> Iterator[tuple[int, str]]:
        """``(position, word)`` of every non-overlapping word, left to right: at each position the
        longest word that starts and ends on a word boundary, the scan going on after it.

        One pattern, the words' trie, does the scan (:func:`hermesd.nlu.termtrie.longest_term_pattern`): a position is read one
        character per trie node, in ``re``, instead of a dict probe per length in Python (a third of
        the instructions of a turn's eight scans went to the probes)."""
        if not self._rx:
            self._rx.append(longest_term_pattern(self.kinds, word="A-Za-z0-9"))
        rx = self._rx[0]
        if rx is None:
            return iter(())
        return ((m.start(), m.group()) for m in rx.finditer(text, start))

    def search(self, text: str, start: int = 0) -> tuple[int, str] | None:
        """The first word at or after ``start``, or None."""
        return next(self.finditer(text, start), None)

    def suffix(self, text: str) -> str | None:
        """The longest word ``text`` ends with (on a word boundary), or None."""
        n = len(text)
        for i in range(max(0, n - self.longest), n):
            w = text[i:]
            if w in self.kinds and bounded(text, i, n):
                return w
        return None
