"""Jewish, Islamic, Indian and Parsi holidays: their English names and the days they span (pure).

An atom yields ``{"holiday": key}`` as :mod:`.temporal_holidays` does (``hol_rel`` ±1 for next/last X);
:data:`SPANS` gives, per key, a function of the Gregorian year to the holiday's ``[start, end)`` days.
In a Gregorian year a holiday of another calendar is its first occurrence there (a Hijri date falls twice
in some years, as Eid al-Fitr did in 2000). Rules (days from :mod:`.temporal_calendars`):

- Jewish holidays are dated by the day they are kept, the Hebrew date's daytime, as hebcal.com and public
  calendars list them (Yom Kippur 5779 = 2018-09-19; it begins at sunset the evening before); multi-day
  festivals as kept outside Israel (Passover 15–22 Nisan, Shavuot 6–7 Sivan, Rosh Hashanah 1–2 Tishrei,
  Sukkot 15–21 Tishrei, Simchat Torah 23 Tishrei, Hanukkah 25 Kislev for eight days). Israeli law moves
  Yom HaShoah (27 Nisan) off a Friday to Thursday and off a Sunday to Monday, Yom Ha'atzmaut (5 Iyar) off a
  Friday or Saturday to the Thursday before and off a Monday to Tuesday; Tisha B'Av (9 Av) on a Saturday is
  kept on the Sunday (Shulchan Aruch, Orach Chayim 552:10).
- Islamic holidays by the Umm al-Qura calendar: Ramadan is the month, Eid al-Fitr 1 Shawwal, Eid al-Adha
  10 Dhu al-Hijjah, the Islamic New Year 1 Muharram, Ashura 10 Muharram, Mawlid 12 Rabi' al-Awwal,
  Laylat al-Qadr 27 Ramadan, Isra and Mi'raj 27 Rajab, Jumu'atul-Wida the last Friday of Ramadan.
- Indian festivals from the 2001–2035 table; the days kept around one are counted from it: Dhanteras two
  days and Naraka Chaturdashi (Choti Diwali) one day before Diwali, Bhai Dooj the day after Govardhan Puja,
  Holika Dahan the eve of Holi, Maha Saptami the day before Maha Ashtami, Navaratri the nine nights from
  its first day, Durga Puja Maha Shashthi to Vijayadashami, Bhogi the day before Thai Pongal and Mattu and
  Kaanum Pongal the two after it, Rabindra Jayanti 25 Boishakh (the 25th day from Pohela Boishakh).
- The Parsi New Year (Navroz of the Shahenshahi calendar).
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any, Callable

from .temporal_atoms import register
from .temporal_calendars import festival_day, hebrew_leap, hijri_month_days, hijri_to_gregorian, parsi_new_year
from .temporal_calendars import hebrew_to_gregorian

__all__ = ["EN_NAMES", "SPANS", "ZH_NAMES", "holiday_atom"]

Span = tuple[date, date]
_DAY = timedelta(days=1)


def _hebrew(m: int, d: int, days: int = 1, keep: Callable[[date], date] | None = None) -> Callable[[int], Span]:
    """Hebrew ``d`` of month ``m`` (Nisan = 1; Adar = Adar II in a leap year), kept ``days`` days."""
    def span(y: int) -> Span:
        for hy in (y + 3760, y + 3761):
            month = 13 if m == 12 and hebrew_leap(hy) else m
            s = hebrew_to_gregorian(hy, month, d)
            s = keep(s) if keep else s
            if s.year == y:
                return s, s + timedelta(days=days)
        raise ValueError(f"no Hebrew {m}/{d} starts in {y}")
    return span


def _off(by_weekday: dict[int, int]) -> Callable[[date], date]:
    return lambda s: s + timedelta(days=by_weekday.get(s.isoweekday(), 0))


def _hijri_first(m: int, d: int, y: int) -> date:
    base = int((y - 622) * 1.0307)  # 33 Hijri years run in 32 Gregorian ones
    for hy in range(base - 1, base + 3):
        try:
            s = hijri_to_gregorian(hy, m, d)
        except ValueError:
            continue
        if s.year == y:
            return s
    raise ValueError(f"no Umm al-Qura {m}/{d} falls in {y}")


def _hijri(m: int, d: int) -> Callable[[int], Span]:
    def span(y: int) -> Span:
        s = _hijri_first(m, d, y)
        return s, s + _DAY
    return span


def _ramadan(y: int) -> Span:
    s = _hijri_first(9, 1, y)
    return s, s + timedelta(days=hijri_month_days(_hijri_year_of(s), 9))


def _hijri_year_of(s: date) -> int:
    base = int((s.year - 622) * 1.0307)
    return next(hy for hy in range(base - 1, base + 3) if hijri_to_gregorian(hy, 9, 1) == s)


def _last_friday_of_ramadan(y: int) -> Span:
    s, e = _ramadan(y)
    last = e - _DAY
    f = last - timedelta(days=(last.isoweekday() - 5) % 7)
    return f, f + _DAY


def _festival(key: str, offset: int = 0, days: int = 1) -> Callable[[int], Span]:
    def span(y: int) -> Span:
        s = festival_day(key, y) + timedelta(days=offset)
        return s, s + timedelta(days=days)
    return span


def _durga_puja(y: int) -> Span:
    return festival_day("maha_ashtami", y) - timedelta(days=2), festival_day("dussehra", y) + _DAY


def _parsi(y: int) -> Span:
    s = parsi_new_year(y)
    return s, s + _DAY


SPANS: dict[str, Callable[[int], Span]] = {
    # Jewish (months from Nisan = 1; Tishrei = 7)
    "rosh_hashanah": _hebrew(7, 1, 2), "yom_kippur": _hebrew(7, 10), "sukkot": _hebrew(7, 15, 7),
    "shemini_atzeret": _hebrew(7, 22), "simchat_torah": _hebrew(7, 23), "hanukkah": _hebrew(9, 25, 8),
    "tu_bishvat": _hebrew(11, 15), "purim": _hebrew(12, 14), "shushan_purim": _hebrew(12, 15),
    "passover": _hebrew(1, 15, 8), "yom_hashoah": _hebrew(1, 27, keep=_off({5: -1, 7: 1})),
    "yom_haatzmaut": _hebrew(2, 5, keep=_off({5: -1, 6: -2, 1: 1})), "lag_baomer": _hebrew(2, 18),
    "shavuot": _hebrew(3, 6, 2), "tisha_bav": _hebrew(5, 9, keep=_off({6: 1})),
    # Islamic (Umm al-Qura)
    "ramadan": _ramadan, "eid_al_fitr": _hijri(10, 1), "eid_al_adha": _hijri(12, 10), "arafat": _hijri(12, 9),
    "islamic_new_year": _hijri(1, 1), "ashura": _hijri(1, 10), "mawlid": _hijri(3, 12),
    "laylat_al_qadr": _hijri(9, 27), "isra_miraj": _hijri(7, 27), "jumuatul_wida": _last_friday_of_ramadan,
    # Indian
    "diwali": _festival("diwali"), "dhanteras": _festival("diwali", -2), "naraka_chaturdashi": _festival("diwali", -1),
    "govardhan_puja": _festival("govardhan_puja"), "bhai_dooj": _festival("govardhan_puja", 1),
    "chhath": _festival("chhath"), "dussehra": _festival("dussehra"), "navaratri": _festival("navaratri", 0, 9),
    "durga_puja": _durga_puja, "maha_saptami": _festival("maha_ashtami", -1), "maha_ashtami": _festival("maha_ashtami"),
    "maha_navami": _festival("maha_navami"), "raksha_bandhan": _festival("raksha_bandhan"),
    "dayananda_jayanti": _festival("dayananda_jayanti"), "pongal": _festival("pongal"),
    "bhogi": _festival("pongal", -1), "mattu_pongal": _festival("pongal", 1), "kaanum_pongal": _festival("pongal", 2),
    "makar_sankranti": _festival("makar_sankranti"), "vaisakhi": _festival("vaisakhi"), "onam": _festival("onam"),
    "vasant_panchami": _festival("vasant_panchami"), "holi": _festival("holi"), "holika_dahan": _festival("holi", -1),
    "janmashtami": _festival("janmashtami"), "buddha_purnima": _festival("buddha_purnima"),
    "guru_gobind_singh": _festival("guru_gobind_singh"), "guru_ravidas": _festival("guru_ravidas"),
    "rabindra_jayanti": _festival("pohela_boishakh", 24), "pohela_boishakh": _festival("pohela_boishakh"),
    "ganesh_chaturthi": _festival("ganesh_chaturthi"), "maha_shivaratri": _festival("maha_shivaratri"),
    "ram_navami": _festival("ram_navami"), "guru_nanak_jayanti": _festival("guru_nanak_jayanti"),
    "karwa_chauth": _festival("karwa_chauth"), "mahavir_jayanti": _festival("mahavir_jayanti"),
    "parsi_new_year": _parsi,
}

_NAMES: dict[str, tuple[str, ...]] = {
    "rosh_hashanah": ("rosh hashanah", "rosh hashana", "rosh hashanna", "rosh hashonah", "jewish new year"),
    "yom_kippur": ("yom kippur", "day of atonement"), "shemini_atzeret": ("shemini atzeret", "shmini atzeret"),
    "sukkot": ("sukkot", "succot", "succos", "sukkos", "feast of tabernacles", "feast of the tabernacles",
               "feast of booths", "feast of the ingathering", "feast of ingathering"),
    "simchat_torah": ("simchat torah", "simchas torah", "simhat torah"),
    "hanukkah": ("hanukkah", "hanukah", "hannukah", "hannukkah", "hanuka", "chanukah", "chanuka", "chanukkah",
                 "chanukka"),
    "tu_bishvat": ("tu bishvat", "tu b'shvat", "tu bshvat", "tu b'shevat", "tu bishevat"),
    "purim": ("purim",), "shushan_purim": ("shushan purim",),
    "passover": ("passover", "pesach", "pesah"), "shavuot": ("shavuot", "shavuos", "shavuoth", "feast of weeks"),
    "yom_hashoah": ("yom hashoah", "yom ha'shoah", "holocaust day", "holocaust remembrance day"),
    "yom_haatzmaut": ("yom haatzmaut", "yom ha'atzmaut", "israel independence day"),
    "lag_baomer": ("lag baomer", "lag b'omer", "lag bomer", "lag ba'omer"),
    "tisha_bav": ("tisha b'av", "tisha bav", "tisha be'av"),
    "ramadan": ("ramadan", "ramadhan", "ramzan", "ramazan"),
    "eid_al_fitr": ("eid al-fitr", "eid al fitr", "eid ul-fitr", "eid ul fitr", "eid-ul-fitr", "id ul-fitr",
                    "id al-fitr", "eid el-fitr"),
    "eid_al_adha": ("eid al-adha", "eid al adha", "eid ul-adha", "eid ul adha", "eid-ul-adha", "id ul-adha",
                    "id al-adha", "eid el-adha", "bakr id", "bakrid", "bakra eid", "sacrifice feast",
                    "feast of the sacrifice", "feast of sacrifice"),
    "arafat": ("day of arafat", "arafat day", "arafah"),
    "islamic_new_year": ("islamic new year", "hijri new year", "arabic new year", "amun jadid"),
    "ashura": ("ashura", "day of ashura", "ashoura"),
    "mawlid": ("mawlid", "mawlid al-nabi", "mawlid al-nabawi", "mawlid an-nabi", "milad un nabi", "milad-un-nabi",
               "eid milad un nabi", "prophet's birthday", "the prophet's birthday"),
    "laylat_al_qadr": ("laylat al-qadr", "laylat al qadr", "laylat al kadr", "laylat al-kadr", "lailat al-qadr",
                       "night of power", "night of destiny", "night of measures", "night of decree"),
    "isra_miraj": ("isra and mi'raj", "isra and miraj", "al isra wal miraj", "isra miraj",
                   "the prophet's ascension", "prophet's ascension", "the night journey", "ascension to heaven"),
    "jumuatul_wida": ("jumu'atul-wida", "jumuatul-wida", "jumu'atul wida", "jamat ul-vida", "jamat ul vida",
                      "jumat ul-vida", "jummat ul-wida"),
    "diwali": ("diwali", "deepavali", "dipavali", "divali", "lakshmi puja", "laxmi puja"),
    "dhanteras": ("dhanteras", "dhanatrayodashi", "dhantrayodashi"),
    "naraka_chaturdashi": ("naraka chaturdashi", "narak chaturdashi", "kali chaudas", "choti diwali", "chhoti diwali"),
    "govardhan_puja": ("govardhan puja", "annakut"), "bhai_dooj": ("bhai dooj", "bhau beej", "bhai phonta", "bhai tika"),
    "chhath": ("chhath", "chhath puja", "dala puja", "surya shashthi", "dala chhath"),
    "dussehra": ("dussehra", "dasara", "dashain", "vijayadashami", "vijaya dashami"),
    "navaratri": ("navaratri", "navratri", "sharad navratri", "sharad navaratri"), "durga_puja": ("durga puja",),
    "maha_saptami": ("maha saptami",), "maha_ashtami": ("maha ashtami", "durga ashtami"),
    "maha_navami": ("maha navami",), "raksha_bandhan": ("raksha bandhan", "rakshabandhan", "rakhi festival", "rakhi day"),
    "dayananda_jayanti": ("saraswati jayanti", "dayananda saraswati jayanti", "swami dayanand saraswati jayanti",
                          "dayanand saraswati jayanti"),
    "pongal": ("pongal", "thai pongal", "makara sankranthi"), "bhogi": ("bhogi", "bogi", "bogi pandigai", "bhogi pandigai"),
    "mattu_pongal": ("mattu pongal", "maattu pongal"), "kaanum_pongal": ("kaanum pongal", "kanni pongal", "kanum pongal"),
    "makar_sankranti": ("makar sankranti", "makara sankranti", "maghi", "uttarayan"),
    "vaisakhi": ("vaisakhi", "baisakhi", "vasakhi", "vaishakhi", "vaishakhi"),
    "onam": ("onam", "thiru onam", "thiruvonam", "thiruonam"),
    "vasant_panchami": ("vasant panchami", "basant panchami", "saraswati puja"),
    "holi": ("holi", "dhulandi", "dhuleti", "phagwah", "rangwali holi"),
    "holika_dahan": ("holika dahan", "chhoti holi", "choti holi", "kamudu pyre"),
    "janmashtami": ("janmashtami", "krishna janmashtami", "gokulashtami", "krishnashtami"),
    "buddha_purnima": ("buddha purnima", "buddha jayanti", "buddha day", "vesak", "wesak", "vaisakha"),
    "guru_gobind_singh": ("guru gobind singh jayanti", "guru govind singh jayanti", "guru gobind singh birthday",
                          "guru gobind singh's birthday", "guru gobind singh ji jayanti"),
    "guru_ravidas": ("guru ravidas jayanti", "guru ravidass jayanti", "guru ravidas birthday", "guru ravidass birthday",
                     "ravidas jayanti"),
    "rabindra_jayanti": ("rabindra jayanti", "rabindranath jayanti", "rabindranath tagore jayanti", "tagore jayanti"),
    "pohela_boishakh": ("pohela boishakh", "poila baisakh", "bengali new year"),
    "ganesh_chaturthi": ("ganesh chaturthi", "ganesha chaturthi", "vinayaka chaturthi"),
    "maha_shivaratri": ("maha shivaratri", "mahashivratri", "maha shivratri", "shivaratri", "shivratri"),
    "ram_navami": ("ram navami", "rama navami"), "guru_nanak_jayanti": ("guru nanak jayanti", "guru nanak gurpurab",
                                                                        "gurpurab"),
    "karwa_chauth": ("karwa chauth", "karva chauth"), "mahavir_jayanti": ("mahavir jayanti", "mahavira jayanti"),
    # not "Jamshedi Navroz": that is the spring Nowruz (March 21) of the Fasli calendar
    "parsi_new_year": ("parsi new year", "shahenshahi new year", "pateti navroz"),
}
# Chinese names, written in simplified characters (the normaliser folds the traditional ones: 贖罪日 → 赎罪日):
# the Chinese Wikipedia title of each holiday and the other names it gives, and the names Chinese Muslims
# use (开斋节 = 肉孜节, 古尔邦节 = 宰牲节, 圣纪节; 中国伊斯兰教协会). A name that is also an everyday word
# (禁食日, 收获节, 篝火节, 大屠杀纪念日) or another feast's name (五旬节 = Pentecost, 圣母节) is left out.
_ZH_NAMES: dict[str, tuple[str, ...]] = {
    "rosh_hashanah": ("犹太新年", "吹角节"), "yom_kippur": ("赎罪日",),
    "sukkot": ("住棚节", "收藏节"), "shemini_atzeret": ("圣会节",),
    "simchat_torah": ("西赫托拉节", "西赫妥拉节", "诵经节", "转经节", "律法节", "欢庆圣法节"),
    "hanukkah": ("光明节", "修殿节", "献殿节", "烛光节", "哈努卡节", "马加比节"),
    "tu_bishvat": ("犹太植树节", "图比舍巴特节", "树木新年"), "purim": ("普珥节", "普珥日"),
    "shushan_purim": ("书珊普珥节",), "passover": ("逾越节", "除酵节"),
    "shavuot": ("七七节", "沙夫幼特节", "新果实节"), "yom_hashoah": ("以色列大屠杀纪念日",),
    "yom_haatzmaut": ("以色列独立日", "以色列国庆节", "以色列国庆日"),
    "lag_baomer": ("犹太篝火节", "犹太教篝火节"), "tisha_bav": ("圣殿被毁日", "阿布月九日"),
    "ramadan": ("斋月", "穆斯林斋月", "莱麦丹月", "赖买丹月"),
    "eid_al_fitr": ("开斋节", "肉孜节", "尔代节"), "eid_al_adha": ("古尔邦节", "宰牲节", "忠孝节", "库尔班节"),
    "arafat": ("阿拉法特日",), "islamic_new_year": ("伊斯兰新年", "伊斯兰教新年", "伊斯兰历新年", "回历新年"),
    "ashura": ("阿舒拉节", "阿舒拉日"), "mawlid": ("圣纪节", "穆罕默德诞辰"),
    "laylat_al_qadr": ("盖德尔夜", "法令之夜", "权力之夜"), "isra_miraj": ("登霄节", "夜行登霄节"),
    "diwali": ("排灯节", "万灯节", "印度灯节", "屠妖节"), "chhath": ("克哈特普迦节",),
    "dussehra": ("十胜节", "凯旋节"), "navaratri": ("九夜节",), "durga_puja": ("难近母节",),
    "raksha_bandhan": ("印度兄妹节", "拉克沙班丹节"), "pongal": ("印度丰收节", "淡米尔丰收节", "庞格尔节"),
    "onam": ("欧南节",), "holi": ("洒红节", "侯丽节", "荷丽节", "欢悦节", "五彩节", "胡里节", "好利节", "霍利节"),
    "buddha_purnima": ("卫塞节", "威瑟节", "比萨宝蕉节"), "ganesh_chaturthi": ("象头神节",),
    "maha_shivaratri": ("湿婆节", "摩诃湿婆夜"),
}
#: Chinese name (simplified characters) → holiday key
ZH_NAMES: dict[str, str] = {n: k for k, names in _ZH_NAMES.items() for n in names}
#: English name (lower case, apostrophes as typed or left out) → holiday key
EN_NAMES: dict[str, str] = {n: k for k, names in _NAMES.items() for n in names}
_PLAIN = {n.replace("'", ""): k for n, k in EN_NAMES.items()}


def _alt(words) -> str:
    return "|".join(sorted((w.replace(".", r"\.").replace("-", "[- ]?").replace("'", "'?") for w in words),
                           key=lambda w: (-len(w), w)))  # longest first, ties by text: the same pattern in every process


# the cheap pre-test: per name, its longest word written without ' or - that is not a common English word, as
# a whole word (a match contains it so, whichever way the others are spelt; "holi" is not in "holiday")
_COMMON = {"night", "festival", "feast", "birthday", "day", "new", "year", "the", "of", "and", "independence",
           "remembrance", "israel", "holocaust", "jewish", "islamic", "arabic", "hijri", "bengali", "prophets"}


def _needed(name: str) -> str:
    words = [w for w in re.split(r"[\s-]", name) if w.isalpha()]
    return max([w for w in words if w not in _COMMON] or words, key=len)


_NEEDS = "(?<![a-z])(?:" + "|".join(sorted({_needed(n) for n in EN_NAMES} | {"rakhi"})) + ")(?![a-z])"
# "rakhi" is also a given name: alone it is the festival only before a year (rakhi 2018)
_RAKHI = r"rakhi(?=\s+(?:19|20)\d\d(?!\d))"


#: an English holiday's leading words: its next or its last occurrence (hol_rel)
_EN_REL = {"next": 1, "the next": 1, "the coming": 1, "coming": 1, "last": -1, "the last": -1, "previous": -1}


def holiday_atom(key: str, said: str | None) -> dict[str, Any]:
    """The atom of the holiday ``key`` said after ``said`` ("next", "the last", … or None):
    ``{"holiday": key}`` plus ``hol_rel`` ±1 for a next / last occurrence."""
    out: dict[str, Any] = {"holiday": key}
    rel = _EN_REL.get(said or "")
    if rel:
        out["hol_rel"] = rel
    return out


@register(rf"(?<![a-z0-9])(?:(next|last|this|the next|the last|the coming|coming|previous)\s+)?(?:the\s+)?"
          rf"({_alt(EN_NAMES)}|{_RAKHI})(?![a-z0-9])", "date", needs=_NEEDS)
def _world_holiday(m) -> dict[str, Any] | None:
    word = " ".join(m[2].replace("'", "").replace("-", " ").split())
    if word == "rakhi":
        word = "raksha bandhan"
    key = next((k for n, k in _PLAIN.items() if " ".join(n.replace("-", " ").split()) == word), None)
    if key is None:
        return None
    return holiday_atom(key, m[1])
