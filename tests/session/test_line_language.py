"""The parts of one line speak one language (h/multi): in a session with no locale, a line led by Chinese
is answered in Chinese to its end — the follow-up that its card held too — and a line led by English in
English, whatever language its later parts are written in; the second request keeps the time said in it."""

from __future__ import annotations

import pytest

AT = "2026-12-03T10:00:00+08:00"


@pytest.fixture
def daemon_docs(start_daemon):
    d = start_daemon({})
    folder = d.state_dir / "documents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "合同HT-2024-0012.pdf").write_bytes(b"%PDF-1.4 contract")
    return d


def _turn(c, sid, text):
    return c.call("session.turn", {"session_id": sid, "text": text, "reference_time": AT})


def _zh(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text.replace("李娜", "").replace("合同HT-2024-0012.pdf", ""))


@pytest.mark.parametrize("line,answer,lang", [
    ("把合同发给李娜 and remind me tomorrow at 9 to call her", "好", "zh"),
    ("把合同发给李娜，然后提醒我明天九点给她打电话", "好的", "zh"),
    ("send the contract to Li Na, 然后提醒我明天九点给她打电话", "yes", "en"),
    ("send the contract to Li Na and remind me tomorrow at 9 to call her", "yes", "en"),
])
def test_the_follow_up_speaks_the_lines_language_and_keeps_its_time(daemon_docs, line, answer, lang):
    with daemon_docs.client() as c:
        sid = c.call("session.open", {})["session_id"]
        r = _turn(c, sid, line)
        assert r["state"] == "CONFIRMING" and _zh(r["reply"]["text"]) == (lang == "zh"), r["reply"]
        r = _turn(c, sid, answer)
        assert [a["tool"] for a in r["actions"] if a.get("tool")] == ["send_document", "reminder"], r
        text = r["reply"]["text"]
        sent, reminded = text.split("\n")[:2]
        assert _zh(sent) == (lang == "zh") and _zh(reminded.split("（")[0].replace("给李娜打电话", "")) == (lang == "zh"), text
        assert "09:00" in text and "When should" not in text and "什么时候提醒" not in text, text
