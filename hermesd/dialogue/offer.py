"""How an offer of unfinished work names the task, in the session's language (pure).

A task parked in an earlier session (:class:`~.questions.Offer`) keeps the intent, the slots
filled and what the user said (slot ``_utterance``). The offer quotes that utterance when it is
in the language the offer is said in and short enough to read as one phrase; otherwise it names
the intent by its pack description in that language with the values filled, said back to the user
("设置提醒（给妈妈打电话）", "set a reminder (take your pills)", "send documents (报价单, 李娜)"), so an English session never reads a Chinese sentence in its
offer, only the names and values themselves.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from .. import lazyre, pronouns
from .catalogue import say

__all__ = ["MAX_QUOTE_UNITS", "offer_language", "offer_text", "task_words"]

#: an utterance longer than this (units: a CJK character or a Latin word) is described, not quoted
MAX_QUOTE_UNITS = 24
_CJK = lazyre.compile(r"[\u3400-\u9fff]")
_UNIT = lazyre.compile(r"[A-Za-z0-9]+|[\u3400-\u9fff]")
_TRIM = " \t\r\n,，。.;；!！?？、:：~-\"'“”‘’「」"
_MAX_VALUES = 3
#: a trailing note of a description ("restart a service (admin)", "重启服务（管理员）"): who may ask, for
#: the list of what hermesd can do; not a word of the task's name
_NOTE = lazyre.compile(r"\s*[（(][^（）()]*[）)]\s*$")


def offer_language(locale: str | None, slots: Mapping[str, Any]) -> str:
    """``zh`` | ``en``: the session's locale, else the script of what the user said last time."""
    if locale:
        return "zh" if locale.lower().startswith("zh") else "en"
    said = str(slots.get("_utterance") or "")
    if said and not _CJK.search(said) and re.search(r"[A-Za-z]", said):
        return "en"
    return "zh"


def _quotable(said: str, lang: str) -> bool:
    if not said or len(_UNIT.findall(said)) > MAX_QUOTE_UNITS:
        return False
    return bool(_CJK.search(said)) if lang == "zh" else not _CJK.search(said)


def task_words(intent: str, slots: Mapping[str, Any], lang: str, description: Mapping[str, str] | None) -> str:
    """The task as the offer names it: the utterance quoted, or the description with its values.

    :param intent: the task's intent (the last resort when no description is known).
    :param slots: the parked slots (``_utterance`` included). :param lang: ``zh`` | ``en``.
    :param description: the intent's ``description`` (language → text), or None.
    """
    said = str(slots.get("_utterance") or "").strip(_TRIM)
    if _quotable(said, lang):
        return said
    desc = _NOTE.sub("", (description or {}).get(lang) or "") or intent
    values = [str(v).strip() for k, v in slots.items()
              if not k.startswith("_") and isinstance(v, (str, int, float)) and not isinstance(v, bool) and str(v).strip()]
    # a value holding another is the phrase they were said in (a send's task "把报价单发给李经理" beside
    # 报价单): the others name it already
    values = [v for v in values if len(v) <= 40 and not any(o != v and o in v for o in values)][:_MAX_VALUES]
    # the values named are the user's words said back (设置提醒（吃你的药）); a quoted utterance stays theirs
    values = [pronouns.said_back(v) for v in values]
    if not values:
        return desc
    return f"{desc}（{'，'.join(values)}）" if lang == "zh" else f"{desc} ({', '.join(values)})"


def offer_text(intent: str, slots: Mapping[str, Any], lang: str, description: Mapping[str, str] | None,
               *, after: bool = False) -> str:
    """The whole offer: "上次“提醒我给妈妈打电话”还没做完，要接着做吗？" / 'Last time, "remind me to call
    mum" was left unfinished. Shall I carry on with it?'; ``after`` the answer to something else,
    opened with "另外，" / "Also, "."""
    return say("offer_after" if after else "offer", lang, what=task_words(intent, slots, lang, description))
