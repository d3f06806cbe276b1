"""Time-expression atoms: regexes over normalised text and the frame fields each yields (pure).

An atom is the smallest time phrase (一个日期, a clock time, a part of day, an
offset). :mod:`.temporal` merges adjacent atoms into expressions and resolves
them. Every pattern runs on the output of :func:`hermesd.nlu.normalize.normalize`
(lower-case, ASCII digits, CJK spaces removed).
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, Callable

from .. import lazyre
from .numbers import EN_NUM, EN_ORD, en_number, en_ordinal
from .scripts import SCRIPTS, First, LazyPattern, first_pairs, scripts_of

__all__ = ["MEALS", "PARTS_OF_DAY", "UNIT_SECONDS", "Atom", "atom_patterns", "compile_pending", "find_atoms", "register"]

L = r"(?<![a-z0-9])"
R = r"(?![a-z0-9])"

_MONTHS = {"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
           "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
           "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12}
_MONTH_ALT = "|".join(sorted(_MONTHS, key=len, reverse=True))
# "mar." but not the full stop after "March."
_MONTH_DOT = r"(?:(?<=\b[a-z]{3})\.|(?<=\bsept)\.)?"
_WEEKDAYS = {"monday": 1, "mon": 1, "tuesday": 2, "tues": 2, "tue": 2, "wednesday": 3, "wed": 3,
             "thursday": 4, "thurs": 4, "thur": 4, "thu": 4, "friday": 5, "fri": 5, "saturday": 6, "sat": 6,
             "sunday": 7, "sun": 7}
_WD_ALT = "|".join(sorted(_WEEKDAYS, key=len, reverse=True))
_ZH_SHIFT = {"上上": -2, "上": -1, "这": 0, "本": 0, "当": 0, "同": 0, "次": 1, "翌": 1, "今": 0, "今个": 0, "下下": 2, "下": 1}
_ZH_WD = {"1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "日": 7, "天": 7}
_EN_SHIFT = {"this": 0, "coming": 1, "the coming": 1, "next": 1, "last": -1, "past": -1, "previous": -1,
             "the last": -1, "the past": -1, "the previous": -1, "the next": 1}

#: part of day → (start hour, end hour, how a bare clock hour is read: am|pm|night|early|noon)
PARTS_OF_DAY: dict[str, tuple[int, int, str]] = {
    "凌晨": (0, 6, "early"), "清晨": (5, 8, "am"), "早上": (6, 10, "am"), "早晨": (6, 10, "am"),
    "上午": (6, 12, "am"), "中午": (11, 14, "noon"), "午间": (11, 14, "noon"), "下午": (12, 18, "pm"),
    "傍晚": (17, 19, "pm"), "晚上": (18, 24, "night"), "晚间": (18, 24, "night"), "夜里": (18, 24, "night"),
    "夜间": (18, 24, "night"), "深夜": (22, 24, "night"), "半夜": (0, 3, "early"), "白天": (6, 18, "am"),
    "全天": (0, 24, "am"),  # the whole day (明天全天); 全天候 (all-weather) is not a time
    "午后": (12, 18, "pm"),  # after noon: the afternoon (现代汉语词典 午后: 下午)
    "午夜": (23, 25, "night"),  # 午夜12点 is the coming midnight, 午夜1点 the 1 am after it
    # Cantonese (and Hakka/Min) words for parts of day, in both scripts where the normaliser keeps the
    # traditional one (晝): 朝早 = morning, 上晝 = forenoon, 晏晝 = around noon, 下晝 = afternoon,
    # 挨晚 = dusk, 夜晚/晚黑/夜晚黑 = evening (Cantonese dictionaries: CantoDict, words.hk)
    "朝早": (6, 12, "am"), "朝头早": (6, 12, "am"), "朝頭早": (6, 12, "am"), "上晝": (6, 12, "am"),
    "上昼": (6, 12, "am"), "晏晝": (11, 14, "noon"), "晏昼": (11, 14, "noon"), "下晝": (12, 18, "pm"),
    "下昼": (12, 18, "pm"), "挨晚": (17, 19, "pm"), "夜晚黑": (18, 24, "night"), "夜晚": (18, 24, "night"),
    "晚黑": (18, 24, "night"),
    "早饭": (7, 9, "am"), "早餐": (7, 9, "am"), "午饭": (11, 13, "noon"), "午餐": (11, 13, "noon"),
    "晚饭": (17, 20, "pm"), "晚餐": (17, 20, "pm"), "下班后": (18, 22, "pm"), "上班前": (7, 9, "am"),
    "morning": (6, 12, "am"), "afternoon": (12, 18, "pm"), "evening": (18, 22, "pm"), "night": (18, 24, "night"),
    "lunch": (11, 14, "noon"), "lunchtime": (11, 14, "noon"), "breakfast": (7, 9, "am"), "brunch": (10, 12, "am"),
    "dinner": (17, 20, "pm"), "supper": (17, 20, "pm"), "after work": (18, 22, "pm"), "midday": (11, 13, "noon"),
    "after school": (15, 18, "pm"),  # school is out at about 3 pm (as 下班后 / after work from 18:00)
    # "the early hours of the morning", "the small / wee hours": between midnight and dawn (Cambridge Dictionary),
    # as 凌晨 ("the early hours of the project" is no time)
    **{f"{w} hours{tail}": (0, 6, "early") for w in ("early", "small", "wee") for tail in ("", " of the morning")
       if w != "early" or tail},
}
_ZH_POD_ALT = "|".join(sorted((k for k in PARTS_OF_DAY if not k.isascii()), key=len, reverse=True))
_EN_POD_ALT = "|".join(sorted((k for k in PARTS_OF_DAY if k.isascii()), key=len, reverse=True))

_SEASONS = {"春天": 3, "春季": 3, "夏天": 6, "夏季": 6, "秋天": 9, "秋季": 9, "冬天": 12, "冬季": 12,
            "spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}

_UNIT_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800}
_ZH_UNITS = {"秒钟": "second", "秒": "second", "分钟": "minute", "分": "minute", "小时": "hour", "钟头": "hour",
             "天": "day", "日": "day", "周": "week", "星期": "week", "礼拜": "week", "月": "month", "年": "year"}
_EN_UNITS = {"sec": "second", "secs": "second", "second": "second", "seconds": "second", "min": "minute",
             "mins": "minute", "minute": "minute", "minutes": "minute", "hr": "hour", "hrs": "hour", "hour": "hour",
             "hours": "hour", "day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month",
             "months": "month", "year": "year", "years": "year", "fortnight": "fortnight", "fortnights": "fortnight"}
_EN_UNIT_ALT = "|".join(sorted(_EN_UNITS, key=len, reverse=True))


@dataclass(slots=True)
class Atom:
    """One matched time phrase: ``[start, end)`` in normalised text, its category and frame fields.

    Categories: ``date`` (a day or a period), ``pod`` (part of day), ``clock``,
    ``offset`` (relative to now), ``duration``, ``now``, ``hourish`` (a bare
    number that is only a time next to a date word).
    """

    start: int
    end: int
    cat: str
    f: dict[str, Any] = field(default_factory=dict)


#: (pattern, category, fields of a match) in registration order; a pattern is a :class:`.scripts.LazyPattern`
#: until its first use, then the compiled pattern
_PATTERNS: list[tuple[re.Pattern[str] | LazyPattern, str, Callable[[re.Match[str]], dict[str, Any] | None]]] = []


def register(pattern: str, cat: str, needs: str | None = None):
    """Decorator: add an atom pattern (a function of the match returning frame fields, or None to skip it).

    :param needs: a cheap regex that every match must contain (e.g. ``季度``); when the text has no
        match of it the pattern is not run, which keeps a parse of text without times fast.

    Used by this module and the modules of each class of expression (:mod:`.temporal_holidays`,
    :mod:`.temporal_periods`), which :mod:`.temporal` imports.
    """
    def deco(fn):
        rx = LazyPattern(pattern)  # read for its prefilters at the first parse, compiled when a text first needs it
        _PATTERNS.append((rx, cat, fn))
        _LAZY.append(rx)
        _NEEDS.append(lazyre.compile(needs) if needs else None)
        return fn
    return deco


def atom_patterns() -> tuple[LazyPattern, ...]:
    """Every registered pattern, in registration order (their prefilters go into a compiled pack:
    :func:`.scripts.export`)."""
    return tuple(_LAZY)


def compile_pending(limit: int) -> int:
    """Read the prefilters of (:class:`.scripts.LazyPattern`), then compile, up to ``limit`` of the
    atom patterns no parse has needed yet (a daemon does it a few at a time once it is serving, so a
    first turn rarely waits for either); returns how many are left."""
    left = 0
    for rx in _LAZY:
        if not rx.analysed:
            if limit > 0:
                rx.read()
                limit -= 1
            else:
                left += 1
    for i, (rx, cat, fn) in enumerate(_PATTERNS):
        if rx.__class__ is LazyPattern:
            if limit > 0:
                _PATTERNS[i] = (rx.compiled(), cat, fn)
                limit -= 1
            else:
                left += 1
    return left


_NEEDS: list[re.Pattern[str] | None] = []
#: every registered pattern as registered (:data:`_PATTERNS` holds the compiled one once it is used)
_LAZY: list[LazyPattern] = []
# the four lists below are filled by :meth:`_Index.build`, at the first parse
#: per pattern, the scripts every match of it has a character of (:func:`.scripts.needed_scripts`):
#: a text without one of them cannot match it, so it is not run (exact, unlike a guess by keyword)
_SCRIPTS: list[frozenset[str]] = []
#: per pattern, what its every match begins with (:func:`.scripts.first_chars`; None: unbounded): a
#: text with none of those characters has no match of it, so it is not run either (exact too)
_FIRST: list[First | None] = []
#: per pattern, its first two characters (:func:`.scripts.first_pairs`; None: unbounded): finer than
#: :data:`_FIRST` for Latin text, which has most letters but few of the pairs a pattern begins with
_PAIRS: list[frozenset[str] | None] = []
#: per pattern, strings one of which its every match contains (:func:`.scripts.required_strings`;
#: None: nothing can be said): checked with ``in`` before the pattern runs, exact too
_REQUIRED: list[tuple[str, ...] | None] = []


_p = register


def _yr(s: str) -> int:
    y = int(s)
    return y + 2000 if y < 100 else y


# ---- absolute dates -----------------------------------------------------------------------
@_p(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?![\d])", "date", needs=r"\d{4}[-/.]")
def _iso(m):
    return {"year": int(m[1]), "month": int(m[2]), "day": int(m[3])}


@_p(r"(?<![\d/.:-])(?:((?:19|20)\d\d)[-/](1[0-2]|0?[1-9])|(1[0-2]|0?[1-9])/((?:19|20)\d\d))(?![\d/.:-])", "date",
    needs=r"(?:19|20)\d\d[-/]\d|\d/(?:19|20)\d\d")
def _year_month(m):
    """2014-10, 2014/10 (ISO 8601's YYYY-MM) and 2/2013 (month/year): a month of a year."""
    return {"year": int(m[1] or m[4]), "month": int(m[2] or m[3]), "period": "month"}


@_p(r"(?<![\d/])(?:(1[0-2]|0?[1-9])/(3[01]|[12]\d|0?[1-9])|(?!24/7(?!\d))(1[3-9]|2\d|3[01])/(1[0-2]|0?[1-9]))(?![\d/])",
    "date", needs=r"/")
def _md_slash(m):
    """2/15, 12/25: month first (US usage), unless only the day-first reading exists (15/2, 25/4 at 4pm), as a date
    with its year is read (31/12/2026); "24/7" is the word for all the time, no date."""
    return {"month": int(m[1]), "day": int(m[2])} if m[1] else {"month": int(m[4]), "day": int(m[3])}


@_p(r"(?<!\d)(\d{4})年(?:(\d{1,2})月(?!初|廿)(?:(\d{1,2})(?:[日号]|(?![\d点:分时])))?)?", "date", needs=r"年")  # 8月初十: lunar
def _zh_ymd(m):
    if m[3]:
        return {"year": int(m[1]), "month": int(m[2]), "day": int(m[3])}
    if m[2]:
        return {"year": int(m[1]), "month": int(m[2]), "period": "month"}
    return {"year": int(m[1]), "period": "year"}


@_p(r"(?<![\d个])(\d{1,2})月(?:份)?(?:(\d{1,2})(?:[日号]|(?![\d点:分时个天周年小秒])))?", "date", needs=r"月")
def _zh_md(m):
    if m[2]:
        return {"month": int(m[1]), "day": int(m[2])}
    return {"month": int(m[1]), "period": "month"}


@_p(r"(上上|上|这|本|今个|下下|下|(?<![应相正适恰妥理担充便勾家停得稳上典每])当|(?<![不相共如等认赞陪连协合大雷])同|(?:^|(?<=[\s,.;:!?的在于到至~-]))[次翌])个?月(?:的)?(\d{1,2})[日号]", "date", needs=r"月")
def _zh_rel_month_day(m):
    """下个月5号, 当月15号; 次月2日 is the month after a range's first end (3月5日至次月2日), alone next month's."""
    return {"month_shift": _ZH_SHIFT[m[1]], "day": int(m[2])} | ({"after_first": True} if m[1] in "次翌" else {})


@_p(r"(?<![\d月/])(\d{1,2})[日号](?!\d(?!\d?(?:[:点时])))", "date", needs=r"[日号]")  # 1日15:30 is a day and a clock
def _zh_day(m):
    return {"day": int(m[1])}


@_p(rf"{L}(?:({_WD_ALT})\.?,?\s+)?({_MONTH_ALT}){_MONTH_DOT}\s+(?:the\s+)?({EN_ORD})(?:,?\s+(\d{{4}}))?{R}", "date")
def _en_month_day(m):
    d = en_ordinal(m[3])
    if d is None:
        return None
    out = {"month": _MONTHS[m[2]], "day": d}
    if m[1]:
        out["weekday"] = _WEEKDAYS[m[1]]  # "Fri, Jul 18": the weekday picks the year (temporal.py)
    if m[4]:
        out["year"] = int(m[4])
    return out


@_p(rf"{L}(?:the\s+)?({EN_ORD})\s+(?:of\s+)?({_MONTH_ALT}){_MONTH_DOT}"
    rf"(?:,?\s+(\d{{4}}|'\d\d|\d\d(?=\s*(?:$|[,.;!?)]))))?{R}", "date")
def _en_day_month(m):
    """the 15th of February, 14th April 2015; day-month order writes a two-digit year after the month
    ("14th April 15", "3 March '15"): the day is said, so the number is the year (00–49 → 20xx, 50–99 →
    19xx, as :func:`_en_day_mon_year`) — only with an apostrophe or at the end of a clause, so that "the 5th
    of May 10 am" keeps its clock."""
    d = en_ordinal(m[1])
    if d is None:
        return None
    out = {"month": _MONTHS[m[2]], "day": d}
    if m[3]:
        y = int(m[3].lstrip("'"))
        out["year"] = y if len(m[3]) == 4 else y + (2000 if y < 50 else 1900)
    return out


@_p(rf"(?<![\w/-])(\d{{1,2}})([/-])({_MONTH_ALT})\2(\d{{4}}|\d{{2}})(?![\w/-])", "date", needs=r"\d[/-][a-z]")
def _en_day_mon_year(m):
    """31/Oct/1974, 05-Jun-24: day, month name, year between slashes or dashes (logs, forms); a two-digit year
    as the others (00–49 → 20xx, 50–99 → 19xx)."""
    y = int(m[4])
    return {"day": int(m[1]), "month": _MONTHS[m[3]], "year": y if len(m[4]) == 4 else y + (2000 if y < 50 else 1900)}


@_p(rf"{L}(?:({_WD_ALT})\.?,?\s+)?(?:({_MONTH_ALT})(\d{{1,2}})|(\d{{1,2}})({_MONTH_ALT}))(?:,?\s+(\d{{4}}))?{R}", "date",
    needs=r"[a-z]\d|\d[a-z]")
def _en_glued_month_day(m):
    """14april 2015, Wed, Feb13, 3june: a month name and a day written without the space between them (an
    abbreviation only with a weekday or a year beside it)."""
    name, d = (m[2], m[3]) if m[2] else (m[5], m[4])
    if name not in _MONTHS or not 1 <= int(d) <= 31 or name == "sat":
        return None
    if (len(name) == 3 or name == "sept") and not (m[1] or m[6]):
        return None  # jun2, dec25 alone may be a code: an abbreviation glued to digits needs a weekday or a year
    return {"month": _MONTHS[name], "day": int(d)} | ({"year": int(m[6])} if m[6] else {}) | \
        ({"weekday": _WEEKDAYS[m[1]]} if m[1] else {})


def _alone(m: re.Match[str]) -> bool:
    """The match is the whole utterance but for punctuation ("March", "sat."): a one-word answer names the time
    even where the word has another sense in a sentence (march on, the sun, wed)."""
    return not m.string[:m.start()].strip() and not m.string[m.end():].strip(" .!?")


#: an offset of months or years after a month name: "March in a year", "May 2 years from now"
_MONTH_OFFSET_AFTER = lazyre.compile(rf"\s+(?:in\s+(?:a|an|\d+|{EN_NUM})\s+(?:years?|months?)|(?:a|an|\d+|{EN_NUM})\s+"
                                     r"(?:years?|months?)\s+(?:from now|hence|ago))(?![a-z])")


@_p(rf"{L}(?:(this|next|last|in|of|during|since|until|by|early|late|mid)(?:\s+|-))?({_MONTH_ALT}){_MONTH_DOT}"
    rf"(?:,?\s+(\d{{4}})|\s+(after\s+next))?{R}", "date")
def _en_month(m):
    name = m[2]
    if name in ("may", "march", "mar", "jan", "sat") and not (m[1] or m[3] or m[4]) \
            and not _alone(m) and not _MONTH_OFFSET_AFTER.match(m.string, m.end()):
        return None  # "may I", "march on": a month only with context (alone, or "March in a year")
    if m[4]:  # March after next: the March after the next one
        return {"month": _MONTHS[name], "period": "month", "month_rel": 2} if not m[1] else None
    out: dict[str, Any] = {"month": _MONTHS[name], "period": "month"}
    if m[1] in ("early", "late", "mid"):
        out["part"] = m[1]
    if m[3]:
        out["year"] = int(m[3])
    elif m[1] in ("next", "last"):
        out["month_rel"] = 1 if m[1] == "next" else -1
    return out


@_p(rf"{L}(?:the\s+)?({EN_ORD})\s+of\s+(this|next|last|previous|current|the\s+next|the\s+last|the\s+previous|the\s+current)"
    rf"\s+month{R}", "date", needs=r"month")
def _en_day_of_rel_month(m):
    d = en_ordinal(m[1])
    if d is None:
        return None
    shift = {"this": 0, "current": 0, "the current": 0, "next": 1, "the next": 1}.get(re.sub(r"\s+", " ", m[2]), -1)
    return {"day": d, "month_shift": shift}


@_p(rf"{L}(?:the\s+)?ides\s+of\s+({_MONTH_ALT}){_MONTH_DOT}(?:,?\s+(\d{{4}}))?{R}", "date", needs=r"ides of")
def _en_ides(m):
    """the ides of March: the Roman calendar's mid-month day, the 15th of March, May, July and October and the
    13th of the other months (Oxford English Dictionary, "ides")."""
    month = _MONTHS[m[1]]
    return {"month": month, "day": 15 if month in (3, 5, 7, 10) else 13} | ({"year": int(m[2])} if m[2] else {})


#: words that may follow a bare day ordinal that is a date ("the 13th at 12:30", "the 9th for 3
#: people", "the 4th please"); any other word makes it a noun's ordinal ("the 5th floor", "4th one")
_AFTER_DAY = r"(?:at|for|and|or|in|on|by|around|about|from|to|with|instead|please|then|is|would|will|works?|if|but|so|remind|every|each|until|till|through)\b"


@_p(rf"{L}(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th){R}(?!\s+(?:of\s+)?(?!{_AFTER_DAY})[a-z])", "date",
    needs=r"\d(?:st|nd|rd|th)")
def _en_bare_ordinal(m):
    return {"day": int(m[1])}


# (a number before a Chinese magnitude or counter is a count: 2000万小时, 2000多人, 2020个)
@_p(rf"{L}(?:in\s+|of\s+)?((?:19|20)\d{{2}})(?!\s*(?:[ap]\.?m\b|:|\d|点|年|[万亿千百多余个元块人次米岁件台名位条]))", "date")
def _en_year(m):
    return {"year": int(m[1]), "period": "year"}


@_p(rf"{L}(?:in\s+)?(?:(?:a\.d\.|ad)\s*(\d{{3,4}})(?![\d:])|(\d{{1,4}})\s*(?:a\.d\.|a\.d|ad|c\.e\.))(?![a-z0-9])"
    r"(?!\s*[a-z])", "date", needs=r"a\.?d\b|c\.e\.")
def _en_year_of_era(m):
    """2014 AD, in 14 a.d., AD 1066, 2014 C.E.: a year of the common era, of any number of digits after it (three
    or four before it); not before another word (3 ad campaigns)."""
    y = int(m[1] or m[2])
    return {"year": y, "period": "year"} if y >= 1 else None


@_p(rf"{L}(?:in\s+)?(\d{{1,4}})\s*(?:b\.c\.e\.|b\.c\.|b\.c|bce|bc)(?![a-z0-9])(?!\s*[a-z])", "date", needs=r"\db|\sb\.?c")
def _en_year_before_era(m):
    """2014 BC, 300 B.C.E.: a year before the common era, which the proleptic Gregorian calendar of
    :mod:`datetime` (years 1–9999) cannot hold: resolved as ``invalid`` (out of the calendar), never as 2014 AD."""
    return {"year": 1 - int(m[1]), "period": "year"}  # astronomical numbering: 1 BC is year 0


_W1_9 = "one|two|three|four|five|six|seven|eight|nine"
_W1_99 = (rf"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-]+(?:{_W1_9}))?|ten|eleven|twelve|"
          rf"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|{_W1_9})")


@_p(rf"{L}(?<!\bat )(?<!\bby )(?<!around )(?<!about )(?<!@ )(?:two\s+thousand(?:\s+and)?(?:\s+({_W1_99}))?|(nineteen|twenty)\s+(?:oh\s+({_W1_9})|({_W1_99})))(?![a-z-])",
    "date", needs=r"thousand|nineteen |twenty ")
def _en_spoken_year(m):
    """A year said in words: two thousand (and) ten, twenty nineteen, nineteen ninety-six, twenty oh five. It is a
    year only right after a date it completes ("Easter Sunday two thousand ten"); alone it stays a number
    (:mod:`.temporal` drops it), as "two thousand ten" is also a count, and after at/by/around it is a clock
    (at twenty thirty)."""
    if m[1] is not None or m[0].split()[0] == "two":
        y = 2000 + int(en_number(m[1]) if m[1] else 0)
    else:
        y = {"nineteen": 1900, "twenty": 2000}[m[2]] + int(en_number(m[3] or m[4]))
        if not m[3] and int(en_number(m[4])) < 10:
            return None  # twenty five is a number, not the year 2005
    return {"year": y, "period": "year", "spoken_year": True}


# ---- relative days, weeks, months, years ---------------------------------------------------
_ZH_DAYS = {"大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "今天": 0, "今日": 0, "明天": 1, "明日": 1,
            "后天": 2, "大后天": 3}


@_p("(" + "|".join(sorted(_ZH_DAYS, key=len, reverse=True)) + ")", "date")
def _zh_rel_day(m):
    return {"rel_day": _ZH_DAYS[m[1]]}


_ZH_DAY_POD = {"今早": (0, "早上"), "今晨": (0, "早上"), "今晚": (0, "晚上"), "今夜": (0, "晚上"), "明早": (1, "早上"),
               "明晚": (1, "晚上"), "昨晚": (-1, "晚上"), "昨夜": (-1, "晚上")}


@_p("(" + "|".join(_ZH_DAY_POD) + ")黑?", "date")  # 今晚黑 (Cantonese) is 今晚
def _zh_day_pod(m):
    d, pod = _ZH_DAY_POD[m[1]]
    return {"rel_day": d, "pod": pod}


@_p(r"(?:(上上|上|这|本|下下|下|今)个?)?(?:周|星期|礼拜)([1-7日天])(?!\d(?!\d?(?:点|時|时|:)))", "date")
def _zh_weekday(m):  # 今个星期三 (Cantonese "this week's Wednesday")
    out: dict[str, Any] = {"weekday": _ZH_WD[m[2]]}
    out["wd_mode"] = "week" if m[1] else "upcoming"
    out["week_shift"] = _ZH_SHIFT[m[1]] if m[1] else 0
    return out


@_p(r"(?:(上上|上|这|本|下下|下|今)个?)?(?:周|星期|礼拜)([1-6])([2-7日天]{1,2})(?![\d点時时:])", "date")
def _zh_weekday_run(m):
    """星期三四, 周一二三, 礼拜六日: consecutive weekdays said after one 星期 are the days from the first to
    the last (Wednesday and Thursday); digits that do not follow one another are no run (周35 stays unread)."""
    days = [int(m[2])] + [7 if c in "日天" else int(c) for c in m[3]]
    if any(b != a + 1 for a, b in zip(days, days[1:])):
        return None
    out = _zh_weekday(m)
    out["wd_days"] = len(days)
    return out


@_p(r"(上上|上|这|本|下下|下)个?(?:周末)", "date")
def _zh_weekend_shift(m):
    return {"period": "weekend", "week_shift": _ZH_SHIFT[m[1]]}


@_p(r"(?<![上下这本])周末", "date")
def _zh_weekend(m):
    return {"period": "weekend", "week_shift": 0}


@_p(r"(上上|上|这|本|下下|下|今个)个?(?:周|星期|礼拜)(?![1-7日天末])", "date")
def _zh_week(m):
    return {"period": "week", "week_shift": _ZH_SHIFT[m[1]]}


@_p(r"(上上|上|这|本|今个|下下|下)个?月(?!\d{1,2}[日号])", "date")
def _zh_month_rel(m):
    return {"period": "month", "month_shift": _ZH_SHIFT[m[1]]}


@_p(r"(?<![\d年应相正适恰妥理担充便勾家停得稳上典每])当月(?![亮光球饼色]|的?\d{1,2}[日号])"
    r"|(?<![\d年不相共如等认赞陪连协合大雷])同月(?![份的]?\d{1,2}[日号])", "date", needs=r"[当同]月")
def _zh_same_month(m):
    """当月 / 同月 (现代汉语词典 当月: 本月, 同一个月) said alone are this month, as 当天 is today; after a year
    (2019年当月) or a word ending in 当 / 同 (每当月亮, 不同月份) they are none."""
    return {"period": "month", "month_shift": 0}


@_p(r"(?:^|(?<=[\s,.;:!?的在于到至~-]))(次|翌)(年|月)(?!会|级|度报|份?的?\d{1,2}[日号])", "date", needs=r"[次翌][年月]")
def _zh_following(m):
    """次年 / 翌年, 次月 (现代汉语词典 次: 第二; 翌: 次于今日、今年的): the year or month after the first end of a
    range (2019年5月至次年3月), alone the one after this; only as a word of its own (at the start, after
    punctuation or 的/在/至), as 每次/这次/名次 + 年 are other words."""
    if m[2] == "年":
        return {"period": "year", "year_shift": 1, "after_first": True}
    return {"period": "month", "month_shift": 1, "after_first": True}


_ZH_YEARS = {"大前年": -3, "前年": -2, "去年": -1, "上年": -1, "今年": 0, "本年": 0, "明年": 1, "下年": 1, "后年": 2,
             "大后年": 3}


@_p(r"(大前年|前年|去年|今年|本年|明年|大后年|后年|(?<![\d一-龥])上年(?!纪|级|度)|(?<![\d一-龥])下年(?!纪|级|度))", "date")
def _zh_year_rel(m):
    return {"period": "year", "year_shift": _ZH_YEARS[m[1]]}


@_p(r"(?<!\d)(\d{2})年代", "date", needs=r"年代")
def _zh_decade(m):
    d = int(m[1])
    return {"period": "decade", "year": (1900 if d >= 20 else 2000) + d}


_EN_DECADES = {"twenties": 1920, "thirties": 1930, "forties": 1940, "fourties": 1940, "fifties": 1950,
               "sixties": 1960, "seventies": 1970, "eighties": 1980, "nineties": 1990}


@_p(rf"{L}(?:the\s+)?(?:((?:19|20)?\d0)'?s|({'|'.join(_EN_DECADES)})){R}", "date", needs=r"0'?s|ties")
def _en_decade(m):
    if m[2]:
        return {"period": "decade", "year": _EN_DECADES[m[2]]}
    y = int(m[1])
    return {"period": "decade", "year": y if y >= 1000 else (1900 + y if y >= 20 else 2000 + y)}


_EN_DAYS = {"today": 0, "tonight": 0, "tonite": 0, "tomorrow": 1, "tmrw": 1, "tomorow": 1, "tommorow": 1, "yesterday": -1,
            "the day after tomorrow": 2, "the day before yesterday": -2, "day after tomorrow": 2,
            "day before yesterday": -2}


@_p(rf"{L}({'|'.join(sorted(_EN_DAYS, key=len, reverse=True))})(?:'?s)?{R}", "date")
def _en_rel_day(m):
    """today, tomorrow, tonight, the day after tomorrow; their possessive too, typed with or without its
    apostrophe ("tomorrow's meeting", "todays weather", "tomorrows": a day word takes no plural)."""
    out: dict[str, Any] = {"rel_day": _EN_DAYS[m[1]]}
    if m[1] in ("tonight", "tonite"):
        out["pod"] = "night"
    return out


@_p(rf"{L}(?:(?<!at the )end\s+of\s+(?:the\s+)?(?:business\s+)?day|eod|(?<!the )cob|close\s+of\s+(?:the\s+)?business"
    rf"(?:\s+day)?){R}", "date", needs=r"end of (?:the )?(?:business )?day|eod|cob|close of")
def _en_end_of_day(m):
    """end of day, by the end of the day, end of business day, EOD, COB / close of business (business shorthand):
    today ("by EOD" ends with it; "at the end of the day" is also the idiom "when all is said and done", so it is
    left out, and "corn on the cob" is no time). Before another day ("end of day Friday", "EOD Friday", "COB
    Monday") it is that day's end: the day is what is kept; after a recurrence ("every monday by the end of the
    day") it is each occurrence's end, part of the recurrence, not today."""
    if re.match(rf"\s*,?\s+(?:on\s+)?(?:tomorrow|today|tonight|{_WD_ALT}|{_MONTH_ALT}|\d)(?![a-z])", m.string[m.end():]):
        return None
    if _EVERY_BEFORE.search(m.string, 0, m.start()):
        return {"part": "late", "part_edge": True}  # the end of each occurrence's day (every monday by …)
    return {"rel_day": 0}


_EVERY_BEFORE = lazyre.compile(r"(?<![a-z])(?:every|each|daily|weekly|weekdays)(?![a-z])")
#: a date written after a weekday's abbreviation, day first or month first ("Sat 2nd Jan", "sun, 3 jan 2027",
#: "Wed Jan 6"): the weekday of that date, which picks its year (temporal.py), not the verb or the star
_WD_BEFORE_DATE = lazyre.compile(rf"\.?,?\s+(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH_ALT})|(?:{_MONTH_ALT})\.?\s+\d{{1,2}})(?![a-z])")


@_p(rf"{L}(?:(this|next|last|coming|past|the coming|the past|previous|on)\s+)?({_WD_ALT})(s)?{R}", "date")
def _en_weekday(m):
    name = m[2]
    if name in ("sun", "sat", "wed", "mar") and not m[1] and not _alone(m) and not _WD_BEFORE_DATE.match(m.string, m.end()):
        return None  # sun (weather), sat (verb) only with a determiner, alone ("sat.") or before a date ("Sat 2nd Jan")
    mode = {"this": "upcoming", "on": "upcoming", None: "upcoming", "coming": "next", "the coming": "next",
            "next": "next", "last": "last", "past": "last", "the past": "last", "previous": "last"}[m[1]]
    out: dict[str, Any] = {"weekday": _WEEKDAYS[name], "wd_mode": mode}
    if m[3] and not m[1]:
        out["recurring"] = True
    return out


@_p(rf"{L}({EN_NUM})\s+({_WD_ALT})s\s+(from now|from today|hence|ago|back|before now){R}|{L}({_WD_ALT})\s+after\s+next{R}",
    "date", needs=r"days (?:from|hence|ago|back|before)|after next")
def _en_weekday_count(m):
    """"3 fridays from now" (the third Friday after today), "2 thursdays ago", "friday after next" (the second)."""
    if m[4]:
        return {"weekday": _WEEKDAYS[m[4]], "wd_mode": "next", "wd_count": 2}
    n = en_number(m[1])
    if n is None or n != int(n) or not 1 <= n <= 52:
        return None
    mode = "last" if m[3] in ("ago", "back", "before now") else "next"
    return {"weekday": _WEEKDAYS[m[2]], "wd_mode": mode, "wd_count": int(n)}


@_p(rf"{L}(?:(this past|this|next|last|coming|past|the coming|the past|previous|the following)\s+)?(?:weekend|week-end|wkend)(?:'s)?{R}",
    "date", needs=r"weekend|week-end|wkend")
def _en_weekend(m):
    if m.string.startswith(" after next", m.end()):
        return None  # the weekend after next: its own atom
    if m[1] == "this past":
        return {"period": "weekend", "week_shift": -1}
    return {"period": "weekend", "week_shift": _EN_SHIFT.get(m[1] or "this", 1 if m[1] == "the following" else 0)}


@_p(rf"{L}(?:the\s+)?weekend\s+(after\s+next|before\s+last){R}", "date", needs=r"after next|before last")
def _en_weekend_after_next(m):
    return {"period": "weekend", "week_shift": 2 if m[1].startswith("after") else -2}


@_p(rf"{L}last\s+night{R}", "date", needs=r"last night")
def _en_last_night(m):  # yesterday evening, not "the last night"
    return {"rel_day": -1, "pod": "night"}


@_p(rf"{L}(this|next|last|coming|past|the coming|the past|previous|current|the following|the current)\s+"
    rf"(week|month|year|quarter|yr|qtr|wk|mo)(?:'s|s)?{R}", "date")
def _en_period(m):
    """this week, next month, last year, the following quarter; the abbreviations yr, qtr, wk, mo."""
    unit = {"yr": "year", "qtr": "quarter", "wk": "week", "mo": "month"}.get(m[2], m[2])
    shift = {"current": 0, "the current": 0, "the following": 1}.get(m[1], _EN_SHIFT.get(m[1], 0))
    key = {"week": "week_shift", "month": "month_shift", "year": "year_shift", "quarter": "quarter_shift"}[unit]
    return {"period": unit, key: shift}


@_p(rf"{L}the\s+(week|month|year|quarter)\s+(after\s+next|before\s+last){R}", "date", needs=r"after next|before last")
def _en_period_after_next(m):
    """the week after next, the month before last, the year before last: two periods on or back."""
    return {"period": m[1], f"{m[1]}_shift": 2 if m[2].startswith("after") else -2}


@_p(rf"{L}(?:the\s+)?week\s+of(?=\s)", "date", needs=r"week of")
def _en_week_of(m):
    """the week of October 7th: the week that holds the date after it (alone it is dropped, as a part is)."""
    return {"part": ("week_of",)}


@_p(rf"{L}(?:the\s+)?rest\s+of\s+(?:the|this)\s+(week|month|year){R}", "date", needs=r"rest of")
def _en_rest_of(m):
    """the rest of the week / this month / the year: from today to the period's end."""
    return {"period": m[1], "rest": True}


@_p(rf"{L}(?:(?:this|the)\s+(week|month|year|quarter)\s+so\s+far|so\s+far\s+this\s+(week|month|year|quarter)|"
    rf"(week|month|year|quarter)[\s-]to[\s-]date|(ytd|mtd|qtd|wtd)){R}", "date", needs=r"so far|to.date|[ymqw]td")
def _en_so_far(m):
    """so far this year, the month so far, year to date (YTD, MTD): from the period's start to today."""
    unit = m[1] or m[2] or m[3] or {"y": "year", "m": "month", "q": "quarter", "w": "week"}[m[4][0]]
    return {"period": unit, "so_far": True}


@_p(rf"{L}all\s+(week|month|year)(?:\s+long)?{R}", "date", needs=r"all (?:week|month|year)")
def _en_all_period(m):
    """all week, all month long: the whole current period."""
    return {"period": m[1]}


@_p(r"(?:(今年|去年|明年)的?)?(春天|春季|夏天|夏季|秋天|秋季|冬天|冬季)", "date", needs=r"[春夏秋冬]")
def _zh_season(m):
    # a Chinese season runs between solar terms (现代汉语词典 春季: 我国习惯指立春到立夏的三个月时间): temporal._season
    out: dict[str, Any] = {"period": "season", "month": _SEASONS[m[2]], "jieqi": True}
    if m[1]:
        out["year_shift"] = _ZH_YEARS[m[1]]
    return out


@_p(rf"{L}(this|current|the current|next|the next|coming|last|past|previous|the last|the previous)\s+seasons?{R}", "date",
    needs=r"season")
def _en_rel_season(m):
    """this season, next season, last season: the meteorological season of today (Mar–May spring, Jun–Aug
    summer, Sep–Nov autumn, Dec–Feb winter), or the one after / before it."""
    shift = {"next": 1, "the next": 1, "coming": 1, "last": -1, "past": -1, "previous": -1, "the last": -1,
             "the previous": -1}.get(m[1], 0)
    return {"period": "season", "season_shift": shift}


@_p(rf"{L}(?:(this|current|the current|next|last|in the|in|during the|during)\s+)(spring|summer|autumn|fall|winter){R}|{L}(spring|summer|autumn|winter){R}", "date", needs=r"spring|summer|autumn|fall|winter")
def _en_season(m):
    name = m[2] or m[3]
    out: dict[str, Any] = {"period": "season", "month": _SEASONS[name]}
    if m[1] in ("next", "last"):
        out["year_shift"] = 1 if m[1] == "next" else -1
    return out


# ---- parts of day, clock times ----------------------------------------------------------
@_p("(" + _ZH_POD_ALT + ")(?!好|候)", "pod")  # 早上好 / 晚上好 are greetings, 全天候 all-weather
def _zh_pod(m):
    return {"pod": m[1]}


@_p(rf"(?<!good ){L}(?:(this|in the|at|the)\s+)?({_EN_POD_ALT})(?:time|ish)?(?:'s)?{R}", "pod")  # good morning: a greeting
def _en_pod(m):
    out: dict[str, Any] = {"pod": m[2]}
    if m[1] == "this":
        out["rel_day"] = 0
    return out


@_p(rf"{L}(noon|midnight)(?:\s?-?ish)?{R}", "clock", needs=r"noon|midnight")
def _en_noon(m):
    """noon, midnight; "noonish", "noon-ish": about noon, the suffix part of what was said."""
    return {"hour": 12, "minute": 0, "ampm": "pm"} if m[1] == "noon" else {"hour": 0, "minute": 0, "ampm": "am", "midnight": True}


@_p(r"(?:(?<![\d:周期拜])|(?<=周\d)|(?<=星期\d)|(?<=礼拜\d))(\d{1,2})(?:点|時|时)(?:(1|3)刻|(\d{1,2})个字|(\d{1,2}|十)分?|(半)|整|多(?=钟|$|[,.;!?\s]))?(?:钟)?(?:(\d{1,2})秒)?", "clock")
def _zh_clock(m):
    """3点, 3点15(分), 3点1刻, 3点半; Cantonese 3点3个字 (三點三個字: a 字 is one of the clock face's five-minute
    marks, so 3:15); 5点多(钟) is a little after five, read as that hour (5点多人 is not a clock word)."""
    h = int(m[1])
    mi = 15 * int(m[2]) if m[2] else 5 * int(m[3]) if m[3] else (10 if m[4] == "十" else int(m[4])) if m[4] \
        else 30 if m[5] else None  # 8点十分: the normaliser keeps 十分 ("very"), after 点 it is ten minutes
    if m[3] and not 1 <= int(m[3]) <= 11:
        return None
    if h > 24 or (mi is not None and mi > 59):
        return None
    return {"hour": h, "minute": mi, "second": int(m[6]) if m[6] else None}


@_p(r"(?<![\d:/.])(\d{1,2})[:](\d{2})(?::(\d{2}))?(?:\s*(a\.m\.|p\.m\.|a\.?\s?m|p\.?\s?m|(?<=\d)[ap]\.?)(?![a-z]))?"
    r"(?:\s?-?ish(?![a-z]))?(?![\d:])", "clock", needs=r":")
def _colon_clock(m):
    """9:30, 15:23:24, 3:30pm, 3:18a; "2:30 ish" / "7:30-ish" (about then: the suffix is part of the clock's span,
    as "150ish" and "9ish" are)."""
    h, mi = int(m[1]), int(m[2])
    if h > 24 or mi > 59:
        return None
    out: dict[str, Any] = {"hour": h, "minute": mi, "second": int(m[3]) if m[3] else None}
    if m[4]:
        out["ampm"] = "am" if m[4][0] == "a" else "pm"
    elif len(m[1]) == 2:
        out["h24"] = True  # 09:30 is written on a 24-hour clock
    return out


@_p(r"(?<![\d:/.])(\d{1,2})\.([0-5]\d)\s*(a\.m\.|p\.m\.|a\.?m|p\.?m)(?![a-z])", "clock", needs=r"\d\.\d\d\s*[ap]")
def _dotted_clock(m):  # 12.16 pm (British usage): a dot between hour and minutes only with am/pm
    h = int(m[1])
    return {"hour": h, "minute": int(m[2]), "ampm": "am" if m[3][0] == "a" else "pm"} if h <= 12 else None


@_p(rf"{L}(at\s+|@\s*)?({EN_NUM}|\d{{3,4}})(?:\s?-?ish)?\s*(?:o'?clock\s*)?(?:in\s+the\s+)?(a\.m\.|p\.m\.|a\.?\s?m|p\.?\s?m|(?<=\d)[ap]\.?)(?![a-z])",
    "clock", needs=r"[ap]\.?m|\d[ap](?![a-z])|\b[ap] m\b")
def _en_ampm(m):
    """3pm, 3 p.m., 3 o'clock pm, 3 in the AM, 3ish pm; "at 3p" (a bare a/p after the digits only after
    at/@, or as an end of a range after from/to/until: "4a" alone is a paper size or a flat, Duckling's
    negative corpus)."""
    if len(m[3].rstrip(".")) == 1 and not m[1] and not re.search(r"(?:^|\s)(?:from|to|until|till)\s+$", m.string[:m.start()]):
        return None
    raw = m[2]
    if re.fullmatch(r"\d{3,4}", raw):
        h, mi = int(raw[:-2]), int(raw[-2:])
    else:
        v = en_number(raw)
        if v is None or v != int(v):
            return None
        h, mi = int(v), None
    if h > 24 or (mi is not None and mi > 59):
        return None
    return {"hour": h, "minute": mi, "ampm": "am" if m[3][0] == "a" else "pm"}


@_p(r"(?<![a-z0-9])(?:at|around|approximately|approx\.?)\s+([01]?\d|2[0-3])([0-5]\d)(?:ish)?(?![\d:a-z])"
    r"(?!\s*(?:people|persons?|tickets?|seats?|guests?|rooms?|items?|units?|dollars?|yuan|euros?|km|miles?|meters?|[a-z]+\s+(?:street|st|road|rd|avenue|ave)\b))",
    "clock", needs=r"(?:at|around|approximately|approx\.?)\s+\d{3}")
def _en_hhmm(m):
    """"at 1030", "around 1030", "tomorrow at 150ish": a clock written without its colon after at/around/approximately
    (a two-digit hour, 0745 or 1645, is written on the 24-hour clock)."""
    return {"hour": int(m[1]), "minute": int(m[2])} | ({"h24": True} if len(m[1]) == 2 else {})


#: an hour in words, the 24-hour clock's too (at nineteen forty, at twenty thirty)
_HOUR_WORD = ("twenty[\\s-]+(?:one|two|three)|twenty|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
              "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve")
_MIN_WORD = ("(?:twenty|thirty|forty|fifty)(?:[\\s-]+(?:one|two|three|four|five|six|seven|eight|nine))?|ten|eleven|twelve|"
             "thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|oh\\s+(?:one|two|three|four|five|six|seven|eight|nine)")


@_p(rf"{L}(at\s+)?({_HOUR_WORD}|\d{{1,2}})\s+({_MIN_WORD}|\d{{2}})(?:\s*(a\.m\.|p\.m\.|a\.?\s?m|p\.?\s?m)(?![a-z]))?{R}"
    r"(?!\s+(?:people|persons?|tickets?|seats?|guests?|of\b|days?|hours?|minutes?|weeks?|times?|[ap]m\b))",
    "clock", needs=r"\bat (?:\d|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
                  r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty)|"
                  r"(?:ty|teen|ten|eleven|twelve|one|two|three|four|five|six|seven|eight|nine|\d) [ap]\.? ?m\b")
