"""How an utterance reads as an answer to the open question (pure; well under 100 µs for a short one).

:func:`read_answer` takes the open question (or None), the :class:`~.heard.Heard`
utterance and the :class:`~.lexicon.Lexicon`, and returns a :class:`~.heard.Reading`
whose ``cue`` names the lexicon entry or rule that decided (``deny:不用了``,
``deny:refuse:先别发``, ``choose:ordinal.last:最后那个``, ``request:device.disk`` …).
The text is cut into clauses (:mod:`.scan`); answer words are looked for in the first
200 characters only, a refusal of the action in the whole text.

Words (every question):

- the last answer word decides ("等等，好的" is affirm, "好的，不用了" deny): people repair
  themselves left to right. Openers (那个, well, i think) and particles (吧, please, yet, for
  now) say nothing; small talk ("谢谢，发吧") is neutral next to an answer word.
- in a long answer (more than :data:`LONG_ANSWER_UNITS` units said beside the answer words and
  values, or past the scan) the first no decides: people open with the answer and then explain,
  and a "好吧" or "right" in the explanation does not turn "不用了，…" into a yes.
- after a contrast marker (但是, 不过, but, actually) the part after it decides: a deny, hedge or
  cancel found anywhere in it (but not now) is that answer; a "好的" followed by a contrast and
  words we cannot read is not a yes (``unrelated``, cue ``contrast.unread``).
- a refusal of the action — a negation before one of the card's action verbs, anywhere
  (先别发了, 发票先不发了, 现在就先不要发了, don't send it yet, please do not send this one;
  :meth:`~.lexicon.Lexicon.refusals`) — is a deny, whatever time word softens it; a hedge (等等,
  我再想想, hold on, not now, 先不要) names no action and keeps the question open. A refusal
  inside somebody's request (提醒我别发, tell her not to send it) or an A-not-A question (要不要发,
  好不好) refuses nothing.
- repeat (再说一遍, what?) and help (有哪些选项) count only when nothing else is said in the
  clause ("什么时候" is not "什么"). An affirm ending in "?" ("好的？", "yes?") is not a yes.
- a new request: the NLU found an intent (not out of scope) different from the question's,
  with at least :data:`REQUEST_RESIDUE` letters beyond the answer words — or with no answer
  words at all. After a no, the rest must ask for something (a request verb, a question word:
  "不要，先查一下磁盘", "不行，磁盘怎么样了"); "no, the one in R&D" only says which. A whole
  utterance of answer words is never a request, whatever the NLU thought of it ("不是" with
  nothing open is a deny, not the network tool); neither is a refusal of the action, unless
  another clause asks for something ("别发了，帮我查一下磁盘" is that request).
- small talk is read while a question is open only when the utterance is nothing else.

A clause *is a value* when, beside the values said in it (``heard.mentions``), at most
:data:`VALUE_FRAME_UNITS` unit is left once action words, fillers and correction cues are
dropped ("是发票", "发给王芳", "to Wang Fang", "改成明天"); "她这周出差" only mentions one.

Confirm / Offer: affirm, deny, hedge, cancel, repeat, help; ``correct`` with the slot values
that differ from the card's when a correction cue (改成, make it, i meant, instead) stands in a
value clause, in a short "不是 X，是 Y" or a short answer the NLU calls a ``correction``, when a
value clause follows a deny ("不对，是李工", "no, to 李娜"), or when a value clause stands alone
or after a yes ("李娜", "好的，发给王芳"). A value met in an explanation corrects nothing; a value
the card already has is no change ("好的，发给李娜" is a yes). A bare number or position
("1234", "第二个") is ``unrelated`` (cue ``number:expects-yes-no``): no yes, no no, no request.
A yes to a card that names another value for a slot the card shows, in any clause ("yes, I'd
like to make the transaction with Isabella" to a card for Emma) is ``correct`` (cue ``correct:affirm+other-value``):
the card never runs with a value the user just contradicted. A yes that goes on saying how, from where or to whom ("send it from my savings account") is
``unrelated`` (cue ``affirm.changed``) when no new value was heard: it is no yes to the card as
shown. A request (above); else ``unrelated``.

Choice: the last clause that names a choice decides: a number (2, ２, 二, 两, option 2), an
ordinal (第二个, the second one, 最后那个, 上面那个 = the first, 下面那个 / 后一个 = the last of
two, 中间那个 = the second of three), a name, alias or any attribute on the card (a substring
either way of the normalised text; an attribute several candidates share chooses nothing), or a
person mention grounded to one of them (``heard.people``: 强哥 → 张强, an alias the card does not
show). "另一个" / "the other one" of two chooses the one whose attrs lack ``previous`` when
exactly one has it. A position out of range, or a named position that does not fit the card, is
``unrelated`` (the policy says what is expected). A choice in a deny clause ("不是第一个")
chooses the other of two. A deny or correction cue followed by a person who is none of the
candidates ("不对，是李工", "no, I meant Li") is ``correct`` with ``{person: the mention}``: who was
meant is named anew. A correction cue before a choice ("no, I meant the first one", 我是说第二个)
chooses it as said (never the other one). A deny of the lexicon's ``wrong`` list alone ("不对", "no",
"wrong": not right, nothing named yet) is ``deny``: the policy asks the choice again. A yes to a card of
one name ("did you mean 李娜?") is ``affirm`` (that one); to several it is ``unrelated``. Any other deny
(不要了, no thanks, 都不是, neither), a cancel or a refusal without a choice is ``cancel``; a named
choice with more than :data:`ANSWER_REST_CHARS` letters around it, an intent and something
asked for ("把合同也发给张伟吧") is a ``request``; a description is not ("the engineer from rd").

Ask: ``fill`` with ``{slot: heard.asked_value}`` when the value is there and the utterance is
mostly that value (``heard.rest_chars`` ≤ :data:`ANSWER_REST_CHARS`), or its intent is the
question's own or none — but a question of another intent that holds a value ("今天星期几" to "since
when?") is a ``request``, never the value; a free-text value that says nothing (:func:`says_nothing`:
"yes", "null", 好的 to 要提醒你做什么？) is none; a value of another slot of the form said as the answer,
with little else ("下午三点" to 要提醒你做什么？) is a ``fill`` of that slot; ``correct`` for a correction with a value; cancel (a bare deny or a
refusal declines to answer: "不用提醒了"), hedge, repeat, help; a bare number without the asked
value is ``unrelated``; a request for another intent; else unrelated.

Nothing open: a whole utterance of answer words is that act (affirm, deny, cancel, hedge,
repeat; help is the ``capabilities`` small talk); a bare number or ordinal is ``choose``
(``choice`` = its 0-based index when it has one); small talk, whatever intent the NLU guessed
(also "好的，谢谢", "ok bye for now", and thanks for something in the same clause:
"谢谢你帮我发报价" thanks, it does not send again); a request; an utterance starting with small
talk and holding no request is that small talk; else unrelated.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

from .. import lazyre
from ..nlu.normalize import normalize
from ..nlu.numbers import SUM
from .heard import Heard, Reading
from .lexicon import Lexicon, default_lexicon
from .questions import Ask, Candidate, Choice, Confirm, Offer, OpenQuestion, Pick
from .scan import Clause, Scan, Token, scan, units
from .words import Words, bounded

__all__ = ["ANSWER_REST_CHARS", "LONG_ANSWER_UNITS", "REQUEST_RESIDUE", "VALUE_FRAME_UNITS", "read_answer", "says_nothing"]

#: "mostly the value": at most this many letters beside the entities (``heard.rest_chars``).
ANSWER_REST_CHARS = 4
#: letters after the answer words that can carry a new request.
REQUEST_RESIDUE = 2
#: a clause *is* a value when at most this many units (:func:`~.scan.units`) are left once the values
#: said in it, the card's action words, fillers and correction cues are dropped: "是发票", "发给王芳",
#: "to Wang Fang", "改成明天" are values; "她这周出差" only mentions one.
VALUE_FRAME_UNITS = 1
#: an answer is long when more units than this are said beside its answer words and values; then the
#: first no decides (a later "好吧" or "right" in the explanation does not turn it into a yes).
LONG_ANSWER_UNITS = 8

_NOT_X_BUT_Y = lazyre.compile(r"不是.{1,12}?(?:是|而是)|not .{1,30}? but ")
#: a negation inside a clause: the value in it is refused, not asked for ("no, not on friday")
#: after a no, words by which a clause asks for its value instead of explaining ("no, I'd like it on
#: the 13th", "no, make it 2 people", "no, for 3 people", "不对，我要明天"; "no, she is away this week"
#: explains). English and Chinese, from how a want is said, not from any one dialogue.
_WANTS = lazyre.compile(r"\b(?:'?d like|would like|want|wanna|need (?:it|them|the|a|an)|'?d prefer|prefer|'?d rather|let'?s|"
                        r"can you|could you|make|change|move|switch|book|reserve|set|schedule|it'?s|it is|it will be|"
                        r"it'?ll be|it should be|we are|we'?re|we will be|we'?ll be|there will be|there'?ll be)\b|"
                        r"^(?:on|at|for|to|from|in|just|only)\b|我要|我想|改|换|換|定在|订在|約在|约在")
_NEGATED = lazyre.compile(r"\b(?:not|no|never|don'?t|doesn'?t|isn'?t|won'?t|can'?t|shouldn'?t)\b|n't\b|[不别没別沒]")
_NEGATIVE = ("cancel", "deny", "hedge")


def read_answer(question: OpenQuestion | None, heard: Heard, lexicon: Lexicon | None = None) -> Reading:
    """Read ``heard`` as an answer to ``question`` (the rules are in the module docstring).

    :param question: the session's open question, or None when nothing is open.
    :param heard: the utterance; ``heard.text`` normalised (:func:`hermesd.nlu.normalize.normalize`).
    :param lexicon: the words to use (default: :func:`~.lexicon.default_lexicon`).
    :return: a :class:`Reading`; never raises on any text.
    """
    lex = lexicon or default_lexicon()
    sc = scan(heard.text, lex)
    if question is None:
        return _nothing_open(heard, sc)
    talk = sc.smalltalk()
    if talk:
        return Reading("smalltalk", smalltalk=talk, cue=f"smalltalk.{talk}")
    if isinstance(question, Choice):
        return _choice(question, heard, sc, lex)
    if isinstance(question, Pick):  # which of several things: read as a choice among its card's lines
        return _choice(Choice(mention="", candidates=question.choices, text=""), heard, sc, lex)
    if isinstance(question, Ask):
        return _ask(question, heard, sc, lex)
    return _yes_no(question, heard, sc, lex)


# -- what is said beside the answer words ---------------------------------------------------------

def _drop(text: str, words: Words) -> str:
    """``text`` with every word of ``words`` blanked out."""
    out, pos = [], 0
    for i, w in words.finditer(text):
        out.append(text[pos:i])
        out.append(" ")
        pos = i + len(w)
    out.append(text[pos:])
    return "".join(out)


def _without_values(text: str, heard: Heard) -> str:
    for m in sorted(heard.mentions, key=len, reverse=True):
        if m:
            text = text.replace(m, " ")
    return text


class _Said:
    """What an utterance says beside its answer words, worked out once per reading."""

    __slots__ = ("sc", "heard", "lex", "_plains", "_frames")

    def __init__(self, sc: Scan, heard: Heard, lex: Lexicon) -> None:
        self.sc, self.heard, self.lex = sc, heard, lex
        self._plains: list[int] | None = None
        self._frames: list[Clause] | None = None

    def plain(self, text: str) -> int:
        """Units of ``text`` beside the values said, the card's action words, fillers and correction cues."""
        return units(_drop(_without_values(text, self.heard), self.lex.frame))

    @property
    def plains(self) -> list[int]:
        if self._plains is None:
            self._plains = [self.plain(c.rest) if c.rest else 0 for c in self.sc.clauses]
        return self._plains

    @property
    def beside(self) -> int:
        """Units said beside the answer words and the values (a text past the scan counts as long)."""
        return sum(self.plains) + (LONG_ANSWER_UNITS + 1 if self.sc.truncated else 0)

    @property
    def long(self) -> bool:
        """More than :data:`LONG_ANSWER_UNITS` said beside the answer words (stops counting there)."""
        if self.sc.truncated:
            return True
        if self._plains is not None:
            return self.beside > LONG_ANSWER_UNITS
        n = 0
        for c in self.sc.clauses:
            n += self.plain(c.rest) if c.rest else 0
            if n > LONG_ANSWER_UNITS:
                return True
        return False

    @property
    def frames(self) -> list[Clause]:
        """The clauses that are a value (:data:`VALUE_FRAME_UNITS`) and hold one of the values said."""
        if self._frames is None:
            mentions = self.heard.mentions
            out = []
            for c, n in zip(self.sc.clauses, self.plains):
                if not c.rest and c.tokens and all(t.pick == "number" for t in c.tokens):
                    n = self.plain(c.text)  # "3" for a count
                elif not c.rest:
                    continue
                if n <= VALUE_FRAME_UNITS and (not mentions or any(m and m in c.text for m in mentions)):
                    out.append(c)
            self._frames = out
        return self._frames


