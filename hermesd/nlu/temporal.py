"""Time expressions in Chinese and English, resolved against a reference instant (pure).

:func:`parse_times` finds atoms (:mod:`.temporal_atoms`), merges adjacent ones
(明天 + 下午 + 3点), joins ranges (X到Y, from X to Y, between X and Y) and
resolves each against ``ref`` in the IANA zone ``tz`` (:mod:`zoneinfo`) into a
:class:`TimeExpr` with a half-open ``[start, end)``.

Rules (documented choices, see tests/nlu/temporal_vectors.jsonl):

- Weeks start on Monday (ISO 8601, GB/T 7408). 上周三/这周三/下周三/下下周一 name
  a day of the previous / current / next / second-next Monday-start week.
- English "last X" is the most recent X strictly before the reference date and
  "next X" the first X strictly after it; a bare weekday (周三, Wednesday, this
  Wednesday) is the first X on or after the reference date.
- "today" is the local date in ``tz``, whatever the process ``TZ`` is.
- A date that does not exist (下个月31号 asked in January, 2月30日, the 31st of June,
  2月29日 in a common year) is returned with ``kind="invalid"``, a ``reason`` for logs and
  a structured ``problem`` (see :class:`TimeExpr`); it is never rolled over or dropped.
  :func:`impossible_date_text` says what is wrong in a sentence ("6月没有31号。").
- A month and day without a year (6月15日, June 15) is in the reference year, and so are a bare
  holiday (春节, Christmas), a lunar date (正月十五), a month (3月) and a season; a day without a month
  (15号, the 10th) is in the reference month. In a future-oriented utterance — one that asks for a
  reminder, an alarm or a booking, or says 打算/准备/计划/还有几天, will/going to/until — such a
  yearless date that has already passed is its next occurrence (春节提醒我 asked in November is next
  year's 春节; "remind me on the 10th" asked on the 25th is next month's 10th), as Duckling resolves
  dates by default; an explicit year, 今年/this year, or next/last (明年春节, last Christmas) is kept.
  So is a time of day without a date there: 早上6点叫我 asked at 10:00 is tomorrow's 6:00, "remind me
  in the morning" asked at 20:00 tomorrow morning (Time-NLP's 未来倾向); 今天早上6点 stays today.
- A yearless date said with its weekday ("Fri, Jul 18", 7月18日周五) is in the year nearest the reference
  year in which the two agree (the later of two as near; :func:`_year_on_weekday`); a year said keeps it.
- "<holiday or date> weekend" is the long weekend it makes (:func:`_holiday_weekend`); early / late of one
  day said without a part of day is its early morning / late night (early Monday, late Friday).
- ``point`` is where a one-off event on the expression falls (a reminder's due): the start, except
  for a part of a period (see :mod:`.temporal_periods`: 月底 → the last day, 上旬/中旬/下旬 → the
  1st/11th/21st) and for a range open at its start (截至周五 → its last day, Friday).
- A clock hour with neither am/pm nor a part of day (and not written on a
  24-hour clock like 09:30): without a date it is the
  next such hour at or after ``ref`` (3点 at 07:30 → 15:00) today; when both of today's have
  passed it is tomorrow's, read as with a date (3点 at 16:00 → 15:00 tomorrow, not 03:00; 8点 at
  23:00 → 08:00 tomorrow); with a date, 1–6 o'clock is read as afternoon (明天3点 → 15:00), other
  hours as written. A person who means the small hours says so (凌晨3点, 3am).
- An offset from now in hours, minutes or seconds (一刻钟后, in 15 minutes) is the instant it names, to the second
  (asked at 23:50:40, 00:05:40), at the grain it was said in; one in days or longer is that day.
- Offsets by months or years clamp the day to the month's end (1月31日 + 1个月
  → 2月28/29日, as dateutil.relativedelta does); they are arithmetic, not names.
- Durations in months/years are counted as 30/365 days in ``seconds``; a range of lengths (3~6个月, 两到三天,
  3年以上7年以下, 六个月以下) is one ``duration`` from ``seconds`` to ``seconds_max`` (:mod:`.temporal_recurrence`).
- A Chinese recurrence (每周一, 每天早上8点, 每个月15号, 每年春节, 每隔3天) is a ``recurrence``: ``every`` says how
  often, ``start``/``end`` are the first occurrence at or after ``ref`` of the time said after 每 (read as a
  future-oriented utterance reads it), or None when it names none. It becomes a ``recurrence`` entity, not a
  ``datetime`` one (a one-off slot does not take it). English ones (every Monday, daily, every other week) too.
  A set of weekdays (每周一三五, 每周二和周四, 每周一到周五, 工作日 = Monday to Friday, 周末每天; "every weekday", "on
  weekends", "every Monday and Thursday", "Tuesdays and Fridays") is one weekly recurrence
  whose ``days`` are those ISO weekdays and whose first occurrence is the first of them (:func:`_weekday_sets`). A
  recurrence at a clock time whose time today has passed (每天早上7点 asked at 07:30) first comes next time.
  A clock time said apart from a recurrence that has none, in the same clause ("set a daily reminder at 8am",
  早上八点每天, 每天提醒我早上八点…) is its time of day (``parts`` then holds the spans of both). A time said as its end
  ("until Friday the 18th", 到月底为止, 直到下周五, 截止到12月18号) is its ``until`` (RFC 5545 UNTIL, inclusive), not a
  time of its own (:func:`_recurrence_ends`).
- A Chinese time limit counted in days or longer (三天内, 一个月以内, 15个工作日内) runs from ``ref`` to 24:00 of the day
  the count lands on (民法典 第二百零一条、第二百零三条); one in hours or minutes (两小时内) to that instant. Working and
  trading days (工作日, 交易日) are Monday to Friday: the official make-up working days are not known here.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta, timezone
from typing import Any, Mapping
from zoneinfo import ZoneInfo

from .. import lazyre
from .normalize import Normalized, normalize
from .numbers import EN_NUM, en_number
from .temporal_atoms import MEALS, PARTS_OF_DAY, UNIT_SECONDS, Atom, find_atoms
from .temporal_context import inside_name, looks_like_address, looks_like_title, meal_as_object, meal_made_or_eaten
from .temporal_holidays import holiday_span
from .temporal_lunar import lunar_to_solar, month_days, solar_term
from .temporal_open import open_markers, open_range
from .temporal_periods import STATE_NOUNS_ZH, apply_part
from .temporal_recurrence import EN_SET_CUE as _EN_SET_CUE, Every, en_every, en_weekday_sets, zh_every, zh_length_range, zh_weekday_sets

__all__ = ["TimeExpr", "impossible_date_text", "parse_times"]

#: a number (digits or English words) opening the text: the clock of "date and clock" comes after the date
_NUMBER_AT = lazyre.compile(r"\d|" + EN_NUM)
#: the first hour of a range of clock times, just before the second ("3 to 5pm", "9点到11点")
_RANGE_START_HOUR = lazyre.compile(r"(\d{1,2}|" + EN_NUM + r")\s*(到|至|~|-|to|and|until|till)\s*$")
_GAP = lazyre.compile(r"^(?:\s|,|的|at|on|in the|in|of|around|about|by|this|the|from|t)*$")  # t: ISO 8601 2025-03-03T10:00
_DAY_RANGE_END = lazyre.compile(r"\s*(-|~|to|through|thru|until|till|and|到|至)\s*(\d{1,2})(?:st|nd|rd|th|号|日)?(?![\d:])"
                                r"(?!\s*(?:[ap]\.?m\b|o'?clock|点|时|个|人|位|岁|天|周|月|年|分|秒|小时|hours?|days?|weeks?|"
                                r"months?|years?|minutes?|people|persons?))"
                                r"(?:,?\s+((?:19|20)\d\d)(?!\d))?")
# a day, then the word that opens the part of day said after it: "tomorrow after lunch", "Friday before
# dinner", 明天吃完午饭, 周五吃过晚饭 (吃完/吃过/吃好 X = after X)
_DAY_THEN_PART = lazyre.compile(r"\s*(?:(after|before)\s+(?:the\s+)?|吃完|吃过|吃好)\s*")
_DATE_THEN_RANGE = lazyre.compile(r"^(?:\s|,|on|at|from|in|between)*$")
_DAY_RANGE_START = lazyre.compile(r"(?<![\d:./-])(\d{1,2})(?:st|nd|rd|th)?\s*(?:-|~|to|through|thru|until|till)\s*(?:the\s+)?$")
_WEEKDAY_RANGE_END = lazyre.compile(r"\s*(?:到|至|~|-)\s*([1-7日天])(?![\d号日点时月年个天周:])")
_ZH_WD_NUM = {"1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "日": 7, "天": 7}
_RANGE_CONN = lazyre.compile(r"^\s*(到|至|~|--?|to|until|untill|till|through|thru|and|和|与|跟)\s*(?:the\s+)?$")  # —— is --
_GRAIN_ORDER = ["second", "minute", "hour", "part_of_day", "day", "week", "weekend", "month", "season", "quarter",
                "year", "decade", "century"]
_FINER = {"century": -1, "decade": 0, "year": 1, "season": 2, "quarter": 3, "month": 4, "week": 5, "weekend": 6}
_UNIT_TD = {"second": timedelta(seconds=1), "minute": timedelta(minutes=1), "hour": timedelta(hours=1),
            "day": timedelta(days=1), "week": timedelta(weeks=1), "fortnight": timedelta(weeks=2)}


@dataclass(frozen=True, slots=True)
class TimeExpr:
    """A resolved time expression.

    :param kind: ``date`` | ``datetime`` | ``range`` | ``duration`` | ``recurrence`` | ``invalid``.
    :param start: ``date`` for day-grain results, aware ``datetime`` otherwise; None for duration/invalid.
    :param end: exclusive end of the same type as ``start`` (a single day ends the next day).
    :param grain: ``second`` | ``minute`` | ``hour`` | ``part_of_day`` | ``day`` | ``week`` | ``weekend`` |
        ``month`` | ``season`` | ``quarter`` | ``year`` | ``decade``.
    :param text: the original text of ``span``. :param span: ``(start, end)`` in the original text.
    :param seconds: length of a ``duration``; of a range of lengths (3~6个月, 两到三天) the shortest.
    :param seconds_max: the longest length of a range of lengths, else None.
    :param every: for a ``recurrence`` (每周一, 每天早上8点, 每个月15号, 每隔3天), how often it comes: ``(n, unit)``
        with ``unit`` ``second`` | ``minute`` | ``hour`` | ``day`` | ``week`` | ``month`` | ``quarter`` | ``year``
        (``(1.0, "week")``, ``(3.0, "day")``, ``(0.5, "year")``); ``start``/``end``/``point`` are its first occurrence
        at or after the reference instant (the time said after 每: 周一, 早上8点, 15号), or None when it names none
        (每隔3天, 每年). :mod:`.temporal_recurrence` reads them.
    :param days: for a ``recurrence`` on a set of weekdays (每周一三五, 每周一到周五, 工作日, 周末每天), the ISO
        weekdays it comes on (1 = Monday … 7 = Sunday), in order, with ``every`` ``(1.0, "week")`` and
        ``start``/``end`` its first occurrence on one of them; else None.
    :param until: for a ``recurrence``, the last time it may come (RFC 5545 ``UNTIL``: inclusive): a ``date``
        (到月底为止 → the month's last day, "until Friday the 18th" → that Friday; its occurrences that day
        still come) or an aware ``datetime``; None when no end was said.
    :param parts: the spans in the original text of the words that say the expression, when they are not
        one run (the clock time said apart from its 每天: "set a daily reminder at 8am", 早上八点每天; an end
        said after the task: "每天早上八点提醒我吃药，到月底为止"); ``span`` then covers them all. None: ``span``.
    :param reason: why an ``invalid`` date does not exist (English, for logs).
    :param point: where a one-off event on this expression falls (a reminder's due): ``start`` for most
        expressions, the last day for 月底/年底/the end of the month, the first day of a third for
        上旬/中旬/下旬, the last day for a range open at its start; None for duration/invalid.
    :param problem: for ``invalid`` only, what is wrong, as data (JSON-ready):

        - ``{"kind": "no_such_day", "year": 2025, "month": 6, "day": 31, "max_day": 30}``:
          the month has fewer days (``year`` is the year the date was resolved in; it only
          matters for February 29);
        - ``{"kind": "no_such_month", "month": 13}``;
        - ``{"kind": "reversed_range"}``: a range that ends before it starts (明天到昨天);
        - ``{"kind": "out_of_calendar"}``: beyond year 1–9999 (99999999天后);
        - ``{"kind": "no_date"}``: nothing to place on a calendar.
    """

    kind: str
    start: date | datetime | None
    end: date | datetime | None
    grain: str
    text: str
    span: tuple[int, int]
    seconds: float | None = None
    reason: str | None = None
    problem: dict[str, Any] | None = field(default=None, hash=False)
    point: date | datetime | None = None
    seconds_max: float | None = None
    every: tuple[float, str] | None = None
    days: tuple[int, ...] | None = None
    until: date | datetime | None = None
    parts: tuple[tuple[int, int], ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; dates as ``YYYY-MM-DD``, datetimes ISO 8601 with offset; ``seconds_max`` and
        ``every`` (``{"n": 1.0, "unit": "week"}``) and ``days`` (``[1, 3, 5]``) only when the expression has them."""
        out = {"kind": self.kind, "start": self.start.isoformat() if self.start else None,
               "end": self.end.isoformat() if self.end else None, "grain": self.grain, "text": self.text,
               "span": list(self.span), "seconds": self.seconds, "reason": self.reason,
               "problem": dict(self.problem) if self.problem else None,
               "point": self.point.isoformat() if self.point else None}
        if self.seconds_max is not None:
            out["seconds_max"] = self.seconds_max
        if self.every is not None:
            out["every"] = {"n": self.every[0], "unit": self.every[1]}
        if self.days is not None:
            out["days"] = list(self.days)
        if self.until is not None:
            out["until"] = self.until.isoformat()
        return out

    @property
    def spans(self) -> tuple[tuple[int, int], ...]:
        """The spans of the words that say it (``parts``, else ``span`` alone)."""
        return self.parts or (self.span,)


class _Invalid(Exception):
    def __init__(self, reason: str, problem: dict[str, Any]) -> None:
        super().__init__(reason)
        self.problem = problem


_OUT_OF_CALENDAR = {"kind": "out_of_calendar"}


# ---- selection and merging -------------------------------------------------------------------
def _select(atoms: list[Atom]) -> list[Atom]:
    """Longest atoms first, no overlaps, back in text order."""
    chosen: list[Atom] = []
    for a in sorted(atoms, key=lambda a: (-(a.end - a.start), a.start)):
        if all(a.end <= c.start or a.start >= c.end for c in chosen):
            chosen.append(a)
    return sorted(chosen, key=lambda a: a.start)


def _merge_frames(f1: dict[str, Any], f2: dict[str, Any]) -> dict[str, Any] | None:
    """Intersect two frames (明天 + 下午 + 3点); None when they conflict."""
    hol, wkd = (f2, f1) if f1.get("period") == "weekend" else (f1, f2)
    if wkd == {"period": "weekend", "week_shift": 0} and ("holiday" in hol or (
            "day" in hol and "month" in hol and not any(k in hol for k in ("weekday", "hour", "period")))):
        # Labor Day weekend, the 4th of July weekend: the long weekend the holiday or date makes
        return {**hol, "hol_weekend": True}
    p1, p2 = f1.get("period"), f2.get("period")
    if p1 and p2:
        coarse, fine = (f1, f2) if _FINER[p1] <= _FINER[p2] else (f2, f1)
    elif p1:
        coarse, fine = f1, f2
    elif p2:
        coarse, fine = f2, f1
    else:
        coarse, fine = f1, f2
    out = dict(coarse)
    if any(k in fine for k in ("day", "weekday", "month", "period", "rel_day", "holiday", "lunar", "lunar_month")) \
            and "period" in coarse:
        out.pop("period", None)
    for k, v in fine.items():
        if k in ("week_shift",) and fine.get("wd_mode") == "upcoming" and "week_shift" in coarse:
            out["wd_mode"] = "week"
            continue
        if k == "wd_mode" and fine.get("wd_mode") == "upcoming" and "week_shift" in coarse:
            out["wd_mode"] = "week"
            continue
        if k in out and out[k] != v:
            return None
        out[k] = v
    if "rel_day" in out and any(k in out for k in ("weekday", "day", "holiday", "lunar", "lunar_month", "month")):
        return None  # 今天 and 圣诞节 name two different days
    return out


# quantities that change with time: 现在的气温 / "the current temperature" asks for their value now, so the
# 现在/current there is a time (as xSID annotates it), while 现在的位置 / 现在的我 is an attribute
_STATE_NOUN = lazyre.compile(rf"\s*(?:{STATE_NOUNS_ZH})")
_CATS_MERGEABLE = {"date", "pod", "clock", "hourish", "now"}
_RECURRING = lazyre.compile(r"(?:每[天日周月年晚早]?|每个|每隔|every|each|daily|weekly|nightly)\s*$")
# a recurrence anywhere in the utterance ("每五分钟响一次", "daily at 7 am", "every minute for 20 minutes")
# (daily, weekly … count when en_every reads them as how often, not as an adjective: "the weekly report at 9")
_RECURRENCE = lazyre.compile(r"每|(?<![a-z])(?:every|each|recurring|weekdays|weekends)(?![a-z])")
# a future-oriented utterance: a request to be reminded, woken, booked, or a plan ("春节提醒我", "remind me on
# Christmas", "圣诞节打算去哪", "how many days until Easter"); an explicit past word keeps the reference year
_FUTURE = lazyre.compile(r"提醒|闹钟|叫醒|叫我|记得|别忘|安排|预订|预定|预约|打算|准备|计划|将要|即将|还有(?:几|多少|多久)|倒计时|到时候|"
                         r"(?<![a-z])(?:remind|reminder|alarm|wake me|schedule|book|reserve|will|going to|gonna|plan|"
                         r"planning|until|till|countdown|upcoming|how long)(?![a-z])|'ll(?![a-z])")
_PAST = lazyre.compile(r"上次|曾经|已经|去过|过了|我记得|(?<![a-z])(?:was|were|did|had|ago|used to)(?![a-z])")
_DATE_KEYS = ("rel_day", "weekday", "day", "month", "period", "year", "holiday", "lunar", "lunar_month", "part", "pair")
_CLOCK_KEYS = frozenset({"hour", "minute", "second", "ampm", "pod", "h24", "midnight", "future"})


@dataclass(slots=True)
class _Group:
    start: int
    end: int
    f: dict[str, Any]
    cats: set[str]


def _for_a_clock(gap: str, g: _Group, a: Atom) -> bool:
    """"on Saturday for 9am", "a table on Friday for 7:30": a date, then "for" and a clock said with am/pm or
    minutes (a bare number after "for" is a count: "Friday for 2")."""
    return gap.strip() == "for" and g.cats == {"date"} and a.cat == "clock" and bool(a.f.get("ampm") or a.f.get("minute"))


def _hyphen_joins(g: _Group, a: Atom) -> bool:
    """A hyphen that joins two atoms into one time rather than a range: a part and its period (mid-2025) or a
    month and its year (Jun-2024, as forms write it; "June-2024" is no range from June to a year)."""
    if set(g.f) <= {"part", "part_edge", "part_period"}:
        return True
    return g.f.get("period") == "month" and "month" in g.f and "year" not in g.f and "day" not in g.f \
        and set(a.f) == {"year", "period"}


_MEAL_AT = lazyre.compile(r"\s+(?:at|around|about)\s+")


def _meal_reads_clock(text: str, g: _Group, a: Atom) -> bool:
    """"dinner at 7", "lunch at 1", "breakfast around 8": a bare hour said after a meal and "at" is read in the
    meal's part of day (19:00, 13:00, 08:00) on the meal's day ("tomorrow dinner at 7"), as "in the evening at
    eight" is; the meal and the clock stay two
    times ("lunch at 7:30" is two, see :func:`_group`). A clock with am/pm, a part of day or on the 24-hour clock
    keeps its own reading."""
    return (g.f.get("pod") in MEALS and set(g.f) <= {"pod", "rel_day"} and a.cat == "clock"
            and not any(k in a.f for k in ("ampm", "pod", "h24", "midnight")) and bool(_MEAL_AT.fullmatch(text, g.end, a.start)))


def _group(text: str, atoms: list[Atom]) -> list[_Group]:
    groups: list[_Group] = []
    for a in atoms:
        if a.cat == "hourish":
            a = Atom(a.start, a.end, "clock", a.f)
        g = groups[-1] if groups else None
        # a meal is a time of its own beside a clock ("lunch at 7:30" is two times), and takes the day it is
        # said with (明天午饭后, "after lunch tomorrow", "tomorrow at lunch": that day's meal)
        meal = g is not None and (a.f.get("pod") in MEALS and g.cats != {"date"}
                                  or g.f.get("pod") in MEALS and (a.cat != "date" or meal_made_or_eaten(text[:g.start])))
        if meal and _meal_reads_clock(text, g, a):
            a = Atom(a.start, a.end, a.cat, {**a.f, **g.f})  # the meal's part of day, and its day if said
        sig = _DAY_THEN_PART.fullmatch(text, g.end, a.start) if g is not None and g.cats == {"date"} and a.cat in ("pod", "clock") else None
        if sig:  # "tomorrow after lunch", "Friday before 5pm", 明天吃完午饭: that day's part or hour, opened by the signal
            merged = _merge_frames(g.f, a.f)
            if merged is not None:
                g.end, g.f = a.end, {**merged, "opened_by": "before" if sig[1] == "before" else "after"}
                g.cats.add(a.cat)
                continue
        if (g is not None and not meal and a.cat in _CATS_MERGEABLE and g.cats <= _CATS_MERGEABLE
                and (_GAP.match(text[g.end:a.start]) or _for_a_clock(text[g.end:a.start], g, a)
                     or (text[g.end:a.start] == "-" and _hyphen_joins(g, a)))
                and not (a.cat in g.cats and a.cat != "date")):
            merged = _merge_frames(g.f, a.f)
            if merged is not None:
                g.end, g.f = a.end, merged
                g.cats.add(a.cat)
                continue
        groups.append(_Group(a.start, a.end, dict(a.f), {a.cat}))
    return groups


# ---- resolution --------------------------------------------------------------------------------
def _add_months(y: int, m: int, k: int) -> tuple[int, int]:
    t = y * 12 + (m - 1) + k
    return t // 12, t % 12 + 1


def _valid_day(y: int, m: int, d: int) -> date:
    if not 1 <= m <= 12:
        raise _Invalid(f"month {m} does not exist", {"kind": "no_such_month", "month": m})
    last = calendar.monthrange(y, m)[1]
    if not 1 <= d <= last:
        raise _Invalid(f"{y:04d}-{m:02d} has no day {d} (last day is {last})",
                       {"kind": "no_such_day", "year": y, "month": m, "day": d, "max_day": last})
    return date(y, m, d)


def _date_part(f: dict[str, Any], today: date) -> tuple[date, date, str] | None:
    """(start, end, grain) of the date part of a frame, or None when it has none; a part of a
    period (月初, 第三周, the second Monday of) is taken of the period (:func:`.temporal_periods.apply_part`)."""
    if "part" not in f:
        return _whole_date_part(f, today)
    base = f
    if "pod" in f and f["part"] in ("early", "mid", "late") and "part_period" not in f and "period" not in f:
        return _whole_date_part(f, today)  # early morning, late tonight: the part is the part of day's (_resolve)
    if not any(k in f for k in ("period", "month", "year", "holiday", "lunar", "lunar_month", "day", "weekday", "rel_day",
                                "pair")):
        if "part_period" not in f:
            return None
        base = {**f, "period": f["part_period"]}
    dp = _whole_date_part(base, today)
    if dp is None:
        return None
    got = apply_part(dp[0], dp[1], dp[2], f["part"])
    if got is None:
        part = f["part"]
        what = part[0] if isinstance(part, tuple) else part
        raise _Invalid(f"the {dp[2]} from {dp[0]} has no {part}",
                       {"kind": "no_such_ordinal", "what": what, "n": part[1] if isinstance(part, tuple) else None,
                        "weekday": part[2] if isinstance(part, tuple) and what == "nth" else None, "grain": dp[2]})
    return got


def _year_of(f: dict[str, Any], today: date) -> int:
    return f.get("year", today.year + f.get("year_shift", 0))


def _whole_date_part(f: dict[str, Any], today: date) -> tuple[date, date, str] | None:
    """The date part of a frame without its part; a yearless date in a future-oriented utterance
    (``f["future"]``) that has passed moves to its next occurrence (see the module rules)."""
    dp = _whole_date_part_once(f, today)
    if dp is not None and f.get("rest"):  # the rest of the week: from today on
        return max(dp[0], today), dp[1], "day"
    if dp is not None and f.get("so_far"):  # the year so far: up to today
        return dp[0], min(dp[1], today + timedelta(days=1)), "day"
    if dp is None or not f.get("future") or dp[1] > today or "year" in f or "year_shift" in f:
        return dp
    if "day" in f and "month" not in f and "month_shift" not in f and "period" not in f:
        return _whole_date_part_once({**f, "month_shift": 1}, today)
    yearless = ("holiday" in f and not f.get("hol_rel")) or "lunar" in f or "lunar_month" in f or \
        ("month" in f and not f.get("month_rel"))
    return _whole_date_part_once({**f, "year_shift": 1}, today) if yearless else dp


def _lunar_month_days(y: int, lm: int, leap: bool) -> int:
    """The length of lunar month ``lm`` of lunar year ``y``; :raises _Invalid: a leap month the year lacks."""
    try:
        return month_days(y, lm, leap)
    except ValueError as exc:
        if 1 <= lm <= 12 and leap:
            raise _Invalid(str(exc), {"kind": "no_such_lunar_month", "year": y, "month": lm}) from None
        raise


def _whole_date_part_once(f: dict[str, Any], today: date) -> tuple[date, date, str] | None:
    if "holiday" in f:
        key, rel = f["holiday"], f.get("hol_rel")
        if rel and "year" not in f and "year_shift" not in f:
            d, e = holiday_span(key, today.year)
            if rel > 0 and d <= today:
                d, e = holiday_span(key, today.year + 1)
            elif rel < 0 and e > today:  # "last Passover" asked during Passover is last year's
                d, e = holiday_span(key, today.year - 1)
        else:
            d, e = holiday_span(key, _year_of(f, today))
        if f.get("hol_day"):  # 春节第三天: the N-th day counted from the first
            d = d + timedelta(days=f["hol_day"] - 1)
            e = d + timedelta(days=1)
        if f.get("hol_weekend"):
            return (*_holiday_weekend(key, d), "weekend")
        return d, e, "day"
    if "lunar" in f:
        lm, ld, leap = f["lunar"]
        y = _year_of(f, today)
        n = _lunar_month_days(y, lm, leap)
        if ld > n:
            raise _Invalid(f"lunar month {lm} of {y} has {n} days",
                           {"kind": "no_such_lunar_day", "year": y, "month": lm, "day": ld, "max_day": n})
        d = lunar_to_solar(y, lm, ld, leap)
        return d, d + timedelta(days=1), "day"
    if "lunar_month" in f:  # 农历十月, 闰四月: the whole lunar month of the lunar year numbered like the year
        (lm, leap), y = f["lunar_month"], _year_of(f, today)
        n = _lunar_month_days(y, lm, leap)
        d = lunar_to_solar(y, lm, 1, leap)
        return d, d + timedelta(days=n), "month"
    period = f.get("period")
    if period == "quarter" and "quarter" in f:
        y, m = _year_of(f, today), 3 * f["quarter"] - 2
        ey, em = _add_months(y, m, 3)
        return date(y, m, 1), date(ey, em, 1), "quarter"
    if period == "century" or "decade" in f:
        c = f["year"] if "year" in f else (today.year // 100 + f.get("century_shift", 0)) * 100
        if period == "decade":
            return date(c + f["decade"], 1, 1), date(c + f["decade"] + 10, 1, 1), "decade"
        return date(max(c, 1), 1, 1), date(c + 100, 1, 1), "century"
    if "rel_day" in f:
        d = today + timedelta(days=f["rel_day"])
        return d, d + timedelta(days=1), "day"
    if "pair" in f:  # 今明两天, 今明两年: the two units from the first one named
        unit, first = f["pair"]
        if unit == "day":
            d = today + timedelta(days=first)
            return d, d + timedelta(days=2), "day"
        return date(today.year + first, 1, 1), date(today.year + first + 2, 1, 1), "year"
    if "weekday" in f and "day" in f and "month" not in f and "month_shift" not in f:
        # "Monday the 4th", 周一5号: the first month from this one whose day falls on that weekday
        y, m = today.year, today.month
        for _ in range(15):
            last = calendar.monthrange(y, m)[1]
            if f["day"] <= last and date(y, m, f["day"]) >= today and date(y, m, f["day"]).isoweekday() == f["weekday"]:
                d = date(y, m, f["day"])
                return d, d + timedelta(days=1), "day"
            y, m = _add_months(y, m, 1)
        raise _Invalid(f"no month has day {f['day']} on weekday {f['weekday']}",
                       {"kind": "no_such_day", "year": today.year, "month": today.month, "day": f["day"], "max_day": 31})
    if "weekday" in f and "day" not in f:
        wd, mode, iso = f["weekday"], f.get("wd_mode", "upcoming"), today.isoweekday()
        if mode == "week":
            d = today - timedelta(days=iso - 1) + timedelta(days=7 * f.get("week_shift", 0) + wd - 1)
        elif mode == "next":  # wd_count: "3 fridays from now", "friday after next" (the 3rd / 2nd one after today)
            d = today + timedelta(days=(wd - iso) % 7 or 7) + timedelta(weeks=f.get("wd_count", 1) - 1)
        elif mode == "last":
            d = today - timedelta(days=(iso - wd) % 7 or 7) - timedelta(weeks=f.get("wd_count", 1) - 1)
        elif mode == "recent":  # "since Monday": the latest Monday on or before today
            d = today - timedelta(days=(iso - wd) % 7)
        else:
            d = today + timedelta(days=(wd - iso) % 7)
        return d, d + timedelta(days=f.get("wd_days", 1)), "day"  # wd_days: 星期三四, a run of weekdays
    period = f.get("period")
    if "day" in f and period is None:
        if "month" in f:
            y, m = f.get("year", today.year + f.get("year_shift", 0)), f["month"]
            if "weekday" in f and "year" not in f and "year_shift" not in f:
                y = _year_on_weekday(y, m, f["day"], f["weekday"])
        else:
            y, m = _add_months(today.year, today.month, f.get("month_shift", 0))
            y = f.get("year", y)
        d = _valid_day(y, m, f["day"])
        if f.get("hol_weekend"):
            return (*_holiday_weekend("", d), "weekend")
        return d, d + timedelta(days=1), "day"
    if period == "week":
        monday = today - timedelta(days=today.isoweekday() - 1) + timedelta(weeks=f.get("week_shift", 0))
        return monday, monday + timedelta(weeks=1), "week"
    if period == "weekend":
        sat = today - timedelta(days=today.isoweekday() - 1) + timedelta(weeks=f.get("week_shift", 0), days=5)
        return sat, sat + timedelta(days=2), "weekend"
    if period in ("month", "season"):
        if "month" in f:
            m = f["month"]
            y = f.get("year", today.year + f.get("year_shift", 0))
            rel = f.get("month_rel")
            if rel in (1, 2) and "year" not in f and m <= today.month:
                y += 1
            if rel == 2 and "year" not in f:
                y += 1  # March after next
            elif rel == -1 and "year" not in f and m >= today.month:
                y -= 1
            if period == "season" and m == 12 and "year" not in f and (
                    _before_lichun(today) if f.get("jieqi") else today.month <= 2):
                y -= 1  # winter asked in January or February is the winter under way (it began last December)
            if period == "season" and f.get("jieqi") and (js := _jieqi_season(y, m)):
                return (*js, "season")
        elif period == "season":  # this / next / last season: the meteorological season of today, shifted
            y, m = _add_months(today.year, today.month // 3 * 3 or 12, 3 * f.get("season_shift", 0))
            if today.month == 12 or today.month <= 2:
                y, m = _add_months(today.year - (today.month <= 2), 12, 3 * f.get("season_shift", 0))
        else:
            y, m = _add_months(today.year, today.month, f.get("month_shift", 0))
        if not 1 <= m <= 12:
            raise _Invalid(f"month {m} does not exist", {"kind": "no_such_month", "month": m})
        n = 3 if period == "season" else 1
        ey, em = _add_months(y, m, n)
        return date(y, m, 1), date(ey, em, 1), period
    if period == "quarter":
        q0 = (today.month - 1) // 3 + f.get("quarter_shift", 0)
        y, m = _add_months(today.year, 1, 3 * q0)
        ey, em = _add_months(y, m, 3)
        return date(y, m, 1), date(ey, em, 1), "quarter"
    if period == "year":
        y = f.get("year", today.year + f.get("year_shift", 0))
        return date(y, 1, 1), date(y + 1, 1, 1), "year"
    if period == "decade":
        y = f["year"] if "year" in f else today.year // 10 * 10 + 10 * f.get("decade_shift", 0)
        return date(y, 1, 1), date(y + 10, 1, 1), "decade"
    return None


#: a Chinese season's first and last solar terms (indexes into temporal_lunar.SOLAR_TERMS): 立春–立夏, 立夏–立秋,
#: 立秋–立冬, 立冬–next 立春 (现代汉语词典 春季/夏季/秋季/冬季: 我国习惯指立春到立夏……的三个月时间)
_JIEQI_SEASON = {3: (2, 8), 6: (8, 14), 9: (14, 20), 12: (20, 2)}


def _jieqi_season(y: int, m: int) -> tuple[date, date] | None:
    """``[start, end)`` of the Chinese season named by its meteorological first month ``m`` (3, 6, 9, 12) in year
    ``y`` (winter runs into ``y + 1``), or None outside the solar-term table (then the meteorological months)."""
    a, b = _JIEQI_SEASON[m]
    try:
        return solar_term(y, a), solar_term(y + (m == 12), b)
    except ValueError:
        return None


def _before_lichun(d: date) -> bool:
    try:
        return d < solar_term(d.year, 2)
    except ValueError:
        return d.month <= 2


def _holiday_weekend(key: str, d: date) -> tuple[date, date]:
    """``[start, end)`` of "<holiday> weekend": the Saturday and Sunday next to the holiday's (first) day ``d``
    with the holiday and any day between: Monday → Saturday–Monday, Tuesday → Saturday–Tuesday, Thursday →
    Thursday–Sunday (Thanksgiving weekend), Friday → Friday–Sunday, Saturday or Sunday → that weekend,
    Wednesday → the weekend after; Easter weekend is Good Friday to Easter Monday."""
    if key == "easter":
        return d - timedelta(days=2), d + timedelta(days=2)
    wd = d.isoweekday()
    if wd in (1, 2):
        return d - timedelta(days=wd + 1), d + timedelta(days=1)
    if wd == 3:
        return d + timedelta(days=3), d + timedelta(days=5)
    if wd in (4, 5):
        return d, d + timedelta(days=8 - wd)
    return d - timedelta(days=wd - 6), d + timedelta(days=8 - wd)


def _year_on_weekday(y: int, m: int, d: int, wd: int) -> int:
    """The year nearest ``y`` (the later one of two as near) in which ``m``/``d`` falls on ISO weekday ``wd``:
    "Fri, Jul 18", 7月18日周五 said in 2013, when July 18 is a Thursday, is 2014's (as Duckling reads it), a
    weekday being what a person checks a date against; ``y`` itself when none does within 28 years either way
    (the Gregorian weekday cycle) or the day does not exist (the caller says so)."""
    for k in (0, *(s * n for n in range(1, 29) for s in (1, -1))):
        if 1 <= y + k <= 9999 and d <= calendar.monthrange(y + k, m)[1] and date(y + k, m, d).isoweekday() == wd:
            return y + k
    return y


def _hour(h: int, f: dict[str, Any]) -> tuple[int, int]:
    """(hour 0–23, extra days) for a clock hour read with the frame's am/pm or part of day."""
    ampm, pod = f.get("ampm"), f.get("pod")
    if h == 24:
        return 0, 1
    if ampm == "pm":
        return (h + 12 if h < 12 else h), 0
    if ampm == "am":
        return (0 if h == 12 else h), 0
    if pod:
        kind = PARTS_OF_DAY[pod][2]
        if kind == "early":
            if pod == "半夜" and 9 <= h <= 11:
                return h + 12, 0  # 半夜11点 is 23:00: the middle of the night spans midnight (半夜12点 = 0:00)
            return (0 if h == 12 else h), 0
        if kind == "noon":
            return (h + 12 if h <= 4 else h), 0
        if kind == "pm":
            return (h + 12 if h < 12 else h), 0
        if kind == "night":
            if 5 <= h < 12:
                return h + 12, 0
            return (0, 1) if h == 12 else (h, 1)
    return h, 0


def _whole_units(ref: datetime, n: int, unit: str, sign: int, tz: ZoneInfo) -> tuple:
    """``[start, end)`` of the ``n`` whole ``unit``s before (``sign`` -1) or after (+1) the one ``ref`` is in:
    dates for a day or longer (weeks start on Monday), aware datetimes for hours, minutes and seconds."""
    if unit in ("hour", "minute", "second"):
        cur = ref.replace(microsecond=0, **({"second": 0} if unit != "second" else {}),
                          **({"minute": 0} if unit == "hour" else {}))
        step = _UNIT_TD[unit]
        return (cur - step * n, cur) if sign < 0 else (cur + step, cur + step * (n + 1))
    today = ref.date()
    if unit in ("day", "week"):
        cur = today - timedelta(days=today.isoweekday() - 1) if unit == "week" else today
        step = timedelta(days=7 if unit == "week" else 1)
        return (cur - step * n, cur) if sign < 0 else (cur + step, cur + step * (n + 1))
    months = 12 if unit == "year" else 1
    y0, m0 = (today.year, 1) if unit == "year" else (today.year, today.month)
    a = _add_months(y0, m0, -months * n) if sign < 0 else _add_months(y0, m0, months)
    b = (y0, m0) if sign < 0 else _add_months(y0, m0, months * (n + 1))
    return date(*a, 1), date(*b, 1)


def _end_of_named_unit(offset: list[tuple[float, str]], day: date, end: date) -> date:
    """Where N以前 ends (temporal_open's rule: up to the end of the unit it names): 两年以前 at the end of that year,
    三个月以前 of that month, 一年半以前 / 3年半以前 of that month and 两个半月以前 of that day (half a unit more is
    counted in the next finer one); days and weeks at the end of the day (``end``)."""
    rank = {"year": 2, "month": 1}
    named = 2
    for n, u in offset:
        r = rank.get(u, 0)
        if r and (n * 12 if u == "year" else n) != int(n * 12 if u == "year" else n):
            r -= 1  # 两个半月: half a month is days
        elif r == 2 and n != int(n):
            r = 1  # 一年半: half a year is months
        named = min(named, r)
    if named == 2:
        return date(day.year + 1, 1, 1)
    if named == 1:
        return date(day.year + day.month // 12, day.month % 12 + 1, 1)
    return end


def _add_workdays(t: datetime, n: int) -> datetime:
    """``t`` moved by ``n`` working days (Monday to Friday; a negative ``n`` goes back), the clock time kept."""
    step = 1 if n >= 0 else -1
    for _ in range(abs(n)):
        t += timedelta(days=step)
        while t.isoweekday() > 5:
            t += timedelta(days=step)
    return t


#: a part of one day said without a part of day: early Monday is its early morning, late Friday its late night (as
#: "early tomorrow morning", "late tonight"), the middle of the day is midday
_DAY_PARTS = {"early": "morning", "mid": "midday", "late": "night"}


def _resolve(f: dict[str, Any], ref: datetime, tz: ZoneInfo, anchor: date | None = None) -> tuple:
    """(kind, start, end, grain, seconds) for one frame; raises _Invalid."""
    if "duration" in f:
        secs = sum(n * (UNIT_SECONDS.get(u) or {"month": 30 * 86400, "year": 365 * 86400, "fortnight": 14 * 86400}[u])
                   for n, u in f["duration"])
        return "duration", None, None, "second", float(secs)
    if "offset" in f:
        t = ref
        sign = f["direction"]
        finest = "day"
        for n, u in f["offset"]:
            whole, frac = int(n), n - int(n)
            if u == "workday":  # 15个工作日内: Monday to Friday (temporal_atoms._zh_offset)
                t = _add_workdays(t, int(n) * sign)
            elif u in ("month", "year"):
                months = (12 if u == "year" else 1) * n * sign
                wm, fm = int(months), months - int(months)
                y, m = _add_months(t.year, t.month, wm)
                t = t.replace(year=y, month=m, day=min(t.day, calendar.monthrange(y, m)[1]))
                t += timedelta(days=30 * fm)
            else:
                t += _UNIT_TD[u] * (whole + frac) * sign
                if u in ("hour", "minute", "second"):
                    # a minute and a half (1分半钟前) lands on a second: keep it
                    exact_s = u == "second" or (u == "minute" and frac != 0)
                    finest = "second" if exact_s or finest == "second" else "minute"
        if f.get("calendar") and len(f["offset"]) == 1:  # 上两周, 下三天: whole units next to the current one
            n, u = f["offset"][0]
            return ("range", *_whole_units(ref, int(n), u, sign, tz), u, None)
        if f.get("within"):
            lo, hi = sorted((ref, t))
            if f.get("to_day_end") and sign > 0:  # 三天内: to 24:00 of the day the count lands on (民法典 第二百零三条)
                hi = datetime.combine(t.date() + timedelta(days=1), time(0), tz)
            return "range", lo.replace(microsecond=0), hi.replace(microsecond=0), "second", None
        if finest == "day":
            d = t.date()
            kind, lo, hi = "date", d, d + timedelta(days=1)
        else:
            t = t.replace(microsecond=0)  # the instant the offset names, to the second (一刻钟后 at 01:06:40 is 01:21:40)
            kind, lo, hi = "datetime", t, t + _UNIT_TD[finest]
        if f.get("open") in ("以后", "after"):  # 三天以后, "after 3 days": from the day it names on
            return "range", lo, None, finest, None
        if f.get("open") == "以前":  # 三天以前: up to the end of the day it names
            return "range", None, _end_of_named_unit(f["offset"], lo, hi) if finest == "day" else hi, finest, None
        return kind, lo, hi, finest, None
    if f.get("part") in _DAY_PARTS and not any(k in f for k in ("pod", "hour", "period", "part_period", "month_shift")) \
            and any(k in f for k in ("rel_day", "weekday", "day")):
        f = {**f, "pod": _DAY_PARTS[f["part"]]}  # early Monday, late Friday: the early morning / late evening of that day
    if f.get("now"):
        t = ref.replace(microsecond=0)
        dp = _date_part(f, anchor or ref.date())
        if dp is not None and dp[2] == "day":
            t = datetime.combine(dp[0], t.timetz()).replace(tzinfo=tz)
        return "datetime", t, t + timedelta(seconds=1), "second", None
    today = anchor or ref.date()
    dp = _date_part(f, today)
    has_clock = "hour" in f
    if not has_clock and "pod" not in f:
        if dp is None:
            raise _Invalid("no date", {"kind": "no_date"})
        s, e, g = dp
        return ("date" if g == "day" and e - s == timedelta(days=1) else "range"), s, e, g, None
    if dp is not None and dp[2] != "day":
        s, e, g = dp  # a time of day on a whole week/month: keep the period
        return "range", s, e, g, None
    day = dp[0] if dp else today
    if has_clock:
        h, extra = _hour(f["hour"], f)
        mi, sec = f.get("minute") or 0, f.get("second") or 0
        if f.get("midnight"):
            extra = 1
        if not f.get("ampm") and not f.get("pod") and not f.get("h24") and 1 <= f["hour"] <= 12:
            if dp is None:
                cand = [datetime.combine(day, time(hh, mi, sec), tz) for hh in (h % 12, h % 12 + 12)]
                later = [c for c in cand if c >= ref.replace(microsecond=0)]
                # both of today's readings gone: tomorrow's, read as 明天H点 is (1–6 o'clock in the
                # afternoon) — "3点" said at 16:00 is 15:00 tomorrow, never 03:00 in the night
                start = later[0] if later else cand[1 if 1 <= f["hour"] <= 6 else 0] + timedelta(days=1)
                grain = "second" if f.get("second") is not None else "minute" if f.get("minute") is not None else "hour"
                return "datetime", start, start + _UNIT_TD[grain], grain, None
            if 1 <= f["hour"] <= 6:
                h = f["hour"] + 12
        start = datetime.combine(day + timedelta(days=extra), time(h, mi, sec), tz)
        if dp is None and f.get("future") and start < ref.replace(microsecond=0) and "rel_day" not in f:
            start += timedelta(days=1)  # 早上6点叫我 asked at 10:00 is tomorrow's 6:00 (Time-NLP's future tendency)
        grain = "second" if f.get("second") is not None else "minute" if f.get("minute") is not None else "hour"
        return "datetime", start, start + _UNIT_TD[grain], grain, None
    sh, eh, _ = PARTS_OF_DAY[f["pod"]]
    if f.get("part") in ("early", "late", "mid"):
        # early morning, late tonight: the first / last half of the part of day (the middle half for mid)
        half = (eh - sh) / 2
        sh, eh = {"early": (sh, sh + half), "late": (eh - half, eh), "mid": (sh + half / 2, eh - half / 2)}[f["part"]]
        sh, eh = int(sh), int(-(-eh // 1))
    if dp is None and f.get("future") and "rel_day" not in f and \
            datetime.combine(day + timedelta(days=eh // 24), time(eh % 24), tz) <= ref:
        day += timedelta(days=1)  # "remind me in the morning" asked in the evening: tomorrow morning
    start = datetime.combine(day, time(sh), tz)
    end = datetime.combine(day + timedelta(days=eh // 24), time(eh % 24), tz)
    return "range", start, end, "part_of_day", None


def _point(f: dict[str, Any], kind: str, start: Any, end: Any) -> date | datetime | None:
    """Where a one-off event on a resolved frame falls (``TimeExpr.point``; rules in the module docstring
    and :mod:`.temporal_periods`)."""
    if kind in ("duration", "invalid"):
        return None
    if start is None:
        return _last_inside(end)
    part = f.get("part")
    if part not in ("early", "mid", "late") or not f.get("part_edge") or isinstance(start, datetime) or end is None:
        return start
    if part == "late":
        week = f.get("period") == "week" or f.get("part_period") == "week"
        return start if week else end - timedelta(days=1)
    if part == "mid":
        return start + timedelta(days=((end - start).days - 1) // 2)
    return start


def _last_inside(end: Any) -> date | datetime | None:
    """The last day inside a half-open end (an exclusive date), or the instant itself."""
    if end is None:
        return None
    return end if isinstance(end, datetime) else end - timedelta(days=1)


def _as_dt(v: date | datetime, tz: ZoneInfo) -> datetime:
    return v if isinstance(v, datetime) else datetime.combine(v, time(0), tz)


def parse_times(text: str | Normalized, ref: datetime, tz: ZoneInfo | str) -> list[TimeExpr]:
    """Find and resolve every time expression in ``text``.

    :param text: original text, or its :class:`Normalized` form (spans always index the original).
    :param ref: the reference instant; aware (any zone) or naive (taken as local time in ``tz``).
    :param tz: IANA zone name or :class:`zoneinfo.ZoneInfo`; "today" is the local date there.
    :return: expressions in text order, non-overlapping.
    :raises zoneinfo.ZoneInfoNotFoundError: unknown zone name.
    """
    tz = ZoneInfo(tz) if isinstance(tz, str) else tz
    norm = text if isinstance(text, Normalized) else normalize(text)
    ref = ref.replace(tzinfo=tz) if ref.tzinfo is None else ref.astimezone(tz)
    t = norm.text
    groups = [_count_of_months(norm, _count_of_days(norm, _digit_year(norm, g))) for g in _group(t, _select(find_atoms(t)))]
    groups = [g for g in groups if _spoken_year_said_with_a_date(g)]
    groups = _listed_days(norm, groups)
    if "\u00b7" in norm.original:
        groups = _middle_dot_dates(norm, groups)
    every = (zh_every(t) if "每" in t else []) + (en_every(t) if _EN_EVERY_CUE.search(t) else [])
    anchor_of: dict[int, Every] = {}  # a group's start → the 每-phrase it is the time of (每周一, 每天早上8点)
    apart: dict[int, tuple[int, int]] = {}  # an anchor's start → the span of its clock time said apart from it
    if every:
        groups, anchor_of, apart = _every_anchors(t, groups, every)
    recurring = bool(every) or bool(_RECURRENCE.search(t))
    if _FUTURE.search(t) and not _PAST.search(t):
        for g in groups:
            g.f["future"] = True
    out: list[TimeExpr] = []
    i = 0
    while i < len(groups):
        g = groups[i]
        nxt = groups[i + 1] if i + 1 < len(groups) else None
        expr = None
        anchored = _anchored(norm, g, nxt, ref, tz)
        if anchored is not None:  # 4 days from today, two days before Christmas, 春节前三天
            out.append(anchored[0])
            i += anchored[1]
            continue
        around = _week_around(norm, g, nxt, ref, tz)
        if around is not None:  # the weekend after Thanksgiving, the week before Christmas
            out.append(around[0])
            i += around[1]
            continue
        nth = _nth_weekday_from(norm, g, nxt, ref, tz)
        if nth is not None:  # the third Tuesday after Christmas 2014, the first Sunday before Easter
            out.append(nth)
            i += 2
            continue
        lead = _AFTER_LEAD.search(t, 0, g.start) if nxt is not None else None
        if lead and "hour" in g.f and "hour" in nxt.f and _BUT_BEFORE.match(t[g.end:nxt.start]):
            # later than 9:30 but before 11:00: between the two clock times (of days, "after Monday" would not hold it)
            expr = _range(norm, _Group(lead.start(), g.end, g.f, g.cats), nxt, ref, tz)
            if expr is not None:
                out.append(expr)
                i += 2
                continue
        joined = _offset_joined(t, g, nxt, ref, tz)
        if joined is not None:  # in 7 days at 5pm, at 7 in 3 years, Christmas in 2 years, today in one hour
            out.append(_single(norm, joined, ref, tz))
            i += 2
            continue
        if nxt is not None and t[g.end:nxt.start] == "/" and all(k in f for f in (g.f, nxt.f) for k in ("year", "month", "day")):
            expr = _range(norm, g, nxt, ref, tz)  # ISO 8601's start/end interval: 2015-03-28 17:00/2015-03-29 21:00
            if expr is not None:
                out.append(expr)
                i += 2
                continue
        ends_series = nxt is not None and g.start in anchor_of and "hour" not in nxt.f and \
            any(k in nxt.f for k in _DATE_KEYS) and bool(_UNTIL_CONN.match(t[g.end:nxt.start]))
        if nxt is not None and not ends_series and (_RANGE_CONN.match(t[g.end:nxt.start]) or _zone_both_ends(t, g, nxt)):
            conn = (_RANGE_CONN.match(t[g.end:nxt.start]) or _zone_both_ends(t, g, nxt))[1]
            between = (conn == "and" and re.search(r"between\s*$", t[:g.start])) or \
                (conn in ("和", "与", "跟") and re.match(r"\s*(?:之间|中间)", t[nxt.end:]))
            if conn not in ("and", "和", "与", "跟") or between:
                expr = _range(norm, g, nxt, ref, tz, either_order=bool(between))
                if expr is not None:
                    out.append(expr)
                    i += 2
                    continue
        m = _DAY_RANGE_END.match(t, g.end) if "day" in g.f and "month" in g.f and "hour" not in g.f else None
        if m and (m[1] != "and" or re.search(r"between\s*$", t[:g.start])) and 1 <= int(m[2]) <= 31:
            # "March 5 to 12", "June 1-15, 2024": the second end is a bare day of the same month (and year)
            f1 = {**g.f, "year": int(m[3])} if m[3] and "year" not in g.f else g.f
            last = _Group(m.start(2), m.end(), {"day": int(m[2])} | ({"year": int(m[3])} if m[3] else {}), {"date"})
            expr = _range(norm, _Group(g.start, g.end, f1, g.cats), last, ref, tz)
            if expr is not None:
                out.append(expr)
                i += 1
                while i < len(groups) and groups[i].start < m.end():
                    i += 1  # the year after the second day belongs to the range
                continue
        m = _WEEKDAY_RANGE_END.match(t, g.end) if "weekday" in g.f and "hour" not in g.f else None
        if m:  # 星期三至四, 周一到五: the second end is a bare weekday number of the same week
            last = _Group(m.start(1), m.end(), {"weekday": _ZH_WD_NUM[m[1]], "wd_mode": "upcoming"}, {"date"})
            expr = _range(norm, g, last, ref, tz)
            if expr is not None:
                out.append(expr)
                i += 1
                continue
        if "day" in g.f and "month" in g.f and "hour" not in g.f and not (out and out[-1].span[1] > g.start - 3):
            # "13 to 15 July", "1-8 september", "from the 13 to the 15th of July": a bare first day
            m = _DAY_RANGE_START.search(t[:g.start])
            if m and 1 <= int(m[1]) <= 31:
                first = _Group(m.start(1), m.end(1), {"day": int(m[1])}, {"date"})
                expr = _range(norm, first, g, ref, tz)
                if expr is not None:
                    out.append(expr)
                    i += 1
                    continue
        if g.f.get("period") == "month" and "month" in g.f and "day" not in g.f and "hour" not in g.f:
            # 2019年1-5月, 2018年2——4月: the first end is a bare month number, in the year said before it
            # (十二至一月 without a year: the second end is next year's, as 十二月至一月)
            m = re.search(r"(?<![\d.:/-])(1[0-2]|[1-9])\s*(?:到|至|~|--?)\s*$", t[:g.start])
            prev = groups[i - 1] if i > 0 else None
            with_year = m is not None and prev is not None and prev.end == m.start(1) and prev.f.get("period") == "year" \
                and set(prev.f) <= {"year", "year_shift", "period"} and bool(out) \
                and tuple(out[-1].span) == norm.span(prev.start, prev.end) and int(m[1]) <= g.f["month"]
            alone = m is not None and set(g.f) == {"month", "period"} and not (
                out and out[-1].span[1] > norm.span(m.start(1), m.end(1))[0])  # the number is no earlier expression's
            if with_year or alone:
                year = {k: v for k, v in prev.f.items() if k != "period"} if with_year else {}
                first = _Group(prev.start if with_year else m.start(1), m.end(1),
                               {**year, "month": int(m[1]), "period": "month"}, {"date"})
                expr = _range(norm, first, _Group(g.start, g.end, {**g.f, **year}, g.cats), ref, tz)
                if expr is not None:
                    if with_year:
                        out.pop()
                    out.append(expr)
                    i += 1
                    continue
        date_after = "date" in g.cats and "clock" in g.cats and bool(_NUMBER_AT.match(t[g.start:]))
        if "clock" in g.cats and ("date" not in g.cats or date_after):
            # "2到4点", "between 2 and 4 pm": the first end is a bare number; "between 2 and 4 tomorrow": on the
            # second end's day (the day said after both clock times)
            m = _RANGE_START_HOUR.search(t[:g.start])
            if m:
                v = en_number(m[1]) if not m[1].isdigit() else int(m[1])
                if v is not None and v == int(v) and 0 <= v <= 24 and (m[2] != "and" or re.search(r"between\s*$", t[:m.start()])):
                    day = {k: x for k, x in g.f.items() if k not in _CLOCK_KEYS or k in ("pod", "future")} if date_after else {}
                    first = _Group(m.start(1), m.end(1), {**day, "hour": int(v), "minute": None},
                                   {"clock", "date"} if day else {"clock"})
                    prev = groups[i - 1] if i > 0 else None
                    joined = prev is not None and prev.cats in ({"date"}, {"date", "pod"}, {"pod"}) and "hour" not in prev.f and out \
                        and tuple(out[-1].span) == norm.span(prev.start, prev.end) \
                        and _DATE_THEN_RANGE.match(t[prev.end:m.start(1)])
                    if joined:  # "tomorrow from 9 to 11am", "this Thu 9-11am", 明天晚上9~11点: the date (and part of day) before holds for both ends
                        first = _Group(prev.start, m.end(1), {**prev.f, "hour": int(v), "minute": None}, {"date", "clock"})
                    expr = _range(norm, first, g, ref, tz)
                    if expr is not None and joined:
                        out.pop()
                    if expr is not None and not (out and out[-1].span[1] > expr.span[0]):
                        out.append(expr)
                        i += 1
                        continue
        m = _BARE_HOUR_END.match(t, g.end) if "hour" in g.f and g.cats <= {"clock", "date", "pod"} else None
        if m and not (nxt is not None and nxt.start < m.end()):
            # "8am until 6", "from 9:30 to 11": a bare hour ends the range, read after its start (_range)
            v = en_number(m[1]) if not m[1].isdigit() else int(m[1])
            end_f: dict[str, Any] = {"hour": int(v or 0), "minute": None}
            if v is not None and 1 <= v <= 12 and any(g.f.get(k) for k in ("ampm", "h24", "pod")):
                sh = _hour(g.f["hour"], g.f)[0]  # a start said with am/pm: the end is the first such hour after it
                eh = next((h for h in (int(v) % 12, int(v) % 12 + 12) if h > sh), None)
                end_f = {"hour": eh, "minute": None, "h24": True} if eh is not None else {}
            if v is not None and 1 <= v <= 12 and end_f:
                expr = _range(norm, g, _Group(m.start(1), m.end(1), end_f, {"clock"}), ref, tz)
                if expr is not None and expr.kind == "range":
                    out.append(expr)
                    i += 1
                    continue
        # in a recurring schedule, clock times and durations belong to the recurrence, not to one date
        in_recurrence = recurring and not any(k in g.f for k in _DATE_KEYS) and not g.f.get("now") and (
            "offset" not in g.f or g.f.get("within")) and not (every and _UNTIL_BEFORE.search(t, 0, g.start))
        # 现在的X is "the current X" (an attribute, like English "current"), not a time; "for now" is an idiom
        attributive_now = g.cats == {"now"} and ((t.startswith("的", g.end) and not _STATE_NOUN.match(t, g.end + 1))
                                                 or t.endswith("for ", 0, g.start))
        if _part_only(g.f):  # "early", "end of", 月中 with no period to take them of
            i += 1
            continue
        if g.start in anchor_of or not (_RECURRING.search(t[:g.start]) or g.f.get("recurring") or looks_like_title(norm, g)
                or in_recurrence or attributive_now or looks_like_address(norm, g) or inside_name(norm, g)
                or meal_as_object(norm, g, out)):
            op = open_markers(t, g.start, g.end, clock="hour" in g.f) \
                if "offset" not in g.f and "duration" not in g.f else None
            if "opened_by" in g.f:  # the signal inside the group ("tomorrow after lunch", _group)
                g.f = dict(g.f)
                op = (g.f.pop("opened_by"), op[1] if op else "", g.start, op[3] if op else g.end)
            if op and (op[0] == "since" or op[1] in ("以来", "至今")) and g.f.get("wd_mode") == "upcoming":
                g.f = {**g.f, "wd_mode": "recent"}
            x = _single(norm, g, ref, tz)
            if op and not (out and out[-1].span[1] > norm.span(op[2], op[3])[0]):
                s0, e0 = norm.span(op[2], op[3])
                x = open_range(x, op[0], op[1], ref, norm.original[s0:e0], (s0, e0))
            out.append(x)
        i += 1
    if every:
        out = _recurrences(norm, out, every, anchor_of, ref, tz, apart)
    if "每" in t or "工作日" in t or (_EN_SET_CUE.search(t) is not None):
        out = _weekday_sets(norm, out, ref, tz)
    if any(x.kind == "recurrence" for x in out) and len(out) > 1:
        out = _recurrence_ends(norm, out, ref, tz)
    if _LENGTH_UNIT.search(t) and _LENGTH_JOIN.search(t):  # (a cheap test first: no Chinese unit, no range of lengths)
        out = _length_ranges(norm, out)
    if any(x.grain in ("hour", "minute", "second") for x in out):  # a zone can only follow a clock time
        out = [_in_named_zone(norm.original, x, tz) for x in out]
    if len(out) > 1 and ("for" in t or "起" in t or "开始" in t):
        out = _for_a_while(norm.original, out)
    return out


# 6·30, 5·12, 9·11: a month and a day joined by a middle dot name a day (the Chinese way of naming a date and
# what happened on it: 5·12汶川地震, 6·18); a middle dot between other numbers is none
_MIDDLE_DOT_DATE = lazyre.compile(r"(?<![\d.\u00b7])(1[0-2]|0?[1-9])\u00b7(3[01]|[12]\d|0?[1-9])(?![\d.\u00b7%])")


def _middle_dot_dates(norm: Normalized, groups: list[_Group]) -> list[_Group]:
    """``groups`` with a date group for each month·day of the original text that no group covers."""
    out = list(groups)
    for m in _MIDDLE_DOT_DATE.finditer(norm.original):
        a, b = norm.nspan(m.start(), m.end())
        if b > a and not any(g.start < b and a < g.end for g in out):
            out.append(_Group(a, b, {"month": int(m[1]), "day": int(m[2])}, {"date"}))
    return sorted(out, key=lambda g: g.start)


_LIST_GAP = lazyre.compile(r"^\s*(?:,|和|及|与|或|以及)\s*$")


def _listed_days(norm: Normalized, groups: list[_Group]) -> list[_Group]:
    """9月10号、11号和12号: a bare day said in a list after a date that names its month is in that month (and
    year), as a range's second end is (_range); a bare day alone stays in the reference month."""
    t = norm.text
    for k in range(1, len(groups)):
        p, g = groups[k - 1], groups[k]
        if set(g.f) - {"future"} == {"day"} and t[g.end - 1:g.end] in ("号", "日") and _LIST_GAP.match(t[p.end:g.start]) \
                and ("month" in p.f or "month_shift" in p.f) and "day" in p.f:
            inherit = {key: p.f[key] for key in ("year", "year_shift", "month", "month_shift") if key in p.f}
            groups[k] = _Group(g.start, g.end, {**inherit, **g.f}, g.cats)
    return groups


# ---- Chinese recurrences and ranges of lengths (temporal_recurrence.py reads them) ---------------------------
_ANCHOR_GAP = lazyre.compile(r"^(?:的|在)?$|^\s+(?:at|on|around|from)?\s*$")  # 每天早上8点; every day at 8am
#: how far (normalised characters) a clock time may stand from its recurrence in one clause ("set a daily reminder at 8am")
_FAR_ANCHOR_CHARS = 24
_CLAUSE_BREAK = lazyre.compile(r"[,，。.;；!！?？]|(?<![a-z])(?:and|but|then|or|until|till|through|thru|from)(?![a-z])|"
                               r"然后|但是|还有|并且|到|至|从|为止")
_EN_EVERY_CUE = lazyre.compile(r"every|each|hourly|daily|nightly|weekly|monthly|yearly|annually")


def _every_anchors(t: str, groups: list[_Group], every: list[Every]
                   ) -> tuple[list[_Group], dict[int, Every], dict[int, tuple[int, int]]]:
    """The groups without those inside a 每-phrase (每隔3天's 3天 says how often), and, by start, the groups that
    are the time of one (周一 of 每周一, 早上8点 of 每天早上8点, 15号 of 每个月15号): said right after 每-phrase (or
    starting inside it, as 周一 in 每周一) and read as the next such time (the future-oriented reading); a clock time
    said apart from it in the same clause is its time of day (早上八点每天, "set a daily reminder at 8am", 每周五提醒我
    下午四点…: then merged into its day, and the third value gives, by the day's start, the clock time's span)."""
    kept: list[_Group] = []
    anchor_of: dict[int, Every] = {}
    taken: set[int] = set()
    for g in groups:
        if any(e.start <= g.start and g.end <= e.end for e in every):
            continue
        for k, e in enumerate(every):
            if k not in taken and g.end > e.end and (e.start < g.start < e.end or (
                    g.start >= e.end and _ANCHOR_GAP.match(t[e.end:g.start]))):
                f = {**g.f, "future": True}
                if e.pod and "hour" in f and not any(k in f for k in ("pod", "ampm", "h24")):
                    f["pod"] = e.pod  # 每晚十点: ten in the evening
                g = _Group(g.start, g.end, f, g.cats)
                anchor_of[g.start] = e
                taken.add(k)
                break
        kept.append(g)
    # a clock time said apart from its recurrence, in the same clause ("set a daily reminder at 8am", 早上八点每天
    #提醒我吃药, "every day remind me at 8 to stretch"): the time of day of a recurrence that has none, the nearest
    apart: dict[int, tuple[int, int]] = {}
    for k, e in enumerate(every):
        if e.unit in ("second", "minute", "hour"):  # every hour has no time of day
            continue
        day = next((g for g in kept if anchor_of.get(g.start) is e), None) if k in taken else None
        if k in taken and (day is None or any(key in day.f for key in ("hour", "pod"))):
            continue  # its time said with it (每天早上8点, every Monday at 9)
        a, b = (min(e.start, day.start), max(e.end, day.end)) if day is not None else (e.start, e.end)
        best = None
        for j, g in enumerate(kept):
            if g.start in anchor_of or any(key in g.f for key in _DATE_KEYS) or not ("hour" in g.f or g.cats == {"pod"}) \
                    or "offset" in g.f or "duration" in g.f or g.f.get("now"):
                continue
            gap = t[g.end:a] if g.end <= a else t[b:g.start] if g.start >= b else None
            if gap is None or len(gap) > _FAR_ANCHOR_CHARS or _CLAUSE_BREAK.search(gap):
                continue
            if best is None or len(gap) < best[0]:
                best = (len(gap), j)
        if best is None:
            continue
        g = kept[best[1]]
        f = {**g.f, "future": True}
        if e.pod and "hour" in f and not any(key in f for key in ("pod", "ampm", "h24")):
            f["pod"] = e.pod
        if day is None:
            kept[best[1]] = _Group(g.start, g.end, f, g.cats)
            anchor_of[g.start] = e
            taken.add(k)
            continue
        merged = _merge_frames(day.f, f)  # 每周五 … 下午四点: Friday at 16:00
        if merged is None:
            continue
        kept[kept.index(day)] = _Group(day.start, day.end, merged, day.cats | g.cats)
        del kept[best[1]]
        apart[day.start] = (g.start, g.end)
    return kept, anchor_of, apart


def _recurrences(norm: Normalized, out: list[TimeExpr], every: list[Every], anchor_of: dict[int, Every],
                 ref: datetime, tz: ZoneInfo, apart: dict[int, tuple[int, int]] | None = None) -> list[TimeExpr]:
    """``out`` with each expression said after a 每-phrase turned into a ``recurrence`` spanning both, and a
    ``recurrence`` without a first occurrence for each 每-phrase followed by no time (每隔3天, 每年); 每晚 alone
    comes in the evening (its part of day)."""
    first = {norm.span(s, s + 1)[0]: e for s, e in anchor_of.items()}
    clock_of = {norm.span(s, s + 1)[0]: norm.span(*sp) for s, sp in (apart or {}).items()}
    res: list[TimeExpr] = []
    for x in out:
        e = first.get(x.span[0])
        if e is None or x.kind == "duration":
            res.append(x)
            continue
        s0, e0 = norm.span(e.start, e.end)
        if s0 <= x.span[0] and (x.span[0] < e0 or _ANCHOR_GAP.match(norm.original[e0:x.span[0]])):  # 每天早上8点
            span, parts = (s0, x.span[1]), None
        elif x.span[1] == s0 or (x.span[1] < s0 and not norm.original[x.span[1]:s0].strip()):  # 早上八点每天
            span, parts = (x.span[0], e0), None
        else:  # said apart: 早上八点每天, "daily reminder at 8am"
            span, parts = (min(s0, x.span[0]), max(e0, x.span[1])), tuple(sorted([(s0, e0), tuple(x.span)]))
        clock = clock_of.get(x.span[0])
        if clock is not None:  # 每周五提醒我下午四点…: the day's clock time said apart from it
            parts = tuple(sorted([*(parts or (span,)), clock]))
            span = (min(span[0], clock[0]), max(span[1], clock[1]))
        res.append(_next_occurrence(replace(x, kind="recurrence", span=span, text=norm.original[span[0]:span[1]],
                                            every=(e.n, e.unit), parts=parts), ref, tz))
    for e in every:
        if e in anchor_of.values():
            continue
        s0, e0 = norm.span(e.start, e.end)
        if any(x.span[0] < e0 and s0 < x.span[1] for x in res):
            continue
        if e.pod:
            x = _single(norm, _Group(e.start, e.end, {"pod": e.pod, "future": True}, {"pod"}), ref, tz)
            res.append(_next_occurrence(replace(x, kind="recurrence", every=(e.n, e.unit)), ref, tz))
        else:
            res.append(TimeExpr("recurrence", None, None, e.unit, norm.original[s0:e0], (s0, e0), every=(e.n, e.unit)))
    return sorted(res, key=lambda x: x.span)


_ZH_WEEKDAY_CHAR = "一二三四五六日"
_EN_WEEKDAY_NAME = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _weekday_sets(norm: Normalized, out: list[TimeExpr], ref: datetime, tz: ZoneInfo) -> list[TimeExpr]:
    """``out`` with each set of weekdays (每周一三五, 每周一到周五, 工作日早上8点, 周末每天, "every weekday"; see
    :func:`.temporal_recurrence.zh_weekday_sets`, :func:`~.temporal_recurrence.en_weekday_sets`) as one weekly
    ``recurrence`` with ``days``, in place of what the
    parse made of its parts. The time said after the set is read as it is after 每周X (每周一早上8点, one parse);
    the recurrence's first occurrence is the first of the days on which that time is not over."""
    sets = [(a, b, days, "每周" + _ZH_WEEKDAY_CHAR[days[0] - 1]) for a, b, days in zh_weekday_sets(norm.text)] \
        if "每" in norm.text or "工作日" in norm.text else []
    if _EN_SET_CUE.search(norm.text):
        sets += [(a, b, days, "every " + _EN_WEEKDAY_NAME[days[0] - 1]) for a, b, days in en_weekday_sets(norm.text)
                 if not any(a < b2 and a2 < b for a2, b2, _, _ in sets)]
    if not sets:
        return out
    o = norm.original
    res = list(out)
    for a, b, days, lead in sets:
        s0, e0 = norm.span(a, b)
        sub = next((x for x in parse_times(lead + o[e0:], ref, tz) if x.span[0] == 0 and x.kind == "recurrence"), None)
        if sub is None or sub.start is None or sub.end is None:
            continue
        timed = isinstance(sub.start, datetime)
        length = _as_dt(sub.end, tz) - _as_dt(sub.start, tz)
        to_point = _as_dt(sub.point, tz) - _as_dt(sub.start, tz) if sub.point is not None else timedelta(0)
        instant = sub.grain in ("hour", "minute", "second")  # a clock time is over once it has begun (_next_occurrence)
        best = None
        for d in days:
            day = ref.date() + timedelta(days=(d - ref.isoweekday()) % 7)
            for _ in range(2):
                st = _as_dt(datetime.combine(day, sub.start.time(), tz) if timed else day, tz)
                if (st >= ref) if instant else (st + length > ref):
                    break
                day += timedelta(days=7)
            if best is None or st < best:
                best = st
        start, end, point = best, best + length, best + to_point
        if not timed:
            start, end, point = start.date(), end.date(), point.date()
        def at(p: int, n: int = len(lead)) -> int:  # a place in lead + o[e0:] → in the original text
            return s0 if p < n else e0 + p - n

        span = (s0, e0 + max(0, sub.span[1] - len(lead)))
        parts = tuple((at(a), max(at(b - 1) + 1, e0 if a < len(lead) else 0)) for a, b in sub.parts) if sub.parts else None
        res = [x for x in res if all(x.span[1] <= a or x.span[0] >= b for a, b in (parts or (span,)))]
        res.append(replace(sub, start=start, end=end, point=point, span=span, text=o[span[0]:span[1]],
                           every=(1.0, "week"), days=days, parts=parts))
    return sorted(res, key=lambda x: x.span)


#: between a recurrence's clock time and a day: the day ends the series ("every Monday at 9 until Friday the 18th",
#: 每天早上八点到月底), it is no range from the one to the other
_UNTIL_CONN = lazyre.compile(r"^\s*(?:到|至|直到|一直到|until|untill|till|til|through|thru)\s*(?:the\s+)?$")
#: the words before a time that say a repetition ends then (直到下周五, 截止到12月18号, "until Friday", "through the 20th")
_UNTIL_BEFORE = lazyre.compile(r"(?:一直到|直到|截止到|截至到|截止|截至|持续到|持續到|坚持到|到|至|(?<![a-z])(?:until|untill|till|til|through|thru|"
                               r"up\s+to|up\s+until|ending(?:\s+on)?|ends?\s+on|stop(?:ping)?\s+(?:on|after)|and\s+stop\s+on))"
                               r"\s*(?:the\s+)?$")
#: the words after it (到月底为止, 到周五结束, 至12月18日止)
_UNTIL_AFTER = lazyre.compile(r"\s*(?:为止|為止|止|结束|結束|截止)")
_END_GRAINS = frozenset({"day", "week", "weekend", "month", "season", "quarter", "year"})


def _recurrence_ends(norm: Normalized, out: list[TimeExpr], ref: datetime, tz: ZoneInfo) -> list[TimeExpr]:
    """``out`` with each time said as the end of a recurrence ("until Friday the 18th", 到月底为止, 直到下周五,
    "through December 20") folded into the nearest recurrence as its ``until`` (RFC 5545 UNTIL, inclusive: the
    last day — 月底 is the month's last day, the point of the expression — or the last instant of a clock
    time), and dropped as a time of its own. An end before the first occurrence that names no year (1月底
    said in December) is next year's."""
    t, o = norm.text, norm.original
    res = list(out)
    for y in out:
        if y.kind not in ("date", "datetime", "range") or y not in res:
            continue
        a, b = norm.nspan(*y.span)
        before, after = _UNTIL_BEFORE.search(t, 0, a), _UNTIL_AFTER.match(t, b)
        if before is None and not (after and y.start is None):
            continue
        series = [x for x in res if x.kind == "recurrence" and x.until is None]
        if not series:
            break
        x = min(series, key=lambda r: (r.span[0] > y.span[0], abs(r.span[0] - y.span[0])))
        fine = y.grain not in _END_GRAINS
        until = (y.end if y.start is None else y.start) if fine and y.point is None else y.point
        if until is None:
            continue
        if isinstance(until, datetime) and not fine:
            until = until.date()
        first = x.start
        before_first = first is not None and (
            until < _as_dt(first, tz).date() if not isinstance(until, datetime) else until < _as_dt(first, tz))
        if before_first and not re.search(r"\d{4}|年", y.text):
            until = until.replace(year=until.year + 1)  # 到1月底 said in December: the coming January
        cs = norm.span(before.start(), a)[0] if before else y.span[0]
        ce = norm.span(b, after.end())[1] if after else y.span[1]
        parts = tuple(sorted([*x.spans, (cs, ce)]))
        span = (min(x.span[0], cs), max(x.span[1], ce))
        res[res.index(x)] = replace(x, until=until, parts=parts, span=span, text=o[span[0]:span[1]])
        res.remove(y)
    return sorted(res, key=lambda x: x.span)


def _next_occurrence(x: TimeExpr, ref: datetime, tz: ZoneInfo) -> TimeExpr:
    """A recurrence whose first occurrence as said is over (每月初 asked on the 25th) moved on by its period
    until it ends after ``ref`` (a clock time: until it is at or after ``ref``) (a month or a year by the calendar, clamping the day as offsets do)."""
    if x.start is None or x.end is None or x.every is None or x.kind != "recurrence":
        return x
    n, unit = x.every
    months = {"month": 1, "quarter": 3, "year": 12}.get(unit)
    if months is None and unit not in _UNIT_TD or n != int(n) and months:
        return x

    def move(v, k):
        if v is None:
            return None
        if months:
            y, m = _add_months(v.year, v.month, int(n) * months * k)
            return v.replace(year=y, month=m, day=min(v.day, calendar.monthrange(y, m)[1]))
        return v + _UNIT_TD[unit] * n * k

    # a clock time is an instant: once it has passed (每天早上7点 asked at 07:30) the next one is the first; a day or a
    # part of day still going on (每周三 asked on a Wednesday) is
    clock = x.grain in ("hour", "minute", "second")
    k = 0
    while (_as_dt(move(x.start, k), tz) < ref if clock else _as_dt(move(x.end, k), tz) <= ref) and k < 1000:
        k += 1
    return replace(x, start=move(x.start, k), end=move(x.end, k), point=move(x.point, k)) if k else x


_LENGTH_UNIT = lazyre.compile(r"[秒钟时头天日周期拜度月年]")
_LENGTH_JOIN = lazyre.compile(r"(?:到|至|~|-|或)\s*\d|以下")


def _length_ranges(norm: Normalized, out: list[TimeExpr]) -> list[TimeExpr]:
    """``out`` with each range of lengths (3~6个月, 两到三天, 3年以上7年以下) as one ``duration`` whose ``seconds``
    is the shortest and ``seconds_max`` the longest, in place of the expressions it overlaps."""
    got = zh_length_range(norm.text)
    if not got:
        return out
    res = list(out)
    for a, b, lo, hi in got:
        s0, e0 = norm.span(a, b)
        inside = [x for x in res if x.span[0] < e0 and s0 < x.span[1]]
        if any(x.kind != "duration" and not (s0 <= x.span[0] and x.span[1] <= e0) for x in inside):
            continue  # 5月2到3日: a part of a date, not a length
        res = [x for x in res if x not in inside]
        res.append(TimeExpr("duration", None, None, "second", norm.original[s0:e0], (s0, e0), lo, seconds_max=hi))
    return sorted(res, key=lambda x: x.span)


# ---- a time and how long from it: "18th Dec for 10 days", "4pm for 30 mins", "for 10 days from 18th Dec" --------
_FOR_AFTER = lazyre.compile(r"^\s*,?\s*for\s*$", re.I)
_FOR_BEFORE = lazyre.compile(r"^\s*(?:(?:starting|beginning)\s+(?:at\s+|on\s+)?)?(?:from\s*)?$", re.I)
_FOR_LEAD = lazyre.compile(r"(?:^|\s)(for|from)\s+$|(从|自)\s*$", re.I)
_ZH_FROM_FOR = lazyre.compile(r"^\s*(?:起|开始|起的)\s*,?\s*$")


def _for_a_while(original: str, out: list[TimeExpr]) -> list[TimeExpr]:
    """Join a time and a duration said with "for" into the range that starts at the time (half-open):
    a whole number of days after a date stays a date range; up to four weeks (a month or a year as a
    length has no fixed number of days)."""
    res: list[TimeExpr] = []
    i = 0
    while i < len(out):
        a, b = out[i], out[i + 1] if i + 1 < len(out) else None
        pair = None
        if b is not None:
            gap = original[a.span[1]:b.span[0]]
            if a.kind in ("date", "datetime") and b.kind == "duration" and _FOR_AFTER.match(gap):
                pair = (a, b)
            elif a.kind == "range" and a.end is None and a.start is not None and b.kind == "duration" \
                    and _ZH_FROM_FOR.match(gap):
                pair = (a, b)  # 明天起三天, 下周一开始两周: for that long from then
            elif a.kind == "duration" and (b.kind in ("date", "datetime") or (b.kind == "range" and b.end is None
                                                                            and b.start is not None)) \
                    and _FOR_BEFORE.match(gap) and _FOR_LEAD.search(original[:a.span[0]]):
                pair = (b, a)  # "for 10 days from Dec 18", "for 30 minutes starting from 4pm" (opened by its word)
        if pair is None or not pair[1].seconds or pair[1].seconds > 28 * 86400:
            res.append(a)
            i += 1
            continue
        x, d = pair
        lead = _FOR_LEAD.search(original[:min(a.span[0], b.span[0])])
        s0 = lead.start(lead.lastindex) if lead else min(a.span[0], b.span[0])
        span = (s0, max(a.span[1], b.span[1]))
        if isinstance(x.start, datetime):
            end = x.start + timedelta(seconds=d.seconds)
            grain = x.grain if d.seconds % _UNIT_TD.get(x.grain, timedelta(minutes=1)).total_seconds() == 0 else "minute"
        elif d.seconds % 86400 == 0:
            end, grain = x.start + timedelta(days=d.seconds // 86400), "day"
        else:
            res.append(a)
            i += 1
            continue
        res.append(replace(x, kind="range", end=end, grain=grain, span=span, text=original[span[0]:span[1]],
                           point=x.start))
        i += 2
    return res


# ---- a clock said in a named zone: "Thursday 8:00 GMT", "4pm CET", "9 am (BST)" ----------------------
#: UTC offsets (minutes) of the zone abbreviations of the IANA tz database as English speakers use them;
#: CST and IST are ambiguous (China / US Central, India / Ireland / Israel): the US and Indian readings
#: are taken, as Duckling's English rules do
_ZONES = {"utc": 0, "gmt": 0, "z": 0, "wet": 0, "bst": 60, "cet": 60, "cest": 120, "eet": 120, "eest": 180,
          "msk": 180, "ist": 330, "sgt": 480, "hkt": 480, "awst": 480, "jst": 540, "kst": 540, "aest": 600,
          "aedt": 660, "nzst": 720, "nzdt": 780, "hst": -600, "akst": -540, "akdt": -480, "pst": -480, "pdt": -420,
          "mst": -420, "mdt": -360, "cst": -360, "cdt": -300, "est": -300, "edt": -240, "ast": -240, "adt": -180}
_ZONE_AFTER = lazyre.compile(r"\s*(\()?(" + "|".join(sorted((k for k in _ZONES if len(k) > 1), key=len, reverse=True))
                             + r")(?(1)\)|)(?![A-Za-z])", re.I)


def _zone_both_ends(t: str, g: "_Group", nxt: "_Group") -> re.Match[str] | None:
    """"15:00 GMT - 18:00 GMT": the same zone after both clock times of a range; the connector's match (the
    zone after the range, which :func:`_in_named_zone` reads, holds for both ends)."""
    zm = _ZONE_AFTER.match(t, g.end) if "hour" in g.f and "hour" in nxt.f else None
    zn = _ZONE_AFTER.match(t, nxt.end) if zm else None
    if zn is None or zn[2].lower() != zm[2].lower():
        return None
    return _RANGE_CONN.match(t[zm.end():nxt.start])


def _in_named_zone(original: str, x: TimeExpr, tz: ZoneInfo) -> TimeExpr:
    """A clock time followed by a zone abbreviation is that wall time in that zone, moved to ``tz``."""
    if x.kind not in ("datetime", "range") or x.grain not in ("hour", "minute", "second"):
        return x
    m = _ZONE_AFTER.match(original, x.span[1])
    if m is None:
        return x
    zone = timezone(timedelta(minutes=_ZONES[m[2].lower()]))

    def move(v):
        return v.replace(tzinfo=zone).astimezone(tz) if isinstance(v, datetime) else v

    span = (x.span[0], m.end())
    start = move(x.start)
    grain = "minute" if x.grain == "hour" and isinstance(start, datetime) and start.minute else x.grain  # 9 am IST
    return replace(x, start=start, end=move(x.end), point=move(x.point), span=span,
                   text=original[span[0]:span[1]], grain=grain)


_BARE_HOUR_END = lazyre.compile(r"\s*(?:-|to|until|untill|till)\s*(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|"
                                r"eleven|twelve)(?![\d:.]|[a-z])(?!\s*(?:[ap]\.?m\b|o'?clock|people|persons?|guests?|of\b|"
                                r"hours?|days?|minutes?|weeks?|months?|years?|times?|%))")
_NTH_BEFORE = lazyre.compile(r"(?<![a-z])(?:the\s+)?(first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th)\s+$")
_NTH = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5}
_AFTER_OR_BEFORE = lazyre.compile(r"^\s*(after|before)\s+(?:the\s+)?$")


def _nth_weekday_from(norm: Normalized, g: _Group, nxt: _Group | None, ref: datetime, tz: ZoneInfo) -> TimeExpr | None:
    """"the third Tuesday after Christmas 2014", "Tuesday after Christmas": the Nth (first) such weekday strictly
    after (or before) a date."""
    t = norm.text
    if nxt is None or set(g.f) - {"weekday", "wd_mode", "future"} or "weekday" not in g.f:
        return None
    lead, gap = _NTH_BEFORE.search(t, 0, g.start), _AFTER_OR_BEFORE.match(t[g.end:nxt.start])
    if gap is None:
        return None
    try:
        kind, d, _e, _g, _s = _resolve(nxt.f, ref, tz)
    except (_Invalid, OverflowError, ValueError):
        return None
    if kind != "date":
        return None
    n, wd = (_NTH[lead[1]] if lead else 1), g.f["weekday"]  # "Tuesday after Christmas": the first
    if gap[1] == "after":
        day = d + timedelta(days=(wd - d.isoweekday()) % 7 or 7) + timedelta(weeks=n - 1)
    else:
        day = d - timedelta(days=(d.isoweekday() - wd) % 7 or 7) - timedelta(weeks=n - 1)
    return _single(norm, _Group(lead.start(1) if lead else g.start, nxt.end,
                                {"year": day.year, "month": day.month, "day": day.day}, {"date"}), ref, tz)


_EN_WEEK_BEFORE_DAY = lazyre.compile(r"(?<![a-z])(?:the\s+)?week\s+(after|before)\s+(?:the\s+)?$")


def _week_around(norm: Normalized, g: _Group, nxt: _Group | None, ref: datetime,
                 tz: ZoneInfo) -> tuple[TimeExpr, int] | None:
    """"the weekend after Thanksgiving", "the weekend before Easter": the first Saturday–Sunday wholly after (the
    last wholly before) the day said; "the week after Easter", "the week before Christmas": the Monday-start week
    after (before) the one that holds it. (expression, groups used) or None."""
    t = norm.text
    if g.f == {"period": "weekend", "week_shift": 0} and nxt is not None and not re.search(
            r"(?:this|next|last|coming|past|following)\s+$", t[:g.start]):
        gap, day_g, start, used = _AFTER_OR_BEFORE.match(t[g.end:nxt.start]), nxt, g.start, 2
        unit = "weekend"
    else:
        m = _EN_WEEK_BEFORE_DAY.search(t, 0, g.start)
        gap, day_g, start, used, unit = (m, g, m.start() if m else 0, 1, "week")
        if m is not None and m.end() != g.start:
            gap = None
    if gap is None:
        return None
    try:
        kind, d, _e, _g, _s = _resolve(day_g.f, ref, tz)
    except (_Invalid, OverflowError, ValueError):
        return None
    if kind != "date":
        return None
    if unit == "weekend":
        sat = d + timedelta(days=(6 - d.isoweekday()) % 7 or 7) if gap[1] == "after" else \
            d - timedelta(days=(d.isoweekday() - 7) % 7 or 7) - timedelta(days=1)
        a, b, grain = sat, sat + timedelta(days=2), "weekend"
    else:
        monday = d - timedelta(days=d.isoweekday() - 1) + timedelta(weeks=1 if gap[1] == "after" else -1)
        a, b, grain = monday, monday + timedelta(weeks=1), "week"
    s, e = norm.span(start, day_g.end)
    return TimeExpr("range", a, b, grain, norm.original[s:e], (s, e), point=a), used


#: "later than X but before Y", "after X and before Y": the range between them
_AFTER_LEAD = lazyre.compile(r"(?<![a-z])(?:later than|after)\s+$")
_BUT_BEFORE = lazyre.compile(r"^\s*,?\s*(?:but|and)\s+(?:before|earlier than|no later than)\s+$")
_CLOCK_AFTER_OFFSET = lazyre.compile(r"^\s*,?\s*(?:at\s+|@\s*)?$")
_WHOLE_UNITS = frozenset({"day", "week", "fortnight", "month", "year"})


def _offset_joined(t: str, g: _Group, nxt: _Group | None, ref: datetime, tz: ZoneInfo) -> _Group | None:
    """An offset from now said with another time, as one expression (None when they are not such a pair):

    - a clock time and an offset of whole days or more, either order ("in 7 days at 5pm", "at 7 in 3 years",
      "two weeks from now at 9am"): that clock on the day the offset lands on;
    - a yearless holiday, lunar date or month followed by an offset of whole months or years ("Christmas in
      2 years", "Lakshmi Puja six years hence", "March in a year"): that date in the year the offset lands in;
    - today before an offset of hours or minutes ("today in one hour"): the offset.
    """
    if nxt is None or ("offset" in g.f) == ("offset" in nxt.f):
        return None
    off, other = (g, nxt) if "offset" in g.f else (nxt, g)
    if off.f.get("within") or "now" in other.cats or "duration" in other.f:
        return None
    units = {u for _, u in off.f["offset"]}
    gap = t[g.end:nxt.start]
    clock_only = other.cats <= {"clock", "pod"} and "hour" in other.f and not any(k in other.f for k in _DATE_KEYS)
    if clock_only and units <= _WHOLE_UNITS and (_CLOCK_AFTER_OFFSET.match(gap) if off is g else not gap.strip()):
        try:
            kind, d, _e, _g, _s = _resolve(off.f, ref, tz)
        except (_Invalid, OverflowError, ValueError):
            return None
        if kind != "date":
            return None
        return _Group(g.start, nxt.end, {**other.f, "year": d.year, "month": d.month, "day": d.day}, {"date", "clock"})
    if off is g or gap.strip():
        return None  # the other forms say the date first and the offset right after it
    named = ("holiday" in g.f and not g.f.get("hol_rel")) or "lunar" in g.f or \
        ("month" in g.f and not g.f.get("month_rel") and "day" not in g.f)
    if named and g.cats == {"date"} and units <= {"month", "year"} \
            and not any(k in g.f for k in ("year", "year_shift", "rel_day", "weekday")):
        months = sum(int(n * (12 if u == "year" else 1)) for n, u in off.f["offset"]) * off.f["direction"]
        y, _m = _add_months(ref.year, ref.month, months)
        return _Group(g.start, nxt.end, {**g.f, "year": y}, set(g.cats))
    if {k: v for k, v in g.f.items() if k != "future"} == {"rel_day": 0} and units <= {"hour", "minute"} \
            and off.f["direction"] > 0:
        return _Group(g.start, nxt.end, dict(nxt.f), set(nxt.cats))
    return None


_EN_ANCHOR_GAP = lazyre.compile(r"^\s*(from|after|before|on)\s*(?:the\s+)?$")
#: British "Monday week", "tomorrow week", "Friday fortnight": a week (two) after the day said (Cambridge Dictionary,
#: "week": "a week on Monday / Monday week, the Monday after next")
_EN_DAY_WEEK = lazyre.compile(r"\s+(week|fortnight)(?![a-z'-])")


def _a_day_said(f: dict[str, Any]) -> bool:
    """The frame names one day by its weekday or as today/tomorrow, nothing more (the anchor of "a week on Monday",
    "Monday week"; "June week" or "Monday morning week" is none)."""
    return set(f) <= {"weekday", "wd_mode", "rel_day"} and ("weekday" in f or f.get("rel_day") in (0, 1))
_EN_DAY_ANCHOR = lazyre.compile(r"(?<![a-z])(?:the\s+)?day\s+(after|before)\s+(?:the\s+)?$")
_ZH_ANCHOR_AFTER = lazyre.compile(r"的?(之前|之后|以前|以后|前|后)的?(\d+|半)(个)?(半)?(天|日|周|星期|礼拜|个月|月|年|小时|钟头|分钟)"
                              r"(?![前后内以之里])")
_ZH_ANCHOR_UNIT = {"天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week", "个月": "month", "月": "month",
                   "年": "year", "小时": "hour", "钟头": "hour", "分钟": "minute"}


def _anchored(norm: Normalized, g: _Group, nxt: _Group | None, ref: datetime,
              tz: ZoneInfo) -> tuple[TimeExpr, int] | None:
    """A quantity before or after a named time, not now: "4 days from today", "two days before Christmas",
    "a week after Monday", "the day after Thanksgiving", 春节前三天, 国庆后两天 (the named time is the anchor,
    as SUTime and Duckling resolve them). (expression, groups used) or None."""
    t = norm.text
    qty = sign = anchor = None
    used = 1
    s0 = e0 = None  # the expression's bounds when they are not the atoms' (the day after X, X前三天)
    if "duration" in g.f and nxt is not None and not {"duration", "now"} & nxt.cats and "offset" not in nxt.f:
        m = _EN_ANCHOR_GAP.match(t[g.end:nxt.start])
        if m and m[1] in ("from", "on") and re.search(r"(?:^|\s)for\s+$", t[:g.start]):
            m = None  # "for 10 days from Dec 18" is how long from then, not the day ten days after it
        if m and m[1] == "on" and not (all(u in ("week", "fortnight") for _, u in g.f["duration"]) and _a_day_said(nxt.f)):
            m = None  # British "a week on Monday", "two weeks on Friday" (= from); "an hour on Monday" is a length
        if m:
            qty, sign, anchor, used = g.f["duration"], (-1 if m[1] == "before" else 1), nxt, 2
    elif "offset" in g.f and not g.f.get("within") and nxt is not None and re.search(r"(?:before|after)$", t[g.start:g.end]) \
            and not {"duration", "now"} & nxt.cats and "offset" not in nxt.f and not t[g.end:nxt.start].strip(" ") \
            .removeprefix("the").strip():
        qty, sign, anchor, used = g.f["offset"], g.f["direction"], nxt, 2
    elif "offset" not in g.f and "duration" not in g.f:
        m = _EN_DAY_ANCHOR.search(t, 0, g.start)
        w = _EN_DAY_WEEK.match(t, g.end) if _a_day_said(g.f) else None
        if m and m.end() == g.start:
            qty, sign, anchor, s0 = [(1.0, "day")], (-1 if m[1] == "before" else 1), g, m.start()
        elif w and not (nxt is not None and nxt.start < w.end()):
            qty, sign, anchor, e0 = [(1.0, w[1])], 1, g, w.end()  # Monday week, tomorrow week, Friday fortnight
        else:
            m = _ZH_ANCHOR_AFTER.match(t, g.end)
            if m and not (nxt is not None and nxt.start < g.end):
                n = 0.5 if m[2] == "半" else float(m[2])
                qty, sign, anchor = [(n + (0.5 if m[4] else 0), _ZH_ANCHOR_UNIT[m[5]])], (-1 if "前" in m[1] else 1), g
                e0 = m.end()
                if nxt is not None and nxt.start < e0:
                    used = 2  # the window or duration atom of 前三天 belongs to this expression
    if qty is None:
        return None
    try:
        kind, a, _b, grain, _ = _resolve(anchor.f, ref, tz)
    except (_Invalid, OverflowError, ValueError):
        return None
    if kind not in ("date", "datetime") or a is None:
        return None
    for n, u in qty:
        if u in ("month", "year"):
            y, mo = _add_months(a.year, a.month, int(n * sign * (12 if u == "year" else 1)))
            a = a.replace(year=y, month=mo, day=min(a.day, calendar.monthrange(y, mo)[1]))
        elif isinstance(a, datetime) or u in ("day", "week", "fortnight"):
            a = a + _UNIT_TD[u] * n * sign
        else:
            a = datetime.combine(a, time(0), tz) + _UNIT_TD[u] * n * sign
    if isinstance(a, datetime):
        fine = "minute" if any(u in ("hour", "minute") for _, u in qty) else grain if grain in _UNIT_TD else "minute"
        a = a.replace(second=0, microsecond=0) if fine != "second" else a
        kind, b, grain = "datetime", a + _UNIT_TD[fine], fine
    else:
        kind, b, grain = "date", a + timedelta(days=1), "day"
    s, e = norm.span(min(g.start, anchor.start) if s0 is None else s0, max(g.end, anchor.end) if e0 is None else e0)
    return TimeExpr(kind, a, b, grain, norm.original[s:e], (s, e), point=a), used


def _part_only(f: dict[str, Any]) -> bool:
    return "part" in f and "part_period" not in f and not any(k in f for k in _DATE_KEYS if k != "part") \
        and not ("pod" in f and f["part"] in ("early", "mid", "late"))  # early morning, late evening


_CJK_DIGITS = frozenset("〇零○一二三四五六七八九")


def _spoken_year_said_with_a_date(g: _Group) -> bool:
    """False for a year in words alone (two thousand ten is also a count); one that completes a date loses its mark."""
    if not g.f.pop("spoken_year", False):
        return True
    return any(k in g.f for k in _DATE_KEYS if k not in ("year", "period")) or "hour" in g.f


def _digit_year(norm: Normalized, g: _Group) -> _Group:
    """九八年, 一九年: a number read digit by digit before 年 is a year (00–49 → 20xx, 50–99 → 19xx),
    while 九十八年 stays 98 years."""
    d = g.f.get("duration")
    if not (d and len(d) == 1 and d[0][1] == "year" and d[0][0] == int(d[0][0])):
        return g
    s, e = norm.span(g.start, g.end)
    digits = norm.original[s:e].rstrip("年")
    if len(digits) not in (2, 4) or not all(c in _CJK_DIGITS for c in digits):
        return g
    y = int(d[0][0])
    y = y if y >= 100 else y + (2000 if y < 50 else 1900)
    return _Group(g.start, g.end, {"year": y, "period": "year"}, {"date"})


def _count_of_days(norm: Normalized, g: _Group) -> _Group:
    """两日 is two days, never the 2nd: 两 counts (现代汉语词典 两: 用于量词和'半、千、万、亿'前), a date
    is said 二日/2日; and a bare N日 past 31 (90日) is a count of days, as no month has that day."""
    if g.cats != {"date"} or set(g.f) != {"day"}:
        return g
    s, e = norm.span(g.start, g.end)
    said = norm.original[s:e]
    if not (said.startswith("两") or (g.f["day"] > 31 and said.endswith("日"))):
        return g
    return _Group(g.start, g.end, {"duration": [(float(g.f["day"]), "day")]}, {"duration"})


_WINDOW_BEFORE = lazyre.compile(r"(过去|最近|近|前|上|后|未来|今后)的?$")


def _count_of_months(norm: Normalized, g: _Group) -> _Group:
    """两月 is two months, never February (二月 / 2月): 两 counts (as in _count_of_days); after a window word
    (前两月, 上两月, 过去两月, 未来两月) it is that window, else a duration."""
    if g.cats != {"date"} or set(g.f) != {"month", "period"} or g.f["month"] != 2:
        return g
    s, e = norm.span(g.start, g.end)
    if not norm.original[s:e].startswith(("两", "兩", "俩", "倆")):
        return g
    w = _WINDOW_BEFORE.search(norm.text, 0, g.start)
    if w is None:
        return _Group(g.start, g.end, {"duration": [(2.0, "month")]}, {"duration"})
    direction = 1 if w[1] in ("后", "未来", "今后") else -1
    return _Group(w.start(), g.end, {"offset": [(2.0, "month")], "direction": direction, "within": True}, {"offset"})


def _single(norm: Normalized, g: _Group, ref: datetime, tz: ZoneInfo) -> TimeExpr:
    s, e = norm.span(g.start, g.end)
    try:
        kind, start, end, grain, secs = _resolve(g.f, ref, tz)
        return TimeExpr(kind, start, end, grain, norm.original[s:e], (s, e), secs, point=_point(g.f, kind, start, end))
    except _Invalid as exc:
        return TimeExpr("invalid", None, None, "day", norm.original[s:e], (s, e), reason=str(exc), problem=exc.problem)
    except (OverflowError, ValueError):  # "99999999天后": beyond the calendar (year 9999)
        return TimeExpr("invalid", None, None, "day", norm.original[s:e], (s, e), reason="out of the calendar's range",
                        problem=dict(_OUT_OF_CALENDAR))


def _range(norm: Normalized, g1: _Group, g2: _Group, ref: datetime, tz: ZoneInfo,
           either_order: bool = False) -> TimeExpr | None:
    """X到Y, from X to Y; ``either_order`` for "between X and Y" / X和Y之间, where the earlier one starts it."""
    f1, f2 = dict(g1.f), dict(g2.f)
    if any(k in f for f in (f1, f2) for k in ("duration", "offset")) or "now" in f2 or (
            "now" in f1 and (set(f1) - {"now", "future"} or "hour" not in f2 and not any(k in f2 for k in _DATE_KEYS))):
        return None  # "from now until Friday", "between now and 5pm", 从现在到周五 start now; "now" is no range's end
    if "now" in f1:
        f2["future"] = True  # a range from now ends ahead of it: "from now until 9am" asked at 10:00 is tomorrow's 9:00
    # the second end borrows what it does not say from the first (下午2点到4点, 6月1日到15日)
    if "hour" in f2 and "hour" in f1:
        for k in ("ampm", "pod"):
            if k in f1 and "ampm" not in f2 and "pod" not in f2:
                f2[k] = f1[k]
            if k in f2 and "ampm" not in f1 and "pod" not in f1:
                f1[k] = f2[k]
    if "hour" in f1 and "hour" in f2 and not any(k in f1 for k in _DATE_KEYS) and any(k in f2 for k in _DATE_KEYS) \
            and not f2.get("after_first"):
        # "9:30 - 11:00 on Thursday", "3点到5点，明天": a date said after both clocks holds for the first too
        for k, v in f2.items():
            if k not in _CLOCK_KEYS:
                f1.setdefault(k, v)
    elif "hour" in f1 and "hour" in f2 and any(k in f1 for k in _DATE_KEYS) and not any(k in f2 for k in _DATE_KEYS):
        # 明天3点到5点, "Friday from 2:30 to 4:00": the second clock is on the first's day, read by the same rule
        # (with a date, 1–6 o'clock is the afternoon), so the range does not run backwards to 05:00
        for k, v in f1.items():
            if k not in _CLOCK_KEYS:
                f2.setdefault(k, v)
    if "day" in f1 and "month" not in f1 and "month" in f2 and "day" in f2 and not any(
            k in f1 for k in ("weekday", "rel_day", "month_shift", "period")):
        # "from the 13th to the 15th of July": a bare first day is in the second end's month (and year)
        f1["month"] = f2["month"]
        if "year" in f2:
            f1.setdefault("year", f2["year"])
    if "day" in f2 and "month" not in f2 and "month" in f1 and "month_shift" not in f2:
        # (a second end that names its month by a shift — 次月2日, 下个月2号 — keeps its own)
        f2["month"] = f1["month"]
        if "year" in f1:
            f2.setdefault("year", f1["year"])
    year_rolls = False
    if "month" in f2 and "month" in f1 and not any(k in f2 for k in ("year", "year_shift")):
        # 2024年5月28日到6月3日, 明年12月30日到1月2日: a second end that names its month but no year is in
        # the first end's year, or the year after when it would come before the first end
        if "year" in f1:
            f2["year"] = f1["year"]
        elif "year_shift" in f1:
            f2["year_shift"] = f1["year_shift"]
        year_rolls = ("year" in f2 or "year_shift" in f2) and "month" in g2.f and isinstance(f1["month"], int) \
            and isinstance(f2["month"], int) and f2["month"] < f1["month"]
    lead = re.search(r"(?:from|between|从|由|自)\s*(?:the\s+)?$", norm.text[:g1.start])
    s1 = norm.span(lead.start() if lead else g1.start, g1.end)[0]
    s2 = norm.span(g2.start, g2.end)[1]
    text = norm.original[s1:s2]
    try:
        k1, a1, b1, gr1, _ = _resolve(f1, ref, tz)
        date_keys = ("rel_day", "weekday", "day", "month", "period", "year")
        if f2.get("after_first") and isinstance(a1, (date, datetime)):  # 13:20~次日05:40: the day after the first end
            k2, a2, b2, gr2, _ = _resolve(f2, ref, tz, anchor=a1 if not isinstance(a1, datetime) else a1.date())
        elif not any(k in f2 for k in date_keys) and isinstance(a1, (date, datetime)):
            k2, a2, b2, gr2, _ = _resolve(f2, ref, tz, anchor=a1 if not isinstance(a1, datetime) else a1.date())
        elif "weekday" in f2 and f2.get("wd_mode") == "upcoming" and a1 is not None:
            if "week_shift" in f1 and f1.get("wd_mode") == "week":
                f2["wd_mode"], f2["week_shift"] = "week", f1["week_shift"]
                k2, a2, b2, gr2, _ = _resolve(f2, ref, tz)
            else:
                anchor = a1.date() if isinstance(a1, datetime) else a1
                k2, a2, b2, gr2, _ = _resolve(f2, ref, tz, anchor=anchor)
        else:
            k2, a2, b2, gr2, _ = _resolve(f2, ref, tz)
    except _Invalid as exc:
        return TimeExpr("invalid", None, None, "day", text, (s1, s2), reason=str(exc), problem=exc.problem)
    except (OverflowError, ValueError):
        return TimeExpr("invalid", None, None, "day", text, (s1, s2), reason="out of the calendar's range",
                        problem=dict(_OUT_OF_CALENDAR))
    if a1 is None or b2 is None:
        return None
    roll = _roll(f2, g2.f)
    # (6月1号和5月3号之间 may be said in either order: a dated second end keeps its year there)
    if roll is not None and _ends_before(a1, b2, tz) and not (either_order and "day" in g2.f and "month" in g2.f):
        # 12号到3号, 十二月至一月, 周五到周一: a bare second end that comes before the first is its next one
        try:
            k2, a2, b2, gr2, _ = _resolve({**f2, **roll}, ref, tz) if "days" not in roll else \
                (k2, a2 + timedelta(days=7), b2 + timedelta(days=7), gr2, None)
        except (_Invalid, OverflowError, ValueError):
            pass
    if year_rolls and _ends_before(a1, b2, tz):
        try:
            bump = {"year": f2["year"] + 1} if "year" in f2 else {"year_shift": f2["year_shift"] + 1}
            k2, a2, b2, gr2, _ = _resolve({**f2, **bump}, ref, tz)
        except (_Invalid, OverflowError, ValueError):
            pass
    if k2 == "datetime":
        b2 = a2  # "2点到4点" ends at 4:00, while "6月1日到15日" includes the 15th
    if isinstance(a1, datetime) != isinstance(b2, datetime):
        a1, b2 = _as_dt(a1, tz), _as_dt(b2, tz)
    if b2 <= a1 and either_order and a2 is not None and b1 is not None:
        a2_, b1_ = (a2, b1) if isinstance(a2, datetime) == isinstance(b1, datetime) else (_as_dt(a2, tz), _as_dt(b1, tz))
        a1, b2 = a2_, (b1_ if k1 != "datetime" else a1)
    if b2 <= a1:
        return TimeExpr("invalid", None, None, gr1, text, (s1, s2), reason="range ends before it starts",
                        problem={"kind": "reversed_range"})
    return TimeExpr("range", a1, b2, min(gr1, gr2, key=_GRAIN_ORDER.index), text, (s1, s2), point=a1)


def _roll(f2: dict[str, Any], said: dict[str, Any]) -> dict[str, Any] | None:
    """How to move a range's second end that says only a day, a month or a weekday to its next occurrence
    (None when it says more, or when its month or year came from the first end: 3月12日到3日 stays reversed)."""
    if any(k in said for k in ("year", "year_shift", "month_shift", "rel_day", "hour", "holiday")) \
            or said.get("wd_mode", "upcoming") != "upcoming":
        return None  # 下周三, next Wednesday, 明年1月: the second end says where it is
    if "day" in said and "month" not in said and "weekday" not in said:
        return {"month_shift": f2.get("month_shift", 0) + 1} if "month" not in f2 else None
    if (said.get("period") == "month" or "day" in said) and "month" in said and "weekday" not in said:
        # 十二月至一月, 12月1号到1月1号: a yearless month (or day of one) before the first end is next year's
        return {"year_shift": f2.get("year_shift", 0) + 1} if "year" not in f2 else None
    if "weekday" in said and "day" not in said:
        return {"days": 7}
    return None


def _ends_before(a1: Any, b2: Any, tz: ZoneInfo) -> bool:
    if isinstance(a1, datetime) != isinstance(b2, datetime):
        a1, b2 = _as_dt(a1, tz), _as_dt(b2, tz)
    return b2 <= a1


# ---- saying what is wrong with an impossible date ---------------------------------------------
_EN_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
                   "October", "November", "December")


_EN_WD_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _en_ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def impossible_date_text(problem: TimeExpr | Mapping[str, Any] | None, lang: str) -> str:
    """One sentence saying why a time expression has no date, and nothing else.

    :param problem: an ``invalid`` :class:`TimeExpr`, its ``to_dict()``, or its ``problem`` mapping
        (see :class:`TimeExpr`); None or an unknown kind gives the generic sentence.
    :param lang: ``zh`` or ``en`` (anything else is English).
    :return: e.g. ``6月没有31号。`` / ``June has no 31st.``; for February 29 in a common year the
        year is named, because it is the year that makes the date impossible:
        ``2025年2月没有29号（2025年不是闰年）。`` / ``February 2025 has no 29th (2025 is not a leap year).``
    """
    if isinstance(problem, TimeExpr):
        problem = problem.problem
    elif isinstance(problem, Mapping) and "problem" in problem and "kind" in problem and problem.get("kind") == "invalid":
        problem = problem.get("problem")
    p: Mapping[str, Any] = problem if isinstance(problem, Mapping) else {}
    zh = lang == "zh"
    kind = p.get("kind")
    if kind == "no_such_day":
        y, m, d = int(p.get("year") or 0), int(p["month"]), int(p["day"])
        if m == 2 and d == 29 and y:
            return f"{y}年2月没有29号（{y}年不是闰年）。" if zh else \
                f"February {y} has no 29th ({y} is not a leap year)."
        return f"{m}月没有{d}号。" if zh else f"{_EN_MONTH_NAMES[m - 1]} has no {_en_ordinal(d)}."
    if kind == "no_such_month":
        return f"没有{p['month']}月。" if zh else f"There is no month {p['month']}."
    if kind == "reversed_range":
        return "这段时间的结束早于开始。" if zh else "That period ends before it starts."
    if kind == "no_such_lunar_day":
        return f"农历{p['month']}月只有{p['max_day']}天。" if zh else \
            f"Month {p['month']} of the lunar year {p.get('year')} has only {p['max_day']} days."
    if kind == "no_such_lunar_month":
        return f"{p.get('year')}年没有闰{p['month']}月。" if zh else f"The lunar year {p.get('year')} has no leap month {p['month']}."
    if kind == "no_such_ordinal":
        unit = {"month": ("这个月", "That month"), "year": ("这一年", "That year")}.get(p.get("grain"), ("这段时间", "That period"))
        if p.get("what") == "nth":
            wd = int(p.get("weekday") or 1)
            return f"{unit[0]}没有第{p.get('n')}个星期{'一二三四五六日'[wd - 1]}。" if zh else \
                f"{unit[1]} has no {_en_ordinal(int(p.get('n') or 0))} {_EN_WD_NAMES[wd - 1]}."
        return f"{unit[0]}没有第{p.get('n')}周。" if zh else f"{unit[1]} has no week {p.get('n')}."
    if kind == "out_of_calendar":
        return "这个日期超出了日历的范围。" if zh else "That date is beyond the calendar."
    return "这个日期不存在。" if zh else "That date does not exist."
