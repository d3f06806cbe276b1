"""The signature story over the socket, on the shipped packs: send on day 1, resend "上周三" on day 2.

Real daemon, shipped intents, rules, directory and tools; the documents folder is seeded with
two fictional files. Both languages; the recipient corrected at confirmation; the resend asked on
a Monday; nothing found (a clear answer, nothing sent); a caller whose role may not send it.
"""

from __future__ import annotations

import json
import os

import orjson
import pytest

from hermesd_testing import NOBODY, as_nobody

DAY1 = "2024-06-12T10:00:00+08:00"   # Wednesday
DAY2 = "2024-06-19T10:00:00+08:00"   # the next Wednesday
MONDAY = "2024-06-17T09:00:00+08:00"  # 上周三 is still 2024-06-12


@pytest.fixture
def office(start_daemon):
    d = start_daemon({"server": {"socket_mode": "0666"}})
    docs = d.state_dir / "documents"
    docs.mkdir(parents=True, exist_ok=True)
    (docs / "报价单Q-2024-061.pdf").write_bytes(b"%PDF-1.4 quote 061")
    (docs / "合同HT-2024-0012.pdf").write_bytes(b"%PDF-1.4 contract 0012")
    return d


def _sent(d) -> list[dict]:
    manifest = d.state_dir / "outbox" / "manifest.jsonl"
    if not manifest.exists():
        return []
    return [json.loads(line) for line in manifest.read_text(encoding="utf-8").splitlines()]


def _turn(c, sid, text, at):
    return c.call("session.turn", {"session_id": sid, "text": text, "reference_time": at})


def _day1(c) -> None:
    sid = c.call("session.open", {"locale": "zh"})["session_id"]
    r = _turn(c, sid, "把报价单Q-2024-061发给张工", DAY1)
    assert r["path"] == "clarify"  # two engineers named 张: asked, never guessed
    pick = 1 + [x["anchor_id"] for x in r["reply"]["card"]["choices"]].index("person:sales/zhang")
    r = c.call("session.confirm", {"session_id": sid, "choice": pick})
    assert r["reply"]["card"]["fields"] == {"document": "报价单Q-2024-061.pdf", "recipient": "张伟"}
    r = _turn(c, sid, "好的", DAY1)
    assert r["reply"]["text"] == "已把报价单Q-2024-061.pdf发给张伟。"


def test_resend_last_wednesday_in_chinese(office):
    with office.client() as c:
        _day1(c)
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        r = _turn(c, sid, "把上周三发给张工的报价单再发一遍", DAY2)
        # the date resolved, 张工 anchored by memory, the document found in memory: no question asked
        assert r["intent"] == "doc.resend" and r["state"] == "CONFIRMING"
        assert r["reply"]["card"]["fields"] == {"document": "报价单Q-2024-061.pdf", "recipient": "张伟",
                                                "first_sent": "2024-06-12 10:00"}
        r = _turn(c, sid, "好的", DAY2)
        assert [a["tool"] for a in r["actions"] if a.get("tool")] == ["send_document"]
        assert r["reply"]["text"].startswith("已把报价单Q-2024-061.pdf重新发给张伟")
    sent = _sent(office)
    assert [(x["document"], x["recipient"]) for x in sent] == [("报价单Q-2024-061.pdf", "张伟")] * 2
    assert sent[1]["note"] == "resend" and sent[0]["sha256"] == sent[1]["sha256"]


def test_resend_in_english_and_asked_on_a_monday(office):
    with office.client() as c:
        _day1(c)
        sid = c.call("session.open", {"locale": "en"})["session_id"]
        r = _turn(c, sid, "resend the quote I sent Mr. Zhang last Wednesday", DAY2)
        assert r["reply"]["card"]["fields"]["document"] == "报价单Q-2024-061.pdf"
        assert r["reply"]["card"]["fields"]["recipient"] == "张伟"
        assert _turn(c, sid, "yes", DAY2)["reply"]["text"].startswith("Sent 报价单Q-2024-061.pdf to Zhang Wei (张伟) again")
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        r = _turn(c, sid, "把上周三发给张工的报价单再发一遍", MONDAY)  # Monday: 上周三 is still 06-12
        assert r["reply"]["card"]["fields"]["first_sent"] == "2024-06-12 10:00"
    assert len(_sent(office)) == 2  # the Monday question was not confirmed


def test_recipient_corrected_at_confirmation(office):
    with office.client() as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        r = _turn(c, sid, "把报价单Q-2024-061发给李经理", DAY1)
        assert r["reply"]["card"]["fields"]["recipient"] == "李娜"
        r = _turn(c, sid, "不对，发给王会计", DAY1)
        assert r["path"] == "correction" and r["reply"]["card"]["fields"]["recipient"] == "王芳"
        _turn(c, sid, "好的", DAY1)
    assert [x["recipient"] for x in _sent(office)] == ["王芳"]


def test_nothing_found_is_a_clear_answer_and_nothing_is_sent(office):
    with office.client() as c:
        _day1(c)
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        r = _turn(c, sid, "把上周五发给张伟的报价单再发一遍", DAY2)  # nothing was sent that Friday
        assert r["state"] == "LISTENING" and "没有找到" in r["reply"]["text"] and "没有发送" in r["reply"]["text"]
        assert not [a for a in r["actions"] if a.get("tool") == "send_document"]
    assert len(_sent(office)) == 1