def _has_verb(text: str, heard: Heard, lex: Lexicon) -> bool:
    """Something is asked for: a request verb or a question word outside the values said (研发部
    holds no 发), or a question mark."""
    text = _without_values(text, heard)
    return "?" in text or lex.verbs.search(text) is not None or lex.questions.search(text) is not None


def _asks_question(text: str, heard: Heard, lex: Lexicon) -> bool:
    """A question is asked: a question word outside the values said, or a question mark."""
    text = _without_values(text, heard)
    return "?" in text or "？" in text or lex.questions.search(text) is not None


# -- yes / no --------------------------------------------------------------------------------------

def _final_act(sc: Scan, lex: Lexicon, said: "_Said | None" = None) -> tuple[str, str] | None:
    """``(act, cue)`` of the last answer word, with the contrast rule; act ``unread`` when a yes
    is followed by a contrast and words we cannot read. In a long answer (``said.long``) the first
    no decides."""
    acted = [(c, a) for c in sc.clauses if (a := c.act())]
    acts = [(a[0], f"{a[0]}:{a[1]}") for _, a in acted]
    first_no = next((a for a in acts if a[0] in _NEGATIVE), None)
    if first_no is not None and acts[-1][0] == "affirm" and _beside_word(*acted[-1]):
        # "不是他，是研发部的" / "不对，是财务部的": after a no, a 是 that leads a value names what is
        # wanted instead — never a yes. Without a value the caller can use, the no stands.
        return first_no[0], f"{first_no[1]}+instead"
    if first_no is not None and first_no != acts[-1] and said is not None and said.long:
        return first_no
    last = acts[-1] if acts else None
    if sc.tail is None:
        return last
    tail = [c for c in sc.clauses if c.segment == sc.segments]
    if any(c.act() for c in tail):
        return last
    hit = lex.negative.search(sc.tail)
    if hit:
        act = lex.negative.kinds[hit[1]][0]
        return act, f"contrast+{act}:{hit[1]}"
    if last and last[0] == "affirm" and any(c.rest for c in tail):
        return "unread", "contrast.unread"
    return last


