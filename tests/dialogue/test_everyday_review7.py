"""What a new user tried in review 7, table-tested on the pure engines (zh and en):

- a question about an action is not the action: a question whether it was done (了吗 / 了没有 / 有没有…过 /
  did / has / was …, :func:`~hermesd.dialogue.lastaction.asks_if_done`) and a how-to question
  (怎么 / 如何 / how do I …, :mod:`hermesd.dialogue.howto`);
- request words that open the utterance make it a reminder of the rest (:func:`~hermesd.nlu.task.leading_trigger`);
- a change of a fact said as a statement (改成 / 换成 / is now / change my X to Y) is a fact to keep;
- 不要紧 / 没关系 / "it's all right" is reassurance small talk, never a no or a cancel;
- a bare hour whose two readings today are gone is tomorrow's, read as 明天H点 is (3点 at 16:00 → 15:00);
- two documents joined in a send are the send once each ("the quote and the contract").
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from hermesd.dialogue.heard import Heard
from hermesd.dialogue.howto import asks_how, request_of
from hermesd.dialogue.lastaction import asks_if_done
from hermesd.dialogue.lexicon import default_lexicon
from hermesd.dialogue.reader import read_answer
from hermesd.dialogue.split import one_each
from hermesd.memory.facts import read_request
from hermesd.nlu.normalize import normalize
from hermesd.nlu.task import leading_trigger
from hermesd.nlu.temporal import parse_times

SH = ZoneInfo("Asia/Shanghai")


# --- 1. a question about the past, and a how-to question --------------------------------------

DONE = ["报价单发给王芳了吗", "合同发了没有", "设备重启了吗", "合同发了没", "报价单发过吗", "有没有发过合同",
        "是否已经重启了设备", "nginx重启了么", "報價單發給王芳了嗎",
        "did you send the quote to Wang Fang?", "has the device been restarted?", "was the quote sent",
        "have you sent the contract to Li Na", "didn't you send it", "did Li Na get the quote?"]
NOT_DONE = ["把报价单发给王芳", "重启nginx", "明天下午3点提醒我开会", "已经发了", "有没有提醒", "发给王芳吧",
            "send the quote to Wang Fang", "can you send the quote to Wang Fang?", "could you restart nginx",
            "what did I send yesterday", "restart nginx please", "is the network up"]


@pytest.mark.parametrize("text", DONE)
def test_a_question_whether_it_was_done(text):
    assert asks_if_done(normalize(text).text)


@pytest.mark.parametrize("text", NOT_DONE)
def test_a_request_or_another_question_does_not_ask_whether_it_was_done(text):
    assert not asks_if_done(normalize(text).text)


@pytest.mark.parametrize("text,asked_for", [
    ("how do I restart nginx", "restart nginx"), ("How can I reboot the device?", "reboot the device"),
    ("how to send the quote to Wang Fang", "send the quote to Wang Fang"),
    ("how should we restart the service", "restart the service"),
    ("怎么重启nginx", "重启nginx"), ("nginx怎么重启？", "重启nginx"), ("nginx该怎么重启", "重启nginx"),
    ("如何把报价单发给王芳", "把报价单发给王芳"), ("怎样才能重启设备", "重启设备"), ("我怎么重启设备呢", "重启设备"),
])
def test_a_how_to_question_and_the_request_it_is_about(text, asked_for):
    assert asks_how(normalize(text).text)
    assert request_of(text) == asked_for


@pytest.mark.parametrize("text", ["how much disk space is left", "how many reminders do I have", "how are you",
                                  "how is the network", "网络怎么了", "怎么回事", "磁盘怎么样", "怎么还没发",
                                  "怎么又断网了", "重启nginx", "restart nginx"])
def test_a_state_a_complaint_or_a_request_is_no_how_to_question(text):
    assert not asks_how(normalize(text).text)


# --- 2. request words opening the utterance: a reminder of the rest ------------------------------

REF = datetime(2030, 6, 19, 10, 0, tzinfo=SH)


def _lead(text):
    n = normalize(text)
    return leading_trigger(n, [t.span for t in parse_times(n, REF, SH)])


@pytest.mark.parametrize("text,trigger", [
    ("提醒我明天把报价单发给王芳", "提醒我"), ("明天上午提醒我把合同发给李娜", "提醒我"), ("请提醒我把报价单发给王芳", "提醒我"),
    ("帮我设个提醒明天交报告", "帮我设个提醒"), ("remind me tomorrow to send the quote to Wang Fang", "remind me"),
    ("please remind me at 5pm to restart nginx", "remind me"),
])
def test_request_words_that_open_the_utterance(text, trigger):
    assert _lead(text) == trigger


@pytest.mark.parametrize("text", ["把报价单发给王芳", "明天提醒我", "把合同发给李娜，然后提醒我开会", "what did you remind me about",
                                  "send the quote to Wang Fang"])
def test_request_words_after_the_request_or_with_nothing_after_them(text):
    assert _lead(text) is None


# --- 3. a change of a fact is a fact --------------------------------------------------------------

@pytest.mark.parametrize("text,subject,value", [
    ("我女儿的生日改成5月4号", "我女儿的生日", "5月4号"), ("我的车位号换成了B3-201", "我的车位号", "B3-201"),
    ("我家的门禁密码现在是9999", "我家的门禁密码", "9999"), ("王会计的生日改为3月6号", "王会计的生日", "3月6号"),
    ("the gate code is now 9999", "gate code", "9999"), ("my locker code has changed to 5512", "locker code", "5512"),
    ("the gate code changed to 1234", "gate code", "1234"), ("change my locker code to 5512", "locker code", "5512"),
    ("update the gate code to 2468", "gate code", "2468"),
])
def test_a_change_said_as_a_statement_is_the_new_value(text, subject, value):
    req = read_request(text)
    assert req is not None and req.intent == "memory.remember" and req.stated
    assert (req.subject, req.value) == (subject, value)


@pytest.mark.parametrize("text", ["把提醒改成明天下午3点", "我的意思是改成明天", "改成明天下午3点", "what is the gate code now"])
def test_a_change_without_a_possessed_subject_or_a_question_is_no_fact(text):
    req = read_request(normalize(text).text)
    assert req is None or req.intent != "memory.remember"


# --- 4. reassurance; the bare hour ------------------------------------------------------------------

@pytest.mark.parametrize("text", ["不要紧", "没关系", "没事", "没关系的", "不要緊", "沒關係", "it's all right",
                                  "that's okay", "don't worry", "it doesn't matter"])
def test_reassurance_is_small_talk_never_a_no(text):
    r = read_answer(None, Heard(normalize(text).text, "zh", intent="reminder.cancel", out_of_scope=False), default_lexicon())
    assert (r.act, r.smalltalk) == ("smalltalk", "reassurance")


@pytest.mark.parametrize("text", ["不要", "不用了", "没事了"])
def test_a_no_or_a_goodbye_stays_one(text):
    r = read_answer(None, Heard(normalize(text).text, "zh"), default_lexicon())
    assert r.smalltalk != "reassurance"


@pytest.mark.parametrize("at,text,start", [
    ("16:00", "3点提醒我开会", "2030-06-20T15:00"),       # both of today's 3 o'clocks gone: tomorrow afternoon
    ("16:00", "remind me at 3 to call mom", "2030-06-20T15:00"),
    ("16:00", "8点提醒我", "2030-06-19T20:00"),          # 20:00 is still ahead today
    ("23:00", "8点提醒我", "2030-06-20T08:00"),          # tomorrow, 7–12 o'clock as written
    ("23:00", "3点提醒我", "2030-06-20T15:00"),
    ("10:00", "3点提醒我开会", "2030-06-19T15:00"),
    ("01:00", "3点提醒我", "2030-06-19T03:00"),          # still ahead tonight: the next on the dial
    ("16:00", "凌晨3点提醒我", "2030-06-20T03:00"),       # the small hours said: as said
])
def test_a_bare_hour_is_the_next_one_a_person_means(at, text, start):
    ref = datetime.fromisoformat(f"2030-06-19T{at}:00+08:00")
    (t,) = parse_times(normalize(text), ref, SH)
    assert t.start.isoformat()[:16] == start


# --- 5. two documents in one send ---------------------------------------------------------------------

@pytest.mark.parametrize("text,spans,parts", [
    ("把报价单和合同发给王芳", [(1, 4), (5, 7)], ["把报价单发给王芳", "把合同发给王芳"]),
    ("send the quote and the contract to Li Na", [(9, 14), (23, 31)],
     ["send the quote to Li Na", "send the contract to Li Na"]),
    ("send the quote and a contract to Li Na", [(9, 14), (21, 29)],
     ["send the quote to Li Na", "send the contract to Li Na"]),
])
def test_two_documents_are_the_send_once_each(text, spans, parts):
    assert [t for t, _ in one_each(text, spans)] == parts
