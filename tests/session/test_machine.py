"""State machine: the whole (state, event) product against the table, versions, timeouts, failures."""

from __future__ import annotations

import dataclasses
import itertools
import logging

import pytest

from hermesd.session.machine import (
    TABLE,
    Event,
    Limits,
    Machine,
    Refusal,
    State,
    Transition,
    new_machine,
    recovery,
    restore,
    transition,
)
from hermesd.session.settings import SessionSettings

S, E = State, Event
LIMITS = Limits.from_settings(SessionSettings())

# every legal edge, spelled out once more by hand so a change to TABLE has to be made twice
EXPECTED = {
    (S.IDLE, E.OPEN): S.LISTENING, (S.IDLE, E.TEXT): S.PARSING,
    (S.LISTENING, E.TEXT): S.PARSING, (S.LISTENING, E.TIMEOUT): S.IDLE,
    (S.PARSING, E.PARSED): S.ROUTING, (S.PARSING, E.TIMEOUT): S.ROUTING, (S.PARSING, E.FAIL): S.ERROR_HANDLING,
    (S.ROUTING, E.ROUTED): S.EXECUTING, (S.ROUTING, E.TIMEOUT): S.EXECUTING, (S.ROUTING, E.FAIL): S.ERROR_HANDLING,
    (S.EXECUTING, E.DONE): S.LISTENING, (S.EXECUTING, E.ASK): S.LISTENING, (S.EXECUTING, E.CONFIRM): S.CONFIRMING,
    (S.EXECUTING, E.HANDOFF): S.IDLE, (S.EXECUTING, E.FAIL): S.ERROR_HANDLING,
    (S.EXECUTING, E.TIMEOUT): S.ERROR_HANDLING, (S.EXECUTING, E.INTERRUPT): S.ERROR_HANDLING,
    (S.CONFIRMING, E.ACCEPT): S.EXECUTING, (S.CONFIRMING, E.REJECT): S.LISTENING,
    (S.CONFIRMING, E.CANCEL): S.LISTENING, (S.CONFIRMING, E.TEXT): S.PARSING, (S.CONFIRMING, E.TIMEOUT): S.IDLE,
    (S.ERROR_HANDLING, E.RETRY): S.EXECUTING, (S.ERROR_HANDLING, E.DEGRADE): S.LISTENING,
    (S.ERROR_HANDLING, E.CANCEL): S.LISTENING, (S.ERROR_HANDLING, E.TEXT): S.PARSING,
    (S.ERROR_HANDLING, E.HANDOFF): S.IDLE,
}


def at(state: State, *, version: int = 7, deadline: float | None = 5.0, failures: int = 0) -> Machine:
    return Machine("s1", state, version=version, failures=failures, entered_at=0.0, deadline=deadline)


def test_table_is_the_documented_one():
    assert dict(TABLE) == EXPECTED


@pytest.mark.parametrize(("state", "event"), list(itertools.product(State, Event)))
def test_every_pair(state: State, event: Event):
    result = transition(at(state), event, now=10.0, limits=LIMITS)
    if (state, event) in EXPECTED:
        assert isinstance(result, Transition), result
        assert result.machine.state is EXPECTED[(state, event)]
        assert result.machine.version == 8
        assert result.source is state and result.event is event
        assert result.machine.entered_at == 10.0
        timeout = LIMITS.timeouts_s[result.machine.state]
        assert result.machine.deadline == (None if timeout is None else 10.0 + timeout)
    else:
        assert isinstance(result, Refusal)
        assert result.machine == at(state)  # unchanged, version too
        assert state.value in result.reason and event.value in result.reason


def test_refusal_is_logged_with_reason(caplog):
    with caplog.at_level(logging.INFO, logger="hermesd"):
        r = transition(at(S.EXECUTING), E.TEXT, now=1.0, limits=LIMITS)
    assert not r.ok
    rec = [x for x in caplog.records if x.getMessage() == "transition refused"]
    assert len(rec) == 1 and rec[0].kv["reason"] == r.reason and rec[0].kv["session"] == "s1"