def _beside_word(clause: Clause, act: tuple[str, str]) -> bool:
    """Letters or digits in ``clause`` beside its answer word (是 in 是研发部的 / 是另外一个, not 是的)."""
    return any(ch.isalnum() for ch in clause.text.replace(act[1], "", 1))


def _correction_cue(said: _Said) -> str | None:
    """Why the utterance replaces a value, or None (the caller checks that a new value was heard):
    a correction cue in a clause that is a value, "不是 X，是 Y" or the NLU's kind ``correction`` in a
    short answer, a value clause after a deny. A value met in an explanation corrects nothing."""
    sc, heard, lex = said.sc, said.heard, said.lex
    frames = said.frames
    for c in frames:
        hit = lex.correct.search(c.text)
        if hit:
            return f"correct:{hit[1]}"
    short = said.beside <= ANSWER_REST_CHARS
    if short and _NOT_X_BUT_Y.search(sc.text):
        return "correct:not-x-but-y"
    # "不对，是李工" / "no, to 李娜"; a hedge opening a correction is a discourse marker, not a wait:
    # "等一下，发给王芳" / "wait, Li Na" name what they want instead
    held = None
    for c in sc.clauses:
        a = c.act()
        if held and c in frames and (a is None or a[0] == "affirm"):
            return f"correct:{held}+value"
        held = held or (a[0] if a is not None and a[0] in ("deny", "hedge") else None)
    if short and heard.kind == "correction":
        return "correct:kind"
    return None


