"""What follows from (open question, heard utterance, its reading): one typed decision (pure).

The controller carries a decision out (NLU, grounding, memory, tools, commit are
its I/O); nothing here runs anything. The table (DESIGN.md, "Dialogue manager"):

============  ============================================  =======================================
open          reading                                        decision
============  ============================================  =======================================
Confirm       affirm                                         :class:`Resume` at the card's step
Confirm       deny / cancel                                  :class:`Cancel`
Confirm/Ask/  hedge                                          :class:`Wait` (the question stays open)
Choice
Confirm       correct                                        :class:`Correct` (plan runs again); without a
                                                             correction cue, a complete request keeping none of
                                                             the card's values (:func:`another_request`) is a
                                                             :class:`Digress`: the card is asked again after it
Ask           fill                                           :class:`Fill`
Ask           correct                                        :class:`Fill` (the corrected values)
Ask           cancel / deny                                  :class:`Cancel`
Ask           unrelated, once asked again already (``missed``)   :class:`Cancel` (``unread``): the form is
                                                             dropped with a sentence, never a third ask
Choice        choose; yes to the one name offered            :class:`Choose`
Choice        correct (another person: "不对，是李工")            :class:`Correct` (the mention replaced, run again)
Choice        deny ("不对", "no": not right, none named)      :class:`AskAgain` (``after_no``): asked again
Choice        cancel (the reader's: 算了, 不要了, neither)      :class:`Cancel`
Pick          choose (a position, a word of a line, a time)  :class:`Picked` (the plan goes on with it)
Pick          deny / cancel                                  as for a Choice
Offer         affirm / correct                               :class:`ResumeTask` (with the corrected values)
Offer         correct / fill said as a request of another    :class:`Digress` (a new request is never read
              intent ("把报价单发给张工" to a reminder offer)     as values for the old task), or :class:`DropTask`
                                                             (``route``) once the offer has been said
Offer         deny / cancel                                  :class:`DropTask`
Offer         hedge ("not now")                              :class:`DropTask` (``later``: stays pending)
Offer         a repair of what was just done ("no, make it 10"    as a request (:func:`repair_of_last`): the
              right after a reminder was set), however read      offer is no longer the topic
Offer         request / unrelated / anything else            :class:`Digress`: the utterance is handled as
                                                             itself and the offer said after its answer; once
                                                             said (``reasked``), :class:`DropTask` (``route``:
                                                             withdrawn, then the utterance is handled)
any           repeat / help                                  :class:`Repeat` / :class:`Help`
any           request                                        :class:`Digress` (then asked again once),
                                                             or :class:`Replace` for a complete new
                                                             request of the plan's own intent
any           smalltalk                                      :class:`SmallTalk` (then asked again)
any           unrelated / anything else                      :class:`AskAgain` saying what is expected
Ask (person)  a name nobody in the directory has ("刘洋")     :class:`NotKnown` (:func:`not_known`): said plainly,
                                                             the closest names offered, the question dropped
nothing       request / unrelated                            :class:`NewTurn`
nothing       smalltalk                                      :class:`SmallTalk`
nothing       affirm / deny / choose / hedge                 :class:`NothingOpen` (runs nothing)
nothing       fill / correct                                 :class:`NewTurn` (a request like any other)
nothing       cancel                                         :class:`NothingOpen` (nothing to cancel); first in a
                                                             conversation, the heard intent's rule written for it
                                                             (``session.asked == 'which'``) may say what there is
                                                             (the session's ``_cancel_which``: "取消吧" → the reminders)
============  ============================================  =======================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Union

from .heard import Heard, Reading
from .questions import Ask, Candidate, Choice, Confirm, Offer, OpenQuestion, Pick

__all__ = [
    "AskAgain", "Cancel", "Choose", "Correct", "Decision", "Digress", "DropTask", "Fill", "Help", "NewTurn",
    "NotKnown", "NothingOpen", "Picked", "Repeat", "Replace", "Resume", "ResumeTask", "SmallTalk", "Wait", "another_request", "decide", "not_known",
    "repair_of_last",
]


@dataclass(frozen=True, slots=True)
class Resume:
    """The card was accepted: run the plan from the confirmed step ``index``."""

    index: int
    name = "resume"


@dataclass(frozen=True, slots=True)
class Fill:
    """The asked slot (and any other slots said) are given: run the plan again with ``values``."""

    values: Mapping[str, Any]
    name = "fill"


@dataclass(frozen=True, slots=True)
class Correct:
    """Slot values replaced while a card was open: run the plan again (it stops at the card anew)."""

    values: Mapping[str, Any]
    name = "correct"


@dataclass(frozen=True, slots=True)
class Choose:
    """One candidate chosen: bind the mention for the session, then run the original utterance."""

    candidate: Candidate
    name = "choose"


@dataclass(frozen=True, slots=True)
class Cancel:
    """Drop the open question (and its plan). :param what: ``confirm`` / ``ask`` / ``choice``, or
    ``unread`` (a slot question whose answer was not understood after it was asked again)."""

    what: str
    name = "cancel"


@dataclass(frozen=True, slots=True)
class Wait:
    """A hedge ("等等", "hold on"): nothing runs, the card stays open and says so."""

    name = "wait"


@dataclass(frozen=True, slots=True)
class ResumeTask:
    """The offered unfinished task is taken up again, with ``values`` corrected ("好的，不过发给王会计")."""

    values: Mapping[str, Any] = field(default_factory=dict)
    name = "resume_task"


@dataclass(frozen=True, slots=True)
class DropTask:
    """The offered unfinished task is declined; ``later`` (a hedge, "not now") keeps it pending."""

    later: bool = False
    #: the utterance was something else (a request, a question): the offer is withdrawn and it is routed
    route: bool = False
    name = "drop_task"


@dataclass(frozen=True, slots=True)
class Repeat:
    """Say the open question again."""

    name = "repeat"


@dataclass(frozen=True, slots=True)
class Help:
    """Say what answers the open question takes (the choices, or yes/no)."""

    name = "help"


@dataclass(frozen=True, slots=True)
class AskAgain:
    """Not an answer: ask again and say what is expected (``yes_no`` / ``choice`` / ``slot``).
    ``after_no``: a bare "不对" / "no" to a choice — none of it was taken, nothing is dropped."""

    expected: str
    after_no: bool = False
    name = "ask_again"


@dataclass(frozen=True, slots=True)
class Digress:
    """A new request while a question is open: handle it, then ask the question again once — or, with
    ``cancel_first`` ("别发了，帮我查一下磁盘": a no, then a request), drop the question and handle it."""

    cancel_first: bool = False
    name = "digress"


@dataclass(frozen=True, slots=True)
class Replace:
    """A complete new request of the open plan's own intent replaces the open one."""

    name = "replace"


