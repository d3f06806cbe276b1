"""The dialogue manager through a real daemon: pack lexicons, session-local anchors across a restart,
the trace a technician reads, and the sentence a broken pack lexicon gets at reload."""

from __future__ import annotations

import signal
import time

import pytest

AT = "2024-06-12T10:00:00+08:00"


@pytest.fixture
def docs(start_daemon, tmp_path):
    def start(config=None, root=None):
        d = start_daemon(config or {}, root=root)
        folder = d.state_dir / "documents"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "报价单Q-2024-061.pdf").write_bytes(b"%PDF-1.4 quote")
        (folder / "发票INV-2024-0301.pdf").write_bytes(b"%PDF-1.4 invoice")
        return d
    return start


def _turn(c, sid, text):
    return c.call("session.turn", {"session_id": sid, "text": text, "reference_time": AT})


def test_a_pack_lexicon_adds_answer_words(docs, tmp_path):
    extra = tmp_path / "office.lexicon.yaml"
    extra.write_text("answers:\n  affirm:\n    zh: [准奏]\n    zh-Hant: [准奏]\n    en: [\"make it so\"]\n",
                     encoding="utf-8")
    d = docs({"session": {"lexicon_files": [str(extra)]}})
    with d.client() as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        assert _turn(c, sid, "把报价单发给李经理")["state"] == "CONFIRMING"
        r = _turn(c, sid, "准奏")
        assert r["decision"] == "resume" and [a["tool"] for a in r["actions"] if a.get("tool")] == ["send_document"]
        sid = c.call("session.open", {"locale": "en"})["session_id"]
        assert _turn(c, sid, "send the invoice to Li Na")["state"] == "CONFIRMING"
        assert _turn(c, sid, "make it so")["decision"] == "resume"


def test_without_the_pack_lexicon_the_word_is_not_a_yes(docs):
    d = docs()
    with d.client() as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        _turn(c, sid, "把报价单发给李经理")
        r = _turn(c, sid, "准奏")
        assert r["state"] == "CONFIRMING" and not any(a.get("tool") == "send_document" for a in r["actions"])


def test_a_chosen_person_sticks_across_a_restart(docs):
    d = docs()
    with d.client() as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        r = _turn(c, sid, "把报价单发给张工")
        assert r["reply"].get("card", {}).get("choices")
        pick = [x["anchor_id"] for x in r["reply"]["card"]["choices"]].index("person:rd/zhang")
        r = c.call("session.confirm", {"session_id": sid, "choice": pick + 1})
        assert r["reply"]["card"]["fields"]["recipient"] == "张强"
        _turn(c, sid, "好的")
    assert d.stop() == 0
    d2 = docs(root=d.root)
    with d2.client() as c:
        r = _turn(c, sid, "再把发票发给张工")
        assert "choices" not in r["reply"].get("card", {}), r["reply"]
        assert r["reply"]["card"]["fields"]["recipient"] == "张强"
        trace = c.call("session.trace", {"session_id": sid})["traces"][-1]
        assert "session_anchor" in trace["repairs"]
        # the trace says how the turn was read and decided, and which transitions it took
        assert trace["decision"] == "new_turn" and trace["reading"]["act"] == "request"
        assert ["LISTENING", "text", "PARSING"] in trace["transitions"]
    # a new session asks again: the choice was this session's, not the user's forever
    with d2.client() as c:
        sid2 = c.call("session.open", {"locale": "zh"})["session_id"]
        assert _turn(c, sid2, "把发票发给张工")["reply"]["card"].get("choices")


def test_a_broken_pack_lexicon_at_reload_keeps_the_running_one(docs, tmp_path):
    extra = tmp_path / "x.lexicon.yaml"
    extra.write_text("answers:\n  affirm:\n    zh: [准奏]\n    zh-Hant: [准奏]\n    en: [fine by me]\n", encoding="utf-8")
    d = docs({"session": {"lexicon_files": [str(extra)]}})
    extra.write_text("answers:\n  afirm:\n    zh: [行吧]\n", encoding="utf-8")
    d.signal(signal.SIGHUP)
    deadline = time.monotonic() + 30
    while "answer lexicon rejected" not in d.log() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "answer lexicon rejected" in d.log()
    with d.client() as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        _turn(c, sid, "把报价单发给李经理")
        assert _turn(c, sid, "准奏")["decision"] == "resume"


def test_secrets_typed_by_the_user_are_not_stored_in_the_clear(docs):
    import sqlite3

    import zstandard

    d = docs()
    with d.client() as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        _turn(c, sid, "我的密码是hunter2xyz，帮我记一下")
        _turn(c, sid, "use token=abc123secret for the upload")
        trace = c.call("session.trace", {"session_id": sid})["traces"]
        assert all("hunter2xyz" not in str(t) and "abc123secret" not in str(t) for t in trace)
        assert any("***" in str(t.get("text")) for t in trace)
    assert d.stop() == 0
    conn = sqlite3.connect(next(d.state_dir.glob("*.sqlite3")))
    try:
        dump = "\n".join(conn.iterdump())
    finally:
        conn.close()
    assert "use token=***" in dump, "the turn log holds the redacted utterance"
    assert "hunter2xyz" not in dump and "abc123secret" not in dump
    d2 = docs(root=d.root)
    with d2.client() as c:
        c.call("session.close", {"session_id": sid})
    volumes = list((d2.state_dir / "archive").rglob("*.zst"))
    assert volumes, "the ended session was archived"
    for v in volumes:
        with zstandard.ZstdDecompressor().stream_reader(v.open("rb")) as r:
            text = r.read().decode("utf-8", "replace")
        assert "hunter2xyz" not in text and "abc123secret" not in text