def _deny_then_value(said: _Said) -> bool:
    """A no to the card, then a later clause that asks for a value instead: it holds a value said
    (``heard.mentions``), words that want it (:data:`_WANTS`), no answer word but a yes and no
    negation of its own, in an answer that is not long (:attr:`_Said.long`: a long one explains) —
    "no, time change to twelve in the afternoon for one people", "no, I'd like it on March 13th".
    People say no to a card and then what they want instead; "no, not on Friday", "no, my wife
    can't make it on Friday" or "no, she is away this week" ask for nothing."""
    sc, mentions = said.sc, said.heard.mentions
    if said.long:
        return False
    denied = False
    for c in sc.clauses:
        a = c.act()
        if denied and c.rest and (a is None or a[0] == "affirm") and any(m and m in c.rest for m in mentions):
            words = _without_values(c.text, said.heard)
            if _WANTS.search(words.strip()) and not _NEGATED.search(words):
                return True
        denied = denied or (a is not None and a[0] == "deny")
    return False


def _another_of_its_own(q: Ask, heard: Heard, values: Mapping[str, Any]) -> bool:
    """The utterance is a request of the question's own intent with a value said in words for another slot that
    differs from the form's (another task): a request of its own, never an answer to the form. A time that
    differs is no such thing: it is joined with the form's ("明天", then "下午三点": tomorrow at 15:00)."""
    return heard.intent == q.intent and not heard.out_of_scope \
        and any(k != q.slot and isinstance(v, str) and q.entities.get(k) not in (None, v) for k, v in values.items())


def _other_intent(heard: Heard, own_intent: str | None) -> bool:
    return heard.intent is not None and not heard.out_of_scope and heard.intent != own_intent


def _is_request(heard: Heard, own_intent: str | None, sc: Scan, act: Any, lex: Lexicon) -> bool:
    """A new request beside (or instead of) the answer words. After a no, the rest must ask for
    something ("不要，先查一下磁盘"); "no, the one in R&D" only says which."""
    if not _other_intent(heard, own_intent):
        return False
    if act is None:
        return True
    if sc.residue < REQUEST_RESIDUE:
        return False
    if act[0] in _NEGATIVE:
        return any(c.rest and _has_verb(c.rest, heard, lex) for c in sc.clauses)
    return True


def _refusal(heard: Heard, own_intent: str | None, sc: Scan, lex: Lexicon) -> str | None:
    """The words refusing the card's action anywhere in the answer (先别发了, "do not send"), unless
    another clause holds a new request of another intent ("别发了，帮我查一下磁盘" is that request)."""
    for _, words in lex.refusals(heard.text):
        others = [c for c in sc.clauses if words not in c.text and c.rest]
        if _other_intent(heard, own_intent) and any(_has_verb(c.rest, heard, lex) for c in others):
            return None
        return words
    return None