def _en_spoken_clock(m):
    """A clock said as hour and minutes: "ten thirty am", "nine fifty nine a m", "at three twenty", "at 12 15",
    "at nineteen forty" (an hour past twelve is the 24-hour clock's).
    Only after "at" or before am/pm: "three twenty" or "3 30" alone is a count (Duckling's negative corpus)."""
    if not m[1] and not m[4]:
        return None
    h = en_number(m[2])
    mi = en_number(re.sub(r"^oh\s+", "", m[3]))
    if h is None or mi is None or not 0 <= h <= (12 if m[4] else 23) or not 1 <= mi <= 59 or (m[3][0].isdigit() and m[3][0] == "0"):
        return None
    if m[2].isdigit() != m[3].isdigit():
        return None
    out: dict[str, Any] = {"hour": int(h), "minute": int(mi)} | ({"h24": True} if h >= 13 else {})
    if m[4]:
        out["ampm"] = "am" if m[4][0] == "a" else "pm"
    return out


@_p(rf"{L}(?:at\s+)?({EN_NUM})\s+o'?clock{R}", "clock", needs=r"clock")
def _en_oclock(m):
    v = en_number(m[1])
    if v is None or v != int(v) or v > 24:
        return None
    return {"hour": int(v), "minute": None}


@_p(rf"{L}at\s+(\d{{1,2}}|{EN_NUM})(?![\d:a-z])", "clock", needs=r"at ")
def _en_at_hour(m):
    if m[1] in ("a", "an", "a few", "a couple of"):
        return None
    v = en_number(m[1])
    if v is None or v != int(v) or not 0 <= v <= 24:
        return None
    return {"hour": int(v), "minute": None}


