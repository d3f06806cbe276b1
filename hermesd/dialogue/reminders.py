"""Which reminder a request is about, and a request to move one (pure).

A person names a reminder by what it is about — its *topic* — far more often than by its time or
place in a list: "取消喝水的提醒", "删掉那个吃药的提醒", "不用提醒我开会了", "cancel the dentist reminder",
"delete the reminder about the meeting", "turn off the reminder to call mom". :func:`topic_of` takes
the words that name it: the utterance without the request words (取消 / 删除 / 不用 / cancel / delete /
turn off …), the reminder words (提醒 / 提醒我 / reminder), demonstratives (那个 / that), the linking 的 /
about / for / to, the time phrases (their spans) and the new time of a change; nothing is left for
"取消那个提醒" / "cancel that reminder" (the last one set is meant). The reminder tool matches the topic
against each reminder's text (``about``).

A request to change a reminder's time moves it, never sets a second one that would ring too:

- :func:`asks_change` — a change verb with the time it goes to: zh (把)…提醒 + 改到 / 改成 / 改在 / 挪到 /
  推迟到 / 推到 / 延后到 / 延到 / 提前到 / 调到 / 换到; en move / change / reschedule / push / shift / switch
  (…reminder…) to / until / for + a time ("move the meeting reminder to 4pm", "change my reminder to 10");
- :func:`corrects_time` — said right after a reminder was set, a contrast of two times or a bare repair
  that names only a time: "不是9点，是10点", "不是明天，是后天", "改成10点", "not 9, 10", "no, make it 10",
  "make it 4pm instead" (Levelt 1983, *Cognition* 14: the repair replaces the reparandum, here the time of
  the request just made — see :mod:`.repair` for a repair inside one utterance).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .. import lazyre

__all__ = ["asks_change", "corrects_time", "names_half_day", "topic_of"]

_ZH_CHANGE = r"(?:改到|改成|改在|改为|改為|挪到|推迟到|推遲到|推到|延后到|延後到|延到|提前到|调到|調到|换到|換到|换成|換成)"
_EN_CHANGE = r"\b(?:move|change|reschedule|push|shift|switch|bump|put\s+off|postpone)\b"
_ZH_CHANGE_RE = lazyre.compile(r"提醒.{0,6}?" + _ZH_CHANGE + r"|" + _ZH_CHANGE + r".{0,12}?(?:的)?提醒")
_EN_CHANGE_RE = lazyre.compile(_EN_CHANGE + r".{0,60}?\breminders?\b.{0,60}?\b(?:to|until|till|for|back\s+to)\b"
                               r"|" + _EN_CHANGE + r"\s+(?:it|that|this)\s+(?:to|until|till)\b", re.IGNORECASE)

# request words around the topic (normalised, lower-case text)
_ZH_DROP = lazyre.compile(r"取消|撤销|撤銷|删除|刪除|删掉|刪掉|删了|刪了|去掉|关掉|關掉|关了|關了|不要了|不用了|不需要了|"
                          r"(?:我)?(?:不用|不要|别|別|不必|不需要|无需|無需)(?:再)?|"
                          r"(?:的)?提醒(?:我|一下)?|把|将|將|那个|那個|这个|這個|那条|那條|这条|這條|刚才|剛才|刚刚|剛剛|"
                          r"一下|帮我|幫我|请|請|吧|了|呢|啊|的|时候|時候|所有|全部|"
                          r"不是|而是|应该是|應該是|不对|不對|是(?=\s|$)")
_EN_DROP = lazyre.compile(r"\b(?:please|can\s+you|could\s+you|i\s+don'?t\s+need|i\s+no\s+longer\s+need|no\s+longer|anymore|any\s+more|"
                          r"cancel|delete|remove|drop|clear|turn\s+off|switch\s+off|get\s+rid\s+of|forget|"
                          r"move|change|reschedule|push|shift|switch|bump|postpone|put\s+off|"
                          r"don'?t|do\s+not|no\s+need\s+to|remind\s+me|reminders?|my|the|that|this|those|these|it|one|"
                          r"about|for|of|to|with|on|at|please|actually|just|now|again|instead|all|every|"
                          r"no|not|but|make|i\s+meant?|sorry|oops|wait)\b")
_EN_WORDS = lazyre.compile(r"[a-z0-9][a-z0-9'-]*")
_FILLER = lazyre.compile(r"[\s,，。.!！?？;；:：、\"'“”‘’()（）]+")

_CONTRAST = lazyre.compile(r"^(?:不是|不)\s*(?P<a>.+?)\s*[，,]?\s*(?:而)?是\s*(?P<b>.+?)[\s。.!！吧啦了]*$"
                           r"|^(?:no|not)\s*,?\s*(?:not\s+)?(?P<a2>.+?)\s*[,;]\s*(?:but\s+|it'?s\s+|make\s+it\s+)?(?P<b2>.+?)[\s.!]*$",
                           re.IGNORECASE)
_BARE = lazyre.compile(r"^(?:(?:哦|噢|啊|呃|不对|不對|不|错了|錯了)[，,]?\s*)*(?:是|改成|改到|改为|改為|换成|換成|应该是|應該是)\s*(?P<b>.+?)[\s。.!！吧啦了]*$"
                       r"|^(?:(?:no|sorry|oops|actually|wait)\s*,?\s*)*(?:make\s+it|change\s+it\s+to|i\s+meant|i\s+mean|it\s+should\s+be)\s+(?P<b2>.+?)"
                       r"(?:\s+instead)?[\s.!]*$", re.IGNORECASE)


_HALF = lazyre.compile(r"上午|下午|中午|晚上|早上|早晨|凌晨|傍晚|夜里|今晚|明晚|明早|午饭|晚饭|早饭|半夜|"
                       r"\b(?:am|pm|a\.m\.|p\.m\.|morning|afternoon|evening|night|tonight|noon|midnight)\b|"
                       r"(?<![0-9])(?:1[3-9]|2[0-4])(?:点|點|:[0-5][0-9]|时|時)|\d(?:am|pm)\b", re.IGNORECASE)


def names_half_day(text: str) -> bool:
    """A time phrase ``text`` says which half of the day its hour is in: a part of the day (上午, 晚上,
    "pm", "in the morning") or an hour past 12 ("15点", "15:30"); "10点" / "at 10" do not (either 10:00
    or 22:00 — a moved reminder takes the one nearer its old time).

    >>> names_half_day("下午3点"), names_half_day("15:00"), names_half_day("4pm"), names_half_day("10点")
    (True, True, True, False)
    """
    return bool(_HALF.search(text))


def asks_change(text: str) -> bool:
    """``text`` (normalised, lower case) asks to move a reminder to another time.

    >>> asks_change("把开会的提醒改到明天下午3点"), asks_change("move the meeting reminder to 4pm")
    (True, True)
    >>> asks_change("明天下午3点提醒我开会"), asks_change("remind me to move the car at 4pm")
    (False, False)
    """
    t = text.strip().lower()
    return bool(_ZH_CHANGE_RE.search(t) or _EN_CHANGE_RE.search(t))


def _covered(part: str, times: Iterable[str]) -> bool:
    """``part`` is one of the time phrases ``times`` (their text), give or take spaces and particles."""
    p = _FILLER.sub("", part).lower()
    p = re.sub(r"^(?:at|on|by|in|for)", "", p)
    return bool(p) and any(p == _FILLER.sub("", t).lower() for t in times)


def corrects_time(text: str, times: Iterable[str]) -> bool:
    """``text`` repairs only the time of what was just asked: both sides of its contrast (or its bare
    repair) are time phrases of the utterance (``times``: their text as the parse found them).

    >>> corrects_time("不是9点，是10点", ["9点", "10点"]), corrects_time("no, make it 10am", ["10am"])
    (True, True)
    >>> corrects_time("不是王芳，是李娜", []), corrects_time("是10点的会", ["10点"])
    (False, False)
    """
    t = text.strip()
    times = [x for x in times if x and x.strip()]
    if not times:
        return False
    m = _CONTRAST.match(t)
    if m:
        a, b = (m.group("a"), m.group("b")) if m.group("a") is not None else (m.group("a2"), m.group("b2"))
        return _covered(a, times) and _covered(b, times)
    m = _BARE.match(t)
    if m:
        return _covered(m.group("b") if m.group("b") is not None else m.group("b2"), times)
    return False


def topic_of(text: str, time_spans: Iterable[tuple[int, int]] = ()) -> str | None:
    """The words that name the reminder meant, or None when the request names none.

    :param text: the utterance, normalised and lower case (:func:`hermesd.nlu.normalize.normalize`).
    :param time_spans: spans of its time phrases in ``text``; they never name the topic.
    :return: e.g. "喝水" for "取消喝水的提醒", "吃药" for "不用提醒我吃药了", "dentist" for "cancel the
        dentist reminder", "call mom" for "turn off the reminder to call mom", "开会" for
        "把开会的提醒改到明天下午3点"; None for "取消那个提醒", "cancel that", "move my reminder to 5pm".
    """
    t = text.strip().lower()
    keep = list(t)
    for a, b in time_spans:
        for i in range(max(a, 0), min(b, len(t))):
            keep[i] = " "
    t = "".join(keep)
    m = re.search(_ZH_CHANGE + r"|" + _EN_CHANGE + r".{0,80}?\b(?:to|until|till)\b", t)
    if m is not None:  # the change's new time is not the topic: keep what names the reminder
        zh = re.match(_ZH_CHANGE, m.group())
        t = t[:m.start()] if zh else t[:m.start()] + re.sub(r"\b(?:to|until|till)\b\s*$", "", m.group())
    t = _ZH_DROP.sub(" ", t)
    t = _EN_DROP.sub(" ", t)
    words = [w for w in _FILLER.split(t) if w]
    out = " ".join(words).strip()
    out = re.sub(r"(?<=[\u4e00-\u9fff]) (?=[\u4e00-\u9fff])", "", out)
    return out or None
