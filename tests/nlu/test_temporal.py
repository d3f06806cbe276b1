"""Time expressions: the generated vectors (every form × week-boundary references) and specific rules."""

import time
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from hermesd.nlu.eval import main as eval_main
from hermesd.nlu.temporal import parse_times

VECTORS = Path(__file__).with_name("temporal_vectors.jsonl")
SH = ZoneInfo("Asia/Shanghai")
SUNDAY_0730 = datetime(2026, 11, 29, 7, 30, tzinfo=SH)


def _vectors():
    import json

    return [json.loads(line) for line in VECTORS.read_text(encoding="utf-8").splitlines()]


def test_vector_file_covers_several_hundred_cases():
    assert len(_vectors()) >= 500


@pytest.mark.parametrize("vec", _vectors(), ids=lambda v: f"{v['text']}@{v['ref']}")
def test_vector(vec):
    got = parse_times(vec["text"], datetime.fromisoformat(vec["ref"]), vec["tz"])
    assert got, "no time expression found"
    x = got[0]
    assert x.kind == vec["kind"], x
    assert list(x.span) == vec.get("span", [0, len(vec["text"])]), x
    if vec["kind"] == "duration":
        assert x.seconds == vec["seconds"]
    elif vec["kind"] != "invalid":
        # a range open at one side (10天以后, 两天以前) has None there
        assert (x.start.isoformat() if x.start is not None else None) == vec["start"]
        assert (x.end.isoformat() if x.end is not None else None) == vec["end"]


