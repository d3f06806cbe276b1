"""The repeating-schedule engine (:mod:`hermesd.recurrence`), table-tested: DST, month ends, leap
days, week and year boundaries, weekday sets, ends by count and by instant."""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from hermesd.recurrence import BadRule, Rule, describe, next_after, nth

NY, SH, UTC = ZoneInfo("America/New_York"), ZoneInfo("Asia/Shanghai"), ZoneInfo("UTC")


def _r(every, unit, start, tz="America/New_York", days=(), until=None, count=None):
    return Rule(every, unit, start, tz, tuple(days), until, count)


# (rule, the first occurrences as local wall-clock strings)
TABLE = [
    # every day at 08:00 across both New York DST changes: the wall clock stays, the offset moves
    (_r(1, "day", datetime(2026, 3, 7, 8, 0, tzinfo=NY)),
     ["2026-03-07 08:00-05:00", "2026-03-08 08:00-04:00", "2026-03-09 08:00-04:00"]),
    (_r(1, "day", datetime(2026, 10, 31, 8, 0, tzinfo=NY)),
     ["2026-10-31 08:00-04:00", "2026-11-01 08:00-05:00", "2026-11-02 08:00-05:00"]),
    # 02:30 does not exist on 8 March 2026 in New York: read with the old offset, 03:30 EDT
    (_r(1, "day", datetime(2026, 3, 7, 2, 30, tzinfo=NY)),
     ["2026-03-07 02:30-05:00", "2026-03-08 03:30-04:00", "2026-03-09 02:30-04:00"]),
    # every hour is 60 minutes apart, so the wall clock jumps at the change
    (_r(1, "hour", datetime(2026, 3, 8, 1, 0, tzinfo=NY)),
     ["2026-03-08 01:00-05:00", "2026-03-08 03:00-04:00", "2026-03-08 04:00-04:00"]),
    (_r(90, "minute", datetime(2026, 12, 31, 22, 0, tzinfo=SH), "Asia/Shanghai"),
     ["2026-12-31 22:00+08:00", "2026-12-31 23:30+08:00", "2027-01-01 01:00+08:00"]),
    # every month on the 31st: the last day of shorter months, and back to the 31st
    (_r(1, "month", datetime(2027, 1, 31, 9, 0, tzinfo=SH), "Asia/Shanghai"),
     ["2027-01-31 09:00+08:00", "2027-02-28 09:00+08:00", "2027-03-31 09:00+08:00", "2027-04-30 09:00+08:00"]),
    (_r(1, "month", datetime(2027, 12, 30, 9, 0, tzinfo=SH), "Asia/Shanghai"),
     ["2027-12-30 09:00+08:00", "2028-01-30 09:00+08:00", "2028-02-29 09:00+08:00", "2028-03-30 09:00+08:00"]),
    (_r(3, "month", datetime(2026, 11, 30, 9, 0, tzinfo=SH), "Asia/Shanghai"),
     ["2026-11-30 09:00+08:00", "2027-02-28 09:00+08:00", "2027-05-30 09:00+08:00"]),
    # a leap day every year: 28 February in common years, 29 February in leap years
    (_r(1, "year", datetime(2028, 2, 29, 7, 0, tzinfo=SH), "Asia/Shanghai"),
     ["2028-02-29 07:00+08:00", "2029-02-28 07:00+08:00", "2030-02-28 07:00+08:00", "2031-02-28 07:00+08:00",
      "2032-02-29 07:00+08:00"]),
    # every week across the year's end (ISO week 53 of 2026)
    (_r(1, "week", datetime(2026, 12, 21, 9, 0, tzinfo=SH), "Asia/Shanghai"),
     ["2026-12-21 09:00+08:00", "2026-12-28 09:00+08:00", "2027-01-04 09:00+08:00"]),
    # every Monday, Wednesday and Friday, starting on a Wednesday: the first week is partial
    (_r(1, "week", datetime(2026, 12, 2, 15, 0, tzinfo=SH), "Asia/Shanghai", days=(1, 3, 5)),
     ["2026-12-02 15:00+08:00", "2026-12-04 15:00+08:00", "2026-12-07 15:00+08:00", "2026-12-09 15:00+08:00"]),
    # weekdays, starting on a Saturday's next Monday, across the new year
    (_r(1, "week", datetime(2026, 12, 31, 7, 0, tzinfo=SH), "Asia/Shanghai", days=(1, 2, 3, 4, 5)),
     ["2026-12-31 07:00+08:00", "2027-01-01 07:00+08:00", "2027-01-04 07:00+08:00", "2027-01-05 07:00+08:00"]),
    # every 2 weeks on Tuesday and Thursday: both days of every second ISO week
    (_r(2, "week", datetime(2026, 12, 3, 10, 0, tzinfo=SH), "Asia/Shanghai", days=(2, 4)),
     ["2026-12-03 10:00+08:00", "2026-12-15 10:00+08:00", "2026-12-17 10:00+08:00", "2026-12-29 10:00+08:00"]),
    # the weekend in New York across the fall-back Sunday
    (_r(1, "week", datetime(2026, 10, 31, 9, 0, tzinfo=NY), days=(6, 7)),
     ["2026-10-31 09:00-04:00", "2026-11-01 09:00-05:00", "2026-11-07 09:00-05:00"]),
]


