"""The request clause's time wins over a context time, and a repair of only the time just set — zh and en
(:mod:`hermesd.dialogue.clauses`, :func:`hermesd.dialogue.reminders.time_repair`, :func:`hermesd.nlu.task.task_text`)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from hermesd.dialogue.clauses import clause_spans, request_times
from hermesd.dialogue.reminders import time_repair
from hermesd.nlu.task import strip_request
from hermesd.nlu.temporal import parse_times

ZONE = ZoneInfo("Asia/Shanghai")
REF = datetime(2030, 6, 19, 10, tzinfo=ZONE)
REMIND = ["提醒", "提醒我", "别忘了", "remind", "reminder", "don't forget"]
SEND = ["发给", "发送", "send", "email"]


@pytest.mark.parametrize("text, keywords, first, context", [
    # the request clause (its verb) holds the time the request is about; the other is context
    ("昨天开会的时候老板说了，明天下午三点提醒我交报告", REMIND, "明天下午三点", ["昨天开会的时候老板说了"]),
    ("I was at the dentist yesterday, remind me tomorrow at 3 to call her", REMIND, "tomorrow at 3",
     ["I was at the dentist yesterday"]),
    ("上周五客户来过电话，下周一上午提醒我回电话", REMIND, "下周一上午", ["上周五客户来过电话"]),
    ("we met last Monday so remind me on Friday to follow up", REMIND, "Friday", ["we met last Monday"]),
    ("昨天王芳说了，明天上午把报价单发给她", SEND, "明天上午", ["昨天王芳说了"]),
    # nothing changes: one clause, one time, a time-only clause, or no clause carries the verb
    ("明天下午三点提醒我交报告", REMIND, "明天下午三点", []),
    ("明天下午三点，提醒我交报告", REMIND, "明天下午三点", []),
    ("remind me tomorrow at 9, I saw her yesterday", REMIND, "tomorrow at 9", ["I saw her yesterday"]),
    ("昨天和明天都下雨", REMIND, "昨天", []),
    ("昨天老板提醒过，明天提醒我交报告", REMIND, "昨天", []),  # two clauses carry the verb: no guess
])
def test_the_request_clause_s_time_comes_first(text, keywords, first, context):
    times = parse_times(text, REF, ZONE)
    got = request_times(text, [t.span for t in times], keywords)
    assert times[got.order[0]].text == first
    assert sorted(got.order) == list(range(len(times)))
    assert [text[a:b] for a, b in got.context] == context


def test_clauses_are_cut_at_punctuation_and_conjunctions():
    assert clause_spans("a, b; c so d") == [(0, 1), (3, 4), (6, 7), (11, 12)]
    assert clause_spans("  ") == []


@pytest.mark.parametrize("text, context, task", [
    ("昨天开会的时候老板说了，明天下午三点提醒我交报告", ["昨天开会的时候老板说了"], "交报告"),
    ("I was at the dentist yesterday, remind me tomorrow at 3 to call her", ["I was at the dentist yesterday"],
     "call her"),
])
def test_a_context_clause_is_no_part_of_the_task(text, context, task):
    times = parse_times(text, REF, ZONE)
    spans = [(text.index(c), text.index(c) + len(c)) for c in context]
    assert strip_request(text, [*(t.span for t in times), *spans]) == task


@pytest.mark.parametrize("text, task", [
    ("actually remind me tomorrow at 9 to call mom", "call mom"),
    ("remind me to actually call mom", "call mom"),
    ("so remind me to call mom", "call mom"),
    ("其实明天提醒我开会", "开会"),
    ("remind me to call Sophie so she knows", "call Sophie so she knows"),  # inside the task it stays
])
def test_discourse_words_are_not_the_task(text, task):
    times = parse_times(text, REF, ZONE)
    assert strip_request(text, [t.span for t in times]) == task


@pytest.mark.parametrize("text, new, hour", [
    # zh (kept): a contrast, a bare repair after an editing term or a lead
    ("不是9点，是10点", "10点", False), ("不对，是十点", "十点", False), ("我是说十点", "十点", False),
    ("不对，是10点", "10点", False), ("十点，不是九点", "十点", False), ("不是明天，是后天", "后天", False),
    ("改成10点", "10点", False), ("我的意思是十点", "十点", False), ("不对，是10", "10", True),
    # en: the repair first or last, a lead, an editing term; a bare hour is the clock hour
    ("no, 10 not 9", "10", True), ("10, not 9", "10", True), ("not 9, 10", "10", True),
    ("no, not 9 but 10", "10", True), ("I meant 10am", "10am", False), ("make that 10", "10", True),
    ("make it 4pm instead", "4pm", False), ("actually 10 o'clock", "10 o'clock", False), ("actually, 10", "10", True),
    ("no wait, 10", "10", True), ("no, make it 8am", "8am", False),
])
def test_a_repair_of_only_the_time(text, new, hour):
    times = [t.text for t in parse_times(text, REF, ZONE)]
    got = time_repair(text, times)
    assert got is not None and text[got.start:got.end] == new and got.hour is hour


@pytest.mark.parametrize("text", [
    "不是王芳，是李娜", "是10点的会", "10", "10点", "no", "actually cancel that", "no, the one to Zhang",
    "make it the quote", "I meant Li Na", "不对，是李娜", "10 nothing",
])
def test_not_a_time_repair(text):
    assert time_repair(text, [t.text for t in parse_times(text, REF, ZONE)]) is None


@pytest.mark.parametrize("text, spelled", [
    ("make that 10", "make that at 10"), ("no, 10 not 9", "no, at 10 not 9"), ("不对，是10", "不对，是10点"),
])
def test_a_bare_hour_is_spelled_as_a_clock_time(text, spelled):
    got = time_repair(text, [])
    assert got is not None and got.spelled(text) == spelled
    again = time_repair(spelled, [t.text for t in parse_times(spelled, REF, ZONE)])
    assert again is not None and not again.hour  # read again, it is a time phrase


@pytest.mark.parametrize("text, subject, value", [
    ("my wife's name is actually anna", "wife's name", "anna"),
    ("actually, my son's name is leo", "son's name", "leo"),
    ("remember that my pin is actually 1234", "pin", "1234"),
    ("well, remember the wifi password is abc", "wifi password", "abc"),
    ("记住我的车牌号其实是京A12345", "我的车牌号", "京A12345"),
    ("my wife's name is anna", "wife's name", "anna"),
])
def test_discourse_words_are_no_part_of_a_stored_value(text, subject, value):
    from hermesd.memory.facts import read_request
    req = read_request(text)
    assert req is not None and req.intent == "memory.remember" and (req.subject, req.value) == (subject, value)
