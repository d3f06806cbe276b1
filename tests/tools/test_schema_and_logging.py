"""Shorthand schemas, one redacted log line per call, metrics."""

from __future__ import annotations

import logging

from hermesd.tools.schema import Validator, expand, is_shorthand


def test_shorthand_expands_to_json_schema():
    schema = expand({"unit": {"type": "string", "required": True, "max_length": 10},
                     "type": {"type": "string", "enum": ["a", "b"]}})
    assert schema == {"type": "object", "additionalProperties": False, "required": ["unit"],
                      "properties": {"unit": {"type": "string", "maxLength": 10},
                                     "type": {"type": "string", "enum": ["a", "b"]}}}
    assert not is_shorthand({"type": "object", "properties": {}})


def test_nested_required_and_defaults():
    v = Validator(expand({"type": "object", "properties": {
        "filter": {"type": "object", "properties": {"since": {"type": "string", "required": True}}},
        "limit": {"type": "integer", "default": 20, "maximum": 100}}}))
    value, errors = v.validate({"filter": {"since": "today"}})
    assert errors == [] and value["limit"] == 20
    _, errors = v.validate({"filter": {}, "limit": 1000})
    # a nested `required` violation points at the object lacking the property (JSON Schema output format)
    assert sorted((e["pointer"], e["rule"]) for e in errors) == [("/filter", "required"), ("/limit", "maximum")]


def test_pointer_escaping():
    v = Validator(expand({"a/b": {"type": "integer"}, "c~d": {"type": "integer"}}))
    _, errors = v.validate({"a/b": "x", "c~d": "y"})
    assert sorted(e["pointer"] for e in errors) == ["/a~1b", "/c~0d"]


async def test_one_redacted_line_per_call(fixture_service, caplog):
    caplog.set_level(logging.INFO, logger="hermesd")
    res = await fixture_service.call("secretive", {"mode": "run", "password": "hunter2", "pin": "4711"},
                                     role="user", session_id="s1", trace_id="t1")
    assert res["output"] == {"pin_length": 4, "password_length": 7}
    lines = [r for r in caplog.records if r.getMessage() == "tool call"]
    assert len(lines) == 1
    kv = lines[0].kv
    assert kv["tool"] == "secretive" and kv["outcome"] == "ok" and kv["session"] == "s1" and kv["trace"] == "t1"
    assert isinstance(kv["pid"], int) and kv["duration_ms"] > 0
    assert "hunter2" not in kv["args"] and "4711" not in kv["args"]  # secret-looking key, declared secret


async def test_metrics_export_breaker_and_outcomes(fixture_service):
    await fixture_service.call("echo", {"mode": "run"}, role="user")
    text = fixture_service.metrics_text()
    assert 'hermes_tool_invocations_total{tool="echo",outcome="ok"} 1' in text
    assert 'hermes_tool_breaker_state{tool="flaky"} 0' in text
    assert 'hermes_tool_workers{class="isolated"} 2' in text


def test_logged_and_recorded_arguments_are_redacted_on_both_paths():
    """A tool's arguments in its log line and in the turn's actions: when nothing in them can be a
    secret (one orjson pass finds none of the words) they are the same values, as JSON; when a
    string holds a secret fragment or a key looks secret, the walk redacts it as before."""
    import json

    from hermesd.session.executor import StepLog
    from hermesd.subsystems.tools import ToolsService

    clean = {"utterance": "帮我找一家评分4.5分以上的酒店", "state": {"cons": {"酒店": {"评分": "4.5分以上"}},
                                                               "query_log": [{"seq": 1, "turn": 0}]}, "turn": 3}
    assert json.loads(ToolsService._loggable(None, clean)) == clean
    assert StepLog(kind="tool", index=0, tool="t", params=clean).to_dict()["params"] == clean
    dirty = {"utterance": "use token=abc123secret please", "state": {"api_key": "k-999", "n": [1, "password: hunter2"]}}
    for text in (ToolsService._loggable(None, dirty),
                 json.dumps(StepLog(kind="tool", index=0, tool="t", params=dirty).to_dict()["params"])):
        assert "abc123secret" not in text and "k-999" not in text and "hunter2" not in text
        assert "use token=" in text
