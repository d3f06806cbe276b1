"""A longest-match table of normalised words (dict look-ups, no regex alternation).

A regex alternation of a few hundred words tries every alternative at every
position; a table keyed by the first character and probed by length costs a few
dict look-ups per position, which keeps :func:`hermesd.dialogue.reader.read_answer`
well under its 100 µs budget. Latin words match only at word boundaries ("no" is
not in "now"); Chinese words match anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Mapping

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
        """``(position, word)`` of every non-overlapping word, left to right."""
        i, n = start, len(text)
        lens = self.lens
        while i < n:
            ch = text[i]
            # inside a Latin word nothing can start (words match on boundaries): skip the probe
            inside = i > 0 and ch.isascii() and ch.isalnum() and _latin(text[i - 1])
            w = self.match(text, i) if ch in lens and not inside else None
            if w:
                yield i, w
                i += len(w)
            else:
                i += 1

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
