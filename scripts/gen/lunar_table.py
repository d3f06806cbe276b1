"""Generate hermesd/nlu/temporal_lunar_table.py: the Chinese lunisolar calendar and the 24 solar terms, 1900–2100.

    .venv/bin/pip install lunar-python lunardate      # build-time only, never imported by hermesd
    .venv/bin/python scripts/gen/lunar_table.py       # rewrites the table module, then verifies it

Source: ``lunar-python`` (6tail/lunar-python, MIT; its months and solar terms are computed with
the 寿星天文历 astronomical algorithm by 许剑伟), cross-checked for every lunar month of
1900–2099 against ``lunardate`` (lidaobing/python-lunardate, GPLv3 data table derived from the
Hong Kong Observatory's conversion tables). Only the compact table is committed: no code or
data of either library is copied into hermesd.

Encoding (see hermesd/nlu/temporal_lunar.py for the reader):

- ``LUNAR_YEARS[y - 1900]`` for lunar year ``y``: bits 0–12 the lengths of its months in order
  (a leap month right after its month; 1 = 30 days, 0 = 29), bits 13–16 the leap month (0 = none),
  bits 17–21 the day offset of 正月初一 from January 21 of Gregorian year ``y``.
- ``TERMS[y - 1900]`` for Gregorian year ``y``: 12 hex digits = 24 two-bit values, term ``i``
  (0 = 小寒 … 23 = 冬至, in calendar order) falls on day ``TERM_BASE[i] + value`` of month ``i // 2 + 1``.
"""

from __future__ import annotations

import sys
from datetime import date, timedelta
from pathlib import Path

from lunar_python import LunarYear, Solar

OUT = Path(__file__).resolve().parents[2] / "hermesd" / "nlu" / "temporal_lunar_table.py"
TERM_NAMES = ("小寒", "大寒", "立春", "雨水", "惊蛰", "春分", "清明", "谷雨", "立夏", "小满", "芒种", "夏至",
              "小暑", "大暑", "立秋", "处暑", "白露", "秋分", "寒露", "霜降", "立冬", "小雪", "大雪", "冬至")
PINYIN = {"DONG_ZHI": "冬至", "XIAO_HAN": "小寒", "DA_HAN": "大寒", "LI_CHUN": "立春", "YU_SHUI": "雨水",
          "JING_ZHE": "惊蛰", "DA_XUE": "大雪"}
FIRST, LAST = 1900, 2100
#: lunar-python and lunardate disagree on four months of 1900–2099 (a new moon within minutes of
#: midnight). Each is settled by the majority with a third source, jionlp's lunar table (checked by
#: hand): lunar-python for 1933-06, 1954-11 and 1978-08, lunardate for 2057-09 (九月初一 = 2057-09-28).
FROM_LUNARDATE = {2057}


def lunar_year(y: int) -> int:
    if y in FROM_LUNARDATE:
        return lunardate_year(y)
    ly = LunarYear.fromYear(y)
    months = [m for m in ly.getMonthsInYear() if m.getYear() == y]
    assert len(months) in (12, 13), (y, len(months))
    bits = 0
    for i, m in enumerate(months):
        assert m.getDayCount() in (29, 30)
        bits |= (m.getDayCount() == 30) << i
    leap = ly.getLeapMonth()
    from lunar_python import Lunar
    ny = Lunar.fromYmd(y, 1, 1).getSolar()
    off = (date(ny.getYear(), ny.getMonth(), ny.getDay()) - date(y, 1, 21)).days
    assert 0 <= off < 32 and 0 <= leap <= 12, (y, off, leap)
    return bits | leap << 13 | off << 17


def lunardate_year(y: int) -> int:
    import lunardate

    leap = lunardate.LunarDate.leap_month_for_year(y) or 0
    bits, i = 0, 0
    for m in range(1, 13):
        for is_leap in ((False, True) if leap == m else (False,)):
            d30 = lunardate.LunarDate(y, m, 1, is_leap) + timedelta(days=29)
            bits |= (d30.month == m and bool(d30.isLeapMonth) == is_leap) << i
            i += 1
    off = (lunardate.LunarDate(y, 1, 1).to_solar_date() - date(y, 1, 21)).days
    return bits | leap << 13 | off << 17


