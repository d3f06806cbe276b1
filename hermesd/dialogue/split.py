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
  opener before the comma ("李经理，帮我…", "好的，…") never does.

Parts are substrings of the original text (cut on the normalised text, mapped back
through :meth:`hermesd.nlu.normalize.Normalized.span`), separators trimmed.
"""

from __future__ import annotations

import re

from ..nlu.normalize import Normalized, normalize
from .lexicon import Lexicon, default_lexicon

__all__ = ["split_requests"]

_TIME_WORDS = r"上午|下午|晚上|早上|中午|凌晨|今天|明天|后天|昨天|今晚|明晚|周[1-7日天]|星期[1-7日天]"
_TIME_END = re.compile(rf"(?:\d|点钟?|半|号|日|分|am|pm|{_TIME_WORDS}|today|tomorrow|morning|afternoon|evening|noon)\s*$")
_TIME_START = re.compile(rf"^\s*(?:at |on |by |在|到)?\s*(?:\d|{_TIME_WORDS}|today|tomorrow|tonight|noon|morning|"
                         r"afternoon|evening)")
_BOUNDARY = ",;.!?"
_COMMA = re.compile(r"\s*[,;]\s*")
_TRIM = " \t,，。.;；!！、:：~-"


def _verb_end(text: str, pos: int, lex: Lexicon) -> int:
    """End of the verb phrase starting at ``pos`` (帮我查一下, "please check"), or ``pos`` when none."""
    end = pos
    while True:
        q = end + 1 if pos < end < len(text) and text[end] == " " else end
        w = lex.verbs.match(text, q)
        if not w:
            return end
        end = q + len(w)


def _cuts(t: str, lex: Lexicon) -> list[tuple[int, int, str]]:
    """Candidate conjunctions ``(start, end, kind)``, left to right, not overlapping."""
    found = [(p, p + len(w), "then") for p, w in lex.then.finditer(t)]
    found += [(p, p + len(w), "and") for p, w in lex.joins.finditer(t)]
    found += [(m.start(), m.end(), "comma") for m in _COMMA.finditer(t)]
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
        return _verb_end(t, a, lex) > a and _verb_end(t, r, lex) > r
    before = left.rstrip(" ")
    if not t[start].isascii() and not (before and before[-1] in _BOUNDARY):
        return False
    r = end
    while r < len(t) and t[r] in _TRIM:
        r += 1
    return _verb_end(t, r, lex) > r


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
    parts = []
    for k, (a, b) in enumerate(spans):
        part = _original(n, a, b)
        r = a
        while r < b and t[r] in _TRIM:
            r += 1
        if k and verb and _verb_end(t, r, lex) == r:
            part = f"{verb}{' ' if verb[-1].isascii() else ''}{part}"
        parts.append(part)
    return parts if all(parts) else [text]
