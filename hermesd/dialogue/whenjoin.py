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

An utterance that says only a time (十点, 上午十点吧, 下午三点呢, "at 6pm", "6pm please": :func:`time_alone`) asks
for nothing by itself: its words are a time and the particles and leads said around one (吧, 呢, 就, 在, "at",
"please"), so no action is read from it — an intent the classifier guesses from a bare number (十点 as "shut
down at ten") never runs. Said right after something was set at a time the person left without a clock time
(后天 → "the default time, 09:00"; :func:`clock_left_open`), it is the clock time that was missing, a repair
of that request; otherwise it is the time of something still to be said (the session asks what).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any, Mapping
from zoneinfo import ZoneInfo

from .. import lazyre
from ..nlu.temporal import parse_times
from .reminders import names_half_day  # the same rule a moved reminder's bare hour follows
from .split import names_day

__all__ = ["clock_left_open", "clock_on_day", "join_when", "names_clock", "time_alone"]

_CLOCK_GRAINS = frozenset({"hour", "minute", "second", "part_of_day"})
_KINDS = frozenset({"date", "datetime", "range"})
_EXACT_GRAINS = frozenset({"hour", "minute", "second"})
#: the entity types a time is said as (a one-off time, a repetition)
_TIME_TYPES = ("datetime", "recurrence")
#: what may stand around a time said alone: particles (吧 呢 啊 …), the leads of a time (就 / 在 / 那就 / 定在,
#: "at" / "on" / "around" / "how about"), politeness and hesitation (请, "please", "um"), punctuation
_AROUND_TIME = lazyre.compile(
    r"(?:[\s,，。.!！?？~～、;；:：…]|吧|呢|啊|呀|嘛|吗|嗎|么|麼|哦|噢|喔|哈|啦|了|嗯|呃|额|的|就|那就|那|还是|還是|要不|在|定在|设在|設在|"
    r"请|請|麻烦|麻煩|大概|大约|大約|左右|差不多|"
    r"(?<![a-z])(?:at|on|in|by|around|about|maybe|please|pls|then|instead|actually|alright|um+|uh+|hmm+|er|ok|okay|so|say|how\s+about|"
    r"what\s+about|let'?s\s+say|i\s+guess)(?![a-z]))*", re.IGNORECASE)


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
    return _later_half(x.to_dict(), b, ref)


def _later_half(v: dict[str, Any], clock: str, ref: datetime) -> dict[str, Any]:
    """今天 + 7点 said at 14:00: the hour that is still to come that day (19:00), as a bare hour said alone
    reads — never a time already gone, when the clock named no half of the day (上午, "am") and 12 hours on
    is the same day."""
    if names_half_day(clock) or v.get("grain") not in ("hour", "minute"):
        return v
    try:
        start = datetime.fromisoformat(str(v.get("start")))
    except (TypeError, ValueError):
        return v
    later = start + timedelta(hours=12)
    if start >= ref or later <= ref or later.date() != start.date():
        return v
    out = dict(v)
    for key in ("start", "end", "point"):
        if out.get(key):
            try:
                out[key] = (datetime.fromisoformat(str(out[key])) + timedelta(hours=12)).isoformat()
            except ValueError:
                return v
    return out


def clock_on_day(day: Any, clock: Any, ref: datetime, tz: ZoneInfo | str) -> dict[str, Any] | None:
    """The clock time ``clock`` on the day ``day`` named, read as one time (:func:`join_when`'s joining): the day
    of a request just done that named no clock time (后天, 后天上午, "on Friday") and the clock time said alone
    after it (上午十点, 3点半, "at 6pm") — 后天 + 3点半 is 后天3点半, 15:30 as any hour said with a day
    (:mod:`hermesd.nlu.temporal`), never 03:30 because that is nearer a default time nobody said.

    :param day: the earlier time expression dict (grain ``day``, or a part of a day that names its day: 后天上午).
    :param clock: the later one (an hour or finer, naming no day). :param ref: aware; :param tz: the zone.
    :return: the joined expression's dict, or None when the two do not read as one time.
    """
    if not isinstance(day, Mapping) or not isinstance(clock, Mapping):
        return None
    if day.get("grain") == "part_of_day" and names_day(str(day.get("text") or "")):
        day = {**day, "grain": "day"}  # 后天上午 + 十点 → 后天上午十点: the part of the day is said with the hour
    return join_when(day, clock, ref, tz) if _is_day(day) and names_clock(clock) else None


def time_alone(text: str, spans: Iterable[tuple[int, int]]) -> bool:
    """``text`` says only a time: with the time phrases (``spans``, into ``text``) taken out, what is left is
    particles, leads of a time and punctuation (:data:`_AROUND_TIME`) — 十点, 上午十点吧, 下午三点呢, "at 6pm",
    "tomorrow please", "um, 3pm?". False without a time, or with any other word (十点开会, "at 6pm call mom").

    >>> time_alone("十点吧", [(0, 2)]), time_alone("at 6pm", [(3, 6)]), time_alone("十点开会", [(0, 2)])
    (True, True, False)
    """
    spans = [(max(a, 0), min(b, len(text))) for a, b in spans if b > a]
    if not spans:
        return False
    keep = list(text)
    for a, b in spans:
        for i in range(a, b):
            keep[i] = " "
    return _AROUND_TIME.fullmatch("".join(keep).lower()) is not None


def names_clock(v: Any) -> bool:
    """``v`` (a time expression dict) says a clock time: its grain is an hour, a minute or a second (下午三点, 十点半,
    "at 6pm"); a part of the day (上午, "in the morning") names none — a reminder set then comes at a default time."""
    return isinstance(v, Mapping) and v.get("grain") in _EXACT_GRAINS


def clock_left_open(entities: Mapping[str, Sequence[Any]] | None) -> bool:
    """A request's times (its trace's ``entities``: type → values) named a day, a part of a day or a repetition but
    no clock time (后天, 后天上午, 周五, 每周一, "tomorrow"): what it set came at a default time the person never said. False when it said
    no time at all, or any clock time (明天九点: nothing was left open)."""
    times = [v for t in _TIME_TYPES for v in (entities or {}).get(t) or () if isinstance(v, Mapping)]
    return bool(times) and not any(names_clock(v) for v in times) and any(v.get("start") for v in times)
