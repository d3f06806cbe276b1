"""Three things a new user met (session 11 review), the pure halves, zh × en:

- a place said with a request right after a list ("第二个再发一遍", "resend the last one"): the place a
  position word names among the items shown (:func:`hermesd.rules.model.place`);
- an offer of unfinished work said after an answer does not make that answer's turn "nothing done yet"
  (:func:`hermesd.dialogue.lastaction.last_done`), so "不对，改成十点" / "no, make it 10" still repairs it;
- a repair of what was just done said while an offer is open is no answer to the offer
  (:func:`hermesd.dialogue.policy.repair_of_last`).
"""

from __future__ import annotations

import pytest

from hermesd.dialogue import policy as dp
from hermesd.dialogue.lastaction import last_done
from hermesd.dialogue.questions import Ask, Confirm, Offer, reasked
from hermesd.rules.model import place

OFFER = Offer(task_id=7, intent="doc.send", slots={"doc": "发票", "person": "李娜"}, prompt="上次…要接着做吗？")
SAID = reasked(OFFER)
CONFIRM = Confirm(intent="doc.send", rule_id="doc.send.confirmed", index=1, entities={"doc": "报价单"},
                  prompt="把报价单发给李娜吗？", card={})
ASK = Ask(intent="doc.send", rule_id="doc.send.ask_person", index=0, entities={}, prompt="要发给谁？", slot="person")


@pytest.mark.parametrize("said, n, index", [
    ("1", 3, 0), ("2", 3, 1), ("3", 3, 2), ("last", 3, 2), ("LAST", 2, 1), ("first", 2, 0), (2, 2, 1),
    ("4", 3, 3), ("0", 3, 3), ("-1", 3, 3),        # past the end (or before the start): no item there
    (None, 3, None), ("", 3, None), ("two", 3, None), (True, 3, None),  # nothing said, no position
])
def test_place(said, n, index):
    assert place(said, n) == index


def _turn(reply: str, *extra: dict) -> dict:
    return {"intent": "reminder.set", "state_after": "LISTENING", "reply": reply,
            "actions": [{"kind": "tool", "tool": "reminder", "outcome": "ok"}, {"kind": "reply", "outcome": "ok"}, *extra]}


@pytest.mark.parametrize("reply", ["好的，明天九点提醒你浇花。\n另外，上次“把发票发给李娜”还没做完，要接着做吗？",
                                   'OK, I will remind you tomorrow at 09:00 to call mom.\nAlso, last time "send the '
                                   'minutes to Li Na" was left unfinished. Shall I carry on with it?'])
def test_an_offer_said_after_an_answer_leaves_the_answer_done(reply):
    turn = _turn(reply, {"kind": "offer", "task_id": 4, "intent": "doc.send", "outcome": "waiting"})
    assert last_done([turn]) is turn


@pytest.mark.parametrize("waiting", [{"kind": "confirm", "index": 1, "outcome": "waiting"},
                                     {"kind": "choose", "index": 1, "outcome": "waiting"}])
def test_a_question_of_the_turn_itself_still_means_nothing_was_done(waiting):
    assert last_done([_turn("把报价单发给李娜吗？", waiting)]) is None


CASES = [
    # (open question, what decide() said, the utterance repairs what was just done, expected decision)
    # "no, make it 10" / "不对，改成十点" right after a reminder was set, with the offer said after that answer
    (SAID, dp.DropTask(), True, dp.DropTask(route=True)),             # its "no" declines nothing
    (SAID, dp.ResumeTask({"when": {"text": "十点"}}), True, dp.DropTask(route=True)),  # its time fixes no send
    (SAID, dp.AskAgain("yes_no"), True, dp.DropTask(route=True)),
    # the offer not said yet (made when the session opened): handled first, the offer after it once
    (OFFER, dp.DropTask(), True, dp.Digress()),
    (OFFER, dp.ResumeTask({"when": "10"}), True, dp.Digress()),
    # no repair: the offer's own answers stand
    (SAID, dp.DropTask(), False, dp.DropTask()),
    (OFFER, dp.ResumeTask({"person": "王芳"}), False, dp.ResumeTask({"person": "王芳"})),
    (SAID, dp.DropTask(later=True), False, dp.DropTask(later=True)),
    # a decision that already handles the utterance as a request stays
    (SAID, dp.DropTask(route=True), True, dp.DropTask(route=True)),
    (OFFER, dp.Digress(), True, dp.Digress()),
    # nothing open: "no, 10 not 9" is the request to move it, never "nothing to answer"
    (None, dp.NothingOpen("deny"), True, dp.NewTurn()),
    (None, dp.NothingOpen("deny"), False, dp.NothingOpen("deny")),
    # a card or a form of this plan keeps the policy's decision (their own correction rules apply)
    (CONFIRM, dp.Cancel("confirm"), True, dp.Cancel("confirm")),
    (ASK, dp.AskAgain("slot"), True, dp.AskAgain("slot")),
]


@pytest.mark.parametrize("q, d, repairs, want", CASES)
def test_repair_of_last(q, d, repairs, want):
    assert dp.repair_of_last(q, d, repairs) == want
