"""A tool step's ``stop`` texts: a check that finds the request cannot be done ends the plan there with a plain
sentence, before any card or PIN is asked for (executor and the shipped device rules; no daemon). The service
restart rules look the unit up first: a unit the device does not have is said, and nothing is confirmed."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermesd.rules.loader import load_rules
from hermesd.rules.model import RulePack
from hermesd.session.executor import Executor, Failure, Finished, Suspend

REPO = Path(__file__).resolve().parents[2]
ENGINE = load_rules(REPO / "config" / "rules").engine


def _ctx(role="admin", auth="AUTHED", **entities):
    return {"role": role, "slots": {}, "entities": entities, "memory": {},
            "session": {"auth": auth, "tz": "Asia/Shanghai", "now": "2030-06-19T10:00:00+08:00"}}


def _unit(load_state: str, active_state: str = "active"):
    """A stand-in for the tools port: ``service_status`` answers with ``load_state`` (what systemctl show
    says of a unit), every other tool is recorded; ``service_restart`` is confirm: true as in its tool.yaml."""
    called: list[str] = []

    async def call(name, params):
        called.append(name)
        if name == "service_status":
            return {"ok": True, "output": {"unit": params["unit"], "load_state": load_state,
                                           "active_state": active_state, "sub_state": ""}}
        return {"ok": True, "output": {"unit": params.get("unit", ""), "active_state": active_state}}

    return call, called


async def _plan(intent, lang, call, **ctx_kw):
    plan = ENGINE.match(intent, _ctx(**ctx_kw))
    ex = Executor(call, lambda name: (name == "service_restart", name == "service_status"), lang)
    return plan, await ex.run(tuple(plan.actions), _ctx(**ctx_kw))


@pytest.mark.parametrize("lang,said", [("zh", "没有名为 web 的服务"), ("en", "There is no service called web")])
@pytest.mark.parametrize("auth", ["AUTHED", "NONE"])
async def test_a_unit_the_device_lacks_is_said_before_any_card_or_pin(lang, said, auth):
    call, called = _unit("not-found")
    plan, res = await _plan("device.service_restart", lang, call, auth=auth, service="web")
    assert plan.rule_id in ("device.service_restart.admin", "device.service_restart.pre_auth")
    assert isinstance(res, Finished) and len(res.texts) == 1 and said in res.texts[0], res
    assert called == ["service_status"] and not res.state_vars  # no restart, no PIN gate set
    assert res.log[-1].kind == "stop"


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_a_known_unit_is_asked_about_then_restarted(lang):
    call, called = _unit("loaded")
    plan, res = await _plan("device.service_restart", lang, call, service="nginx")
    assert isinstance(res, Suspend) and res.kind == "confirm" and called == ["service_status"]
    assert "nginx" in res.prompt
    ex = Executor(call, lambda name: (name == "service_restart", name == "service_status"), lang)
    done = await ex.run(tuple(plan.actions), _ctx(service="nginx"), start=res.index, confirmed=res.index)
    assert isinstance(done, Finished) and called == ["service_status", "service_restart", "service_status"]


async def test_a_pin_is_asked_only_for_a_unit_that_exists():
    call, called = _unit("loaded")
    _, res = await _plan("device.service_restart", "zh", call, auth="NONE", service="nginx")
    assert isinstance(res, Suspend) and res.kind == "ask" and res.slot == "pin"
    assert res.state_vars.get("auth") == "PRE_AUTH"


async def test_no_systemd_is_the_check_failing_before_anything_is_asked():
    async def call(name, params):
        return {"ok": False, "error": {"code": "SYSTEMD_UNAVAILABLE", "message": "systemctl is not installed"}}

    _, res = await _plan("device.service_restart", "en", call, service="nginx")
    assert isinstance(res, Failure) and res.code == "SYSTEMD_UNAVAILABLE" and res.index == 0


PACK = {"pack": "t", "rules": [{"rule_id": "r", "trigger": {"intent": "x"}, "actions": [
    {"tool": "look", "id": "look", "stop": [
        {"when": "steps.look.n == 0", "zh": "没有", "en": "none"},
        {"when": "steps.look.n > 9", "zh": "太多：{{steps.look.n}}", "en": "too many: {{steps.look.n}}"}]},
    {"reply": {"zh": "有{{steps.look.n}}", "en": "{{steps.look.n}} found"}},
]}]}


@pytest.mark.parametrize("n,lang,texts,last", [
    (0, "en", ["none"], "stop"), (12, "zh", ["太多：12"], "stop"), (3, "en", ["3 found"], "reply"),
])
async def test_the_first_stop_that_holds_ends_the_plan(n, lang, texts, last):
    async def call(name, params):
        return {"ok": True, "output": {"n": n}}

    actions = tuple(RulePack.model_validate(PACK).rules[0].actions)
    res = await Executor(call, lambda name: (False, True), lang).run(actions, _ctx())
    assert isinstance(res, Finished) and res.texts == texts and res.log[-1].kind == last


@pytest.mark.parametrize("stop,why", [
    ([{"zh": "没有", "en": "none"}], "needs a 'when'"),
    ([[{"when": "steps.look.n == 0", "en": "a"}, {"en": "b"}]], "needs a 'when'"),
    ([{"when": "steps.other.n == 0", "en": "a"}], "no earlier tool step"),
])
def test_a_stop_is_checked_when_the_pack_loads(stop, why):
    bad = {"pack": "t", "rules": [{"rule_id": "r", "trigger": {"intent": "x"}, "actions": [
        {"tool": "look", "id": "look", "stop": stop}, {"reply": "ok"}]}]}
    with pytest.raises(Exception, match=why):
        RulePack.model_validate(bad)
