"""A question about what was just done: "是不是发错了", "发给谁了", "did that go to the wrong person?" (pure).

Such a question is about the conversation, not a new request: it is answered from the session's
own record — the newest turn that ran a tool successfully, said back in the words its reply used
("已把报价单Q-2024-061.pdf发给王芳。") — and how to put it right, never by running a tool the words
happen to resemble (发错 is no network check). The shapes, zh and en:

- zh: (是不是 / 是否 / 有没有 / 会不会) + a doing verb + 错 (发错了, 发错人了吗, 弄错了没有); (刚才)发给谁了 /
  发给了谁 / 发到哪了; 刚才(你)做了什么 / 发了什么; 发出去了吗 / 发成功了吗 / 发到了吗;
- en: did that / it / you … (go | get sent | send it) to the wrong / right person; who did that / it go
  to; who did you send it / that to; what did you just do / send; did that / it go through.

:func:`asks_about_last` reads the utterance (normalised, lower case); :func:`last_done` finds what
to say from the session history (its traces, newest last).

A question whether something was done at all — "报价单发给王芳了吗", "合同发了没有", "设备重启了吗",
"did you send the quote to Wang Fang?", "has the device been restarted?" — names its action in
content words the classifier reads as that request; :func:`asks_if_done` tells it apart by the
grammar of a question about the past:

- zh: the perfective 了 (or experiential 过) closed by a yes/no question — 了吗 / 了没有 / 了没 / 过吗 /
  过没有 / 了么 (Li & Thompson 1981, *Mandarin Chinese*, §6 on 了 and §18 on questions: V了没有 is the
  A-not-A question of the perfective); or 有没有 / 是否 / 是不是 + V + 过/了 / 已经 + V + 了吗;
- en: an auxiliary of the past or the perfect opening a question — did / has / have / was / were
  (+ the doer or the thing) + the verb ("did you send …", "has the device restarted", "was the
  quote sent"). A polite request opens with can / could / would / will, never with these.
- when it was done, about the past: zh 上次 / 上一次 / 最近一次 / 最后一次 / 上回 … 什么时候 / 哪天 / 几点 / 几号
  ("我上次什么时候重启的nginx", "上一次重启nginx是什么时候"), or the 是…的 of a past act asked by when
  ("nginx是什么时候重启的", Li & Thompson §20.3: 是…的 focuses a detail of a past event); en when / what
  time / what day / how long ago + did / was / were / has / have / had ("when did I last restart nginx", "when
  was the device last rebooted"), "when was the last time …" — a question about a future act ("什么时候重启
  nginx", "when will you restart nginx") is none of these;
- to whom it went, about the past: zh 发给谁了 / 发给了谁 / 是发给谁的 ("合同发给谁了"); en who did I / you
  send … to, who was … sent to, to whom was … sent, who got the … ("who did I send the contract to") —
  answered with the recipient memory has.

Such a question is answered from what was done, never by doing it (the session decides how:
:meth:`hermesd.session.pipeline.Pipeline._asked`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .. import lazyre

__all__ = ["asks_about_last", "asks_if_done", "last_done", "offered_list"]

_ZH_VERB = r"(?:发|發|寄|传|傳|转|轉|做|弄|搞|设|設|办|辦|填|选|選)"
_ZH = lazyre.compile(
    r"^(?:刚才|刚刚|剛才|剛剛|你)?(?:"
    r"(?:是不是|是否|有没有|有沒有|会不会|會不會)?(?:你)?" + _ZH_VERB + r"错(?:了)?(?:人|对象|文件)?(?:了)?(?:吧|吗|嗎|么|麼|没有|沒有|呢)?"
    r"|(?:是)?(?:发|發|寄|传|傳|转|轉)(?:给|給)(?:了)?(?:谁|誰)(?:了|的)?(?:呢|啊)?"
    r"|(?:发|發|寄|传|傳)到(?:哪|哪里|哪儿)(?:了|去了)?"
    r"|(?:你)?(?:做|干|幹|发|發)了(?:什么|什麼|啥)(?:事)?"
    r"|(?:发|發|寄|传|傳)(?:出去|成功|到)了(?:吗|嗎|么|没有|沒有)"
    r")[?？!！。.]*$")
_EN = lazyre.compile(
    r"^(?:did|was|has|have)\s+(?:that|it|this|you|the\s+\w+)\s+(?:just\s+)?(?:go|gone|get|got|been|being)?\s*(?:sent\s+)?"
    r"(?:send\s+(?:it|that)\s+)?(?:to|go\s+to)\s+the\s+(?:wrong|right|correct)\s+(?:person|people|one|address|recipient)\??$"
    r"|^did\s+(?:you|i)\s+send\s+(?:it|that|this|the\s+\w+)\s+to\s+the\s+(?:wrong|right|correct)\s+(?:person|one|recipient)\??$"
    r"|^who\s+did\s+(?:that|it|this)\s+(?:just\s+)?go\s+to\??$"
    r"|^who\s+did\s+you\s+(?:just\s+)?send\s+(?:it|that|this)\s+to\??$"
    r"|^what\s+did\s+you\s+just\s+(?:do|send)\??$"
    r"|^did\s+(?:that|it)\s+(?:go\s+through|get\s+sent|work)\??$"
    r"|^(?:is|was)\s+(?:that|it)\s+(?:a\s+)?(?:mistake|wrong)\??$")


_ZH_DONE = lazyre.compile(
    r"(?:了|过|過)(?:吗|嗎|么|麼|嘛|没有|沒有|没|沒|未)[?？。!！\s]*$"
    r"|(?:发|發|寄|传|傳|转|轉|交)(?:给|給)(?:了(?:谁|誰)|(?:谁|誰)(?:了|的))(?:呢|啊|呀)?[?？。!！\s]*$"
    r"|(?<![要该該])(?:是|都)(?:发|發|寄|传|傳|转|轉|交)(?:给|給)(?:谁|誰)(?:的)"
    r"|^(?:你)?(?:有没有|有沒有|是否|是不是)(?:已经|已經)?.{1,20}?(?:了|过|過)")
_ZH_WHEN_WORD = r"(?:什么时候|什麼時候|啥时候|哪天|哪一天|几点|幾點|几号|幾號)"
#: when it was done: 上次 … 什么时候 (上一次重启nginx是什么时候); 什么时候 … 的 opening the question (你什么时候重启的
#: nginx); 是什么时候 … 的 closing it (nginx是什么时候重启的)
_ZH_WHEN = lazyre.compile(
    r"(?:上次|上一次|上一回|上回|最近一次|最后一次|最後一次).{0,20}?(?:" + _ZH_WHEN_WORD[3:-1] + r"|多久(?:以前|之前|前))"
    r"|^(?:(?:你|您|我|我们|我們|咱们|咱們|他|她)(?:是)?)?" + _ZH_WHEN_WORD + r"(?!.{0,2}(?:要|会|會|能|可以|该|該|打算|准备|準備))[^的]{1,20}的"
    r"|是" + _ZH_WHEN_WORD + r".{1,20}?的[?？。!！\s]*$")
_EN_DONE = lazyre.compile(r"^(?:did|didn'?t|has|hasn'?t|have|haven'?t|was|wasn'?t|were|weren'?t)\s+"
                          r"(?:you|it|that|this|they|he|she|we|i|the\s+\w+|my\s+\w+|\w+)\b"
                          r"|^(?:who|whom)\s+(?:did|have|has|had)\s+(?:i|you|we|they)\s+(?:just\s+)?(?:send|sent|give|given|forward|forwarded|mail|mailed|email|emailed)\b.*\bto\s*\??$"
                          r"|^(?:to\s+whom|who)\s+(?:was|were|has|have|did)\s+.+?\b(?:sent|go|gone|given|forwarded|mailed|emailed)\b(?:\s+to)?\s*\??$"
                          r"|^who\s+(?:got|received|has\s+got|has\s+received)\s+(?:the|my|that|our)\s+\w+"
                          r"|^(?:when|what\s+time|what\s+day|what\s+date|how\s+long\s+ago)\s+(?:did|was|were|has|have|had)\b"
                          r"|^(?:when|what)\s+was\s+the\s+last\s+time\b")
#: a request that carries a question inside it (提醒我问问他是什么时候来的, "remind me to ask when he left"): the
#: when-question is the reminder's task, not asked now
_REQUEST_HEAD = lazyre.compile(r"^(?:请|請|麻烦|麻煩|帮我|幫我|提醒|记得|記得|告诉|告訴|问问|問問|remind|tell|ask|please)")


def asks_if_done(text: str) -> bool:
    """``text`` (normalised, lower case) asks whether something was done (a question about the past).

    >>> asks_if_done("报价单发给王芳了吗"), asks_if_done("did you send the quote to wang fang?")
    (True, True)
    >>> asks_if_done("把报价单发给王芳"), asks_if_done("can you send the quote to wang fang?")
    (False, False)
    >>> asks_if_done("when did i last restart nginx"), asks_if_done("nginx是什么时候重启的"), asks_if_done("什么时候重启nginx")
    (True, True, False)
    """
    t = text.strip().lower()
    return bool(t) and bool(_ZH_DONE.search(t) or _EN_DONE.match(t)
                            or (_ZH_WHEN.search(t) and not _REQUEST_HEAD.match(t)))


def asks_about_last(text: str) -> bool:
    """``text`` (normalised, lower case) asks about what was just done.

    >>> asks_about_last("是不是发错了"), asks_about_last("did that go to the wrong person?")
    (True, True)
    >>> asks_about_last("把报价单发给王芳")
    False
    """
    t = text.strip().lower()
    return bool(t) and bool(_ZH.match(t) or _EN.match(t))


def last_done(history: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The newest turn of ``history`` (traces, oldest first) whose tool ran successfully and that did
    not stop at a question (a card asked before sending did nothing yet), or None.

    :return: that trace (its ``reply`` says what was done, ``at_ms`` when).
    """
    for t in reversed(history):
        acts = t.get("actions") or ()
        # an offer of unfinished work said after the answer ("另外，上次…要接着做吗？", kind ``offer``) waits for
        # an answer about that old task, not about what this turn did: the turn's own steps decide
        if t.get("state_after") == "CONFIRMING" or any(isinstance(a, Mapping) and a.get("outcome") == "waiting"
                                                       and a.get("kind") != "offer" for a in acts):
            continue  # it stopped at a question: nothing was done yet
        if any(isinstance(a, Mapping) and a.get("kind") == "tool" and a.get("outcome") == "ok" for a in acts) \
                and isinstance(t.get("reply"), str) and t.get("reply"):
            return t
    return None