@dataclass(frozen=True, slots=True)
class SmallTalk:
    """Greeting, thanks, goodbye, who-are-you, what-can-you-do (``kind``); an open question comes back after."""

    kind: str
    name = "smalltalk"


@dataclass(frozen=True, slots=True)
class NewTurn:
    """Nothing is open (or it was dropped): route the utterance as a request."""

    name = "new_turn"


@dataclass(frozen=True, slots=True)
class NothingOpen:
    """A bare yes / no / number / cancel with nothing open: run nothing, say so. :param act: the reading's act."""

    act: str
    name = "nothing_open"


@dataclass(frozen=True, slots=True)
class Picked:
    """One of a :class:`~.questions.Pick`'s things chosen (``index``, 0-based): the plan goes on with it."""

    index: int
    name = "picked"


@dataclass(frozen=True, slots=True)
class NotKnown:
    """The answer to "who?" is a name nobody in the directory has (:mod:`.unknown`): say so, offer the
    closest names, drop the question — asking "who?" again would only loop. :param who: the name as said."""

    who: str
    name = "not_known"


Decision = Union[Resume, Fill, Correct, Choose, Cancel, Wait, ResumeTask, DropTask, Repeat, Help, AskAgain,
                 Digress, Replace, SmallTalk, NewTurn, NothingOpen, NotKnown, Picked]

