"""The dialogue decision table (hermesd.dialogue.policy.decide), in-process: every open question × reading."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hermesd.dialogue import policy as dp
from hermesd.dialogue.heard import Heard, Reading
from hermesd.dialogue.questions import Ask, Candidate, Choice, Confirm, Offer, from_dict, reasked, to_dict

CONFIRM = Confirm(intent="doc.send", rule_id="doc.send.confirmed", index=1, entities={"doc": "报价单", "person": "李娜"},
                  prompt="把报价单发给李娜吗？", card={"question": "把报价单发给李娜吗？"})
ASK = Ask(intent="doc.send", rule_id="doc.send.ask_person", index=0, entities={"doc": "报价单"}, prompt="要发给谁？",
          slot="person", entity="person")
CHOICE = Choice(mention="张工", candidates=(Candidate("person:sales/zhang", "张伟", {"dept": "sales"}),
                                            Candidate("person:rd/zhang", "张强", {"dept": "rd"})),
                text="把报价单发给张工", prompt="你说的张工是哪一位？")
OFFER = Offer(task_id=7, intent="doc.send", slots={"doc": "报价单"}, prompt="上次的“发报价单”还没完成，要继续吗？")

SAID_OFFER = reasked(OFFER)  # said in a reply already
REMINDER_OFFER = Offer(task_id=8, intent="reminder.set", slots={"task": "给妈妈打电话"}, prompt="上次…")
ZH, EN = Heard(text="x", lang="zh"), Heard(text="x", lang="en")


def _send(lang: str, n_slots: int = 2) -> Heard:
    values = {"doc": "合同", "person": "王芳"} if n_slots == 2 else {"doc": "合同"}
    return Heard(text="x", lang=lang, intent="doc.send", out_of_scope=False, slot_values=values)


def _other(lang: str) -> Heard:
    return Heard(text="x", lang=lang, intent="device.disk_space", out_of_scope=False)


CASES = [
    # (open question, heard, reading, expected decision class, expected fields)
    (CONFIRM, ZH, Reading("affirm"), dp.Resume, {"index": 1}),
    (CONFIRM, EN, Reading("affirm"), dp.Resume, {"index": 1}),
    (CONFIRM, ZH, Reading("deny"), dp.Cancel, {"what": "confirm"}),
    (CONFIRM, EN, Reading("cancel"), dp.Cancel, {"what": "confirm"}),
    (CONFIRM, ZH, Reading("hedge"), dp.Wait, {}),
    (CONFIRM, EN, Reading("hedge"), dp.Wait, {}),
    (CONFIRM, ZH, Reading("correct", values={"person": "王芳"}), dp.Correct, {"values": {"person": "王芳"}}),
    (CONFIRM, EN, Reading("correct", values={}), dp.AskAgain, {"expected": "yes_no"}),
    (CONFIRM, ZH, Reading("unrelated"), dp.AskAgain, {"expected": "yes_no"}),
    (CONFIRM, EN, Reading("choose", choice=1), dp.AskAgain, {"expected": "yes_no"}),
    (CONFIRM, ZH, Reading("repeat"), dp.Repeat, {}),
    (CONFIRM, EN, Reading("help"), dp.Help, {}),
    (CONFIRM, _other("zh"), Reading("request"), dp.Digress, {}),
    (CONFIRM, _other("en"), Reading("request"), dp.Digress, {"cancel_first": False}),
    (CONFIRM, _other("zh"), Reading("request", cue="deny+request:device.disk_space"), dp.Digress,
     {"cancel_first": True}),
    # a complete send keeping none of the card's values is a second request: the card is asked again after it
    (CONFIRM, _send("zh"), Reading("request"), dp.Digress, {}),
    (CONFIRM, _send("zh"), Reading("correct", values={"doc": "合同", "person": "王芳"}, cue="correct:value"), dp.Digress, {}),
    # one value kept, or a correction cue: the card is changed
    (CONFIRM, Heard(text="x", lang="zh", intent="doc.send", out_of_scope=False, slot_values={"doc": "报价单", "person": "王芳"}),
     Reading("request"), dp.Replace, {}),
    (CONFIRM, _send("zh"), Reading("correct", values={"doc": "合同", "person": "王芳"}, cue="correct:deny+value"), dp.Correct, {}),
    (CONFIRM, _send("en", 1), Reading("request"), dp.Digress, {}),
    (CONFIRM, ZH, Reading("smalltalk", smalltalk="thanks"), dp.SmallTalk, {"kind": "thanks"}),
    (ASK, ZH, Reading("fill", values={"person": "李娜"}), dp.Fill, {"values": {"person": "李娜"}}),
    (ASK, EN, Reading("fill", values={"person": "Li Na"}), dp.Fill, {"values": {"person": "Li Na"}}),
    (ASK, ZH, Reading("correct", values={"person": "王芳"}), dp.Fill, {"values": {"person": "王芳"}}),
    (ASK, EN, Reading("fill", values={}), dp.AskAgain, {"expected": "slot"}),
    (ASK, ZH, Reading("cancel"), dp.Cancel, {"what": "ask"}),
    (ASK, EN, Reading("deny"), dp.Cancel, {"what": "ask"}),
    # not understood once: asked again saying what is expected; not understood again: dropped, said so
    (ASK, ZH, Reading("unrelated"), dp.AskAgain, {"expected": "slot"}),
    (replace(ASK, missed=1), ZH, Reading("unrelated"), dp.Cancel, {"what": "unread"}),
    (replace(ASK, missed=1), EN, Reading("affirm"), dp.Cancel, {"what": "unread"}),
    (replace(ASK, missed=1), EN, Reading("fill", values={"person": "Li Na"}), dp.Fill, {"values": {"person": "Li Na"}}),
    (replace(ASK, missed=1), ZH, Reading("hedge"), dp.Wait, {}),
    (replace(ASK, missed=1), ZH, Reading("repeat"), dp.Repeat, {}),
    (replace(ASK, missed=1), EN, Reading("help"), dp.Help, {}),
    (replace(ASK, missed=1), _other("zh"), Reading("request"), dp.Digress, {}),
    (replace(ASK, missed=1), ZH, Reading("cancel"), dp.Cancel, {"what": "ask"}),
    (ASK, ZH, Reading("affirm"), dp.AskAgain, {"expected": "slot"}),
    (ASK, EN, Reading("hedge"), dp.Wait, {}),
    (CHOICE, ZH, Reading("hedge"), dp.Wait, {}),
    (ASK, EN, Reading("unrelated"), dp.AskAgain, {"expected": "slot"}),
    (ASK, _other("zh"), Reading("request"), dp.Digress, {}),
    (ASK, EN, Reading("repeat"), dp.Repeat, {}),
    (CHOICE, ZH, Reading("choose", choice=1), dp.Choose, {"candidate": CHOICE.candidates[1]}),
    (CHOICE, EN, Reading("choose", choice=0), dp.Choose, {"candidate": CHOICE.candidates[0]}),
    (CHOICE, ZH, Reading("choose", choice=2), dp.AskAgain, {"expected": "choice"}),
    (CHOICE, EN, Reading("choose", choice=-1), dp.AskAgain, {"expected": "choice"}),
    (CHOICE, ZH, Reading("cancel"), dp.Cancel, {"what": "choice"}),
    # a bare "no" / "不对" to a choice (the reader's deny) asks it again; only a cancel drops it
    (CHOICE, EN, Reading("deny"), dp.AskAgain, {"expected": "choice", "after_no": True}),
    (CHOICE, ZH, Reading("deny"), dp.AskAgain, {"expected": "choice", "after_no": True}),
    (CHOICE, ZH, Reading("affirm"), dp.AskAgain, {"expected": "choice"}),
    (CHOICE, EN, Reading("help"), dp.Help, {}),
    (CHOICE, _other("zh"), Reading("request"), dp.Digress, {}),
    (OFFER, ZH, Reading("affirm"), dp.ResumeTask, {}),
    (OFFER, EN, Reading("deny"), dp.DropTask, {}),
    (OFFER, ZH, Reading("hedge"), dp.DropTask, {"later": True}),
    (OFFER, EN, Reading("deny"), dp.DropTask, {"later": False}),
    # an offer not yet said in a reply (made when the session opened): the utterance first, the offer after
    (OFFER, EN, Reading("unrelated"), dp.Digress, {"cancel_first": False}),
    (OFFER, _other("en"), Reading("request"), dp.Digress, {}),
    (OFFER, _other("zh"), Reading("request"), dp.Digress, {}),
    (OFFER, ZH, Reading("choose", choice=1), dp.Digress, {}),
    # said already and moved past: withdrawn, the utterance handled as itself
    (SAID_OFFER, EN, Reading("unrelated"), dp.DropTask, {"route": True}),
    (SAID_OFFER, _other("en"), Reading("request"), dp.DropTask, {"route": True, "later": False}),
    (SAID_OFFER, ZH, Reading("choose", choice=1), dp.DropTask, {"route": True}),
    (SAID_OFFER, ZH, Reading("affirm"), dp.ResumeTask, {}),
    (SAID_OFFER, EN, Reading("hedge"), dp.DropTask, {"later": True}),
    (OFFER, ZH, Reading("correct", values={"person": "王芳"}), dp.ResumeTask, {"values": {"person": "王芳"}}),
    # values said as a request of another intent are that request, never the old task's slots
    (REMINDER_OFFER, _send("zh"), Reading("correct", values={"person": "张工"}), dp.Digress, {}),
    (REMINDER_OFFER, _send("en"), Reading("fill", values={"task": "x"}), dp.Digress, {}),
    (reasked(REMINDER_OFFER), _send("zh"), Reading("correct", values={"person": "张工"}), dp.DropTask, {"route": True}),
    (REMINDER_OFFER, Heard(text="x", lang="zh", intent="reminder.set", out_of_scope=False),
     Reading("fill", values={"when": "8点"}), dp.ResumeTask, {"values": {"when": "8点"}}),
    (REMINDER_OFFER, Heard(text="x", lang="en", intent="doc.send", out_of_scope=True),
     Reading("fill", values={"when": "8"}), dp.ResumeTask, {"values": {"when": "8"}}),
    (REMINDER_OFFER, Heard(text="x", lang="zh", intent="reminder.set", out_of_scope=False,
                           slot_values={"when": "明天八点", "task": "开会"}),
     Reading("correct", values={"when": "明天八点", "task": "开会"}), dp.Digress, {}),
    (REMINDER_OFFER, Heard(text="x", lang="zh", intent="reminder.set", out_of_scope=False,
                           slot_values={"when": "明天八点", "task": "给妈妈打电话"}),
     Reading("fill", values={"when": "明天八点"}), dp.ResumeTask, {"values": {"when": "明天八点"}}),
    # a choice answered with another person: named anew, not cancelled
    (CHOICE, ZH, Reading("correct", values={"person": "李工"}), dp.Correct, {"values": {"person": "李工"}}),
    (CHOICE, EN, Reading("correct", values={"person": "li"}), dp.Correct, {"values": {"person": "li"}}),
    (CHOICE, EN, Reading("correct", values={}), dp.AskAgain, {"expected": "choice"}),
    (None, ZH, Reading("affirm"), dp.NothingOpen, {"act": "affirm"}),
    (None, EN, Reading("deny"), dp.NothingOpen, {"act": "deny"}),
    (None, ZH, Reading("choose", choice=1), dp.NothingOpen, {"act": "choose"}),
    (None, EN, Reading("cancel"), dp.NothingOpen, {"act": "cancel"}),
    (None, ZH, Reading("hedge"), dp.NothingOpen, {"act": "hedge"}),
    (None, _other("zh"), Reading("request"), dp.NewTurn, {}),
    (None, EN, Reading("unrelated"), dp.NewTurn, {}),
    (None, ZH, Reading("smalltalk", smalltalk="greeting"), dp.SmallTalk, {"kind": "greeting"}),
    (None, EN, Reading("smalltalk", smalltalk="capabilities"), dp.SmallTalk, {"kind": "capabilities"}),
    (None, EN, Reading("repeat"), dp.NewTurn, {}),
    (None, _other("en"), Reading("correct", values={"time": "12:30"}), dp.NewTurn, {}),
    (None, ZH, Reading("fill", values={"person": "李娜"}), dp.NewTurn, {}),
]


@pytest.mark.parametrize("q, heard, reading, cls, fields", CASES)
def test_decide(q, heard, reading, cls, fields):
    d = dp.decide(q, heard, reading)
    assert type(d) is cls, (q and type(q).__name__, reading, d)
    for k, v in fields.items():
        assert getattr(d, k) == v


def test_every_decision_has_a_distinct_name():
    names = [cls.name for cls in (dp.Resume, dp.Fill, dp.Correct, dp.Choose, dp.Cancel, dp.Wait, dp.ResumeTask,
                                  dp.DropTask, dp.Repeat, dp.Help, dp.AskAgain, dp.Digress, dp.Replace, dp.SmallTalk,
                                  dp.NewTurn, dp.NothingOpen)]
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("q", [CONFIRM, ASK, CHOICE, OFFER, replace(ASK, missed=1, prompts={"zh": "要发给谁？", "en": "Who to?"}),
                               Choice(mention="Zhang", candidates=CHOICE.candidates, text="send it to Zhang",
                                      outer=ASK, then=("check the disk",))])
def test_questions_round_trip(q):
    import orjson

    d = orjson.loads(orjson.dumps(to_dict(q)))
    assert from_dict(d) == q
    assert to_dict(reasked(q))["reasked"] is True


def test_unknown_kind_is_an_error():
    with pytest.raises(ValueError):
        from_dict({"kind": "poll"})
    assert from_dict(None) is None
