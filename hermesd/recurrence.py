"""Repeating schedules: the occurrences of "every n units" from a first occurrence (pure, stdlib only).

A :class:`Rule` is what a repeating reminder keeps: every ``every`` ``unit`` (minute, hour, day, week,
month, year) from ``start`` (its first occurrence), on the ISO weekdays ``days`` when a set was said
(每周一三五, "every weekday"), until ``until`` (exclusive) or for ``count`` occurrences, else unbounded.

- minute/hour steps are lengths of time (every 90 minutes is 90 minutes apart across a DST change);
- day and longer are wall-clock: the clock time of ``start`` in ``tz`` on each day (every day at 08:00
  in America/New_York stays 08:00 across DST). A clock time the spring-forward gap skips is read with
  the offset before the change (02:30 becomes 03:30); one the fall-back repeats is its first reading.
- month and year keep the day of ``start``: a day the month lacks is the month's last day (every month
  on the 31st falls on 30 April and 28/29 February, and on 31 May again); 29 February is 28 February
  in a common year.
- a week with ``days`` counts Monday-start ISO weeks from the week of ``start`` (every 2 weeks on
  Monday and Thursday: both days of every second week).

The shell (the reminder tool, the event bus) passes the instants in; nothing here reads a clock.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Any, Mapping
from zoneinfo import ZoneInfo

__all__ = ["UNITS", "BadRule", "Rule", "describe", "next_after", "nth"]

UNITS = ("minute", "hour", "day", "week", "month", "year")
_STEP_S = {"minute": 60, "hour": 3600}
#: bounds a binary search: no rule has more occurrences than this (every minute for 9,000 years is fewer)
_MAX_INDEX = 1 << 33


class BadRule(ValueError):
    """A rule that names no schedule (unknown unit, every < 1, a weekday outside 1-7, a naive start)."""


@dataclass(frozen=True, slots=True)
class Rule:
    """Every ``every`` ``unit`` from ``start``.

    :param every: a whole number of units, >= 1.
    :param unit: one of :data:`UNITS`.
    :param start: the first occurrence (aware); its wall clock in ``tz`` is the time of every occurrence
        of a day or longer unit, its day of month the day of a month or year unit.
    :param tz: IANA zone of the wall clock.
    :param days: ISO weekdays (1 = Monday) of a weekly rule, sorted; empty: ``start``'s weekday.
    :param until: no occurrence at or after this instant (aware), or None.
    :param count: at most this many occurrences, or None.
    :raises BadRule: on construction, when the fields name no schedule.
    """

    every: int
    unit: str
    start: datetime
    tz: str
    days: tuple[int, ...] = ()
    until: datetime | None = None
    count: int | None = None

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise BadRule(f"unit {self.unit!r} is not one of {', '.join(UNITS)}")
        if not isinstance(self.every, int) or self.every < 1:
            raise BadRule(f"every must be a whole number >= 1, not {self.every!r}")
        if self.start.tzinfo is None:
            raise BadRule("start has no offset")
        if self.days and (self.unit != "week" or any(not 1 <= d <= 7 for d in self.days)):
            raise BadRule(f"days {list(self.days)} need unit week and ISO weekdays 1-7")
        if list(self.days) != sorted(set(self.days)):
            raise BadRule(f"days {list(self.days)} are not sorted and distinct")
        if self.count is not None and self.count < 1:
            raise BadRule(f"count must be >= 1, not {self.count}")
        if self.until is not None and self.until.tzinfo is None:
            raise BadRule("until has no offset")

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.tz)

    def to_json(self) -> dict[str, Any]:
        """``{every, unit, start, tz, days, until, count}``; instants RFC 3339 with offset."""
        return {"every": self.every, "unit": self.unit, "start": self.start.isoformat(timespec="seconds"),
                "tz": self.tz, "days": list(self.days),
                "until": self.until.isoformat(timespec="seconds") if self.until else None, "count": self.count}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Rule":
        """The inverse of :meth:`to_json`. :raises BadRule: a missing or malformed field."""
        try:
            until = d.get("until")
            return cls(int(d["every"]), str(d["unit"]), datetime.fromisoformat(str(d["start"])), str(d["tz"]),
                       tuple(int(x) for x in d.get("days") or ()),
                       datetime.fromisoformat(str(until)) if until else None,
                       int(d["count"]) if d.get("count") is not None else None)
        except (KeyError, TypeError, ValueError) as e:
            if isinstance(e, BadRule):
                raise
            raise BadRule(f"not a rule: {e}") from None


def _wall(rule: Rule, day: date) -> datetime:
    """``start``'s clock time on ``day`` in the rule's zone, normalised (a time in a DST gap moves on)."""
    zone = rule.zone
    local = rule.start.astimezone(zone)
    dt = datetime(day.year, day.month, day.day, local.hour, local.minute, local.second, tzinfo=zone)
    return dt.astimezone(timezone.utc).astimezone(zone)


def _add_months(d: date, months: int, anchor_day: int) -> date:
    y, m = divmod(d.month - 1 + months, 12)
    year, month = d.year + y, m + 1
    return date(year, month, min(anchor_day, calendar.monthrange(year, month)[1]))


def nth(rule: Rule, i: int) -> datetime:
    """The occurrence with index ``i`` (0 = ``start``), ignoring ``until`` and ``count``.

    :raises OverflowError: beyond year 9999.
    """
    if i == 0:
        return rule.start
    if rule.unit in _STEP_S:
        # in UTC: aware arithmetic in one zone is wall-clock arithmetic, and these steps are lengths
        at = rule.start.astimezone(timezone.utc) + timedelta(seconds=_STEP_S[rule.unit] * rule.every * i)
        return at.astimezone(rule.zone)
    first = rule.start.astimezone(rule.zone).date()
    if rule.unit == "day":
        return _wall(rule, first + timedelta(days=rule.every * i))
    if rule.unit == "week" and not rule.days:
        return _wall(rule, first + timedelta(days=7 * rule.every * i))
    if rule.unit == "week":
        # the first week may begin after some of its days: count from the set's first day that week
        before = sum(1 for d in rule.days if d < first.isoweekday())
        j = i + before
        weeks, k = divmod(j, len(rule.days))
        monday = first - timedelta(days=first.isoweekday() - 1)
        return _wall(rule, monday + timedelta(days=7 * rule.every * weeks + rule.days[k] - 1))
    months = rule.every * i * (12 if rule.unit == "year" else 1)
    try:
        return _wall(rule, _add_months(first, months, first.day))
    except ValueError:
        raise OverflowError("beyond the calendar") from None


def next_after(rule: Rule, after: datetime) -> tuple[int, datetime] | None:
    """The first occurrence strictly after ``after`` (aware), as ``(index, instant)``; None when the rule
    has ended by then (``until``, ``count``, the calendar's end).

    A daemon that was down over several occurrences asks once with the present instant and gets the
    next one to come: the missed ones are not replayed.
    """
    if rule.start > after:
        i = 0
    else:
        lo, hi = 0, 1  # nth(lo) <= after < nth(hi)
        while True:
            try:
                if nth(rule, hi) > after:
                    break
            except OverflowError:
                return None
            lo, hi = hi, hi * 2
            if hi > _MAX_INDEX:
                return None
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if nth(rule, mid) > after:
                hi = mid
            else:
                lo = mid
        i = hi
    if rule.count is not None and i >= rule.count:
        return None
    at = nth(rule, i)
    if rule.until is not None and at >= rule.until:
        return None
    return i, at


_EN_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_ZH_DAYS = "一二三四五六日"
_ZH_UNITS = {"minute": "分钟", "hour": "小时", "day": "天", "week": "周", "month": "个月", "year": "年"}


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _en_list(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def describe(rule: Rule, lang: str) -> str:
    """How a person says the rule's repetition, without its clock time: "every Monday", "every weekday",
    "every other week on Monday and Thursday", "every 3 months on the 31st"; 每周一, 每个工作日, 每2周的周一、周四,
    每月31日. ``lang`` is ``zh`` or ``en`` (anything else reads as ``en``)."""
    local = rule.start.astimezone(rule.zone)
    n, unit = rule.every, rule.unit
    if lang == "zh":
        every = "每" if n == 1 else f"每{n}"
        if unit in ("minute", "hour", "day"):
            return f"{every}{_ZH_UNITS[unit]}"
        if unit == "week":
            days = rule.days or (local.isoweekday(),)
            if days == (1, 2, 3, 4, 5) and n == 1:
                return "每个工作日"
            if n == 1:
                return "每周" + "、".join(_ZH_DAYS[d - 1] for d in days)
            return f"每{n}周的" + "、".join(f"周{_ZH_DAYS[d - 1]}" for d in days)
        if unit == "month":
            return f"{every}{'月' if n == 1 else '个月的'}{local.day}日"
        return f"{every}年{local.month}月{local.day}日"
    every = "every" if n == 1 else ("every other" if n == 2 else f"every {n}")
    if unit in ("minute", "hour", "day"):
        return f"{every} {unit}" if n <= 2 else f"{every} {unit}s"
    if unit == "week":
        days = rule.days or (local.isoweekday(),)
        if days == (1, 2, 3, 4, 5) and n == 1:
            return "every weekday"
        names = _en_list([_EN_DAYS[d - 1] for d in days])
        if n == 1:
            return f"every {names}"
        return f"{every} week on {names}" if n == 2 else f"{every} weeks on {names}"
    if unit == "month":
        return f"{every} month on the {_ordinal(local.day)}" if n <= 2 else f"{every} months on the {_ordinal(local.day)}"
    on = f"{local.day} {calendar.month_abbr[local.month]}"
    return f"{every} year on {on}" if n <= 2 else f"{every} years on {on}"
