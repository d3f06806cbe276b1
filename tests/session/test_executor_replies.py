"""The executor renders in the turn's style and gives each tool step its tool's sentence (no daemon)."""

from __future__ import annotations

from hermesd.rules.model import RulePack
from hermesd.rules.phrases import Phrase
from hermesd.session.executor import Executor, Finished

PACK = {"pack": "t", "rules": [{"rule_id": "r", "trigger": {"intent": "i"}, "actions": [
    {"tool": "probe", "id": "p", "params": {"since": "{{session.now | date}}"}},
    {"reply": "{{steps.p.reply}}"},
    {"reply": {"zh": "到期：{{steps.p.due | datetime}}，部门：{{steps.p.dept | dept}}",
               "en": "Due {{steps.p.due | datetime}}, department {{steps.p.dept | dept}}"}},
]}]}
OUTPUT = {"online": False, "due": "2026-06-14T01:00:00Z", "dept": "rd"}
PHRASE = Phrase.parse({"zh": "网络{{online | yesno(正常, 不通)}}。", "en": "The network is {{online | yesno(up, down)}}."},
                      ["online", "due", "dept"])


def _actions(bind: bool):
    rule = RulePack.model_validate(PACK).rules[0]
    rule.actions[0].bind_reply(PHRASE if bind else None)
    return tuple(rule.actions)


async def _run(lang: str, bind: bool = True, session: dict | None = None):
    calls = []

    async def call(name, params):
        calls.append(params)
        return {"ok": True, "output": OUTPUT}

    ex = Executor(call, lambda name: (False, True), lang, departments={"rd": {"zh": "研发部", "en": "R&D"}})
    ctx = {"role": "user", "slots": {}, "entities": {}, "memory": {},
           "session": session if session is not None else {"tz": "Asia/Shanghai", "now": "2026-06-13T20:00:00+08:00"}}
    return await ex.run(_actions(bind), ctx), ctx, calls


async def test_tool_reply_and_filters_in_the_turns_language_zone_and_day():
    res, ctx, calls = await _run("zh")
    assert isinstance(res, Finished)
    assert res.texts == ["网络不通。", "到期：明天 09:00，部门：研发部"]
    assert ctx["steps"]["p"] == {**OUTPUT, "reply": "网络不通。"}
    assert res.tool_results[0][2] == OUTPUT  # memory captures the tool's own output, not the sentence
    assert calls == [{"since": "今天"}]
    res, _, _ = await _run("en")
    assert res.texts == ["The network is down.", "Due tomorrow 09:00, department R&D"]


async def test_without_a_zone_times_keep_their_offset_and_a_missing_reference_is_a_missing_value():
    res, _, calls = await _run("en", session={"now": "2026-06-13T20:00:00+08:00"})
    assert res.texts == ["The network is down.", "Due tomorrow 01:00, department R&D"] and calls == [{"since": "today"}]
    res, _, calls = await _run("en", session={})
    assert res.code == "INPUT_INVALID" and "session.now" in res.message and calls == []


async def test_an_unbound_tool_has_no_reply_and_reading_it_fails_the_step():
    res, ctx, _ = await _run("zh", bind=False)
    assert "reply" not in ctx["steps"]["p"]
    assert res.code == "INPUT_INVALID" and "steps.p.reply" in res.message
