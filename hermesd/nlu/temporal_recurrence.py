"""Recurrences (Chinese and English) and Chinese ranges of lengths, read over normalised text (pure).

A recurrence is said with 每 and a unit of time (现代汉语词典 每: 指全体中的任何一个或一组; 隔: 间隔): 每天,
每周一, 每个月15号, 每年春节, 每隔3天, 每半个钟头. 每隔 N 天/周/月/年 leaves N whole units between two
occurrences (每隔一天 = every other day, every 2 days; 每隔3天 = every 4 days), while 每隔 N 秒/分钟/小时 is an
interval of that length (每隔5分钟 = every 5 minutes). :func:`zh_every` finds the 每-phrase and
says how often it comes; :mod:`.temporal` resolves the time said right after it (its *anchor*: 周一, 早上8点,
15号) to its first occurrence at or after the reference instant and returns a ``recurrence``.

A range of lengths (3~6个月, 两到三天, 13天—8周, 3年以上7年以下, 六个月以下) is a duration whose length lies
between two bounds: :func:`zh_length_range` finds one, as (start, end, shortest, longest) in seconds.

Both run on :func:`hermesd.nlu.normalize.normalize`'s output (ASCII digits: 每周一 → 每周1, 两到三天 → 2到3天).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .. import lazyre
from .temporal_atoms import register

__all__ = ["EN_SET_CUE", "Every", "UNIT_SECONDS_ZH", "en_every", "en_weekday_sets", "zh_every", "zh_length_range", "zh_weekday_sets"]

#: a unit's length in seconds as hermesd counts durations (a month 30 days, a quarter three of them, a year 365)
UNIT_SECONDS_ZH = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800, "month": 30 * 86400,
                   "quarter": 90 * 86400, "year": 365 * 86400}
_UNIT = {"秒钟": "second", "秒": "second", "分钟": "minute", "分": "minute", "小时": "hour", "钟头": "hour", "钟": "hour",
         "天": "day", "日": "day", "晚": "day", "夜": "day", "早": "day", "周": "week", "星期": "week", "礼拜": "week",
         "月": "month", "季度": "quarter", "季": "quarter", "年": "year"}
#: units counted as whole days or more: 隔 N of them leaves N whole ones between two occurrences
_WHOLE = frozenset({"day", "week", "month", "quarter", "year"})
#: the part of day 每晚 / 每早 name when no clock follows them (每晚 = 每天晚上)
_POD_OF = {"晚": "晚上", "夜": "晚上", "早": "早上"}

# 每 + (隔) + a count (3, 半, 两) + 个 + a unit; 每周 / 每个星期 / 每月 / 每年 / 每天; a bare 分 only after a count
# (每分钟, 每5分钟), 每周 not in 每周年 (an anniversary), 每日 not in 每日一歌 style titles is still every day
_EVERY = lazyre.compile(r"每(?P<gap>隔)?(?P<n>\d+(?:\.\d+)?|半|两|俩)?(?P<half>个?半)?(?P<ge>个)?"
                        r"(?P<unit>秒钟|分钟|小时|钟头|星期|礼拜|季度|秒|(?<=\d)分|(?<=[\d半])钟|天|日|晚|夜|早|周(?!年)|月|年|季)")


@dataclass(frozen=True, slots=True)
class Every:
    """One 每-phrase: ``[start, end)`` in normalised text, how often (``n`` units of ``unit``: 1 week, 3 days,
    0.5 year) and the part of day it names by itself (每晚 → 晚上) or None."""

    start: int
    end: int
    n: float
    unit: str
    pod: str | None = None


def _count(s: str | None) -> float | None:
    if s is None:
        return 1.0
    if s == "半":
        return 0.5
    if s in ("两", "俩"):
        return 2.0
    v = float(s)
    return v if v > 0 else None


def zh_every(text: str) -> list[Every]:
    """The 每-phrases of a normalised text, in order (每个人, 每次 name no time and are none)."""
    out = []
    for m in _EVERY.finditer(text) if "每" in text else ():
        n = _count(m["n"])
        if n is None:
            continue
        if m["half"]:
            n += 0.5  # 每一个半小时: every hour and a half
        unit = _UNIT[m["unit"]]
        if m["gap"] and unit in _WHOLE and n == int(n):
            n += 1  # 每隔一天 is every other day: one whole day between two (每隔5分钟 is every five minutes)
        out.append(Every(m.start(), m.end(), n, unit, _POD_OF.get(m["unit"])))
    return out


# English: every / each (+ other | + N) + a unit (every day, every 2 weeks, every other month); every + a weekday
# or a part of day (every Monday, every morning: the word is the recurrence's time, its unit a week or a day);
# daily / weekly / monthly / yearly / hourly / nightly (Merriam-Webster: "every day", "every night" …)
_EN_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_EN_EVERY = lazyre.compile(
    r"(?<![a-z])(?:every|each)\s+(?:(?P<other>other)\s+|(?P<n>\d+)\s+)?"
    r"(?:(?P<unit>second|minute|hour|day|week|month|year)s?(?![a-z])"
    rf"|(?=(?P<wd>{_EN_WEEKDAY})s?(?![a-z]))|(?=(?P<pod>morning|afternoon|evening|night)s?(?![a-z])))"
    r"|(?<![a-z])(?P<adv>hourly|daily|nightly|weekly|monthly|yearly|annually)(?![a-z])")
_EN_ADV = {"hourly": "hour", "daily": "day", "nightly": "day", "weekly": "week", "monthly": "month", "yearly": "year",
           "annually": "year"}
# daily / weekly … as an adjective names a thing, not a time ("send the weekly report", "my daily meds", "daily
# standup at 9"): after a determiner, or before a noun (a word an adverb of frequency is not followed by) - but
# "a daily reminder" / "a weekly alarm" still asks for one that repeats
_EN_DETERMINER_BEFORE = lazyre.compile(r"(?<![a-z])(?:the|a|an|my|our|your|his|her|their|its|this|that|these|those)\s+$")
_EN_ADVERB_FOLLOWS = lazyre.compile(r"\s*(?:$|[,.;:!?)]|\d|(?:to|at|on|in|from|until|till|starting|beginning|for|and|or|"
                                    r"by|before|after|around|about|between|please|except|if|when|with|except|"
                                    r"am|pm)(?![a-z]))")
_EN_REMINDER_AFTER = lazyre.compile(r"\s+(?:reminders?|alarms?|notifications?|nudges?|wake-?up calls?)(?![a-z])")


def _adjective(text: str, start: int, end: int) -> bool:
    """daily / weekly … at ``text[start:end]`` modifies a noun ("the weekly report") rather than saying how often."""
    if _EN_REMINDER_AFTER.match(text, end):
        return False
    return bool(_EN_DETERMINER_BEFORE.search(text, 0, start)) or not _EN_ADVERB_FOLLOWS.match(text, end)


def en_every(text: str) -> list[Every]:
    """The English recurrence phrases of a normalised (lower-case) text, in order; "every time", "each of
    them" name no time and are none. The span of "every Monday" / "every morning" is "every " alone: the
    weekday or part of day after it is the recurrence's time (:func:`.temporal._every_anchors`)."""
    out = []
    for m in _EN_EVERY.finditer(text):
        if m["adv"]:
            a = m["adv"]
            if _adjective(text, m.start(), m.end()):
                continue
            out.append(Every(m.start(), m.end(), 1.0, _EN_ADV[a], "night" if a == "nightly" else None))
            continue
        n = 2.0 if m["other"] else float(m["n"] or 1)
        if n <= 0:
            continue
        unit = m["unit"] or ("week" if m["wd"] else "day")
        out.append(Every(m.start(), m.end(), n, unit))
    return out