def _yes_no(q: Confirm | Offer, heard: Heard, sc: Scan, lex: Lexicon) -> Reading:
    plan: Mapping[str, Any] = q.entities if isinstance(q, Confirm) else q.slots
    values = {k: v for k, v in heard.slot_values.items() if plan.get(k) != v}  # a value the card has is no change
    said = _Said(sc, heard, lex)
    act = _final_act(sc, lex, said)
    if values:
        cue = _correction_cue(said)
        if cue:
            return Reading("correct", values=values, cue=cue)
        if act and act[0] == "deny" and _deny_then_value(said):
            return Reading("correct", values=values, cue="correct:deny+new-value")
    refused = None if act and act[0] in ("cancel", "deny") else _refusal(heard, q.intent, sc, lex)
    if refused:
        return Reading("deny", cue=f"deny:refuse:{refused}")
    if act is None and values and heard.rest_chars <= ANSWER_REST_CHARS and said.frames:
        return Reading("correct", values=values, cue="correct:value")  # "王芳", "发给王芳吧"
    if act is None and _bare_pick(sc) is not None:  # "1234", "第二个": a number is no yes, no no, no request
        return Reading("unrelated", cue="number:expects-yes-no")
    if _is_request(heard, q.intent, sc, act, lex):
        # "别发了，帮我查一下磁盘": a no to the card, then a request of its own; "等一下，她邮箱是多少": a
        # hedge holds the card — the question is a digression, the card asked again after it
        neg = act is not None and act[0] in ("cancel", "deny")
        return Reading("request", cue=f"{'deny+' if neg else ''}request:{heard.intent}")
    if act is None:
        if heard.intent and not heard.out_of_scope and heard.rest_chars > ANSWER_REST_CHARS:
            return Reading("request", cue=f"request:{heard.intent}")
        return Reading("unrelated", cue="unrelated")
    kind, cue = act
    if kind == "unread":
        return Reading("unrelated", cue=cue)
    if kind == "affirm" and not values and _changes_how(sc, cue.split(":", 1)[1]):
        return Reading("unrelated", cue="affirm.changed")
    if kind == "affirm":
        if values and said.frames:
            return Reading("correct", values=values, cue="correct:affirm+value")
        if isinstance(q, Confirm) and any(plan.get(k) is not None for k in values):
            # "yes, I'd like to make the transaction with Isabella" to a card for Emma: a yes that
            # contradicts a value the card shows is no yes to the card; the plan runs again with it
            return Reading("correct", values=values, cue="correct:affirm+other-value")
        if sc.question:
            return Reading("unrelated", cue="affirm?")
    return Reading(kind, cue=cue)


#: right after a yes, words that say how, from where or to whom the action runs ("send it from my
#: savings account", "do it via my card", "go ahead using the other account"): the answer changes
#: the action, so it is no yes to the card as shown (English; a card must never run with old values)
_CHANGED_HOW = lazyre.compile(r"^[\s,]*(?:from|via|using|through|instead|to(?!\s+(?:that|this|it|all|everything|me|us|you|them)\b))\b")


def _changes_how(sc: Scan, word: str) -> bool:
    """The clause of the last yes goes on, right after the yes word ``word``, with a preposition of
    :data:`_CHANGED_HOW`."""
    for c in reversed(sc.clauses):
        a = c.act()
        if a and a[1] == word:
            i = c.text.rfind(word)
            return i >= 0 and _CHANGED_HOW.search(c.text[i + len(word):]) is not None
    return False


# -- a slot question -------------------------------------------------------------------------------

def says_nothing(text: str, lex: Lexicon | None = None) -> bool:
    """``text`` carries no content: only answer words (yes, 好的, 嗯, no), small talk, openers, fillers,
    particles and the ``empty`` words (null, n/a, 无) — once they are dropped no letter or digit is left.

    >>> says_nothing("yes"), says_nothing("null"), says_nothing("好的吧"), says_nothing("给妈妈打电话")
    (True, True, True, False)
    """
    lex = lex or default_lexicon()
    t = normalize(text).text
    for words in (lex.phrases, lex.empty, lex.trim):
        t = _drop(t, words)
    return not any(ch.isalnum() for ch in t)


