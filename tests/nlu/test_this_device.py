"""The device spoken to as an entity of the NLU (``this_device``, a gazetteer of config/intents/device.yaml):
设备 / 本机 / 系统 / 这台机器 / "the device" / "the system" / "this box" …, Traditional forms through the
normaliser, and a person's own device ("my machine", 我的电脑, 操作系统) or another device (机器人) outranking
the words inside it — so that the device rules read ``has(entities.this_device)``, not the utterance's words.
And the review of the shipped defaults (h/devtalk): everyday talk with a device word in it is no request."""

from __future__ import annotations

import pytest

THIS = ["重启设备", "重啟設備", "把这台机器重启一下", "這台機器要重啟", "重启一下本机", "本機重啟", "重启系统", "重啟系統",
        "主機需要重啟", "整个系统重启一下", "把服务器重启", "伺服器重開", "裝置關機",
        "reboot the device", "restart the whole system", "shut this box down", "reboot yourself", "power off the machine",
        "Reboot The Server"]
NOT_THIS = ["my machine needs a reboot", "my laptop needs a reboot", "shut down my computer", "我的电脑重启了",
            "操作系统要重装", "扫地机器人坏了", "重启nginx", "restart nginx", "my system is slow", "老板说要重启项目",
            "the ecosystem is fragile", "systemd is running"]


@pytest.mark.parametrize("text", THIS)
def test_the_words_that_name_this_device(nlu, text):
    assert any(e.type == "this_device" for e in nlu.parse(text).entities), nlu.parse(text).entities


@pytest.mark.parametrize("text", NOT_THIS)
def test_another_device_or_none_is_not_this_one(nlu, text):
    assert not any(e.type == "this_device" for e in nlu.parse(text).entities), nlu.parse(text).entities


@pytest.mark.parametrize("text,intent", [
    ("重启设备", "device.reboot"), ("重启本机", "device.reboot"), ("reboot the system", "device.reboot"),
    ("关闭本机", "device.shutdown"), ("shut down the system", "device.shutdown"),
    ("系统状态", "device.system_status"), ("设备状态", "device.system_status"), ("system status", "device.system_status"),
])
def test_templates_that_name_the_device_by_the_entity(nlu, text, intent):
    assert nlu.parse(text).intent == intent


#: the review's cases: device words in their everyday senses are out of scope; the log request it missed routes
@pytest.mark.parametrize("text,intent", [
    ("shut up", None), ("my memory is terrible", None), ("the log in the fireplace", None),
    ("oh just shut up already", None), ("i slept like a log last night", None), ("我记性太差了", None),
    ("show me the logs from yesterday", "device.errors_since"), ("给我看看昨天的日志", "device.errors_since"),
    ("show me the logs", "device.errors_since"), ("看一下日志", "device.errors_since"),
    ("how much memory is free", "device.system_status"), ("内存还剩多少", "device.system_status"),
])
def test_the_review_of_everyday_device_words(nlu, text, intent):
    r = nlu.parse(text)
    assert r.intent == intent, [(m.intent, round(m.score, 2)) for m in r.intents[:3]]
