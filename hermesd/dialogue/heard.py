"""What the dialogue manager knows of one utterance (:class:`Heard`) and how it reads as an answer (:class:`Reading`).

Both are plain data built by the controller from the NLU's parse, so the reader
(:mod:`.reader`) and the decision (:mod:`.policy`) are pure and table-tested
without a daemon.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

__all__ = ["ACTS", "Heard", "Reading", "SMALLTALK"]

#: What an utterance does to an open question (or, with nothing open, what it is):
#: ``affirm``/``deny``: yes / no; ``hedge``: not yes, not no ("等等", "hold on");
#: ``choose``: picks a card choice (``Reading.choice``); ``fill``: gives the asked slot
#: (``Reading.values``); ``correct``: replaces slot values (``Reading.values``);
#: ``cancel``, ``repeat`` ("再说一遍", "what?"), ``help`` ("有哪些选项");
#: ``request``: a complete new request (a digression when something is open);
#: ``smalltalk``: greeting, thanks … (``Reading.smalltalk``); ``unrelated``: none of these.
ACTS = ("affirm", "deny", "hedge", "choose", "fill", "correct", "cancel", "repeat", "help", "request",
        "smalltalk", "unrelated")

#: Small-talk kinds answered with nothing open or during a question.
#: ``quiet``: "shut up", 闭嘴, "be quiet" said to the assistant - an OK, never a shutdown of the device.
SMALLTALK = ("greeting", "thanks", "goodbye", "identity", "wellbeing", "capabilities", "reassurance", "quiet")


@dataclass(frozen=True, slots=True)
class Heard:
    """One utterance as the dialogue manager sees it.

    :param text: the normalised text (lower-case, half-width, Simplified; :mod:`hermesd.nlu.normalize`).
    :param lang: ``zh`` | ``en``.
    :param intent: the NLU's top intent, or None when out of scope.
    :param out_of_scope: the NLU rejected every intent.
    :param kind: the NLU's utterance kind (command, question, correction, affirm, deny, cancel).
    :param entity_types: types of the entities found (``person``, ``datetime``, ``doc_type`` …).
    :param slot_values: this utterance's entities by slot name of the open question's intent
        (or of ``intent`` when nothing is open).
    :param asked_value: for an open :class:`~.questions.Ask`: the value of the asked entity type, else None.
    :param rest_chars: letters left once every entity span, spaces and punctuation are removed
        (0 for "李娜", 1 for "给李娜", many for a whole new sentence).
    :param mentions: each entity's words as said, normalised like ``text`` ("李经理", "这周"): the
        reader tells a clause that is a value ("是发票") from one that only mentions it in passing.
    :param people: each person mention (normalised words) → the shown name grounding gave it
        ("强哥" → 张强), so an alias the card does not show still chooses.
    """

    text: str
    lang: str = "zh"
    intent: str | None = None
    out_of_scope: bool = True
    kind: str = "command"
    entity_types: frozenset[str] = frozenset()
    slot_values: Mapping[str, Any] = field(default_factory=dict)
    asked_value: Any = None
    rest_chars: int = 0
    mentions: tuple[str, ...] = ()
    people: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Reading:
    """How :func:`hermesd.dialogue.reader.read_answer` read an utterance.

    :param act: one of :data:`ACTS`. :param choice: 0-based index into the card's candidates (``choose``).
    :param values: slot → value for ``fill`` / ``correct``. :param smalltalk: one of :data:`SMALLTALK`.
    :param cue: the lexicon entry or rule that decided (for the trace and the coverage report).
    """

    act: str
    choice: int | None = None
    values: Mapping[str, Any] = field(default_factory=dict)
    smalltalk: str | None = None
    cue: str = ""

    def to_trace(self) -> dict[str, Any]:
        out: dict[str, Any] = {"act": self.act}
        if self.choice is not None:
            out["choice"] = self.choice
        if self.values:
            out["values"] = dict(self.values)
        if self.smalltalk:
            out["smalltalk"] = self.smalltalk
        if self.cue:
            out["cue"] = self.cue
        return out