def _ask(q: Ask, heard: Heard, sc: Scan, lex: Lexicon) -> Reading:
    value = heard.asked_value
    values = dict(heard.slot_values)
    if isinstance(value, str) and says_nothing(value, lex):
        # "yes", "null", 好的 to 要提醒你做什么？: the words of a free-text answer that say nothing are no value
        value = None
        if isinstance(values.get(q.slot), str) and says_nothing(values[q.slot], lex):
            del values[q.slot]
    if value is not None:
        values[q.slot] = value
    said = _Said(sc, heard, lex)
    act = _final_act(sc, lex, said)
    if values:
        cue = _correction_cue(said)
        if cue:
            return Reading("correct", values=values, cue=cue)
    if value is None:
        refused = _refusal(heard, q.intent, sc, lex)
        if refused and not (act and act[0] == "cancel"):  # "不用提醒了": declining the question's work cancels it
            return Reading("cancel", cue=f"cancel:refuse:{refused}")
    last = sc.clauses[-1] if sc.clauses else None
    if act and act[0] in _NEGATIVE + ("repeat", "help") and (value is None or (last and last.act())):
        if act[0] == "deny":  # declining to answer cancels; "不要明天" names no new value
            alone = value is None or (last is not None and not last.rest)
            return Reading("cancel", cue=f"cancel:{act[1]}") if alone else Reading("unrelated", cue="deny+value")
        return Reading(act[0], cue=act[1])
    if value is not None:
        if _other_intent(heard, q.intent) and _asks_question(heard.text, heard, lex):
            # "今天星期几" to "since when?": a question of its own (another intent), not the value it holds
            return Reading("request", cue=f"request:question:{heard.intent}")
        if heard.rest_chars <= ANSWER_REST_CHARS:
            return Reading("fill", values={q.slot: value}, cue="fill:value")
        if _another_of_its_own(q, heard, values):
            # "明天早上八点提醒我开会" to 几点提醒你吃药？: a request of its own, with another task — never the
            # time of the form's (开会 was lost, 吃药 set); the form is asked again after it
            return Reading("request", cue=f"request:same-intent-other-values:{heard.intent}")
        if heard.intent is None or heard.out_of_scope or heard.intent == q.intent:
            return Reading("fill", values={q.slot: value}, cue="fill:own-intent")
        return Reading("request", cue=f"request:{heard.intent}")
    if act is None and _bare_pick(sc) is not None:
        return Reading("unrelated", cue="number:expects-value")
    if act is None and _another_of_its_own(q, heard, values):
        # "提醒我买菜" to 几点提醒你交报告？: another reminder, its time still to be asked — not words not understood
        return Reading("request", cue=f"request:same-intent-other-values:{heard.intent}")
    others = {k: v for k, v in values.items() if k != q.slot and q.entities.get(k) != v}
    if others and act is None and heard.rest_chars <= ANSWER_REST_CHARS and not _other_intent(heard, q.intent):
        # 要提醒你做什么？ answered "下午三点": a value of another slot of the same form (said as the answer,
        # little else): taken, and the form asks for what it still lacks
        return Reading("fill", values=others, cue="fill:other-slot")
    if _is_request(heard, q.intent, sc, act, lex):
        return Reading("request", cue=f"request:{heard.intent}")
    return Reading("unrelated", cue="affirm.needs-value" if act and act[0] == "affirm" else "unrelated")


# -- a choice --------------------------------------------------------------------------------------

@lru_cache(maxsize=4096)
def _norm(value: str) -> str:
    return normalize(value).text.strip()


def _card_values(c: Candidate) -> list[tuple[str, str]]:
    """``(normalised value, attribute)`` of everything the card shows for ``c``."""
    out = [(_norm(c.display), "display")]
    for key, v in c.attrs.items():
        if key in ("previous", "at"):  # a mark and a timestamp: nothing an answer says as words
            continue
        for item in (v if isinstance(v, (list, tuple)) else [v]):
            if isinstance(item, str) and _norm(item):
                out.append((_norm(item), key))
    return out


def _contains(text: str, word: str) -> bool:
    i = text.find(word)
    while i >= 0:
        if bounded(text, i, i + len(word)):
            return True
        i = text.find(word, i + 1)
    return False


def _by_name(core: str, cands: tuple[Candidate, ...]) -> tuple[int, str, int] | None | str:
    """``(index, cue, letters left)`` of the one candidate ``core`` names; ``"ambiguous"`` when it
    names several; None when it names none. Values several candidates share are ignored."""
    per = [_card_values(c) for c in cands]
    owners: dict[str, set[int]] = {}
    for i, vals in enumerate(per):
        for v, _ in vals:
            owners.setdefault(v, set()).add(i)
    long_core = len(core) >= (3 if core.isascii() else 2)
    hits: dict[int, tuple[str, str]] = {}
    for i, vals in enumerate(per):
        for v, key in vals:
            if len(owners[v]) > 1 or i in hits:
                continue
            if (len(v) >= 2 and _contains(core, v)) or (long_core and _contains(v, core)):
                hits[i] = (key, v)
    if len(hits) > 1:
        return "ambiguous"
    if not hits:
        return None
    (i, (key, v)), = hits.items()
    left = sum(ch.isalnum() for ch in core.replace(v, "")) if v in core else 0
    return i, f"choose:{key}:{v}", left


