"""Idle sessions parked in their L2 row past ``session.max_live_sessions`` (hermesd/session/parking.py):
the pure choice (table tests) and, over a real daemon on its Unix socket, that a parked session is
read back with nothing lost — its committed turns, a repeated message_id's stored reply, its open
card (never parked), its listening timeout, its expiry notice, a restart (issue 15)."""

from __future__ import annotations

import json
import time

import pytest

from hermesd import errors
from hermesd.dialogue.questions import Ask
from hermesd.session.machine import Limits, State, new_machine, transition, Event
from hermesd.session.parking import Parked, parkable, rehydrate, to_park
from hermesd.session.record import Session
from hermesd.session.settings import SessionSettings
from hermesd_testing import clean_env, hermesctl

LIMITS = Limits.from_settings(SessionSettings())
AT = "2024-06-12T10:00:00+08:00"


def _session(sid: str, updated_ms: int = 1000, **kw) -> Session:
    return Session(sid, 1000, "user", new_machine(sid, 5.0, LIMITS), 1000, updated_ms, 10_000_000, **kw)


def _idle(s: Session) -> Session:
    result = transition(s.machine, Event.TIMEOUT, now=1e9, limits=LIMITS)
    s.machine = result.machine
    return s


@pytest.mark.parametrize("change, expected", [
    (lambda s: None, True),                                    # LISTENING, nothing open
    (_idle, True),                                             # IDLE
    (lambda s: setattr(s, "busy", True), False),               # a turn in flight
    (lambda s: setattr(s, "pending", Ask(intent="x", rule_id="r", index=0, slot="to", prompt="?")), False),  # an open question
    (lambda s: s.slots.update(to="王芳"), False),              # a form half filled
    (lambda s: setattr(s, "executing", {"tool": "t"}), False),  # a tool step
    (lambda s: setattr(s, "interrupted", True), False),        # an interrupted step to offer
    (lambda s: setattr(s, "closed", True), False),
    (lambda s: s.staged.append({"anchor": "a"}), False),       # facts not yet committed
    (lambda s: s.vars.update(auth="AUTHED"), True),            # vars are in the row
])
def test_parkable(change, expected):
    s = _session("s1")
    change(s)
    assert parkable(s) is expected


@pytest.mark.parametrize("updated, cap, parked", [
    ([1, 2, 3], 3, []),
    ([1, 2, 3], 2, ["s0"]),
    ([3, 1, 2], 1, ["s1", "s2"]),            # least recently updated first
    ([5, 5, 5], 1, ["s0", "s1"]),            # ties by id: a stable choice
    ([1, 2, 3], 0, ["s0", "s1", "s2"]),
])
def test_to_park_is_lru(updated, cap, parked):
    sessions = [_session(f"s{i}", t) for i, t in enumerate(updated)]
    assert [s.session_id for s in to_park(sessions, cap)] == parked


def test_a_busy_session_stays_and_still_counts():
    a, b, c = _session("a", 1), _session("b", 2), _session("c", 3)
    a.busy = True
    assert [s.session_id for s in to_park([a, b, c], 1)] == ["b", "c"]  # a stays, live beside the cap of 1


def test_rehydrate_keeps_the_row_and_the_monotonic_deadline():
    s = _session("s1")
    s.vars["auth"] = "AUTHED"
    s.turns, s.expired = 3, {"prompt": "发吗？", "at_ms": 5}
    stub = Parked(s)
    back = rehydrate(s.to_row(), stub)
    assert back.machine == s.machine  # state, version, failures, entered_at, deadline
    assert (back.vars, back.turns, back.expired, back.expires_ms) == (s.vars, 3, s.expired, s.expires_ms)
    assert back.summary() == s.summary()


# -- over a real daemon ------------------------------------------------------------------------

def _cfg(**session):
    return {"session": {"max_live_sessions": 1, "poll_interval_ms": 50, **session}}


def _turn(c, sid, text, **kw):
    return c.call("session.turn", {"session_id": sid, "text": text, "reference_time": AT, **kw})