def test_unknown_event_is_refused_not_raised():
    r = transition(at(S.LISTENING), "explode", now=1.0, limits=LIMITS)
    assert isinstance(r, Refusal) and "unknown event" in r.reason


def test_stale_version_refused():
    m = at(S.LISTENING, version=3)
    assert isinstance(transition(m, E.TEXT, now=1.0, limits=LIMITS, expected_version=2), Refusal)
    ok = transition(m, E.TEXT, now=1.0, limits=LIMITS, expected_version=3)
    assert ok.ok and ok.machine.version == 4


@pytest.mark.parametrize(("state", "target", "action", "timeout_s"), [
    (S.LISTENING, S.IDLE, "idle", 180.0),
    (S.PARSING, S.ROUTING, "keyword_only", 0.5),
    (S.ROUTING, S.EXECUTING, "fallback", 0.2),
    (S.CONFIRMING, S.IDLE, "cancelled", 60.0),
    (S.EXECUTING, S.ERROR_HANDLING, "plan_timeout", 30.0),
])
def test_timeouts_from_config(state, target, action, timeout_s):
    assert LIMITS.timeouts_s[state] == timeout_s
    m = at(state, deadline=100.0 + timeout_s)
    early = transition(m, E.TIMEOUT, now=100.0 + timeout_s - 0.001, limits=LIMITS)
    assert isinstance(early, Refusal) and "no timeout due" in early.reason
    fired = transition(m, E.TIMEOUT, now=100.0 + timeout_s, limits=LIMITS)
    assert fired.ok and fired.machine.state is target and fired.timeout_action == action


def test_custom_timeouts():
    limits = Limits.from_settings(SessionSettings(listening_s=5, parsing_ms=120, routing_ms=80, confirming_s=9))
    m = new_machine("x", 0.0, limits)
    assert m.state is S.LISTENING and m.version == 1 and m.deadline == 5.0
    p = transition(m, E.TEXT, now=1.0, limits=limits).machine
    assert p.deadline == pytest.approx(1.12)
    assert transition(p, E.PARSED, now=1.1, limits=limits).machine.deadline == pytest.approx(1.18)


def test_timeout_after_turn_moved_on_is_refused():
    """The timer read version v; a turn moved the session; the late timeout must not fire."""
    m = new_machine("x", 0.0, LIMITS)  # LISTENING, deadline listening_s
    due = m.deadline
    armed = m.version
    m = transition(m, E.TEXT, now=due - 0.1, limits=LIMITS).machine
    late = transition(m, E.TIMEOUT, now=due, limits=LIMITS, expected_version=armed)
    assert isinstance(late, Refusal) and "stale version" in late.reason
    # and without the version check, the PARSING deadline is not due yet either
    assert isinstance(transition(m, E.TIMEOUT, now=due, limits=LIMITS), Refusal)


def run(m: Machine, *events: Event, now: float = 1.0) -> Machine:
    for ev in events:
        r = transition(m, ev, now=now, limits=LIMITS)
        assert r.ok, r
        m = r.machine
    return m


def fail_turn(m: Machine) -> Transition:
    m = run(m, E.TEXT, E.PARSED, E.ROUTED)
    r = transition(m, E.FAIL, now=1.0, limits=LIMITS)
    assert r.ok
    return r


