"""The model's rounds, table-tested in-process with a scripted model and tool (hermesd.llm.rounds)."""

from __future__ import annotations

import asyncio

import orjson
import pytest

from hermesd.llm.calls import Offered
from hermesd.llm.rounds import ModelUnavailable, resume, run_rounds
from hermesd.llm.wire import ChatReply, ToolCall
from hermesd.tools.schema import Validator, expand

SCHEMA = expand({"n": {"type": "integer", "required": True}})
OFFERED = {"double": Offered("double", "Double n.", SCHEMA, Validator(SCHEMA), frozenset({"user"})),
           "send": Offered("send", "Send n.", SCHEMA, Validator(SCHEMA), frozenset({"user"}), confirm=True)}
KNOWN = {k: frozenset({"user"}) for k in OFFERED}
PROMPT = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]


def reply(text="", *calls):
    return ChatReply(text, tuple(ToolCall(f"c{i}", n, a, orjson.dumps(a).decode()) for i, (n, a) in enumerate(calls)),
                     10, 2)


class Model:
    def __init__(self, *answers):
        self.answers = list(answers)
        self.seen = []

    async def __call__(self, messages, tools):
        self.seen.append((list(messages), tools))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


ran = []


async def tool(name, args):
    ran.append((name, args))
    return {"ok": True, "output": {"n": args["n"] * 2}}


def go(model, max_rounds=2):
    ran.clear()
    return asyncio.run(run_rounds(model, tool, PROMPT, OFFERED, KNOWN, "user", max_rounds))


def test_a_plain_answer_is_one_round():
    r = go(Model(reply("hi")))
    assert (r.kind, r.text, r.rounds, r.tool_rounds, r.tokens_in) == ("reply", "hi", 1, 0, 10)


def test_a_call_runs_and_its_result_is_the_next_rounds_input():
    m = Model(reply("", ("double", {"n": 2})), reply("4"))
    r = go(m)
    assert (r.kind, r.text, r.rounds, r.tool_rounds) == ("reply", "4", 2, 1)
    assert ran == [("double", {"n": 2})] and r.tool_results == [("double", {"n": 2}, {"n": 4})]
    last = m.seen[1][0][-1]
    assert last == {"role": "tool", "content": '{"n":4}', "call_id": "c0", "name": "double"}


@pytest.mark.parametrize("calls, code", [((("double", {"n": "x"}),), "INPUT_INVALID"),
                                         ((("nope", {}),), "TOOL_NOT_FOUND")])
def test_a_refused_call_never_runs_and_the_model_reads_why(calls, code):
    m = Model(reply("", *calls), reply("sorry"))
    r = go(m)
    assert ran == [] and r.text == "sorry"
    assert orjson.loads(m.seen[1][0][-1]["content"])["error"]["code"] == code
    assert r.calls[0]["outcome"] == "refused" and r.calls[0]["code"] == code


def test_the_round_limit_offers_no_tools_last():
    call = reply("", ("double", {"n": 1}))
    m = Model(call, call, reply("done", ("double", {"n": 1})))
    r = go(m, max_rounds=2)
    assert [bool(tools) for _, tools in m.seen] == [True, True, False]
    assert (r.text, r.tool_rounds, len(ran)) == ("done", 2, 2)
    assert r.calls[-1]["outcome"] == "ignored"


def test_zero_tool_rounds_never_offers_tools():
    m = Model(reply("plain"))
    assert go(m, max_rounds=0).text == "plain" and m.seen[0][1] is None


def test_a_confirm_tool_stops_and_resume_runs_it_then_goes_on():
    m = Model(reply("", ("send", {"n": 3}), ("double", {"n": 1})))
    r = go(m)
    assert r.kind == "confirm" and ran == []
    assert [c["outcome"] for c in r.calls] == ["not_run", "confirm"]
    state = orjson.loads(orjson.dumps(r.state()))  # it is kept in the session row as JSON
    m2 = Model(reply("sent"))
    r2 = asyncio.run(resume(m2, tool, state, OFFERED, KNOWN, "user", 2))
    assert r2.text == "sent" and ran == [("send", {"n": 3})]
    answered = [x["call_id"] for x in m2.seen[0][0] if x["role"] == "tool"]
    assert sorted(answered) == ["c0", "c1"]  # every call of the round got its tool message


def test_the_model_failing_degrades_and_keeps_what_ran():
    r = go(Model(reply("", ("double", {"n": 5})), ModelUnavailable("timeout")))
    assert (r.kind, r.reason) == ("degraded", "timeout")
    assert r.tool_results == [("double", {"n": 5}, {"n": 10})]


def test_a_tool_error_is_told_to_the_model():
    async def failing(name, args):
        return {"ok": False, "error": {"code": "TOOL_TIMEOUT", "message": "too slow"}}

    m = Model(reply("", ("double", {"n": 1})), reply("it failed"))
    r = asyncio.run(run_rounds(m, failing, PROMPT, OFFERED, KNOWN, "user", 2))
    assert r.text == "it failed" and r.tool_results == []
    assert orjson.loads(m.seen[1][0][-1]["content"])["error"]["code"] == "TOOL_TIMEOUT"