@_p(rf"{L}(?:at\s+)?(\d{{1,2}}|{EN_NUM})(?:\s+o'?clock)?(?=\s+in\s+the\s+(?:morning|afternoon|evening|night){R})", "hourish", needs=r"in the")
def _hour_before_pod(m):
    if m[1] in ("a", "an", "a few", "a couple of"):
        return None
    v = en_number(m[1])
    return {"hour": int(v), "minute": None} if v is not None and v == int(v) and 0 <= v <= 12 else None


@_p(rf"{L}(?:(at|around|about|by)\s+)?(\d{{1,2}}|{EN_NUM})(?:\s|-)?ish{R}(?!\s*(?:[ap]\.?m\b|o'?clock|in\s+the\b))", "hourish",
    needs=r"ish")
def _hour_ish(m):
    """"at 9ish", "around 9 ish tomorrow", "tomorrow 9-ish": about that hour; alone and without at/around it is
    only an hour beside a day ("she is 30ish" is an age). The hour is read as any bare hour (temporal.py)."""
    v = en_number(m[2])
    if v is None or v != int(v) or not 1 <= v <= 12:
        return None
    if not m[1] and not (_ISH_DAY_AFTER.match(m.string, m.end()) or _ISH_DAY_BEFORE.search(m.string, 0, m.start())):
        return None  # "the kid is 9ish": an age
    return {"hour": int(v), "minute": None}


