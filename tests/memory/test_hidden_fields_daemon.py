"""Role-filtered fields on every path (issue 13 §6), with a real daemon and a non-admin caller.

``memory.hidden_fields.user = [data.value]``: a fact the user stores is kept (an admin reads it),
but its value never reaches the ``user`` role — not in the reply that stores it, a recall,
``memory.search`` (item, summary, keywords) or ``session.trace``. The caller is a forked
process that drops to ``nobody`` (as in tests/test_roles.py).
"""

from __future__ import annotations

import os

import orjson
import pytest

from hermesd_testing import NOBODY, as_nobody

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or NOBODY is None,
                                reason="needs root (to setuid to nobody) and a 'nobody' user")

VALUE = "A-1207"


def _as_user(d, method: str, params: dict) -> dict:
    """One JSON-RPC call as nobody on its own connection; the result (fails on an error)."""
    line = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}) + b"\n"
    (reply,) = as_nobody(str(d.socket), [line])
    assert "result" in reply, reply
    return reply["result"]


def test_a_hidden_value_never_reaches_the_role(start_daemon):
    d = start_daemon({"server": {"socket_mode": "0666"}, "roles": {"user": {"uids": [NOBODY.pw_uid]}},
                      "memory": {"hidden_fields": {"user": ["data.value"]}}})
    os.chmod(d.root, 0o755)
    os.chmod(d.root.parent, 0o755)
    sid = _as_user(d, "session.open", {"locale": "zh"})["session_id"]

    stored = _as_user(d, "session.turn", {"session_id": sid, "text": f"记住我的工位号是{VALUE}"})
    assert stored["intent"] == "memory.remember"
    assert "记住了" in stored["reply"]["text"] and VALUE not in orjson.dumps(stored).decode()

    recalled = _as_user(d, "session.turn", {"session_id": sid, "text": "我的工位号是多少"})
    assert recalled["intent"] == "memory.recall"
    assert "不能查看" in recalled["reply"]["text"] and VALUE not in recalled["reply"]["text"]

    found = _as_user(d, "memory.search", {"query": "工位号", "k": 5})["items"]
    assert found, "the fact is searchable by its subject"
    assert all("value" not in (it.get("data") or {}) for it in found)
    assert VALUE not in orjson.dumps(found).decode()  # nor in summary / keywords

    trace = _as_user(d, "session.trace", {"session_id": sid})
    assert len(trace["traces"]) == 2
    assert VALUE not in orjson.dumps(trace).decode()

    # stored all the same: the admin (this test's own uid) reads it
    items = d.call("memory.search", {"uid": NOBODY.pw_uid, "query": "工位号", "k": 5})["items"]
    assert any((it.get("data") or {}).get("value") == VALUE for it in items)


def test_without_hidden_fields_the_same_calls_show_the_value(start_daemon):
    """The control: the same role, no hidden fields — so the test above can fail."""
    d = start_daemon({"server": {"socket_mode": "0666"}, "roles": {"user": {"uids": [NOBODY.pw_uid]}}})
    os.chmod(d.root, 0o755)
    os.chmod(d.root.parent, 0o755)
    sid = _as_user(d, "session.open", {"locale": "zh"})["session_id"]
    assert VALUE in _as_user(d, "session.turn", {"session_id": sid, "text": f"记住我的工位号是{VALUE}"})["reply"]["text"]
    assert VALUE in _as_user(d, "session.turn", {"session_id": sid, "text": "我的工位号是多少"})["reply"]["text"]
    assert VALUE in orjson.dumps(_as_user(d, "memory.search", {"query": "工位号", "k": 5})).decode()
    assert VALUE in orjson.dumps(_as_user(d, "session.trace", {"session_id": sid})).decode()


def test_a_user_erases_their_own_memories_told_exactly_what_goes(start_daemon):
    """A user (not an admin) may erase what is theirs: the question names each kind with its count,
    a no keeps everything, a yes erases it."""
    d = start_daemon({"server": {"socket_mode": "0666"}, "roles": {"user": {"uids": [NOBODY.pw_uid]}}})
    os.chmod(d.root, 0o755)
    os.chmod(d.root.parent, 0o755)
    for locale, text, said, no, yes, unknown in (
            ("zh", "忘掉所有记忆", "你让我记住的1件事", "不用了", "好的", "没有告诉过我"),
            ("en", "forget everything", "the 1 thing you asked me to remember", "no", "yes", "have not told me")):
        sid = _as_user(d, "session.open", {"locale": locale})["session_id"]
        _as_user(d, "session.turn", {"session_id": sid, "text": "记住我的工位号是B-3308"})
        r = _as_user(d, "session.turn", {"session_id": sid, "text": text})
        assert r["intent"] == "memory.forget" and r["state"] == "CONFIRMING" and said in r["reply"]["text"]
        _as_user(d, "session.turn", {"session_id": sid, "text": no})
        again = _as_user(d, "session.turn", {"session_id": sid, "text": "我的工位号是多少"})
        assert "B-3308" in again["reply"]["text"]  # a no erased nothing
        _as_user(d, "session.turn", {"session_id": sid, "text": text})
        _as_user(d, "session.turn", {"session_id": sid, "text": yes})
        gone = _as_user(d, "session.turn", {"session_id": sid, "text": "我的工位号是多少"})
        assert "B-3308" not in gone["reply"]["text"] and unknown in gone["reply"]["text"]