def _parked(d, n=1, timeout_s=10.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        st = d.call("admin.status")["subsystems"]["session"]
        if st["sessions_parked"] >= n:
            return st
        time.sleep(0.05)
    raise AssertionError(f"not {n} parked: {st}")


def test_a_parked_session_replays_a_repeated_message_id_and_keeps_its_turns(start_daemon):
    d = start_daemon(_cfg())
    with d.client() as c:
        a = c.call("session.open", {"locale": "en"})["session_id"]
        first = _turn(c, a, "hello", message_id="m-1")
        before = c.call("session.get", {"session_id": a})
        b = c.call("session.open", {"locale": "en"})["session_id"]
        _turn(c, b, "hello")
        st = _parked(d)
        assert st["sessions"] == 2  # parked is still open
        again = _turn(c, a, "hello", message_id="m-1")
        assert again["replayed"] is True and again["reply"] == first["reply"]
        got = c.call("session.get", {"session_id": a})
        assert got == before  # state, version, turns, vars, expiry: as before it was parked
        assert [t["trace_id"] for t in c.call("session.trace", {"session_id": a})["traces"]] == [first["trace_id"]]
        assert _turn(c, a, "hello")["version"] > before["version"]  # and it takes a new turn
        listed = {r["session_id"] for r in c.call("session.list", {})["sessions"]}
        assert listed == {a, b}


def test_a_session_with_an_open_card_is_never_parked(start_daemon):
    d = start_daemon(_cfg())
    folder = d.state_dir / "documents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "报价单Q-2024-061.pdf").write_bytes(b"%PDF-1.4")
    with d.client() as c:
        carded = c.call("session.open", {"locale": "zh"})["session_id"]
        assert _turn(c, carded, "把报价单发给李经理")["state"] == "CONFIRMING"
        other = c.call("session.open", {"locale": "zh"})["session_id"]
        _turn(c, other, "你好")
        _parked(d)  # the other one went, though it is the newer
        assert c.call("session.get", {"session_id": carded})["state"] == "CONFIRMING"
        assert d.call("admin.status")["subsystems"]["session"]["sessions_parked"] == 1
        _turn(c, carded, "你好")  # the cap: now the carded one is the live one, the other parked
        assert c.call("session.get", {"session_id": other})["state"] == "LISTENING"


def test_a_parked_session_times_out_and_expires_with_its_notice(start_daemon):
    d = start_daemon(_cfg(ttl_s=3.0, listening_s=1.0))
    with d.client() as c:
        a = c.call("session.open", {"locale": "en"})["session_id"]
        _turn(c, a, "hello")
        b = c.call("session.open", {"locale": "en"})["session_id"]
        _turn(c, b, "hello")
        _parked(d)
        time.sleep(1.5)  # LISTENING → IDLE of the parked one, at its own deadline
        assert c.call("session.get", {"session_id": a})["state"] == "IDLE"
        _turn(c, b, "hello")
        _parked(d)
    r = hermesctl(d.socket, "--json", "events", "--count", "1", env=clean_env(LANG="C.UTF-8"), timeout_s=30)
    assert r.returncode == 0, r.stderr
    ev = json.loads(r.stdout)
    assert ev["kind"] == "session_expired" and ev["data"]["session_id"] in (a, b)
    with d.client() as c:
        with pytest.raises((errors.SessionNotFound, errors.SessionExpired)):
            c.call("session.get", {"session_id": a})


def test_parked_sessions_survive_a_restart(start_daemon, short_dir):
    root = short_dir / "park"
    root.mkdir()
    d = start_daemon(_cfg(), root=root)
    with d.client() as c:
        sids = [c.call("session.open", {"locale": "en"})["session_id"] for _ in range(3)]
        firsts = [_turn(c, sid, "hello", message_id="m") for sid in sids]
        _parked(d, 2)
    d.stop()
    d2 = start_daemon(_cfg(), root=root)
    assert d2.call("admin.status")["subsystems"]["session"]["sessions_parked"] == 2
    with d2.client() as c:
        for sid, first in zip(sids, firsts):
            assert c.call("session.get", {"session_id": sid})["turns"] == 1
            assert _turn(c, sid, "hello", message_id="m")["reply"] == first["reply"]


def test_parked_sessions_time_out_at_their_deadlines_and_are_parked_again(start_daemon):
    d = start_daemon(_cfg(max_live_sessions=2, listening_s=1.0))
    with d.client() as c:
        sids = [c.call("session.open", {"locale": "en"})["session_id"] for _ in range(8)]
        for sid in sids:
            _turn(c, sid, "hello")
        _parked(d, 6)
        time.sleep(1.5)  # every LISTENING deadline has passed: parked ones time out too
        _parked(d, 6)
        rows = {r["session_id"]: r["state"] for r in c.call("session.list", {})["sessions"]}
        assert rows == {sid: "IDLE" for sid in sids}
