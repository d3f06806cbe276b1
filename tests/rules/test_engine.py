"""Engine: priority, entity needs, conditions, fallbacks, compensation order, flat index."""

from __future__ import annotations

import pytest

from hermesd.rules.engine import DEFAULT_FALLBACK, RuleEngine
from hermesd.rules.model import ReplyAction, RulePack, ToolAction


def reply(text: str) -> dict:
    return {"reply": {"en": text}}


def pack(name: str, rules: list[dict], fallback: list[dict] | None = None) -> RulePack:
    return RulePack.model_validate({"pack": name, "rules": rules, "fallback": fallback or []})


def ctx(role="user", **entities) -> dict:
    return {"role": role, "entities": entities, "slots": {}, "memory": {}, "session": {}}


OFFICE = pack("office", [
    {"rule_id": "low", "priority": 1, "trigger": {"intent": "doc.send"}, "actions": [reply("low")]},
    {"rule_id": "high.admin", "priority": 10, "trigger": {"intent": "doc.send", "entities": ["doc"]},
     "conditions": "role == 'admin'", "actions": [reply("admin")]},
    {"rule_id": "high.needs", "priority": 10, "trigger": {"intent": "doc.send", "entities": ["doc", "person"]},
     "actions": [reply("both")]},
    {"rule_id": "mid", "priority": 5, "trigger": {"intent": "doc.send", "entities": ["doc"]}, "actions": [reply("mid")]},
    {"rule_id": "other", "trigger": {"intent": "doc.list_sent"}, "actions": [reply("list")]},
    {"rule_id": "guarded", "trigger": {"intent": "order.status"}, "conditions": "role == 'admin'",
     "actions": [reply("order")]},
], fallback=[reply("office fallback")])


def said(plan) -> str:
    return plan.actions[0].reply.en


@pytest.mark.parametrize(("intent", "c", "rule_id", "text"), [
    ("doc.send", ctx("admin", doc="quote"), "high.admin", "admin"),
    ("doc.send", ctx("user", doc="quote", person="张工"), "high.needs", "both"),
    ("doc.send", ctx("admin", doc="quote", person="张工"), "high.admin", "admin"),  # same priority: file order
    ("doc.send", ctx("user", doc="quote"), "mid", "mid"),
    ("doc.send", ctx("user"), "low", "low"),
    ("doc.send", ctx("user", doc=None), "low", "low"),  # null is not present
    ("doc.list_sent", ctx(), "other", "list"),
])
def test_first_rule_by_priority_wins(intent, c, rule_id, text):
    plan = RuleEngine([OFFICE]).match(intent, c)
    assert plan.path == "rule" and plan.rule_id == rule_id and plan.pack == "office" and said(plan) == text


def test_skipped_rules_explain_the_decision():
    plan = RuleEngine([OFFICE]).match("doc.send", ctx("user", doc="quote"))
    assert [(s.rule_id, s.reason) for s in plan.skipped] == [
        ("high.admin", "condition false: role == 'admin'"), ("high.needs", "missing entity person")]
    assert plan.to_trace()["skipped"][1] == {"rule_id": "high.needs", "reason": "missing entity person"}


def test_pack_fallback_for_its_intents_default_for_others():
    engine = RuleEngine([OFFICE])
    p = engine.match("order.status", ctx())
    assert p.path == "fallback" and p.pack == "office" and said(p) == "office fallback" and p.rule_id is None
    assert p.skipped[0].rule_id == "guarded"
    for intent in ("weather.today", None):
        p = engine.match(intent, ctx())
        assert p.path == "fallback" and p.pack is None and p.actions == DEFAULT_FALLBACK
    custom = RuleEngine([OFFICE], default_fallback=[ReplyAction(reply={"en": "?"})])
    assert said(custom.match(None, ctx())) == "?"


def test_index_is_per_intent():
    engine = RuleEngine([OFFICE])
    assert engine.intents == {"doc.send", "doc.list_sent", "order.status"}
    assert [r.rule_id for r in engine.rules_for("doc.send")] == ["high.admin", "high.needs", "mid", "low"]
    assert len(engine) == 6 and engine.rules_for("nope") == ()


def test_duplicate_rule_id_across_packs():
    other = pack("other", [{"rule_id": "low", "trigger": {"intent": "x"}, "actions": [reply("x")]}])
    with pytest.raises(ValueError, match="rule_id 'low' is in packs 'office' and 'other'"):
        RuleEngine([OFFICE, other])


def test_compensation_runs_undo_of_completed_steps_newest_first_then_fallback():
    p = pack("p", [{
        "rule_id": "chain", "trigger": {"intent": "chain"},
        "actions": [
            {"tool": "a", "id": "a", "on_failure": [reply("undo a")]},
            reply("between"),
            {"tool": "b", "id": "b", "params": {"x": "{{steps.a.v}}"}, "on_failure": [reply("undo b1"), reply("undo b2")]},
            {"tool": "c", "id": "c"},
            {"tool": "d", "on_failure": [reply("undo d")]},
        ],
        "fallback": [reply("sorry")],
    }])
    plan = RuleEngine([p]).match("chain", ctx())
    texts = lambda acts: [a.reply.en for a in acts]
    assert texts(plan.compensation(0)) == ["sorry"]
    # an undo step that replies says what happened: the fallback's reply would contradict it in the same
    # reply ("3 reminders about the bank: … which one?" then "no reminder about the bank")
    assert texts(plan.compensation(2)) == ["undo a"]
    assert texts(plan.compensation(3)) == ["undo b1", "undo b2", "undo a"]
    assert texts(plan.compensation(4)) == ["undo b1", "undo b2", "undo a"]  # c has no undo
    with pytest.raises(IndexError):
        plan.compensation(5)
    assert isinstance(plan.actions[2], ToolAction)
    assert plan.actions[2].render_params({"steps": {"a": {"v": [1, 2]}}}) == {"x": [1, 2]}


def test_a_fallback_is_said_when_no_undo_step_replies_and_its_other_actions_always_run():
    p = pack("p", [{
        "rule_id": "chain", "trigger": {"intent": "chain"},
        "actions": [{"tool": "a", "on_failure": [{"tool": "undo_a"}]}, {"tool": "b", "on_failure": [reply("undo b")]},
                    {"tool": "c"}],
        "fallback": [{"tool": "note"}, reply("sorry")],
    }])
    plan = RuleEngine([p]).match("chain", ctx())
    kinds = lambda acts: [a.tool if isinstance(a, ToolAction) else a.reply.en for a in acts]
    assert kinds(plan.compensation(1)) == ["undo_a", "note", "sorry"]  # the undo said nothing: the fallback does
    assert kinds(plan.compensation(2)) == ["undo b", "undo_a", "note"]


def test_conditions_see_every_root():
    p = pack("p", [{"rule_id": "r", "trigger": {"intent": "i"},
                    "conditions": ["role == 'user'", "slots.form == 'resend'", "memory.k > 1",
                                   "session.auth == 'AUTHED'", "entities.doc in ['quote']"],
                    "actions": [reply("ok")]}])
    engine = RuleEngine([p])
    full = {"role": "user", "slots": {"form": "resend"}, "memory": {"k": 2}, "session": {"auth": "AUTHED"},
            "entities": {"doc": "quote"}}
    assert engine.match("i", full).path == "rule"
    for root, bad in (("slots", {"form": "x"}), ("memory", {"k": 0}), ("session", {}), ("entities", {"doc": "x"})):
        assert engine.match("i", {**full, root: bad}).path == "fallback"
