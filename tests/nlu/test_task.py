"""The task of a request in the user's words (hermesd.nlu.task): trigger words, the time phrase and
its joining words go; the script, width and casing of what is left stay as typed."""

from datetime import datetime

import pytest

from hermesd.nlu.task import strip_request, task_text
from hermesd.nlu.temporal import parse_times

from .conftest import SH

REF = datetime(2026, 11, 25, 10, 0, tzinfo=SH)  # a Wednesday

CASES = [
    # zh: trigger before the task, time phrase anywhere
    ("提醒我后天上午给王会计回电话", "给王会计回电话"),
    ("明天下午三点提醒我开会", "开会"),
    ("提醒我周五交报告", "交报告"),
    ("记得提醒我买牛奶", "买牛奶"),
    ("别忘了提醒我下午给张工打电话", "给张工打电话"),
    ("帮我设个提醒，晚上八点吃药", "吃药"),
    ("设置一个提醒，晚上8点吃药", "吃药"),
    ("半小时后提醒我给客户回电话", "给客户回电话"),
    ("下周一早上九点提醒我去银行", "去银行"),
    ("3天后提醒我续费", "续费"),
    ("今晚提醒我发周报", "发周报"),
    ("请在明天下午3点提醒我开会", "开会"),
    ("提醒我明天在公司开会", "在公司开会"),  # 在 after the time belongs to the task
    ("明天早上7点叫我起床", "起床"),
    ("提醒我叫我妈明天回电话", "叫我妈回电话"),  # with a strong trigger, 叫我 is part of the task
    ("提醒我一下，周五之前交报告哦", "交报告"),
    ("别让我忘了明天交报告", "交报告"),
    ("麻烦提醒我6月1日续签合同，谢谢", "续签合同"),
    ("提醒我明天的时候带伞", "带伞"),
    ("于下周三提醒我体检", "体检"),
    ("提醒我给Tom发邮件", "给Tom发邮件"),
    # a weak trigger that leads the request, the time phrase between it and the strong one
    ("别忘了下周一早上八点提醒我去银行办公积金", "去银行办公积金"),
    ("记得明天上午提醒我给供应商打电话", "给供应商打电话"),
    ("提醒我明天记得带伞", "带伞"),
    # zh Traditional and full-width: matched on the normalised text, cut from the original
    ("提醒我後天上午給王會計回電話", "給王會計回電話"),
    ("別讓我忘了明天交報告", "交報告"),
    ("記得提醒我週五繳費", "繳費"),
    ("幫我設個提醒，明天下午３點開會", "開會"),
    ("提醒我１０分钟后关火", "关火"),
    # en
    ("remind me on Friday to book the room", "book the room"),
    ("remind me to call mom tomorrow at 5pm", "call mom"),
    ("remind me on Friday to submit the report", "submit the report"),
    ("remind me to call the client at 3pm", "call the client"),
    ("remind me in 2 hours to check the oven", "check the oven"),
    ("remind me next Monday to pay the rent", "pay the rent"),
    ("create a reminder to send the report on Friday", "send the report"),
    ("don't let me forget the meeting at 10", "the meeting"),
    ("set a reminder to take my medicine tonight", "take my medicine"),
    ("remind me about the dentist appointment", "the dentist appointment"),
    ("remind me to renew the license in 3 days", "renew the license"),
    ("set reminder call mom", "call mom"),
    ("Please remind me to Call Mom at 6pm, thanks", "Call Mom"),
    ("can you remind me tomorrow that the rent is due", "the rent is due"),
    ("Remind me at 9:30 to email Dr. Chen", "email Dr. Chen"),
    ("tomorrow at 9 remember to remind me to water the plants", "water the plants"),
    ("remind me by Friday to file the TPS report", "file the TPS report"),
    ("Reminder: pick up the kids at 4pm", "pick up the kids"),
    ("ｒｅｍｉｎｄ ｍｅ ｔｏ ｃａｌｌ Ｍｏｍ ｔｏｍｏｒｒｏｗ", "ｃａｌｌ Ｍｏｍ"),
    # a time connective (前/之前/以前, before/by) belongs to the time phrase, never to the task
    ("月底前提醒我交报告", "交报告"),
    ("周五前提醒我交报告", "交报告"),
    ("提醒我下周一以前续签合同", "续签合同"),
    ("提醒我明天前台取快递", "前台取快递"),  # 前台 is a word of its own: the task keeps it
    ("提醒我明天前往上海", "前往上海"),
    ("remind me to submit the report before friday", "submit the report"),
    ("remind me to pay rent by the end of the month", "pay rent"),
    # nothing but the request and the time: no task
    ("帮我设个提醒", None),
    ("明天提醒我", None),
    ("两小时后叫我", None),
    ("到时候叫我", None),
    ("set a reminder for tomorrow morning", None),
    ("add a reminder for 5 pm", None),
    ("ping me in 30 minutes", None),
    ("remind me tomorrow", None),
    # a trigger word typed a letter off is still the trigger; the task's own words are kept as typed
    ("remnd me at 5pm to cal the bank", "cal the bank"),
    ("set a remider for friday to pay the rent", "pay the rent"),
    ("remind me to pack the remnants", "pack the remnants"),
]