def _wait_state(c, sid, state, limit_s=15):
    deadline = time.monotonic() + limit_s
    while c.call("session.get", {"session_id": sid})["state"] != state and time.monotonic() < deadline:
        time.sleep(0.1)
    return c.call("session.get", {"session_id": sid})["state"]


def test_an_offer_the_user_moves_past_is_withdrawn_and_the_request_handled(docs):
    d = docs({"session": {"confirming_s": 1.0}})
    with d.client() as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        assert _turn(c, sid, "把报价单发给李经理")["state"] == "CONFIRMING"
        assert _wait_state(c, sid, "IDLE") == "IDLE"  # the card timed out: the send is parked as a task
        opened = c.call("session.open", {"locale": "zh"})
        assert opened.get("offer"), opened
        r = _turn(c, opened["session_id"], "磁盘还剩多少")
        assert [a["tool"] for a in r["actions"] if a.get("tool")] == ["disk_usage"], r["reply"]
        assert "是" not in r["reply"]["text"][:6] and r["decision"] == "drop_task"
        assert not c.call("session.open", {"locale": "zh"}).get("offer"), "withdrawn, not offered again"


def test_a_card_keeps_its_own_timeout_across_a_restart(docs):
    d = docs({"session": {"confirming_s": 3.0}})
    with d.client() as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        assert _turn(c, sid, "把报价单发给李经理")["state"] == "CONFIRMING"
    time.sleep(2.0)
    assert d.stop() == 0
    time.sleep(1.5)  # the card's 3 s ran out while the daemon was down
    d2 = docs({"session": {"confirming_s": 3.0}}, root=d.root)
    with d2.client() as c:
        r = _turn(c, sid, "好的")
        assert not [a for a in r["actions"] if a.get("tool") == "send_document"], r
        assert r["decision"] == "expired", r["reply"]
    assert not (d2.state_dir / "outbox" / "manifest.jsonl").exists()


@pytest.mark.parametrize("split", [True, False])
def test_several_requests_are_split_unless_the_config_keeps_utterances_whole(start_daemon, split):
    d = start_daemon({"session": {"split_requests": split}})
    with d.client() as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        r = _turn(c, sid, "先查一下磁盘，然后看看系统状态")
        tools = [a["tool"] for a in r["actions"] if a.get("tool")]
        assert (r.get("decision") == "split") == split
        # kept whole, the utterance is one request: one tool runs
        assert tools == ["disk_usage", "system_status"] if split else len(tools) == 1


_CJK_RE = __import__("re").compile(r"[\u3400-\u9fff]")


def _park_send(c, locale="zh", text="把报价单发给李经理"):
    """A card left to time out: its send is parked as a pending task."""
    sid = c.call("session.open", {"locale": locale})["session_id"]
    assert _turn(c, sid, text)["state"] == "CONFIRMING"
    assert _wait_state(c, sid, "IDLE") == "IDLE"


def test_an_offer_is_a_sentence_in_the_sessions_language(docs):
    d = docs({"session": {"confirming_s": 1.0}})
    with d.client() as c:
        _park_send(c, "zh", "把报价单发给李经理")
        opened = c.call("session.open", {"locale": "en"})
        text = opened["offer"]["text"]
        # English words around the task; only its values (the document kind, the person) may be Chinese
        assert text.startswith("Last time") and text.endswith("?"), text
        assert not _CJK_RE.search(__import__("re").sub(r"\(.*?\)", "", text)), text
        assert "李娜" in text and "把报价单" not in text
        _turn(c, opened["session_id"], "no")
        _park_send(c, "en", "send the invoice to Li Na")
        opened = c.call("session.open", {})  # no locale: the language the task was asked in
        assert opened["offer"]["text"] == 'Last time, "send the invoice to Li Na" was left unfinished. ' \
                                          "Shall I carry on with it?"


def test_values_said_to_an_offer_in_another_request_are_that_request(docs):
    d = docs({"session": {"listening_s": 1.0, "confirming_s": 1.0}})
    with d.client() as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        assert _turn(c, sid, "提醒我给妈妈打电话")["state"] == "LISTENING"  # "when?" left unanswered
        assert _wait_state(c, sid, "IDLE") == "IDLE"
        opened = c.call("session.open", {"locale": "zh"})
        assert opened["offer"]["intent"] == "reminder.set"
        r = _turn(c, opened["session_id"], "把报价单发给李经理")
        assert r["decision"] == "drop_task" and r["intent"] == "doc.send", r
        assert r["state"] == "CONFIRMING" and r["reply"]["card"]["fields"]["recipient"] == "李娜", r["reply"]
        assert not c.call("session.open", {"locale": "zh"}).get("offer"), "the offer is made once"


def test_chat_shows_the_offer_before_the_first_line(docs):
    import subprocess
    import sys

    from hermesd_testing import clean_env

    d = docs({"session": {"confirming_s": 1.0}})
    with d.client() as c:
        _park_send(c, "en", "send the quote to Li Na")
    out = subprocess.run([sys.executable, "-c", "from hermesd.cli import ctl_main; ctl_main()", "--socket",
                          str(d.socket), "chat"], input="\n", capture_output=True, text=True, env=clean_env(),
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert 'Last time, "send the quote to Li Na" was left unfinished.' in out.stdout, (out.stdout, out.stderr)
