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
        _turn(c, sid, "记住我的门禁密码 8642975")  # said without 是: a note, whose key on disk is masked too
        _turn(c, sid, "remember my door code 5566731")
        trace = c.call("session.trace", {"session_id": sid})["traces"]
        assert all("hunter2xyz" not in str(t) and "abc123secret" not in str(t) for t in trace)
        assert any("***" in str(t.get("text")) for t in trace)
    log = d.log()
    assert "hunter2xyz" not in log and "8642975" not in log and "5566731" not in log
    assert d.stop() == 0
    conn = sqlite3.connect(next(d.state_dir.glob("*.sqlite3")))
    try:
        dump = "\n".join(conn.iterdump())
    finally:
        conn.close()
    assert "use token=***" in dump, "the turn log holds the redacted utterance"
    assert "hunter2xyz" not in dump and "abc123secret" not in dump
    assert "8642975" not in dump and "5566731" not in dump, "no secret is a note's key or subject on disk"
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


def test_an_offer_comes_after_the_answer_and_goes_once_moved_past(docs):
    d = docs({"session": {"confirming_s": 1.0}})
    with d.client() as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        assert _turn(c, sid, "把报价单发给李经理")["state"] == "CONFIRMING"
        assert _wait_state(c, sid, "IDLE") == "IDLE"  # the card timed out: the send is parked as a task
        opened = c.call("session.open", {"locale": "zh"})
        assert opened.get("offer"), opened
        r = _turn(c, opened["session_id"], "我想死")  # a caring sentence stands alone: no offer beside it
        assert r["decision"] == "distress" and "上次" not in r["reply"]["text"], r["reply"]
        r = _turn(c, opened["session_id"], "磁盘还剩多少")
        assert [a["tool"] for a in r["actions"] if a.get("tool")] == ["disk_usage"], r["reply"]
        lines = r["reply"]["text"].splitlines()
        # the answer first, then the offer naming the request, once
        assert "磁盘" in lines[0] and not lines[0].startswith("上次"), lines
        assert lines[-1] == "另外，上次“把报价单发给李经理”还没做完，要接着做吗？", lines
        assert r["decision"] == "digress" and r["state"] == "LISTENING"
        assert {"kind": "offer", "outcome": "waiting"}.items() <= next(
            a for a in r["actions"] if a.get("kind") == "offer").items()
        assert not c.call("session.open", {"locale": "zh"}).get("offer"), "said in one session, offered in no other"
        r = _turn(c, opened["session_id"], "系统状态怎么样")  # read, and moved past: withdrawn
        assert r["decision"] == "drop_task" and "上次" not in r["reply"]["text"], r["reply"]
        assert [a["tool"] for a in r["actions"] if a.get("tool")] == ["system_status"]
        r = _turn(c, opened["session_id"], "好的")
        assert r["decision"] == "nothing_open" and not any(a.get("tool") for a in r["actions"])


def test_an_offer_follows_the_language_of_the_turn_and_a_yes_takes_it_up(docs):
    d = docs({"session": {"confirming_s": 1.0}})
    with d.client() as c:
        _park_send(c, "zh", "把报价单发给李经理")
        sid = c.call("session.open", {})["session_id"]  # no locale: the turn's words say the language
        r = _turn(c, sid, "how much disk is left")
        lines = r["reply"]["text"].splitlines()
        assert not _CJK_RE.search(lines[0]) and "disk" in lines[0], lines
        # English words around the task; only its values (the document kind, the person) are Chinese
        assert lines[-1] == 'Also, last time "send documents (报价单, 李娜)" was left unfinished. ' \
                            "Shall I carry on with it?", lines
        r = _turn(c, sid, "yes")
        assert r["path"] == "pending_task" and r["state"] == "CONFIRMING", r["reply"]
        assert r["reply"]["text"].startswith("Send ") and r["reply"]["text"].endswith("?"), r["reply"]  # in English
        assert r["reply"]["card"]["fields"]["recipient"] == "李娜"


