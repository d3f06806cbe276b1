"""The per-user cap's choice, in process (:mod:`hermesd.session.cap`): what ends to make room for one
more session, in which order, and when the user is refused instead — and for how long at most."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from hermesd.dialogue.questions import Ask, Choice, Confirm, Offer
from hermesd.session.cap import RETRY_MAX_MS, RETRY_MIN_MS, make_room, question_of, standing
from hermesd.session.machine import State

NOW, GRACE = 1_000_000, 5_000
CARD = Confirm(intent="doc.send", rule_id="r", index=0, prompt="发送？")
ASK = Ask(intent="reminder.create", rule_id="r", index=0, slot="when")
CHOICE = Choice(mention="张工", candidates=(), text="哪位张工？")
OFFER = Offer(task_id=1, intent="doc.send")


@dataclass
class S:
    """What the cap reads of a session (the controller's :class:`~hermesd.session.record.Session`)."""

    session_id: str
    state: State = State.LISTENING
    age_ms: int = 60_000
    pending: Any = None
    slots: dict[str, Any] = field(default_factory=dict)
    busy: bool = False
    executing: Any = None

    @property
    def updated_ms(self) -> int:
        return NOW - self.age_ms


def ids(room) -> list[str]:
    return [s.session_id for s, _ in room.evict]


@pytest.mark.parametrize("s, how, question", [
    (S("a", State.IDLE), "idle", ""),
    (S("a"), "idle", ""),
    (S("a", State.IDLE, pending=OFFER), "idle", ""),  # an offer of parked work is no work of its own
    (S("a", State.LISTENING, pending=OFFER), "idle", ""),
    (S("a", State.CONFIRMING, pending=CARD), "waiting", "confirm"),
    (S("a", pending=ASK), "waiting", "ask"),
    (S("a", pending=CHOICE), "waiting", "choice"),
    (S("a", slots={"doc": "报价单"}), "waiting", "form"),
    (S("a", State.IDLE, slots={"doc": "报价单"}), "idle", "form"),  # timed out: its work is a pending task
    (S("a", busy=True), "running", ""),
    (S("a", State.EXECUTING, executing={"tool": "x"}), "running", ""),
    (S("a", State.CONFIRMING, pending=CARD, busy=True), "running", "confirm"),
])
def test_how_a_session_stands(s, how, question):
    assert standing(s) == how and question_of(s) == question


@pytest.mark.parametrize("sessions, cap, evicted, dropped", [
    # under the cap: nothing ends
    ([S("a"), S("b")], 3, [], []),
    # idle ones first, least recently used first, IDLE before LISTENING
    ([S("a", age_ms=9_000), S("b", age_ms=70_000), S("c", State.IDLE, age_ms=6_000)], 3, ["c"], [""]),
    ([S("a", age_ms=9_000), S("b", age_ms=70_000), S("c", age_ms=6_000)], 3, ["b"], [""]),
    ([S("a", age_ms=9_000), S("b", age_ms=70_000), S("c", age_ms=6_000)], 2, ["b", "a"], ["", ""]),
    # an idle one goes before any question, however old the question
    ([S("q", State.CONFIRMING, pending=CARD, age_ms=50_000), S("i", age_ms=6_000)], 2, ["i"], [""]),
    # every session holds a card: the one unanswered longest goes (the reviewer's 60 s lock-out)
    ([S("a", State.CONFIRMING, pending=CARD, age_ms=20_000), S("b", State.CONFIRMING, pending=CARD, age_ms=40_000),
      S("c", State.CONFIRMING, pending=CARD, age_ms=6_000)], 3, ["b"], ["confirm"]),
    ([S("a", pending=ASK, age_ms=8_000), S("b", slots={"doc": "合同"}, age_ms=7_000)], 2, ["a"], ["ask"]),
    # an IDLE session goes even inside the grace (it timed out: nobody is about to use it)
    ([S("a", State.IDLE, age_ms=10), S("b", pending=ASK, age_ms=100)], 2, ["a"], [""]),
])
def test_what_ends_to_make_room(sessions, cap, evicted, dropped):
    room = make_room(sessions, cap, NOW, GRACE)
    assert room.full is None and ids(room) == evicted
    assert [q for _, q in room.evict] == dropped


@pytest.mark.parametrize("sessions, cap, counts, retry_ms", [
    # a card shown 1 s ago is still being read: refused, retry when the first grace ends (capped)
    ([S("a", State.CONFIRMING, pending=CARD, age_ms=1_000), S("b", State.CONFIRMING, pending=CARD, age_ms=2_000)],
     2, (2, 2, 0, 2, 0), RETRY_MAX_MS),
    # one opened just now, one running a turn
    ([S("a", age_ms=4_990), S("b", busy=True, age_ms=90_000)], 2, (2, 2, 1, 0, 1), RETRY_MIN_MS),
    ([S("a", age_ms=4_900), S("b", State.EXECUTING, executing={"tool": "x"}, age_ms=90_000)], 2, (2, 2, 1, 0, 1),
     100),
    # only running ones: nothing to wait for but a close
    ([S("a", busy=True), S("b", busy=True)], 2, (2, 2, 2, 0, 0), RETRY_MAX_MS),
    # two must go and only one may
    ([S("a", age_ms=90_000), S("b", pending=ASK, age_ms=10)], 1, (2, 1, 0, 1, 0), RETRY_MAX_MS),
    # an old card does not give way while an idle session will make room once its grace ends
    ([S("q", State.CONFIRMING, pending=CARD, age_ms=50_000), S("i", age_ms=4_800)], 2, (2, 2, 0, 0, 1), 200),
])
def test_refused_only_while_every_session_runs_or_was_used_within_the_grace(sessions, cap, counts, retry_ms):
    room = make_room(sessions, cap, NOW, GRACE)
    f = room.full
    assert room.evict == () and f is not None
    assert (f.open, f.limit, f.running, f.waiting, f.recent) == counts
    assert f.retry_after_ms == retry_ms


def test_a_user_of_waiting_cards_is_refused_for_at_most_the_grace():
    """Eight cards shown one after another: a ninth session is refused only until the oldest card's
    grace has passed — never for the cards' whole confirming_s."""
    cards = [S(f"c{i}", State.CONFIRMING, pending=CARD, age_ms=i * 100) for i in range(8)]
    waited = 0
    while (room := make_room(cards, 8, NOW + waited, GRACE)).full is not None:
        waited += room.full.retry_after_ms
    assert GRACE - 700 <= waited <= GRACE - 700 + RETRY_MAX_MS and ids(room) == ["c7"]
