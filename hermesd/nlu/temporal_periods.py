"""Parts of periods, ordinal weeks and weekdays, quarters, half-years, centuries, past/future
windows, durations in words, Cantonese day words and numeric date forms: atoms and rules (pure).

Rules (documented choices; tests/nlu/time_classes.yaml has the vectors):

- Parts of a month: 月初/上旬/early = days 1–10, 月中/中旬/mid = 11–20, 月底/月末/下旬/late = 21–end.
  Of a year: 年初 = January–February, 年中 = June–August, 年底/年末 = November–December (as jionlp),
  上半年/first half = January–June, 下半年/second half = July–December. Of a week: early = Monday–
  Wednesday, mid = Tuesday–Thursday, late/end = Friday–Sunday. Of a quarter or season: its first,
  middle, last month. Of a decade: years 0–2, 3–6, 7–9; of a century: its first, middle two, last decade.
- The point of a part (where a one-off event such as a reminder on it falls, ``TimeExpr.point``): an end
  (月底, 月末, 年底, the end of) is the period's last day, a beginning (月初, 年初, the beginning of) its
  first day, a middle (月中, the middle of) the middle day of the part (the 15th of a month); a third
  (上旬/中旬/下旬, early/mid/late) is its first day (the 1st/11th/21st), since a reminder "in late June" must
  not come after the part has begun; the end of a week is its Friday (the last working day: "by the end
  of the week"), not Sunday.
- 第N周 of a month is the N-th Monday-start week whose Thursday lies in the month (the ISO 8601
  week rule applied to a month); of a year, the ISO week N; a bare 第N周 with N > 5 is the year's. 第N个周X / "the Nth X of" is the N-th
  such weekday in the period; 最后一个 / "last" the last one. A week or weekday that the period does not
  have is ``invalid`` (``problem.kind == "no_such_ordinal"``).
- 第N季度/Q N is in the reference year unless a year is said; 上/下季度 shift from the current quarter.
- N世纪 (the Nth century) is the years (N−1)·100 … (N−1)·100+99, as people use it (20世纪 = 1900–1999).
- Windows (过去两周, 最近一个月, 前三天, 未来两小时, in the past 3 hours, the next 2 days) are the
  half-open span between ``ref`` and ``ref`` ∓ the duration, to the second (as jionlp resolves them). Said with
  上/下 (上两周, 下三天, 上两个月) they are whole units next to the current one, as 上周 and 下个月 are calendar
  units: 上两周 asked on a Wednesday is the two Monday-start weeks before this one, 下三小时 the three hours after
  the current one.
- Durations may chain units, each smaller than the one before, joined by nothing, 零 or 又 (一年零三个月,
  两小时三十分钟, 3分钟20秒); followed by 后/前/内 the chain is an offset or window from now. A year
  counts 365 days and a month 30 (as the single-unit durations).
- H1/H2 are half-years only beside a year (H2 2025, H1 next year).
- Numeric dates: ``Y/M/D``, ``Y-M-D``, ``Y.M.D`` and ``YYYYMMDD`` are year-month-day; two numbers
  ``M/D`` or ``MM-DD`` are month/day in both languages (Chinese writes 6/5 for 6月5日, as US English
  does); ``A/B/Y`` is month/day/year unless ``A`` > 12 (31/10/2024 is day/month/year); ``D.M.Y`` with
  a four-digit year is day.month.year; ``M.D`` (6.5) is a date only before a weekday, 号/日 or a clock
  time, since it is usually a number. Two-digit years 00–49 are 20xx, 50–99 are 19xx.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta
from typing import Any

from .. import lazyre
from .numbers import EN_NUM, EN_ORD, en_ordinal
from .temporal_atoms import register

__all__ = ["STATE_NOUNS_ZH", "apply_part"]

L = r"(?<![a-z0-9])"
R = r"(?![a-z0-9])"
_SHIFT = {"上上": -2, "上": -1, "这": 0, "本": 0, "今": 0, "下下": 2, "下": 1}
_ZH_WD = {"1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "日": 7, "天": 7}
_EN_WD = {"monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5, "saturday": 6, "sunday": 7}
_EN_ORDN = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
            "fifth": 5, "5th": 5, "last": -1}
_EN_MONTHS = {"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
              "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4,
              "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}
_ZH_PART = {"初": "early", "上旬": "early", "中": "mid", "中旬": "mid", "底": "late", "末": "late", "下旬": "late",
            "头": "early", "尾": "late"}  # 月头/月尾, 年尾: Cantonese and colloquial for 月初/月底, 年底


def _edge(word: str) -> dict[str, Any]:
    """月初/月中/月底 name an edge (or the middle) of the period; 上旬/中旬/下旬 name a third of it."""
    return {"part_edge": True} if word in ("初", "中", "底", "末", "头", "尾") else {}


def _yy(y: int) -> int:
    return y + (2000 if y < 50 else 1900) if y < 100 else y


# ---- periods said with 一: 上一周, 这一年, 上一个月 (a period, not a duration) -------------------
@register(r"(上上|上|这|本|下下|下)[1一]个?(周|星期|礼拜|月|年|季度)(?![1-7日天末])", "date", needs=r"上|这|本|下")  # 这一礼拜: the normaliser keeps 一 there
def _zh_one_period(m) -> dict[str, Any]:
    unit = {"周": "week", "星期": "week", "礼拜": "week", "月": "month", "年": "year", "季度": "quarter"}[m[2]]
    return {"period": unit, f"{unit}_shift": _SHIFT[m[1]]}


# ---- parts of periods ---------------------------------------------------------------------------
@register(r"(?<=[月年代纪度周])的?(上旬|中旬|下旬|初|中|底|末|头|尾)(?![\d一二三四五六七八九十国文心央学间期等型部华东医断止标奖发脑像])", "date", needs=r"[初中底末旬头尾]")
def _zh_part_suffix(m) -> dict[str, Any] | None:
    before = m.string[max(0, m.start() - 2):m.start()]
    if m[1] == "末" and before.endswith("周"):
        return None  # 周末 is the weekend
    if m[1] in ("头", "尾") and not (before.endswith("月") or re.fullmatch(r"\d年", before)):
        return None  # 月头, 2017年头; 这年头 is "these days", 周尾 is not said
    return {"part": _ZH_PART[m[1]]} | _edge(m[1])


@register(r"(?<![上下这本个\d今明去前后])([月年])(上旬|中旬|下旬|初|中|底|末|头|尾)(?![\d一二三四五六七八九十国文心央学间期等型部华东医断止标奖发脑像])", "date", needs=r"[初中底末旬头尾]")
def _zh_part_alone(m) -> dict[str, Any] | None:
    if m[0] == "年头":
        return None  # 年头 alone is "the years" (这年头, 有年头了)
    return {"part": _ZH_PART[m[2]], "part_period": "month" if m[1] == "月" else "year"} | _edge(m[2])


_ZH_STAGE = {"前期": "early", "初期": "early", "初叶": "early", "伊始": "early", "中期": "mid", "中叶": "mid",
             "后期": "late", "末期": "late", "末叶": "late"}


@register(r"(?<=[年代纪])的?(前期|初期|初叶|中期|中叶|后期|末期|末叶)|(?<=年)(伊始)", "date", needs=r"期|叶|伊始")
def _zh_stage(m) -> dict[str, Any]:
    """九十年代末期, 20世纪60年代前期, 19世纪中叶, 2022年伊始: the early / middle / late part of a decade,
    century or year (前期/初期/初叶 early, 中期/中叶 middle, 后期/末期/末叶 late; 伊始 = the beginning)."""
    return {"part": _ZH_STAGE[m[1] or m[2]], "part_edge": True}


@register(r"(?<![月年代纪度周])(上旬|中旬|下旬)", "date", needs=r"旬")
def _zh_xun_alone(m) -> dict[str, Any]:
    return {"part": _ZH_PART[m[1]], "part_period": "month"}


@register(r"(?<!\d)(上|下)半年", "date", needs=r"半年")
def _zh_half(m) -> dict[str, Any]:
    return {"part": "h1" if m[1] == "上" else "h2", "part_period": "year"}


@register(r"暑假|暑期", "date", needs=r"暑[假期]")
def _zh_summer_holiday(m) -> dict[str, Any]:
    """暑假 / 暑期: the schools' summer holiday, July and August of the year (as China's schools keep it; 寒假 moves
    with 春节 and is not read)."""
    return {"part": ("months", 7, 9), "part_period": "year"}


@register(rf"{L}h([12])(?=\s+(?:of\s+)?(?:19|20)\d\d{R}|\s+(?:this|next|last)\s+year{R})", "date", needs=r"h[12]")
def _en_half_code(m) -> dict[str, Any]:
    """H1 2025, H2 next year: the business shorthand for a half-year (only with a year, H1 alone is not a date)."""
    return {"part": "h1" if m[1] == "1" else "h2", "part_period": "year"}


@register(rf"{L}(early|late|mid|the beginning of|the start of|the end of|the middle of|beginning of|start of|end of"
          rf"|middle of|the first half of|the second half of|first half of|second half of|the 1st half of|the 2nd half of"
          rf"|1st half of|2nd half of)"
          rf"(?:[\s-]+(?:(?:the|this)\s+)?(week|month|year|quarter)(?![a-z])|(?=[\s-]))", "date",
          needs=r"early|late|mid|beginning|start|end|half")
def _en_part(m) -> dict[str, Any]:
    w = m[1].replace("the ", "")
    part = {"early": "early", "beginning of": "early", "start of": "early", "mid": "mid", "middle of": "mid",
            "late": "late", "end of": "late", "first half of": "h1", "second half of": "h2", "1st half of": "h1",
            "2nd half of": "h2"}[w]
    out: dict[str, Any] = {"part": part} | ({"part_edge": True} if w.endswith(" of") and part != "h1" and part != "h2" else {})
    if m[2]:
        out["part_period"] = m[2]
    return out


@register(rf"{L}(eom|bom|eoy|eow|eoq)(?![a-z'])", "date", needs=r"eo[mywq]|bom")
def _en_part_code(m) -> dict[str, Any]:
    """EOM, BOM, EOY, EOW, EOQ: the business shorthand for the end / beginning of the month, year, week,
    quarter (BOY is left out: it is the word "boy")."""
    part = "early" if m[1][0] == "b" else "late"
    period = {"m": "month", "y": "year", "w": "week", "q": "quarter"}[m[1][2]]
    return {"part": part, "part_period": period, "part_edge": True}


# ---- ordinal weeks and weekdays ---------------------------------------------------------------
@register(r"(?:第([1-9]|[1-4]\d|5[0-3])|(最后)1?)个?(?:周|星期|礼拜)([1-7日天])?(?![\d末])", "date", needs=r"第|最后")
def _zh_ordinal(m) -> dict[str, Any] | None:
    n = -1 if m[2] else int(m[1])
    if m[3]:
        return {"part": ("nth", n, _ZH_WD[m[3]]), "part_period": "month"}
    if m[2] and "个" not in m[0]:
        return None  # 最后周 is not said
    return {"part": ("week", n), "part_period": "month" if n <= 5 else "year"}  # 第10周: a week of the year


@register(rf"{L}(?:the\s+)?(?:(second|third|fourth|fifth|2nd|3rd|4th|5th)\s+(?=last\s))?"
          rf"(first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th|{EN_ORD}(?=\s+day\s))\s+"
          rf"(monday|tuesday|wednesday|thursday|friday|saturday|sunday|week[\s-]?end|wkend|week|day)\s+(?:of|in)"
          rf"(?:\s+(?:the|this)\s+(month|year)|(?=\s))", "date",
          needs=r"first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th|(?:st|nd|rd|th) day ")
def _en_ordinal(m) -> dict[str, Any] | None:
    """the second Monday of June, the last week of 2018, the third last week of 2018 (counted from the end),
    the fifth last day of May, the third day of October, the last weekend of October."""
    n = _EN_ORDN.get(m[2]) or en_ordinal(m[2])
    if not n or (m[3] != "day" and abs(n) > 5) or n > 31:
        return None
    if m[1]:
        n = -_EN_ORDN[m[1]]  # "third last" = the third counted from the end
    unit = m[3].replace(" ", "").replace("-", "")
    part = ("week", n) if unit == "week" else ("day", n) if unit == "day" else \
        ("weekend", n) if unit in ("weekend", "wkend") else ("nth", n, _EN_WD[unit])
    out: dict[str, Any] = {"part": part}
    if m[4]:
        out["part_period"] = m[4]
    return out


# ---- the first / last N months or quarters of a year: 2022年前十一个月, 今年前三季度, 二零二一年后三月 --
_ZH_YEAR_WORDS = {"大前年": -3, "前年": -2, "去年": -1, "今年": 0, "本年": 0, "明年": 1, "后年": 2, "大后年": 3}


def _zh_year_fields(digits: str | None, word: str | None) -> dict[str, Any]:
    return {"year": _yy(int(digits))} if digits else {"year_shift": _ZH_YEAR_WORDS[word]}


@register(r"(?:(?<!\d)(\d{4}|\d{2})年|(大前年|前年|去年|今年|本年|明年|大后年|后年))的?(前|头|后|最后)(\d{1,2})(个)?(月|季度)(?!\d|[日号底初末中份])",
          "date", needs=r"年的?(?:前|头|后|最后)\d")
def _zh_year_first_units(m) -> dict[str, Any] | None:
    """The first (前/头) or last (后/最后) N months or quarters of a named year (2022年前十一个月 = January to
    November 2022): after a year, 前/后 + a count is a part of that year, not an offset from it (19年前 alone is
    nineteen years ago). A month count without 个 (前两月) is read so only here, where the year names the whole."""
    unit = "quarter" if m[6] == "季度" else "month"
    n = int(m[4])
    if n == 0 or n * (3 if unit == "quarter" else 1) > 12:
        return None
    return {**_zh_year_fields(m[1], m[2]), "period": "year",
            "part": ("first" if m[3] in ("前", "头") else "last", n, unit)}


@register(r"(?<=年)的?(?:第(1[0-2]|[1-9])个月|(首)月)", "date", needs=r"年的?(?:第|首月)")
def _zh_month_of_year(m) -> dict[str, Any]:
    """70年第8个月, 2005年首月: the Nth month of the year said before it (首 = the first)."""
    return {"month": 1 if m[2] else int(m[1]), "period": "month"}


# ---- quarters, centuries ------------------------------------------------------------------------
@register(r"(?:第)?([1-4一二三四]|首)季度", "date", needs=r"季度")
def _zh_quarter(m) -> dict[str, Any]:
    """三季度, 第3季度, 首季度 (the first); the normaliser keeps 一 before 季度 (一季度)."""
    q = {"一": 1, "二": 2, "三": 3, "四": 4, "首": 1}.get(m[1]) or int(m[1])
    return {"period": "quarter", "quarter": q}


@register(r"(上上|上|这|本|下下|下)(?:[1一]个?|个)?季度", "date", needs=r"季度")
def _zh_quarter_rel(m) -> dict[str, Any]:
    return {"period": "quarter", "quarter_shift": _SHIFT[m[1]]}


@register(rf"{L}q([1-4])(?:\s*((?:19|20)\d\d))?{R}|{L}(?:the\s+)?(first|second|third|fourth|1st|2nd|3rd|4th)\s+(?:quarter|qtr)"
          rf"(?:\s+(?:of\s+)?((?:19|20)\d\d))?{R}|{L}((?:19|20)\d\d\s*|\d\d)q([1-4]){R}", "date", needs=r"q")
def _en_quarter(m) -> dict[str, Any]:
    """Q4, Q4 2018, the 4th quarter (qtr) of 2018, 2018Q4, 18q4 (a two-digit year is 20xx)."""
    q = int(m[1] or m[6]) if (m[1] or m[6]) else _EN_ORDN[m[3]]
    out: dict[str, Any] = {"period": "quarter", "quarter": q}
    if m[2] or m[4]:
        out["year"] = int(m[2] or m[4])
    elif m[5]:
        y = m[5].strip()
        out["year"] = int(y) if len(y) == 4 else 2000 + int(y)
    return out


@register(r"(?:(上|本|这|下)个?|(\d{1,2}))世纪(?:(\d)0年代)?", "date", needs=r"世纪")
def _zh_century(m) -> dict[str, Any]:
    out: dict[str, Any] = {"period": "century"}
    if m[2]:
        out["year"] = (int(m[2]) - 1) * 100
    else:
        out["century_shift"] = _SHIFT[m[1]]
    if m[3] is not None:
        out["decade"] = int(m[3]) * 10
        out["period"] = "decade"
    return out


_EN_CENT = {"nineteenth": 19, "twentieth": 20, "twenty-first": 21, "twenty first": 21, "eighteenth": 18}


@register(rf"{L}(?:the\s+)?(?:(this|last|next|the last|the next|previous)|(\d{{2}})(?:st|nd|rd|th)|"
          rf"({'|'.join(_EN_CENT)}))\s+century{R}", "date", needs=r"century")
def _en_century(m) -> dict[str, Any]:
    if m[1]:
        return {"period": "century", "century_shift": {"this": 0, "last": -1, "the last": -1, "previous": -1}.get(m[1], 1)}
    n = int(m[2]) if m[2] else _EN_CENT[m[3]]
    return {"period": "century", "year": (n - 1) * 100}


@register(rf"{L}(?:the\s+)?(this|last|next|past|previous|coming)\s+decade{R}", "date", needs=r"decade")
def _en_decade_rel(m) -> dict[str, Any]:
    """"this decade" is the calendar decade of the reference year (the 2020s), "last decade" the one before."""
    return {"period": "decade", "decade_shift": {"this": 0, "next": 1, "coming": 1}.get(m[1], -1)}


# ---- two-digit years with an apostrophe: May '19, in '98, the summer of '69 ----------------------
@register(rf"{L}(?:({'|'.join(_EN_MONTHS)})\s+)?'(\d\d){R}", "date", needs=r"'\d\d")
def _en_apostrophe_year(m) -> dict[str, Any]:
    out: dict[str, Any] = {"year": _yy(int(m[2])), "period": "year"}
    if m[1]:
        out |= {"month": _EN_MONTHS[m[1]], "period": "month"}
    return out


# ---- windows: 过去两周, 最近一个月, 前三天, 后三天, 未来两小时, in the past 3 hours ------------------
# 后三天 opening an utterance is the window ahead, as 前三天 is the one behind (Duckling's zh corpus: 后三天,
# 後三小時); after a word (吃饭后两小时, 三天后) it is an offset from that word
_ZH_WIN_UNIT = {"秒钟": "second", "秒": "second", "分钟": "minute", "小时": "hour", "钟头": "hour", "天": "day",
                "日": "day", "周": "week", "星期": "week", "礼拜": "week", "个月": "month", "月": "month", "年": "year"}


@register(r"(过去|最近|近|前|后|未来|接下来的?|今后|往后|上(?=[2-9]|[1-9]\d)|下(?=[2-9]|[1-9]\d))的?(\d+(?:\.\d+)?|半|俩|仨)(个)?(半)?(秒钟|秒|分钟|小时|钟头|天|日|周|星期|礼拜|月|年)((?:以内|之内|内|里)(?![前后内以之里代]))?(?![前后内以之里代])", "offset", needs=r"过去|最近|近|前|后|未来|接下来|今后|往后|上\d|下\d")
def _zh_window(m) -> dict[str, Any] | None:
    n = {"半": 0.5, "俩": 2, "仨": 3}.get(m[2]) or float(m[2])
    if m[4]:
        n += 0.5
    if m[5] == "月" and not m[3]:
        return None  # 前3月 is not said; 近3月 neither
    if m[1] in ("上", "下") and m.start() > 0 and "\u4e00" <= m.string[m.start() - 1] <= "\u9fff" \
            and m.string[m.start() - 1] not in "的在这是":
        return None  # 马上3天, 以下2年: 上/下 there belong to the word before
    if m[1] in ("前", "后") and m.start() > 0 and m.string[m.start() - 1] not in " ,.;:!?的在这最是":
        return None  # 开始前一小时 / 吃饭后两小时 are an hour before / two after something, not a window from now
    if m[6] and m[1] in ("前", "后", "上", "下"):
        return None  # 后3天内 is not said so; 内/里 closes only a window said with a word (未来5年内, 过去的50分钟里)
    direction = 1 if m[1] in ("未来", "接下来", "接下来的", "今后", "往后", "下", "后") else -1
    # 上/下 + N units name whole units next to the current one, as 上周 / 下个月 name the calendar week / month
    # (上两周 = the two Monday-start weeks before this one, 下三天 = the three days after today)
    whole = {"calendar": True} if m[1] in ("上", "下") and n == int(n) else {}
    return {"offset": [(n, _ZH_WIN_UNIT[m[5]])], "direction": direction, "within": True} | whole


@register(r"(?<![超度经通越不])再?过(\d+(?:\.\d+)?|半|俩|仨)(多)?(个)?(半)?(秒钟|秒|分钟|小时|钟头|刻钟|天|日|周|星期|礼拜|月|年)(半)?"
          r"(?![前后内以之里钟头\d])", "offset", needs=r"过")
def _zh_guo(m) -> dict[str, Any] | None:
    """(再)过两天, 再过半个小时, 过十周: the time that many units from now (现代汉语词典 过: 经过某一段时间),
    as 两天后 is; 超过/不过/经过两天 are other words (more than, only, after)."""
    n = {"半": 0.5, "俩": 2, "仨": 3}.get(m[1]) or float(m[1])
    if m[4] and m[6]:
        return None
    n += 0.5 if (m[4] or m[6]) else 0
    if m[5] == "月" and not m[3]:
        return None  # 过3月 is not said
    unit = "minute" if m[5] == "刻钟" else _ZH_WIN_UNIT[m[5]]
    return {"offset": [(n * 15 if m[5] == "刻钟" else n, unit)], "direction": 1, "within": False}


@register(r"(?<![\d.])(\d+)周年|(?<![\d.])(\d+)天\d+(?:晚|夜)|(?<![\d.])(\d+)天\3夜|(?<![\d.])(\d+)个季度(?![前后内以之])",
          "duration", needs=r"周年|天\d+[晚夜]|个季度")
def _zh_years_nights(m) -> dict[str, Any]:
    """4周年 (four full years), 6天5晚 / 三天三夜 (a stay of that many days, its nights inside them),
    五个季度 (quarters of three months)."""
    if m[1]:
        return {"duration": [(float(m[1]), "year")]}
    if m[4]:
        return {"duration": [(3.0 * int(m[4]), "month")]}
    return {"duration": [(float(m[2] or m[3]), "day")]}


@register(r"(?<![\d.])(\d+)(多|几|来)?(个)?(多)?(秒钟|分钟|小时|钟头|天|周|星期|礼拜|月|年)(多)?(?![前后内以之里\d])", "duration",
          needs=r"\d[多几来]|个多|[年天月]多")
def _zh_some_more(m) -> dict[str, Any] | None:
    """70多分钟, 四个多星期, 17个多月, 3年多, 十来天 (来: about): N and some units, read as N (its lower bound);
    3年多 alone, as 3年, is a count (a year is 19年 only before a part of it)."""
    if not (m[2] or m[4] or m[6]) or sum(bool(g) for g in (m[2], m[4], m[6])) > 1:
        return None
    if m[5] in ("月", "星期", "礼拜") and not m[3]:
        return None  # 3月多 / 星期3 are not counts
    if m[2] in ("几", "来") and len(m[1]) < 2:
        return None  # 2几 / 2来 are not said; 20几年, 10来天 are
    return {"duration": [(float(m[1]), _ZH_WIN_UNIT[m[5]])]}


_EN_UNIT = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)"


@register(rf"{L}(?:(?:in|within|during|over|for)\s+)?(?:the\s+)?(past|last|previous|next|coming|following)\s+"
          rf"({EN_NUM}|few|couple of)\s+({_EN_UNIT}){R}", "offset", needs=r"past|last|previous|next|coming|following")
def _en_window(m) -> dict[str, Any] | None:
    from .numbers import en_number

    n = {"few": 3, "couple of": 2}.get(m[2]) or en_number(m[2])
    if not n:
        return None
    unit = m[3].rstrip("s")
    unit = {"sec": "second", "min": "minute", "hr": "hour"}.get(unit, unit)
    return {"offset": [(float(n), unit)], "direction": -1 if m[1] in ("past", "last", "previous") else 1, "within": True}


@register(rf"{L}(?:(?:in|within|during|over|for)\s+the\s+(past|last|previous|next|coming|following)|within\s+the)\s+hour{R}",
          "offset", needs=r"the (?:past|last|previous|next|coming|following) hour|within the hour")
def _en_window_hour(m) -> dict[str, Any]:
    """in the next hour, over the past hour, within the hour: the hour's window from now (a number needs no "one";
    "the last minute" is left out, as the idiom for "as late as possible")."""
    return {"offset": [(1.0, "hour")], "direction": -1 if m[1] in ("past", "last", "previous") else 1, "within": True}


# ---- durations in words: 两年半, 一刻钟, 俩礼拜, 两个钟, a quarter of an hour ----------------------
_DUR_UNIT = {"月": "month", "年": "year", "天": "day", "周": "week", "星期": "week", "礼拜": "week", "小时": "hour", "钟头": "hour",
             "个月": "month", "个钟": "hour", "个星期": "week", "个礼拜": "week"}


@register(r"(?<![\d.第周期拜])(\d+|俩|仨)(个月|个钟|个星期|个礼拜|年|天|周|星期|礼拜|小时|钟头|月)(半)?(?![年月天周个小时钟点前后内以之1-7日末号\d])", "duration", needs=r"[半俩仨]|个[钟星礼]")
def _zh_duration_words(m) -> dict[str, Any] | None:
    n = {"俩": 2, "仨": 3}.get(m[1]) or int(m[1])
    if m[2] == "年" and n >= 100:
        return None  # 2024年 is a year
    if m[2] == "月" and m[1] not in ("俩", "仨"):
        return None  # 3月 is March; 俩月, 仨月 are two, three months
    if m[2] in ("年", "天", "周", "小时", "钟头") and not m[3] and m[1] not in ("俩", "仨"):
        return None  # the plain forms are the base duration atom's
    return {"duration": [(n + (0.5 if m[3] else 0), _DUR_UNIT[m[2]])]}


_CHAIN_UNIT = {"年": "year", "个月": "month", "个星期": "week", "个礼拜": "week", "周": "week", "星期": "week",
               "礼拜": "week", "天": "day", "个小时": "hour", "小时": "hour", "个钟头": "hour", "钟头": "hour",
               "分钟": "minute", "分": "minute", "秒钟": "second", "秒": "second"}
_CHAIN_U = "|".join(sorted(_CHAIN_UNIT, key=len, reverse=True))
_CHAIN_PART = lazyre.compile(rf"(\d+|俩|仨)({_CHAIN_U})(半)?")
_UNIT_RANK = ("year", "month", "week", "day", "hour", "minute", "second")


_CHAIN = rf"(?<![\d.第])(?:\d+|俩|仨)(?:{_CHAIN_U})半?(?:(?:零|又|,)?(?:\d+)(?:{_CHAIN_U})){{1,3}}(?![\d月日号点])"
_CHAIN_NEEDS = r"\d(?:年|个月|个?星期|个?礼拜|周|天|个?小时|个?钟头|分钟?|秒钟?)[零又,]?\d"


def _chain_parts(text: str) -> list[tuple[float, str]] | None:
    """一年零三个月, 两小时三十分钟, 1天2小时, 3分钟20秒: each unit smaller than the one before, never a year
    of 100 or more (2024年3个月 is not a duration); None unless two parts or more."""
    parts: list[tuple[float, str]] = []
    for p in _CHAIN_PART.finditer(text):
        n = {"俩": 2, "仨": 3}.get(p[1]) or int(p[1])
        unit = _CHAIN_UNIT[p[2]]
        if parts and _UNIT_RANK.index(unit) <= _UNIT_RANK.index(parts[-1][1]):
            return None
        if unit == "year" and n >= 100:
            return None
        parts.append((n + (0.5 if p[3] else 0), unit))
    return parts if len(parts) >= 2 else None


@register(_CHAIN + r"(?![前后内以之])", "duration", needs=_CHAIN_NEEDS)
def _zh_duration_chain(m) -> dict[str, Any] | None:
    parts = _chain_parts(m[0])
    return {"duration": parts} if parts else None


@register(_CHAIN + r"\s*(以后|之后|后|以前|之前|前|以内|之内|内)", "offset", needs=_CHAIN_NEEDS)
def _zh_offset_chain(m) -> dict[str, Any] | None:
    """1小时30分钟后, 两天三小时以内: the chain as an offset from now (as a single unit's 3天后)."""
    parts = _chain_parts(m[0])
    if not parts:
        return None
    return {"offset": parts, "direction": -1 if m[1] in ("以前", "之前", "前") else 1,
            "within": m[1] in ("以内", "之内", "内")}


@register(r"(?<![\d.])(\d+)个半月|半个钟(?!头|点)|(?<![\d.])([1-3])刻钟", "duration", needs=r"半月|半个钟|刻钟")
def _zh_duration_more(m) -> dict[str, Any]:
    if m[1]:
        return {"duration": [(int(m[1]) + 0.5, "month")]}
    if m[2]:
        return {"duration": [(15 * int(m[2]), "minute")]}
    return {"duration": [(0.5, "hour")]}


@register(rf"{L}(?:for\s+)?(?:a\s+)?quarter\s+(?:of\s+an\s+)?hour{R}", "duration", needs=r"quarter")
def _en_quarter_hour(m) -> dict[str, Any]:
    return {"duration": [(15, "minute")]}


# ---- YYYY.MM at a range's end: 1999.08-2002.02, 2015.09至今 (as written in a CV) ------------------------------
@register(r"(?<![\d.])((?:19|20)\d\d)\.(0[1-9]|1[0-2])(?![\d.])(?=\s*(?:--?|~|至|到))"
          r"|(?:(?<=-)|(?<=- )|(?<=~)|(?<=~ )|(?<=至)|(?<=到))((?:19|20)\d\d)\.(0[1-9]|1[0-2])(?![\d.])", "date",
          needs=r"\d{4}\.\d\d")
def _dotted_year_month(m) -> dict[str, Any]:
    """A year and a two-digit month joined by a dot, only at either end of a range (alone, 2019.05 may be a
    price or a version): the month of that year."""
    return {"year": int(m[1] or m[3]), "month": int(m[2] or m[4]), "period": "month"}


# ---- a season said with one character after a year: 2021年春, 20年冬 ---------------------------------------
@register(r"(?<=年)(春|夏|秋|冬)(?![天季节装风雨雷光色令至日运耕收游假])", "date", needs=r"年[春夏秋冬]")
def _zh_season_after_year(m) -> dict[str, Any]:
    """2021年春, 20年冬: the season of that year (between solar terms, as 春天); 2021年春节 and 冬至 are days."""
    return {"period": "season", "month": {"春": 3, "夏": 6, "秋": 9, "冬": 12}[m[1]], "jieqi": True}


# ---- X and Y, two days / years: 今明两天, 明后两天, 今明两年 -------------------------------------------------
_PAIR_DAYS = {"今明": 0, "明后": 1, "昨今": -1, "前昨": -2}


@register(r"(今明|明后|昨今|前昨)(?:两|2)(天|日|年)", "date", needs=r"(?:今明|明后|昨今|前昨)(?:两|2)")
def _zh_pair(m) -> dict[str, Any]:
    """今明两天 (today and tomorrow), 明后两天, 今明两年 (this year and next): a range of the two named units."""
    first = _PAIR_DAYS[m[1]]
    if m[2] == "年":
        return {"pair": ("year", first)}
    return {"pair": ("day", first)}


# ---- 次日 / 翌日 / 第二天 / 第N天: the day after (the first end of a range, else today) --------------------
@register(r"(次日|翌日|隔天|隔日)|(?<![周月年期拜季度])第([2-9]|[1-9]\d)天", "date", needs=r"次日|翌日|隔[天日]|第\d")
def _zh_next_day(m) -> dict[str, Any]:
    """13:20~次日05:40, 夜间至次日上午: the day after the range's first end (:func:`.temporal._range`);
    alone, the day after today (现代汉语词典 次日: 第二天). 第N天 counts the day of the first end, or today, as the
    first (第二天 = 次日, 第三天 the day after it); after a week, month or year word (每周第三天) it is no such day."""
    return {"rel_day": int(m[2]) - 1 if m[2] else 1, "after_first": True}


@register(r"(?<![周月年期拜季度\d])第([2-9]|[1-9]\d)(年|个月)(?![级度底末初中])", "date", needs=r"第\d")
def _zh_nth_year_month(m) -> dict[str, Any]:
    """第二年 / 第三个月: counted as 第N天 is (the year or month of the range's first end, or this one, is the first):
    第二年 = 次年 (the following year), 第七年 six years on; 第3年级 (a grade), 第2年度 are none."""
    n = int(m[1]) - 1
    if m[2] == "年":
        return {"period": "year", "year_shift": n, "after_first": True}
    return {"period": "month", "month_shift": n, "after_first": True}


# ---- 晚 alone after a day: 周一晚, 礼拜一晚, 十五晚8点 (the evening of that day) -------------------------
@register(r"(?:(?<=周[1-7日天])|(?<=星期[1-7日天])|(?<=礼拜[1-7日天])|(?<=[号日])|(?<=\d)(?=晚\d{1,2}点))晚(?![上间饭餐安会些了辈点年报])",
          "pod", needs=r"晚")
def _evening_after_day(m) -> dict[str, Any]:
    """晚 right after a weekday or a dated day is that day's evening (晚上); after a bare number only before a
    clock (十五晚8点), as 15晚 alone is fifteen nights."""
    return {"pod": "晚上"}


# ---- Cantonese and other day words: 听日, 寻日/琴日, 前日, 后日, 听朝, 当前 ---------------------
_DAY_WORDS = {"听日": (1, None), "聽日": (1, None), "寻日": (-1, None), "尋日": (-1, None), "琴日": (-1, None),
              "前日": (-2, None), "后日": (2, None), "听朝": (1, "早上"), "聽朝": (1, "早上"), "今朝": (0, "早上"),
              "琴晚": (-1, "晚上"), "寻晚": (-1, "晚上"), "尋晚": (-1, "晚上"), "听晚": (1, "晚上"), "聽晚": (1, "晚上"),
              "大后日": (3, None), "琴朝": (-1, "早上"), "寻朝": (-1, "早上"), "尋朝": (-1, "早上")}
# 当天, 当日 (现代汉语词典: 本日, 同一天), 当晚 / 当夜 (that evening): said alone, the reference day; after a
# date (3月5日当天, 周一当晚) they are that date's, which the date before says, so they are no second date;
# after a word ending in 当 (应当天天, 相当日常, 每当夜深) they are no day
_SAME_DAY = {"当天": (0, None), "当日": (0, None), "当晚": (0, "晚上"), "当夜": (0, "晚上")}


@register("(" + "|".join(sorted(_DAY_WORDS, key=len, reverse=True)) + ")(?:黑)?"
          r"|(?<![\d日号天节周期拜应相正适恰妥理担充便勾家停得稳上典每])(当天|当日|当晚|当夜)", "date", needs=r"[听聽寻尋琴前后今大当]")
def _zh_day_words(m) -> dict[str, Any]:
    d, pod = _DAY_WORDS[m[1]] if m[1] else _SAME_DAY[m[2]]
    return {"rel_day": d} | ({"pod": pod} if pod else {})


# 一点 is "a little" too, so the normaliser keeps it; right after a part of day it is one o'clock (下午一点, 晏晝一點)
@register(r"(?<=上午|下午|中午|晚上|凌晨|半夜|早上|晏晝|晏昼|下晝|下昼|夜晚|晚黑|朝早)一点(?:(半)|(\d{1,2})分?)?", "clock", needs=r"一点")
def _zh_one_oclock(m) -> dict[str, Any]:
    return {"hour": 1, "minute": 30 if m[1] else int(m[2]) if m[2] else None}


# "the current temperature": current before a quantity that changes with time asks for its value now
@register(rf"{L}current(?=\s+(?:local\s+)?(?:weather|temperature|temp|humidity|conditions|wind|air quality|"
          rf"pressure|visibility|uv index|time){R})", "now", needs=r"current")
def _en_current(m) -> dict[str, Any]:
    return {"now": True}


# 目前/当前/当下/眼下 are also adjectives before a noun (当前位置, 目前位置, 当前小说): a time only where
# no noun follows (end, punctuation, or a verb or adverb)
#: quantities that change with time (目前的气温: their value now; 目前的位置 is an attribute)
STATE_NOUNS_ZH = "天气|气温|温度|湿度|风速|风力|风向|降水|降雨|雨量|空气质量|气压|能见度|紫外线|时间|时刻"


@register(rf"此时此刻|(?:目前|当前|当下|眼下)(?=$|[,.;!?]|\s*[是有正在要会就还没不]|的\s*(?:{STATE_NOUNS_ZH}))", "now",
          needs=r"目前|当前|当下|眼下|此时")
def _zh_now_words(m) -> dict[str, Any]:
    return {"now": True}


# ---- numeric forms ---------------------------------------------------------------------------------
@register(r"(?<![\d/.:-])(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})(?![\d/])", "date", needs=r"/")
@register(r"(?<![\d/.:-])(\d{1,2})-(\d{1,2})-(\d{4}|\d{2})(?![\d-])", "date", needs=r"\d-\d{1,2}-\d")
def _dmy_or_mdy(m) -> dict[str, Any] | None:
    """10/31/1974, 10-31-74: month first (US usage) unless only the day-first reading exists (31/10/2024)."""
    a, b = int(m[1]), int(m[2])
    if a > 12 >= b:
        a, b = b, a  # 31/10/2024: only a day/month/year reading exists
    return {"year": _yy(int(m[3])), "month": a, "day": b}


@register(r"(?<![\d.])(\d{1,2})\.(\d{1,2})\.(\d{4})(?![\d.])", "date", needs=r"\.")
def _dotted_dmy(m) -> dict[str, Any]:
    """5.6.2024: day first (European and Chinese usage) unless only the month-first reading exists (10.31.1974)."""
    d, mo = int(m[1]), int(m[2])
    if mo > 12 >= d:
        d, mo = mo, d
    return {"year": int(m[3]), "month": mo, "day": d}


@register(r"(?<![\d.:/-])(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?![\d-])", "date", needs=r"-")
def _mm_dd(m) -> dict[str, Any]:
    return {"month": int(m[1]), "day": int(m[2])}


@register(r"(?<![\d.])((?:19|20)\d\d)(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?![\d])", "date", needs=r"\d{8}")
def _compact(m) -> dict[str, Any]:
    return {"year": int(m[1]), "month": int(m[2]), "day": int(m[3])}


@register(r"(?<![\d.])(1[0-2]|[1-9])\.(3[01]|[12]\d|[1-9])(?![\d.])(?:[号日]|(?=\s*(?:周|星期|礼拜|\(|上午|下午|晚上|早上|中午|\d{1,2}[:点])))", "date", needs=r"\.")
def _dotted_md(m) -> dict[str, Any]:
    return {"month": int(m[1]), "day": int(m[2])}


# 三月一 (March 1st without 号): the normaliser keeps a lone 一, which is a day only at a pause or before 号/日
@register(r"(?<![\d个])(1[0-2]|[1-9])月一(?:[号日]|(?=$|[,.;!?\s]))", "date", needs=r"月一")
def _zh_month_first(m) -> dict[str, Any]:
    return {"month": int(m[1]), "day": 1}


@register(r"(?<!\d)(\d{2})年(?=\d{1,2}月|底|末|初|上半年|下半年|第|首|[1-4一二三四]季度|春|夏|秋|冬)", "date", needs=r"年")
def _two_digit_year(m) -> dict[str, Any]:
    """19年5月, 19年底, 07年第三季度, 20年冬: a two-digit year before a month or a part of the year (19年 alone,
    19年前 / 15年中 are a count of years)."""
    return {"year": _yy(int(m[1])), "period": "year"}


# ---- applying a part to a period -----------------------------------------------------------------
def _month_add(d: date, k: int) -> date:
    t = d.year * 12 + d.month - 1 + k
    return date(t // 12, t % 12 + 1, 1)


def apply_part(s: date, e: date, grain: str, part: Any) -> tuple[date, date, str] | None:
    """The part ``part`` of the period ``[s, e)`` of grain ``grain``; None when the period has no such part.

    :param part: ``early`` | ``mid`` | ``late`` | ``h1`` | ``h2`` | ``("week", n)`` | ``("nth", n, weekday)``
        (``n`` = −1 for the last; weekday 1 = Monday) | ``("week_of",)`` (the week holding a day).
    :return: ``(start, end, grain)`` half-open.

    A part may also be ``("first", n, unit)`` / ``("last", n, unit)``: the first or last ``n`` months or
    quarters of a year (``unit`` ``month`` | ``quarter``; 2022年前十一个月, 二零二一年后三月).
    """
    if isinstance(part, tuple):
        if part[0] == "week_of":  # the week of October 7th: the Monday-start week that holds the day
            if grain != "day":
                return None
            mon = s - timedelta(days=s.isoweekday() - 1)
            return mon, mon + timedelta(weeks=1), "week"
        if part[0] == "day":  # the third day of October; the fifth last day of May (n < 0: from the end)
            d = s + timedelta(days=part[1] - 1) if part[1] > 0 else e + timedelta(days=part[1])
            return (d, d + timedelta(days=1), "day") if s <= d < e else None
        if part[0] == "months":  # months a to b (exclusive) of a year: 暑假 = July and August
            return (date(s.year, part[1], 1), date(s.year, part[2], 1), "month") if grain == "year" else None
        if part[0] in ("first", "last"):  # the first / last n months or quarters of a year
            months = part[1] * (3 if part[2] == "quarter" else 1)
            if grain != "year" or not 1 <= months <= 12:
                return None
            g = "quarter" if part[2] == "quarter" else "month"
            return (s, _month_add(s, months), g) if part[0] == "first" else (_month_add(s, 12 - months), e, g)
        if part[0] in ("nth", "weekend"):
            n, wd = part[1], (part[2] if part[0] == "nth" else 6)  # a weekend is counted by its Saturday
            if n > 0:
                d = s + timedelta(days=(wd - s.isoweekday()) % 7 + 7 * (n - 1))
            else:
                last = e - timedelta(days=1)
                d = last - timedelta(days=(last.isoweekday() - wd) % 7 + 7 * (-n - 1))
            if not s <= d < e:
                return None
            return (d, d + timedelta(days=2), "weekend") if part[0] == "weekend" else (d, d + timedelta(days=1), "day")
        n = part[1]
        thursdays = s + timedelta(days=(4 - s.isoweekday()) % 7)
        if n < 0:
            last = e - timedelta(days=1)
            thursdays = last - timedelta(days=(last.isoweekday() - 4) % 7 + 7 * (-n - 1))
            th = thursdays
        else:
            th = thursdays + timedelta(weeks=n - 1)
        if not s <= th < e:
            return None
        mon = th - timedelta(days=3)
        return mon, mon + timedelta(weeks=1), "week"
    if part in ("h1", "h2"):
        if grain != "year":
            return None
        mid = date(s.year, 7, 1)
        return (s, mid, "month") if part == "h1" else (mid, e, "month")
    third = ("early", "mid", "late").index(part)
    if grain == "month":
        last = calendar.monthrange(s.year, s.month)[1]
        a, b = ((1, 11), (11, 21), (21, last + 1))[third]
        return s.replace(day=a), (e if b > last else s.replace(day=b)), "day"
    if grain == "year":
        a, b = ((1, 3), (6, 9), (11, 13))[third]
        return date(s.year, a, 1), (e if b > 12 else date(s.year, b, 1)), "month"
    if grain in ("week", "weekend"):
        if grain == "weekend":
            return None
        a, b = ((0, 3), (1, 4), (4, 7))[third]
        return s + timedelta(days=a), s + timedelta(days=b), "day"
    if grain in ("quarter", "season"):
        return _month_add(s, third), _month_add(s, third + 1), "month"
    if grain == "decade":
        a, b = ((0, 3), (3, 7), (7, 10))[third]
        return date(s.year + a, 1, 1), date(s.year + b, 1, 1), "year"
    if grain == "century":
        a, b = ((0, 10), (40, 60), (90, 100))[third]
        return date(s.year + a, 1, 1), date(s.year + b, 1, 1), "decade"
    return None
