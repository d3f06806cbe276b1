"""Time expressions class by class (tests/nlu/time_classes.yaml): every case resolves as written."""

from datetime import datetime
from pathlib import Path

import pytest
import yaml

from hermesd.nlu.temporal import impossible_date_text, parse_times

DATA = yaml.safe_load(Path(__file__).with_name("time_classes.yaml").read_text(encoding="utf-8"))
# a case may end with a 7th element, the expected ``point`` (where a reminder on it falls)
CASES = [(cls, *case[:6], case[6] if len(case) > 6 else None) for cls, cases in DATA["classes"].items() for case in cases]


def _iso(v):
    return v.isoformat() if v is not None else None


@pytest.mark.parametrize("cls,text,ref,kind,start,end,span,point", CASES, ids=[f"{c[0]}:{c[1]}@{c[2]}" for c in CASES])
def test_case(cls, text, ref, kind, start, end, span, point):
    ref_s, tz = DATA["refs"][ref]
    got = parse_times(text, datetime.fromisoformat(ref_s), tz)
    assert got, "no time expression found"
    x = got[0]
    assert x.kind == kind, x
    assert list(x.span) == (span or [0, len(text)]), x
    assert x.text == text[x.span[0]:x.span[1]]
    if kind == "duration":
        assert x.seconds == float(start), x
    elif kind == "invalid":
        assert x.problem and impossible_date_text(x, "zh") != "这个日期不存在。", x
    else:
        assert (_iso(x.start), _iso(x.end)) == (start, end), x
        assert _iso(x.point) == (point or start or _iso(x.point)), x


def test_every_class_has_zh_and_en_or_says_why():
    # Chinese words with no English counterpart: 禮拜/聽日, 前N个月 of a year, 年半, 以来, lunar months, 两日, 多, 过, 刻,
    # 当天/当月, 星期三四, 工作日 counts and 民法典's limits in days
    zh_only = {"traditional_and_cantonese", "zh_first_last_units_of_a_year", "zh_half_units_and_yilai",
               "zh_lunar_months", "zh_month_ranges_in_a_year", "zh_windows_with_nei_and_counts_of_days",
               "zh_some_more_guo_and_ke", "zh_stages_next_day_pairs_and_cv_months",
               "zh_quarter_units_dian_duo_and_wuhou", "zh_approximate_numbers", "zh_same_day_month_and_weekday_runs",
               "zh_workdays_and_limits_in_days"}
    for cls, cases in DATA["classes"].items():
        langs = {"en" if c[0].isascii() else "zh" for c in cases}
        assert "zh" in langs and ("en" in langs or cls in zh_only), cls


def test_impossible_ordinal_and_lunar_day_are_said_in_both_languages():
    ref = datetime.fromisoformat("2026-11-25T10:00:00+08:00")
    (x,) = parse_times("下个月第五个周五", ref, "Asia/Shanghai")
    assert impossible_date_text(x, "zh") == "这个月没有第5个星期五。"
    assert impossible_date_text(x, "en") == "That month has no 5th Friday."
    (y,) = parse_times("2026年腊月三十", ref, "Asia/Shanghai")
    assert impossible_date_text(y, "zh") == "农历12月只有29天。"


@pytest.mark.parametrize("text", ["全天候服务", "周一晚会见", "过了两天", "我们超过两天没见", "15晚不睡"])
def test_chinese_words_near_the_new_classes_are_not_those_times(text):
    """全天候 (all-weather), 晚会 (a party), 过了/超过 (passed, more than), 15晚 (fifteen nights) hold no
    全天 / 晚 / 过N / N晚 expression."""
    ref = datetime.fromisoformat(DATA["refs"]["W"][0])
    got = parse_times(text, ref, DATA["refs"]["W"][1])
    assert all(x.kind == "duration" or x.text in ("周一",) for x in got), got


@pytest.mark.parametrize("text", ["应当天天锻炼", "相当日常的事", "每当月亮升起", "不同月份", "周35", "每次年会", "名次年年提升"])
def test_words_ending_in_dang_and_weekdays_out_of_order_are_no_time(text):
    """应当/相当/每当/不同 + 天天/日常/月亮/月份 hold no 当天 / 当日 / 当月 / 同月; 周35 (Wednesday, Friday) is no run
    of weekdays; 每次/名次 + 年 hold no 次年."""
    ref = datetime.fromisoformat(DATA["refs"]["W"][0])
    assert parse_times(text, ref, DATA["refs"]["W"][1]) == []


def test_the_third_day_of_every_week_is_no_day_counted_from_today():
    """每周第三天 (the third day of every week) is a weekly recurrence, never the day after tomorrow."""
    ref = datetime.fromisoformat(DATA["refs"]["W"][0])
    got = parse_times("每周第三天", ref, DATA["refs"]["W"][1])
    assert [(x.kind, x.every) for x in got] == [("recurrence", (1.0, "week"))], got


