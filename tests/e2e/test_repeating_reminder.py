"""A repeating reminder over the socket: each occurrence is the same ``reminder`` event a one-off gives,
the daemon arms the next one when it fires, and the occurrences missed before it fired are not replayed.

Real daemon, shipped packs and reminder tool (a forked worker), real L2 schedule; one minute of wall clock.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone


def test_every_minute_fires_once_for_the_missed_ones_then_again_a_minute_on(start_daemon):
    d = start_daemon({})
    # said three minutes ago: its first time (a minute after that) has gone by, and a minute after that too
    three_minutes_ago = (datetime.now(timezone.utc) - timedelta(minutes=3)).isoformat()
    with d.client() as sub:
        sub.call("events.subscribe", {"kinds": ["reminder"]})
        with d.client() as c:
            sid = c.call("session.open", {"locale": "zh"})["session_id"]
            r = c.call("session.turn", {"session_id": sid, "text": "每分钟提醒我喝水",
                                        "reference_time": three_minutes_ago})
            assert r["intent"] == "reminder.set" and "每分钟" in r["reply"]["text"], r["reply"]
        first = sub.read_notification(timeout_s=15)["params"]
        fired_at = datetime.now(timezone.utc)
        second = sub.read_notification(timeout_s=75)["params"]
        with d.client() as c:
            sid = c.call("session.open", {"locale": "zh"})["session_id"]
            listed = c.call("session.turn", {"session_id": sid, "text": "我有哪些提醒"})["reply"]["text"]
            asked = c.call("session.turn", {"session_id": sid, "text": "取消喝水的提醒"})["reply"]["text"]
            cancelled = c.call("session.turn", {"session_id": sid, "text": "好"})["reply"]["text"]
    for ev in (first, second):
        assert ev["kind"] == "reminder" and ev["data"]["text"] == "喝水", ev
        assert set(ev["data"]) == {"reminder_id", "text", "due", "session_id"}, ev  # as a one-off's
    assert first["data"]["reminder_id"] == second["data"]["reminder_id"]
    due1, due2 = (datetime.fromisoformat(e["data"]["due"]) for e in (first, second))
    # the first came due about two minutes ago; the next is the first minute after it fired, not the one after due1
    assert due2 > fired_at - timedelta(seconds=1) and due2 - due1 >= timedelta(minutes=2), (due1, due2, fired_at)
    assert "喝水（每分钟）" in listed, listed  # the next due, and the schedule
    assert "（每分钟）？" in asked, asked
    assert "已取消重复提醒" in cancelled and "不再提醒" in cancelled, cancelled
