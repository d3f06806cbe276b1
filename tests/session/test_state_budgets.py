"""The per-state time limits of the design during a turn: PARSING over its budget → keyword match,
ROUTING over its budget → the fallback path (DESIGN.md, "Session state machine"; issue 12, §4).

The slow router is injected through the supported extension point, a ``session.policy_module``
whose ``can_transition`` hook takes 300 ms when the parse is handed to ROUTING."""

from __future__ import annotations

import os

AT = "2024-06-12T10:00:00+08:00"

SLOW_POLICY = '''
import time

def can_transition(state, event, session):
    if event == "parsed" and session.get("vars", {}).get("slow", True):
        time.sleep(0.3)
    return True, ""
'''


def _turn(c, sid, text):
    return c.call("session.turn", {"session_id": sid, "text": text, "reference_time": AT})


def _slow_router(start_daemon, tmp_path, routing_ms: int):
    """A daemon whose ROUTING takes 300 ms (the policy hook), with ``routing_ms`` as its budget."""
    (tmp_path / "slow_router_policy.py").write_text(SLOW_POLICY, encoding="utf-8")
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    return start_daemon({"session": {"policy_module": "slow_router_policy", "routing_ms": routing_ms}}, env=env)


def test_routing_over_its_budget_takes_the_fallback_path(start_daemon, tmp_path):
    d = _slow_router(start_daemon, tmp_path, 100)
    with d.client() as c:
        sid = c.call("session.open", {"locale": "en"})["session_id"]
        r = _turn(c, sid, "how much disk space is left")
        assert r["path"] == "fallback" and not [a for a in r["actions"] if a.get("tool")]
        assert r["state"] == "LISTENING" and "too busy" in r["reply"]["text"] and "nothing was done" in r["reply"]["text"]
        trace = c.call("session.trace", {"session_id": sid})["traces"][-1]
        assert "routing_budget" in trace["degraded"].split(",")
    assert "routing over budget" in d.log()


def test_the_same_turn_within_budget_runs_its_rule(start_daemon, tmp_path):
    d = _slow_router(start_daemon, tmp_path, 2000)
    with d.client() as c:
        sid = c.call("session.open", {"locale": "en"})["session_id"]
        r = _turn(c, sid, "how much disk space is left")
        assert r["path"] == "rule" and [a["tool"] for a in r["actions"] if a.get("tool")] == ["disk_usage"]


def test_parsing_over_its_budget_uses_the_keyword_match(start_daemon):
    d = start_daemon({"session": {"parsing_ms": 1}})
    long_text = "please check " + "the device and " * 125 + "how much disk space is left"
    with d.client() as c:
        sid = c.call("session.open", {"locale": "en"})["session_id"]
        r = _turn(c, sid, long_text)
        trace = c.call("session.trace", {"session_id": sid})["traces"][-1]
        assert "parse_budget" in trace["degraded"].split(","), trace
        assert r["state"] == "LISTENING"


def test_the_same_long_utterance_within_budget_is_not_degraded(start_daemon):
    d = start_daemon({})
    long_text = "please check " + "the device and " * 125 + "how much disk space is left"
    with d.client() as c:
        sid = c.call("session.open", {"locale": "en"})["session_id"]
        _turn(c, sid, long_text)
        trace = c.call("session.trace", {"session_id": sid})["traces"][-1]
        assert "parse_budget" not in trace.get("degraded", "").split(","), trace
