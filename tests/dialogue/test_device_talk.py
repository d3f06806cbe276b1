"""Everyday talk that uses a device's words (h/devtalk), read by the dialogue's guards:

- a question about when something was done is a question about the past, never the request to do it
  ("when did I last restart nginx", "nginx是什么时候重启的": :func:`~hermesd.dialogue.lastaction.asks_if_done`);
  a question about when to do it ("什么时候重启nginx", "when will you restart nginx") or a request holding such a
  question (提醒我问问他是什么时候来的) is not;
- "shut up" / 闭嘴 said to the assistant is small talk (``quiet``), never a shutdown of the device, while a
  card is open too; a request to shut something else ("shut the door") is no small talk."""

from __future__ import annotations

import pytest

from hermesd.dialogue.heard import Heard
from hermesd.dialogue.lastaction import asks_if_done
from hermesd.dialogue.lexicon import default_lexicon
from hermesd.dialogue.questions import Confirm
from hermesd.dialogue.reader import read_answer
from hermesd.nlu.normalize import normalize

WHEN_DONE = ["when did I last restart nginx", "when was the device last rebooted", "when was the last time I restarted redis",
             "what time did you restart nginx", "how long ago did we reboot the system", "When did you send the quote to Li Na?",
             "我上次什么时候重启的nginx", "上一次重启nginx是什么时候", "nginx是什么时候重启的", "nginx上次是几点重启的",
             "最近一次重启設備是哪天", "你什么时候重启的nginx", "什麼時候重啟的nginx", "报价单最后一次是哪天发的"]
NOT_WHEN_DONE = ["什么时候重启nginx", "明天几点重启nginx", "下次什么时候重启", "什么时候要重启的", "when will you restart nginx",
                 "when should I restart nginx", "when can you send the quote", "what did I send yesterday", "今天几号",
                 "明天是几号", "几点了", "what time is it", "提醒我问问他是什么时候来的", "remind me to ask when he left",
                 "restart nginx", "重启nginx"]


@pytest.mark.parametrize("text", WHEN_DONE)
def test_a_question_about_when_it_was_done(text):
    assert asks_if_done(normalize(text).text)


@pytest.mark.parametrize("text", NOT_WHEN_DONE)
def test_a_question_about_when_to_do_it_or_a_request_is_none(text):
    assert not asks_if_done(normalize(text).text)


QUIET = ["shut up", "Shut up!", "just shut up", "oh just shut up", "be quiet", "stop talking", "shush", "闭嘴", "你给我闭嘴",
         "別說了", "安静点", "閉嘴"]


@pytest.mark.parametrize("text", QUIET)
def test_shut_up_is_small_talk_even_when_the_classifier_hears_a_shutdown(text):
    heard = Heard(normalize(text).text, "en", intent="device.shutdown", out_of_scope=False)
    r = read_answer(None, heard, default_lexicon())
    assert (r.act, r.smalltalk) == ("smalltalk", "quiet")
    card = Confirm(intent="device.service_restart", rule_id="device.service_restart.admin", index=0, prompt="Restart nginx?")
    r = read_answer(card, heard, default_lexicon())
    assert (r.act, r.smalltalk) == ("smalltalk", "quiet")  # not a yes, not a no: the card stays open


@pytest.mark.parametrize("text", ["shut the door", "shut down the device", "关机", "把门关上", "quiet hours start at 10",
                                  "shut up the shop at 6"])
def test_shutting_something_is_no_small_talk(text):
    r = read_answer(None, Heard(normalize(text).text, "en", intent="device.shutdown", out_of_scope=False), default_lexicon())
    assert r.smalltalk != "quiet"