@pytest.mark.skipif(os.geteuid() != 0 or NOBODY is None, reason="needs root (to setuid to nobody)")
def test_a_caller_whose_role_may_not_send_contracts(start_daemon):
    d = start_daemon({"server": {"socket_mode": "0666"}, "roles": {"user": {"uids": [NOBODY.pw_uid]}}})
    os.chmod(d.root, 0o755)
    docs = d.state_dir / "documents"
    docs.mkdir(parents=True, exist_ok=True)
    (docs / "合同HT-2024-0012.pdf").write_bytes(b"contract")
    open_line = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "session.open", "params": {"locale": "zh"}})
    # one connection as nobody: open, then ask to send a contract
    replies = as_nobody(str(d.socket), [open_line + b"\n"])
    sid = replies[0]["result"]["session_id"]
    turn = orjson.dumps({"jsonrpc": "2.0", "id": 2, "method": "session.turn",
                         "params": {"session_id": sid, "text": "把合同HT-2024-0012发给李经理", "reference_time": DAY1}})
    r = as_nobody(str(d.socket), [turn + b"\n"])[0]["result"]
    assert r["reply"]["text"] == "只有管理员可以发送合同，我没有发送任何文件。" and r["state"] == "LISTENING"
    assert not (d.state_dir / "outbox" / "manifest.jsonl").exists()


def test_a_reminder_fires_as_an_event(office):
    from datetime import datetime, timedelta, timezone

    two_minutes_ago = (datetime.now(timezone.utc) - timedelta(minutes=2)).isoformat()
    with office.client() as sub:
        sub.call("events.subscribe", {"kinds": ["reminder"]})
        with office.client() as c:
            sid = c.call("session.open", {"locale": "zh"})["session_id"]
            r = _turn(c, sid, "提醒我一分钟后给李经理打电话", two_minutes_ago)  # so it is due already
            assert [a["tool"] for a in r["actions"] if a.get("tool")] == ["reminder"], r
        ev = sub.read_notification(timeout_s=10)
    assert ev["params"]["kind"] == "reminder" and "李经理" in ev["params"]["data"]["text"]


def test_english_send_finds_a_file_named_in_chinese(office):
    with office.client() as c:
        sid = c.call("session.open", {"locale": "en"})["session_id"]
        r = _turn(c, sid, "send quote Q-2024-061 to Li Na", DAY1)
        assert r["reply"]["card"]["fields"] == {"document": "报价单Q-2024-061.pdf", "recipient": "李娜"}
        r = _turn(c, sid, "send the contract to Li Na", DAY1)  # a digression while confirming: a new send
        assert r["reply"]["card"]["fields"]["document"] == "合同HT-2024-0012.pdf"
        assert _turn(c, sid, "yes", DAY1)["reply"]["text"] == "Sent 合同HT-2024-0012.pdf to Li Na (李娜)."  # the English name beside the directory one
    assert [x["document"] for x in _sent(office)] == ["合同HT-2024-0012.pdf"]


def test_export_report_of_sent_documents_remembers_the_filter(office):
    import csv

    with office.client() as c:
        _day1(c)
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        r = _turn(c, sid, "导出上周的报表", DAY2)
        assert [a["tool"] for a in r["actions"] if a.get("tool")] == ["export_report"], r
        assert "1 条发送记录" in r["reply"]["text"]
        sid2 = c.call("session.open", {"locale": "zh"})["session_id"]
        r = _turn(c, sid2, "再导出一次", DAY2)  # another session, the remembered filter
        assert r["intent"] == "report.export" and "按上次的条件" in r["reply"]["text"], r
    report = office.state_dir / "outbox" / "reports" / "sent_2024-06-10_2024-06-17.csv"
    with report.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(x["object"], x["params.recipient"]) for x in rows] == [("报价单Q-2024-061.pdf", "张伟")]


def test_order_status_from_the_order_book(office):
    (office.state_dir / "documents" / "orders.jsonl").write_text(
        '{"order_id": "SO-20240612", "status": "已发货", "updated": "2024-06-13"}\n', encoding="utf-8")
    with office.client() as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        r = _turn(c, sid, "查一下订单号SO-20240612的状态", DAY2)
        assert r["reply"]["text"] == "订单SO-20240612：已发货（6月13日更新）。", r  # with its update date
        r = _turn(c, sid, "订单号SO-99999999到哪了", DAY2)
        assert r["reply"]["text"] == "本机订单簿里没有订单SO-99999999。", r


def test_the_issues_english_sentences_word_for_word(office):
    with office.client() as c:
        sid = c.call("session.open", {"locale": "en"})["session_id"]
        r = _turn(c, sid, "send quote Q-2024-061 to Zhang", DAY1)
        pick = 1 + [x["anchor_id"] for x in r["reply"]["card"]["choices"]].index("person:sales/zhang")
        r = c.call("session.confirm", {"session_id": sid, "choice": pick})
        assert r["reply"]["card"]["fields"] == {"document": "报价单Q-2024-061.pdf", "recipient": "张伟"}
        c.call("session.confirm", {"session_id": sid, "accept": True})
        sid = c.call("session.open", {"locale": "en"})["session_id"]
        r = _turn(c, sid, "resend the quote I sent Zhang last Wednesday", DAY2)
        assert "card" in r["reply"], r
        assert r["reply"]["card"]["fields"]["first_sent"] == "2024-06-12 10:00"
        assert r["reply"]["card"]["fields"]["recipient"] == "张伟"
