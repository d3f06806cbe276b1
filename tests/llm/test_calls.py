"""The gate of proposed tool calls, table-tested in-process (hermesd.llm.calls)."""

from __future__ import annotations

import orjson
import pytest

from hermesd.llm.calls import Accepted, Offered, Refused, check_call, refusal_content, tools_for_model
from hermesd.llm.wire import ToolCall
from hermesd.tools.schema import Validator, expand

SCHEMA = expand({"order_id": {"type": "string", "required": True, "pattern": "^[A-Z]{2}[0-9]{4}$"},
                 "limit": {"type": "integer", "default": 5}})
ORDER = Offered("lookup_order", "Look an order up.", SCHEMA, Validator(SCHEMA), frozenset({"admin", "user"}))
SEND = Offered("send", "Send.", {"type": "object"}, Validator({"type": "object"}), frozenset({"user"}), confirm=True)
BROKEN = Offered("broken", "Fails.", {"type": "object"}, Validator({"type": "object"}), frozenset({"user"}),
                 breaker_open=True)
OFFERED = {o.name: o for o in (ORDER, SEND, BROKEN)}
KNOWN = {"lookup_order": frozenset({"admin", "user"}), "send": frozenset({"user"}), "broken": frozenset({"user"}),
         "wipe": frozenset({"admin"})}


def call(name, arguments):
    return ToolCall("c1", name, arguments, orjson.dumps(arguments).decode())


@pytest.mark.parametrize("proposed, role, expect", [
    (call("lookup_order", {"order_id": "SO1234"}), "user", ("ok", {"order_id": "SO1234", "limit": 5}, False)),
    (call("send", {}), "user", ("ok", {}, True)),
    (call("nope", {}), "user", "TOOL_NOT_FOUND"),
    (call("wipe", {}), "user", "PERMISSION_DENIED"),        # exists, not on this caller's allow-list
    (call("send", {}), "admin", "PERMISSION_DENIED"),       # offered by mistake: the role still decides
    (call("broken", {}), "user", "TOOL_UNAVAILABLE"),
    (call("lookup_order", {"order_id": "12"}), "user", "INPUT_INVALID"),
    (call("lookup_order", {}), "user", "INPUT_INVALID"),
    (call("lookup_order", {"order_id": "SO1234", "x": 1}), "user", "INPUT_INVALID"),
    (ToolCall("c1", "lookup_order", None, '{"order_id": '), "user", "INPUT_INVALID"),
])
def test_check_call(proposed, role, expect):
    verdict = check_call(proposed, OFFERED, KNOWN, role)
    if isinstance(expect, tuple):
        assert isinstance(verdict, Accepted)
        assert ("ok", verdict.arguments, verdict.confirm) == expect
    else:
        assert isinstance(verdict, Refused) and verdict.code == expect
        told = orjson.loads(refusal_content(verdict))["error"]
        assert told["code"] == expect and told["message"].endswith(".")


def test_a_schema_refusal_names_each_violation():
    verdict = check_call(call("lookup_order", {"order_id": 5, "x": 1}), OFFERED, KNOWN, "user")
    assert isinstance(verdict, Refused)
    assert "/order_id" in verdict.reason and "/x" in verdict.reason


def test_tools_are_offered_in_name_order():
    names = [t["function"]["name"] for t in tools_for_model({"b": SEND, "a": ORDER})]
    assert names == ["lookup_order", "send"]
