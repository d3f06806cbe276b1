"""A time said alone, a request to stop being reminded (pure engines, zh and en):

- :func:`~hermesd.dialogue.whenjoin.time_alone`: the utterance is a time and the particles / leads around one;
- :func:`~hermesd.dialogue.whenjoin.clock_left_open`: the request just done named a day but no clock time;
- :func:`~hermesd.dialogue.reminders.stops_reminding` and the topic it names (:func:`~hermesd.dialogue.reminders.topic_of`).
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from hermesd.dialogue.reminders import stops_reminding, topic_of
from hermesd.dialogue.whenjoin import clock_left_open, names_clock, time_alone
from hermesd.nlu.normalize import normalize
from hermesd.nlu.temporal import parse_times

SH = ZoneInfo("Asia/Shanghai")
REF = datetime(2030, 6, 19, 10, 0, tzinfo=SH)


def _alone(text: str) -> bool:
    return time_alone(text, [sp for x in parse_times(text, REF, SH) for sp in x.spans])


@pytest.mark.parametrize("text", [
    "十点", "上午十点", "十点吧", "下午三点呢", "就十点吧", "那就下午三点", "在十点", "3点半吧", "明天下午3点", "后天", "十点左右",
    "at 6pm", "6pm", "at 10 please", "um, 3pm?", "how about 6pm", "tomorrow at 6pm", "around 9am", "ok, at 5pm then",
])
def test_a_time_and_its_particles_is_a_time_alone(text):
    assert _alone(text), text


@pytest.mark.parametrize("text", [
    "十点开会", "十点提醒我开会", "十点关机", "明天下午3点重启设备", "下午三点发给王芳",
    "at 6pm call mom", "shut down at 10", "remind me at 6pm", "restart at 3pm", "that 6pm", "你好", "cancel",
])
def test_any_other_word_makes_it_a_request(text):
    assert not _alone(text), text


def _times(text: str) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for x in parse_times(text, REF, SH):
        out.setdefault("recurrence" if x.kind == "recurrence" else "datetime", []).append(x.to_dict())
    return out


@pytest.mark.parametrize("said,open_", [
    ("后天", True), ("后天上午", True), ("周五", True), ("每周一", True), ("tomorrow", True), ("next friday", True),
    ("明天九点", False), ("后天下午3点", False), ("每天早上8点", False), ("tomorrow at 6pm", False), ("", False),
])
def test_a_request_that_named_a_day_but_no_clock_time_left_it_open(said, open_):
    assert clock_left_open(_times(said)) is open_


@pytest.mark.parametrize("said,clock", [("十点", True), ("3点半", True), ("at 6pm", True), ("上午", False), ("明天", False)])
def test_a_clock_time_is_an_hour_or_finer(said, clock):
    (x,) = parse_times(said, REF, SH)
    assert names_clock(x.to_dict()) is clock


@pytest.mark.parametrize("text,topic", [
    ("别再提醒我吃药了", "吃药"), ("不用再提醒我吃药了", "吃药"), ("不要再提醒我喝水了", "喝水"), ("以后别提醒我喝水了", "喝水"),
    ("吃药的事不用再提醒我了", "吃药"), ("我不需要你再提醒我喝水了", "喝水"), ("不用提醒我开会了", "开会"),
    ("stop reminding me to take my pills", "take pills"), ("please stop reminding me to call mom", "call mom"),
    ("don't remind me to take my pills anymore", "take pills"), ("quit reminding me about the dentist", "dentist"),
    ("you can stop reminding me about the pills", "pills"), ("no more reminders about the pills", "pills"),
    ("i don't need to be reminded to drink water anymore", "drink water"),
])
def test_a_request_to_stop_being_reminded_names_its_topic(text, topic):
    t = normalize(text).text.lower()
    assert stops_reminding(t), text
    assert topic_of(t) == topic


@pytest.mark.parametrize("text", [
    "别忘了提醒我吃药", "提醒我别再吃糖了", "明天提醒我不要迟到", "要不要提醒我吃药", "不用提醒我吗？", "remind me to stop smoking",
    "don't forget to remind me to call mom", "remind me to stop by the bank", "提醒我吃药",
])
def test_no_stop_is_read_where_none_is_said(text):
    assert not stops_reminding(normalize(text).text.lower()), text


def test_a_tentative_question_keeps_its_mark_in_the_session_row():
    from hermesd.dialogue.questions import Ask, from_dict, to_dict

    q = Ask(intent="reminder.set", rule_id="reminder.set.ask_task", index=0, slot="task", entity="task", tentative=True)
    assert from_dict(to_dict(q)).tentative is True
    assert from_dict({k: v for k, v in to_dict(q).items() if k != "tentative"}).tentative is False  # an older row


@pytest.mark.parametrize("day,clock,start", [
    ("后天", "3点半", "2030-06-21T15:30:00+08:00"),  # an hour said with a day: 1–6 is the afternoon
    ("后天", "上午十点", "2030-06-21T10:00:00+08:00"),
    ("后天上午", "十点", "2030-06-21T10:00:00+08:00"),
    ("周五", "八点", "2030-06-21T08:00:00+08:00"),
    ("tomorrow", "6pm", "2030-06-20T18:00:00+08:00"),
    ("friday", "2pm", "2030-06-21T14:00:00+08:00"),
])
def test_a_clock_time_alone_goes_on_the_day_said_before(day, clock, start):
    from hermesd.dialogue.whenjoin import clock_on_day

    (d,), (c,) = parse_times(day, REF, SH), parse_times(clock, REF, SH)
    assert clock_on_day(d.to_dict(), c.to_dict(), REF, SH)["start"] == start


def test_no_clock_goes_on_a_day_when_either_is_not_one():
    from hermesd.dialogue.whenjoin import clock_on_day

    (d,), (c,) = parse_times("明天", REF, SH), parse_times("十点", REF, SH)
    assert clock_on_day(c.to_dict(), d.to_dict(), REF, SH) is None and clock_on_day(d.to_dict(), d.to_dict(), REF, SH) is None
