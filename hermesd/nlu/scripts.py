"""What a regex's every match must contain or begin with, so a text without it is not scanned (pure).

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

:func:`first_chars` bounds, the same way, the characters a non-empty match can begin with (the
FIRST set of the pattern's grammar: an item's, then the next item's while the items before can
match empty); a text holding none of them has no match either. Both are small cases of the
prefilters regex engines such as RE2 build (what a match must contain), on ``re``'s own trees.

:func:`first_pairs` goes one character further: the two-character strings a match can begin with
(a one-character string for a match of one character). Latin text has nearly every letter, so a first
character rules out little there; the first two rule out most English patterns and keywords.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Iterable, Iterator
from re import _constants as C  # noqa: PLC2701 - the opcodes of re's own parser (CPython ≥ 3.11)
from re import _parser as P  # noqa: PLC2701

from .. import lazyre

__all__ = ["SCRIPTS", "First", "LazyPattern", "analysis_key", "export", "first_chars", "first_pairs",
           "needed_scripts", "prefilters", "required_strings", "scripts_of", "seed"]

#: script → the pattern that finds one of its characters in a text
_CJK_RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF))
_DIGIT = lazyre.compile(r"\d")
SCRIPTS: dict[str, re.Pattern[str]] = {
    "cjk": lazyre.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]"),
    "digit": _DIGIT,
    "latin": lazyre.compile(r"[A-Za-z]"),
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
    return prefilters(rx)[0]


def scripts_of(text: str) -> frozenset[str]:
    """The scripts of :data:`SCRIPTS` that ``text`` has at least one character of."""
    return frozenset(k for k, rx in SCRIPTS.items() if rx.search(text))


# ---- what a match can start with ----------------------------------------------------------------
#: a character class bigger than this is summed up by its script (or, failing that, by nothing)
_MAX_ENUM = 256


class First:
    """What a non-empty match can begin with: one of ``chars``, or any character of a script in
    ``scripts``. :meth:`possible` is False only when the text holds none of them — then the
    pattern has no match there (a match begins with the first character it consumes)."""

    __slots__ = ("chars", "scripts")

    def __init__(self, chars: frozenset[str], scripts: frozenset[str]) -> None:
        self.chars, self.scripts = chars, scripts

    def possible(self, chars: frozenset[str] | set[str], scripts: frozenset[str]) -> bool:
        """:param chars: the text's characters. :param scripts: :func:`scripts_of` the text."""
        return not (self.chars.isdisjoint(chars) and self.scripts.isdisjoint(scripts))


class _Unknown(Exception):
    """The analysis cannot bound what the node starts with."""


def _first_in(items: list) -> tuple[set[str], set[str]]:
    chars: set[str] = set()
    scripts: set[str] = set()
    for op, av in items:
        if op is C.LITERAL:
            chars.add(chr(av))
        elif op is C.RANGE:
            lo, hi = av
            if hi - lo < _MAX_ENUM:
                chars.update(chr(c) for c in range(lo, hi + 1))
            else:
                s = _script_of_range(lo, hi)
                if s is None:
                    raise _Unknown
                scripts.add(s)
        elif op is C.CATEGORY and av is C.CATEGORY_DIGIT:
            scripts.add("digit")
        else:
            raise _Unknown
    return chars, scripts


def _first_seq(items) -> tuple[set[str], set[str], bool]:
    """``(chars, scripts, nullable)`` of a sequence: what its first consumed character can be, and
    whether it can match the empty string (over-approximated: True when unsure)."""
    chars: set[str] = set()
    scripts: set[str] = set()
    for op, av in items:
        c, s, nullable = _first_node(op, av)
        chars |= c
        scripts |= s
        if not nullable:
            return chars, scripts, False
    return chars, scripts, True


def _first_node(op, av) -> tuple[set[str], set[str], bool]:
    if op is C.LITERAL:
        return {chr(av)}, set(), False
    if op is C.IN:
        if av and av[0][0] is C.NEGATE:
            raise _Unknown
        c, s = _first_in(av)
        return c, s, False
    if op is C.SUBPATTERN:
        _group, add_flags, _del, sub = av
        if add_flags & C.SRE_FLAG_IGNORECASE:
            raise _Unknown
        return _first_seq(sub)
    if op is C.BRANCH:
        chars: set[str] = set()
        scripts: set[str] = set()
        nullable = False
        for alt in av[1]:
            c, s, n = _first_seq(alt)
            chars |= c
            scripts |= s
            nullable = nullable or n
        return chars, scripts, nullable
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        lo, _hi, sub = av
        c, s, n = _first_seq(sub)
        return c, s, n or lo == 0
    if op is C.ATOMIC_GROUP:
        return _first_seq(av)
    if op is C.GROUPREF_EXISTS:
        _group, yes, no = av
        c, s, n = _first_seq(yes)
        if no is None:
            return c, s, True
        c2, s2, n2 = _first_seq(no)
        return c | c2, s | s2, n or n2
    if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
        return set(), set(), True  # consumes nothing
    raise _Unknown  # ANY, NOT_LITERAL, GROUPREF, a category outside a class, …


