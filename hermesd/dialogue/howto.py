"""A how-to question: "how do I restart nginx", "怎么重启nginx", "nginx怎么重启" (pure).

Asking how a thing is done asks for instructions; it is not the request to do it. The classifier
reads the content words (重启, nginx) and would put the action on a card, where a plain "对" then
ran it. The shapes:

- zh: 怎么 / 怎样 / 如何 / 怎么样才能 / 该怎么 before the verb ("怎么重启nginx", "nginx该怎么重启",
  "如何发合同") — not 怎么了 / 怎么回事 / 怎么样 (what happened, how is it), nor 怎么还 / 怎么又 /
  怎么没 (a complaint: why has it not …);
- en: how + do / does / can / could / should / would / to + (I / you / we / one) + verb ("how do I
  restart nginx", "how to send a contract", "how can I reboot the device") — not "how much",
  "how many", "how long", "how is", "how are" (a question about a quantity or a state, which a
  check answers).

:func:`request_of` gives the request the question is about ("重启nginx", "restart nginx"), said
back so the person knows how to ask for it.
"""

from __future__ import annotations

import re

from .. import lazyre

__all__ = ["asks_how", "request_of"]

_ZH = lazyre.compile(r"(?:该|應該|应该|要)?(?:怎么样才能|怎樣才能|怎样才能|怎么才能|怎么|怎麼|怎样|怎樣|如何)"
                     r"(?!了|回事|样|樣|搞的|还|還|又|没|沒|不|会|會|办|辦|说|說)(?=[\u4e00-\u9fffA-Za-z])")
_EN = lazyre.compile(r"^(?:so\s+|and\s+|but\s+)?how\s+(?:do|does|can|could|should|would|to|might)\s+"
                     r"(?:(?:i|you|we|one|someone|people)\s+)?(?:go\s+about\s+)?(?=[a-z])")


def asks_how(text: str) -> bool:
    """``text`` (normalised, lower case) asks how to do something.

    >>> asks_how("how do i restart nginx"), asks_how("怎么重启nginx"), asks_how("nginx怎么重启")
    (True, True, True)
    >>> asks_how("how much disk space is left"), asks_how("网络怎么了"), asks_how("重启nginx")
    (False, False, False)
    """
    t = text.strip().lower()
    return bool(t) and bool(_ZH.search(t) or _EN.match(t))


def request_of(text: str) -> str:
    """The request a how-to question is about, as one would ask for it ("怎么重启nginx" → "重启nginx",
    "nginx怎么重启" → "重启nginx", "how do I restart nginx?" → "restart nginx"); the text itself
    when no shape matches."""
    t = text.strip().rstrip("?？。.!！ ").strip()
    low = t.lower()
    m = _EN.match(low)
    if m:
        rest = t[m.end():]
        return rest[0].lower() + rest[1:] if rest else t
    m = _ZH.search(low)
    if not m:
        return t
    before, after = t[:m.start()], t[m.end():]
    after = re.sub(r"[呢啊呀吧]+$", "", after)
    before = re.sub(r"(?:我|你|我们|咱们)$", "", before)
    return f"{after}{before}" if before and not after.endswith(before) else after or t
