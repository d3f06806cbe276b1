"""The dialogue manager's own sentences: every key in zh and en, the same placeholders, no codes."""

from __future__ import annotations

import re
import string

import pytest

from hermesd.dialogue.catalogue import TEXTS, say
from hermesd.dialogue.heard import SMALLTALK
from hermesd.dialogue.smalltalk import capabilities, smalltalk_reply
from hermesd.nlu.intents import IntentSpec

_CJK = re.compile(r"[\u4e00-\u9fff]")


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


@pytest.mark.parametrize("key", sorted(TEXTS))
def test_both_languages_same_placeholders(key):
    t = TEXTS[key]
    assert set(t) == {"zh", "en"}
    assert {f.lower() for f in _fields(t["zh"])} == {f.lower() for f in _fields(t["en"])}, key
    assert not _CJK.search(t["en"]), key
    assert not re.search(r"\b[A-Z]{3,}_[A-Z_]+\b", t["zh"] + t["en"]), "a stable code in a sentence"


def test_unknown_key_and_missing_placeholder_raise():
    with pytest.raises(KeyError):
        say("no_such_sentence", "zh")
    with pytest.raises(KeyError):
        say("confirm_again", "en")  # {q} not given


@pytest.mark.parametrize("kind", [k for k in SMALLTALK if k != "capabilities"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_smalltalk_kind_is_answered(kind, lang):
    text = smalltalk_reply(kind, lang)
    assert text and bool(_CJK.search(text)) == (lang == "zh")


def test_capabilities_are_generated_from_the_intents_grouped_by_pack():
    specs = [IntentSpec("a.x", pack="device", description={"zh": "查磁盘", "en": "disk space"}),
             IntentSpec("a.y", pack="device", description={"en": "the network"}),
             IntentSpec("b.z", pack="office", description={"zh": "发文件", "en": "send files"}),
             IntentSpec("b.hidden", pack="office")]
    titles = {"device": {"zh": "设备", "en": "Device"}, "office": {"zh": "办公", "en": "Office"}}
    assert capabilities(specs, titles, "en") == ["Device: disk space, the network", "Office: send files"]
    assert capabilities(specs, titles, "zh") == ["设备：查磁盘、the network", "办公：发文件"]
    assert smalltalk_reply("capabilities", "en", []) == say("capabilities_none", "en")


def test_capabilities_list_only_what_the_rules_do_and_memory():
    specs = [IntentSpec("device.disk", pack="device", description={"zh": "查磁盘", "en": "disk space"}),
             IntentSpec("device.shutdown", pack="device", description={"zh": "关机", "en": "shut the device down"})]
    titles = {"device": {"zh": "设备", "en": "Device"}}
    does = {"device.disk": True, "device.shutdown": False}.__getitem__
    assert capabilities(specs, titles, "en", does=does) == ["Device: disk space"]
    zh = capabilities(specs, titles, "zh", does=does, memory=True)
    assert zh == ["设备：查磁盘", f"{say('capabilities_memory_title', 'zh')}：{say('capabilities_memory', 'zh')}"]
    assert all("关机" not in line for line in zh)