def first_chars(rx: re.Pattern[str]) -> First | None:
    """What every non-empty match of ``rx`` begins with, or None when it cannot be bounded.

    ``(上|下)?周(\\d)`` → chars 上 下 周; ``(\\d+)点`` → the digit script; ``.x`` → None.
    """
    return prefilters(rx)[1]


def prefilters(rx: "re.Pattern[str] | LazyPattern") -> tuple[frozenset[str], First | None]:
    """``(needed_scripts(rx), first_chars(rx))`` from one parse of the pattern (a parse costs about
    as much as a third of ``re.compile``; the time atoms register some ninety patterns at import)."""
    if isinstance(rx, LazyPattern):
        return rx.needs, rx.first
    if rx.flags & re.IGNORECASE or not isinstance(rx.pattern, str):
        return frozenset(), None
    return _prefilters(P.parse(rx.pattern, rx.flags))


def _prefilters(tree: P.SubPattern) -> tuple[frozenset[str], First | None]:
    if tree.state.flags & re.IGNORECASE:
        return frozenset(), None
    try:
        chars, scripts, _ = _first_seq(tree)
        first: First | None = First(frozenset(chars), frozenset(scripts))
    except _Unknown:
        first = None
    return _seq(tree), first


# ---- what a match can start with, two characters -----------------------------------------------
#: more two-character beginnings than this and the pattern is left to :func:`first_chars`
_MAX_PAIRS = 2048


def _concat(heads: set[str], tails: set[str], depth: int) -> set[str]:
    """The first ``depth`` characters of each head followed by each tail (a head that long is complete)."""
    out = {h for h in heads if len(h) >= depth}
    for h in heads:
        if len(h) < depth:
            out.update((h + t)[:depth] for t in tails)
    if len(out) > _MAX_PAIRS:
        raise _Unknown
    return out


def _pairs_seq(items, depth: int = 2) -> set[str]:
    """The first ``depth`` characters of every match of a sequence (fewer: the whole of a shorter
    match). Each item is read only as deep as the shortest unfinished beginning still needs."""
    acc = {""}
    for op, av in items:
        short = min(map(len, acc))
        if short >= depth:
            break  # what follows can no longer change the first characters
        acc = _concat(acc, _pairs_node(op, av, depth - short), depth)
    return acc


def _pairs_node(op, av, depth: int) -> set[str]:
    if op is C.LITERAL:
        return {chr(av)}
    if op is C.IN:
        if av and av[0][0] is C.NEGATE:
            raise _Unknown
        chars, scripts = _first_in(av)
        if scripts:  # \d, a CJK range: too many characters to list
            raise _Unknown
        return chars
    if op is C.SUBPATTERN:
        _group, add_flags, _del, sub = av
        if add_flags & C.SRE_FLAG_IGNORECASE:
            raise _Unknown
        return _pairs_seq(sub, depth)
    if op is C.BRANCH:
        out: set[str] = set()
        for alt in av[1]:
            out |= _pairs_seq(alt, depth)
        return out
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        lo, hi, sub = av
        body = _pairs_seq(sub, depth)
        out = {""} if lo == 0 else set()
        acc = {""}
        # past two more repeats nothing new begins a match: a non-empty body has already given two
        # characters, an empty one only repeats what came before
        for k in range(1, min(hi, lo + 3) + 1):
            acc = _concat(acc, body, depth)
            if k >= lo:
                out |= acc
        return out
    if op is C.ATOMIC_GROUP:
        return _pairs_seq(av, depth)
    if op is C.GROUPREF_EXISTS:
        _group, yes, no = av
        return _pairs_seq(yes, depth) | (_pairs_seq(no, depth) if no is not None else {""})
    if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
        return {""}  # consumes nothing
    raise _Unknown  # ANY, NOT_LITERAL, GROUPREF, a category outside a class, …


def _pairs_of(tree: P.SubPattern) -> frozenset[str] | None:
    if tree.state.flags & re.IGNORECASE:
        return None
    try:
        pairs = _pairs_seq(tree)
    except _Unknown:
        return None
    return frozenset(pairs)


