"""Device talk that is no request to read this device (hermesd.dialogue.otherdevice), zh × zh-Hant × en:
another device named (a phone, a laptop, 手机, 电脑) and a what-to-do question (怎么办, "what should I do"),
against the requests for this device's state that must keep working and the phone as a number or a call."""

from __future__ import annotations

import pytest

from hermesd.dialogue.otherdevice import asks_what_to_do, other_device
from hermesd.nlu.normalize import normalize

OTHER = [
    ("my phone's storage is full", "phone"), ("My iPhone is out of space", "iphone"),
    ("my laptop is running out of disk space", "laptop"), ("how much memory does my computer have", "computer"),
    ("is my tablet's wifi working", "tablet"), ("her macbook keeps overheating", "macbook"),
    ("the phone's battery is at 5%", "phone"), ("my pc is slow", "pc"),
    ("手机存储满了", "手机"), ("我电脑内存不够了", "电脑"), ("我的笔记本没网了", "笔记本"), ("平板还剩多少空间", "平板"),
    ("手機記憶體不夠了", "手机"), ("我的電腦磁碟滿了", "电腦"), ("电视连不上网", "电视"),
]
NOT_OTHER = ["how much disk is left", "磁盘还剩多少", "内存用了多少", "how much memory is free", "is the network up",
             "this device's memory", "设备内存用了多少", "the computer is slow", "李娜的手机号是多少", "what is her phone number",
             "remind me to phone her", "I was on the phone with Li Na", "查一下系统状态", "restart nginx"]


@pytest.mark.parametrize("text,device", OTHER)
def test_another_device_is_named(text, device):
    assert other_device(normalize(text).text) == device


@pytest.mark.parametrize("text", NOT_OTHER)
def test_this_device_or_a_phone_number_is_no_other_device(text):
    assert other_device(normalize(text).text) is None


WHAT_TO_DO = ["内存不够用了怎么办", "磁盘满了该怎么处理", "网络不通怎么办", "磁盘快满了有什么办法", "記憶體不夠用了怎麼辦",
              "内存不够了咋办", "what should I do if the disk is full", "the memory is almost full, what do I do?",
              "how do I free up memory", "how can I clear some disk space", "the disk is full, any tips?"]
NOT_WHAT_TO_DO = ["内存用了多少", "磁盘满了吗", "磁盘还剩多少", "网络通不通", "how much memory is free", "how much disk is left",
                  "is the disk full", "what's the cpu usage", "how is the system doing", "系统状态怎么样"]


@pytest.mark.parametrize("text", WHAT_TO_DO)
def test_a_what_to_do_question(text):
    assert asks_what_to_do(normalize(text).text)


@pytest.mark.parametrize("text", NOT_WHAT_TO_DO)
def test_a_request_for_the_state_is_no_what_to_do_question(text):
    assert not asks_what_to_do(normalize(text).text)