def test_eval_cli_on_vectors(capsys):
    import json

    assert eval_main(["temporal", "--data", str(VECTORS)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mismatches"] == [] and out["accuracy"] == 1.0


def test_today_is_local_date_whatever_process_tz(monkeypatch):
    """07:30 in Shanghai is still yesterday in UTC; the process runs with TZ=UTC."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        ref_utc = datetime(2026, 11, 28, 23, 30, tzinfo=ZoneInfo("UTC"))
        (x,) = parse_times("今天", ref_utc, "Asia/Shanghai")
        assert x.start == date(2026, 11, 29)
        (y,) = parse_times("today", ref_utc, "UTC")
        assert y.start == date(2026, 11, 28)
        (n,) = parse_times("今天", datetime(2026, 11, 29, 7, 30), "Asia/Shanghai")  # naive = local in tz
        assert n.start == date(2026, 11, 29)
    finally:
        monkeypatch.undo()
        time.tzset()


@pytest.mark.parametrize("text,span", [("五月三十一日", (0, 6)), ("一月二十三", (0, 5)), ("发给张工的五月三十一日报价单", (5, 11)),
                                       ("一月二十三那天", (0, 5))])
def test_exact_spans_of_chinese_numeral_dates(text, span):
    (x,) = parse_times(text, SUNDAY_0730, SH)
    assert x.span == span
    assert text[span[0]:span[1]] == x.text


def test_zh_last_wednesday_differs_from_english_last_wednesday_on_purpose():
    mon = datetime(2026, 11, 30, 9, 0, tzinfo=SH)  # Monday
    (zh,) = parse_times("上周三", mon, SH)
    (en,) = parse_times("last Wednesday", mon, SH)
    assert zh.start == date(2026, 11, 25)  # Wednesday of the previous Monday-start week
    assert en.start == date(2026, 11, 25)
    thu = datetime(2026, 12, 3, 9, 0, tzinfo=SH)  # Thursday
    (zh,) = parse_times("上周三", thu, SH)
    (en,) = parse_times("last Wednesday", thu, SH)
    assert zh.start == date(2026, 11, 25)
    assert en.start == date(2026, 12, 2)  # most recent Wednesday strictly before today


@pytest.mark.parametrize("text,ref", [("下个月31号", datetime(2027, 1, 15, tzinfo=SH)), ("2月30日", SUNDAY_0730),
                                      ("February 30", SUNDAY_0730), ("4月31号", SUNDAY_0730),
                                      ("2月29日", datetime(2027, 3, 1, tzinfo=SH))])
def test_impossible_date_is_invalid_with_reason(text, ref):
    (x,) = parse_times(text, ref, SH)
    assert x.kind == "invalid" and x.start is None
    assert "has no day" in x.reason


def test_february_29_exists_in_a_leap_year():
    (x,) = parse_times("2月29日", datetime(2028, 1, 10, tzinfo=SH), SH)
    assert x.start == date(2028, 2, 29)


def test_expressions_in_a_sentence_with_spans():
    text = "把上周三发给张工的报价单再发一遍，明天下午3点前"
    xs = parse_times(text, SUNDAY_0730, SH)
    assert [x.text for x in xs] == ["上周三", "明天下午3点"]
    assert xs[0].start == date(2026, 11, 18)
    assert xs[1].start == datetime(2026, 11, 30, 15, 0, tzinfo=SH)
    for x in xs:
        assert text[x.span[0]:x.span[1]] == x.text


def test_english_sentence():
    text = "Remind me to call Mr. Smith next Friday at 3:30 pm"
    (x,) = parse_times(text, SUNDAY_0730, SH)
    assert x.text == "next Friday at 3:30 pm"
    assert x.start == datetime(2026, 12, 4, 15, 30, tzinfo=SH)


def test_recurring_expressions_are_not_resolved_to_one_date():
    # a recurrence is a kind of its own (every week, from the next Monday), never a one-off date, in both languages
    (x,) = parse_times("每周一提醒我", SUNDAY_0730, SH)
    assert (x.kind, x.text, x.every) == ("recurrence", "每周一", (1.0, "week"))
    (y,) = parse_times("every Monday at 9", SUNDAY_0730, SH)
    assert (y.kind, y.text, y.every, y.start) == ("recurrence", "every Monday at 9", (1.0, "week"),
                                                  datetime(2026, 11, 30, 9, 0, tzinfo=SH))
    (z,) = parse_times("remind me daily at 7 am", SUNDAY_0730, SH)  # 7 am today is over (it is 07:30): Monday's
    assert (z.kind, z.text, z.every, z.start) == ("recurrence", "daily at 7 am", (1.0, "day"),
                                                  datetime(2026, 11, 30, 7, 0, tzinfo=SH))
    assert parse_times("each of them said every time", SUNDAY_0730, SH) == []


def test_half_open_ranges():
    (x,) = parse_times("下周", SUNDAY_0730, SH)
    assert x.end - x.start == timedelta(days=7)
    assert x.start.isoweekday() == 1
    (y,) = parse_times("this weekend", SUNDAY_0730, SH)
    assert y.start.isoweekday() == 6 and y.end - y.start == timedelta(days=2)


def test_no_time_in_plain_text():
    assert parse_times("把报价单发给张工", SUNDAY_0730, SH) == []
    assert parse_times("what is my disk usage", SUNDAY_0730, SH) == []


def test_unknown_zone_raises():
    from zoneinfo import ZoneInfoNotFoundError

    with pytest.raises(ZoneInfoNotFoundError):
        parse_times("今天", SUNDAY_0730, "Mars/Olympus")


def test_attributive_now_is_not_a_time():
    assert parse_times("现在的位置会下雪吗", SUNDAY_0730, SH) == []
    (x,) = parse_times("现在几点", SUNDAY_0730, SH)
    assert x.kind == "datetime" and x.start == SUNDAY_0730


def test_recurring_schedule_durations_are_not_times():
    # the 20 minutes belong to the schedule; 每分钟 is the recurrence itself, with no first occurrence of its own
    assert [(x.kind, x.text, x.start) for x in parse_times("设置闹钟为20分钟以内每分钟响一次", SUNDAY_0730, SH)] == [
        ("recurrence", "每分钟", None)]
    assert [(x.kind, x.text, x.start) for x in parse_times("set alarm every minute for 20 minutes", SUNDAY_0730, SH)] == [
        ("recurrence", "every minute", None)]


def test_capitalised_title_words_are_not_times():
    assert parse_times("play Good Morning Sunshine", SUNDAY_0730, SH) == []
    assert [x.text for x in parse_times("Good morning, remind me this evening", SUNDAY_0730, SH)] == ["this evening"]


def test_compound_offsets():
    (x,) = parse_times("23 hours twenty one minutes and one second from now", SUNDAY_0730, SH)
    assert x.start == SUNDAY_0730 + timedelta(hours=23, minutes=21, seconds=1)
    (y,) = parse_times("1 hour and 1 second from now", SUNDAY_0730, SH)
    assert y.start == SUNDAY_0730 + timedelta(hours=1, seconds=1)


@pytest.mark.parametrize("text,expected", [
    ("Select the 12th of March.", ("12th of March", date(2026, 3, 12))),
    ("the 14th of this month", ("14th of this month", date(2026, 11, 14))),
    ("the 1st of next month", ("1st of next month", date(2026, 12, 1))),
    ("6 in the evening.", ("6 in the evening", datetime(2026, 11, 29, 18, 0, tzinfo=SH))),
])
def test_english_day_forms(text, expected):
    (x,) = parse_times(text, SUNDAY_0730, SH)
    assert (x.text, x.start) == expected


@pytest.mark.parametrize("text,expected", [
    # a bare day ordinal followed by a function word is a date, and joins the time after it
    ("on the 13th at 12:30", ("13th at 12:30", datetime(2026, 11, 13, 12, 30, tzinfo=SH))),
    # "will" looks forward and the 9th has passed on the 29th: the next 9th (temporal_context's rule)
    ("I'd like it on the 9th and it will be for 3 people.", ("9th", date(2026, 12, 9))),
    ("the 30th please", ("30th", date(2026, 11, 30))),
    ("I need it for the 30th instead", ("30th", date(2026, 11, 30))),
])
def test_a_bare_day_ordinal_before_a_function_word_is_a_date(text, expected):
    (x,) = parse_times(text, SUNDAY_0730, SH)
    assert (x.text, x.start) == expected


@pytest.mark.parametrize("text,expected", [
    # a bare hour right after a part of day
    ("This evening 5 would be great.", ("This evening 5", datetime(2026, 11, 29, 17, 0, tzinfo=SH))),
    ("in the morning 9", ("morning 9", datetime(2026, 11, 29, 9, 0, tzinfo=SH))),
    ("afternoon five", ("afternoon five", datetime(2026, 11, 29, 17, 0, tzinfo=SH))),
])
def test_a_bare_hour_after_a_part_of_day_is_that_hour(text, expected):
    (x,) = parse_times(text, SUNDAY_0730, SH)
    assert (x.text, x.start) == expected


@pytest.mark.parametrize("text", ["this evening 5 people", "the evening one", "morning 3 times"])
def test_a_count_after_a_part_of_day_is_no_hour(text):
    assert all(x.grain == "part_of_day" for x in parse_times(text, SUNDAY_0730, SH))


@pytest.mark.parametrize("text", ["the 5th floor", "the 4th one", "on 5th avenue", "the 2nd time", "my 3rd try"])
def test_an_ordinal_before_a_noun_is_no_date(text):
    assert parse_times(text, SUNDAY_0730, SH) == []


def test_house_numbers_and_for_now_are_not_times():
    assert [x.text for x in parse_times("The event starts at 8 pm at 24 Willie Mays Plaza.", SUNDAY_0730, SH)] == ["8 pm"]
    assert parse_times("1919 Mount Diablo Boulevard", SUNDAY_0730, SH) == []
    assert parse_times("That's it for now.", SUNDAY_0730, SH) == []


NY = ZoneInfo("America/New_York")
NEW_YEARS_EVE_2200 = datetime(2026, 12, 31, 22, 0, tzinfo=NY)  # already 2027 in UTC


@pytest.mark.parametrize("text,clock,start", [
    # a bare hour after a meal and "at" is read in the meal's part of day, on the meal's day; the meal stays a time
    # of its own (two expressions). Asked late on New Year's Eve: tonight's dinner is past, tomorrow's is in 2027
    ("dinner at 7", "7", datetime(2026, 12, 31, 19, 0, tzinfo=NY)),
    ("tomorrow dinner at 7", "7", datetime(2027, 1, 1, 19, 0, tzinfo=NY)),
    ("lunch tomorrow at 1", "1", datetime(2027, 1, 1, 13, 0, tzinfo=NY)),
    ("breakfast at 8", "8", datetime(2026, 12, 31, 8, 0, tzinfo=NY)),
    # its own am/pm, or the 24-hour clock, keeps the clock's reading
    ("dinner at 7am", "7am", datetime(2026, 12, 31, 7, 0, tzinfo=NY)),
    ("lunch at 09:30", "09:30", datetime(2026, 12, 31, 9, 30, tzinfo=NY)),
])
def test_a_bare_hour_after_a_meal_is_read_in_the_meal(text, clock, start):
    meal, x = parse_times(text, NEW_YEARS_EVE_2200, NY)
    assert meal.grain == "part_of_day" and (x.text, x.start) == (clock, start)


@pytest.mark.parametrize("text", ["I'm away for a week on Monday", "an hour on Monday", "two days on Friday"])
def test_a_length_on_a_day_is_a_length_and_a_day(text):
    # "a week on Monday" alone is the Monday after next (British); after "for", or of hours or days, it is not
    assert [x.kind for x in parse_times(text, NEW_YEARS_EVE_2200, NY)] == ["duration", "date"]