def test_a_request_that_asks_its_own_question_keeps_the_offer_for_later(docs):
    d = docs({"session": {"confirming_s": 1.0}})
    with d.client() as c:
        _park_send(c, "zh", "把报价单发给李经理")
        sid = c.call("session.open", {"locale": "en"})["session_id"]
        r = _turn(c, sid, "send the invoice to Wang Fang")
        # the new send's own card, with no offer beside it: two questions at once answer neither
        assert r["state"] == "CONFIRMING" and "Last time" not in r["reply"]["text"], r["reply"]
        assert r["reply"]["card"]["fields"]["recipient"] == "王芳"
        assert r["decision"] == "digress" and not any(a.get("kind") == "offer" for a in r["actions"])
        assert c.call("session.open", {"locale": "en"}).get("offer"), "not said, so still offered later"


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
        assert r["decision"] == "digress" and r["intent"] == "doc.send", r
        assert r["state"] == "CONFIRMING" and r["reply"]["card"]["fields"]["recipient"] == "李娜", r["reply"]
        assert "task" not in r["reply"]["card"]["fields"], "no value of the reminder was read into the send"


def test_chat_and_say_show_the_offer_after_the_answer(docs):
    """``hermesctl chat`` fed from a pipe: each line echoed after the prompt, a blank line skipped (the
    chat goes on), the offer after the first answer; ``say`` the same, and it keeps the session open
    for the answer to the offer."""
    import subprocess
    import sys

    from hermesd_testing import clean_env

    d = docs({"session": {"confirming_s": 1.0}})
    with d.client() as c:
        _park_send(c, "en", "send the quote to Li Na")
    ctl = [sys.executable, "-c", "from hermesd.cli import ctl_main; ctl_main()", "--socket", str(d.socket)]
    out = subprocess.run([*ctl, "chat"], input="how much disk is left\n\nno\n", capture_output=True, text=True,
                         env=clean_env(), timeout=120)
    assert out.returncode == 0, out.stderr
    said = out.stdout
    offer = 'Also, last time "send the quote to Li Na" was left unfinished.'
    assert said.index("you> how much disk is left\n") < said.index("disk") < said.index(offer), said
    assert said.index(offer) < said.index("you> no\n") < said.index("OK, cancelled."), said
    assert said.count("you> ") == 2, said  # the blank line was no turn, and no end
    with d.client() as c:
        _park_send(c, "zh", "把报价单发给李经理")
    out = subprocess.run([*ctl, "say", "what can you do"], capture_output=True, text=True, env=clean_env(), timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.index("I can help with") < out.stdout.index("Also, last time"), out.stdout
    assert "上次" not in out.stdout + out.stderr, (out.stdout, out.stderr)
    assert "answer with: hermesctl say --session" in out.stderr, out.stderr


def test_a_question_asked_again_is_said_whole_in_the_language_of_the_turn(docs):
    """A card or a choice asked again after an answer in the other language is worded in that language,
    prefix and question alike — never "请回答“是”或“不是”：Send …" or "回到刚才的问题：Which Zhang …"."""
    d = docs()
    with d.client() as c:
        sid = c.call("session.open", {})["session_id"]  # no locale: each turn's words say its language
        r = _turn(c, sid, "send the invoice to Wang Fang")
        assert r["state"] == "CONFIRMING" and r["reply"]["text"].startswith("Send "), r["reply"]
        r = _turn(c, sid, "好不好啊")
        text = r["reply"]["text"]
        assert r["state"] == "CONFIRMING" and text.startswith("请回答") and "发给王芳吗" in text, text
        assert "Send" not in text and r["reply"]["card"]["question"] in text, r["reply"]
        sid = c.call("session.open", {})["session_id"]
        r = _turn(c, sid, "把报价单发给张工")
        assert "哪一位" in r["reply"]["text"], r["reply"]
        r = _turn(c, sid, "what's the weather like")
        text = r["reply"]["text"]
        assert text.startswith("Please say a number or a name: Which 张工 do you mean?"), text
        assert not _CJK_RE.search(text.replace("张工", "").replace("张强", "").replace("张伟", "")), text
