"""Words of distress: someone saying they want to die or to hurt themselves.

Whatever the NLU makes of such an utterance, no action runs and nothing is kept as a task to
offer later: hermesd answers with one caring sentence (catalogue ``distress``) that says it cannot
help with this and points to people who can. The patterns are the everyday ways of saying it in
Chinese (Simplified and Traditional) and English; a false positive costs one kind sentence, a
miss could cost far more, so they lean wide.
"""

from __future__ import annotations


from .. import lazyre

__all__ = ["said"]

_ZH = lazyre.compile(r"(想|要|打算|准备)(去)?死|不想活|活不下去|活着没(意思|意义)|自杀|自殺|轻生|輕生|寻死|尋死"
                     r"|结束(自己的)?生命|結束(自己的)?生命|了结自己|了結自己|伤害自己|傷害自己")
_EN = lazyre.compile(r"(?i)\b(want(ed)?|going|wish|plan(ning)?)\s+(to\s+)?(die|kill\s+myself|end\s+(it\s+all|my\s+life))"
                     r"|\bkill(ing)?\s+myself\b|\bsuicid|\bend\s+my\s+life\b|\bdon'?t\s+want\s+to\s+(live|be\s+alive)"
                     r"|\bhurt(ing)?\s+myself\b|\bno\s+reason\s+to\s+live\b")


def said(text: str) -> bool:
    """True when ``text`` (normalised or raw) says the speaker wants to die or to hurt themselves."""
    return bool(text) and bool(_ZH.search(text) or _EN.search(text))
