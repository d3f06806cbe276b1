"""Regression tests for defects a reviewer found by trying to break the daemon."""

from __future__ import annotations

import os
import time

import orjson
import pytest

from hermesd import errors
from hermesd_testing import NOBODY, as_nobody

DAY1 = "2024-06-12T10:00:00+08:00"


@pytest.fixture
def office(start_daemon):
    def start(**session):
        d = start_daemon({"server": {"socket_mode": "0666"}, "session": session,
                          "roles": {"user": {"uids": [NOBODY.pw_uid] if NOBODY else []}}})
        docs = d.state_dir / "documents"
        docs.mkdir(parents=True, exist_ok=True)
        (docs / "报价单Q-2024-061.pdf").write_bytes(b"quote")
        (docs / "合同HT-2024-0012.pdf").write_bytes(b"contract")
        os.chmod(d.root, 0o755)
        return d
    return start


def _manifest(d) -> list:
    path = d.state_dir / "outbox" / "manifest.jsonl"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def _turn(c, sid, text):
    return c.call("session.turn", {"session_id": sid, "text": text, "reference_time": DAY1})


@pytest.mark.skipif(os.geteuid() != 0 or NOBODY is None, reason="needs root (to setuid to nobody)")
def test_a_user_cannot_send_a_contract_however_it_is_spelled_nor_through_raw_tools_call(office):
    d = office()
    lines = [orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools.call", "params": {
        "name": "send_document", "confirmed": True,
        "arguments": {"document": "合同HT-2024-0012.pdf", "recipient": "evil@example.org"}}}) + b"\n"]
    r = as_nobody(str(d.socket), lines)[0]
    assert r["error"]["data"]["code"] == "PERMISSION_DENIED"
    sid = as_nobody(str(d.socket), [orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "session.open",
                                                  "params": {"locale": "en"}}) + b"\n"])[0]["result"]["session_id"]
    for text in ("send the Contract to Li Na", "email the CONTRACT to Li Na"):
        line = orjson.dumps({"jsonrpc": "2.0", "id": 2, "method": "session.turn",
                             "params": {"session_id": sid, "text": text, "reference_time": DAY1}}) + b"\n"
        r = as_nobody(str(d.socket), [line])[0]["result"]
        assert r["reply"]["text"] == "Only an admin may send contracts; nothing was sent.", r
    assert _manifest(d) == []


def test_a_confirmation_left_open_after_digressions_still_times_out(office):
    d = office(confirming_s=0.6, poll_interval_ms=100)
    with d.client() as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        assert _turn(c, sid, "把报价单Q-2024-061发给王会计")["state"] == "CONFIRMING"
        assert "还需要你确认" in _turn(c, sid, "磁盘还剩多少")["reply"]["text"]
        r = _turn(c, sid, "系统状态")
        assert r["state"] == "CONFIRMING" and "还需要你确认" not in r["reply"]["text"]  # open, not repeated
        time.sleep(1.5)
        assert c.call("session.get", {"session_id": sid})["state"] == "IDLE"
        r = _turn(c, sid, "好的")
        assert not [a for a in r["actions"] if a.get("tool") == "send_document"]
    assert _manifest(d) == []


def test_choosing_a_person_keeps_the_rest_of_the_form(office):
    d = office()
    with d.client() as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        _turn(c, sid, "把报价单Q-2024-061发给王会计")
        r = _turn(c, sid, "不对，是张工")
        assert r["path"] == "clarify"
        pick = 1 + [x["anchor_id"] for x in r["reply"]["card"]["choices"]].index("person:sales/zhang")
        r = c.call("session.confirm", {"session_id": sid, "choice": pick})
        assert r["reply"]["card"]["fields"] == {"document": "报价单Q-2024-061.pdf", "recipient": "张伟"}


def test_bad_answers_to_cards_are_errors_not_cancellations(office):
    d = office()
    with d.client() as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        _turn(c, sid, "把报价单Q-2024-061发给张工")
        with pytest.raises(errors.InputInvalid):
            c.call("session.confirm", {"session_id": sid, "choice": 3})
        with pytest.raises(errors.InputInvalid):
            c.call("session.confirm", {"session_id": sid, "accept": True})
        with pytest.raises(errors.InputInvalid):
            c.call("session.confirm", {"session_id": sid, "accept": "yes"})
        assert c.call("session.get", {"session_id": sid})["pending"]["kind"] == "choice"
        with pytest.raises(errors.InputInvalid):
            c.call("session.turn", {"session_id": sid, "text": "磁盘还剩多少",
                                    "reference_time": "9999-12-31T23:59:59+00:00"})


