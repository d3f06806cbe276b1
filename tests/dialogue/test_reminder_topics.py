"""The topic of a request to list reminders (:func:`~hermesd.dialogue.reminders.topic_of`): the words of
asking for the list (我有哪些, 关于, 查看, "do I have any … about", "show me") name no reminder."""

from __future__ import annotations

import pytest

from hermesd.dialogue.reminders import topic_of
from hermesd.nlu.normalize import normalize


@pytest.mark.parametrize("text, topic", [
    ("我有哪些开会的提醒", "开会"), ("有没有关于开会的提醒", "开会"), ("开会的提醒有哪些", "开会"), ("关于吃药的提醒有什么", "吃药"),
    ("我都有哪些交报告的提醒", "交报告"),
    ("我有哪些提醒", None), ("查看我的提醒", None), ("列出所有提醒", None), ("显示我的提醒事项", None), ("看一下待办提醒", None),
    ("我的提醒", None),
    ("do i have any reminders about the dentist", "dentist"), ("what are my dentist reminders", "dentist"),
    ("list my reminders about the meeting", "meeting"), ("show me the reminders for call mom", "call mom"),
    ("what reminders do i have", None), ("show my reminders", None), ("show upcoming reminders", None),
    ("any pending reminders", None),
    # the request words of a cancel or a move still go, the topic stays
    ("取消看电影的提醒", "看电影"), ("cancel the reminder to have lunch", "have lunch"),
])
def test_the_topic_of_a_list_request(text: str, topic: str | None) -> None:
    assert topic_of(normalize(text).text.lower()) == topic
