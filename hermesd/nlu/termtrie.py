"""One regex that finds, at each position, the longest of a set of terms: the terms' trie (pure).

Shared by the entity gazetteers (:mod:`hermesd.nlu.entities`) and the dialogue word scanner
(:mod:`hermesd.dialogue.words`).
"""

from __future__ import annotations

import re
from typing import Any, Iterable

__all__ = ["longest_term_pattern"]


def longest_term_pattern(terms: Iterable[str], word: str = "a-z0-9") -> re.Pattern[str] | None:
    """The pattern of ``terms``' trie (``n(?:ew(?: york(?: city(?![a-z0-9])|(?![a-z0-9]))|…)|…)``), or None
    without terms.

    At a node the longer terms are tried before the one that ends there, so a position's match is the
    one an alternation of the terms sorted longest first gives (the terms matching at one position are
    prefixes of one another, and depth first is longest first), while a position is read one character
    per node instead of trying every term that starts with its character (the place names of
    :mod:`hermesd.nlu.zones`, 597 terms: seventeen times faster on a 30-character utterance than the
    sorted alternation, the same matches). A term that starts with an
    ASCII letter or digit does not start inside a word, one that ends with one does not end inside one.
    The word-start test comes after the term's first character (``q(?<![a-z0-9]q)uote``, the same test
    as ``(?<![a-z0-9])quote``): every branch starts with a literal, so ``re`` skips to the positions
    holding one of the terms' first characters.

    :param word: the character class (without brackets) of a word's characters: ``a-z0-9`` for text
        already lower-cased, ``A-Za-z0-9`` for text as said.
    """
    trie: dict[str, Any] = {}
    for t in terms:
        if t:
            node = trie
            for ch in t:
                node = node.setdefault(ch, {})
            node[""] = t  # a term ends here
    if not trie:
        return None

    def latin(ch: str) -> bool:
        return ch.isascii() and ch.isalnum()

    def branch(node: dict[str, Any], head: bool) -> str:
        alts = []
        for ch, sub in sorted((kv for kv in node.items() if kv[0]), key=lambda kv: kv[0]):
            e = re.escape(ch)
            if head and latin(ch):
                e += f"(?<![{word}]" + re.escape(ch) + ")"
            alts.append(e + branch(sub, False))
        if "" in node:  # after every longer term
            alts.append(f"(?![{word}])" if latin(node[""][-1]) else "")
        return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"

    return re.compile(branch(trie, True))