_ISH_DAYS = r"(?:tomorrow|today|tonight|(?:mon|tues|wednes|thurs|fri|satur|sun)day)"
_ISH_DAY_AFTER = lazyre.compile(rf"\s+(?:on\s+|this\s+|next\s+)?{_ISH_DAYS}(?![a-z])|\s+(?:this|next)\s+(?:morning|afternoon|evening|week)")
_ISH_DAY_BEFORE = lazyre.compile(rf"(?<![a-z]){_ISH_DAYS}\s+$")


#: hour words after a part of day ("evening five"); "one" is left out: "the evening one" picks an option
_TWO_TO_TWELVE = "(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\\b"


@_p(rf"(?:(?<=morning )|(?<=afternoon )|(?<=evening )|(?<=night ))(\d{{1,2}}|{_TWO_TO_TWELVE})(?![\d:])"
    r"(?!\s+(?:people|persons?|tickets?|seats?|guests?|of us|days?|hours?|minutes?|weeks?|times?)\b)", "hourish",
    needs=r"morning|afternoon|evening|night")
def _hour_after_pod(m):
    """A bare hour right after a part of day ("this evening 5", "morning 11"): SGD users say it so."""
    v = en_number(m[1])
    return {"hour": int(v), "minute": None} if v is not None and v == int(v) and 1 <= v <= 12 else None