#: answers that mean nothing without a question: with nothing open they run nothing
_BARE_ACTS = frozenset({"affirm", "deny", "hedge", "choose", "cancel"})


def _expected(q: OpenQuestion) -> str:
    if isinstance(q, (Choice, Pick)):
        return "choice"
    if isinstance(q, Ask):
        return "slot"
    return "yes_no"


def another_request(q: OpenQuestion, heard: Heard) -> bool:
    """``heard`` is a second request of the card's own kind, not a change of it: a complete request of
    ``q``'s intent (two slot values or more) that keeps none of the card's values — "把合同发给李娜" to
    "把报价单发给张伟？", "send the contract to Li Na" to "Send the quote to Zhang Wei?". The card is kept
    and asked again once the new request is answered: nothing the person asked for is dropped unsaid."""
    if not isinstance(q, Confirm) or heard.intent is None or heard.intent != q.intent:
        return False
    said = heard.slot_values
    return len(said) >= 2 and all(q.entities.get(k) is not None and q.entities.get(k) != v for k, v in said.items())


def _request(q: OpenQuestion, heard: Heard, reading: Reading) -> Decision:
    """A new request while ``q`` is open: a digression, or a replacement of the open plan."""
    if another_request(q, heard):
        return Digress()
    if isinstance(q, (Ask, Confirm)) and heard.intent is not None and heard.intent == q.intent \
            and len(heard.slot_values) >= 2:
        return Replace()
    return Digress(cancel_first=reading.cue.startswith("deny+"))


def decide(q: OpenQuestion | None, heard: Heard, reading: Reading) -> Decision:
    """The decision for one turn (see the module table).

    :param q: the session's open question, or None. :param heard: the utterance.
    :param reading: :func:`hermesd.dialogue.reader.read_answer` of it against ``q``.
    """
    act = reading.act
    if q is None:
        if act == "smalltalk" and reading.smalltalk:
            return SmallTalk(reading.smalltalk)
        if act == "request":
            return NewTurn()
        if act in _BARE_ACTS:
            return NothingOpen(act)
        return NewTurn()  # a correction or slot value with nothing open is a request like any other
    if isinstance(q, Offer):
        return _offer(q, heard, reading)
    if act == "request":
        return _request(q, heard, reading)
    if act == "smalltalk" and reading.smalltalk:
        return SmallTalk(reading.smalltalk)
    if act == "repeat":
        return Repeat()
    if act == "help":
        return Help()
    if act == "hedge" and not isinstance(q, Offer):
        return Wait()  # "等等", "hold on": nothing runs, nothing is dropped
    if isinstance(q, Confirm):
        if act == "affirm":
            return Resume(q.index)
        if act in ("deny", "cancel"):
            return Cancel("confirm")
        if act in ("correct", "fill") and reading.values:
            if reading.cue == "correct:value" and another_request(q, heard):
                return Digress()  # no correction cue and nothing of the card kept: a second request
            return Correct(reading.values)
    elif isinstance(q, Ask):
        if act in ("fill", "correct") and reading.values:
            return Fill(reading.values)
        if act in ("cancel", "deny"):
            return Cancel("ask")
        if act not in ("hedge", "repeat", "help") and q.missed >= 1:
            return Cancel("unread")  # not understood twice: the form is dropped, said so, never a loop
    elif isinstance(q, Pick):
        if act == "choose" and reading.choice is not None and 0 <= reading.choice < len(q.items):
            return Picked(reading.choice)
        if act == "deny":
            return AskAgain("choice", after_no=True)
        if act == "cancel":
            return Cancel("choice")
    elif isinstance(q, Choice):
        if act == "choose" and reading.choice is not None and 0 <= reading.choice < len(q.candidates):
            return Choose(q.candidates[reading.choice])
        if act == "affirm" and len(q.candidates) == 1:
            return Choose(q.candidates[0])  # "did you mean 李娜?" — "yes": the one offered
        if act == "correct" and reading.values:
            return Correct(reading.values)  # "不对，是李工": the person is named anew, not chosen
        if act == "deny" and q.asks == "did_you_mean":  # "是说报价单吗？" — "不是": not that word, nothing to do
            return Cancel("choice")
        if act == "deny":  # "不对" / "no" alone: which one is still open, the task is not refused
            return AskAgain("choice", after_no=True)
        if act == "cancel":
            return Cancel("choice")
    return AskAgain(_expected(q))


