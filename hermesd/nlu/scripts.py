"""Which scripts a regex's every match must contain, so a text without them is not scanned (pure).

A parse runs some ninety time-expression patterns (:mod:`.temporal_atoms`); most are Chinese-only,
English-only or need a digit. :func:`needed_scripts` reads a compiled pattern's syntax tree (the
``re`` module's own parser) and returns the scripts — ``cjk``, ``digit``, ``latin`` — of which
*every* non-empty match contains at least one character; :func:`scripts_of` says which of them a text
has. When a pattern needs a script the text lacks it has no match there, so skipping it changes
nothing: the prefilter is exact, not a heuristic. Whatever the analysis does not understand (a
case-insensitive flag, a back-reference, a negated class, an unknown opcode) needs nothing, so
the pattern always runs.

Rules, for a node of the tree: a literal or a class all of whose characters lie in one script
needs that script; a sequence needs the union of what its items need; an alternation the
intersection over its branches; a repeat what its body needs when it repeats at least once, else
nothing; look-arounds, anchors and ``.`` need nothing (they consume no character of the match, or
any character).
"""

from __future__ import annotations

import re
from re import _constants as C  # noqa: PLC2701 - the opcodes of re's own parser (CPython ≥ 3.11)
from re import _parser as P  # noqa: PLC2701

__all__ = ["SCRIPTS", "needed_scripts", "scripts_of"]

#: script → the pattern that finds one of its characters in a text
_CJK_RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF))
_DIGIT = re.compile(r"\d")
SCRIPTS: dict[str, re.Pattern[str]] = {
    "cjk": re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]"),
    "digit": _DIGIT,
    "latin": re.compile(r"[A-Za-z]"),
}


def _script_of_range(lo: int, hi: int) -> str | None:
    """The one script every character in ``[lo, hi]`` belongs to, or None."""
    if any(a <= lo and hi <= b for a, b in _CJK_RANGES):
        return "cjk"
    if (0x41 <= lo and hi <= 0x5A) or (0x61 <= lo and hi <= 0x7A):
        return "latin"
    if hi - lo < 64 and all(_DIGIT.match(chr(c)) for c in range(lo, hi + 1)):
        return "digit"
    return None


def _charset(items: list) -> frozenset[str]:
    """What a character class (``IN``) needs: the script all its members share, else nothing."""
    found: set[str | None] = set()
    for op, av in items:
        if op is C.LITERAL:
            found.add(_script_of_range(av, av))
        elif op is C.RANGE:
            found.add(_script_of_range(*av))
        elif op is C.CATEGORY and av is C.CATEGORY_DIGIT:
            found.add("digit")
        else:  # NEGATE, another category, …: any script may match
            return frozenset()
    return frozenset(found) if len(found) == 1 and None not in found else frozenset()


def _seq(items) -> frozenset[str]:
    out: set[str] = set()
    for op, av in items:
        out |= _node(op, av)
    return frozenset(out)


def _node(op, av) -> frozenset[str]:
    if op is C.LITERAL:
        s = _script_of_range(av, av)
        return frozenset((s,)) if s else frozenset()
    if op is C.IN:
        return _charset(av)
    if op is C.SUBPATTERN:
        _group, add_flags, _del, sub = av
        return frozenset() if add_flags & C.SRE_FLAG_IGNORECASE else _seq(sub)
    if op is C.BRANCH:
        needs = [_seq(alt) for alt in av[1]]
        return frozenset.intersection(*needs) if needs else frozenset()
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        lo, _hi, sub = av
        return _seq(sub) if lo >= 1 else frozenset()
    if op is C.ATOMIC_GROUP:
        return _seq(av)
    if op is C.GROUPREF_EXISTS:
        _group, yes, no = av
        return _seq(yes) & (_seq(no) if no is not None else frozenset())
    return frozenset()  # AT, ASSERT, ASSERT_NOT, ANY, NOT_LITERAL, GROUPREF, …: nothing required


def needed_scripts(rx: re.Pattern[str]) -> frozenset[str]:
    """Scripts (keys of :data:`SCRIPTS`) of which every non-empty match of ``rx`` has a character.

    :param rx: a compiled ``str`` pattern. :return: e.g. ``{"cjk", "digit"}`` for ``(\\d+)点``;
        empty when nothing can be said (then the pattern must always run).
    """
    if rx.flags & re.IGNORECASE or not isinstance(rx.pattern, str):
        return frozenset()
    return _seq(P.parse(rx.pattern, rx.flags))


def scripts_of(text: str) -> frozenset[str]:
    """The scripts of :data:`SCRIPTS` that ``text`` has at least one character of."""
    return frozenset(k for k, rx in SCRIPTS.items() if rx.search(text))
