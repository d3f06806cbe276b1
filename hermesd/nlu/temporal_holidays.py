"""Holidays, solar terms and Chinese lunar dates: their atoms and the day each falls on (pure).

A holiday atom yields ``{"holiday": key}`` (with ``hol_rel`` ±1 for next/last X, 下一个X/上一个X, and
``hol_day`` N for its N-th day, 春节第三天);
a lunar date ``{"lunar": (month, day, leap)}``; a whole lunar month (农历十月, 闰四月, 正月, 腊月)
``{"lunar_month": (month, leap)}``. :func:`holiday_date` gives the day of a holiday
in a Gregorian year. Rules:

- fixed dates (元旦, 国庆, Christmas, Bonfire Night …) and US rules (Thanksgiving = 4th Thursday of November,
  Memorial Day = last Monday of May, Mother's Day = 2nd Sunday of May …, per 5 U.S.C. 6103); the UK bank
  holidays of a Monday (early May = the first Monday of May, spring = the last of May, summer / August = the
  last of August, per the Banking and Financial Dealings Act 1971);
- lunar holidays (春节 = 正月初一, 元宵 = 正月十五, 端午 = 五月初五, 七夕, 中秋 = 八月十五,
  重阳 = 九月初九, 腊八, 小年 = 腊月二十三) in the lunar year numbered like the Gregorian year, and
  除夕 = the eve of that year's 春节; solar terms (清明, 冬至, 立春 …) from :mod:`.temporal_lunar`;
- Easter by the anonymous Gregorian computus (Meeus, *Astronomical Algorithms*, ch. 8); Lent runs from
  Ash Wednesday to Holy Saturday and the Orthodox Great Lent from Clean Monday to the Friday before Lazarus
  Saturday (:func:`holiday_span`);
- Jewish, Islamic, Indian and Parsi holidays by their calendars (:mod:`.temporal_holidays_world`).

Solar-term names that are also weather words (小雪, 大雪, 雨水, 谷雨, 小满, 白露, 霜降) are a date
only with a year word before them (今年小雪) or 节气/那天 after them.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from .normalize import normalize
from .temporal_atoms import register
from .temporal_holidays_world import SPANS, ZH_NAMES, holiday_atom
from .temporal_lunar import SOLAR_TERMS, lunar_to_solar, solar_term

__all__ = ["holiday_date", "holiday_span"]

L = r"(?<![a-z0-9])"
R = r"(?![a-z0-9])"

# key → rule: ("fixed", m, d) | ("lunar", m, d) | ("eve",) | ("term", i) | ("nth", month, weekday 1-7, n; -1 = last)
#        | ("easter", days after Easter) | ("after", key, days)
_RULES: dict[str, tuple] = {
    "new_year": ("fixed", 1, 1), "new_year_eve": ("fixed", 12, 31), "valentine": ("fixed", 2, 14),
    "women": ("fixed", 3, 8), "arbor": ("fixed", 3, 12), "st_patrick": ("fixed", 3, 17), "april_fool": ("fixed", 4, 1),
    "earth": ("fixed", 4, 22), "may_day": ("fixed", 5, 1), "youth": ("fixed", 5, 4), "children": ("fixed", 6, 1),
    "party": ("fixed", 7, 1), "independence": ("fixed", 7, 4), "army": ("fixed", 8, 1), "teacher": ("fixed", 9, 10),
    "national": ("fixed", 10, 1), "halloween": ("fixed", 10, 31), "singles": ("fixed", 11, 11),
    "veterans": ("fixed", 11, 11), "christmas_eve": ("fixed", 12, 24), "christmas": ("fixed", 12, 25),
    "boxing": ("fixed", 12, 26),
    "spring_festival": ("lunar", 1, 1), "lantern": ("lunar", 1, 15), "dragon_boat": ("lunar", 5, 5),
    "qixi": ("lunar", 7, 7), "ghost": ("lunar", 7, 15), "mid_autumn": ("lunar", 8, 15), "double_ninth": ("lunar", 9, 9),
    "laba": ("lunar", 12, 8), "little_new_year": ("lunar", 12, 23), "lunar_eve": ("eve",),
    "mlk": ("nth", 1, 1, 3), "presidents": ("nth", 2, 1, 3), "mother": ("nth", 5, 7, 2), "memorial": ("nth", 5, 1, -1),
    "father": ("nth", 6, 7, 3), "labor_us": ("nth", 9, 1, 1), "columbus": ("nth", 10, 1, 2),
    "thanksgiving": ("nth", 11, 4, 4), "black_friday": ("after", "thanksgiving", 1),
    # US observances: Cyber Monday the Monday after Thanksgiving, Lincoln's Birthday February 12 (a state holiday),
    # National Grandparents Day the first Sunday after Labor Day (36 U.S.C. 125), Military Spouse Day the Friday
    # before Mother's Day (Proclamation 5184)
    "cyber_monday": ("after", "thanksgiving", 4), "lincoln": ("fixed", 2, 12),
    "grandparents": ("after", "labor_us", 6), "military_spouse": ("after", "mother", -2),
    # UK bank holidays as the Banking and Financial Dealings Act 1971 (and the proclamation fixing the early May one
    # since 1978) set them: a year's proclamation may move one (2020's early May to the 8th, 2022's spring to June 2)
    "uk_early_may": ("nth", 5, 1, 1), "uk_spring_bank": ("nth", 5, 1, -1), "uk_summer_bank": ("nth", 8, 1, -1),
    "guy_fawkes": ("fixed", 11, 5),
    "easter": ("easter", 0), "good_friday": ("easter", -2), "easter_monday": ("easter", 1),
    # the movable feasts around Easter (days from Easter Sunday, as the Roman and Anglican calendars count them)
    "shrove_tuesday": ("easter", -47), "ash_wednesday": ("easter", -46), "palm_sunday": ("easter", -7),
    "maundy_thursday": ("easter", -3), "holy_saturday": ("easter", -1), "ascension": ("easter", 39),
    "pentecost": ("easter", 49), "whit_monday": ("easter", 50), "trinity_sunday": ("easter", 56),
    "corpus_christi": ("easter", 60),
    # the Orthodox Easter (Julian computus) and its feasts: Clean Monday opens Great Lent, Lazarus Saturday
    "orthodox_easter": ("orthodox", 0), "clean_monday": ("orthodox", -48), "lazarus_saturday": ("orthodox", -8),
    "orthodox_palm_sunday": ("orthodox", -7), "orthodox_good_friday": ("orthodox", -2),
    "orthodox_holy_saturday": ("orthodox", -1), "orthodox_easter_monday": ("orthodox", 1),
    "world_vegan": ("fixed", 11, 1), "consumer_rights": ("fixed", 3, 15), "macau_handover": ("fixed", 12, 20),
    "hk_handover": ("fixed", 7, 1),
    # National Boss's Day: October 16, kept on the nearest weekday when it falls on a weekend;
    # King's Day (Koningsdag): April 27, the 26th when the 27th is a Sunday (Dutch law of 2013)
    "boss": ("weekday_near", 10, 16), "kings_day": ("sunday_before", 4, 27),
    # seasons of the church year: (first day, end) in days from Easter (Gregorian or Julian computus)
    "lent": ("easter_span", -46, 0), "great_lent": ("orthodox_span", -48, -8),
} | {f"term{i}": ("term", i) for i in range(24)}

_ZH = {"元旦": "new_year", "情人节": "valentine", "妇女节": "women", "三八节": "women", "植树节": "arbor",
       "愚人节": "april_fool", "劳动节": "may_day", "青年节": "youth", "儿童节": "children", "六一儿童节": "children",
       "建党节": "party", "建军节": "army", "教师节": "teacher", "国庆节": "national", "国庆": "national",
       "万圣节": "halloween", "光棍节": "singles", "双11": "singles", "双十一": "singles", "平安夜": "christmas_eve",
       "圣诞节": "christmas", "圣诞": "christmas", "春节": "spring_festival", "大年初1": "spring_festival",
       "大年初一": "spring_festival", "农历新年": "spring_festival", "元宵节": "lantern", "元宵": "lantern",
       "端午节": "dragon_boat", "端午": "dragon_boat", "七夕节": "qixi", "七夕": "qixi", "中元节": "ghost",
       "中秋节": "mid_autumn", "中秋": "mid_autumn", "重阳节": "double_ninth", "重阳": "double_ninth",
       "腊八节": "laba", "腊八": "laba", "小年": "little_new_year", "除夕": "lunar_eve", "大年30": "lunar_eve",
       "大年三十": "lunar_eve", "年三十": "lunar_eve", "年30": "lunar_eve", "母亲节": "mother", "父亲节": "father",
       "感恩节": "thanksgiving",
       # the numbered names (五一 = 5-1, 八一 = 8-1, as the normaliser writes them 51, 81) and other common names
       "51劳动节": "may_day", "51国际劳动节": "may_day", "国际劳动节": "may_day", "51节": "may_day",
       "国际儿童节": "children", "81建军节": "army", "81建軍节": "army", "建軍节": "army", "38妇女节": "women",
       "国际妇女节": "women", "阳历新年": "new_year", "元旦节": "new_year", "新春": "spring_festival",
       "正月朔日": "spring_festival", "正月正时": "spring_festival",  # 朔日 = the first day of a lunar month
       "春节假期": "spring_festival", "国庆假期": "national", "黑色星期五": "black_friday", "复活节": "easter", "清明节": "term6",
       # traditional forms the normaliser keeps (婦), and other named days
       "婦女节": "women", "圣瓦伦丁节": "valentine", "情人节当天": "valentine", "消费者权益日": "consumer_rights",
       "国际消费者权益日": "consumer_rights", "国际消费者權益日": "consumer_rights", "消费者權益日": "consumer_rights",
       "澳门回归纪念日": "macau_handover", "澳门回歸纪念日": "macau_handover", "澳门回归日": "macau_handover",
       "香港回归纪念日": "hk_handover", "香港回归日": "hk_handover", "香港回歸纪念日": "hk_handover",
       "圣灵降临节": "pentecost", "棕枝主日": "palm_sunday",
       "圣枝主日": "palm_sunday", "濯足节": "maundy_thursday", "圣周四": "maundy_thursday", "耶稣受难日": "good_friday",
       "受难节": "good_friday", "耶稣升天节": "ascension", "圣诞夜": "christmas_eve",
       # the Chinese names of the movable feasts (Catholic 天主教 and Protestant usage; 东正教 = Orthodox)
       "主复活日": "easter", "复活节星期一": "easter_monday", "复活节周一": "easter_monday",
       "主受难日": "good_friday", "主受难节": "good_friday", "耶稣受难节": "good_friday", "圣周五": "good_friday",
       "沈默周五": "good_friday", "圣周六": "holy_saturday", "神圣周六": "holy_saturday", "复活节前夜": "holy_saturday",
       "耶稣受难日翌日": "holy_saturday", "主受难节翌日": "holy_saturday", "神圣星期四": "maundy_thursday",
       "圣周星期四": "maundy_thursday", "设立圣餐日": "maundy_thursday", "圣树主日": "palm_sunday",
       "基督苦难主日": "palm_sunday", "五旬节": "pentecost", "圣灵降临日": "pentecost", "圣灵节庆日": "whit_monday",
       "圣三一主日": "trinity_sunday", "天主三一主日": "trinity_sunday", "天主圣三一节": "trinity_sunday",
       "圣三主日": "trinity_sunday", "圣三节": "trinity_sunday", "基督圣体节": "corpus_christi",
       "基督圣体圣血节": "corpus_christi", "基督圣体圣血瞻礼": "corpus_christi", "大斋首日": "ash_wednesday",
       "圣灰星期三": "ash_wednesday", "圣灰日": "ash_wednesday", "圣灰礼仪日": "ash_wednesday",
       "忏悔节": "shrove_tuesday", "忏悔火曜日": "shrove_tuesday", "煎饼星期二": "shrove_tuesday",
       "拉撒路圣周六": "lazarus_saturday", "拉匝路周六": "lazarus_saturday", "东正教复活节": "orthodox_easter",
       "东正教复活节星期一": "orthodox_easter_monday", "东正教圣周六": "orthodox_holy_saturday",
       "东正教神圣周六": "orthodox_holy_saturday", "东正教耶稣受难日翌日": "orthodox_holy_saturday",
       "东正教主受难节翌日": "orthodox_holy_saturday", "东正教复活节前夜": "orthodox_holy_saturday",
       "东正教耶稣受难日": "orthodox_good_friday", "东正教主受难节": "orthodox_good_friday",
       "东正教圣周五": "orthodox_good_friday", "东正教沈默周五": "orthodox_good_friday",
       "东正教棕枝主日": "orthodox_palm_sunday", "东正教圣枝主日": "orthodox_palm_sunday",
       "东正教圣树主日": "orthodox_palm_sunday", "东正教基督苦难主日": "orthodox_palm_sunday", "老板节": "boss",
       # Lent: 四旬期 / 四旬节 (Catholic), 大斋期 / 大斋节 (Anglican and Protestant); 东正教大斋期 = Great Lent
       "四旬期": "lent", "四旬节": "lent", "大斋期": "lent", "大斋节": "lent", "东正教大斋期": "great_lent",
       "东正教四旬期": "great_lent"}
_ZH.update(ZH_NAMES)
_WEATHER_TERMS = {"小雪", "大雪", "雨水", "谷雨", "小满", "白露", "霜降"}
for _i, _name in enumerate(SOLAR_TERMS):
    _ZH.setdefault(_name, f"term{_i}")
_EN = {"new year's day": "new_year", "new years day": "new_year", "new year's eve": "new_year_eve",
       "new years eve": "new_year_eve", "new year": "new_year", "new years": "new_year",
       "valentine's day": "valentine", "valentines day": "valentine", "valentine's": "valentine",
       "st. patrick's day": "st_patrick", "st patrick's day": "st_patrick", "saint patrick's day": "st_patrick",
       "april fools' day": "april_fool", "april fool's day": "april_fool", "april fools day": "april_fool",
       "earth day": "earth", "may day": "may_day", "law day": "may_day", "independence day": "independence",
       "fourth of july": "independence", "the fourth of july": "independence", "halloween": "halloween",
       "veterans day": "veterans", "veterans' day": "veterans", "christmas eve": "christmas_eve",
       "christmas day": "christmas", "christmas": "christmas", "xmas": "christmas", "xmas eve": "christmas_eve",
       "xmas day": "christmas", "boxing day": "boxing", "early may bank holiday": "uk_early_may",
       "spring bank holiday": "uk_spring_bank", "summer bank holiday": "uk_summer_bank",
       "late summer bank holiday": "uk_summer_bank", "august bank holiday": "uk_summer_bank",
       "guy fawkes day": "guy_fawkes", "guy fawkes night": "guy_fawkes", "bonfire night": "guy_fawkes",
       "chinese new year": "spring_festival", "lunar new year": "spring_festival", "spring festival": "spring_festival",
       "chinese new year's day": "spring_festival", "chinese new years": "spring_festival",
       "chinese new years day": "spring_festival", "chinese lunar new year": "spring_festival",
       "chinese lunar new year's day": "spring_festival", "lunar new year's day": "spring_festival",
       "lantern festival": "lantern", "dragon boat festival": "dragon_boat", "mid-autumn festival": "mid_autumn",
       "mid autumn festival": "mid_autumn", "moon festival": "mid_autumn", "qingming festival": "term6",
       "tomb-sweeping day": "term6", "tomb sweeping day": "term6", "martin luther king day": "mlk",
       "martin luther king jr. day": "mlk", "mlk day": "mlk", "presidents' day": "presidents",
       "presidents day": "presidents", "president's day": "presidents", "washington's birthday": "presidents",
       "president day": "presidents", "george washington day": "presidents", "washington day": "presidents",
       "cyber monday": "cyber_monday", "lincoln's birthday": "lincoln", "lincolns' birthday": "lincoln",
       "lincoln birthday": "lincoln", "abraham lincoln's birthday": "lincoln", "national grandparents day": "grandparents",
       "grandparents day": "grandparents", "grandparents' day": "grandparents", "military spouse day": "military_spouse",
       "decoration day": "memorial", "loyalty day": "may_day", "lei day": "may_day",
       "mother's day": "mother", "mothers day": "mother", "memorial day": "memorial", "father's day": "father",
       "fathers day": "father", "labor day": "labor_us", "labour day": "labor_us", "columbus day": "columbus",
       "thanksgiving day": "thanksgiving", "thanksgiving": "thanksgiving", "black friday": "black_friday",
       "easter sunday": "easter", "easter day": "easter", "easter": "easter", "good friday": "good_friday",
       "easter monday": "easter_monday", "winter solstice": "term23", "summer solstice": "term11",
       "spring equinox": "term5", "vernal equinox": "term5", "autumn equinox": "term17", "autumnal equinox": "term17",
       "fall equinox": "term17",
       "valentine day": "valentine", "st paddy's day": "st_patrick", "st. paddy's day": "st_patrick",
       "martin luther king's day": "mlk", "martin luther kings day": "mlk", "martin luther king jr.'s day": "mlk",
       "mlk jr. day": "mlk", "mlk jr day": "mlk", "civil rights day": "mlk",
       "shrove tuesday": "shrove_tuesday", "pancake day": "shrove_tuesday", "pancake tuesday": "shrove_tuesday",
       "mardi gras": "shrove_tuesday", "ash wednesday": "ash_wednesday", "palm sunday": "palm_sunday",
       "branch sunday": "palm_sunday", "maundy thursday": "maundy_thursday", "holy thursday": "maundy_thursday",
       "covenant thursday": "maundy_thursday", "covenant thu": "maundy_thursday", "thursday of mysteries": "maundy_thursday",
       "thu of mysteries": "maundy_thursday", "holy saturday": "holy_saturday", "ascension day": "ascension",
       "pentecost": "pentecost", "whit sunday": "pentecost", "whitsunday": "pentecost", "white sunday": "pentecost",
       "whit monday": "whit_monday", "monday of the holy spirit": "whit_monday", "trinity sunday": "trinity_sunday",
       "corpus christi": "corpus_christi", "orthodox easter": "orthodox_easter", "orthodox easter sunday": "orthodox_easter",
       "clean monday": "clean_monday", "orthodox shrove monday": "clean_monday", "ash monday": "clean_monday",
       "lazarus saturday": "lazarus_saturday", "world vegan day": "world_vegan",
       "boss's day": "boss", "bosses day": "boss", "bosses' day": "boss", "boss day": "boss", "national boss day": "boss",
       "king's day": "kings_day", "kings day": "kings_day", "koningsdag": "kings_day",
       "great lent": "great_lent", "great fast": "great_lent", "season of lent": "lent"}

# a name that ends in a weekday is also said with the weekday's abbreviation (easter mon, good fri, whit mon)
_WD_ABBR = {"monday": ("mon",), "tuesday": ("tue", "tues"), "wednesday": ("wed",), "thursday": ("thu", "thur", "thurs"),
            "friday": ("fri",), "saturday": ("sat",), "sunday": ("sun",)}
_EN.update({f"{head} {ab}": key for name, key in list(_EN.items()) if (parts := name.rsplit(" ", 1))[-1] in _WD_ABBR
            and (head := parts[0]) != name for ab in _WD_ABBR[parts[-1]] if f"{head} {ab}" not in _EN})


def _nth_weekday(y: int, m: int, wd: int, n: int) -> date:
    if n > 0:
        first = date(y, m, 1)
        return first + timedelta(days=(wd - first.isoweekday()) % 7 + 7 * (n - 1))
    last = (date(y + m // 12, m % 12 + 1, 1) - timedelta(days=1))
    return last - timedelta(days=(last.isoweekday() - wd) % 7)


def _easter(y: int) -> date:
    a, b, c = y % 19, y // 100, y % 100
    d, e = b // 4, b % 4
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = c // 4, c % 4
    l_ = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * l_) // 451
    month, day = divmod(h + l_ - 7 * m + 114, 31)
    return date(y, month, day + 1)


def _orthodox_easter(y: int) -> date:
    """Julian computus (Meeus, *Astronomical Algorithms*, ch. 8), moved to the Gregorian calendar
    (+13 days in 1900–2099, +14 from 2100)."""
    a, b, c = y % 4, y % 7, y % 19
    d = (19 * c + 15) % 30
    e = (2 * a + 4 * b - d + 34) % 7
    month, day = divmod(d + e + 114, 31)
    return date(y, month, day + 1) + timedelta(days=13 if y < 2100 else 14)


def holiday_span(key: str, y: int) -> tuple[date, date]:
    """``[first day, end)`` of holiday ``key`` in Gregorian year ``y`` (one day for most holidays).

    :raises ValueError: a day outside the calendar tables (see :func:`holiday_date`).
    """
    if key in SPANS:
        return SPANS[key](y)
    rule = _RULES[key]
    if rule[0] in ("easter_span", "orthodox_span"):
        e = (_easter if rule[0] == "easter_span" else _orthodox_easter)(y)
        return e + timedelta(days=rule[1]), e + timedelta(days=rule[2])
    d = holiday_date(key, y)
    return d, d + timedelta(days=1)


def holiday_date(key: str, y: int) -> date:
    """The (first) day holiday ``key`` falls on in Gregorian year ``y``.

    :raises ValueError: a lunar holiday or solar term outside 1900–2100, a Hijri one outside 1365–1500 AH,
        an Indian festival outside 2001–2035, or an unknown key.
    """
    if key in SPANS or _RULES[key][0].endswith("_span"):
        return holiday_span(key, y)[0]
    rule = _RULES[key]
    kind = rule[0]
    if kind == "fixed":
        return date(y, rule[1], rule[2])
    if kind == "lunar":
        return lunar_to_solar(y, rule[1], rule[2])
    if kind == "eve":
        return lunar_to_solar(y, 1, 1) - timedelta(days=1)
    if kind == "term":
        return solar_term(y, rule[1])
    if kind == "nth":
        return _nth_weekday(y, rule[1], rule[2], rule[3])
    if kind == "easter":
        return _easter(y) + timedelta(days=rule[1])
    if kind == "orthodox":
        return _orthodox_easter(y) + timedelta(days=rule[1])
    if kind == "weekday_near":
        d = date(y, rule[1], rule[2])
        return d + timedelta(days={6: -1, 7: 1}.get(d.isoweekday(), 0))
    if kind == "sunday_before":
        d = date(y, rule[1], rule[2])
        return d - timedelta(days=1) if d.isoweekday() == 7 else d
    return holiday_date(rule[1], y) + timedelta(days=rule[2])


def _alt(words) -> str:
    # longest first, ties by text: the same pattern text in every process (a set's order is not), so a
    # compiled pack's prefilter table (keyed by pattern text) is reproducible
    return "|".join(sorted((w.replace(".", r"\.") for w in words), key=lambda w: (-len(w), w)))


# the parser sees normalised text, where 七夕 is 7夕 and 腊八 is 腊8: add those forms (a form of digits only,
# 五一 → 51, is a number unless a holiday word follows: _zh_numbered_holiday)
_ZH.update({n: v for k, v in list(_ZH.items()) if (n := normalize(k).text) != k and not n.isdigit()})
_ZH_PLAIN = _alt(k for k in _ZH if k not in _WEATHER_TERMS)
_ZH_WEATHER = _alt(_WEATHER_TERMS)


# a cheap test for the holiday pattern: a first character that is not a digit, or a digit-led name's start (7夕, 51劳)
_ZH_FIRST = "[" + "".join(sorted({k[0] for k in _ZH if not k[0].isdigit()})) + "]|" + \
    "|".join(sorted({re.match(r"\d+\D", k)[0] for k in _ZH if k[0].isdigit()}))


@register(rf"(?:(下|上)1?个)?(?:农历|阴历|旧历)?({_ZH_PLAIN})(?:那天|节气|当天|的?第([1-9]\d?)天)?", "date",
          needs=_ZH_FIRST)  # 农历元宵
def _zh_holiday(m) -> dict[str, Any]:
    """A holiday by its Chinese name; X第N天 (春节第三天, 光明节第四天) is the N-th day counted from its first."""
    out: dict[str, Any] = {"holiday": _ZH[m[2]]}
    if m[3]:
        out["hol_day"] = int(m[3])
    if m[1]:
        out["hol_rel"] = 1 if m[1] == "下" else -1
    return out


@register(rf"(?<!\d)(\d{{2}})年的?({_ZH_PLAIN}|{_ZH_WEATHER})", "date", needs=r"\d\d年")
def _zh_two_digit_year_holiday(m) -> dict[str, Any]:
    """零六年端午, 20年小寒: a two-digit year before a holiday or a solar term is that year (00–49 → 20xx,
    50–99 → 19xx, as the other two-digit years); alone, 06年 is a count of years."""
    y = int(m[1])
    return {"year": y + (2000 if y < 50 else 1900), "holiday": _ZH[m[2]]}


@register(r"(?<![\d.])(51|61|11)(?=节|假期|长假|小长假|黄金周|放假|那天|当天)", "date", needs=r"节|假|黄金周|那天|当天")
def _zh_numbered_holiday(m) -> dict[str, Any]:
    """五一假期, 十一长假, 六一那天: a day-number holiday name before a holiday word (alone, 五一 is a number)."""
    return {"holiday": {"51": "may_day", "61": "children", "11": "national"}[m[1]]}


@register(rf"(?<=今年|明年|去年|前年|后年|\d年)({_ZH_WEATHER})|({_ZH_WEATHER})(?=节气|那天)", "date", needs=_ZH_FIRST)
def _zh_weather_term(m) -> dict[str, Any]:
    return {"holiday": _ZH[m[1] or m[2]]}


@register(rf"{L}(?:(next|last|this|the next|the last|the coming|coming|previous)\s+)?({_alt(_EN).replace(chr(39), chr(39) + '?')}){R}", "date",
          needs=r"day|eve|christmas|xmas|year|halloween|bank holiday|guy fawkes|bonfire night|birthday|cyber mon|thanksgiving|easter|friday|festival|solstice|equinox|valentine|july|"
                r"palm|maundy|holy|covenant|mysteries|whit|white sun|trinity|orthodox|clean mon|ash mon|ash wed|lazarus|"
                r"shrove|pancake|gras|pentecost|christi|koningsdag|boss|vegan|lent|great fast|"
                r"(?<![a-z])(?:mon|tues?|wed|thu|thurs?|fri|sat|sun)(?![a-z])")
def _en_holiday(m) -> dict[str, Any] | None:
    word = m[2].replace("'", "")
    key = next((v for k, v in _EN.items() if k.replace("'", "") == word), None)
    if key is None:
        return None
    return holiday_atom(key, m[1])


@register(r"(?<![a-z])(?:(next|last|this)\s+)?lent(?=\s+(?:19|20)\d\d(?!\d))|(?<![a-z])(next|last|this)\s+lent(?![a-z])",
          "date", needs="lent")
def _en_lent(m) -> dict[str, Any]:
    """Lent before a year or after next/last/this (lent 2018, this lent): alone, "lent" is a verb."""
    rel = m[1] or m[2]
    return {"holiday": "lent", **({"hol_rel": 1 if rel == "next" else -1} if rel in ("next", "last") else {})}


# ---- lunar dates: 农历八月十五, 正月初一, 腊月二十三, 闰四月初八 --------------------------------
_LUNAR_MONTH = {"正": 1, "冬": 11, "腊": 12}
_CN1 = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}


@register(r"(农历|阴历|旧历)?(闰)?(正|冬|腊|1[0-2]|[1-9])月(?:(初)(10|[1-9一])|廿(\d)|(30|[12]\d|[1-9]))(?:日|号)?(?![\d点:时分])", "date", needs="月")
def _lunar_date(m) -> dict[str, Any] | None:
    named = m[3] in _LUNAR_MONTH
    if not (m[1] or named or m[2] or m[4] or m[6]):
        return None  # 8月15 is a Gregorian date; 农历, 闰, 正/冬/腊月, 初X or 廿X (days counted only so) make it lunar
    month = _LUNAR_MONTH.get(m[3]) or int(m[3])
    if m[4]:
        day = int(m[5]) if m[5].isdigit() else _CN1[m[5]]
    elif m[6]:
        day = 20 + int(m[6])
    else:
        day = int(m[7])
    return {"lunar": (month, day, bool(m[2]))}


@register(r"(?:(农历|阴历|旧历)(?:(\d{4})年)?(闰)?(正|冬|腊|1[0-2]|[1-9])|(闰)(正|冬|腊|1[0-2]|[1-9])|(正|腊))月(?:份)?"
          r"(?!初|廿|\d|[日号底初末中旬头尾]|[1-9一]个)", "date", needs="月")
def _lunar_month(m) -> dict[str, Any]:
    """A whole lunar month: 农历十月, 农历二〇二一年六月, 闰四月 (a leap month is lunar), 正月, 腊月 (named so
    only in the lunar calendar; 冬月 alone is also "a winter month", so it needs 农历). A year said inside
    (农历二〇二一年六月) is the lunar year."""
    word = m[4] or m[6] or m[7]
    out: dict[str, Any] = {"lunar_month": (_LUNAR_MONTH.get(word) or int(word), bool(m[3] or m[5]))}
    if m[2]:
        out["year"] = int(m[2])
    return out


@register(r"大年初(10|[1-9])(?!\d)", "date", needs="大年初")
def _lunar_new_year_day(m) -> dict[str, Any]:
    """大年初十: the Xth day of the first lunar month (大年 = the lunar new year; 大年初一 is 春节)."""
    return {"lunar": (1, int(m[1]), False)}
