"""The two chat APIs on the wire, table-tested in-process (hermesd.llm.wire)."""

from __future__ import annotations

import orjson
import pytest

from hermesd.llm.wire import ToolCall, WireError, parse_reply, request, tool_function

CALL = {"id": "call_7", "name": "lookup_order", "arguments": {"order_id": "SO1235"}, "raw": '{"order_id":"SO1235"}'}
CONVERSATION = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": "where is SO1235"},
    {"role": "assistant", "content": "", "calls": [CALL]},
    {"role": "tool", "content": '{"status":"shipped"}', "call_id": "call_7", "name": "lookup_order"},
]
TOOLS = [tool_function("lookup_order", "Look an order up.", {"type": "object", "properties": {}})]


def test_openai_request_body():
    path, body = request("openai", model="m", messages=CONVERSATION, tools=TOOLS, max_tokens=64)
    b = orjson.loads(body)
    assert path == "/v1/chat/completions"
    assert b["model"] == "m" and b["max_tokens"] == 64 and b["stream"] is False and b["tools"] == TOOLS
    assert b["messages"][2] == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_7", "type": "function", "function": {"name": "lookup_order", "arguments": '{"order_id":"SO1235"}'}}]}
    assert b["messages"][3] == {"role": "tool", "tool_call_id": "call_7", "content": '{"status":"shipped"}'}


def test_ollama_request_body():
    path, body = request("ollama", model="m", messages=CONVERSATION, tools=None, max_tokens=64, temperature=0.2)
    b = orjson.loads(body)
    assert path == "/api/chat" and "tools" not in b
    assert b["options"] == {"num_predict": 64, "temperature": 0.2} and b["stream"] is False
    assert b["messages"][2] == {"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": "lookup_order", "arguments": {"order_id": "SO1235"}}}]}
    assert b["messages"][3] == {"role": "tool", "content": '{"status":"shipped"}', "tool_name": "lookup_order"}


def test_the_same_messages_give_the_same_bytes():
    a = request("openai", model="m", messages=CONVERSATION, tools=TOOLS, max_tokens=8)
    assert a == request("openai", model="m", messages=CONVERSATION, tools=TOOLS, max_tokens=8)


OPENAI_TOOL = {"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
    "role": "assistant", "content": None, "tool_calls": [
        {"id": "call_a", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}},
        {"id": "call_b", "type": "function", "function": {"name": "g", "arguments": '{"x": '}},
        {"id": "call_c", "type": "function", "function": {"name": "h", "arguments": '[1]'}},
        {"id": "call_d", "type": "function", "function": {"name": "k", "arguments": ''}}]}}],
    "usage": {"prompt_tokens": 30, "completion_tokens": 9, "total_tokens": 39}}
OLLAMA_TOOL = {"model": "m", "message": {"role": "assistant", "content": "", "tool_calls": [
    {"function": {"name": "f", "arguments": {"x": 1}}}, {"function": {"name": "g"}}]},
    "done": True, "done_reason": "stop", "prompt_eval_count": 21, "eval_count": 5}


@pytest.mark.parametrize("api, answer, text, calls, counts", [
    ("openai", {"choices": [{"message": {"role": "assistant", "content": " Hi. "}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 3, "completion_tokens": 2}}, "Hi.", [], (3, 2)),
    ("openai", OPENAI_TOOL, "", [("call_a", "f", {"x": 1}), ("call_b", "g", None), ("call_c", "h", None),
                                 ("call_d", "k", {})], (30, 9)),
    ("ollama", {"message": {"role": "assistant", "content": "Hi."}, "done": True}, "Hi.", [], (0, 0)),
    ("ollama", OLLAMA_TOOL, "", [("call_0", "f", {"x": 1}), ("call_1", "g", {})], (21, 5)),
])
def test_replies_are_read(api, answer, text, calls, counts):
    r = parse_reply(api, orjson.dumps(answer))
    assert r.text == text
    assert [(c.id, c.name, c.arguments) for c in r.calls] == calls
    assert (r.tokens_in, r.tokens_out) == counts


@pytest.mark.parametrize("api, body, says", [
    ("openai", b"<html>", "not JSON"),
    ("openai", b"[1]", "not a JSON object"),
    ("openai", b'{"choices": []}', "no choices"),
    ("openai", b'{"error": {"message": "model not found"}}', "model not found"),
    ("ollama", b'{"error": "model \\"x\\" not found"}', "not found"),
    ("ollama", b'{"message": {"content": 5}}', "content"),
    ("ollama", b'{"message": {"content": "", "tool_calls": {"a": 1}}}', "tool_calls"),
    ("ollama", b'{"message": {"content": "", "tool_calls": [{"function": {}}]}}', "function name"),
])
def test_unreadable_replies_raise_wire_error(api, body, says):
    with pytest.raises(WireError, match=says):
        parse_reply(api, body)


def test_a_tool_call_round_trips_through_a_dict():
    c = ToolCall("i", "n", {"a": 1}, '{"a":1}')
    assert ToolCall.from_dict(c.to_dict()) == c
