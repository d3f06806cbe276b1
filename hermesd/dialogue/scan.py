"""An utterance as clauses of leading answer words and what is left (pure; used by :mod:`.reader`).

The text (normalised, first :data:`MAX_SCAN_CHARS` characters) is cut at contrast
markers (但是, 不过, but, actually …) and at punctuation (, . ! ; : ~ and after ?),
never inside a number (9:30, 1,000), an e-mail address or after a title (Mr. Smith).
Each clause is read from its start: the longest lexicon word or number at each
position, separators and emoji skipped, a particle (吧, 了, please) only right after
a word; the first thing that is none of these, or an A-not-A question (好不好,
要不要发), starts the clause's ``rest`` (fillers and particles trimmed off its ends).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import lazyre
from .lexicon import ANSWER_ACTS, Lexicon

__all__ = ["MAX_SCAN_CHARS", "Clause", "Scan", "Token", "scan", "units"]

#: answer words are looked for in this many characters only (a long text is a request or unrelated).
MAX_SCAN_CHARS = 200

#: where a clause ends: , ! ; : ~ and a full stop, never inside a number (9:30, 1,000, 2.5), an
#: e-mail address, or after a title ("Mr. Smith", "Dr. Wang" are one name).
_CLAUSE = lazyre.compile(r"[!;~]+|(?<!\d)[,:]+|[,:]+(?!\d)|(?<![a-z0-9])\.+"
                         r"|(?<!\bmr)(?<!\bms)(?<!\bmrs)(?<!\bdr)(?<!\bprof)(?<!\bst)(?<!\bjr)(?<!\bsr)\.+(?![a-z0-9])"
                         r"|\s-+\s|(?<=\?)(?=.)")
_SMALLTALK_ORDER = ("capabilities", "identity", "wellbeing", "goodbye", "greeting", "thanks", "reassurance", "quiet")
_UNIT = lazyre.compile(r"[a-z0-9]+|[^\x00-\x7f]", re.IGNORECASE)


def units(text: str) -> int:
    """How much ``text`` says, the same in both scripts: a Chinese character or a Latin word (or a
    number) is one unit, punctuation and emoji none ("发给王芳" 4, "send it to wang fang" 5)."""
    return sum(1 for m in _UNIT.finditer(text) if m.group()[0].isalnum())


@dataclass(frozen=True, slots=True)
class Token:
    """A lexicon word (or a number) at the start of a clause. :param kinds: e.g. ``("affirm", "filler")``,
    ``("ordinal.last",)``, ``("smalltalk.thanks",)``, ``("number",)``. :param number: its value."""

    word: str
    kinds: tuple[str, ...]
    number: int | None = None

    @property
    def act(self) -> str | None:
        """The answer act this word is (the safest of its kinds), or None."""
        return next((a for a in ANSWER_ACTS if a in self.kinds), None)

    @property
    def pick(self) -> str | None:
        """``number`` or ``ordinal.<key>`` when this word names a position, else None."""
        return next((k for k in self.kinds if k == "number" or k.startswith("ordinal.")), None)

    @property
    def smalltalk(self) -> str | None:
        return next((k[10:] for k in self.kinds if k.startswith("smalltalk.")), None)


@dataclass(frozen=True, slots=True)
class Clause:
    """One clause. :param rest: what follows its leading words, trimmed.
    :param segment: how many contrast markers come before it (0: none)."""

    text: str
    tokens: tuple[Token, ...]
    rest: str
    segment: int = 0

    @property
    def rest_len(self) -> int:
        """Letters and digits in :attr:`rest`."""
        return sum(ch.isalnum() for ch in self.rest)

    def act(self) -> tuple[str, str] | None:
        """``(act, word)`` of the clause's last answer word; repeat and help only when nothing else is said."""
        found = None
        for t in self.tokens:
            if t.act:
                found = (t.act, t.word)
        if found and found[0] in ("repeat", "help") and self.rest:
            return None
        return found

    def pick(self) -> Token | None:
        """The last position word (number, ordinal) of the clause, or None."""
        return next((t for t in reversed(self.tokens) if t.pick), None)


@dataclass(frozen=True, slots=True)
class Scan:
    """The clauses of an utterance. :param question: it ends with "?" or a Chinese yes/no question particle
    (吗 / 嗎 / 么 / 麼: "对吗", "可以吗" ask back, they say no yes). :param truncated: longer than
    :data:`MAX_SCAN_CHARS`. :param tail: the text after the last contrast marker, or None.
    :param segments: how many contrast markers were found (the tail's clauses have this ``segment``)."""

    text: str
    clauses: tuple[Clause, ...]
    question: bool
    truncated: bool
    tail: str | None
    segments: int = 0

    @property
    def residue(self) -> int:
        """Letters left over in every clause (a truncated text counts as a long one)."""
        return sum(c.rest_len for c in self.clauses) + (MAX_SCAN_CHARS if self.truncated else 0)

    def smalltalk(self) -> str | None:
        """The small-talk kind when the utterance is only small talk (with openers, particles), else None."""
        kinds = {t.smalltalk for c in self.clauses for t in c.tokens if t.smalltalk}
        if not kinds or self.residue or any(t.act or t.pick for c in self.clauses for t in c.tokens):
            return None
        return next(k for k in _SMALLTALK_ORDER if k in kinds)

    def smalltalk_kinds(self) -> list[str]:
        """Every small-talk kind said, in :data:`_SMALLTALK_ORDER`."""
        kinds = {t.smalltalk for c in self.clauses for t in c.tokens if t.smalltalk}
        return [k for k in _SMALLTALK_ORDER if k in kinds]


