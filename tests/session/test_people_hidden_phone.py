"""A role that may not see phone numbers (``memory.hidden_fields.user = [phone]``) asks a directory
question: the phone is refused in words, in the session's language; email and department still answer.
A real daemon, the shipped people pack and contacts tool, a caller dropped to ``nobody``."""

from __future__ import annotations

import os

import orjson
import pytest

from hermesd_testing import NOBODY, as_nobody

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or NOBODY is None,
                                reason="needs root (to setuid to nobody) and a 'nobody' user")

PHONE = "+86-10-5550-0101"  # 张伟's, config/directory.yaml


def _as_user(d, method: str, params: dict) -> dict:
    line = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}) + b"\n"
    (reply,) = as_nobody(str(d.socket), [line])
    assert "result" in reply, reply
    return reply["result"]


def _daemon(start_daemon, hidden: list[str] | None):
    cfg: dict = {"server": {"socket_mode": "0666"}, "roles": {"user": {"uids": [NOBODY.pw_uid]}}}
    if hidden is not None:
        cfg["memory"] = {"hidden_fields": {"user": hidden}}
    d = start_daemon(cfg)
    os.chmod(d.root, 0o755)
    os.chmod(d.root.parent, 0o755)
    return d


def _say(d, sid: str, text: str) -> dict:
    return _as_user(d, "session.turn", {"session_id": sid, "text": text})


def test_a_role_that_may_not_see_phones_is_refused_in_words(start_daemon):
    d = _daemon(start_daemon, ["phone"])
    zh = _as_user(d, "session.open", {"locale": "zh"})["session_id"]
    r = _say(d, zh, "张伟的电话是多少")
    assert r["intent"] == "people.lookup"
    assert "不能查看" in r["reply"]["text"] and PHONE not in orjson.dumps(r).decode()
    r = _say(d, zh, "他的邮箱呢")  # the same person, a field the role may see
    assert "zhang.wei@example.com" in r["reply"]["text"]
    en = _as_user(d, "session.open", {"locale": "en"})["session_id"]
    r = _say(d, en, "what is Zhang Wei's phone number")
    assert "may not see phone numbers" in r["reply"]["text"] and PHONE not in r["reply"]["text"]
    # the admin (this test's own uid) is not that role
    sid = d.call("session.open", {"locale": "zh"})["session_id"]
    assert PHONE in d.call("session.turn", {"session_id": sid, "text": "张伟的电话是多少"})["reply"]["text"]


def test_without_hidden_fields_the_same_role_gets_the_phone(start_daemon):
    """The control: the same role, nothing hidden — so the test above can fail."""
    d = _daemon(start_daemon, None)
    sid = _as_user(d, "session.open", {"locale": "zh"})["session_id"]
    assert PHONE in _say(d, sid, "张伟的电话是多少")["reply"]["text"]