@pytest.mark.parametrize("rule,expected", TABLE, ids=[f"{r.unit}-{r.start:%Y%m%d}-{r.days}" for r, _ in TABLE])
def test_occurrences(rule, expected):
    got = [nth(rule, i).astimezone(rule.zone).isoformat(" ", "minutes") for i in range(len(expected))]
    assert got == expected
    # next_after walks the same sequence, from the start and from just after each occurrence
    at = rule.start - timedelta(seconds=1)
    walked = []
    for _ in expected:
        _, at = next_after(rule, at)
        walked.append(at.astimezone(rule.zone).isoformat(" ", "minutes"))
    assert walked == expected


def test_missed_occurrences_are_not_replayed():
    """Down from Monday to Thursday: the next occurrence after now is Friday's, once."""
    rule = _r(1, "day", datetime(2026, 12, 7, 8, 0, tzinfo=SH), "Asia/Shanghai")
    now = datetime(2026, 12, 10, 12, 0, tzinfo=SH)
    i, at = next_after(rule, now)
    assert (i, at) == (4, datetime(2026, 12, 11, 8, 0, tzinfo=SH))


def test_far_future_is_a_search_not_a_walk():
    rule = _r(1, "minute", datetime(2026, 1, 1, tzinfo=UTC), "UTC")
    i, at = next_after(rule, datetime(2126, 1, 1, 0, 0, 30, tzinfo=UTC))
    assert at == datetime(2126, 1, 1, 0, 1, tzinfo=UTC) and i == (at - rule.start) // timedelta(minutes=1)


@pytest.mark.parametrize("count,until,after,expected", [
    (3, None, datetime(2026, 12, 8, 9, tzinfo=SH), datetime(2026, 12, 9, 8, tzinfo=SH)),
    (3, None, datetime(2026, 12, 9, 8, tzinfo=SH), None),  # the third was the last
    (None, datetime(2026, 12, 9, 8, tzinfo=SH), datetime(2026, 12, 8, 9, tzinfo=SH), None),  # until is exclusive
    (None, datetime(2026, 12, 9, 8, 1, tzinfo=SH), datetime(2026, 12, 8, 9, tzinfo=SH),
     datetime(2026, 12, 9, 8, tzinfo=SH)),
])
def test_ends(count, until, after, expected):
    rule = _r(1, "day", datetime(2026, 12, 7, 8, 0, tzinfo=SH), "Asia/Shanghai", until=until, count=count)
    got = next_after(rule, after)
    assert (got[1] if got else None) == expected


def test_json_round_trip_and_errors():
    rule = _r(2, "week", datetime(2026, 12, 3, 10, 0, tzinfo=SH), "Asia/Shanghai", days=(2, 4), count=5)
    assert Rule.from_json(rule.to_json()) == rule
    for bad in ({"every": 0, "unit": "day", "start": "2026-12-03T10:00:00+08:00", "tz": "UTC"},
                {"every": 1, "unit": "fortnight", "start": "2026-12-03T10:00:00+08:00", "tz": "UTC"},
                {"every": 1, "unit": "day", "start": "2026-12-03T10:00:00", "tz": "UTC"},
                {"every": 1, "unit": "day", "start": "2026-12-03T10:00:00+08:00", "tz": "UTC", "days": [1]},
                {"every": 1, "unit": "week", "start": "2026-12-03T10:00:00+08:00", "tz": "UTC", "days": [8]},
                {"unit": "day"}):
        with pytest.raises(BadRule):
            Rule.from_json(bad)