def _position(tok: Token, cands: tuple[Candidate, ...]) -> Reading:
    n = len(cands)
    pick = tok.pick or ""
    key = str(tok.number) if pick == "number" else pick[len("ordinal."):]
    cue = f"choose:{pick}:{tok.word}"
    index: int | None = None
    if key.isdigit():
        index = int(key) - 1 if 1 <= int(key) <= n else None
        if index is None:
            return Reading("unrelated", cue=f"{pick}:out-of-range")
    elif key == "last":
        index = n - 1
    elif key in ("former", "latter") and n == 2:
        index = 0 if key == "former" else 1
    elif key == "middle" and n == 3:
        index = 1
    elif key == "other" and n == 2:
        marked = [i for i, c in enumerate(cands) if c.attrs.get("previous")]
        index = 1 - marked[0] if len(marked) == 1 else None
    if index is None:
        return Reading("unrelated", cue=f"{pick}:does-not-fit")
    return Reading("choose", choice=index, cue=cue)


def _clause_choice(c: Clause, cands: tuple[Candidate, ...],
                   people: Mapping[str, str] | None = None) -> tuple[Reading, int] | None:
    """The clause's choice (and the letters left around a name), or None when it names none.
    ``people``: person mentions as grounded (强哥 → 张强), a name the card does not show."""
    tok = c.pick()
    if tok is not None and not c.rest:
        return _position(tok, cands), 0
    if not c.rest:
        return None
    named = _by_name(c.rest, cands)
    if named is None:
        for mention, shown in (people or {}).items():
            hits = [i for i, cand in enumerate(cands) if cand.display == shown or shown in cand.attrs.values()]
            if mention and mention in c.rest and len(hits) == 1:
                left = sum(ch.isalnum() for ch in c.rest.replace(mention, ""))
                return Reading("choose", choice=hits[0], cue=f"choose:person:{mention}"), left
        return None
    if named == "ambiguous":
        return Reading("unrelated", cue="choose:ambiguous"), 0
    i, cue, left = named  # type: ignore[misc]
    return Reading("choose", choice=i, cue=cue), left


def _meant_choice(c: Clause, q: Choice, heard: Heard, lex: Lexicon) -> tuple[Reading, int] | None:
    """The choice said after a correction cue that starts the clause's rest ("i meant the first one",
    我是说第二个, "no I meant Zhang Wei"), or None: the cue says which one is meant."""
    cue = lex.correct.match(c.rest, 0) if c.rest else None
    if not cue or len(cue) >= len(c.rest):
        return None
    after = scan(c.rest[len(cue):], lex).clauses
    if len(after) != 1 or after[0].act() is not None:
        return None
    got = _clause_choice(after[0], q.candidates, heard.people)
    return got if got is not None and got[0].act == "choose" else None


def _choice(q: Choice, heard: Heard, sc: Scan, lex: Lexicon) -> Reading:
    final: tuple[Reading, int] | None = None  # the last clause's reading, letters left around it
    wrong = frozenset(lex.lists.get("wrong", ()))
    for k, c in enumerate(sc.clauses):
        a = c.act()
        got = _clause_choice(c, q.candidates, heard.people)
        meant = _meant_choice(c, q, heard, lex) if got is None else None
        if meant is not None:
            got = meant  # "no, I meant the first one": the one named, a deny before it notwithstanding
        elif got is not None and a is not None and a[0] in ("deny", "cancel"):
            r = got[0]
            if r.act == "choose" and len(q.candidates) == 2:
                got = Reading("choose", choice=1 - (r.choice or 0), cue=f"choose:not:{r.cue}"), got[1]
            else:
                got = Reading("unrelated", cue="choose:not-ambiguous"), 0
        elif got is None and a is not None and a[0] != "affirm":
            if a[0] == "deny" and a[1] in wrong and not c.rest:
                got = Reading("deny", cue=f"deny:wrong:{a[1]}"), 0  # "不对" alone: not right, none named yet
            else:
                got = Reading("cancel" if a[0] == "deny" else a[0], cue=f"{a[0]}:{a[1]}"), 0
        if got is not None:
            others = sum(o.rest_len for j, o in enumerate(sc.clauses) if j != k)
            final = got[0], got[1] + others + (c.rest_len if got[0].act != "choose" else 0)
    if final is None or final[0].act in ("cancel", "deny", "unrelated"):
        renamed = _renamed(q, heard, sc, lex)
        if renamed is not None:
            return renamed
    refused = _refusal(heard, None, sc, lex)
    if refused and (final is None or final[0].act != "choose"):
        return Reading("cancel", cue=f"cancel:refuse:{refused}")
    requested = heard.intent is not None and not heard.out_of_scope
    if final is not None:
        r, left = final
        by_position = r.cue.startswith(("choose:number", "choose:ordinal"))
        said = r.cue.split(":", 2)[2] if r.act == "choose" and r.cue.count(":") >= 2 else ""
        # a description ("the engineer from rd", "研发部那位") is an answer, whatever the NLU guessed;
        # a request asks for something ("把合同也发给张伟吧")
        if requested and not by_position and left > (ANSWER_REST_CHARS if r.act == "choose" else REQUEST_RESIDUE - 1) \
                and _has_verb(sc.text.replace(said, " ") if said else sc.text, heard, lex):
            return Reading("request", cue=f"request:{heard.intent}")
        return r
    act = _final_act(sc, lex)
    if act and act[0] == "affirm" and len(q.candidates) == 1 and (not requested or sc.residue < REQUEST_RESIDUE):
        # "did you mean 李娜?" — "yes", "yeah", 没错: answer words alone are never a request, whatever the NLU
        # guessed of them; "对吗?" asks back, it is no yes
        if sc.question:
            return Reading("unrelated", cue="affirm?")
        return Reading("affirm", cue=f"affirm:{act[1]}:one-offered")
    if requested:
        return Reading("request", cue=f"request:{heard.intent}")
    return Reading("unrelated", cue="affirm.needs-choice" if act and act[0] == "affirm" else "unrelated")


