"""Regular expressions compiled at their first use instead of at import (standard library only).

Why: the daemon's modules define ~340 patterns at module level, and compiling them (``re``'s
parser and code generator, in Python) held up READY: the daemon's CPU at READY went from 420 to
370 ms with them lazy (410 to 350 ms pinned to one CPU; ``scripts/bench/footprint.py --against``).
A :class:`LazyRe` costs nothing at import; it is compiled when a text first needs it, or by
:func:`compile_pending`, which the daemon runs a few patterns at a time once it serves (so the
first turns rarely wait for one). A call through it costs a slot read more than through the
compiled pattern (~40–90 ns).

    _WORD = lazyre.compile(r"\\w+", re.I)    # as re.compile, nothing compiled yet
    _WORD.search(text)                       # compiled now; from then on the pattern's own method
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["LazyRe", "compile", "compile_pending", "pending"]

#: what :class:`LazyRe` keeps from the compiled pattern once used (then read as plain slots)
_COPIED = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner",
           "flags", "groups", "groupindex")
_SLOTS = frozenset(_COPIED)

#: every :class:`LazyRe` not compiled yet, in creation order (:func:`compile_pending` empties it)
_PENDING: list["LazyRe"] = []


class LazyRe:
    """A ``re.Pattern`` that is compiled at its first use.

    :param pattern: the regex, a ``str``; read as ``.pattern`` without compiling (patterns built
        from other patterns' text stay lazy).
    :param flags: ``re`` flags, as for :func:`re.compile`.

    Every attribute of :class:`re.Pattern` is there. A method (``search``, ``sub`` …) or ``flags``,
    ``groups``, ``groupindex`` is looked up on the compiled pattern at its first use here and kept
    in a slot, so later uses are a slot read (only what is used is kept: a bound method is an
    object); anything else is forwarded. :meth:`compiled` is the ``re.Pattern`` itself (for an API
    that wants one, such as :func:`re.sub`'s first argument). Compiling twice in a race is harmless
    (``re``'s cache gives the same pattern).

    :raises re.error: the pattern is invalid, at its first use (where ``re.compile`` raised at import).
    """

    __slots__ = ("pattern", "_flags", "_rx", *_COPIED)

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags
        self._rx: re.Pattern[str] | None = None
        _PENDING.append(self)

    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if it is not yet)."""
        rx = self._rx
        if rx is None:
            rx = self._rx = re.compile(self.pattern, self._flags)
        return rx

    def __getattr__(self, name: str) -> Any:
        # reached only for a slot not set yet (its first use) or a name that is not a slot
        value = getattr(self.compiled(), name)
        if name in _SLOTS:
            setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"lazyre.compile({self.pattern!r}{f', {self._flags}' if self._flags else ''})"


def compile(pattern: str, flags: int = 0) -> LazyRe:  # noqa: A001 - re.compile's name, on purpose
    """A :class:`LazyRe` of ``pattern`` and ``flags`` (nothing is compiled now)."""
    return LazyRe(pattern, flags)


def pending() -> int:
    """How many patterns made so far are not compiled yet."""
    return sum(rx._rx is None for rx in _PENDING)


def compile_pending(limit: int) -> int:
    """Compile up to ``limit`` of the patterns no text has needed yet, oldest first.

    :return: how many are left (0: every pattern made so far is compiled, or is invalid and
        raises :class:`re.error` where it is used).
    """
    while _PENDING and limit > 0:
        rx = _PENDING.pop(0)
        if rx._rx is None:
            limit -= 1
            try:
                rx.compiled()
            except re.error:  # raised again where the pattern is used, as re.compile's would be
                pass
    while _PENDING and _PENDING[0]._rx is not None:
        _PENDING.pop(0)
    return pending()