@_p(rf"(?<![\d:])(\d{{1,2}}|(?<![a-z]){_TWO_TO_TWELVE})(?=\s*(?:tomorrow|today|tonight|this\s+(?:morning|afternoon|evening)\b|明天|今天|今晚))",
    "hourish", needs=r"(?:\d|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s*(?:tomorrow|today|tonight|"
                     r"this (?:morning|afternoon|evening)|明天|今天|今晚)")
def _hour_before_day(m):
    """"9 tomorrow", "8 tonight", "eight this evening": an hour said before its day or part of day."""
    if not m[1].isdigit() and not re.search(r"(?:^|\bat)\s*$", m.string[:m.start()]):
        return None  # "I have two tonight" counts; "eight tonight" / "at eight tonight" is a time
    v = en_number(m[1])
    return {"hour": int(v), "minute": None} if v is not None and 0 <= v <= 24 else None


@_p(r"(?<=上午|下午|凌晨|早上|晚上|中午)(\d{1,2})(\d{2})(?!\d)", "clock", needs=r"[午晨晚早]")
def _zh_hhmm(m):
    h, mi = int(m[1]), int(m[2])
    return {"hour": h, "minute": mi} if h <= 24 and mi <= 59 else None


@_p(rf"{L}(?:(?:half|a quarter|quarter|\d{{1,2}}|{EN_NUM})(?:\s+minutes?)?\s+(past|after|to|before)\s+({EN_NUM}|\d{{1,2}}|noon|midnight))"
    rf"(?:\s*(a\.m\.|p\.m\.|a\.?m|p\.?m)(?![a-z]))?{R}", "clock", needs=r"past|after|to|before")
