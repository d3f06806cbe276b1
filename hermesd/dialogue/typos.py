"""A name of a known kind mistyped by one character: "报家单" for 报价单, "qoute" for quote (pure).

When a request names no known document kind, the words may still be one of them typed wrong. A
stretch of the utterance at edit distance 1 (one character substituted, inserted, deleted, or two
adjacent ones swapped: the optimal-string-alignment distance of Damerau 1964, *CACM* 7(3)) from a
name of three characters or more is taken as that name when it is the only kind so near — never
acted on: the person is asked ("是说报价单吗？"). Shorter names (合同, 周报) are too easily one
character away from ordinary words to guess at; two kinds equally near are no guess at all.
"""

from __future__ import annotations

from collections.abc import Mapping

from .. import lazyre
from ..nlu.spelling import osa_distance

__all__ = ["near_name", "osa_distance"]

MIN_CHARS = 3
_CJK = lazyre.compile(r"[\u4e00-\u9fff]")
_WORD = lazyre.compile(r"[a-z]+")



def near_name(text: str, names: Mapping[str, str]) -> tuple[str, str] | None:
    """The stretch of ``text`` one edit away from a known name, and that name: ``(said, name)``, or None.

    :param text: the utterance, normalised and lower case. :param names: name → its canonical value
        (a gazetteer: 报价单 → quote); a text that holds a name exactly has no typo.
    :return: e.g. ``("报家单", "报价单")`` for "把报家单发给王芳"; None when no name of
        :data:`MIN_CHARS` or more is one edit away, or names of two different values are.

    >>> near_name("把报家单发给王芳", {"报价单": "quote", "合同": "contract"})
    ('报家单', '报价单')
    >>> near_name("把报价单发给王芳", {"报价单": "quote"}) is None
    True
    """
    t = text.lower()
    if any(n.lower() in t for n in names):
        return None
    hits: dict[str, tuple[str, str]] = {}
    words = _WORD.findall(t)
    for name, value in names.items():
        n = name.lower()
        if len(n) < MIN_CHARS:
            continue
        if _CJK.search(n):
            for size in (len(n) - 1, len(n), len(n) + 1):
                for i in range(0, max(len(t) - size + 1, 0)):
                    piece = t[i:i + size]
                    if size >= MIN_CHARS and _CJK.match(piece) and _CJK.search(piece[-1]) \
                            and osa_distance(piece, n) == 1:
                        hits.setdefault(value, (text[i:i + size], name))
        elif " " not in n and len(n) >= 4:
            for w in words:
                if len(w) >= 4 and osa_distance(w, n) == 1:
                    hits.setdefault(value, (w, name))
    return next(iter(hits.values())) if len(hits) == 1 else None