# ---- sets of weekdays: 每周一三五, 每周一到周五, 工作日, 周末每天 ------------------------------------------
_W = r"(?:周|星期|礼拜)"
_WD = {str(k): k for k in range(1, 8)} | {"日": 7, "天": 7}
#: 每周1,3,5 / 每周135 / 每周2和周4 / 每周6日: two or more days after one 每周 (a day said again with 周 may be 日/天; a
#: bare digit only 1-7, and 日 after 6: 每周六日). Not before a clock or a date word: 每周23点 is every Tuesday at 3, 每周112点 Monday at 12.
_SET = lazyre.compile(rf"每个?{_W}(?P<first>[1-7日天])(?P<rest>(?:[,、和及与/]?(?:{_W}[1-7日天]|[1-7]|(?<=6)日))+)"
                  r"(?![\d点时:.号])")
#: 每周1到周5 / 每个星期1至5 / 周1到周5每天: a run of days, every week (周五到周一 runs over the weekend)
_RUN = lazyre.compile(rf"每个?{_W}(?P<a>[1-7日天])(?:到|至|~|-)(?:{_W})?(?P<b>[1-7日天])(?![\d点时:.号])"
                  rf"|(?<!每)(?<!每个){_W}(?P<c>[1-7日天])(?:到|至|~|-)(?:{_W})?(?P<d>[1-7日天])每天")
