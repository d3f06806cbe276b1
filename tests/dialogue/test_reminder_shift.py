"""A reminder moved by an amount of time, not to a time (:func:`~hermesd.dialogue.reminders.shift_of`,
:func:`~hermesd.dialogue.reminders.shift_in`), and the topic named beside such a move (``topic_of``)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from hermesd.dialogue.reminders import moves_unnamed, revises, shift_in, shift_of, topic_of
from hermesd.nlu.normalize import normalize
from hermesd.nlu.temporal import parse_times


def _at(text: str, phrase: str) -> tuple[str, tuple[int, int]]:
    low = normalize(text).text.lower()
    i = low.find(phrase.lower())
    assert i >= 0, (low, phrase)
    return low, (i, i + len(phrase))


@pytest.mark.parametrize("text, duration, shift", [
    ("推迟半小时", "半小时", "later"), ("推迟个半小时", "半小时", "later"), ("往后推一个小时", "1个小时", "later"),
    ("晚半小时提醒我", "半小时", "later"), ("把开会的提醒推迟一小时", "1小时", "later"), ("延后20分钟", "20分钟", "later"),
    ("提前10分钟", "10分钟", "earlier"), ("喝水的提醒提早一刻钟", "1刻钟", "earlier"), ("早半小时提醒我", "半小时", "earlier"),
    ("snooze by an hour", "an hour", "later"), ("snooze it for 10 minutes", "10 minutes", "later"),
    ("delay it 15 minutes", "15 minutes", "later"), ("push it back 30 minutes", "30 minutes", "later"),
    ("postpone the dentist reminder by two hours", "two hours", "later"), ("put it off for a day", "a day", "later"),
    ("bring it forward 20 minutes", "20 minutes", "earlier"), ("move the meeting reminder up by 15 minutes", "15 minutes", "earlier"),
    # a duration that is no shift: a time from now, how long something lasts
    ("半小时后提醒我喝水", "半小时", None), ("今晚半小时", "半小时", None), ("明早半小时", "半小时", None),
    ("remind me to stretch for 10 minutes", "10 minutes", None), ("in 20 minutes remind me to call", "20 minutes", None),
    ("开会开了一个小时", "1个小时", None),
])
def test_shift_of(text: str, duration: str, shift: str | None) -> None:
    low, span = _at(text, duration)
    assert shift_of(low, span) == shift


def test_shift_in_reads_the_durations_the_nlu_found() -> None:
    ref = datetime(2031, 3, 12, 2, 0, tzinfo=timezone.utc)
    for text, shift in [("推迟半小时", "later"), ("提前一个小时", "earlier"), ("snooze it for an hour", "later"),
                        ("下午三点提醒我开会", None), ("半小时后提醒我喝水", None)]:
        times = parse_times(text, ref, "Asia/Shanghai")
        assert shift_in(text, times) == shift, (text, times)


@pytest.mark.parametrize("text, duration, topic", [
    ("把开会的提醒推迟一小时", "1小时", "开会"), ("喝水的提醒提前10分钟", "10分钟", "喝水"), ("再提前10分钟", "10分钟", None),
    ("把开会的提醒再推迟10分钟", "10分钟", "开会"), ("推迟半小时", "半小时", None),
    ("push the dentist reminder back an hour", "an hour", "dentist"),
    ("postpone the dentist reminder by two hours", "two hours", "dentist"),
    ("bring the meeting reminder forward 20 minutes", "20 minutes", "meeting"), ("snooze it for 10 minutes", "10 minutes", None),
    ("把它推迟半小时", "半小时", None), ("push back the plants reminder by an hour and a half", "an hour and a half", "plants"),
    # a discourse marker before the move names no reminder ("那" was read as the topic: NOT_FOUND)
    ("那提前一小时", "1小时", None), ("那就推迟十分钟", "10分钟", None), ("好，再提前5分钟", "5分钟", None),
    ("那把开会的提醒推迟半小时", "半小时", "开会"),
    ("12 hours earlier then", "12 hours", None), ("and another 15 minutes earlier", "15 minutes", None),
    ("ok push the dentist reminder back another hour please", "hour", "dentist"),
])
def test_the_topic_beside_a_shift(text: str, duration: str, topic: str | None) -> None:
    low, span = _at(text, duration)
    assert topic_of(low, [span], shifted=True) == topic


def test_a_topic_with_a_shift_word_inside_is_kept_when_nothing_shifts() -> None:
    assert topic_of("取消吃晚饭的提醒") == "吃晚饭"
    assert topic_of("取消早会的提醒") == "早会"


@pytest.mark.parametrize("text, time_text, want", [
    ("make it 10 minutes earlier", "10 minutes earlier", ("earlier", "10 minutes")),
    ("make it 15 minutes later", "15 minutes later", ("later", "15 minutes")),
    ("no, make it half an hour later", "half an hour later", ("later", "half an hour")),
    ("remind me an hour later instead", "an hour later", ("later", "an hour")),
    ("make it a day later", "a day later", ("later", "a day")),
    ("move the plants reminder 1.5 hours earlier", "1.5 hours earlier", ("earlier", "1.5 hours")),
    # a lead or a tail that links the move to the talk (a review: each set a reminder called "another" or asked what)
    ("12 hours earlier then", "12 hours earlier", ("earlier", "12 hours")),
    ("then an hour earlier", "an hour earlier", ("earlier", "an hour")),
    ("an hour earlier please", "an hour earlier", ("earlier", "an hour")),
    ("and another 15 minutes earlier", "15 minutes earlier", ("earlier", "15 minutes")),
    # a task beside the time: a new reminder that long from now; no amount: no move
    ("remind me to call mom 2 hours later", "2 hours later", None),
    ("call me later", "later", None),
])
def test_relative_shift(text: str, time_text: str, want) -> None:
    from hermesd.dialogue.reminders import relative_shift

    a = text.index(time_text)
    assert relative_shift(text, time_text, (a, a + len(time_text))) == want


@pytest.mark.parametrize("text, want", [
    ("推迟", "later"), ("推迟一会儿", "later"), ("把它推迟一下", "later"), ("往后推一推", "later"), ("提前一点", "earlier"),
    ("snooze", "later"), ("snooze it", "later"), ("postpone it", "later"), ("delay it a bit", "later"),
    ("bring it forward", "earlier"),
    ("推迟开会", None), ("snooze the alarm on my phone", None), ("晚点提醒我", None), ("推迟半小时", None),
    # a reminder named beside the verb: asked by how much, never cancelled
    ("push back the call mom reminder", "later"), ("put off the bank reminder", "later"), ("delay the dentist reminder", "later"),
    ("把收衣服的提醒推迟", "later"), ("收衣服的提醒往后推一下", "later"), ("把取快递的提醒延后", "later"),
    ("delay the shipment", None), ("put off the meeting", None),
])
def test_bare_shift(text: str, want) -> None:
    from hermesd.dialogue.reminders import bare_shift

    assert bare_shift(normalize(text).text) == want


@pytest.mark.parametrize("text, moves", [
    ("挪到周五", True), ("那就改到下周一中午吧", True), ("推迟到周五", True), ("把它推迟到晚上", True), ("换到下周三晚上", True),
    ("move it to thursday evening", True), ("can you move it to march 20 instead", True), ("postpone it to the weekend", True),
    # the thing that moves is named, or the verb is a task's: no move of a reminder left unsaid
    ("会议挪到周五", False), ("明天提醒我改到周五", False), ("remind me to move the car at 4pm", False), ("改天再说", False),
])
def test_a_verb_of_moving_with_the_thing_unsaid(text: str, moves: bool) -> None:
    assert moves_unnamed(normalize(text).text.lower()) is moves


@pytest.mark.parametrize("text, topic", [("还是改到后天吧", None), ("取消它", None), ("算了，不用提醒了", None), ("把提醒都取消了", None),
                                         ("能不能改到下周三", None), ("ok then friday", None), ("取消喝水的提醒", "喝水")])
def test_words_of_the_talk_name_no_reminder(text: str, topic: str | None) -> None:
    """"没有关于“还”的待办提醒" (a review): what is left of 还是 / 算了 / 它 / 都 once the request's words are out."""
    low = normalize(text).text.lower()
    spans = [tuple(x.span) for x in parse_times(text, datetime(2031, 3, 12, 6, tzinfo=timezone.utc), "Asia/Shanghai")]
    assert topic_of(low, [normalize(text).nspan(*sp) for sp in spans]) == topic


@pytest.mark.parametrize("text, revised", [("那就周五吧", True), ("还是下周一中午吧", True), ("ok then friday", True),
                                           ("friday instead", True), ("actually 5pm", True), ("周五下午", False), ("at 6pm", False)])
def test_a_word_of_revision_beside_a_time_said_alone(text: str, revised: bool) -> None:
    assert revises(normalize(text).text) is revised

