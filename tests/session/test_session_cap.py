"""The per-user session cap under concurrency: atomic, never evicting a session in use, every session
closed once and archived once (issue 12, §2)."""

from __future__ import annotations

import asyncio
import os
import re
import time

import pytest

from hermesd import errors
from hermesd.client import AsyncClient

AT = "2024-06-12T10:00:00+08:00"


def _turn(c, sid, text):
    return c.call("session.turn", {"session_id": sid, "text": text, "reference_time": AT})


def _open_when_room(c, locale: str, tries: int = 200) -> str:
    """session.open, retried as SESSION_LIMIT's ``retry_after_ms`` says (the daemon's word, not a guess)."""
    for _ in range(tries):
        try:
            return c.call("session.open", {"locale": locale})["session_id"]
        except errors.SessionLimit as exc:
            time.sleep(exc.data["retry_after_ms"] / 1000)
    raise AssertionError(f"no room after {tries} tries")


def test_the_oldest_idle_session_makes_room(start_daemon):
    d = start_daemon({"session": {"max_sessions_per_user": 3, "cap_grace_s": 0.5}})
    with d.client() as c:
        sids = [c.call("session.open", {"locale": "en"})["session_id"] for _ in range(3)]
        for sid in sids:
            _turn(c, sid, "hello")
        with pytest.raises(errors.HermesError) as exc:  # all three used just now: still their client's
            c.call("session.open", {"locale": "en"})
        assert exc.value.code == "SESSION_LIMIT" and 50 <= exc.value.data["retry_after_ms"] <= 250
        new = None
        for _ in range(40):  # each retry as the daemon says; the oldest turns idle after cap_grace_s
            time.sleep(exc.value.data["retry_after_ms"] / 1000)
            try:
                new = c.call("session.open", {"locale": "en"})["session_id"]
                break
            except errors.HermesError as again:
                assert again.code == "SESSION_LIMIT"
        assert new is not None
        with pytest.raises(errors.SessionNotFound):
            c.call("session.get", {"session_id": sids[0]})
        for sid in (*sids[1:], new):
            c.call("session.get", {"session_id": sid})


def test_a_session_in_use_is_never_evicted(start_daemon):
    d = start_daemon({"session": {"max_sessions_per_user": 2, "cap_grace_s": 0.5}})
    folder = d.state_dir / "documents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "报价单Q-2024-061.pdf").write_bytes(b"%PDF-1.4")
    with d.client() as c:
        carded = c.call("session.open", {"locale": "zh"})["session_id"]
        assert _turn(c, carded, "把报价单发给李经理")["state"] == "CONFIRMING"
        fresh = c.call("session.open", {"locale": "zh"})["session_id"]  # opened, first turn not yet sent
        with pytest.raises(errors.HermesError) as exc:
            c.call("session.open", {"locale": "zh"})
        assert exc.value.code == "SESSION_LIMIT" and exc.value.data["retry_after_ms"] > 0
        assert _turn(c, fresh, "你好")["state"] == "LISTENING"
        assert c.call("session.get", {"session_id": carded})["state"] == "CONFIRMING"
        _open_when_room(c, "zh")  # the idle one makes room once its grace is over, the card stays
        with pytest.raises(errors.SessionNotFound):
            c.call("session.get", {"session_id": fresh})
        assert c.call("session.get", {"session_id": carded})["state"] == "CONFIRMING"


def test_past_the_cap_the_least_recently_used_idle_session_ends(start_daemon):
    d = start_daemon({"session": {"cap_grace_s": 0.0}})  # the shipped cap of 8
    with d.client() as c:
        sids = [c.call("session.open", {"locale": "en"})["session_id"] for _ in range(8)]
        for sid in sids:
            _turn(c, sid, "hello")
        _turn(c, sids[0], "thanks")  # the oldest opened is used again: sids[1] is the least recently used
        ninth = c.call("session.open", {"locale": "en"})["session_id"]  # not refused: an idle one makes room
        with pytest.raises(errors.SessionNotFound):
            c.call("session.get", {"session_id": sids[1]})
        for sid in (sids[0], *sids[2:], ninth):
            c.call("session.get", {"session_id": sid})
    line = d.log_line("session.evicted", sids[1])
    assert "reason=per_user_cap" in line and "limit=8" in line and re.search(r"idle_ms=\d+", line), line
    assert "per-user cap" in d.log_line("session.close", sids[1])  # archived as an expired one is


def test_refused_only_when_none_is_idle_with_the_reason(start_daemon):
    from hermesd_testing import hermesctl

    # a grace longer than the test: questions asked just now are still their person's to answer
    d = start_daemon({"session": {"max_sessions_per_user": 2, "cap_grace_s": 60.0}})
    with d.client() as c:
        for _ in range(2):  # each asks when: a question open, never ended to make room
            sid = c.call("session.open", {"locale": "zh"})["session_id"]
            assert _turn(c, sid, "提醒我交报告")["state"] != "IDLE"
        with pytest.raises(errors.SessionLimit) as exc:
            c.call("session.open", {"locale": "zh"})
    data = exc.value.data
    assert exc.value.code == "SESSION_LIMIT" and data["reason"] == "in_use"
    assert (data["open"], data["limit"], data["waiting"], data["running"]) == (2, 2, 2, 0)
    assert "none is idle" in exc.value.message and "2 of them wait for an answer" in exc.value.message
    r = hermesctl(d.socket, "say", "磁盘还剩多少")  # a person reads why and what to do, in their language
    assert r.returncode != 0 and "你已经开着2个会话" in r.stderr and "回答或结束" in r.stderr, r.stderr
    assert "SESSION_LIMIT" not in r.stderr and "忙" not in r.stderr
    r = hermesctl(d.socket, "say", "how much disk space is left")
    assert "You already have 2 conversations open" in r.stderr and "close" in r.stderr, r.stderr


async def test_200_concurrent_clients_of_one_uid(start_daemon):
    d = start_daemon({})
    opened: list[str] = []
    limited = [0]

    async def client(i: int) -> None:
        c = await AsyncClient(d.socket, timeout_s=60).connect()
        try:
            while True:
                try:
                    sid = (await c.call("session.open", {"locale": "en"}))["session_id"]
                    break
                except errors.HermesError as exc:
                    assert exc.code == "SESSION_LIMIT", exc
                    limited[0] += 1
                    await asyncio.sleep(exc.data["retry_after_ms"] / 1000)
            opened.append(sid)
            r = await c.call("session.turn", {"session_id": sid, "text": "how much disk space is left",
                                              "reference_time": AT})
            assert any(a.get("tool") == "disk_usage" for a in r["actions"]), r
            await c.call("session.close", {"session_id": sid})
        finally:
            await c.close()

    await asyncio.wait_for(asyncio.gather(*(client(i) for i in range(200))), timeout=240)
    assert len(set(opened)) == 200 and limited[0] > 0
    log = d.log()
    closes = re.findall(r"session\.close .*?session=(\w+)", log)
    assert sorted(closes) == sorted(opened), "every session closed exactly once"
    assert "archive_failed" not in log
    volumes = [f for _, _, files in os.walk(d.state_dir / "archive") for f in files if f.endswith(".zst")]
    per_session = {v.split(".")[0] for v in volumes}
    assert len(volumes) == 200 and per_session == set(opened), "one volume per ended session"
