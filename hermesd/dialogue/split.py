"""Propose where one utterance holds several requests (pure; the controller decides).

:func:`split_requests` cuts at the lexicon's conjunctions and returns the parts; the
controller keeps a split only when the NLU reads every part as a request on its own.

- ``conjunctions.then`` (然后, 接着, "and then", "after that") cut anywhere; a part after one
  that starts with no verb borrows the first part's ("check the network and then the disk"
  → "check the disk");
- ``conjunctions.and`` (再, 还有, 顺便, "and", "also") cut only before a verb, and a Chinese one
  only after a comma ("send the quote to Li and Wang" and "发给李娜，还有王芳" stay whole);
- never between two times ("明天上午然后下午", "at 3pm and then at 5pm"); a part needs two letters;
- a leading 先 / 首先 / "first" is dropped from the first part when a verb follows it;
- a comma or semicolon cuts too, but only when the parts on both sides start with a verb
  ("查一下磁盘，把发票发给李经理", "check the disk, send the invoice to Li Na"); a vocative or an
  opener before the comma ("李经理，帮我…", "好的，…") never does. A time phrase before the verb
  does not count ("明天八点提醒我开会，九点提醒我打电话");
- two questions said one after the other are two requests, whatever joins them — a comma, 、, 和, 还有
  / "and", "also" (a Chinese one needs no comma here): "磁盘还剩多少，网络通不通", "现在几点和明天星期几",
  "how much disk is left and is the network up". A question is a clause that asks on its own: a
  question word of the lexicon (``questions``: 多少, 吗, 几点, 怎么样, "how much", "is there" …), an
  A-not-A (通不通, 够不够, 有没有) or a question mark, and in English a clause that opens with a question
  word or an auxiliary ("is the network up"). "磁盘和网络怎么样" stays whole: its first part asks nothing;
- parallel time clauses (coordination with gapping): after a part with a time phrase, an ``and``
  part that starts with a time and goes on ("remind me at 8 to call mum and at 9 to take the
  pills", "提醒我明天八点开会，九点打电话") is a request of its own; it borrows the first part's verb
  when it does not say it again, and the first part's day when it names only a clock time or a
  part of the day ("明天八点…，九点…" → "明天九点…"). Two times with nothing between them
  ("at 3 and 5") stay one request. Only a part after a timed first part borrows that way: a part that
  begins with a time after an untimed first part keeps its own words ("把合同发给李娜，然后明天九点提醒我…"
  is "明天九点提醒我…", never "把明天九点提醒我…").

Parts are substrings of the original text (cut on the normalised text, mapped back
through :meth:`hermesd.nlu.normalize.Normalized.span`), separators trimmed.

:func:`one_each` is the other way one utterance holds several requests: people coordinated
(A和B, A、B和C, "A and B", "A, B and C") in the one place of a request that takes one person
("把报价单发给王芳和李娜") — the request is made once for each, in the order said.

:func:`capped` bounds what one message carries out: the same request said again runs once, and
past :data:`MAX_REQUESTS` distinct requests the rest is not done (and said so) — a pasted list or a
runaway client never runs a tool hundreds of times for one message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import lazyre
from ..nlu.normalize import Normalized, normalize
from .lexicon import Lexicon, default_lexicon

__all__ = ["MAX_REQUESTS", "Capped", "capped", "names_day", "one_each", "reminding_request", "split_requests"]

#: what joins two people (or things) said together: 和 / 跟 / 与 / 及 / 以及 / 还有 / 、 / a comma, "and" / "&" /
#: "plus" — in English with the second one's determiner ("the quote and the contract")
_COORD = lazyre.compile(r"^\s*(?:和|跟|与|與|及|以及|还有|還有|、|,|，|(?:and|&|plus|,\s*and)(?:\s+(?:the|a|an|my|our))?)\s*$",
                        re.IGNORECASE)


def one_each(text: str, people: list[tuple[int, int]]) -> list[tuple[str, str]] | None:
    """The utterance once per coordinated person: ``[(utterance, the person's words), …]`` in the order
    said, or None when fewer than two people are coordinated.

    :param text: the original utterance. :param people: the spans of its person mentions (original
        text), in order. The first run of two or more joined only by a coordinator (:data:`_COORD`)
        is taken; a person elsewhere in the sentence ("让张工把报价单发给王芳") stays as said.

    >>> one_each("把报价单发给王芳和李娜", [(6, 8), (9, 11)])
    [('把报价单发给王芳', '王芳'), ('把报价单发给李娜', '李娜')]
    """
    run: list[tuple[int, int]] = []
    for span in people:
        if run and not _COORD.match(text[run[-1][1]:span[0]]):
            if len(run) > 1:
                break
            run = []
        run.append(span)
    if len(run) < 2:
        return None
    a, b = run[0][0], run[-1][1]
    return [(f"{text[:a]}{text[x:y]}{text[b:]}", text[x:y]) for x, y in run]

_TIME_WORDS = r"上午|下午|晚上|早上|中午|凌晨|今天|明天|后天|昨天|今晚|明晚|周[1-7日天]|星期[1-7日天]"
_TIME_END = lazyre.compile(rf"(?:\d|点钟?|半|号|日|分|am|pm|{_TIME_WORDS}|today|tomorrow|morning|afternoon|evening|noon)\s*$")
_TIME_START = lazyre.compile(rf"^\s*(?:at |on |by |在|到)?\s*(?:\d|{_TIME_WORDS}|today|tomorrow|tonight|noon|morning|"
                             r"afternoon|evening)")
_BOUNDARY = ",;.!?"
_COMMA = lazyre.compile(r"\s*[,;]\s*")
_TRIM = " \t,，。.;；!！、:：~-"


_ZH_NUM = "0-9一二三四五六七八九十两零〇"
#: a day named (today, tomorrow, a weekday, a date): what a later clock-only part inherits
_DAY = lazyre.compile(rf"(?:大后天|后天|明天|今天|今晚|明晚|明早|後天|(?:下|这|這|本|上)?(?:个|個)?(?:周|星期|礼拜|禮拜)[1-7一二三四五六日天]|"
                      rf"[{_ZH_NUM}]{{1,2}}月[{_ZH_NUM}]{{1,3}}[日号號]|[{_ZH_NUM}]{{1,3}}[号號]|"
                      r"\b(?:the day after tomorrow|tomorrow|today|tonight|(?:on |next |this )?(?:monday|tuesday|wednesday|"
                      r"thursday|friday|saturday|sunday)|on (?:the )?\d{1,2}(?:st|nd|rd|th)?)\b)", re.IGNORECASE)


def names_day(text: str) -> bool:
    """A time phrase ``text`` names its day (今天, 明天, a weekday, a date; "tomorrow", "on Friday"), not
    only a clock time or a part of the day ("10点", "下午", "4pm")."""
    return bool(_DAY.search(text))


#: a clock time or a part of the day (what can stand for "when" in a clause without a day)
_CLOCK = lazyre.compile(rf"(?:上午|下午|晚上|早上|中午|凌晨|傍晚|[{_ZH_NUM}]{{1,3}}(?:点|點|:[0-5]\d)|"
                        r"\b(?:at|by)\s+\d{1,2}(?::[0-5]\d)?(?:\s*(?:am|pm|a\.m\.|p\.m\.|o'clock))?(?![\w:])|"
                        r"\b\d{1,2}:[0-5]\d(?![\w:])|\b\d{1,2}\s*(?:am|pm|a\.m\.|p\.m\.|o'clock)(?!\w)|"
                        r"\b(?:in the )?(?:morning|afternoon|evening|noon)\b)", re.IGNORECASE)
#: a part of the day said in Chinese (an English clock carries its own am / pm)
_PART_OF_DAY = lazyre.compile(r"上午|下午|晚上|早上|中午|凌晨|傍晚")
#: a run of time words at the start of a part (zh, or en with its preposition)
_TIME_LEAD = lazyre.compile(rf"(?:\s*(?:\d{{1,2}}(?::[0-5]\d)?\s*(?:am|pm|o'clock)\b|{_TIME_WORDS}|"
                            rf"[0-9]{{1,4}}(?:点钟?|点半|点|:[0-5][0-9]|号|日|月|分|半)?|"
                            r"(?:at|on|by|in the)\s+|(?:today|tomorrow|tonight|noon|morning|afternoon|evening)\b)\s*)+")


def _after_time(text: str, pos: int) -> int:
    """Where a part's words begin after a leading time phrase ("九点提醒我…" → at 提醒); ``pos`` when none."""
    m = _TIME_LEAD.match(text, pos)
    if not m or not (_CLOCK.search(m.group()) or _DAY.search(m.group())):
        return pos
    end = m.end()
    while end > pos and text[end - 1] == " ":
        end -= 1
    return end if end > pos else pos


def _starts_request(text: str, pos: int, lex: Lexicon) -> bool:
    """A verb starts at ``pos``, maybe after a time phrase; for a time-led part an infinitive
    ("at 9 to take the pills") counts too."""
    r = _after_time(text, pos)
    while r < len(text) and text[r] == " ":
        r += 1
    if _verb_end(text, r, lex) > r:
        return True
    return r > pos and re.match(r"to [a-z]", text[r:r + 4]) is not None


def _verb_end(text: str, pos: int, lex: Lexicon) -> int:
    """End of the verb phrase starting at ``pos`` (帮我查一下, "please check"), or ``pos`` when none."""
    end = pos
    while True:
        q = end + 1 if pos < end < len(text) and text[end] == " " else end
        w = lex.verbs.match(text, q)
        if not w:
            return end
        end = q + len(w)


#: what may join two questions and nothing else: 和 / 跟 / 、 / a question mark ("磁盘还剩多少和网络通不通")
_QJOIN = lazyre.compile(r"\s*(?:和|跟|、|\?)\s*")
#: an A-not-A question (通不通, 够不够, 好不好, 有没有, 在不在): one character, 不 or 没, the same character
_A_NOT_A = lazyre.compile(r"([\u4e00-\u9fff])[不没沒]\1")
#: an English clause that asks: it opens with a question word or an auxiliary put first
_EN_ASKS = lazyre.compile(r"^(?:(?:so|and|also|oh)\s+)?(?:what|what's|whats|how|how's|hows|which|when|where|who|why|whose|"
                          r"is|are|was|were|am|isn't|aren't|does|do|did|doesn't|don't|can|could|will|would|has|have|"
                          r"should|shall)\b", re.IGNORECASE)


def _asks(t: str, a: int, b: int, lex: Lexicon) -> bool:
    """``t[a:b]`` (normalised) is a question on its own: a question word of the lexicon (zh), an A-not-A,
    a question mark, or (en) a clause opening with a question word or a put-first auxiliary."""
    clause = t[a:b].strip(_TRIM)
    if _alnum(clause) < 2:
        return False
    if clause.endswith(("?", "？")) or t[b:b + 1] in ("?", "？"):
        return True
    if clause.isascii():
        return _EN_ASKS.match(clause) is not None
    if _A_NOT_A.search(clause):
        return True
    return any(not w.isascii() for _, w in lex.questions.finditer(clause))


def _cuts(t: str, lex: Lexicon) -> list[tuple[int, int, str]]:
    """Candidate conjunctions ``(start, end, kind)``, left to right, not overlapping."""
    found = [(p, p + len(w), "then") for p, w in lex.then.finditer(t)]
    found += [(p, p + len(w), "and") for p, w in lex.joins.finditer(t)]
    found += [(m.start(), m.end(), "comma") for m in _COMMA.finditer(t)]
    found += [(m.start(), m.end(), "qjoin") for m in _QJOIN.finditer(t)]
    found.sort(key=lambda c: (c[0], -(c[1] - c[0])))
    out: list[tuple[int, int, str]] = []
    for c in found:
        if not out or c[0] >= out[-1][1]:
            out.append(c)
    return out


def _alnum(s: str) -> int:
    return sum(ch.isalnum() for ch in s)


def _accept(t: str, start: int, end: int, kind: str, left_from: int, lex: Lexicon) -> bool:
    left, right = t[left_from:start], t[end:]
    if _alnum(left) < 2 or _alnum(right) < 2:
        return False
    if kind == "comma" and (lex.joins.match(t, end) or lex.then.match(t, end)):
        return False  # ", and …" / "，还有…": the conjunction after the comma is the cut
    if kind in ("comma", "and", "qjoin") and _asks(t, left_from, start, lex) and _asks(t, end, _clause_end(t, end), lex):
        return True  # two questions, one after the other ("磁盘还剩多少，网络通不通")
    if kind == "qjoin":
        return False
    if _TIME_END.search(left.rstrip(_TRIM)) and _TIME_START.search(right):
        return False
    if kind == "then":
        return True
    if kind == "comma":  # both sides must be requests of their own: each starts with a verb
        a = left_from
        while a < start and t[a] in _TRIM:
            a += 1
        lead = lex.leads.match(t, a)
        if lead:
            a += len(lead)
            while a < start and t[a] in _TRIM:
                a += 1
        r = end
        while r < len(t) and t[r] in _TRIM:
            r += 1
        if not _starts_request(t, a, lex):
            return False
        # a time clause parallel to a timed first part ("…十点交报告，十一点取快递") needs no verb of its own
        return _starts_request(t, r, lex) or (_CLOCK.search(left) is not None and _after_time(t, r) > r
                                               and _alnum(t[_after_time(t, r):]) >= 2)
    before = left.rstrip(" ")
    if not t[start].isascii() and not (before and before[-1] in _BOUNDARY):
        return False
    r = end
    while r < len(t) and t[r] in _TRIM:
        r += 1
    if _verb_end(t, r, lex) > r:
        return True
    # "remind me at 8 to call mum and at 9 to take the pills": a time clause parallel to a timed first part
    return _after_time(t, r) > r and _CLOCK.search(left) is not None and _starts_request(t, r, lex)


def _clause_end(t: str, pos: int) -> int:
    """Where the clause starting at ``pos`` ends: the next comma, semicolon, full stop or question mark."""
    m = _CLAUSE_END.search(t, pos)
    return m.start() if m else len(t)


_CLAUSE_END = lazyre.compile(r"[,;.!?，；。！？、]|\s(?:and|also)\s|和|还有|還有")


def _original(n: Normalized, a: int, b: int) -> str:
    while a < b and n.text[a] in _TRIM:
        a += 1
    while b > a and n.text[b - 1] in _TRIM:
        b -= 1
    if a >= b:
        return ""
    s, e = n.span(a, b)
    return n.original[s:e].strip(_TRIM)


def split_requests(text: str, lexicon: Lexicon | None = None) -> list[str]:
    """The candidate requests in ``text`` (see the module docstring), or ``[text]`` when nothing splits.

    :param text: what the user said (raw or normalised; the parts are taken from it as given).
    :param lexicon: the words to use (default: :func:`~.lexicon.default_lexicon`).
    :return: e.g. ``["查一下磁盘", "看看服务状态"]`` for "先查一下磁盘，然后看看服务状态".
    """
    lex = lexicon or default_lexicon()
    n = normalize(text)
    t = n.text
    spans: list[tuple[int, int]] = []  # normalised [start, end) of each part
    left_from = 0
    for start, end, kind in _cuts(t, lex):
        if start < left_from or not _accept(t, start, end, kind, left_from, lex):
            continue
        spans.append((left_from, start))
        left_from = end
    if not spans:
        return [text]
    spans.append((left_from, len(t)))
    first_a, first_b = spans[0]
    lead = lex.leads.match(t, first_a)
    if lead:
        after = first_a + len(lead)
        while after < first_b and t[after] in _TRIM:
            after += 1
        if _verb_end(t, after, lex) > after:
            spans[0] = (after, first_b)
    verb_a = spans[0][0]
    verb_b = _verb_end(t, verb_a, lex)
    verb = _original(n, verb_a, verb_b) if verb_b > verb_a else ""
    first = _original(n, *spans[0])
    first_timed = _CLOCK.search(first) is not None or _DAY.search(first) is not None
    day = _DAY.search(first) if _CLOCK.search(first) else None
    part_of_day = _PART_OF_DAY.search(first) if day is not None else None
    parts = []
    for k, (a, b) in enumerate(spans):
        part = _original(n, a, b)
        r = a
        while r < b and t[r] in _TRIM:
            r += 1
        # a part led by a time borrows like a parallel time clause only after a timed first part
        timed = k and first_timed and _after_time(t, r) > r
        if timed and day is not None and not _DAY.search(part) and _CLOCK.search(part):
            # "九点…" after "明天八点…" is 明天九点; "四点…" after "明天下午三点…" is 明天下午四点
            carried = day.group()
            if part_of_day is not None and part_of_day.group() not in carried and not _PART_OF_DAY.search(part):
                carried += part_of_day.group()
            part = _with_day(part, carried)
        w = _after_time(t, r)
        while w < b and t[w] == " ":
            w += 1
        # a part says its own verb at its start or after its leading time ("明天九点提醒我…")
        if k and verb and (_verb_end(t, r, lex) == r and _verb_end(t, w, lex) == w if not timed
                           else not t.startswith(verb.lower(), w)):
            part = f"{verb}{' ' if verb[-1].isascii() else ''}{part}"
        parts.append(part)
    return parts if all(parts) else [text]


#: the distinct requests one message may carry out; the ones after are said not done
MAX_REQUESTS = 5


@dataclass(frozen=True, slots=True)
class Capped:
    """The parts of one message that run (:func:`capped`).

    :param parts: the distinct requests to run, in the order said (at most the limit).
    :param repeated: how many parts were the same request said again (each runs once).
    :param over: the distinct requests past the limit, in order: not done.
    """

    parts: list[str]
    repeated: int
    over: list[str]


def _same(part: str) -> str:
    """What tells two parts apart: the normalised words, separators and spaces dropped."""
    return "".join(ch for ch in normalize(part).text if ch not in _TRIM and not ch.isspace())


def capped(parts: list[str], limit: int = MAX_REQUESTS) -> Capped:
    """``parts`` (of :func:`split_requests`) with repeats dropped and at most ``limit`` distinct ones kept.

    :param parts: the candidate requests, in order. :param limit: distinct requests kept (>= 1).
    :raises ValueError: ``limit`` < 1.

    >>> capped(["查一下磁盘", "查一下磁盘。", "看看网络"], 5)
    Capped(parts=['查一下磁盘', '看看网络'], repeated=1, over=[])
    """
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    seen: set[str] = set()
    distinct: list[str] = []
    repeated = 0
    for part in parts:
        key = _same(part)
        if key in seen:
            repeated += 1
            continue
        seen.add(key)
        distinct.append(part)
    return Capped(distinct[:limit], repeated, distinct[limit:])


def _with_day(part: str, day: str) -> str:
    """``part`` with the inherited ``day`` put before its clock time ("at 9 …" → "tomorrow at 9 …")."""
    m = _CLOCK.search(part)
    i = m.start() if m else 0
    sep = " " if day[-1:].isascii() and day[-1:].isalpha() else ""
    return f"{part[:i]}{day}{sep}{part[i:]}"


#: reminding imperatives: a double negative ("don't forget to X" = "do X"), never a no (en, zh, zh-Hant)
_REMINDING = lazyre.compile(r"^\s*(?:please\s+|请)?(?:(?:don'?t|do not|never) forget(?: to)?|remember to|be sure to|make sure to|"
                            r"千万别忘了|可别忘了|别忘了|别忘记|别忘|不要忘了|不要忘记|不要忘|記得要|记得要|记得|記得|別忘了|別忘記|"
                            r"不要忘記)[\s,，:：]*", re.IGNORECASE)


def reminding_request(text: str, lexicon: Lexicon | None = None) -> str | None:
    """The request inside a reminding imperative, or None: "别忘了提醒我明天开会" → "提醒我明天开会",
    "don't forget to remind me at 5pm" → "remind me at 5pm". Only when a request verb
    (``verbs``) follows the cue: "don't forget that my code is 1234" is something to remember,
    not a request, and stays whole (None).

    :param text: the utterance as said. :return: a substring of ``text``, or None.
    """
    lex = lexicon or default_lexicon()
    m = _REMINDING.match(text)
    if not m or m.end() >= len(text):
        return None
    rest = text[m.end():].strip()
    low = normalize(rest).text
    if not rest or lex.verbs.match(low, 0) is None:
        return None
    return rest
