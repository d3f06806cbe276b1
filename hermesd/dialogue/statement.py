"""A statement is not a request: "我昨天已经把报价单发给李娜了", "I sent the quote to Li Na yesterday",
"this printer is dead again" (pure).

The classifier reads content words (报价单, 发, 李娜; "again") and would put the action on a card.
But the speaker is telling, not asking: a report of what they did, or a remark about how a thing is.
Requests have other shapes — an imperative (verb first: "send …", "把…发给…"), a question (an
auxiliary or a question word first, a question particle last), or a want ("I'd like …", "我要…").
The statement shapes, from the grammar of each language:

- ``done`` — the speaker reports having done it: zh 我/我们 as subject, no modal of wanting or asking
  (要, 想, 得, 需要, 能, 可以, 打算, 准备, 帮我, 请, 麻烦 …) before the verb, and the perfective of the
  past — 已经 / 已 / 刚刚 / 刚才 / 早就, a past day (昨天, 前天, 上周 …) or a clause-final 了 / 过 (Li &
  Thompson 1981, *Mandarin Chinese*, §6); en "I" / "we" + a verb in the simple past or the perfect
  ("I sent", "we have forwarded", "I already restarted"), but not the past of wanting, meaning or
  asking ("I wanted to …", "I meant Li Na", "I needed …": those are requests and corrections);
- ``state`` — a remark about a thing (en): a determiner or a pronoun subject, a copula or a verb of
  state after it ("this printer is dead again", "the printer keeps jamming", "it's broken"), with no
  request verb of its own after that ("the disk is full, check it" asks).

A question ("我发给李娜了吗", "I sent it, didn't I?") is none of these (:mod:`.lastaction` reads it), nor
what was said before ("我刚才说的是李娜" corrects). The session reads these only for a request that
acts (a card or a hand-off): "my phone number is …" is kept by memory, "my order number is …" looked up.
"""

from __future__ import annotations

from .. import lazyre

__all__ = ["statement"]

_QUESTION = lazyre.compile(r"[?？]|(?:吗|嗎|么|麼|没有|沒有|没|沒|呢)\s*[。.!！]?\s*$")
_ZH_SUBJECT = lazyre.compile(r"^(?:我|我们|我們|咱们|咱們)(?!要|想|得|需要|能|可以|打算|准备|準備|希望|让你|讓你|请|請)")
#: question words: 我上周发了哪些文件 / 我的订单到哪了 ask, whatever their 了
_ZH_ASKS = lazyre.compile(r"哪|什么|什麼|谁|誰|几|幾|多少|怎么|怎麼|为什么|為什麼|是否|有没有|有沒有")
_ZH_MODAL = lazyre.compile(r"要|想|需要|能不能|可以|打算|准备|準備|希望|帮我|幫我|给我|給我|请你|請你|麻烦|麻煩|让你|讓你|得把")
_ZH_PAST = lazyre.compile(r"已经|已經|已|刚刚|剛剛|刚才|剛才|早就|昨天|前天|上周|上週|上个月|上個月|之前|(?:了|过|過)\s*[。.!！~]*\s*$")
_EN_EXCEPT = (r"wanted|needed|meant|hoped|wondered|intended|planned|tried|asked|decided|preferred|liked|loved|"
              r"forgot|would|could|should|might|need|want|wanna|'d|had better")
_EN_DONE = lazyre.compile(r"^(?:so\s+|well\s+|btw\s+|fyi\s+)?(?:i|we)\s+(?:(?:already|just|have|'ve|had|'d|also|actually)\s+)*"
                      rf"(?!(?:{_EN_EXCEPT})\b)"
                      r"(?:[a-z]+ed|sent|did|made|gave|told|put|set|got|took|wrote|brought|paid|rang|ran|left|sold|"
                      r"shut|sent off|read)\b")
_EN_STATE = lazyre.compile(r"^(?:this|that|these|those|the|my|our|his|her|their|its|it|it's|it’s)\b(?:\s+[a-z0-9'-]+){0,3}?"
                       r"(?:'s|\s+(?:is|are|was|were|has|have|had|keeps|kept|seems|looks|went|got|broke|died|stopped|won't|doesn't|isn't))\b")
#: a request verb after the remark makes it a request ("the disk is full, check it")
_EN_ASKS = lazyre.compile(r"[,;]\s*(?:please\s+|can you\s+|could you\s+)?[a-z]+\s+(?:it|them|the|my|this|that)\b|\b(?:please|can you|could you)\b")


def statement(text: str) -> str | None:
    """``"done"`` when ``text`` reports the speaker did it, ``"state"`` when it remarks how a thing is,
    else None (a request, a question, or anything else).

    :param text: the utterance, normalised and lower case (:func:`hermesd.nlu.normalize.normalize`).

    >>> statement("我昨天已经把报价单发给李娜了"), statement("i sent the quote to li na yesterday")
    ('done', 'done')
    >>> statement("this printer is dead again"), statement("把报价单发给李娜"), statement("我发给李娜了吗")
    ('state', None, None)
    """
    t = text.strip().lower()
    if not t or _QUESTION.search(t):
        return None
    if _ZH_SUBJECT.match(t):
        if "说" in t or "說" in t or _ZH_ASKS.search(t):
            return None  # 我刚才说的是李娜 corrects; 我上周发了哪些文件 asks
        head = t[:max(1, len(t) // 2)]
        if not _ZH_MODAL.search(head) and _ZH_PAST.search(t):
            return "done"
        return None
    if _EN_DONE.match(t):
        return "done"
    if _EN_STATE.match(t) and not _EN_ASKS.search(t):
        return "state"
    return None
