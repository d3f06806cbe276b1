"""Which clause of a long utterance is the request, and so which of its times is the request's (pure).

A person often says what happened before saying what they want: "昨天开会的时候老板说了，明天下午三点提醒我交
报告", "I was at the dentist yesterday, remind me tomorrow at 3 to call her". Both hold two times; the one
the request is about is the one in the clause that carries the request's verb — the intent's keywords
(提醒, remind, 发给, send …) — and the others are context: when it happened, not when to act. A clause is
cut at punctuation and at the English conjunctions that start a new clause (so, but, because, then).

:func:`request_times` orders the times of an utterance for a request: those of the request clause first,
the others after them in the order said, and gives the spans of the context clauses that hold a time of
their own (a different event, so no part of a reminder's task). Nothing changes unless exactly one clause
carries a keyword, that clause holds a time, and another clause holds another one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .. import lazyre
from ..nlu.normalize import Normalized, normalize

__all__ = ["RequestTimes", "clause_spans", "request_times"]

_BREAK = lazyre.compile(r"[,，;；。!！?？…]+|\s+(?:so|but|because|then|and\s+then)\s+", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class RequestTimes:
    """:param order: indices into the time spans given, the request clause's first (the request's time
    is ``order[0]``). :param context: spans (original text) of the clauses outside the request clause
    that hold a time of their own. :param clause: the request clause's span (original text), or None
    when no single clause carries the request."""

    order: tuple[int, ...]
    context: tuple[tuple[int, int], ...] = ()
    clause: tuple[int, int] | None = None


def clause_spans(text: str) -> list[tuple[int, int]]:
    """Spans of ``text``'s clauses (cut at punctuation and at so / but / because / then), blanks trimmed.

    >>> clause_spans("昨天开会，明天提醒我")
    [(0, 4), (5, 10)]
    """
    out, pos = [], 0
    for m in [*_BREAK.finditer(text), None]:
        end = m.start() if m is not None else len(text)
        a, b = pos, end
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            out.append((a, b))
        if m is not None:
            pos = m.end()
    return out


def _carries(clause: str, keywords: Sequence[str]) -> bool:
    for k in keywords:
        if k.isascii():
            if re.search(rf"(?<![a-z0-9']){re.escape(k)}(?![a-z0-9'])", clause):
                return True
        elif k in clause:
            return True
    return False


def request_times(text: str | Normalized, time_spans: Sequence[tuple[int, int]],
                  keywords: Iterable[str]) -> RequestTimes:
    """The times of ``text`` in the order a request reads them (see the module docstring).

    :param text: the utterance as typed (or its :class:`Normalized` form).
    :param time_spans: ``(start, end)`` of each time phrase in the original text, in the order said.
    :param keywords: the intent's keywords (any case; matched on the normalised text, English ones as words).
    :return: a :class:`RequestTimes`; ``order`` is ``0, 1, …`` when nothing changes.

    >>> r = request_times("I was at the dentist yesterday, remind me tomorrow at 3", [(21, 30), (42, 55)], ["remind"])
    >>> r.order, r.context
    ((1, 0), ((0, 30),))
    """
    norm = text if isinstance(text, Normalized) else normalize(text)
    same = RequestTimes(tuple(range(len(time_spans))))
    if len(time_spans) < 2:
        return same
    words = [w for w in dict.fromkeys(normalize(k).text.strip().lower() for k in keywords) if w]
    t = norm.text.lower()
    spans = clause_spans(t)
    carrying = [c for c in spans if _carries(t[c[0]:c[1]], words)]
    if len(carrying) != 1:
        return same
    ca, cb = carrying[0]
    where = []
    for s, e in time_spans:
        a, b = norm.nspan(s, e)
        where.append(next((i for i, (x, y) in enumerate(spans) if x <= a < y), None))
    k = spans.index(carrying[0])
    inside = [i for i, w in enumerate(where) if w == k]
    outside = [i for i, w in enumerate(where) if w != k]
    if not inside or not outside:
        return same
    context = tuple(norm.span(*spans[w]) for w in dict.fromkeys(where[i] for i in outside) if w is not None)
    return RequestTimes(tuple(inside + outside), context, norm.span(ca, cb))
