"""Recurrences as people say them (zh, en): the clock time in any position, sets of weekdays, and an end
(RFC 5545 UNTIL) said anywhere in the utterance — read by :func:`hermesd.nlu.temporal.parse_times`; the task is
what :func:`hermesd.nlu.task.strip_request` leaves once every part of the time is out.

The reference instants are in Asia/Shanghai: Thursday 3 December 2026 10:00 (a month's last week), Sunday
29 November 2026 22:00 (a week's last hour, a month's second-last day) and Monday 30 November 2026 10:00 (a
month's last day).
"""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from hermesd.nlu.task import strip_request
from hermesd.nlu.temporal import parse_times

SH = ZoneInfo("Asia/Shanghai")
THU = datetime(2026, 12, 3, 10, 0, tzinfo=SH)
SUN_NIGHT = datetime(2026, 11, 29, 22, 0, tzinfo=SH)
MON_LAST = datetime(2026, 11, 30, 10, 0, tzinfo=SH)


def _one(text: str, ref: datetime):
    found = [x for x in parse_times(text, ref, SH) if x.kind == "recurrence"]
    assert len(found) == 1, [(x.kind, x.text) for x in parse_times(text, ref, SH)]
    x = found[0]
    task = strip_request(text, [sp for t in parse_times(text, ref, SH) for sp in t.spans])
    return x, task


@pytest.mark.parametrize("text,ref,every,days,start,task", [
    # the clock time after, before, or apart from the recurrence in the same clause
    ("set a daily reminder at 8am to stretch", THU, (1.0, "day"), None, "2026-12-04T08:00:00+08:00", "stretch"),
    ("at 8am every day remind me to stretch", THU, (1.0, "day"), None, "2026-12-04T08:00:00+08:00", "stretch"),
    ("every day remind me at 7:30 am to stretch", THU, (1.0, "day"), None, "2026-12-04T07:30:00+08:00", "stretch"),
    ("remind me daily at 9pm to lock the door", THU, (1.0, "day"), None, "2026-12-03T21:00:00+08:00", "lock the door"),
    ("早上八点每天提醒我吃药", THU, (1.0, "day"), None, "2026-12-04T08:00:00+08:00", "吃药"),
    ("每天提醒我早上八点吃药", THU, (1.0, "day"), None, "2026-12-04T08:00:00+08:00", "吃药"),
    ("每天早上八点提醒我吃药", THU, (1.0, "day"), None, "2026-12-04T08:00:00+08:00", "吃药"),
    # a day with its clock time said apart from it
    ("每周五提醒我下午四点交周报", THU, (1.0, "week"), None, "2026-12-04T16:00:00+08:00", "交周报"),
    ("every Friday remind me at 4pm to send the report", THU, (1.0, "week"), None, "2026-12-04T16:00:00+08:00",
     "send the report"),
    ("每个月15号提醒我上午十点交房租", THU, (1.0, "month"), None, "2026-12-15T10:00:00+08:00", "交房租"),
    ("每周一三五提醒我晚上八点跑步", THU, (1.0, "week"), (1, 3, 5), "2026-12-04T20:00:00+08:00", "跑步"),
    # sets of weekdays, English as Chinese
    ("every weekday at 7am take my pills", THU, (1.0, "week"), (1, 2, 3, 4, 5), "2026-12-04T07:00:00+08:00",
     "take my pills"),
    ("remind me on weekdays at 7 to run", THU, (1.0, "week"), (1, 2, 3, 4, 5), "2026-12-04T07:00:00+08:00", "run"),
    ("remind me every Monday and Thursday at 9am to swim", THU, (1.0, "week"), (1, 4), "2026-12-07T09:00:00+08:00",
     "swim"),
    ("on Tuesdays and Fridays at 6pm remind me to call dad", THU, (1.0, "week"), (2, 5), "2026-12-04T18:00:00+08:00",
     "call dad"),
    ("every Monday through Wednesday at 8am remind me to open the shop", THU, (1.0, "week"), (1, 2, 3),
     "2026-12-07T08:00:00+08:00", "open the shop"),
    ("remind me on weekends at 10am to water the garden", THU, (1.0, "week"), (6, 7), "2026-12-05T10:00:00+08:00",
     "water the garden"),
    ("每个工作日早上七点提醒我吃药", THU, (1.0, "week"), (1, 2, 3, 4, 5), "2026-12-04T07:00:00+08:00", "吃药"),
    # a week's end: Sunday night, the next weekday is Monday
    ("every weekday at 7am remind me to take my pills", SUN_NIGHT, (1.0, "week"), (1, 2, 3, 4, 5),
     "2026-11-30T07:00:00+08:00", "take my pills"),
    ("每个工作日早上七点提醒我打卡", SUN_NIGHT, (1.0, "week"), (1, 2, 3, 4, 5), "2026-11-30T07:00:00+08:00", "打卡"),
])
def test_a_recurrence_takes_its_clock_time_wherever_it_is_said(text, ref, every, days, start, task):
    x, got_task = _one(text, ref)
    assert (x.every, x.days, x.start.isoformat()) == (every, days, start), x
    assert x.until is None
    assert got_task == task


