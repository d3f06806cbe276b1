"""What a person says is kept only when it is durable — names, preferences, relations, dates — never a
passing state (:func:`hermesd.memory.facts.transient`, :func:`hermesd.memory.compress.capture_reason`);
a correction ("Anne, not Anna") is the new value of the fact; a captured turn is never filed as a note."""

from __future__ import annotations

import pytest

from hermesd.memory.compress import capture_reason, compress
from hermesd.memory.facts import read_request, transient


@pytest.mark.parametrize("text", [
    "我家网断了", "今天好累", "我现在好困", "电脑又卡了", "我累了", "我今天有点不舒服", "我的网络是坏的", "现在好忙", "手机没电了",
    "my wifi is down at home", "I'm tired", "I am so tired today", "the printer is broken today",
    "my phone is not working", "my laptop keeps crashing", "the tv is acting up", "I'm exhausted",
    "my internet is down again", "I feel sick",
])
def test_a_passing_state_is_not_kept(text):
    assert transient(text)
    req = read_request(text)
    assert req is None or req.intent != "memory.remember" or not req.stated


@pytest.mark.parametrize("text, subject, value, relation", [
    ("我老婆叫王芳", "我老婆的名字", "王芳", "is"),
    ("我儿子叫小明", "我儿子的名字", "小明", "is"),
    ("我喜欢喝茶", "我喜欢喝茶", "我喜欢喝茶", "note"),
    ("我不吃香菜", "我不吃香菜", "我不吃香菜", "note"),
    ("我女儿的生日是5月3号", "我女儿的生日", "5月3号", "is"),
    ("my wife's name is Anna", "wife's name", "Anna", "is"),
    ("my son is called Leo", "son's name", "Leo", "is"),
    ("I like green tea", "i like green tea", "I like green tea", "note"),
    ("my birthday is May 3", "birthday", "May 3", "is"),
    ("my car is parked in B2", "car", "parked in B2", "is"),
    ("the front gate number is now 9999", "front gate number", "9999", "is"),
    ("我家的门禁密码现在是9999", "我家的门禁密码", "9999", "is"),
])
def test_a_durable_fact_is_kept(text, subject, value, relation):
    assert not transient(text)
    req = read_request(text)
    assert req is not None and req.intent == "memory.remember"
    assert (req.subject, req.value, req.relation) == (subject, value, relation)


@pytest.mark.parametrize("text, subject, value", [
    ("actually my wife's name is Anne, not Anna", "wife's name", "Anne"),
    ("my wife's name is Anne, not Anna", "wife's name", "Anne"),
    ("my wife's name is Anne rather than Anna", "wife's name", "Anne"),
    ("其实我老婆叫安娜，不是安妮", "我老婆的名字", "安娜"),
    ("我老婆叫安娜而不是安妮", "我老婆的名字", "安娜"),
    ("记住我老婆叫安娜，不是安妮", "我老婆的名字", "安娜"),
])
def test_a_correction_names_the_new_value(text, subject, value):
    req = read_request(text)
    assert req is not None and (req.intent, req.subject, req.value) == ("memory.remember", subject, value)


@pytest.mark.parametrize("text", ["我爱你", "我喜欢你", "I love you", "I like that", "我喜欢这个"])
def test_a_feeling_for_the_listener_or_a_thing_here_is_no_preference(text):
    req = read_request(text)
    assert req is None or req.relation != "note"


def test_a_passing_remark_with_a_day_is_not_captured_a_request_is():
    assert capture_reason({"text": "今天好累", "intent": None, "entities": [{"type": "datetime", "value": "今天"}]}) is None
    assert capture_reason({"text": "I'm so tired today", "entities": [{"type": "datetime", "value": "today"}]}) is None
    assert capture_reason({"text": "明天下午三点开会", "intent": "reminder.set",
                           "entities": [{"type": "datetime", "value": "x"}]}) == "entity"


def test_a_captured_turn_about_nobody_is_no_note():
    c = compress({"text": "明天开会", "entities": [{"type": "datetime", "value": "明天"}]}, uid=7, at_ms=0)
    assert c.anchor.startswith("turn:") and not c.anchor.startswith("note:")