def _en_past_to(m):  # half past three, quarter to 5 pm
    """"half past three", "20 after 3pm", "a quarter to noon", "twenty to four". A bare number before
    to/before is minutes only where it cannot be the first hour of a range: "3 to 4" and "10 to 6" are
    ranges, "20 to 4" is 3:40 (an hour on a 12-hour clock is 1–12), and never after a colon ("3:30 to 6")."""
    head = m[0].split()[0]
    mins = 30 if head == "half" else 15 if head in ("quarter", "a") else en_number(head)
    h = 12 if m[2] == "noon" else 0 if m[2] == "midnight" else en_number(m[2])
    if mins is None or h is None or h > 12 or mins >= 60:
        return None
    if m.start() > 0 and m.string[m.start() - 1] == ":":
        return None
    if m[1] in ("to", "before") and head not in ("half", "quarter", "a") and "minute" not in m[0] and mins <= 12:
        return None
    if m[2] in ("noon", "midnight"):  # a quarter to noon = 11:45, ten past midnight = 00:10: on the 24-hour clock
        base = 12 if m[2] == "noon" else 24
        if m[1] in ("to", "before"):
            return {"hour": base - 1, "minute": 60 - int(mins), "h24": True}
        return {"hour": base % 24, "minute": int(mins), "h24": True}
    ampm = {"ampm": "am" if m[3][0] == "a" else "pm"} if m[3] else {}
    if m[1] in ("to", "before"):
        return {"hour": (int(h) - 1) % 24, "minute": 60 - int(mins)} | ampm
    return {"hour": int(h), "minute": int(mins)} | ampm


@_p(r"(?:(?<=\bat )|(?<=\bby )|(?<=\bfrom )|(?<=\buntil )|^)half\s+(one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
    r"twelve|1[0-2]|[1-9])(?:\s*(a\.m\.|p\.m\.|a\.?m|p\.?m)(?![a-z]))?"
    r"(?=\s*$|\s*[,.!?;]|\s+(?:tomorrow|today|tonight|on|this|next|then|in the)\b)", "clock", needs=r"half ")
def _en_half_hour(m):
    """British "half three" = half past three (Cambridge Dictionary: "half past", UK informal): after at/by/
    from/until or opening the text, and not before a noun ("half three times" is a fraction)."""
    h = en_number(m[1])
    return {"hour": int(h), "minute": 30} | ({"ampm": "am" if m[2][0] == "a" else "pm"} if m[2] else {})