@pytest.mark.parametrize("text,ref,start,until,task", [
    ("remind me to call the team every Monday at 9 until Friday the 18th", THU, "2026-12-07T09:00:00+08:00",
     date(2026, 12, 18), "call the team"),
    ("every Monday at 9 until Friday the 18th remind me to call the team", THU, "2026-12-07T09:00:00+08:00",
     date(2026, 12, 18), "call the team"),
    ("remind me every day at 8am until December 20 to take my pills", THU, "2026-12-04T08:00:00+08:00",
     date(2026, 12, 20), "take my pills"),
    ("每天早上八点提醒我吃药，到月底为止", THU, "2026-12-04T08:00:00+08:00", date(2026, 12, 31), "吃药"),
    ("每天早上八点到月底提醒我吃药", THU, "2026-12-04T08:00:00+08:00", date(2026, 12, 31), "吃药"),
    ("每天晚上九点提醒我吃药，截止到12月18号", THU, "2026-12-03T21:00:00+08:00", date(2026, 12, 18), "吃药"),
    ("每周一三五晚上八点提醒我跑步直到下周五", THU, "2026-12-04T20:00:00+08:00", date(2026, 12, 11), "跑步"),
    # the last day of a month: 到月底为止 is today, its evening still comes
    ("每天晚上九点提醒我吃药，到月底为止", MON_LAST, "2026-11-30T21:00:00+08:00", date(2026, 11, 30), "吃药"),
    # 1月底 said in December is the coming January (a year's end)
    ("每周一早上九点提醒我开周会，持续到1月底", THU, "2026-12-07T09:00:00+08:00", date(2027, 1, 31), "开周会"),
])
def test_a_recurrence_ends_on_the_day_said(text, ref, start, until, task):
    x, got_task = _one(text, ref)
    assert x.start.isoformat() == start and x.until == until, x
    assert x.to_dict()["until"] == until.isoformat()
    assert got_task == task


def test_an_end_at_a_clock_time_is_that_instant_and_every_hour_takes_no_far_clock():
    x, task = _one("every hour until 5pm remind me to drink water", THU)
    assert x.every == (1.0, "hour") and x.start is None and x.until == datetime(2026, 12, 3, 17, 0, tzinfo=SH)
    assert task == "drink water"
    x, task = _one("每隔两小时提醒我喝水，到晚上十点为止", THU)
    assert x.every == (2.0, "hour") and x.until == datetime(2026, 12, 3, 22, 0, tzinfo=SH) and task == "喝水"


@pytest.mark.parametrize("text", [
    "每天早上8点到10点之间提醒我喝水",  # a range of clock times, every day: no end
    "remind me every day at 8am to take my pills",
    "每周一三五下午3点提醒我开会",
])
def test_no_end_is_read_where_none_is_said(text):
    x, _ = _one(text, THU)
    assert x.until is None and "until" not in x.to_dict()


def test_a_clock_in_another_clause_is_not_the_recurrence_s():
    """"明天下午三点…, 每天…": a one-off time of its own clause stays a one-off."""
    found = parse_times("remind me at 3pm, and every day to drink water", THU, SH)
    kinds = sorted(x.kind for x in found)
    assert "recurrence" in kinds
    rec = next(x for x in found if x.kind == "recurrence")
    assert rec.start is None, rec