def terms(y: int) -> list[int]:
    found: dict[str, date] = {}
    for probe in (Solar.fromYmd(y, 3, 1), Solar.fromYmd(y, 9, 1), Solar.fromYmd(y, 12, 30)):
        for k, v in probe.getLunar().getJieQiTable().items():
            d = date(v.getYear(), v.getMonth(), v.getDay())
            if d.year == y:
                found[PINYIN.get(k, k)] = d
    days = []
    for i, name in enumerate(TERM_NAMES):
        d = found[name]
        assert d.month == i // 2 + 1, (y, name, d)
        days.append(d.day)
    return days


def main() -> int:
    years = [lunar_year(y) for y in range(FIRST, LAST + 1)]
    term_days = [terms(y) for y in range(FIRST, LAST + 1)]
    base = [min(t[i] for t in term_days) for i in range(24)]
    packed = []
    for t in term_days:
        v = 0
        for i in range(24):
            d = t[i] - base[i]
            assert 0 <= d <= 3, (t, i)
            v |= d << (2 * i)
        packed.append(f"{v:012x}")
    rows = ["    " + ", ".join(f"0x{v:06x}" for v in years[i:i + 10]) + "," for i in range(0, len(years), 10)]
    trows = ["    " + ", ".join(f"\"{p}\"" for p in packed[i:i + 8]) + "," for i in range(0, len(packed), 8)]
    OUT.write_text(
        '"""Chinese lunisolar calendar and the 24 solar terms, 1900–2100, as a compact table (generated, do not edit).\n\n'
        "Written by scripts/gen/lunar_table.py from lunar-python (寿星天文历 algorithm) and cross-checked there\n"
        "against lunardate (Hong Kong Observatory tables); the encoding is documented in that script.\n"
        '"""\n\n'
        f"FIRST_YEAR = {FIRST}\nLAST_YEAR = {LAST}\n"
        "LUNAR_YEARS = (\n" + "\n".join(rows) + "\n)\n"
        f"TERM_BASE = {tuple(base)!r}\n"
        "TERMS = (\n" + "\n".join(trows) + "\n)\n", encoding="utf-8")
    return verify()


def verify() -> int:
    """Every lunar month start of 1900–2099 against lunardate, every solar term against lunar-python."""
    import importlib

    import lunardate

    sys.path.insert(0, str(OUT.parents[2]))
    import hermesd.nlu.temporal_lunar as tl
    importlib.reload(tl)
    bad = 0
    # months that start a day apart in the two sources because the month before differs (see FROM_LUNARDATE)
    KNOWN_DISPUTES = {(1933, 6), (1954, 11), (1978, 8)}
    for y in range(FIRST, 2100):
        leap = lunardate.LunarDate.leap_month_for_year(y)
        for m in range(1, 13):
            for is_leap in ((False, True) if leap == m else (False,)):
                want = lunardate.LunarDate(y, m, 1, is_leap).to_solar_date()
                got = tl.lunar_to_solar(y, m, 1, is_leap)
                last = (lunardate.LunarDate(y, m, 1, is_leap) + timedelta(days=29))
                long_month = last.month == m and bool(last.isLeapMonth) == is_leap
                if (y, m) in KNOWN_DISPUTES or (y, m + 1) in KNOWN_DISPUTES:
                    continue
                if got != want or tl.month_days(y, m, is_leap) != (30 if long_month else 29):
                    bad += 1
                    print("lunar mismatch", y, m, is_leap, got, want, file=sys.stderr)
    for y in range(FIRST, LAST + 1):
        for i, d in enumerate(terms(y)):
            if tl.solar_term(y, i) != date(y, i // 2 + 1, d):
                bad += 1
                print("term mismatch", y, TERM_NAMES[i], file=sys.stderr)
    print(f"verified lunar months {FIRST}-2099 against lunardate and solar terms {FIRST}-{LAST}: {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
