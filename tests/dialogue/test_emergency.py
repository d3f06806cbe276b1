"""emergency.said: a fire, smoke or sparks reported (zh Simplified/Traditional and en), against the figures
of speech built on the same words — a person or a team on fire, a video that 火了, 急得冒烟, a mouth on fire
from spice, firing someone — and negations."""

from __future__ import annotations

import pytest

from hermesd.dialogue.emergency import said
from hermesd.nlu.normalize import normalize

FIRE = ["设备着火了", "机器在冒烟", "機器在冒煙", "这台设备起火了", "主机后面冒火花了", "机房失火了", "插座打火花",
        "我闻到一股焦味", "服务器烧起来了", "屋里全是浓烟", "着火了", "电源那里冒烟了怎么办",
        "the device is on fire", "The machine's on fire!", "the server caught fire", "the box is smoking",
        "smoke is coming out of the device", "there's smoke everywhere", "sparks are flying from the power supply",
        "I smell something burning", "it smells like burning plastic", "fire!", "there's a fire in the server room",
        "the charger burst into flames", "the power strip is sparking", "what do I do, the device is on fire"]
NOT_FIRE = ["our team is on fire this season", "I'm on fire today", "you're on fire", "he is on fire tonight",
            "my mouth is on fire from that curry", "my eyes are burning", "fire him", "fire up the server",
            "the log in the fireplace", "we had a fire drill today", "fireworks tonight", "I quit smoking",
            "no smoking in the office", "he's smoking a cigarette", "nothing is on fire", "the device isn't on fire",
            "这个视频火了", "这家店很火", "我急得冒烟", "嗓子都冒烟了", "气得冒烟", "他上火了", "老板发火了",
            "我们擦出了火花", "今天消防演习", "没有着火", "我把饭烧焦了", "火锅真好吃", "坐火车去上海",
            "shut up", "my memory is terrible", "reboot the device", "重启设备", "关机"]


@pytest.mark.parametrize("text", FIRE)
def test_a_fire_reported(text):
    assert said(text) and said(normalize(text).text)


@pytest.mark.parametrize("text", NOT_FIRE)
def test_a_figure_of_speech_or_another_request_is_no_fire(text):
    assert not said(text) and not said(normalize(text).text)