#: 工作日 (每个工作日, 每逢工作日, 工作日每天): Monday to Friday, unless counted (5个工作日, 下个工作日, 非工作日: not a set)
#: or part of another word (工作日志 a work log, 工作日报, 工作日程)
_WORKDAY = lazyre.compile(r"(?:每个?|每逢|(?<![\d个几上下这本前后首末最非]))工作日(?:每天)?(?![内后前以之起志报程历记])")
#: 周末每天 / 每个周末两天: both days of the weekend (每个周末 alone is the weekend, every week)
_WEEKEND_DAILY = lazyre.compile(r"(?:每个?|每逢)?周末(?:每天|两天)")


def zh_weekday_sets(text: str) -> list[tuple[int, int, tuple[int, ...]]]:
    """Sets of weekdays of a normalised text (每周一三五 → 每周135, 每周一到周五, 工作日, 周末每天): (start, end, ISO
    weekdays 1-7 in order), in text order, non-overlapping. A recurrence on them comes every week on each of the
    days (GB/T 7408 weeks; 工作日 is Monday to Friday: the official make-up working days and holidays are not
    known here). A set that names one day twice (每周1,1) is none."""
    if not ("每" in text or "工作日" in text):
        return []
    found: list[tuple[int, int, tuple[int, ...]]] = []
    for m in _SET.finditer(text):
        days = [_WD[m["first"]]] + [_WD[c] for c in re.findall(r"[1-7日天]", m["rest"])]
        if len(set(days)) == len(days):
            found.append((m.start(), m.end(), tuple(sorted(days))))
    for m in _RUN.finditer(text):
        a, b = _WD[m["a"] or m["c"]], _WD[m["b"] or m["d"]]
        if a != b:
            found.append((m.start(), m.end(), tuple(sorted(((a - 1 + k) % 7) + 1 for k in range((b - a) % 7 + 1)))))
    for m in _WORKDAY.finditer(text):
        found.append((m.start(), m.end(), (1, 2, 3, 4, 5)))
    for m in _WEEKEND_DAILY.finditer(text):
        found.append((m.start(), m.end(), (6, 7)))
    out: list[tuple[int, int, tuple[int, ...]]] = []
    for s, e, days in sorted(found, key=lambda x: (x[0], -x[1])):
        if all(e <= s2 or s >= e2 for s2, e2, _ in out):
            out.append((s, e, days))
    return out


