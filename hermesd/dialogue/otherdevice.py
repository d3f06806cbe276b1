"""Device talk that is no request to check this device (pure): another device named, or a what-to-do question.

The classifier reads the content words of a sentence (storage, 内存, full), so "my phone's storage is full"
came back as this device's disk report and "内存不够用了怎么办" as its status report. Two shapes are no
request to read this device's state, whatever intent the words suggest:

- **another device**: the sentence is about a phone, a laptop, a tablet, a computer, a TV or a watch — a
  person's own device, never the one hermesd runs on ("my phone's storage is full", "my laptop is out of
  space", "手机内存不够了", "我电脑磁盘满了", "平板没网了"). zh 手机 / 电脑 / 笔记本 / 平板 / 电视 / 手表
  said anywhere (手机号 is a phone number, not a phone); en phone, iPhone, Android, smartphone, laptop,
  notebook, MacBook, tablet, iPad, TV, smartwatch said anywhere, and computer, PC, Mac, desktop, watch,
  console after a possessive ("my computer", "her mac": "the computer" may be this one);
- **what to do**: the sentence asks what to do about a state rather than for the state ("内存不够用了
  怎么办", "磁盘满了该怎么处理", "what should I do if the disk is full", "how do I free up memory"):
  hermesd can show the state, not advise; it says so and how to ask for the state.

A request that names this device ("设备的内存用了多少", "this device's disk") is about this device: the
caller checks the parse's ``this_device`` entity before asking :func:`other_device`.
"""

from __future__ import annotations

from .. import lazyre
from .howto import asks_how

__all__ = ["asks_what_to_do", "other_device"]

#: another device said in Chinese (Simplified, or Traditional where the normaliser's table leaves it); 手机号 is a
#: phone number
_ZH_OTHER = lazyre.compile(r"手[机機](?![号號])|[笔筆][记記]本(?:[电電][脑腦])?|[电電][脑腦]|平板(?:[电電][脑腦])?|[电電][视視]机?|"
                           r"手[表錶]|iphone|ipad|安卓")
#: another device said in English: these nouns anywhere ...
_EN_OTHER = lazyre.compile(r"(?i)\b(?:(?:cell\s*|mobile\s*|smart\s*)?phones?|iphones?|android|smartphones?|laptops?|"
                           r"notebook\s+computer|macbooks?|tablets?|ipads?|kindle|tv|television|smart\s*watch)(?:'s|’s)?\b"
                           # ... and these after a possessive ("the computer" may be this one)
                           r"|\b(?:my|your|his|her|our|their|[a-z]+'s|[a-z]+’s)\s+(?:old\s+|new\s+|work\s+|home\s+)?"
                           r"(?:computer|pc|mac|desktop|watch|console|xbox|playstation)(?:'s|’s)?\b")
#: a phone as a number or a call, not a device ("phone number", "on the phone", "phone her")
_EN_NOT_DEVICE = lazyre.compile(r"(?i)\bphone\s+(?:number|call|calls|line|book)\b|\bon\s+the\s+phone\b|"
                                r"\b(?:phone|call)\s+(?:him|her|them|me|us)\b")

#: asking what to do about a state: zh 怎么办 / 咋办 / 该怎么处理 / 如何解决 …
_ZH_WHAT_TO_DO = lazyre.compile(r"怎么[办辦]|咋[办辦]|怎么弄|咋弄|怎么处理|如何处理|怎么解决|如何解决|该怎么做|应该怎么做|要怎么做|"
                                r"怎么清理|如何清理|怎么释放|如何释放|有什么办法|有啥办法")
_EN_WHAT_TO_DO = lazyre.compile(r"(?i)\bwhat\s+(?:should|do|can|must|shall)\s+(?:i|we)\s+do\b|\bwhat\s+(?:can|should)\s+be\s+done\b|"
                                r"\bwhat\s+do\s+you\s+(?:suggest|recommend)\b|\bany\s+(?:advice|tips|suggestions)\b|"
                                r"\bhow\s+(?:do|can|should|could)\s+(?:i|we)\s+(?:fix|free|clear|clean|solve|get\s+more|reduce|speed)\b")


def other_device(text: str) -> str | None:
    """The other device ``text`` (normalised, lower case or not) talks about, as said ("手机", "phone",
    "my laptop"), or None when it names none.

    >>> other_device("my phone's storage is full"), other_device("手机内存不够了"), other_device("磁盘还剩多少")
    ('phone', '手机', None)
    >>> other_device("李娜的手机号是多少"), other_device("what is her phone number")
    (None, None)
    """
    m = _ZH_OTHER.search(text)
    if m:
        return m.group()
    not_device = [x.span() for x in _EN_NOT_DEVICE.finditer(text)]
    for m in _EN_OTHER.finditer(text):
        if not any(a <= m.start() < b for a, b in not_device):
            word = m.group().split()[-1]  # the noun, without its possessive ("my computer" → computer)
            return word[:-2] if word.endswith(("'s", "’s")) else word
    return None


def asks_what_to_do(text: str) -> bool:
    """``text`` (normalised) asks what to do about something ("内存不够用了怎么办", "what should I do if the
    disk is full") or how to do it (:func:`~hermesd.dialogue.howto.asks_how`), not for a state.

    >>> asks_what_to_do("内存不够用了怎么办"), asks_what_to_do("the disk is full, what should i do?")
    (True, True)
    >>> asks_what_to_do("内存用了多少"), asks_what_to_do("how much disk is left")
    (False, False)
    """
    return bool(_ZH_WHAT_TO_DO.search(text) or _EN_WHAT_TO_DO.search(text)) or asks_how(text)