def test_retry_degrade_then_handoff_after_three_consecutive_failures():
    m = new_machine("x", 0.0, LIMITS)
    r = fail_turn(m)
    assert r.machine.failures == 1 and not r.handoff_due
    assert recovery(r.machine, LIMITS, retryable=True) is E.RETRY
    m = run(r.machine, E.RETRY)
    r = transition(m, E.FAIL, now=1.0, limits=LIMITS)
    assert r.machine.failures == 2 and not r.handoff_due
    # one retry allowed by default: the next advice is degrade, and a retry is refused
    assert recovery(r.machine, LIMITS, retryable=True) is E.DEGRADE
    assert "retry limit" in transition(r.machine, E.RETRY, now=1.0, limits=LIMITS).reason
    m = run(r.machine, E.DEGRADE)
    assert m.state is S.LISTENING and m.failures == 2 and m.retries == 0
    r = fail_turn(m)
    assert r.machine.failures == 3 and r.handoff_due
    assert recovery(r.machine, LIMITS, retryable=True) is E.HANDOFF
    for ev in (E.RETRY, E.DEGRADE, E.CANCEL, E.TEXT):
        refused = transition(r.machine, ev, now=1.0, limits=LIMITS)
        assert isinstance(refused, Refusal) and "only handoff" in refused.reason
    m = run(r.machine, E.HANDOFF)
    assert m.state is S.IDLE and m.failures == 0


def test_success_resets_the_failure_count():
    m = fail_turn(new_machine("x", 0.0, LIMITS)).machine
    m = run(m, E.DEGRADE)
    m = fail_turn(m).machine
    assert m.failures == 2
    m = run(m, E.DEGRADE, E.TEXT, E.PARSED, E.ROUTED, E.DONE)
    assert m.failures == 0
    assert fail_turn(m).machine.failures == 1


def test_not_retryable_degrades():
    r = fail_turn(new_machine("x", 0.0, LIMITS))
    assert recovery(r.machine, LIMITS, retryable=False) is E.DEGRADE


def test_tool_timeout_counts_as_failure():
    m = run(new_machine("x", 0.0, LIMITS), E.TEXT, E.PARSED, E.ROUTED, now=0.0)
    r = transition(m, E.TIMEOUT, now=m.deadline, limits=LIMITS)
    assert r.machine.state is S.ERROR_HANDLING and r.machine.failures == 1


def test_confirmation_round_trip():
    m = run(new_machine("x", 0.0, LIMITS), E.TEXT, E.PARSED, E.ROUTED, E.CONFIRM)
    assert m.state is S.CONFIRMING and m.deadline == 61.0
    assert run(m, E.ACCEPT, E.DONE).state is S.LISTENING
    assert run(m, E.REJECT).state is S.LISTENING


def test_restore_interrupts_executing_and_rearms_others():
    m = run(new_machine("x", 0.0, LIMITS), E.TEXT, E.PARSED, E.ROUTED)
    back = restore(m, 500.0, LIMITS)
    assert back.state is S.ERROR_HANDLING and back.failures == 1 and back.version == m.version + 1
    assert recovery(back, LIMITS, retryable=False) is E.DEGRADE  # a non-idempotent tool is not re-run
    c = run(m, E.CONFIRM)
    back = restore(c, 500.0, LIMITS)
    assert back.state is S.CONFIRMING and back.version == c.version and back.deadline == 560.0
    # the time the card was already open before the restart counts: 40 s of 60 gone, 20 s left
    assert restore(c, 500.0, LIMITS, elapsed_s=40.0).deadline == 520.0
    assert restore(c, 500.0, LIMITS, elapsed_s=75.0).deadline == 500.0  # ran out while down: at once


def test_versions_strictly_increase_along_a_conversation():
    m = new_machine("x", 0.0, LIMITS)
    seen = [m.version]
    for ev in (E.TEXT, E.PARSED, E.ROUTED, E.CONFIRM, E.ACCEPT, E.DONE, E.TEXT, E.PARSED, E.ROUTED, E.ASK):
        m = run(m, ev)
        seen.append(m.version)
    assert seen == list(range(1, 12))


def test_transition_sets_every_field_of_machine():
    # transition() builds the next Machine field by field (not with dataclasses.replace): a field
    # added to Machine must be added there too, or it would silently fall back to its default
    assert [f.name for f in dataclasses.fields(Machine)] == [
        "session_id", "state", "version", "failures", "retries", "entered_at", "deadline"]