# English sets of weekdays: "every weekday" / "on weekdays" / "workdays" (Monday to Friday), "on weekends" / "every
# weekend day" (Saturday and Sunday), "every Monday and Thursday", "every Monday, Wednesday and Friday", "Mondays and
# Thursdays", "on Mondays" (a plural weekday is every such day: Merriam-Webster, "Mondays": on any Monday), "every
# Monday to Friday" / "every Monday through Friday"
_EN_WDS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_EN_WD = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_EN_WORKDAYS = lazyre.compile(r"(?<![a-z])(?:(?:every|each)\s+(?:single\s+)?(?:weekday|workday|work\s+day|working\s+day|business\s+day)"
                              r"|(?:on\s+)?(?:weekdays|workdays|working\s+days|business\s+days))(?![a-z])")
_EN_WEEKENDS = lazyre.compile(r"(?<![a-z])(?:(?:every|each)\s+weekend\s+day|(?:on\s+)?weekends)(?![a-z])")
_EN_LIST = lazyre.compile(rf"(?<![a-z])(?:(?:every|each)\s+(?P<a>{_EN_WD})s?(?P<rest>(?:\s*(?:,\s*(?:and\s+)?|and|&|or)\s*{_EN_WD}s?)+)"
                          rf"|(?:on\s+)?(?P<b>{_EN_WD})s(?P<rest2>(?:\s*(?:,\s*(?:and\s+)?|and|&|or)\s*{_EN_WD}s)*))(?![a-z])")
_EN_RUN = lazyre.compile(rf"(?<![a-z])(?:every|each)\s+(?P<a>{_EN_WD})\s*(?:to|through|thru|till|until|-)\s*(?P<b>{_EN_WD})(?![a-z])")
#: a plural weekday that is counted ("3 fridays from now", "these two mondays", "mondays ago"), not every such day
_EN_COUNTED_BEFORE = lazyre.compile(r"(?<![a-z])(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|few|several|many|some|"
                                    r"the|these|those|last|next|past|coming|both|other|first|all)\s+$")
_EN_COUNTED_AFTER = lazyre.compile(r"\s+(?:ago|from|before|after|later|earlier|hence|back|of)(?![a-z])")
#: a cheap test before :func:`en_weekday_sets`
EN_SET_CUE = lazyre.compile(r"weekday|workday|working day|business day|weekends|weekend day|(?:mon|tues|wednes|thurs|fri|satur|sun)days"
                            r"|(?:every|each)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day\s*(?:,|and|&|or|to|through|thru|-)")


def _en_day(word: str) -> int:
    w = word.lower().rstrip("s")
    return next(i + 1 for i, d in enumerate(_EN_WDS) if w == d)


def en_weekday_sets(text: str) -> list[tuple[int, int, tuple[int, ...]]]:
    """Sets of weekdays of a normalised (lower-case) English text, as :func:`zh_weekday_sets` gives them:
    (start, end, ISO weekdays in order), in text order, non-overlapping. "every Monday" alone is no set (it is
    the weekly recurrence :func:`en_every` reads); "Monday and Thursday" without every / a plural is a list of
    days, not a set; a set that names one day twice is none."""
    found: list[tuple[int, int, tuple[int, ...]]] = []
    for m in _EN_WORKDAYS.finditer(text):
        found.append((m.start(), m.end(), (1, 2, 3, 4, 5)))
    for m in _EN_WEEKENDS.finditer(text):
        found.append((m.start(), m.end(), (6, 7)))
    for m in _EN_RUN.finditer(text):
        a, b = _en_day(m["a"]), _en_day(m["b"])
        if a != b:
            found.append((m.start(), m.end(), tuple(sorted(((a - 1 + k) % 7) + 1 for k in range((b - a) % 7 + 1)))))
    for m in _EN_LIST.finditer(text):
        if m["b"] and (_EN_COUNTED_BEFORE.search(text, 0, m.start()) or _EN_COUNTED_AFTER.match(text, m.end())):
            continue  # "3 fridays from now", "the last two mondays", "mondays ago": counted days, not every such day
        first = m["a"] or m["b"]
        days = [_en_day(first)] + [_en_day(w) for w in re.findall(_EN_WD, m["rest"] or m["rest2"] or "")]
        if len(set(days)) == len(days):
            found.append((m.start(), m.end(), tuple(sorted(days))))
    out: list[tuple[int, int, tuple[int, ...]]] = []
    for s, e, days in sorted(found, key=lambda x: (x[0], -x[1])):
        if all(e <= s2 or s >= e2 for s2, e2, _ in out):
            out.append((s, e, days))
    return out


