"""A date that does not exist is marked, never accepted or dropped: a structured ``problem`` on the
``invalid`` time expression (and its datetime entity), and one sentence that says what is wrong."""

from datetime import datetime

import pytest

from hermesd.nlu.temporal import impossible_date_text, parse_times

from .conftest import SH

REF_2025 = datetime(2025, 1, 10, 9, 0, tzinfo=SH)  # a common year
REF_2024 = datetime(2024, 1, 10, 9, 0, tzinfo=SH)  # a leap year

CASES = [
    ("2月30号", REF_2025, 2, 30, 28, "2月没有30号。", "February has no 30th."),
    ("提醒我2月30号交报告", REF_2025, 2, 30, 28, "2月没有30号。", "February has no 30th."),
    ("6月31号", REF_2025, 6, 31, 30, "6月没有31号。", "June has no 31st."),
    ("六月三十一日开会", REF_2025, 6, 31, 30, "6月没有31号。", "June has no 31st."),
    ("６月３１號", REF_2025, 6, 31, 30, "6月没有31号。", "June has no 31st."),
    ("4月31日", REF_2025, 4, 31, 30, "4月没有31号。", "April has no 31st."),
    ("11月31号发了什么", REF_2025, 11, 31, 30, "11月没有31号。", "November has no 31st."),
    ("the 31st of June", REF_2025, 6, 31, 30, "6月没有31号。", "June has no 31st."),
    ("April 31", REF_2025, 4, 31, 30, "4月没有31号。", "April has no 31st."),
    ("remind me on September 31st to pay", REF_2025, 9, 31, 30, "9月没有31号。", "September has no 31st."),
    ("February 30", REF_2025, 2, 30, 28, "2月没有30号。", "February has no 30th."),
    ("what did I send on June 31", REF_2025, 6, 31, 30, "6月没有31号。", "June has no 31st."),
    ("2月29号", REF_2025, 2, 29, 28, "2025年2月没有29号（2025年不是闰年）。",
     "February 2025 has no 29th (2025 is not a leap year)."),
    ("February 29th", REF_2025, 2, 29, 28, "2025年2月没有29号（2025年不是闰年）。",
     "February 2025 has no 29th (2025 is not a leap year)."),
    ("2023年2月29日", REF_2024, 2, 29, 28, "2023年2月没有29号（2023年不是闰年）。",
     "February 2023 has no 29th (2023 is not a leap year)."),
    ("2月30号", REF_2024, 2, 30, 29, "2月没有30号。", "February has no 30th."),
]


@pytest.mark.parametrize("text,ref,month,day,max_day,zh,en", CASES)
def test_a_day_the_month_does_not_have(text, ref, month, day, max_day, zh, en):
    (x,) = parse_times(text, ref, SH)
    assert x.kind == "invalid" and x.start is None and x.end is None
    assert x.problem == {"kind": "no_such_day", "year": x.problem["year"], "month": month, "day": day, "max_day": max_day}
    assert impossible_date_text(x, "zh") == zh
    assert impossible_date_text(x.to_dict(), "en") == en  # the entity value works as well
    assert impossible_date_text(x.problem, "en") == en


@pytest.mark.parametrize("text", ["2月29号", "February 29", "2024年2月29日"])
def test_february_29_in_a_leap_year_exists(text):
    (x,) = parse_times(text, REF_2024, SH)
    assert x.kind == "date" and x.start.isoformat() == "2024-02-29" and x.problem is None


@pytest.mark.parametrize("text", ["2月28号", "6月30号", "the 30th of June", "April 30", "1月31日"])
def test_real_dates_carry_no_problem(text):
    (x,) = parse_times(text, REF_2025, SH)
    assert x.kind == "date" and x.problem is None and x.to_dict()["problem"] is None


def test_next_month_31st_in_a_30_day_month():
    (x,) = parse_times("下个月31号", datetime(2025, 3, 15, tzinfo=SH), SH)
    assert x.problem == {"kind": "no_such_day", "year": 2025, "month": 4, "day": 31, "max_day": 30}
    assert impossible_date_text(x, "zh") == "4月没有31号。"


def test_an_impossible_end_of_a_range_is_invalid():
    (x,) = parse_times("6月1日到6月31日", REF_2025, SH)
    assert x.kind == "invalid" and x.problem["kind"] == "no_such_day" and x.problem["day"] == 31


def test_other_problems_have_their_own_sentence():
    (month,) = parse_times("13月5号", REF_2025, SH)
    assert month.problem == {"kind": "no_such_month", "month": 13}
    assert impossible_date_text(month, "zh") == "没有13月。"
    assert impossible_date_text(month, "en") == "There is no month 13."
    (rev,) = parse_times("明天到昨天", REF_2025, SH)
    assert rev.problem == {"kind": "reversed_range"}
    assert impossible_date_text(rev, "en") == "That period ends before it starts."
    (far,) = parse_times("99999999天后", REF_2025, SH)
    assert far.problem == {"kind": "out_of_calendar"}
    assert impossible_date_text(None, "zh") == "这个日期不存在。"


def test_the_datetime_entity_carries_the_problem(nlu):
    r = nlu.parse("6月31号发了什么")
    (e,) = [e for e in r.entities if e.type == "datetime"]
    assert e.value["kind"] == "invalid" and e.value["problem"]["max_day"] == 30
    assert impossible_date_text(e.value, r.lang) == "6月没有31号。"
