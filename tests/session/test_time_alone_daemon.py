"""A time said alone, through a real daemon: the question it gets ("要提醒你做什么？") is tentative — left
unanswered it times out without leaving a pending task that later sessions offer; a form the person opened
themselves ("提醒我给妈妈打电话", when? left unanswered) still is offered (zh and en)."""

from __future__ import annotations

import time

import pytest

AT = "2030-06-19T10:00:00+08:00"


def _turn(c, sid, text):
    return c.call("session.turn", {"session_id": sid, "text": text, "reference_time": AT})


def _wait_state(c, sid, state, limit_s=15):
    deadline = time.monotonic() + limit_s
    while c.call("session.get", {"session_id": sid})["state"] != state and time.monotonic() < deadline:
        time.sleep(0.1)
    return c.call("session.get", {"session_id": sid})["state"]


@pytest.mark.parametrize("locale,alone,engaged", [
    ("zh", "下午三点", "提醒我给妈妈打电话"),
    ("en", "at 3pm", "remind me to call mom"),
])
def test_a_time_said_alone_leaves_no_pending_task(start_daemon, locale, alone, engaged):
    d = start_daemon({"session": {"listening_s": 1.0}})
    with d.client() as c:
        sid = c.call("session.open", {"locale": locale})["session_id"]
        r = _turn(c, sid, alone)
        assert r["rule_id"] == "reminder.set.ask_task" and r["state"] == "LISTENING", r
        assert _wait_state(c, sid, "IDLE") == "IDLE"  # the question timed out unanswered
        opened = c.call("session.open", {"locale": locale})
        assert not opened.get("offer"), opened  # nothing the person asked for was left unfinished
        sid = opened["session_id"]
        r = _turn(c, sid, engaged)  # a request of the person's own, its "when?" left unanswered
        assert r["rule_id"] == "reminder.set.ask_when", r
        assert _wait_state(c, sid, "IDLE") == "IDLE"
        opened = c.call("session.open", {"locale": locale})
        assert opened["offer"]["intent"] == "reminder.set", opened
