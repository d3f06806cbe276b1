"""What a new user tried in review 8, table-tested on the pure engines (zh and en):

- a reminder named by its topic (:func:`~hermesd.dialogue.reminders.topic_of`), a request to move one
  (:func:`~hermesd.dialogue.reminders.asks_change`) and a repair of only its time (``corrects_time``);
- a meal after an eating verb is no time (明天提醒我吃晚饭); 晚饭时 / 午饭后 stay times;
- 合同发给谁了 / "who did I send the contract to" is a question about the past;
- a second request joined by a conjunction is split;
- a kind mistyped by one character (报家单) is found as a question, never a guess;
- a fact's subject in either language (生日 / birthday).
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from hermesd.dialogue.lastaction import asks_if_done
from hermesd.dialogue.reminders import asks_change, corrects_time, names_half_day, topic_of
from hermesd.dialogue.split import names_day, split_requests
from hermesd.dialogue.typos import near_name
from hermesd.memory.facts import concepts
from hermesd.nlu.normalize import normalize
from hermesd.nlu.temporal import parse_times

SH = ZoneInfo("Asia/Shanghai")


@pytest.mark.parametrize("text,topic", [
    ("取消喝水的提醒", "喝水"), ("删掉那个吃药的提醒", "吃药"), ("不用提醒我开会了", "开会"), ("删除买牛奶的提醒", "买牛奶"),
    ("cancel the dentist reminder", "dentist"), ("delete the reminder about the meeting", "meeting"),
    ("turn off the reminder to call mom", "call mom"), ("I don't need the dentist reminder anymore", "dentist"),
    ("把开会的提醒改到明天下午3点", "开会"), ("move the meeting reminder to 4pm", "meeting"),
    ("取消那个提醒", None), ("cancel that", None), ("actually cancel that", None), ("取消所有提醒", None),
    ("cancel all my reminders", None), ("刚才那个提醒不要了", None),
])
def test_the_topic_a_reminder_is_named_by(text, topic):
    n = normalize(text)
    times = parse_times(text, ref=datetime(2030, 6, 19, 10, 0, tzinfo=SH), tz="Asia/Shanghai")
    assert topic_of(n.text, [n.nspan(*t.span) for t in times]) == topic


@pytest.mark.parametrize("text,yes", [
    ("把开会的提醒改到明天下午3点", True), ("move the meeting reminder to 4pm", True), ("提醒改到10点", True),
    ("喝水的提醒提前到8点", True), ("reschedule my dentist reminder to friday", True),
    ("明天下午3点提醒我开会", False), ("remind me to move the car at 4pm", False), ("取消喝水的提醒", False),
])
def test_a_request_to_move_a_reminder(text, yes):
    assert asks_change(normalize(text).text) is yes


@pytest.mark.parametrize("text,times,yes", [
    ("不是9点，是10点", ["9点", "10点"], True), ("不是明天，是后天", ["明天", "后天"], True), ("改成10点", ["10点"], True),
    ("no, make it 8am", ["8am"], True), ("不是王芳，是李娜", [], False), ("是10点的会", ["10点"], False),
    ("明天10点提醒我开会", ["明天10点"], False),
])
def test_a_repair_of_only_the_time(text, times, yes):
    assert corrects_time(text, times) is yes


@pytest.mark.parametrize("text,day,half", [("10点", False, False), ("明天", True, False), ("下午3点", False, True),
                                           ("4pm", False, True), ("on friday", True, False), ("15:00", False, True)])
def test_what_a_new_time_names(text, day, half):
    assert names_day(text) is day and names_half_day(text) is half


@pytest.mark.parametrize("text,times", [
    ("明天提醒我吃晚饭", ["明天"]), ("明天提醒我吃午饭", ["明天"]), ("remind me to have lunch tomorrow", ["tomorrow"]),
    ("晚饭时提醒我打电话", ["晚饭"]), ("午饭后提醒我散步", ["午饭"]), ("吃晚饭的时候提醒我", ["晚饭"]),
    ("remind me after I have lunch", ["lunch"]), ("吃完晚饭提醒我洗碗", ["晚饭"]),
])
def test_a_meal_eaten_is_the_topic_not_the_time(text, times):
    ref = datetime(2030, 6, 19, 10, 0, tzinfo=SH)
    assert [t.text for t in parse_times(text, ref=ref, tz="Asia/Shanghai")] == times


@pytest.mark.parametrize("text,yes", [
    ("合同发给谁了", True), ("合同发给了谁", True), ("报价单是发给谁的", True), ("who did I send the contract to", True),
    ("who was the contract sent to", True), ("who got the quote", True),
    ("把合同发给谁", False), ("合同要发给谁", False), ("合同应该发给谁", False), ("who should get the contract", False),
])
def test_to_whom_it_went_is_a_question_about_the_past(text, yes):
    assert asks_if_done(normalize(text).text) is yes


@pytest.mark.parametrize("text,parts", [
    ("重启nginx，并且把报价单发给王芳", ["重启nginx", "把报价单发给王芳"]),
    ("restart nginx and send the quote to Wang Fang", ["restart nginx", "send the quote to Wang Fang"]),
    ("发给李娜，还有王芳", ["发给李娜，还有王芳"]),
])
def test_a_second_request_joined_by_a_conjunction_is_split(text, parts):
    assert split_requests(text) == parts


KINDS = {"报价单": "quote", "报价": "quote", "quote": "quote", "合同": "contract", "contract": "contract", "说明书": "manual",
         "采购单": "purchase_order", "周报": "weekly_report"}


@pytest.mark.parametrize("text,near", [
    ("把报家单发给王芳", ("报家单", "报价单")), ("send the qoute to wang fang", ("qoute", "quote")),
    ("把说名书发给王芳", ("说名书", "说明书")), ("send the contarct to li na", ("contarct", "contract")),
    ("把报价单发给王芳", None), ("重启nginx", None), ("明天提醒我开会", None), ("发给王芳", None),
])
def test_a_kind_mistyped_by_one_character(text, near):
    assert near_name(text, KINDS) == near


@pytest.mark.parametrize("a,b,same", [
    ("我女儿的生日", "my daughter's birthday", True), ("我的电话", "my phone number", True), ("我的地址", "my address", True),
    ("邮箱密码", "my email password", True), ("我女儿的生日", "my son's birthday", False), ("张伟的电话", "my phone", False),
])
def test_a_fact_subject_in_either_language(a, b, same):
    ca, cb = concepts(a), concepts(b)
    assert (ca is not None and ca == cb) is same
