"""Checks, coverage and the report, on hand-written replies and traces (pure, no daemon)."""

from __future__ import annotations

from hermesd.session.machine import TABLE
from hermesd.stories import load_text
from hermesd.stories.checks import check, plain_problems
from hermesd.stories.coverage import Universe, compute, default_universe, facts
from hermesd.stories.report import coverage_lines, summary_line, text_report
from hermesd.stories.runner import RunResult, StoryResult, TurnResult


def _reply(text="", *, intent="doc.send", state="LISTENING", tools=(), card=None, **extra):
    body = {"text": text}
    if card is not None:
        body["card"] = card
    return {"reply": body, "intent": intent, "state": state, "rule_id": extra.pop("rule_id", None),
            "path": "rule", "trace_id": "t1", "actions": [{"kind": "tool", "index": i, "tool": t, "outcome": "ok"}
                                                          for i, t in enumerate(tools)], **extra}


def _expect(yaml_turn: str):
    (story,) = load_text(f"- name: x\n  turns:\n    - {yaml_turn}\n", "x.yaml")
    return story.turns[0].expect


# --------------------------------------------------------------------------- checks


def test_tools_in_order_as_a_set_and_never():
    r = _reply(tools=["find_document", "send_document"])
    assert check(_expect("{user: a, tools: [find_document, send_document]}"), r, None) == []
    assert check(_expect("{user: a, tools: [send_document, find_document]}"), r, None) == [
        "tools: expected ['send_document', 'find_document'], got ['find_document', 'send_document']"]
    assert check(_expect("{user: a, tools: {set: [send_document, find_document]}}"), r, None) == []
    assert check(_expect("{user: a, not_tools: [send_document]}"), r, None) == [
        "not_tools: ['send_document'] must not run, got ['find_document', 'send_document']"]
    replayed = {**r, "replayed": True}  # a stored reply: nothing ran again
    assert check(_expect("{user: a, tools: [], replayed: true}"), replayed, None) == []


def test_reply_texts_are_case_insensitive_and_any_of():
    r = _reply("OK, Cancelled.")
    assert check(_expect("{user: a, reply_contains: cancelled, reply_not_contains: [sent]}"), r, None) == []
    assert check(_expect("{user: a, reply_contains_any: [取消, nothing]}"), r, None) == [
        "reply_contains_any: expected one of ['取消', 'nothing'] in the reply, got 'OK, Cancelled.'"]
    assert check(_expect("{user: a, reply_not_contains: [ok]}"), r, None) == [
        "reply_not_contains: 'ok' must not be in the reply, got 'OK, Cancelled.'"]


def test_plain_replies():
    assert plain_problems("磁盘已用 21.6%，剩余 79.6 GB。已运行 3 小时 12 分。") == []
    assert plain_problems("网络在线：true") == ["a raw boolean/null 'true'"]
    # the user's own word repeated is theirs; a boolean they did not say still counts
    assert plain_problems("OK, I will remind you today at 21:00 to set debug to true.", "remind me at 9pm to set debug to true") == []
    assert plain_problems("Set debug to true: false", "set debug to true") == ["a raw boolean/null 'false'"]
    assert plain_problems("你的提醒：[{\"id\": \"r1\"}]") == ["JSON brackets '['"]
    assert plain_problems("这一步没有成功（INPUT_INVALID）。") == ["a code 'INPUT_INVALID'"]
    assert plain_problems("CPU 0.0%, up 1523.2 s.") == ["raw seconds '1523.2 s'"]
    assert plain_problems("due 2030-06-21T06:00:00+08:00") == ["a raw ISO timestamp '2030-06-21T06:00'"]
    assert check(_expect("{user: a, reply_plain: true}"), _reply("网络在线：true"), None) == [
        "reply_plain: the reply shows a raw boolean/null 'true': '网络在线：true'"]


def test_state_intent_card_and_fields():
    card = {"question": "把报价单Q-2024-061.pdf发给李娜吗？", "fields": {"recipient": "李娜"}}
    r = _reply("q", state="CONFIRMING", card=card)
    assert check(_expect("{user: a, state: CONFIRMING, intent: [doc.send, doc.resend], card: true, "
                         "card_fields: {recipient: 李娜}}"), r, None) == []
    assert check(_expect("{user: a, state: LISTENING, card_fields: {recipient: 王芳}}"), r, None) == [
        "state: expected LISTENING, got CONFIRMING", "card_fields: expected recipient = '王芳', got '李娜'"]
    choice = {"question": "哪一位？", "choices": [{"display": "张强"}, {"display": "张伟"}]}
    r = _reply("q", state="CONFIRMING", card=choice)
    assert check(_expect("{user: a, card_choices: [张强, 张伟]}"), r, None) == []
    assert check(_expect("{user: a, card_choices: 3}"), r, None) == ["card_choices: expected 3 choices, got 2"]
    assert check(_expect("{user: a, card_fields: {recipient: 张伟}}"), r, None) == [
        "card_fields: expected recipient = '张伟', got a card without fields ('哪一位？')"]
    assert check(_expect("{user: a, intent: null}"), _reply(intent=None), None) == []


