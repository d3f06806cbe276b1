"""English time classes of Duckling's public suite, with vectors of our own (tests/nlu/time_classes_en.yaml):
holidays of the Hebrew, Islamic, Indian and Parsi calendars and the arithmetic under them (checked against
dates known from other sources), and English phrasings."""

from datetime import date, datetime
from pathlib import Path

import pytest
import yaml

from hermesd.nlu.temporal import parse_times
from hermesd.nlu.temporal_calendars import (festival_day, hebrew_leap, hebrew_month_days, hebrew_to_gregorian,
                                            hijri_month_days, hijri_to_gregorian, parsi_new_year)

DATA = yaml.safe_load(Path(__file__).with_name("time_classes_en.yaml").read_text(encoding="utf-8"))
# each case: [text, ref, kind, start, end, span]; kind "none" = no expression, "invalid" = start names the problem
CASES = [(cls, *case) for cls, cases in DATA["classes"].items() for case in cases]


def _iso(v):
    return v.isoformat() if v is not None else None


@pytest.mark.parametrize("cls,text,ref,kind,start,end,span", CASES, ids=[f"{c[0]}:{c[1]}@{c[2]}" for c in CASES])
def test_case(cls, text, ref, kind, start, end, span):
    ref_s, tz = DATA["refs"][ref]
    got = parse_times(text, datetime.fromisoformat(ref_s), tz)
    if kind == "none":
        assert got == [], got
        return
    assert len(got) == 1, got
    x = got[0]
    assert x.kind == kind, x
    assert list(x.span) == (span or [0, len(text)]), x
    if kind == "invalid":
        assert x.problem and x.problem["kind"] == start, x  # for an invalid case, start names the problem
    else:
        assert (_iso(x.start), _iso(x.end)) == (start, end), x


# Rosh Hashanah (1 Tishrei) and Passover (15 Nisan) as the Hebrew calendar's published tables give them,
# over the postponement rules' corner cases (a year of 353, 354, 355, 383, 384 and 385 days)
@pytest.mark.parametrize("hy,m,d,want", [
    (5779, 7, 1, date(2018, 9, 10)), (5784, 7, 1, date(2023, 9, 16)), (5785, 7, 1, date(2024, 10, 3)),
    (5778, 1, 15, date(2018, 3, 31)), (5790, 7, 1, date(2029, 9, 10)), (5660, 7, 1, date(1899, 9, 5)),
    (5784, 13, 14, date(2024, 3, 24)), (5785, 12, 14, date(2025, 3, 14)),
])
def test_hebrew_dates(hy, m, d, want):
    assert hebrew_to_gregorian(hy, m, d) == want


def test_hebrew_year_lengths_are_the_six_allowed():
    for hy in range(5700, 5900):
        n = (hebrew_to_gregorian(hy + 1, 7, 1) - hebrew_to_gregorian(hy, 7, 1)).days
        assert n in ((383, 384, 385) if hebrew_leap(hy) else (353, 354, 355)), hy
        assert sum(hebrew_month_days(hy, m) for m in range(1, 14 if hebrew_leap(hy) else 13)) == n


def test_hebrew_no_such_day_or_month():
    with pytest.raises(ValueError):
        hebrew_to_gregorian(5785, 13, 1)  # 5785 is a common year: no Adar II
    with pytest.raises(ValueError):
        hebrew_to_gregorian(5785, 2, 30)  # Iyar has 29 days


def test_hijri_umm_al_qura_and_its_bounds():
    assert hijri_to_gregorian(1439, 9, 1) == date(2018, 5, 16)  # Ramadan 1439
    assert hijri_to_gregorian(1447, 1, 1) == date(2025, 6, 26)  # Islamic New Year 1447
    assert all(hijri_month_days(1446, m) in (29, 30) for m in range(1, 13))
    with pytest.raises(ValueError):
        hijri_to_gregorian(1501, 1, 1)
    with pytest.raises(ValueError):
        hijri_to_gregorian(1364, 1, 1)


def test_festival_days_and_their_bounds():
    assert festival_day("diwali", 2024) == date(2024, 10, 31)  # the central government's holiday list
    assert festival_day("holi", 2025) == date(2025, 3, 14)
    with pytest.raises(ValueError):
        festival_day("diwali", 2036)


def test_parsi_new_year_moves_a_day_each_leap_year():
    assert [parsi_new_year(y).isoformat() for y in (2019, 2020, 2023, 2024)] == \
        ["2019-08-17", "2020-08-16", "2023-08-16", "2024-08-15"]
