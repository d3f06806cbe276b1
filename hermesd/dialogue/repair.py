"""Self-repair inside one utterance: "把报价单发给王芳，不对，是李娜", "明天提醒我开会，不对，是后天",
"send the contract to Zhang Wei, sorry, to Li Na" (pure).

A speaker who corrects themselves mid-utterance says the reparandum, an editing term and the repair
(Levelt 1983, "Monitoring and self-repair in speech", *Cognition* 14: reparandum — editing term —
repair; the repair replaces the reparandum's constituent). hermesd used to act on the reparandum:
the card went to 王芳 and a 好 sent it there. Here the repair is one mention of the same entity type
as a mention before the editing term, and the request is the part before the editing term with the
last such mention replaced by the repair — 把报价单发给李娜, 后天提醒我开会, send the contract to Li Na.

Editing terms: zh 不对 / 哦不 / 噢不 / 错了 / 说错了 / 搞错了 / 我是说 / 应该是, and 不是 / 不 followed by a pause
(不是，是李娜) — "发给王芳，不是李娜" is a contrast (to Wang Fang, not Li Na), no repair; en "no wait", "wait, no",
"sorry", "I mean", "no,", "actually". After the term, only the repair and the words that lead it
(是, 发给, 给, 改成, to, on, at, for, make it) may follow; anything more is a new request, not a repair.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import lazyre

__all__ = ["repaired"]

_TERM = lazyre.compile(
    r"[，,、;；]\s*(?:哦|噢|喔|啊|呃)?\s*(?:不对|不對|错了|錯了|说错了|說錯了|搞错了|搞錯了|我是说|我是說|应该是|應該是|(?:不是|不)(?=\s*[，,]))"
    r"(?:[，,]?\s*(?:我是说|我是說|应该是|應該是))?\s*[，,]?\s*"
    r"|(?i:[,;]\s*(?:no\s*,?\s*wait|wait\s*,?\s*no|sorry|i\s+mean|no|actually)\s*[,]?\s*)")
_LEAD = lazyre.compile(r"(?i)^(?:是|发给|發給|给|給|改成|改到|换成|換成|to|on|at|for|make\s+it|it'?s|it\s+is|the)\s*")
_TAIL = lazyre.compile(r"[\s。.!！吧啦了]*$")


def repaired(text: str, mentions: Sequence[tuple[str, tuple[int, int]]]) -> str | None:
    """The request ``text`` means once its self-repair is applied, or None when it has none.

    :param text: the utterance as typed; :param mentions: ``(entity type, (start, end))`` of the
        parse's entities and time expressions, spans into ``text``.
    :return: the part before the editing term with its last mention of the repair's type replaced
        by the repair's words, e.g. ``repaired("把报价单发给王芳，不对，是李娜", [("doc_type", (1, 4)),
        ("person", (6, 8)), ("person", (13, 15))]) == "把报价单发给李娜"``.
    """
    m = _TERM.search(text)
    if m is None:
        return None
    after = [(t, s) for t, s in mentions if s[0] >= m.end()]
    if len(after) != 1:
        return None
    etype, (a, b) = after[0]
    lead = _LEAD.match(text[m.end():a])
    if text[m.end() + (lead.end() if lead else 0):a].strip() or not _TAIL.fullmatch(text[b:]):
        return None  # more than a repair after the editing term
    before = [s for t, s in mentions if t == etype and s[1] <= m.start()]
    if not before:
        return None
    s0, s1 = before[-1]
    return text[:s0] + text[a:b] + text[s1:m.start()]