#: the failure code of a step that found several where one was needed (the plan then lists them and asks which)
SEVERAL = "AMBIGUOUS"


def offered_list(history: Sequence[Mapping[str, Any]], position_types: Iterable[str] = ("ordinal",)) -> str | None:
    """The intent of the last turn when it listed things and asked which one, so that a bare position now
    ("第二个", "the second one") answers it; else None.

    A turn offered a list when a step of its plan found several where one was needed (its trace's
    ``failure.code`` is :data:`SEVERAL`: "关于“bank”的提醒有 3 个：… 要取消哪一个？"), or when it was itself
    asked with a position and showed the list first ("取消第二个" with no list shown: "先看一下有哪些…").

    :param history: the session's traces, oldest first. :param position_types: entity types of a position.
    """
    if not history:
        return None
    last = history[-1]
    intent = last.get("intent")
    if not isinstance(intent, str) or not intent:
        return None
    failure = last.get("failure") or {}
    if isinstance(failure, Mapping) and failure.get("code") == SEVERAL:
        return intent
    entities = last.get("entities") or {}
    if isinstance(entities, Mapping) and any(entities.get(t) for t in position_types) and last_done([last]) is not None \
            and not any(isinstance(a, Mapping) and a.get("kind") == "confirm" for a in last.get("actions") or ()):
        return intent  # asked with a position, answered with the list (nothing was changed)
    return None
