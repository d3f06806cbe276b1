"""The Hebrew, Hijri (Umm al-Qura), Indian festival and Parsi (Shahenshahi) calendars, to Gregorian days (pure).

- Hebrew: the fixed arithmetic calendar (molad of Tishrei and the four postponements), as
  Dershowitz & Reingold, *Calendrical Calculations* (3rd ed., ch. 8) give it; exact for any year.
- Hijri: the Umm al-Qura calendar of Saudi Arabia, 1365–1500 AH (1945-12-05 – 2077-11-16), from the
  compact table in :mod:`.temporal_calendars_table`; the observed month may differ by a day where the
  crescent is sighted locally.
- Indian festivals: their days in 2001–2035 from the same table (Government of India holiday lists and
  drikpanchang.com, New Delhi, via the ``holidays`` package; see scripts/gen/calendars_table.py).
- Parsi: the Shahenshahi year has 365 days and no leap day, so its New Year (Navroz) moves one day earlier
  in every Gregorian leap year (Boyce, "Calendars: Zoroastrian", *Encyclopaedia Iranica*); anchored on
  2018-08-17.

Every function raises :class:`ValueError` outside its table or for a day its month does not have.
"""

from __future__ import annotations

from datetime import date, timedelta

from .temporal_calendars_table import (FESTIVAL_FIRST_YEAR, FESTIVAL_LAST_YEAR, FESTIVALS, HIJRI_FIRST_DAY,
                                       HIJRI_FIRST_YEAR, HIJRI_YEARS)

__all__ = ["FESTIVALS", "festival_day", "hebrew_leap", "hebrew_month_days", "hebrew_to_gregorian",
           "hijri_month_days", "hijri_to_gregorian", "parsi_new_year"]

# ---- Hebrew ----------------------------------------------------------------------------------
#: months are numbered from Nisan (1) as in the Torah; the year begins on 1 Tishrei (7); Adar is 12,
#: and in a leap year Adar I is 12 and Adar II 13
_HEBREW_EPOCH = -1373427  # the proleptic ordinal (date.toordinal) of 1 Tishrei AM 1, Julian 3761 BCE-10-07


def hebrew_leap(y: int) -> bool:
    """True when Hebrew year ``y`` has 13 months (years 3, 6, 8, 11, 14, 17 and 19 of the 19-year cycle)."""
    return (7 * y + 1) % 19 < 7


def _elapsed(y: int) -> int:
    months = (235 * y - 234) // 19
    parts = 12084 + 13753 * months
    day = 29 * months + parts // 25920
    return day + 1 if (3 * (day + 1)) % 7 < 3 else day  # lo ADU rosh: not on a Sunday, Wednesday or Friday


def _new_year(y: int) -> int:
    ny0, ny1, ny2 = _elapsed(y - 1), _elapsed(y), _elapsed(y + 1)
    delay = 2 if ny2 - ny1 == 356 else 1 if ny1 - ny0 == 382 else 0  # keep every year 353–355 or 383–385 days
    return _HEBREW_EPOCH + ny1 + delay


def hebrew_month_days(y: int, m: int) -> int:
    """29 or 30: the length of month ``m`` (Nisan = 1 … Adar II = 13) of Hebrew year ``y``.

    :raises ValueError: a month the year does not have (13 in a common year).
    """
    if not 1 <= m <= (13 if hebrew_leap(y) else 12):
        raise ValueError(f"Hebrew year {y} has no month {m}")
    length = _new_year(y + 1) - _new_year(y)
    if m in (2, 4, 6, 10, 13) or (m == 12 and not hebrew_leap(y)):
        return 29
    if m == 8:  # Heshvan is long in a complete year
        return 30 if length % 10 == 5 else 29
    if m == 9:  # Kislev is short in a deficient year
        return 29 if length % 10 == 3 else 30
    return 30


def hebrew_to_gregorian(y: int, m: int, d: int) -> date:
    """The Gregorian day of Hebrew ``d`` ``m`` ``y`` (the daytime of that day; it begins at the sunset before).

    :raises ValueError: no such month or day.
    """
    if not 1 <= d <= hebrew_month_days(y, m):
        raise ValueError(f"Hebrew month {m} of {y} has {hebrew_month_days(y, m)} days")
    last = 13 if hebrew_leap(y) else 12
    before = range(7, m) if m >= 7 else [*range(7, last + 1), *range(1, m)]
    return date.fromordinal(_new_year(y) + sum(hebrew_month_days(y, k) for k in before) + d - 1)


# ---- Hijri (Umm al-Qura) ---------------------------------------------------------------------
def _hijri_bits(y: int) -> int:
    if not HIJRI_FIRST_YEAR <= y < HIJRI_FIRST_YEAR + len(HIJRI_YEARS):
        raise ValueError(f"Hijri year {y} is outside {HIJRI_FIRST_YEAR}-{HIJRI_FIRST_YEAR + len(HIJRI_YEARS) - 1}")
    return HIJRI_YEARS[y - HIJRI_FIRST_YEAR]


def hijri_month_days(y: int, m: int) -> int:
    """29 or 30: the length of Hijri month ``m`` (1 Muharram … 12 Dhu al-Hijjah) of year ``y``.

    :raises ValueError: outside the table or ``m`` not 1–12.
    """
    if not 1 <= m <= 12:
        raise ValueError(f"Hijri month {m} does not exist")
    return 29 + (_hijri_bits(y) >> (m - 1) & 1)


def hijri_to_gregorian(y: int, m: int, d: int) -> date:
    """The Gregorian day of Hijri ``d`` ``m`` ``y`` in the Umm al-Qura calendar.

    :raises ValueError: outside 1365–1500 AH, or a day the month does not have.
    """
    n = hijri_month_days(y, m)
    if not 1 <= d <= n:
        raise ValueError(f"Hijri month {m} of {y} has {n} days")
    days = sum(354 + bin(_hijri_bits(k)).count("1") - 6 for k in range(HIJRI_FIRST_YEAR, y))
    days += sum(hijri_month_days(y, k) for k in range(1, m))
    return HIJRI_FIRST_DAY + timedelta(days=days + d - 1)


# ---- Indian festivals and the Parsi New Year -------------------------------------------------
def festival_day(key: str, y: int) -> date:
    """The day Indian festival ``key`` (a key of :data:`FESTIVALS`) falls on in Gregorian year ``y``.

    :raises ValueError: ``y`` outside 2001–2035, or the festival does not fall in ``y``; KeyError: unknown key.
    """
    if not FESTIVAL_FIRST_YEAR <= y <= FESTIVAL_LAST_YEAR:
        raise ValueError(f"festival days are known for {FESTIVAL_FIRST_YEAR}-{FESTIVAL_LAST_YEAR}, not {y}")
    i = 2 * (y - FESTIVAL_FIRST_YEAR)
    doy = int(FESTIVALS[key][i:i + 2], 36)
    if not doy:
        raise ValueError(f"{key} does not fall in {y}")
    return date(y, 1, 1) + timedelta(days=doy - 1)


def parsi_new_year(y: int) -> date:
    """Navroz of the Shahenshahi calendar in Gregorian year ``y`` (365-day years from 2018-08-17)."""
    d = date(2018, 8, 17) + timedelta(days=365 * (y - 2018))
    if d.year != y:  # the year has drifted across a Gregorian year's end (every ~1500 years)
        raise ValueError(f"no Parsi New Year is computed for {y}")
    return d
