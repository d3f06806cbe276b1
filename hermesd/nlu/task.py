"""The task of a request, in the user's own words: "提醒我后天上午给王会计回电话" → "给王会计回电话" (pure).

A reminder should read back what is to be done, not the whole utterance. :func:`strip_request`
removes, from the original text:

1. the request words (triggers): 提醒我 / 记得提醒我 / 别忘了提醒我 / 帮我设个提醒 / 到时候叫我 /
   别让我忘了, "remind me", "set a reminder", "don't let me forget" — every occurrence. Only
   when none is present, the first weaker one (叫我, 记得, 别忘了, "remember", "ping me"): those
   are ordinary words inside a task ("提醒我叫我妈回电话" keeps its 叫我) — unless one leads the
   request, with only a time phrase or an opener before it ("别忘了下周一早上八点提醒我去银行":
   its 别忘了 is part of the request);
2. every time expression (the spans :func:`~hermesd.nlu.temporal.parse_times` found), with the
   words that only join it to the sentence: before it 在 / 于 / on / at / in / by / for / around /
   before / after / until; after it 的时候 / 时 / 之前 / 以前 / 前 / 之后 / 以后 / 后 / 的;
3. what is left dangling at the edges: punctuation, an infinitive or linking word at the start
   ("to", "that", "about", "of", 要, 记得), a polite opener at the very start of the utterance
   (请 / 麻烦 / 帮我 / please / can you), sentence-final particles and thanks at the end
   (哦 / 吧 / 啊 / 好吗 / 谢谢 / please / thanks).

Matching runs on the normalised text (:mod:`.normalize`: full-width folded, Traditional mapped to
Simplified, Chinese numerals as digits), and the answer is cut from the original text, so it keeps
the user's script, width and casing ("給王會計回電話", "Call Mom", "ｃａｌｌ ｍｏｍ"). Pieces on
either side of a removed phrase are joined with nothing between two Chinese characters and one
space otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .. import lazyre
from .clock import impossible_clocks
from .normalize import Normalized, normalize
from .spelling import Speller

if TYPE_CHECKING:
    from .parser import ParseResult

__all__ = ["leading_trigger", "strip_request", "task_text"]

_ONE = r"(?:1|一)?"  # "一个" is normalised to "1个"
_ZH_STRONG = [
    r"(?:记得|别忘了|別忘了|不要忘了|别忘记|別忘記|别忘記|不要忘记|不要忘記)?要?再?提醒(?:一下)?我(?:一下)?",
    rf"(?:帮我|给我|替我|幫我)?(?:设置|设定|设|定|新建|创建|創建|建|添加|加|来|弄){_ONE}(?:个|条|條)?提醒(?:一下)?",
    r"到时候?(?:记得)?(?:叫|喊|提醒)我(?:一下)?",
    r"(?:别|別|不要)(?:让|讓)我忘(?:了|记|記)?",
]
_EN_STRONG = [
    r"remind\s+me(?:\s+again)?",
    r"(?:set|create|add|make|put\s+in|schedule)(?:\s+up)?\s+(?:a\s+|an\s+|me\s+a\s+|my\s+|the\s+|one\s+)?reminders?",
    r"reminders?\s*:",
    r"(?:don'?t|do\s+not)\s+(?:let\s+me\s+forget|forget\s+to\s+remind\s+me)",
]
_ZH_WEAK = [r"(?:叫|喊)我(?:一下)?", r"记得|别忘了|別忘了|不要忘了|别忘记|不要忘记", r"提醒(?:一下)?"]
_EN_WEAK = [r"(?:ping|nudge|alert|notify|tell)\s+me", r"remember|(?:don'?t|do\s+not)\s+forget"]

_B, _E = r"(?<![a-z0-9'])", r"(?![a-z0-9'])"  # English word edges in the normalised (lower-case) text


def _alt(zh: list[str], en: list[str]) -> re.Pattern[str]:
    return re.compile("|".join([*zh, *(f"{_B}(?:{p}){_E}" if not p.endswith(":") else f"{_B}(?:{p})" for p in en)]))


_STRONG = _alt(_ZH_STRONG, _EN_STRONG)
_WEAK = _alt(_ZH_WEAK, _EN_WEAK)

#: the English words the triggers are made of: one typed a letter off ("remnd me", "set a remider") is
#: still the trigger (:class:`.spelling.Speller` over these words alone, so no other word is touched)
_TRIGGER_WORDS = Speller(["remind", "reminder", "reminders", "remember", "forget", "create", "schedule",
                          "notify", "alert", "nudge", "ping", "tell"])
_EN_WORD = lazyre.compile(r"(?<![a-z0-9'])[a-z]+(?![a-z0-9'])")


def _spelled(t: str) -> tuple[str, list[int]]:
    """``t`` with its trigger words typed a letter off spelled right, and for each index of the result
    the index of ``t`` it stands for (a replaced word's letters all stand inside the word typed)."""
    out: list[str] = []
    back: list[int] = []
    pos = 0
    for m in _EN_WORD.finditer(t):
        w = _TRIGGER_WORDS.word(m.group())
        if w is None:
            continue
        out.append(t[pos:m.start()])
        back += range(pos, m.start())
        out.append(w)
        back += [min(m.start() + k, m.end() - 1) for k in range(len(w))]
        pos = m.end()
    out.append(t[pos:])
    back += range(pos, len(t))
    return "".join(out), back

# words that only join a time phrase to the sentence
_BEFORE_TIME = lazyre.compile(rf"(?:(?:在|于|於)\s*|{_B}(?:on|at|in|by|for|around|about|before|after|until|till|from|the)\s+)+$")
# 前 alone ("月底前", "周五前") is "before" too, unless it starts a word of its own (前台, 前往, 前面 …)
_AFTER_TIME = lazyre.compile(r"\s*(?:的时候|时候|的時候|之前|以前|之后|之後|以后|以後|前(?![台面往边邊门門后後天年辈輩任进進排线線夕途景言])"
                             r"|[后後](?![面边邊台门門来來果悔续續])|时|時|的)")

_PUNCT = r"[\s,.;:!?~\-\"'()\[\]<>/|*]"
_PUNCT_CH = lazyre.compile(_PUNCT)
# discourse words that say how the speaker goes on, never what is to be done ("actually remind me …",
# "remind me to actually call mom", "其实提醒我…"): an opener, or dangling at the task's start
_DISCOURSE = r"actually|so|well|oh|oops|sorry|um|uh|er|hmm|anyway|also"
#: Mandarin discourse markers that lead or link a request and name no task ("那就下周一吧", "还是下周一中午吧",
#: "好的，下午五点提醒我吧", "不对，下午五点提醒我"): a task that is only these is none (it was saved as the
#: reminder's text: "提醒你那就"), and one they lead or end is kept without them ("明天提醒我那就交房租吧")
_ZH_MARKERS = r"那就|那么|那麼|那还是|那還是|还是|還是|好的|好吧|不对|不對|对了|對了|要不然|要不"
_LEAD = lazyre.compile(rf"^(?:{_PUNCT}+|(?:to|that|about|of|for|and|then|alright|all\s+right|{_DISCOURSE}){_E}|要(?=.)|记得|記得|一下|其实|其實|"
                       rf"{_ZH_MARKERS})")
_MARKERS_ONLY = lazyre.compile(rf"^(?:{_ZH_MARKERS}|那|就|好|行|嗯|呃|对|對|是|{_PUNCT})+$")
_OPENER = lazyre.compile(rf"^(?:{_PUNCT}+|请你?|請你?|麻烦你?|麻煩你?|帮我|幫我|能不能|可以|其实|其實|嗯|呃|{_ZH_MARKERS}|"
                     rf"(?:please|pls|kindly|hey|hi|ok|okay|alright|all\s+right|can\s+you|could\s+you|would\s+you|will\s+you|"
                     rf"{_DISCOURSE}){_E})")
# "…to buy milk then", "…instead", "交房租吧那就": words that link the request to the talk, at its end
_TRAIL = lazyre.compile(rf"(?:{_PUNCT}+|哦|喔|噢|吧|啊|呀|哈|啦|嘛|呢|哟|好吗|好嗎|好不好|可以吗|行吗|谢谢|謝謝|谢了|那就|还是|還是|"
                    rf"{_B}(?:please|pls|thanks|thank\s+you|ok|okay|then|instead))$")


def strip_request(text: str | Normalized, time_spans: Iterable[tuple[int, int]] = ()) -> str | None:
    """The task words of a request: the text without its request words, time phrases and joiners.

    :param text: the original utterance, or its :class:`Normalized` form.
    :param time_spans: ``(start, end)`` spans of the time expressions, indexing the *original*
        text (``TimeExpr.span``), in any order; overlapping spans are fine.
    :return: a slice-and-join of the original text (its script, width and casing kept), or None
        when nothing is left ("明天提醒我", "set a reminder for tomorrow morning").
    """
    norm = text if isinstance(text, Normalized) else normalize(text)
    t = norm.text
    keep = [True] * len(t)

    def drop(a: int, b: int) -> None:
        for i in range(max(a, 0), min(b, len(t))):
            keep[i] = False

    for s, e in time_spans:
        a, b = norm.nspan(s, e)
        if b <= a:
            continue
        drop(a, b)
        m = _BEFORE_TIME.search(t, 0, a)
        if m:
            drop(m.start(), a)
        m = _AFTER_TIME.match(t, b)
        if m:
            drop(b, m.end())
    pos = 0  # polite openers count only at the very start of the utterance
    while (m := _OPENER.match(t, pos)) and m.end() > pos:
        drop(pos, m.end())
        pos = m.end()
    # the triggers are found with their words spelled right ("remnd me"), in the words left once the time
    # phrases are out: "set a daily reminder" is "set a reminder" said with its recurrence inside
    left = [i for i in range(len(t)) if keep[i]]
    s, back0 = _spelled("".join(t[i] for i in left))
    back = [left[j] for j in back0]

    def spans(rx: re.Pattern[str]) -> list[tuple[int, int]]:
        return [(back[m.start()], back[m.end() - 1] + 1) for m in rx.finditer(s) if m.end() > m.start()]

    strong = spans(_STRONG)
    for a, b in strong or spans(_WEAK)[:1]:
        drop(a, b)
    if strong:  # a weak trigger that leads the request belongs to it ("别忘了{time}提醒我…")
        for a, b in spans(_WEAK):
            if a >= strong[0][0] or not all(not keep[i] or _PUNCT_CH.match(t[i]) for i in range(a)):
                break
            drop(a, b)
    kept = [i for i in range(len(t)) if keep[i]]
    kept = _trim(t, kept)
    if not kept or _MARKERS_ONLY.match("".join(t[i] for i in kept)):
        return None
    return _join(norm, kept) or None


def _trim(t: str, kept: list[int]) -> list[int]:
    """Drop dangling words and punctuation at both ends of the kept characters."""
    while kept:
        k = "".join(t[i] for i in kept)
        m = _LEAD.match(k)
        if m and m.end():
            kept = kept[m.end():]
            continue
        m = _TRAIL.search(k)
        if m and m.end() > m.start():
            kept = kept[:m.start()]
            continue
        break
    return kept


def _join(norm: Normalized, kept: list[int]) -> str:
    """Cut the kept characters' runs from the original text and join them."""
    runs: list[tuple[int, int]] = []
    for i in kept:
        if runs and runs[-1][1] == i:
            runs[-1] = (runs[-1][0], i + 1)
        else:
            runs.append((i, i + 1))
    out = ""
    prev_last = ""
    for a, b in runs:
        s, e = norm.span(a, b)
        piece = norm.original[s:e].strip()
        first = norm.text[a:b].strip()[:1]
        if not piece:
            continue
        if out and (_latin(prev_last) or _latin(first)):
            out += " "
        out += piece
        prev_last = norm.text[a:b].strip()[-1:]
    return out.strip()


def _latin(ch: str) -> bool:
    return bool(ch) and ch.isascii() and ch.isalnum()


def leading_trigger(text: str | Normalized, time_spans: Iterable[tuple[int, int]] = ()) -> str | None:
    """The request words (a strong trigger: 提醒我, 帮我设个提醒, "remind me", "set a reminder") that
    open the request — only time phrases, a polite opener or punctuation before them — with a task
    after them; else None.

    Such a request is to be reminded: what follows is the task, whatever it says ("提醒我明天把报价单发给
    王芳" is a reminder to send, not a send; the trigger is the main verb, the rest its complement).

    >>> leading_trigger("提醒我明天把报价单发给王芳"), leading_trigger("把报价单发给王芳")
    ('提醒我', None)
    """
    norm = text if isinstance(text, Normalized) else normalize(text)
    t = norm.text
    m = _STRONG.search(t)
    if m is None or not t[m.end():].strip(" ,，:：。.!！"):
        return None
    before = [True] * m.start()
    for s, e in time_spans:
        a, b = norm.nspan(s, e)
        for i in range(max(a, 0), min(b, m.start())):
            before[i] = False
    pos = 0
    while (o := _OPENER.match(t, pos, m.start())) and o.end() > pos:
        for i in range(pos, o.end()):
            before[i] = False
        pos = o.end()
    rest = "".join(ch for i, ch in enumerate(t[:m.start()]) if before[i])
    rest = _AFTER_TIME.sub("", rest)
    return m.group() if not rest.strip(" ,，:：在于") else None


def task_text(parsed: ParseResult, context: Iterable[tuple[int, int]] = ()) -> str | None:
    """The task of a parsed request (a reminder's text): :func:`strip_request` over its own times.

    :param parsed: the utterance's :class:`~hermesd.nlu.parser.ParseResult`.
    :param context: spans (original text) of clauses that only tell what happened ("昨天开会的时候老板说了，
        …", :func:`hermesd.dialogue.clauses.request_times`): left out of the task, unless nothing is left
        without them ("我昨天忘了交报告，明天提醒我": the task is said in the context).
    :return: the task in the user's words, or None when the utterance names no task.

    A clock time that does not exist ("25点", :func:`~hermesd.nlu.clock.impossible_clocks`) is a time
    phrase too: it is never part of the task, even though no time was read from it. A recurrence (每天早上7点)
    is a time phrase as well: the rule that reads it (reminder.set.recurring) says it is not kept.
    """
    norm = normalize(parsed.text)
    bad = [norm.span(*c.span) for c in impossible_clocks(norm.text)]
    spans = [*(sp for x in parsed.times for sp in x.spans), *bad]
    context = list(context)
    if context:
        task = strip_request(norm, [*spans, *context])
        if task:
            return task
    return strip_request(norm, spans)