def test_act_decision_and_repairs_fail_clearly_when_not_reported():
    e = _expect("{user: a, act: affirm, decision: resume, repairs: [digression]}")
    assert check(e, _reply(), {"trace_id": "t1"}) == [
        "act: expected affirm, got nothing: the daemon does not report the answer reading (trace reading.act)",
        "decision: expected resume, got nothing: the daemon does not report the decision (reply/trace decision)",
        "repairs: expected ['digression'], got nothing: the daemon does not report repairs (trace repairs)"]
    trace = {"trace_id": "t1", "reading": {"act": "affirm"}, "decision": "resume", "repairs": ["digress"]}
    assert check(e, _reply(), trace) == []  # "digress" is the digression class
    assert check(_expect("{user: a, decision: cancel}"), _reply(decision="resume"), None) == [
        "decision: expected cancel, got resume"]


def test_errors_and_offers():
    assert check(_expect("{user: a}"), None, None, error=("INPUT_INVALID", "nothing to confirm")) == [
        "the call failed: INPUT_INVALID: nothing to confirm"]
    assert check(_expect("{user: a, error: INPUT_INVALID}"), None, None, error=("INPUT_INVALID", "x")) == []
    assert check(_expect("{user: a, error: INPUT_INVALID}"), _reply("fine"), None) == [
        "error: expected INPUT_INVALID, got a reply ('fine')"]
    assert check(_expect("{user: a, offer: true}"), _reply(), None, offer=False) == [
        "offer: expected an offer of unfinished work when the session opened, got none"]


# --------------------------------------------------------------------------- coverage


def test_facts_read_today_and_tomorrow_fields():
    old = facts(_reply(tools=["disk_usage"], rule_id="device.disk_space", intent="device.disk_space"),
                {"state_before": "LISTENING", "state_after": "LISTENING", "plan": {"rule_id": "device.disk_space"}})
    assert (old.intent, old.rule, old.tools, old.act, old.decision, old.repairs, old.transitions) == (
        "device.disk_space", "device.disk_space", ("disk_usage",), None, None, None, None)
    new = facts(_reply(decision="digress"), {
        "reading": {"act": "request"}, "repairs": ["digression"],
        "transitions": [["CONFIRMING", "text", "PARSING"], ["PARSING", "parsed", "ROUTING"]]})
    assert (new.act, new.decision, new.repairs) == ("request", "digress", ("digression",))
    assert new.transitions == (("CONFIRMING", "text", "PARSING"), ("PARSING", "parsed", "ROUTING"))
    assert {"CONFIRMING", "PARSING", "ROUTING"} <= set(new.states)


def test_the_universe_comes_from_the_code():
    u = default_universe(intents=("a",), sources={"intents": "test"})
    assert len(u.transitions) == len(TABLE) and len(u.states) == 7
    assert "affirm" in u.acts and {"resume", "digress", "nothing_open", "expired", "split"} <= set(u.decisions)
    assert u.intents == ("a",) and u.rules is None


def test_compute_lists_what_was_never_hit_and_what_is_not_reported():
    u = Universe(intents=("doc.send", "device.reboot"), rules=None, tools=("disk_usage", "send_document"),
                 states=("IDLE", "LISTENING"), transitions=(("IDLE", "open", "LISTENING"),
                                                            ("LISTENING", "text", "PARSING")))
    turns = [facts(_reply(tools=["disk_usage"], rule_id="r1"), None),
             facts(_reply(intent="doc.send"), {"decision": "nothing_open"})]
    by = {s.name: s for s in compute(turns, u)}
    assert by["intents"].hit == ("doc.send",) and by["intents"].never == ("device.reboot",)
    assert by["rules"].known is None and by["rules"].hit == ("r1",)
    assert by["tools"].never == ("send_document",)
    assert not by["acts"].reported and by["decisions"].reported and by["decisions"].hit == ("nothing_open",)
    assert by["repairs"].reported and by["repairs"].hit == ("nothing_open",)  # derived from the decision
    assert not by["transitions"].reported
    assert by["states"].hit == ("LISTENING",) and by["states"].never == ("IDLE",)
    text = "\n".join(coverage_lines(list(by.values())))
    assert "  intents     1/2" in text and "never: device.reboot" in text
    assert "rules       1 hit; loaded rules unknown" in text
    assert "acts        not reported by this daemon (trace reading.act)" in text
    assert "transitions not reported by this daemon (trace transitions); 2 known" in text


def test_transitions_never_taken_are_listed_one_per_line():
    u = Universe(states=("IDLE", "LISTENING", "PARSING"),
                 transitions=(("IDLE", "open", "LISTENING"), ("LISTENING", "text", "PARSING")))
    turns = [facts(_reply(), {"transitions": [["LISTENING", "text", "PARSING"], ["X", "odd", "Y"]]})]
    lines = coverage_lines(compute(turns, u))
    assert "      never: IDLE --open--> LISTENING" in lines
    assert "      not in the table: X --odd--> Y" in lines


def test_the_summary_line_and_the_report():
    (ok, bad) = load_text("- name: ok\n  turns: [{user: hi}]\n- name: bad\n  turns: [{user: yes, tools: []}]\n",
                          "s.yaml")
    failing = TurnResult(1, bad.turns[0], reply=_reply(tools=["network_check"]),
                         mismatches=["tools: expected [], got ['network_check']"])
    run = RunResult([StoryResult(ok, "pass", [TurnResult(1, ok.turns[0], reply=_reply())]),
                     StoryResult(bad, "fail", [failing])], default_universe())
    assert summary_line(run) == "1 passed, 1 failed"
    lines = text_report(run).splitlines()
    assert lines[0] == "PASS  s.yaml:1  ok"
    assert lines[1] == "FAIL  s.yaml:3  bad — turn 1 «yes» (line 4): tools: expected [], got ['network_check']"
    assert lines[2] == "1 passed, 1 failed"
    assert "coverage" in lines