@pytest.mark.parametrize("text,task", CASES)
def test_task_of_a_request(text, task):
    spans = [x.span for x in parse_times(text, REF, SH)]
    assert strip_request(text, spans) == task


def test_enough_cases_in_both_languages():
    zh = [t for t, _ in CASES if any("\u4e00" <= c <= "\u9fff" for c in t)]
    assert len(CASES) >= 40 and len(zh) >= 20 and len(CASES) - len(zh) >= 15


def test_without_time_spans_the_time_words_stay():
    assert strip_request("提醒我明天交报告") == "明天交报告"


def test_overlapping_or_empty_spans_are_fine():
    text = "remind me tomorrow at 5pm to call mom"
    a = text.index("tomorrow")
    assert strip_request(text, [(a, a + 8), (a, a + 15), (3, 3)]) == "call mom"


def test_task_text_of_a_parse(nlu):
    assert task_text(nlu.parse("提醒我后天上午给王会计回电话")) == "给王会计回电话"
    assert task_text(nlu.parse("remind me on Friday to book the room")) == "book the room"
    assert task_text(nlu.parse("set a reminder for tomorrow morning")) is None


@pytest.mark.parametrize("text,task", [
    ("明天25点提醒我开会", "开会"),
    ("提醒我明天3点75分交报告", "交报告"),
    ("tomorrow at 25 o'clock remind me to call mom", "call mom"),
    ("remind me at 13pm to water the plants", "water the plants"),
])
def test_an_impossible_clock_is_a_time_phrase_not_task_words(nlu, text, task):
    """No time is read from "25点", but it is still not what is to be done."""
    assert task_text(nlu.parse(text)) == task


@pytest.mark.parametrize("text, task", [("remind me to take my pills tomorrow", "take my pills"),
                                        ("明天提醒我吃我的药", "吃我的药")])
def test_the_task_stays_in_the_users_words(text, task):
    """What is stored (the reminder's text) is the user's own; a reply says it back (the ``said`` filter)."""
    spans = [x.span for x in parse_times(text, REF, SH)]
    assert strip_request(text, spans) == task


@pytest.mark.parametrize("text", ["那就下周一吧", "还是下周一中午吧", "那就五点吧", "好的，下午五点提醒我吧", "不对，下午五点提醒我",
                                  "好吧，明天提醒我"])
def test_discourse_markers_alone_are_no_task(text):
    """"那就下周一吧" names no task: it was saved as a reminder "提醒你那就" (a review, 2026-12-04)."""
    spans = [x.span for x in parse_times(text, REF, SH)]
    assert strip_request(text, spans) is None


@pytest.mark.parametrize("text,task", [("那就明天提醒我交报告", "交报告"), ("还是明天提醒我给王工打电话吧", "给王工打电话"),
                                       ("提醒我下午三点去那边拿快递", "去那边拿快递"), ("好的明天提醒我交报告", "交报告")])
def test_a_task_after_a_discourse_marker_is_kept_without_it(text, task):
    spans = [x.span for x in parse_times(text, REF, SH)]
    assert strip_request(text, spans) == task


@pytest.mark.parametrize("text,task", [("明天提醒我那就交房租吧", "交房租"), ("明天提醒我还是交房租吧", "交房租"),
                                       ("提醒我明天下午三点交房租吧那就", "交房租"),
                                       ("alright then, remind me at 6pm to call mom", "call mom"),
                                       ("remind me tomorrow at 9 to buy milk then", "buy milk"),
                                       ("remind me to buy milk tomorrow at 9 instead", "buy milk"),
                                       ("remind me to check what then happened tomorrow", "check what then happened")])
def test_words_of_the_talk_at_a_tasks_edges_are_not_its_words(text, task):
    """What is stored is the task: "那就交房租", "buy milk then" were (a review, 2026-12-04)."""
    spans = [x.span for x in parse_times(text, REF, SH)]
    assert strip_request(text, spans) == task