def _trim(rest: str, lex: Lexicon) -> str:
    """``rest`` without separators, fillers, openers and particles at either end."""
    while True:
        before = rest
        rest = rest.strip(" \t'\"?()[]<>/\\-_*#")
        while rest and not rest[-1].isalnum():
            rest = rest[:-1]
        while rest and not rest[0].isalnum():
            rest = rest[1:]
        w = lex.trim.match(rest, 0)
        if w and len(w) < len(rest):
            rest = rest[len(w):]
        w = lex.trim.suffix(rest)
        if w and len(w) < len(rest):
            rest = rest[:-len(w)]
        if rest == before:
            return rest


_NEUTRAL = frozenset({"opener", "filler", "particle"})


def _word_at(text: str, pos: int, lex: Lexicon) -> str | None:
    """The longest word at ``pos`` — unless it is a neutral word (opener, filler) that swallows the
    start of a longer next word: "那就这样吧" is 那 + 就这样吧, not 那就 + 这样吧."""
    phrases = lex.phrases
    w = phrases.match(text, pos)
    if w is None or not _NEUTRAL.issuperset(phrases.kinds[w]):
        return w

    def score(first: str) -> tuple[int, bool]:
        after = phrases.match(text, pos + len(first))
        meaningful = bool(after) and not _NEUTRAL.issuperset(phrases.kinds[after])
        return len(first) + (len(after) if after else 0), meaningful

    best, top = w, score(w)
    for n in phrases.lens.get(text[pos], ()):
        short = text[pos:pos + n]
        if n < len(w) and short in phrases.kinds and (s := score(short)) > top:
            best, top = short, s
    return best


_NOT = ("不", "没")


def _asks_either_way(text: str, pos: int) -> bool:
    """An A-not-A question starts at ``pos``: X不X / X没X, or XY不XY (可以不可以)."""
    a = text[pos]
    if a.isascii() or a in "不没":
        return False
    if text[pos + 1:pos + 2] in _NOT and text[pos + 2:pos + 3] == a:
        return True
    return text[pos + 2:pos + 3] in _NOT and len(text) >= pos + 5 and text[pos:pos + 2] == text[pos + 3:pos + 5]


def _clause(text: str, lex: Lexicon, segment: int) -> Clause:
    tokens: list[Token] = []
    pos, n = 0, len(text)
    phrases = lex.phrases
    while pos < n:
        if _asks_either_way(text, pos):
            break  # 好不好, 要不要发, 可以不可以: a question, not a yes and a no
        w = _word_at(text, pos, lex)
        num = lex.number_at(text, pos) if text[pos].isalnum() or text[pos] == "#" else None
        if num and (w is None or num[1] - pos > len(w)):
            tokens.append(Token(text[pos:num[1]], ("number",), num[0]))
            pos = num[1]
        elif w is not None and not (phrases.kinds[w] == ("particle",) and not tokens):
            tokens.append(Token(w, phrases.kinds[w]))
            pos += len(w)
        elif not text[pos].isalnum():
            pos += 1
        else:
            break
    rest = _trim(text[pos:], lex) if pos < n else ""
    if rest in lex.trim.kinds:
        rest = ""
    return Clause(text, tuple(tokens), rest, segment)


def scan(text: str, lex: Lexicon) -> Scan:
    """Cut ``text`` (normalised) into :class:`Clause` s; see the module docstring.

    :param text: e.g. ``heard.text``; only the first :data:`MAX_SCAN_CHARS` characters are read.
    """
    t = text[:MAX_SCAN_CHARS].strip()
    segments: list[str] = []
    start, tail = 0, None
    for pos, word in lex.contrast.finditer(t):
        segments.append(t[start:pos])
        start = pos + len(word)
        tail = t[start:]
    segments.append(t[start:])
    clauses = tuple(_clause(part.strip(), lex, k)
                    for k, seg in enumerate(segments) for part in _CLAUSE.split(seg) if part.strip())
    stripped = t.rstrip()
    while stripped and not stripped[-1].isalnum() and stripped[-1] != "?":
        stripped = stripped[:-1]
    while stripped and stripped[-1] in _EMPHATIC:
        stripped = stripped[:-1].rstrip()
    asks = stripped.endswith("?") or stripped.endswith(_YES_NO_PARTICLES) and not stripped.endswith(_NOT_PARTICLES)
    return Scan(t, clauses, asks, len(text.strip()) > MAX_SCAN_CHARS, tail, len(segments) - 1)


#: the particles that end a Mandarin yes/no question (Li & Thompson 1981, ch. 18: 吗 turns a statement
#: into one; 么 is its colloquial spelling); an answer word followed by one asks back ("对吗?", "是吗")
_YES_NO_PARTICLES = ("吗", "嗎", "么", "麼")
#: sentence-final particles that may follow it and change nothing ("好吗啊" is rare; "对吗呢" is not said):
#: only the interjections people add to a question ("对吗呀"), never 吧 (a suggestion: "好吧" is a yes)
_EMPHATIC = ("呀", "啊")
#: words ending in 么 that are no particle: 什么, 怎么, 这么, 那么, 多么, 要么 (and their traditional forms)
_NOT_PARTICLES = ("什么", "怎么", "这么", "那么", "多么", "要么", "甚么", "什麼", "怎麼", "這麼", "那麼", "多麼", "要麼")