def _offer(q: Offer, heard: Heard, reading: Reading) -> Decision:
    """An offer is a soft question: anything but an answer to it is handled as itself. An offer not
    yet said in a reply (made when the session opened, the user may never have read it) comes after
    that answer (:class:`Digress`); one said already is withdrawn (:class:`DropTask` ``route``): the
    user read it and moved on.

    Values said as a request of another intent are that request, not a correction of the offered
    task: to an offered reminder, "把报价单发给张工" sends the quote (its person is no reminder slot).
    So is a complete request of the task's own intent that replaces a value the task has (the
    :class:`Replace` test: two slot values or more): "明天八点提醒我开会" to an offered "提醒我给妈妈
    打电话" is a reminder of its own; "发给王会计" alone corrects the offered send.
    """
    act = reading.act
    if act == "affirm":
        return ResumeTask()
    if act in ("correct", "fill") and reading.values:
        if heard.intent is not None and not heard.out_of_scope and heard.intent != q.intent:
            return _moved_on(q)
        if heard.intent == q.intent and len(heard.slot_values) >= 2 and any(
                q.slots.get(k) not in (None, "", v) for k, v in reading.values.items()):
            return _moved_on(q)  # a whole new request of the same kind ("明天八点提醒我开会"), not a fix
        return ResumeTask(dict(reading.values))
    if act in ("deny", "cancel", "hedge"):
        return DropTask(later=act == "hedge")
    if act == "repeat":
        return Repeat()
    if act == "help":
        return Help()
    if act == "smalltalk" and reading.smalltalk:
        return SmallTalk(reading.smalltalk)
    return _moved_on(q)


def _moved_on(q: Offer) -> Decision:
    """Something else was said to the offer: handled first, the offer after it (once), or — said
    already — withdrawn."""
    return DropTask(route=True) if q.reasked else Digress()


def not_known(q: OpenQuestion | None, d: Decision, said: str | None, wants_person: bool) -> Decision:
    """:class:`NotKnown` instead of asking "who?" again: ``q`` asks for a person (``wants_person``), the
    answer was not read (:class:`AskAgain`, or a :class:`Digress` the NLU guessed from a bare name) and it is a name (``said``, :func:`.unknown.name_said`); else ``d``."""
    if isinstance(q, Ask) and wants_person and said and (
            isinstance(d, AskAgain) or (isinstance(d, Digress) and not d.cancel_first)):
        return NotKnown(said)  # a name alone is never a new request ("Liu Yang" read as a lookup)
    return d


def repair_of_last(q: OpenQuestion | None, d: Decision, repairs_last: bool) -> Decision:
    """An utterance that repairs what was just done (``repairs_last``: "不对，改成十点", "no, make it 10" right
    after a reminder was set — the session read it as that reminder's change) is about that, not about an
    offer of unfinished work said after it: its "no" declines nothing and its values fix no offered slot.
    To an :class:`~.questions.Offer` it is a request like any other (:func:`_offer`'s "anything else":
    handled first, the offer after it once, or withdrawn once said); with nothing open, a :class:`NewTurn`
    (a bare "no, 10" would run nothing); any other question keeps ``d``.

    :param q: the open question or None. :param d: :func:`decide`'s decision.
    """
    if not repairs_last:
        return d
    if isinstance(q, Offer) and isinstance(d, (DropTask, ResumeTask, AskAgain, Repeat, Help)):
        return _moved_on(q)
    if q is None and isinstance(d, NothingOpen):
        return NewTurn()
    return d