# ---- now, offsets, durations --------------------------------------------------------------
@_p(rf"(现在|此刻|此时|这个时候|宜家|而家|依家|{L}(?:just\s+)?now{R}|{L}at this time{R})", "now")  # 宜家/而家/依家: Cantonese "now"
def _now(m):
    return {"now": True}


@_p(rf"{L}(?:(?:(?:at\s+)?this|(?:at\s+)?(?:the\s+)?same)\s+time\s+(tomorrow|yesterday|next\s+week|last\s+week)"
    rf"|(tomorrow|yesterday|next\s+week|last\s+week)\s+(?:at\s+)?(?:this|the\s+same)\s+time){R}", "now",
    needs=r"this time|same time")
def _en_this_time(m):
    """this time tomorrow, the same time next week, yesterday at this time: the clock time of now on that day
    (a week on: the same weekday of the next week)."""
    return {"now": True, "rel_day": {"tomorrow": 1, "yesterday": -1, "next week": 7, "last week": -7}[
        " ".join((m[1] or m[2]).split())]}


_ZH_OFF = (r"(?:(?P<pre>从现在(?:起|开始)?|(?<![超度经通越不])再?过)\s*)?(?P<n>\d+(?:\.\d+)?|半|几)(?P<more>多|几|(?<=\d0)来)?\s*(?P<ge>个)?"
           r"(?P<more2>多)?\s*(?P<half>半)?\s*(?P<unit>秒钟|秒|分钟|分|小时|钟头|刻钟|钟|工作日|交易日|天|日|周|星期|礼拜|季度|月|年)\s*(?P<tail>半钟?|多)?"
           r"\s*(?P<dir>以后|之后|后|以前|之前|前|以内|之内|内|以来)")


@_p(_ZH_OFF, "offset", needs=r"[前后内]|以来")
def _zh_offset(m):
    """N units 后/前/内/以来 from now: 三天后, 两个半月前, 3年半以来, 一分半钟前, 20多个月之后, 一刻钟后.

    多/几/来 after the count (20多个月, 3个多月, 3年多, 20几年, 十来天) is "N and some" (or about N): read as N,
    its lower bound."""
    n_s, unit_w, tail, more = m["n"], m["unit"], m["tail"], m["more"] or m["more2"] or (m["tail"] == "多")
    if unit_w == "钟" and not m["ge"]:
        return None  # 2个钟前 (two hours ago) is said with 个; 3钟 is not
    unit = {"钟": "hour", "刻钟": "minute", "季度": "month", "工作日": "workday", "交易日": "workday"}.get(unit_w) \
        or _ZH_UNITS[unit_w]
    if unit == "workday" and (n_s == "半" or m["half"] or tail or more or m["n"].count(".")):
        return None  # workdays are counted whole
    if n_s == "几" or (unit == "year" and not more and re.fullmatch(r"[12]\d{3}", n_s)):
        return None  # 2019年以后 is "from 2019 on", not 2019 years later
    if n_s == "半" and more:
        return None
    n = 0.5 if n_s == "半" else float(n_s)
    half_tail = tail in ("半", "半钟")
    if m["half"] and (half_tail or more):
        return None  # 3个半年半: not a quantity
    if tail == "半钟" and unit_w != "分":
        return None  # 1分半钟 is a minute and a half; 半钟 follows no other unit
    if m["half"] or half_tail:
        n += 0.5  # 3个半月, 3年半 / 一天半 / 一分钟半 / 一分半钟: half a unit more (现代汉语词典 半: 二分之一)
    if unit == "month" and not m["ge"] and n_s != "半":
        return None  # "3月前" is 3 months ago only with 个 (and 3季度后 is after the third quarter)
    n *= {"刻钟": 15, "季度": 3}.get(unit_w, 1)  # 一刻钟 = a quarter of an hour, 一个季度 = three months
    d = m["dir"]
    direction = -1 if d in ("以前", "之前", "前", "以来") else 1
    # N以来 (三年以来, 三个月以来): the time from N units back until now (现代汉语词典 以来: 从过去某时直到现在)
    # N以后 / N以前 (三天以后, 两年以前) are open: from that point on / up to it (issue 17: "三天以后" is an
    # open-ended range; jionlp 20天以后 -> [day, inf)); the bare 后/前 and 之后/之前 stay the point they name
    # (三天后提醒我 is one moment; Duckling's 三天之後 is a bounded time too)
    # N天内 / 3个月以内 / 15个工作日内 (a time limit counted in days or longer) ends when its last day does: the day the
    # count lands on is the last day, and the limit runs to its 24:00 (民法典 第二百零一条、第二百零三条: counted from
    # the next day, a period ends at 24:00 of its last day); 2小时内 ends at the instant
    whole_days = d in ("以内", "之内", "内") and unit in ("day", "week", "month", "year", "workday")
    return {"offset": [(n, unit)], "direction": direction, "within": d in ("以内", "之内", "内", "以来"),
            "open": d if d in ("以后", "以前") else None} | ({"to_day_end": True} if whole_days else {})


@_p(r"(?<![\d.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?|半)(万|亿)?\s*(个)?\s*(半)?\s*(秒钟|分钟|小时|钟头|天|周|星期|礼拜|个月|年)(?![前后内以之\d])(?!(?<=\d\d年)(?:底|末|初|上半年|下半年|第|首|[1-4一二三四]季度|春|夏|秋|冬))", "duration")
def _zh_duration(m):
    unit_word = m[5]
    n = 0.5 if m[1] == "半" else float(m[1].replace(",", "")) * {"万": 10_000, "亿": 10 ** 8, None: 1}[m[2]]
    if unit_word == "年" and (m[1] == "半" or n >= 100):
        return None
    unit = "month" if unit_word == "个月" else _ZH_UNITS[unit_word]
    if m[1] == "半" and m[2]:
        return None
    # 35,000个钟头: digits grouped by thousands; 2000万小时: a count of ten thousands
    if m[4]:
        n += 0.5
    if unit_word in ("星期", "礼拜") and not m[3]:
        return None  # 星期3 is a weekday, not a duration
    return {"duration": [(n, unit)]}


#: a quantity of a unit: "2 hours", "an hour and a half", "2 and an half hours", "a quarter of an hour", "1/4 h",
#: "three-quarters of an hour", "a couple (of) hours", "2 more minutes"; digits may touch the unit ("1h", "1/2h")
#: and the prime marks stand for minutes and seconds after digits ("15'", "1\"", ISO 80000-3's ′ and ″)
_EN_FRAC = r"a quarter of an?|quarter of an?|three[\s-]quarters of an?|half an?|a half|a couple of|a couple|a pair of|a few|few"
_EN_QTY = (rf"(?:(?:(\d+/[1-9]|\d+(?:\.\d+)?)(?:\s+more)?\s*|({_EN_FRAC}|{EN_NUM})(?:\s+more)?\s+)(?:and\s+an?\s+half\s+)?"
           rf"({_EN_UNIT_ALT}|h(?![a-z])|(?<=\d)'|(?<=\d)\")(?:\s+and\s+a\s+half)?)")
#: a cheap test that a text may hold a quantity of a unit (the duration pattern runs only then)
_EN_UNIT_NEEDS = r"sec|min|hr|hour|\d\s?h\b|day|week|month|year|fortnight|\d'|\d\""
_EN_QTYS = rf"{_EN_QTY}(?:(?:,\s*|\s+and\s+|\s+){_EN_QTY}){{0,3}}"


def _en_qtys(text: str) -> list[tuple[float, str]] | None:
    out = []
    for m in re.finditer(_EN_QTY, text):
        raw = re.sub(r"[\s-]+", " ", m[1] or m[2])
        if "/" in raw:
            a, b = raw.split("/")
            n: float | None = int(a) / int(b)
        else:
            n = {"half an": 0.5, "half a": 0.5, "a half": 0.5, "a quarter of an": 0.25, "a quarter of a": 0.25,
                 "quarter of an": 0.25, "quarter of a": 0.25, "three quarters of an": 0.75, "three quarters of a": 0.75,
                 "a couple of": 2, "a couple": 2, "a pair of": 2, "a few": 3, "few": 3}.get(raw)
            if n is None:
                n = en_number(raw)
        if n is None:
            return None
        if "and a half" in m[0] or "and an half" in m[0]:
            n += 0.5
        unit = {"h": "hour", "'": "minute", '"': "second"}.get(m[3]) or _EN_UNITS[m[3]]
        out.append((float(n), unit))
    return out or None


@_p(rf"{L}(?:with)?in\s+(?:the\s+next\s+|(?:about|around|approximately|roughly|another)\s+)?{_EN_QTYS}(?:\s+from\s+now|\s+time)?{R}",
    "offset", needs=r"in ")
def _en_in(m):
    q = _en_qtys(re.sub(r"^\S+\s+(?:(?:about|around|approximately|roughly|another)\s+)?", "", m[0]))
    return {"offset": q, "direction": 1, "within": m[0].startswith("within") or "the next" in m[0]} if q else None