def _renamed(q: Choice, heard: Heard, sc: Scan, lex: Lexicon) -> Reading | None:
    """"不对，是李工" / "no, I meant Li": another person named in place of the card's mention — a
    correction of who was meant, not a cancel. It needs a correction signal (a deny or a correction
    cue before the name, or the NLU's kind ``correction``), a person mention that is none of the
    candidates and not the card's own mention, and nothing asked for beside it."""
    shown = {c.display for c in q.candidates}
    own = _norm(q.mention)
    named = [m for m, v in heard.people.items() if m and m != own and v not in shown]
    if len(named) != 1 or len(heard.people) != 1:
        return None
    mention = named[0]
    signal = heard.kind == "correction" or lex.correct.search(sc.text) is not None or any(
        (a := c.act()) is not None and a[0] in ("deny", "cancel") for c in sc.clauses)
    if not signal:
        return None
    rest = sc.text.replace(mention, " ")
    for c in sc.clauses:
        for t in c.tokens:
            rest = rest.replace(t.word, " ", 1)
    if lex.verbs.search(_drop(rest, lex.correct)) is not None and units(_drop(rest, lex.correct)) > VALUE_FRAME_UNITS + 1:
        return None  # "不对，把合同发给李工": a request of its own
    return Reading("correct", values={"person": mention}, cue=f"correct:person:{mention}")


def _bare_pick(sc: Scan) -> Token | None:
    if sc.residue or not sc.clauses:
        return None
    toks = [t for c in sc.clauses for t in c.tokens]
    if any(t.act and t.act != "affirm" for t in toks):
        return None
    return next((t for t in reversed(toks) if t.pick), None)


def _nothing_open(heard: Heard, sc: Scan) -> Reading:
    talk = sc.smalltalk()
    if talk:
        return Reading("smalltalk", smalltalk=talk, cue=f"smalltalk.{talk}")
    kinds = sc.smalltalk_kinds()
    acts = [a for c in sc.clauses if (a := c.act())]
    if not sc.residue and sc.clauses:
        tok = _bare_pick(sc) if not SUM.search(heard.text) else None  # "2+2" is a sum, no pick of a list
        if tok is not None:
            key = str(tok.number) if tok.pick == "number" else (tok.pick or "")[len("ordinal."):]
            choice = int(key) - 1 if key.isdigit() and int(key) >= 1 else None
            return Reading("choose", choice=choice, cue=f"choose:{tok.pick}:{tok.word}")
        if acts:
            act, word = acts[-1]
            if act == "help":
                return Reading("smalltalk", smalltalk="capabilities", cue=f"smalltalk.capabilities:{word}")
            if act == "affirm" and kinds:
                return Reading("smalltalk", smalltalk=kinds[0], cue=f"smalltalk.{kinds[0]}+affirm")
            if act == "affirm" and sc.question:
                return Reading("unrelated", cue="affirm?")
            return Reading(act, cue=f"{act}:{word}")
    first = sc.clauses[0].tokens[0].smalltalk if sc.clauses and sc.clauses[0].tokens else None
    if first == "thanks" and sc.clauses[0].rest:  # "谢谢你帮我发报价", "thanks for checking": not a new request
        return Reading("smalltalk", smalltalk="thanks", cue="smalltalk.thanks+for")
    if heard.intent is not None and not heard.out_of_scope:
        return Reading("request", cue=f"request:{heard.intent}")
    if first:
        return Reading("smalltalk", smalltalk=first, cue=f"smalltalk.{first}+rest")
    if acts and sc.residue <= ANSWER_REST_CHARS and acts[-1][0] != "help":
        return Reading(acts[-1][0], cue=f"{acts[-1][0]}:{acts[-1][1]}+rest")
    return Reading("unrelated", cue="unrelated")