@pytest.mark.parametrize("text,ref,n,unit,start,end,span", DATA["recurrences"], ids=[c[0] for c in DATA["recurrences"]])
def test_recurrence(text, ref, n, unit, start, end, span):
    ref_s, tz = DATA["refs"][ref]
    (x,) = parse_times(text, datetime.fromisoformat(ref_s), tz)
    assert (x.kind, x.every) == ("recurrence", (float(n), unit)), x
    assert (_iso(x.start), _iso(x.end)) == (start, end), x
    assert list(x.span) == (span or [0, len(text)]), x
    assert x.to_dict()["every"] == {"n": float(n), "unit": unit}


@pytest.mark.parametrize("text,ref,days,start,end,span", DATA["weekday_sets"], ids=[c[0] for c in DATA["weekday_sets"]])
def test_weekday_set(text, ref, days, start, end, span):
    ref_s, tz = DATA["refs"][ref]
    (x,) = parse_times(text, datetime.fromisoformat(ref_s), tz)
    assert (x.kind, x.every, x.days) == ("recurrence", (1.0, "week"), tuple(days)), x
    assert (_iso(x.start), _iso(x.end)) == (start, end), x
    assert list(x.span) == (span or [0, len(text)]), x
    assert x.to_dict()["days"] == days


@pytest.mark.parametrize("text", ["5个工作日", "下个工作日", "非工作日", "每周6天", "每周二3点", "每周一12点",
                                  "把工作日志发给我", "每周一次"])
def test_counts_and_single_days_are_no_sets_of_weekdays(text):
    ref_s, tz = DATA["refs"]["W"]
    assert all(x.days is None for x in parse_times(text, datetime.fromisoformat(ref_s), tz))


@pytest.mark.parametrize("text,ref,lo,hi,span", DATA["length_ranges"], ids=[c[0] for c in DATA["length_ranges"]])
def test_range_of_lengths(text, ref, lo, hi, span):
    ref_s, tz = DATA["refs"][ref]
    (x,) = parse_times(text, datetime.fromisoformat(ref_s), tz)
    assert (x.kind, x.seconds, x.seconds_max) == ("duration", float(lo), float(hi)), x
    assert list(x.span) == (span or [0, len(text)]), x


@pytest.mark.parametrize("text,kind,start,end", [
    ("5月2到3日", "range", "2026-05-02", "2026-05-04"),   # the 2nd to the 3rd of May, not two to three days
    ("1到3月", "range", "2026-01-01", "2026-04-01"),      # January to March: a count of months says 个
    ("2019到2020年", "range", "2019-01-01", "2021-01-01"),  # years, not a length
])
def test_ranges_of_dates_are_no_ranges_of_lengths(text, kind, start, end):
    (x,) = parse_times(text, datetime.fromisoformat(DATA["refs"]["W"][0]), DATA["refs"]["W"][1])
    assert (x.kind, _iso(x.start), _iso(x.end)) == (kind, start, end), x


@pytest.mark.parametrize("text", ["每个人都到了", "每次都迟到", "每一位同学"])
def test_mei_before_no_unit_of_time_is_no_recurrence(text):
    assert parse_times(text, datetime.fromisoformat(DATA["refs"]["W"][0]), DATA["refs"]["W"][1]) == []


@pytest.mark.parametrize("text,ref,days", [
    ("9月10号、11号和12号", "W", ["2026-09-10", "2026-09-11", "2026-09-12"]),
    ("2019年3月1日,5日", "W", ["2019-03-01", "2019-03-05"]),
    ("下个月2号和9号", "Y", ["2027-01-02", "2027-01-09"]),   # asked on Dec 31: January's
    ("3号和5号", "S", ["2027-02-03", "2027-02-05"]),           # no month said: the local one (February in Shanghai)
])
def test_bare_days_listed_after_a_date_are_in_its_month(text, ref, days):
    ref_s, tz = DATA["refs"][ref]
    got = parse_times(text, datetime.fromisoformat(ref_s), tz)
    assert [(x.kind, _iso(x.start)) for x in got] == [("date", d) for d in days], got


@pytest.mark.parametrize("text", ["2000多人参加", "来了2000万人", "2020个座位"])
def test_a_number_before_a_chinese_magnitude_or_counter_is_no_year(text):
    ref_s, tz = DATA["refs"]["W"]
    assert all(x.grain != "year" for x in parse_times(text, datetime.fromisoformat(ref_s), tz))


@pytest.mark.parametrize("text,start", [
    ("一刻钟后", "2027-01-01T00:05:40-05:00"),          # over the year's end, in New York
    ("in 15 minutes", "2027-01-01T00:05:40-05:00"),
    ("20分钟后提醒我", "2027-01-01T00:10:40-05:00"),
])
def test_an_offset_from_now_keeps_the_seconds_of_now(text, start):
    # the instant the offset names: 15 minutes after 23:50:40 is 00:05:40, not 00:05:00 (a reminder 40 s early)
    (x,) = parse_times(text, datetime.fromisoformat("2026-12-31T23:50:40-05:00"), "America/New_York")
    assert (x.kind, x.start.isoformat(), x.grain) == ("datetime", start, "minute"), x