@register(r"(?:(?<=每月)|(?<=每个月))(\d{1,2})[日号](?!\d(?!\d?(?:[:点时])))", "date", needs=r"每个?月\d")
def _day_of_every_month(m: re.Match[str]) -> dict[str, Any]:
    """15号 of 每个月15号 / 每月4号: a day of the month said after 每(个)月 (a bare 15号 after 月 is read with the
    month's number, 6月15号, so it needs its own pattern here)."""
    return {"day": int(m[1])}


# ---- ranges of lengths ------------------------------------------------------------------------------
_LEN_UNIT = r"(?P<g{i}>个)?(?P<u{i}>秒钟|分钟|小时|钟头|星期|礼拜|季度|天|日|周|月|年|秒)"
_NUM = r"(?P<n{i}>\d+(?:\.\d+)?)(?P<w{i}>万)?(?P<h{i}>个?半)?"
# 3~6个月, 2到3天, 13-18天, 3天--8天, 13天-8周, 100到200个小时: two counts (the first may leave its unit to the second)
_RANGE = lazyre.compile(rf"(?<![\d.:/年月周-]){_NUM.format(i=1)}(?:{_LEN_UNIT.format(i=1)})?\s*(?:到|至|~|--?|或)\s*"
                        rf"{_NUM.format(i=2)}{_LEN_UNIT.format(i=2)}(?![前后内以之里后来起])")
# 3年以上7年以下, 15年以上,30年以下 (the law's 以上 / 以下: 刑法 第九十九条 "以上、以下、以内，包括本数"); 6个月以下
_LEGAL = lazyre.compile(rf"(?<![\d.])(?:{_NUM.format(i=1)}{_LEN_UNIT.format(i=1)}以上\s*,?\s*)?"
                        rf"{_NUM.format(i=2)}{_LEN_UNIT.format(i=2)}以下")


def _seconds(m: re.Match[str], i: int, unit: str | None = None) -> float:
    n = float(m[f"n{i}"]) * (10_000 if m[f"w{i}"] else 1) + (0.5 if m[f"h{i}"] else 0.0)  # 3万秒: 30000 s
    return n * UNIT_SECONDS_ZH[_UNIT[unit or m[f"u{i}"]]]


def _names_dates(m: re.Match[str]) -> bool:
    """1到3月 (January to March), 2019到2020年, 1到3日 (the 1st to the 3rd) name months, years and days:
    a count of months says 个 (1到3个月), of years is below 100 and of days runs past 31 (30~90日)."""
    u = m["u2"]
    if u == "月":
        return not m["g2"]
    if u == "年":
        return float(m["n2"]) >= 100
    return u == "日" and float(m["n2"]) <= 31


def zh_length_range(text: str) -> list[tuple[int, int, float, float]]:
    """Ranges of lengths of a normalised text: (start, end, shortest s, longest s), in order; a range whose
    first bound is not below the second (3到2天) is none, and so are ranges of dates (:func:`_names_dates`)."""
    out: list[tuple[int, int, float, float]] = []
    for rx in (_RANGE, _LEGAL):
        for m in rx.finditer(text):
            if _names_dates(m):
                continue
            if rx is _LEGAL and m["n1"] is None:
                lo = 0.0
            else:
                lo = _seconds(m, 1, m["u1"] or m["u2"])
            hi = _seconds(m, 2)
            if lo < hi and not any(s < m.end() and m.start() < e for s, e, _, _ in out):
                out.append((m.start(), m.end(), lo, hi))
    return sorted(out)