def first_pairs(rx: "re.Pattern[str] | LazyPattern") -> frozenset[str] | None:
    """What every match of ``rx`` begins with, two characters at a time, or None when it cannot be
    bounded (a class of a whole script such as ``\\d``, ``.``, a negated class, a case-insensitive flag).

    :return: strings of two characters (the first two of a match), of one (a whole one-character
        match) and ``""`` when ``rx`` can match the empty string. ``(上|下)?周`` → 上周 下周 周;
        ``(?<![a-z])(?:next )?week`` → ne we. A text holding none of them, as a substring, has no
        non-empty match of ``rx``.
    """
    if isinstance(rx, LazyPattern):
        return rx.pairs
    if rx.flags & re.IGNORECASE or not isinstance(rx.pattern, str):
        return None
    return _pairs_of(P.parse(rx.pattern, rx.flags))


# ---- what a match must contain, as strings -------------------------------------------------------
#: an alternation of more strings than this is no prefilter worth its checks
_MAX_REQUIRED = 64


def _better(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    """The more selective of two requirements: longer shortest string, then fewer strings."""
    if a is None:
        return b
    if b is None:
        return a
    ka, kb = (min(map(len, a)), -len(a)), (min(map(len, b)), -len(b))
    return b if kb > ka else a


def _required_seq(items) -> frozenset[str] | None:
    """Strings one of which every match of the sequence contains (each item, each run of literals
    is contained in every match; the most selective is kept), or None."""
    best: frozenset[str] | None = None
    run: list[str] = []
    for op, av in items:
        if op is C.LITERAL:
            run.append(chr(av))
            continue
        if run:
            best = _better(best, frozenset(("".join(run),)))
            run = []
        best = _better(best, _required_node(op, av))
    if run:
        best = _better(best, frozenset(("".join(run),)))
    return best


def _required_node(op, av) -> frozenset[str] | None:
    if op is C.SUBPATTERN:
        _group, add_flags, _del, sub = av
        return None if add_flags & C.SRE_FLAG_IGNORECASE else _required_seq(sub)
    if op is C.BRANCH:
        if len(av[1]) > _MAX_REQUIRED:
            return None
        out: set[str] = set()
        for alt in av[1]:
            r = _required_seq(alt)
            if r is None:
                return None  # a branch that needs nothing: the alternation needs nothing
            out |= r
            if len(out) > _MAX_REQUIRED:
                return None
        return frozenset(out)
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        lo, _hi, sub = av
        return _required_seq(sub) if lo >= 1 else None
    if op is C.ATOMIC_GROUP:
        return _required_seq(av)
    return None  # a class, a look-around (not part of the match), an anchor, ANY, …: no string


def _required_of(tree: P.SubPattern) -> frozenset[str] | None:
    return None if tree.state.flags & re.IGNORECASE else _required_seq(tree)


def required_strings(rx: "re.Pattern[str] | LazyPattern") -> frozenset[str] | None:
    """Strings of which every match of ``rx`` contains at least one, or None when none can be said.

    ``(?<![a-z])(?:this\\s+)?(monday|friday)`` → monday, friday; ``(\\d+)点`` → 点; ``x?y`` → y;
    ``\\d+`` → None. A text containing none of them has no match of ``rx``.
    """
    if isinstance(rx, LazyPattern):
        return rx.required
    if rx.flags & re.IGNORECASE or not isinstance(rx.pattern, str):
        return None
    return _required_of(P.parse(rx.pattern, rx.flags))


class LazyPattern:
    """A ``str`` regex read for its prefilters (:func:`prefilters`) when they are first asked for,
    and compiled at its first use: its syntax tree is what both the prefilters and ``re.compile``
    start from, and the compile (parse again, then generate code) of the time atoms' ~120 patterns
    was most of the NLU's import; a pattern no text has needed yet is never compiled. The
    prefilters come from a table of a compiled pack (:func:`seed`) when it has this pattern, else
    from reading the pattern (parse and analysis, ~0.3–1 ms each).

    Has the :class:`re.Pattern` attributes the analysis and the atom finder use: ``pattern``,
    ``flags`` (as ``re.compile`` would set them), ``finditer``, ``search``, ``match``; :meth:`compiled`
    is the pattern itself. Reading or compiling twice in a race is harmless (the same result).

    :raises re.error: the pattern is invalid (when its prefilters or the pattern are first needed,
        as ``re.compile`` would).
    """

    __slots__ = ("pattern", "_facts", "_rx")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._facts: _Facts | None = None
        self._rx: re.Pattern[str] | None = None

    def read(self) -> "_Facts":
        """The prefilters now: (flags, needs, first, pairs, required), read once."""
        facts = self._facts
        if facts is None:
            facts = _SEEDED.pop(self.pattern, None) or _facts_of(self.pattern)
            self._facts = facts
        return facts

    @property
    def analysed(self) -> bool:
        """Whether the prefilters are known (read, or taken from a table)."""
        return self._facts is not None

    @property
    def flags(self) -> int:
        return self.read()[0]

    @property
    def needs(self) -> frozenset[str]:
        """:func:`needed_scripts`."""
        return self.read()[1]

    @property
    def first(self) -> First | None:
        """:func:`first_chars`."""
        return self.read()[2]

    @property
    def pairs(self) -> frozenset[str] | None:
        """:func:`first_pairs`."""
        return self.read()[3]

    @property
    def required(self) -> frozenset[str] | None:
        """:func:`required_strings`."""
        return self.read()[4]

    def compiled(self) -> re.Pattern[str]:
        rx = self._rx
        if rx is None:
            rx = self._rx = re.compile(self.pattern)
        return rx

    def finditer(self, text: str, *args: int) -> Iterator[re.Match[str]]:
        return self.compiled().finditer(text, *args)

    def search(self, text: str, *args: int) -> re.Match[str] | None:
        return self.compiled().search(text, *args)

    def match(self, text: str, *args: int) -> re.Match[str] | None:
        return self.compiled().match(text, *args)


# ---- the prefilters of many patterns, computed ahead of time ---------------------------------------
#: (flags, needed scripts, first characters, first pairs, required strings) of one pattern
_Facts = tuple[int, frozenset[str], "First | None", "frozenset[str] | None", "frozenset[str] | None"]
#: pattern → its facts, from :func:`seed`; a :class:`LazyPattern` takes (pops) its own at first read
_SEEDED: dict[str, _Facts] = {}


def _facts_of(pattern: str) -> _Facts:
    tree = P.parse(pattern, 0)
    needs, first = _prefilters(tree)
    return tree.state.flags, needs, first, _pairs_of(tree), _required_of(tree)


def analysis_key() -> str:
    """What the prefilters of a pattern depend on besides its text: this module's source and the
    Python version (whose ``re`` parser makes the trees), as a hex SHA-256 prefix; a table made
    under another key is not used. "" when the source cannot be read (then no table is made or used)."""
    import hashlib
    from pathlib import Path

    try:
        src = Path(__file__).read_bytes()
    except OSError:
        return ""
    return hashlib.sha256(b"%d.%d\n" % sys.version_info[:2] + src).hexdigest()[:32]


def export(patterns: Iterable[LazyPattern]) -> dict[str, Any]:
    """The prefilters of ``patterns`` as JSON-ready data, for a compiled pack (:mod:`.artifact`).

    :return: ``{"key": analysis_key(), "patterns": {pattern: [flags, needs, first, pairs, required]}}``
        with sets as sorted lists, ``first`` as ``[chars, scripts]`` and None where a prefilter is
        unbounded; ``{}`` when there is no key.
    """
    key = analysis_key()
    if not key:
        return {}
    out: dict[str, list[Any]] = {}
    for rx in patterns:
        flags, needs, first, pairs, required = rx.read()
        out[rx.pattern] = [flags, sorted(needs), None if first is None else [sorted(first.chars), sorted(first.scripts)],
                           None if pairs is None else sorted(pairs), None if required is None else sorted(required)]
    return {"key": key, "patterns": out}


def _strset(v: Any) -> frozenset[str]:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise TypeError("expected a list of strings")
    return frozenset(v)


def seed(table: Any) -> int:
    """Take the prefilters of :func:`export`'s ``table`` for the patterns not read yet (those read
    already keep theirs; both are the same when the key matches). A table of another key, or one
    that is not such data, is ignored whole.

    :return: how many patterns the table gives (0 when it is ignored).
    """
    if not isinstance(table, dict) or not table.get("key") or table.get("key") != analysis_key():
        return 0
    got: dict[str, _Facts] = {}
    try:
        for pattern, (flags, needs, first, pairs, required) in table["patterns"].items():
            if not isinstance(flags, int) or isinstance(flags, bool):
                raise TypeError("flags")
            if first is not None:
                chars, scripts = first
                first = First(_strset(chars), _strset(scripts))
            got[pattern] = (flags, _strset(needs), first, None if pairs is None else _strset(pairs),
                            None if required is None else _strset(required))
    except (TypeError, ValueError, AttributeError, KeyError):
        return 0
    _SEEDED.clear()
    _SEEDED.update(got)
    return len(got)
