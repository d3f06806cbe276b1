"""Explicit memory requests — remember, recall, forget — read from an utterance (pure).

Every pack gets these intents: they are a small grammar of the language, not
pack templates. The text is read after :func:`hermesd.nlu.normalize.normalize`
(Traditional → Simplified, full width → half width), lower-cased.

- ``memory.remember``: 记住/记一下/帮我记着 … , "remember (that) …", "note that …".
  The body splits at its first relation word into subject and value: 是/叫/为
  ("is": the value *is* the thing — a secret subject then has its value redacted)
  or 在/放在/存在 ("is in": a place — never a secret). "我的"/"my" is the owner,
  not part of the subject; a body with no relation is a note (subject = body).
- ``memory.recall``: 我的X是什么/是多少/叫什么/在哪, X放哪了, "what's my X",
  "where is my X", "where did I put X", "do you remember my X".
- ``memory.forget``: 忘掉/忘记/删掉 X, "forget (about) X"; 所有/全部/一切 and
  "everything"/"all" mean every memory of the caller (admin only, confirmed).

:func:`match_subject` ranks stored subjects against a question by character
bigram Dice overlap (Chinese has no spaces; bigrams are the usual unit for
unsegmented CJK retrieval, e.g. Lucene's CJKBigramFilter).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

__all__ = ["ALL", "MemoryRequest", "MAX_VALUE_CHARS", "dice", "normal_subject", "read_request"]

#: longest value kept, in characters; a longer one is cut and the reply says so
MAX_VALUE_CHARS = 200
#: the subject of "forget everything"
ALL = "*"

_ZH_REMEMBER = re.compile(r"^(?P<ask>(?:请|麻烦)?(?:帮我|给我)?)(?:记住|记一下|记下|记着|记好)(?P<done>了)?[:,，：\s]*(?P<body>.+)$")
_EN_REMEMBER = re.compile(r"^(?:please\s+)?(?:remember|note|don't forget|do not forget)(?:\s+that)?[:,\s]+(?P<body>.+)$")
_ZH_REL = re.compile(r"(放在|存在|藏在|停在|在|是|叫|为)")
_EN_IS = re.compile(r"^(?:my|the|our)\s+(?P<s>.+?)\s+(?:is|are|was|=)\s+(?P<v>.+)$")
_EN_PUT = re.compile(r"^i\s+(?:put|left|keep|parked|stored|hid)\s+(?:my\s+|the\s+)?(?P<s>.+?)\s+"
                     r"(?P<v>(?:in|on|under|at|behind|inside|next to)\s+.+)$")
_ZH_RECALL = (
    re.compile(r"^(?:你还?记得)?(?:我家?的|我们的)(?P<s>.+?)(?:是什么|是多少|是啥|是哪个|叫什么|在哪里|在哪儿|在哪|放在哪里?|放哪了?|"
               r"是几号|是多少号)(?:来着)?[?？吗呢。!]*$"),
    re.compile(r"^(?:我把)?(?:我的)?(?P<s>.+?)(?:放在哪了|放哪了|放哪儿了|放在哪里了|放哪里了)[?？吗呢。]*$"),
    re.compile(r"^你还?记得(?:我家?的)(?P<s>.+?)吗[?？]*$"),
)
_EN_RECALL = (
    re.compile(r"^(?:what(?:'s| is| was)|tell me)\s+my\s+(?P<s>.+?)\??$"),
    re.compile(r"^where(?:'s| is| are| was| were)\s+my\s+(?P<s>.+?)\??$"),
    re.compile(r"^where\s+(?:did|do)\s+i\s+(?:put|leave|keep|park|store|hide)\s+(?:my\s+|the\s+)?(?P<s>.+?)\??$"),
    re.compile(r"^do\s+you\s+remember\s+(?:my|where my)\s+(?P<s>.+?)(?:\s+is)?\??$"),
)
_ZH_FORGET = re.compile(r"^(?:请|麻烦)?(?:帮我)?(?:忘掉|忘记|忘了|删掉|删除|清除|抹掉)(?:关于)?(?:我的|我家的)?(?P<s>.+?)(?:吧|的事|这件事|的记忆)?[。!！]*$")
_EN_FORGET = re.compile(r"^(?:please\s+)?(?:forget|erase|delete)\s+(?:about\s+)?(?:my\s+|the\s+)?(?P<s>.+?)[.!]*$")
_ALL_WORDS = {"所有", "全部", "一切", "所有记忆", "全部记忆", "所有的记忆", "所有东西", "所有事", "所有的事", "你记得的一切",
              "everything", "all", "all memories", "all my memories", "everything you know", "everything about me"}
_TRIM = " ,，。.!！?？:：;；"


@dataclass(frozen=True, slots=True)
class MemoryRequest:
    """An explicit memory request.

    :param intent: ``memory.remember`` | ``memory.recall`` | ``memory.forget``.
    :param subject: what it is about, as said without the owner (门禁密码, "locker code");
        :data:`ALL` for "forget everything".
    :param value: what to remember (remember only).
    :param relation: ``is`` (the value is the thing) | ``at`` (a place) | ``note`` (no relation).
    :param lang: ``zh`` | ``en`` (the grammar that matched).
    :param truncated: the value was longer than :data:`MAX_VALUE_CHARS` and was cut.
    """

    intent: str
    subject: str
    value: str = ""
    relation: str = "is"
    lang: str = "zh"
    truncated: bool = False


def normal_subject(subject: str) -> str:
    """The key a subject is filed under: lower case, no owner words, no spaces or punctuation."""
    s = subject.lower().strip(_TRIM)
    s = re.sub(r"^(?:我家的|我的|我们的|我家|我|my |the |our )", "", s)
    return re.sub(r"[\s\W_]+", "", s)


def _cut(value: str) -> tuple[str, bool]:
    value = value.strip(_TRIM)
    if len(value) > MAX_VALUE_CHARS:
        return value[:MAX_VALUE_CHARS], True
    return value, False


def _remember_zh(body: str) -> MemoryRequest:
    body = body.strip(_TRIM)
    m = _ZH_REL.search(body)
    if m is None or m.start() == 0:
        value, cut = _cut(body)
        return MemoryRequest("memory.remember", value[:40], value, "note", "zh", cut)
    subject = body[:m.start()]
    relation = "is" if m.group(1) in ("是", "叫", "为") else "at"
    value, cut = _cut(body[m.start():] if relation == "at" else body[m.end():])
    return MemoryRequest("memory.remember", subject.strip(_TRIM), value, relation, "zh", cut)


def _remember_en(body: str) -> MemoryRequest:
    body = body.strip(_TRIM)
    for pat, relation in ((_EN_PUT, "at"), (_EN_IS, "is")):
        m = pat.match(body)
        if m:
            value, cut = _cut(m.group("v"))
            if relation == "is" and re.match(r"^(?:in|on|under|at|behind|inside)\s", value):
                relation = "at"
            return MemoryRequest("memory.remember", m.group("s").strip(_TRIM), value, relation, "en", cut)
    value, cut = _cut(body)
    return MemoryRequest("memory.remember", value[:40], value, "note", "en", cut)


def read_request(text: str) -> MemoryRequest | None:
    """The explicit memory request in ``text`` (already normalised), or None.

    >>> read_request("记住我的车牌号是京A12345").subject
    '我的车牌号'
    """
    req = _read(text.strip().lower())
    if req is not None and req.value:
        # the grammar reads lower case; the value is kept as it was written (京A12345, not 京a12345)
        orig = text.strip()
        i = orig.lower().find(req.value)
        if i >= 0 and len(orig.lower()) == len(orig):
            req = replace(req, value=orig[i:i + len(req.value)])
    return req


def _read(t: str) -> MemoryRequest | None:
    if not t:
        return None
    zh = re.search(r"[\u4e00-\u9fff]", t) is not None
    if zh:
        # "记下了，谢谢" / "记好了，再帮我找…" (no 请/帮我 before it) says the speaker noted what was
        # said — an acknowledgement, not a request to remember the rest
        if (m := _ZH_REMEMBER.match(t)) and not (m.group("done") and not m.group("ask")):
            return _remember_zh(m.group("body"))
        if m := _ZH_FORGET.match(t):
            return _forget(m.group("s"), "zh")
        for pat in _ZH_RECALL:
            if m := pat.match(t):
                return MemoryRequest("memory.recall", m.group("s").strip(_TRIM), lang="zh")
        return None
    if m := _EN_REMEMBER.match(t):
        return _remember_en(m.group("body"))
    if m := _EN_FORGET.match(t):
        return _forget(m.group("s"), "en")
    for pat in _EN_RECALL:
        if m := pat.match(t):
            return MemoryRequest("memory.recall", m.group("s").strip(_TRIM), lang="en")
    return None


def _forget(subject: str, lang: str) -> MemoryRequest | None:
    s = subject.strip(_TRIM)
    if not s:
        return None
    if s in _ALL_WORDS or s.removesuffix(" of it") in _ALL_WORDS:
        return MemoryRequest("memory.forget", ALL, lang=lang)
    return MemoryRequest("memory.forget", s, lang=lang)


def _bigrams(s: str) -> set[str]:
    return {s[i:i + 2] for i in range(len(s) - 1)} if len(s) > 1 else {s}


def dice(a: str, b: str) -> float:
    """Dice coefficient of the character bigrams of two normal subjects (0..1); containment counts 1."""
    if not a or not b:
        return 0.0
    if a in b or b in a:
        return 1.0
    x, y = _bigrams(a), _bigrams(b)
    return 2 * len(x & y) / (len(x) + len(y))
