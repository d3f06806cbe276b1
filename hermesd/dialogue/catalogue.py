"""Every sentence the dialogue manager says itself, in zh and en (rules and tools bring their own).

:func:`say` picks the language; a key missing from the catalogue is a bug and
raises ``KeyError`` (the catalogue test checks that every key has both languages
and that every placeholder is filled).
"""

from __future__ import annotations

from typing import Any

__all__ = ["TEXTS", "say"]

TEXTS: dict[str, dict[str, str]] = {
    "cancelled": {"zh": "好的，已取消。", "en": "OK, cancelled."},
    "nothing_to_cancel": {"zh": "好的，现在没有要取消的事。", "en": "OK. There is nothing to cancel right now."},
    "nothing_open": {"zh": "现在没有需要你确认或选择的事。你可以直接告诉我要做什么。",
                     "en": "There is nothing waiting for your answer right now. Just tell me what you need."},
    "expired": {"zh": "刚才的确认（{q}）已经过期，没有执行。需要的话请重新说一遍。",
                "en": "That confirmation ({q}) has expired, so nothing was done. Please ask again if you still need it."},
    "confirm_again": {"zh": "还需要你确认：{q}", "en": "I still need your confirmation: {q}"},
    "ask_again": {"zh": "回到刚才的问题：{q}", "en": "Back to my question: {q}"},
    "choose_again": {"zh": "回到刚才的问题：{q}", "en": "Back to my question: {q}"},
    "expect_yes_no": {"zh": "请回答“是”或“不是”：{q}", "en": "Please answer yes or no: {q}"},
    "expect_choice": {"zh": "请说编号或名字：{q}", "en": "Please say a number or a name: {q}"},
    "expect_slot": {"zh": "没听清。{q}", "en": "Sorry, I did not catch that. {q}"},
    "wait": {"zh": "好的，不着急。想好了告诉我：{q}", "en": "Sure, take your time. Tell me when you are ready: {q}"},
    "repeat": {"zh": "{q}", "en": "{q}"},
    "help_yes_no": {"zh": "你可以说“好的”确认，“不用了”取消。{q}",
                    "en": "Say \"yes\" to go ahead or \"no\" to cancel. {q}"},
    "help_choice": {"zh": "可选的有：{opts}。说编号（比如“第一个”）或名字都可以，说“取消”就不选了。",
                    "en": "The choices are: {opts}. Say a number (\"the first one\") or a name, or \"cancel\"."},
    "help_slot": {"zh": "{q}（说“取消”可以放弃）", "en": "{q} (say \"cancel\" to stop)"},
    "choose": {"zh": "你说的{m}是哪一位？{opts}", "en": "Which {m} do you mean? {opts}"},
    "failed": {"zh": "这一步没有成功，请稍后再试。", "en": "That step did not work. Please try again later."},
    "handoff": {"zh": "我已经请同事来处理。", "en": "I have asked a colleague to take over."},
    "offer": {"zh": "上次的“{what}”还没完成，要继续吗？", "en": "Last time's \"{what}\" is unfinished. Continue?"},
    "auth": {"zh": "请先完成身份验证。", "en": "Please verify your identity first."},
    "interrupted": {"zh": "上次的操作被中断了，没有重复执行。", "en": "The last action was interrupted and was not repeated."},
    "not_understood": {"zh": "抱歉，我没听明白。可以换个说法吗？", "en": "Sorry, I did not understand. Could you put it another way?"},
}


def say(key: str, lang: str, **kw: Any) -> str:
    """The sentence ``key`` in ``lang`` (``zh``; anything else is English), placeholders filled from ``kw``.

    :raises KeyError: unknown key, or a placeholder not given.
    """
    return TEXTS[key]["zh" if lang == "zh" else "en"].format(**kw)
