"""How an offer of unfinished work names the task (hermesd.dialogue.offer), zh × en, in-process."""

from __future__ import annotations

import re

import pytest

from hermesd.dialogue.offer import offer_language, offer_text, task_words

SEND = {"zh": "发送文件", "en": "send documents"}
REMIND = {"zh": "设置提醒", "en": "set reminders"}
_CJK = re.compile(r"[\u3400-\u9fff]")

CASES = [
    # (intent, slots, lang, description, expected task words)
    ("reminder.set", {"task": "给妈妈打电话", "_utterance": "提醒我给妈妈打电话"}, "zh", REMIND, "提醒我给妈妈打电话"),
    ("reminder.set", {"task": "call mum", "_utterance": "remind me to call mum."}, "en", REMIND, "remind me to call mum"),
    # said in the other language: described in the session's, with the values as they are
    ("reminder.set", {"task": "给妈妈打电话", "_utterance": "提醒我给妈妈打电话"}, "en", REMIND, "set reminders (给妈妈打电话)"),
    ("doc.send", {"doc": "报价单", "person": "李娜", "_utterance": "把报价单发给李经理"}, "en", SEND,
     "send documents (报价单, 李娜)"),
    ("doc.send", {"doc": "quote", "person": "李娜", "_utterance": "send the quote to Li Na"}, "zh", SEND,
     "发送文件（quote，李娜）"),
    # a value holding another is the phrase they were said in (a send's task): the others name it already
    ("doc.send", {"doc": "报价单", "person": "李娜", "task": "把报价单发给李经理", "_utterance": "把报价单发给李经理"}, "en",
     SEND, "send documents (报价单, 李娜)"),
    # no utterance kept, or one too long to quote: the description
    ("doc.send", {"doc": "报价单"}, "zh", SEND, "发送文件（报价单）"),
    ("doc.send", {"_utterance": "把" + "很长的一句话" * 6}, "zh", SEND, "发送文件"),
    ("doc.send", {"doc": "合同", "flag": True, "n": None}, "zh", None, "doc.send（合同）"),
    # a description's trailing note (who may ask) is no word of the task's name
    ("device.service_restart", {"service": "nginx", "unit": "nginx.service", "_utterance": "重启nginx"}, "en",
     {"zh": "重启服务（管理员）", "en": "restart a service (admin)"}, "restart a service (nginx)"),
    ("device.service_restart", {"service": "nginx", "_utterance": "restart nginx"}, "zh",
     {"zh": "重启服务（管理员）", "en": "restart a service (admin)"}, "重启服务（nginx）"),
    # the values named are the user's words said back (hermesd.pronouns); a quoted utterance stays theirs
    ("reminder.set", {"task": "吃我的药", "_utterance": "提醒我吃我的药"}, "en", REMIND, "set reminders (吃你的药)"),
    ("reminder.set", {"task": "take my pills", "_utterance": "remind me to take my pills"}, "zh", REMIND,
     "设置提醒（take your pills）"),
    ("reminder.set", {"task": "take my pills", "_utterance": "remind me to take my pills"}, "en", REMIND,
     "remind me to take my pills"),
]


@pytest.mark.parametrize("intent,slots,lang,desc,want", CASES, ids=[f"{c[2]}:{c[4][:20]}" for c in CASES])
def test_task_words(intent, slots, lang, desc, want):
    assert task_words(intent, slots, lang, desc) == want


@pytest.mark.parametrize("slots", [{"_utterance": "把报价单发给李经理", "doc": "报价单"},
                                   {"_utterance": "提醒我给妈妈打电话"}])
def test_an_english_offer_has_no_chinese_sentence(slots):
    text = offer_text("doc.send", slots, "en", SEND)
    # only the values themselves may be Chinese, never the words around them
    outside = re.sub(r"\(.*?\)", "", text)
    assert not _CJK.search(outside), text
    assert text.startswith("Last time") and text.endswith("?")


def test_a_chinese_offer_is_one_sentence():
    text = offer_text("reminder.set", {"_utterance": "提醒我给妈妈打电话。"}, "zh", REMIND)
    assert text == "上次“提醒我给妈妈打电话”还没做完，要接着做吗？"


@pytest.mark.parametrize("locale,slots,lang", [
    ("en-US", {"_utterance": "提醒我开会"}, "en"), ("zh-CN", {"_utterance": "remind me"}, "zh"),
    (None, {"_utterance": "remind me to call mum"}, "en"), (None, {"_utterance": "提醒我开会"}, "zh"),
    (None, {}, "zh"), (None, {"_utterance": "1234"}, "zh"),
])
def test_offer_language(locale, slots, lang):
    assert offer_language(locale, slots) == lang


@pytest.mark.parametrize("lang,opening", [("zh", "另外，上次“"), ("en", "Also, last time")])
def test_an_offer_after_an_answer_says_so(lang, opening):
    text = offer_text("reminder.set", {"task": "给妈妈打电话", "_utterance": "提醒我给妈妈打电话"}, lang, REMIND,
                      after=True)
    assert text.startswith(opening) and text.endswith(("？", "?")), text
    assert ("“提醒我给妈妈打电话”" if lang == "zh" else "\"set reminders (给妈妈打电话)\"") in text
