"""``session.trace`` of a session that has ended: read back from the L3 archive with when and why it
ended (``hermesctl trace`` after ``hermesctl chat`` closed it), never SESSION_NOT_FOUND for its own
user; another uid still gets SESSION_NOT_FOUND (no oracle), and an id never seen is not found."""

from __future__ import annotations

import os
import orjson
import pytest

from hermesd import errors
from hermesd_testing import NOBODY, as_nobody, hermesctl

AT = "2030-06-19T10:00:00+08:00"


def _ended(c) -> str:
    sid = c.call("session.open", {"locale": "zh"})["session_id"]
    c.call("session.turn", {"session_id": sid, "text": "磁盘还剩多少", "reference_time": AT})
    c.call("session.turn", {"session_id": sid, "text": "明天25点提醒我开会", "reference_time": AT})
    c.call("session.turn", {"session_id": sid, "text": "明天下午3点", "reference_time": AT})
    c.call("session.close", {"session_id": sid})
    return sid


def test_an_ended_session_is_traced_from_the_archive(start_daemon):
    d = start_daemon({})
    with d.client() as c:
        sid = _ended(c)
        with pytest.raises(errors.SessionNotFound):
            c.call("session.get", {"session_id": sid})
        got = c.call("session.trace", {"session_id": sid})
        assert got["ended"]["reason"] == "closed by client" and got["ended"]["on_device"]
        assert got["ended"]["closed_ms"] > 0 and got["ended"]["path"].endswith(".zst")
        said = [t["text"] for t in got["traces"]]
        assert said == ["磁盘还剩多少", "明天25点提醒我开会", "明天下午3点"]
        assert got["traces"][1]["reply"].startswith("没有25点") and got["traces"][0]["intent"] == "device.disk_space"
        # the archived turn explains itself as the live trace did: what was heard, which rule ran
        set_at = got["traces"][2]
        assert set_at["entities"]["datetime"][0]["start"].startswith("2030-06-20T15:00"), set_at
        assert set_at["plan"]["rule_id"] and set_at["timings_ms"], set_at
        with pytest.raises(errors.SessionNotFound):
            c.call("session.trace", {"session_id": "0" * 25})
    out = hermesctl(d.socket, "trace", sid)  # what a person reads: when it ended, where it is, each turn
    assert out.returncode == 0, out.stderr
    assert f"session {sid} ended at" in out.stdout and "archived in" in out.stdout
    assert "said     '明天25点提醒我开会'" in out.stdout and "没有25点" in out.stdout
    assert "  entities " in out.stdout and "  rule     " in out.stdout


@pytest.mark.skipif(os.geteuid() != 0 or NOBODY is None, reason="needs root (to setuid to nobody)")
def test_another_uid_cannot_trace_an_ended_session(start_daemon):
    d = start_daemon({"server": {"socket_mode": "0666"}, "roles": {"user": {"uids": [NOBODY.pw_uid]}}})
    os.chmod(d.root, 0o755)
    with d.client() as c:
        sid = _ended(c)
    req = [orjson.dumps({"jsonrpc": "2.0", "id": 0, "method": "session.trace", "params": {"session_id": sid}}) + b"\n"]
    reply = as_nobody(str(d.socket), req)[0]
    assert reply["error"]["data"]["code"] == "SESSION_NOT_FOUND", reply