@pytest.mark.parametrize("every,unit,start,days,en,zh", [
    (1, "day", datetime(2026, 12, 7, 8, tzinfo=SH), (), "every day", "每天"),
    (2, "day", datetime(2026, 12, 7, 8, tzinfo=SH), (), "every other day", "每2天"),
    (3, "day", datetime(2026, 12, 7, 8, tzinfo=SH), (), "every 3 days", "每3天"),
    (5, "minute", datetime(2026, 12, 7, 8, tzinfo=SH), (), "every 5 minutes", "每5分钟"),
    (1, "hour", datetime(2026, 12, 7, 8, tzinfo=SH), (), "every hour", "每小时"),
    (1, "week", datetime(2026, 12, 7, 9, tzinfo=SH), (), "every Monday", "每周一"),
    (1, "week", datetime(2026, 12, 7, 15, tzinfo=SH), (1, 3, 5), "every Monday, Wednesday and Friday", "每周一、三、五"),
    (1, "week", datetime(2026, 12, 7, 7, tzinfo=SH), (1, 2, 3, 4, 5), "every weekday", "每个工作日"),
    (2, "week", datetime(2026, 12, 8, 7, tzinfo=SH), (2, 4), "every other week on Tuesday and Thursday", "每2周的周二、周四"),
    (1, "month", datetime(2027, 1, 31, 9, tzinfo=SH), (), "every month on the 31st", "每月31日"),
    (1, "month", datetime(2027, 1, 22, 9, tzinfo=SH), (), "every month on the 22nd", "每月22日"),
    (1, "year", datetime(2027, 3, 1, 9, tzinfo=SH), (), "every year on 1 Mar", "每年3月1日"),
])
def test_describe(every, unit, start, days, en, zh):
    rule = _r(every, unit, start, "Asia/Shanghai", days=days)
    assert (describe(rule, "en"), describe(rule, "zh")) == (en, zh)


# an end said as a day (到月底为止, "until Friday the 18th") is kept as the midnight after it (the reminder tool turns
# RFC 5545's inclusive UNTIL into this exclusive bound): the last day's occurrence still comes, across a month's
# end, a week's end and a year's end in Asia/Shanghai
@pytest.mark.parametrize("unit,days,start,until,after,expected", [
    ("day", (), datetime(2026, 11, 28, 8, tzinfo=SH), datetime(2026, 12, 1, tzinfo=SH),
     datetime(2026, 11, 29, 9, tzinfo=SH), datetime(2026, 11, 30, 8, tzinfo=SH)),  # 到月底为止: the 30th rings
    ("day", (), datetime(2026, 11, 28, 8, tzinfo=SH), datetime(2026, 12, 1, tzinfo=SH),
     datetime(2026, 11, 30, 9, tzinfo=SH), None),  # then the series has ended
    ("week", (1, 2, 3, 4, 5), datetime(2026, 12, 4, 7, tzinfo=SH), datetime(2026, 12, 8, tzinfo=SH),
     datetime(2026, 12, 4, 8, tzinfo=SH), datetime(2026, 12, 7, 7, tzinfo=SH)),  # every weekday: over the weekend
    ("week", (1, 2, 3, 4, 5), datetime(2026, 12, 4, 7, tzinfo=SH), datetime(2026, 12, 8, tzinfo=SH),
     datetime(2026, 12, 7, 8, tzinfo=SH), None),  # until Monday the 7th
    ("week", (), datetime(2026, 12, 7, 9, tzinfo=SH), datetime(2026, 12, 19, tzinfo=SH),
     datetime(2026, 12, 8, tzinfo=SH), datetime(2026, 12, 14, 9, tzinfo=SH)),  # every Monday until Friday the 18th
    ("week", (), datetime(2026, 12, 7, 9, tzinfo=SH), datetime(2026, 12, 19, tzinfo=SH),
     datetime(2026, 12, 14, 10, tzinfo=SH), None),
    ("day", (), datetime(2026, 12, 30, 21, tzinfo=SH), datetime(2027, 1, 2, tzinfo=SH),
     datetime(2026, 12, 31, 22, tzinfo=SH), datetime(2027, 1, 1, 21, tzinfo=SH)),  # over the year's end
])
def test_an_end_day_keeps_its_own_occurrence(unit, days, start, until, after, expected):
    rule = _r(1, unit, start, "Asia/Shanghai", days=days, until=until)
    got = next_after(rule, after)
    assert (got[1] if got else None) == expected
