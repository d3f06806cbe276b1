"""DeadlineHeap: exact due sets, re-arm and cancel, 10,000 sessions."""

from __future__ import annotations

import random

from hermesd.session.machine import Event, Limits, Machine, new_machine, transition
from hermesd.session.settings import SessionSettings
from hermesd.session.timers import DeadlineHeap


def test_due_returns_expired_earliest_first_once():
    h = DeadlineHeap()
    h.arm("a", 3.0)
    h.arm("b", 1.0)
    h.arm("c", 2.0)
    assert h.next_deadline() == 1.0
    assert h.due(0.5) == []
    assert h.due(2.0) == ["b", "c"]
    assert h.due(2.0) == []
    assert len(h) == 1 and "a" in h and "b" not in h
    assert h.due(10.0) == ["a"] and h.next_deadline() is None


def test_rearm_replaces_and_cancel_removes():
    h = DeadlineHeap()
    h.arm("a", 1.0)
    h.arm("a", 5.0)  # the 1.0 entry is now garbage
    assert h.deadline_of("a") == 5.0
    assert h.next_deadline() == 5.0
    assert h.due(4.0) == []
    h.arm("b", 2.0)
    h.cancel("b")
    h.cancel("nobody")
    h.arm("c", None)
    assert h.due(100.0) == ["a"] and len(h) == 0


def test_ten_thousand_sessions_churn_matches_a_dict_model():
    rng = random.Random(6)
    h, model = DeadlineHeap(), {}
    ids = [f"s{i}" for i in range(10_000)]
    for sid in ids:
        d = rng.uniform(0, 100)
        h.arm(sid, d)
        model[sid] = d
    now = 0.0
    for _ in range(50):
        # a burst of turns re-arms or cancels some sessions
        for sid in rng.sample(ids, 300):
            if rng.random() < 0.2:
                h.cancel(sid)
                model.pop(sid, None)
            else:
                d = now + rng.uniform(0, 60)
                h.arm(sid, d)
                model[sid] = d
        now += 2.0
        fired = h.due(now)
        expected = sorted((d, sid) for sid, d in model.items() if d <= now)
        assert [d for d, _ in expected] == [model[s] for s in fired]
        assert set(fired) == {sid for _, sid in expected}
        for sid in fired:
            del model[sid]
        assert len(h) == len(model)
        # garbage stays bounded: heap holds at most live + (live + 64) entries
        assert len(h._heap) <= 2 * len(model) + 64 + 1
    assert h.due(1e9) == sorted(model, key=model.get)


def test_ten_thousand_idle_sessions_time_out_through_the_machine():
    """The controller's loop, without asyncio: due() ids get a versioned timeout."""
    limits = Limits.from_settings(SessionSettings(listening_s=30.0))  # the times below are laid out for 30 s
    h = DeadlineHeap()
    sessions: dict[str, Machine] = {}
    for i in range(10_000):
        m = new_machine(f"s{i}", i * 0.001, limits)  # opened over 10 s
        sessions[m.session_id] = m
        h.arm(m.session_id, m.deadline)
    # a turn arrives in every 10th session at t=20 s: its LISTENING timer is replaced by PARSING's
    for i in range(0, 10_000, 10):
        r = transition(sessions[f"s{i}"], Event.TEXT, now=20.0, limits=limits)
        sessions[r.machine.session_id] = r.machine
        h.arm(r.machine.session_id, r.machine.deadline)
    assert h.next_deadline() == 20.5
    parse_timeouts = h.due(20.5)
    assert len(parse_timeouts) == 1000
    for sid in parse_timeouts:
        r = transition(sessions[sid], Event.PARSED, now=20.4, limits=limits)  # parse finished first
        sessions[sid] = r.machine
        h.arm(sid, None)  # the controller re-arms to ROUTING's deadline; here the test just drops it
    fired = h.due(40.0)
    assert len(fired) == 9000
    for sid in fired:
        r = transition(sessions[sid], Event.TIMEOUT, now=40.0, limits=limits)
        assert r.ok and r.machine.state.value == "IDLE"
    assert len(h) == 0