def test_reload_reports_a_rejected_rule_pack(start_daemon, short_dir):
    rules = short_dir / "rules"
    rules.mkdir()
    (rules / "ok.yaml").write_text("pack: t\nrules:\n  - rule_id: a\n    trigger: {intent: device.disk_space}\n"
                                   "    actions:\n      - reply: {en: ok}\n")
    d = start_daemon({"session": {"rules_dir": str(rules)}})
    (rules / "ok.yaml").write_text("pack: t\nrules:\n  - rule_id: a\n    triger: {}\n")
    res = d.call("admin.reload")
    assert not res["ok"] and "rule packs rejected" in res["problems"][0]


def test_answers_without_text_keep_the_conversations_language(office):
    d = office()
    with d.client() as c:
        sid = c.call("session.open", {})["session_id"]  # no locale: taken from what is said
        r = _turn(c, sid, "把报价单Q-2024-061发给张工")
        pick = 1 + [x["anchor_id"] for x in r["reply"]["card"]["choices"]].index("person:sales/zhang")
        r = c.call("session.confirm", {"session_id": sid, "choice": pick})
        assert r["reply"]["text"] == "把报价单Q-2024-061.pdf发给张伟吗？"
        r = c.call("session.confirm", {"session_id": sid, "accept": True})
        assert r["reply"]["text"] == "已把报价单Q-2024-061.pdf发给张伟。"


def test_send_it_again_resends_this_conversations_send_not_a_newer_one_from_another(office):
    """Two conversations of one user (two app windows): "send it again" in the first resends what the
    first sent, though the second sent a quote to someone else since; a new conversation, which sent
    nothing, is asked which of the user's two sends of a quote (newest first), and resends the one chosen."""
    d = office()
    with d.client() as c:
        first, second = (c.call("session.open", {"locale": "en"})["session_id"] for _ in range(2))
        assert _turn(c, first, "send the quote to Wang Fang")["state"] == "CONFIRMING"
        assert _turn(c, first, "yes")["actions"][-1]["outcome"] == "ok"
        assert _turn(c, second, "send the quote to Li Na")["state"] == "CONFIRMING"
        assert _turn(c, second, "yes")["actions"][-1]["outcome"] == "ok"
        again = _turn(c, first, "send it again")
        assert again["state"] == "CONFIRMING", again["reply"]
        assert again["reply"]["card"]["fields"]["recipient"] == "王芳", again["reply"]
        third = c.call("session.open", {"locale": "en"})["session_id"]
        which = _turn(c, third, "send the quote again")
        labels = [x["display"] for x in which["reply"]["card"]["choices"]]
        assert len(labels) == 2 and "李娜" in labels[0] and "王芳" in labels[1], which["reply"]
        newest = _turn(c, third, "the first one")
        assert newest["reply"]["card"]["fields"]["recipient"] == "李娜", newest["reply"]


def test_a_send_of_two_documents_files_each_under_its_own_kind(office):
    """"把报价单和合同发给王芳", only the quote confirmed: the send is filed as a quote — "合同发给王芳了吗"
    is no record and "把合同再发一遍" finds none (the quote's send was filed under the contract, the
    kind parsed last in the turn, and was then confirmed as the contract's)."""
    d = office()
    with d.client() as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        assert _turn(c, sid, "把报价单和合同发给王芳")["state"] == "CONFIRMING"
        sent = _turn(c, sid, "好")
        assert "已把报价单Q-2024-061.pdf发给王芳" in sent["reply"]["text"], sent["reply"]
        c.call("session.close", {"session_id": sid})
        other = c.call("session.open", {"locale": "zh"})["session_id"]
        asked = _turn(c, other, "合同发给王芳了吗")["reply"]["text"]
        assert "没有" in asked and "报价单" not in asked, asked
        assert "发过" in _turn(c, other, "报价单发给王芳了吗")["reply"]["text"]
        again = _turn(c, other, "把合同再发一遍")
        assert again["state"] != "CONFIRMING" and "没有" in again["reply"]["text"], again["reply"]
