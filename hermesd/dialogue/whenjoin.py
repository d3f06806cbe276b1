"""A day and a clock time said in two answers to one form, read as one time (pure).

People answer "什么时候提醒你？" / "when should I remind you?" in pieces: 明天 first, 下午三点 when asked
again (or to the next question); "tomorrow", then "at 3pm"; or the other way round, 下午三点 then 明天.
The later answer does not replace the earlier one — each says what the other left out (the day, the
clock time), as the two parts of 明天下午三点 do in one utterance. :func:`join_when` puts them together:
the day's words first, then the clock time's (明天 + 下午三点 → 明天下午三点, "at 3pm" + "tomorrow" →
"tomorrow at 3pm"), read again by :func:`hermesd.nlu.temporal.parse_times` against the form's reference
instant — so every rule of one utterance holds (a bare 3点 on 明天, 晚上 as a part of the day).

A day is a time expression of day grain (明天, 周五, 12月18号, "Friday"); a clock time one of an hour,
minute, second or part-of-day grain that names no day of its own (下午三点, "at 3pm", 晚上). A later clock
time that names its day (明天下午三点), or two days (不是明天，是后天), or two clock times replace the
earlier value as before.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping
from zoneinfo import ZoneInfo

from ..nlu.temporal import parse_times
from .split import names_day

__all__ = ["join_when"]

_CLOCK_GRAINS = frozenset({"hour", "minute", "second", "part_of_day"})
_KINDS = frozenset({"date", "datetime", "range"})


def _cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff"


def _is_day(v: Mapping[str, Any]) -> bool:
    return v.get("kind") in _KINDS and v.get("grain") == "day" and bool(v.get("start")) and bool(v.get("text"))


def _is_clock(v: Mapping[str, Any]) -> bool:
    text = str(v.get("text") or "")
    return v.get("kind") in _KINDS and v.get("grain") in _CLOCK_GRAINS and bool(text) and not names_day(text)


def join_when(earlier: Any, later: Any, ref: datetime, tz: ZoneInfo | str) -> dict[str, Any] | None:
    """The one time two answers say together, or None when they do not complement each other.

    :param earlier: the form's value so far (a time expression dict, :meth:`hermesd.nlu.temporal.TimeExpr.to_dict`).
    :param later: the value the new answer gives the same slot (same shape).
    :param ref: the form's reference instant (aware); :param tz: the session's zone.
    :return: the joined expression's dict (its ``text`` the day's words then the clock time's), or None: not a
        day and a clock time, or the joined words do not read as one time finer than a day.
    """
    if not isinstance(earlier, Mapping) or not isinstance(later, Mapping):
        return None
    if _is_day(earlier) and _is_clock(later):
        day, clock = earlier, later
    elif _is_clock(earlier) and _is_day(later):
        day, clock = later, earlier
    else:
        return None
    a, b = str(day["text"]).strip(), str(clock["text"]).strip()
    text = f"{a}{b}" if a and b and _cjk(a[-1]) and _cjk(b[0]) else f"{a} {b}"
    found = parse_times(text, ref, tz)
    if len(found) != 1:
        return None
    x = found[0]
    if x.kind not in _KINDS or x.grain not in _CLOCK_GRAINS or x.span[0] > 0 or x.span[1] < len(text) - 1:
        return None
    return x.to_dict()
