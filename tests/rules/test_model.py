"""Pack models: every action kind, its rendering, and the checks made at validation."""

from __future__ import annotations

import pytest
from hermesd.typed import ValidationError

from hermesd.rules.model import (
    AskAction,
    ConfirmAction,
    HandoffAction,
    RememberAction,
    ReplyAction,
    Rule,
    RulePack,
    SetStateAction,
    Text,
    ToolAction,
)

CTX = {"role": "admin", "entities": {"service": "nginx", "person": "张工", "when": {"start": "2026-11-30T09:00:00+08:00"}},
       "slots": {}, "memory": {"k": [1, 2]}, "session": {"auth": "PRE_AUTH"}, "steps": {"a": {"id": "r7"}}}


def rule(*actions: dict, **extra) -> Rule:
    return Rule.model_validate({"rule_id": "r", "trigger": {"intent": "i"}, "actions": list(actions), **extra})


def test_each_kind_parses_to_its_class_and_renders():
    r = rule(
        {"tool": "service_status", "id": "a", "params": {"unit": "{{entities.service}}.service", "n": 3}},
        {"ask": "pin", "entity": "number", "prompt": {"zh": "PIN？", "en": "PIN for {{entities.service}}?"}},
        {"confirm": {"zh": "重启{{entities.service}}？"}, "fields": {"unit": "{{entities.service}}", "ids": "{{memory.k}}"}},
        {"reply": {"en": "done {{steps.a.id}}"}},
        {"remember": "last.restart", "value": {"unit": "{{entities.service}}"}, "class": "project"},
        {"set_state": {"auth": "AUTHED", "who": "{{entities.person}}"}},
        {"handoff": "needs a person", "message": {"zh": "已转人工"}},
    )
    a = r.actions
    assert [type(x) for x in a] == [ToolAction, AskAction, ConfirmAction, ReplyAction, RememberAction,
                                    SetStateAction, HandoffAction]
    assert [x.kind for x in a] == ["tool", "ask", "confirm", "reply", "remember", "set_state", "handoff"]
    assert a[0].render_params(CTX) == {"unit": "nginx.service", "n": 3}
    assert a[1].prompt.render(CTX, "en") == "PIN for nginx?" and a[1].ask == "pin" and a[1].entity == "number"
    assert a[2].confirm.render(CTX, "en") == "重启nginx？"  # only zh given: used for en too
    assert a[2].render_payload(CTX) == {"unit": "nginx", "ids": [1, 2]}
    assert a[3].reply.render(CTX, "zh") == "done r7"
    assert a[4].remember == "last.restart" and a[4].memory_class == "project"
    assert a[4].render_payload(CTX) == {"unit": "nginx"}
    assert a[5].render_payload(CTX) == {"auth": "AUTHED", "who": "张工"}
    assert a[6].handoff == "needs a person" and a[6].message.render(CTX, "en") == "已转人工"


def test_models_are_frozen_and_strict():
    r = rule({"reply": {"en": "x"}})
    with pytest.raises(ValidationError):
        r.priority = 5  # type: ignore[misc]
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        rule({"reply": {"en": "x"}, "colour": "red"})
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        Text.model_validate({"fr": "bonjour"})


@pytest.mark.parametrize(("actions", "extra", "fragment"), [
    ([{"tool": "bad-name"}], {}, "String should match pattern"),
    ([{"ask": "x"}], {}, "prompt"),
    ([{"set_state": {}}], {}, "at least 1 item"),
    ([{"set_state": {"bad key": 1}}], {}, "String should match pattern"),
    ([{"remember": "k", "value": 1, "class": "forever"}], {}, "'session', 'project' or 'person'"),
    ([{"handoff": ""}], {}, "at least 1 character"),
    (["reply"], {}, "an action is a mapping"),
    ([{"tool": "a", "id": "x"}, {"tool": "b", "params": {"v": "{{steps.y.v}}"}}], {}, "step ids: x"),
    ([{"tool": "a", "params": {"v": "{{steps.a.v}}"}, "id": "a"}], {}, "no earlier tool step"),  # not its own result
    ([{"reply": {"en": "x"}}], {"conditions": "role =="}, "expected a value"),
    ([{"reply": {"en": "x"}}], {"trigger": {"intent": "i", "entities": ["a b"]}}, "String should match pattern"),
])
def test_rejected_at_validation(actions, extra, fragment):
    with pytest.raises(ValidationError) as info:
        rule(*actions, **extra)
    assert fragment in str(info.value)


def test_compensation_may_read_its_own_step_and_fallback_any_step():
    r = rule({"tool": "send", "id": "s", "on_failure": [{"tool": "unsend", "params": {"id": "{{steps.s.message_id}}"}}]},
             fallback=[{"reply": {"en": "failed after {{steps.s.message_id}}"}}])
    assert r.actions[0].on_failure[0].render_params({"steps": {"s": {"message_id": "m1"}}}) == {"id": "m1"}


def test_pack_checks():
    base = {"rule_id": "a", "trigger": {"intent": "i"}, "actions": [{"reply": {"en": "x"}}]}
    with pytest.raises(ValidationError, match="rule_id 'a' used twice"):
        RulePack.model_validate({"pack": "p", "rules": [base, base]})
    with pytest.raises(ValidationError, match="no steps run before it"):
        RulePack.model_validate({"pack": "p", "fallback": [{"reply": {"en": "{{steps.x.y}}"}}]})
    p = RulePack.model_validate({"pack": "p", "rules": [{**base, "conditions": "has(slots.x)"}]})
    assert p.rules[0].conditions == ["has(slots.x)"]
    assert p.rules[0].compiled_conditions[0]({"slots": {"x": 1}}) is True