@_p(rf"{L}{_EN_QTYS}\s+(ago|from\s+(?:right\s+)?now|later|hence|before|earlier|after\s+now){R}", "offset",
    needs=r"ago|from now|from right now|later|hence|before|earlier|after now")
def _en_ago(m):
    word = m[0].rsplit(" ", 1)[-1]
    q = _en_qtys(m[0])
    if not q:
        return None
    return {"offset": q, "direction": -1 if word in ("ago", "before", "earlier") else 1, "within": False}


@_p(rf"{L}after\s+(?:another\s+)?{_EN_QTYS}{R}(?!\s+(?:of|in|on|at|from|since|before|after|ago)\b)", "offset",
    needs=r"after ")
def _en_after_qty(m):
    """"call me after 5 days", "after 2 hours": from that long from now on, an open range (as 三天以后); "after 5
    days of rain", "after 3 days in Paris" are lengths of something else, and "2 days after Easter" is anchored."""
    q = _en_qtys(re.sub(r"^after\s+(?:another\s+)?", "", m[0]))
    return {"offset": q, "direction": 1, "within": False, "open": "after"} if q else None


@_p(rf"{L}(?:for\s+)?(?:the\s+)?{_EN_QTYS}{R}", "duration", needs=_EN_UNIT_NEEDS)
def _en_duration(m):
    if _military(m.string, m.start(), m[0]):
        return None  # "0900 hours", "at 1930 hrs": a clock (_en_military_clock)
    q = _en_qtys(m[0])
    return {"duration": q} if q else None


_MILITARY = lazyre.compile(r"(?:for\s+)?(?:the\s+)?(([01]\d|2[0-3])([0-5]\d))\s*(?:hours|hrs|hr)(?![a-z])")
_MILITARY_LEAD = lazyre.compile(r"(?<![a-z])(?:at|by|from|until|till|before|after|since|to)\s+$")


def _military(text: str, start: int, said: str) -> re.Match[str] | None:
    """"0900 hours", "0630 hrs", "at 1930 hrs", "from 0800 to 1700 hours": the 24-hour clock said with hours, as the
    military and aviation say it. A length is never written with a leading zero, so "0900 hours" is a clock; without
    one ("1500 hours of work") only after a word that opens a time (at, by, from, until …)."""
    m = _MILITARY.fullmatch(said)
    if m is None or not (m[1][0] == "0" or _MILITARY_LEAD.search(text, 0, start)):
        return None
    return m


@_p(r"(?<![\d.:])([01]\d|2[0-3])([0-5]\d)\s*(?:hours|hrs|hr)(?![a-z])", "clock", needs=r"\d\d\s*(?:hours|hrs|hr)")
def _en_military_clock(m):
    return {"hour": int(m[1]), "minute": int(m[2]), "h24": True} if _military(m.string, m.start(), m[0]) else None


_LEAD = lazyre.compile(r"(?:(?:at|on|for|by|the|in the|in|of|during|since|until|around|about)\s+)+")
#: parts of day that are meals: a time of their own, never merged with a clock time ("lunch at 7:30").
MEALS = frozenset({"早饭", "早餐", "午饭", "午餐", "晚饭", "晚餐", "lunch", "lunchtime", "breakfast", "brunch", "dinner", "supper"})


class _Index:
    """Which patterns can match a text, as bit sets over pattern numbers (built once every module
    has registered its patterns). A pattern is kept when three things hold, each exact (a skipped
    pattern has no match in the text):

    - the text has a pair of characters its every match can begin with (:data:`_PAIRS`), or —
      for a pattern whose pairs cannot be listed — a first character (:data:`_FIRST`: one of the
      text's characters or of a script it has);
    - its ``needs`` regex can begin likewise (a pattern without one passes);
    - the text has the first two characters of one of its required strings (:data:`_REQUIRED`);

    and the text has the scripts it needs (:data:`_SCRIPTS`). One table maps a character or a pair
    to the three bit sets it opens; the text's characters and pairs are looked up only where the
    table has them (a set intersection). Testing ninety patterns one by one cost more than running
    the few that remain, and on Latin text nearly every letter is there: the pairs are what rule
    most English patterns out."""

    def __init__(self) -> None:
        self.size = -1
        #: a character or a pair → (patterns, their needs, their required strings) it can begin
        self.by_key: dict[str, tuple[int, int, int]] = {}
        self.keys: frozenset[str] = frozenset()
        self.by_script: dict[str, int] = {}
        self.free: tuple[int, int, int] = (0, 0, 0)
        self.by_needs: dict[frozenset[str], int] = {}

    def build(self) -> None:
        """(Re)build from the registered patterns; the tables are swapped in whole at the end, so
        a thread parsing meanwhile reads the old ones or the new ones, never half of either."""
        global _SCRIPTS, _FIRST, _PAIRS, _REQUIRED
        lazy = _LAZY[:]
        scripts, firsts, pairs_of = [rx.needs for rx in lazy], [rx.first for rx in lazy], [rx.pairs for rx in lazy]
        required = [tuple(sorted(rx.required)) if rx.required is not None else None for rx in lazy]
        _SCRIPTS, _FIRST, _PAIRS, _REQUIRED = scripts, firsts, pairs_of, required
        sets: tuple[dict[str, int], dict[str, int], dict[str, int]] = ({}, {}, {})
        free = [0, 0, 0]
        by_script: dict[str, int] = {}

        def add(which: int, keys, bit: int) -> None:
            table = sets[which]
            for k in keys:
                if k:  # "" is an empty match, never an atom
                    table[k] = table.get(k, 0) | bit

        n = len(lazy)
        for i in range(n):
            bit = 1 << i
            pairs, first, needs, req = pairs_of[i], firsts[i], _NEEDS[i], required[i]
            if pairs is not None:
                add(0, pairs, bit)
            elif first is None:
                free[0] |= bit
            else:
                add(0, first.chars, bit)
                for sc in first.scripts:
                    by_script[sc] = by_script.get(sc, 0) | bit
            need_pairs = first_pairs(needs) if needs is not None else None
            if need_pairs is None or "" in need_pairs:  # no needs, or one an empty match meets
                free[1] |= bit
            else:
                add(1, need_pairs, bit)
            if req is None:
                free[2] |= bit
            else:
                add(2, (r[:2] for r in req), bit)
        keys = frozenset().union(*sets)
        by_key = {k: (sets[0].get(k, 0), sets[1].get(k, 0), sets[2].get(k, 0)) for k in keys}
        names = tuple(SCRIPTS)
        subsets = [frozenset(k for j, k in enumerate(names) if m >> j & 1) for m in range(1 << len(names))]
        # per set of scripts a text may have: the patterns whose needed scripts are all among them
        by_needs = {has: sum(1 << i for i, need in enumerate(scripts) if need <= has) for has in subsets}
        self.by_key, self.keys, self.by_script, self.free, self.by_needs = (
            by_key, keys, by_script, (free[0], free[1], free[2]), by_needs)
        self.size = n

    def candidates(self, text: str) -> list[int]:
        """Numbers of the patterns that can match ``text``, in registration order."""
        has = scripts_of(text)
        by_key = self.by_key
        mask, nmask, rmask = self.free
        # the text's characters and pairs (two-character strings; a character is one) the table has
        for k in self.keys.intersection(chain(text, map(operator.add, text, text[1:]))):
            m, nm, rm = by_key[k]
            mask |= m
            nmask |= nm
            rmask |= rm
        for sc in has:
            mask |= self.by_script.get(sc, 0)
        mask &= nmask & rmask & self.by_needs[has]
        out = []
        while mask:
            low = mask & -mask
            out.append(low.bit_length() - 1)
            mask ^= low
        return out


_INDEX = _Index()


def find_atoms(text: str) -> list[Atom]:
    """Every atom match in ``text`` (may overlap; the caller picks), in start order. Only the patterns
    that can match it run (:class:`_Index`: a script the text lacks, a first character it lacks)."""
    out: list[Atom] = []
    if _INDEX.size != len(_PATTERNS):
        _INDEX.build()
    for i in _INDEX.candidates(text):
        rx, cat, fn = _PATTERNS[i]
        req = _REQUIRED[i]  # a few ``in`` tests cost less than one search of the needs regex
        if req is not None and not any(map(text.__contains__, req)):
            continue
        needs = _NEEDS[i]
        if needs is not None and needs.search(text) is None:
            continue
        if rx.__class__ is LazyPattern:  # its first use: the compiled pattern takes its place
            rx = rx.compiled()
            _PATTERNS[i] = (rx, cat, fn)
        for m in rx.finditer(text):
            if m.end() <= m.start():
                continue
            f = fn(m)
            if f is None:
                continue
            s, e = m.span()
            if cat != "offset":
                p = _LEAD.match(text, s, e)
                if p and p.end() < e and not text.startswith(("day after", "day before", "week after"), p.end()):
                    s = p.end()
            # don't let an optional trailing space belong to the atom
            while e > s and text[e - 1] == " ":
                e -= 1
            out.append(Atom(s, e, cat, f))
    out.sort(key=lambda a: (a.start, -(a.end - a.start)))
    return out


UNIT_SECONDS = _UNIT_SECONDS
