"""Generate hermesd/nlu/temporal_calendars_table.py: the Umm al-Qura Hijri months and Indian festival days.

    .venv/bin/pip install hijridate holidays        # build-time only, never imported by hermesd
    .venv/bin/python scripts/gen/calendars_table.py  # rewrites the table module, then verifies it

Sources (only the compact table is committed; no code or data layout of either library is copied):

- ``hijridate`` (dralshehri/hijridate, MIT): the Umm al-Qura calendar of Saudi Arabia, 1365–1500 AH
  (1945-12-05 – 2077-11-16), from the tables of King Abdulaziz City for Science and Technology.
- ``holidays`` (vacanza/holidays, MIT), ``holidays.calendars.hindu``: the days of the Indian festivals
  for 2001–2035 as the Government of India's and the states' holiday lists and drikpanchang.com
  (New Delhi) give them, one source URL per festival in that module.

Encoding (see hermesd/nlu/temporal_calendars.py for the reader):

- ``HIJRI_YEARS[y - HIJRI_FIRST_YEAR]`` for Hijri year ``y``: bit ``i`` (0–11) is 1 when month ``i + 1``
  has 30 days (0: 29); year ``HIJRI_FIRST_YEAR`` starts on ``HIJRI_FIRST_DAY`` (a proleptic ordinal).
- ``FESTIVALS[name]`` = a string of two base-36 digits per Gregorian year from ``FESTIVAL_FIRST_YEAR``:
  the festival's day of the year (1 = January 1), ``00`` when it does not fall in that year.
"""

from __future__ import annotations

import sys
from datetime import date, timedelta
from pathlib import Path

from hijridate import Hijri
from holidays.calendars.hindu import _HinduLunisolar

OUT = Path(__file__).resolve().parents[2] / "hermesd" / "nlu" / "temporal_calendars_table.py"
HIJRI_FIRST, HIJRI_LAST = 1365, 1500  # before 1365 the table has months of 28 and 31 days
FEST_FIRST, FEST_LAST = 2001, 2035
#: hermesd's festival key → the ``holidays`` table it is read from
FESTIVALS = {
    "diwali": "DIWALI_INDIA", "govardhan_puja": "GOVARDHAN_PUJA", "chhath": "CHHATH_PUJA", "dussehra": "DUSSEHRA",
    "navaratri": "SHARAD_NAVRATRI", "maha_ashtami": "MAHA_ASHTAMI", "maha_navami": "MAHA_NAVAMI",
    "raksha_bandhan": "RAKSHA_BANDHAN", "dayananda_jayanti": "SWAMI_DAYANAND_SARASWATI_JAYANTI", "pongal": "PONGAL",
    "makar_sankranti": "MAKAR_SANKRANTI", "vaisakhi": "VAISAKHI", "onam": "ONAM", "vasant_panchami": "BASANT_PANCHAMI",
    "holi": "HOLI", "janmashtami": "JANMASHTAMI", "buddha_purnima": "BUDDHA_PURNIMA",
    "guru_gobind_singh": "GURU_GOBIND_SINGH_JAYANTI", "guru_ravidas": "GURU_RAVIDAS_JAYANTI",
    "pohela_boishakh": "POHELA_BOISHAKH", "ganesh_chaturthi": "GANESH_CHATURTHI", "maha_shivaratri": "MAHA_SHIVARATRI",
    "ram_navami": "RAM_NAVAMI", "guru_nanak_jayanti": "GURU_NANAK_JAYANTI", "karwa_chauth": "KARWA_CHAUTH",
    "mahavir_jayanti": "MAHAVIR_JAYANTI",
}
_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def hijri_years() -> tuple[date, list[int]]:
    first = Hijri(HIJRI_FIRST, 1, 1).to_gregorian()
    out = []
    for y in range(HIJRI_FIRST, HIJRI_LAST + 1):
        bits = 0
        for m in range(1, 13):
            n = Hijri(y, m, 1).month_length()
            assert n in (29, 30), (y, m, n)
            bits |= (n == 30) << (m - 1)
        out.append(bits)
    return date(first.year, first.month, first.day), out


def festival(attr: str) -> str:
    table = getattr(_HinduLunisolar, attr + "_DATES")
    s = []
    for y in range(FEST_FIRST, FEST_LAST + 1):
        v = table.get(y)
        if v is None:
            s.append("00")
            continue
        md = v if isinstance(v[0], int) else v[0]  # a festival twice in a year (January and December): the first
        doy = (date(y, *md) - date(y, 1, 1)).days + 1
        s.append(_B36[doy // 36] + _B36[doy % 36])
    return "".join(s)


def render() -> str:
    first, years = hijri_years()
    lines = ['"""Umm al-Qura Hijri months and Indian festival days, as compact tables (generated, do not edit).',
             "", "Written by scripts/gen/calendars_table.py from hijridate (Umm al-Qura, 1365–1500 AH) and",
             "holidays.calendars.hindu (2001–2035); the sources and the encoding are documented in that script.",
             '"""', "", "from datetime import date", "",
             f"HIJRI_FIRST_YEAR = {HIJRI_FIRST}", f"HIJRI_FIRST_DAY = date({first.year}, {first.month}, {first.day})",
             "HIJRI_YEARS = ("]
    for i in range(0, len(years), 12):
        lines.append("    " + " ".join(f"0x{v:03x}," for v in years[i:i + 12]))
    lines += [")", f"FESTIVAL_FIRST_YEAR = {FEST_FIRST}", f"FESTIVAL_LAST_YEAR = {FEST_LAST}", "FESTIVALS = {"]
    for key, attr in FESTIVALS.items():
        lines.append(f'    "{key}": "{festival(attr)}",')
    lines.append("}")
    return "\n".join(lines) + "\n"


def verify() -> None:
    sys.path.insert(0, str(OUT.parents[2]))
    from hermesd.nlu import temporal_calendars as tc

    for y in range(HIJRI_FIRST, HIJRI_LAST + 1):
        for m in range(1, 13):
            g = Hijri(y, m, 1).to_gregorian()
            assert tc.hijri_to_gregorian(y, m, 1) == date(g.year, g.month, g.day), (y, m)
    for key, attr in FESTIVALS.items():
        table = getattr(_HinduLunisolar, attr + "_DATES")
        for y in range(FEST_FIRST, FEST_LAST + 1):
            v = table.get(y)
            if v is not None:
                md = v if isinstance(v[0], int) else v[0]
                assert tc.festival_day(key, y) == date(y, *md), (key, y)
    assert tc.hijri_to_gregorian(1439, 10, 1) - timedelta(days=30) == tc.hijri_to_gregorian(1439, 9, 1)


if __name__ == "__main__":
    OUT.write_text(render(), encoding="utf-8")
    verify()
    print(f"wrote {OUT} and checked it against hijridate and holidays")
