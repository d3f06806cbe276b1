"""A user whose every session holds an unanswered card is not locked out of a new one for the cards'
whole confirming_s (60 s): past cap_grace_s the card unanswered longest gives way — kept as a pending
task and offered in the new session, said in a log line and an event, nothing sent (a real daemon)."""

from __future__ import annotations

import time

import pytest

from hermesd import errors

AT = "2024-06-12T10:00:00+08:00"


def _turn(c, sid, text):
    return c.call("session.turn", {"session_id": sid, "text": text, "reference_time": AT})


def test_the_card_unanswered_longest_gives_way_after_the_grace(start_daemon):
    d = start_daemon({"session": {"max_sessions_per_user": 3, "cap_grace_s": 0.5}})  # confirming_s: 60 s
    docs = d.state_dir / "documents"
    docs.mkdir(parents=True, exist_ok=True)
    (docs / "报价单Q-2024-061.pdf").write_bytes(b"%PDF-1.4")
    (docs / "合同HT-2024-0012.pdf").write_bytes(b"%PDF-1.4")
    with d.client() as c:
        cards = []
        for locale, text in (("zh", "把报价单发给李经理"), ("en", "send the contract to Li Na"), ("zh", "把合同发给李经理")):
            sid = c.call("session.open", {"locale": locale})["session_id"]
            assert _turn(c, sid, text)["state"] == "CONFIRMING"
            cards.append(sid)
        with pytest.raises(errors.SessionLimit) as exc:  # every card was shown just now: still being read
            c.call("session.open", {"locale": "zh"})
        data = exc.value.data
        assert (data["reason"], data["open"], data["waiting"], data["running"]) == ("in_use", 3, 3, 0)
        assert 50 <= data["retry_after_ms"] <= 250 and "none is idle" in exc.value.message
        t0 = time.monotonic()
        while True:  # retried as the daemon says: room within the grace, never the cards' 60 s
            time.sleep(exc.value.data["retry_after_ms"] / 1000)
            try:
                opened = c.call("session.open", {"locale": "zh"})
                break
            except errors.SessionLimit as again:
                exc.value.data.update(again.data)
                assert time.monotonic() - t0 < 5, "locked out past the grace"
        assert time.monotonic() - t0 < 5
        # the oldest card is the one that went; the two newer cards still wait for their answers
        with pytest.raises(errors.SessionNotFound):
            c.call("session.get", {"session_id": cards[0]})
        for sid in cards[1:]:
            assert c.call("session.get", {"session_id": sid})["state"] == "CONFIRMING"
        # nothing committed is lost: the new session offers the dropped card's work, in words
        offer = opened["offer"]
        assert offer["intent"] == "doc.send" and offer["text"] == "上次“把报价单发给李经理”还没做完，要接着做吗？"
        line = d.log_line("session.evicted", cards[0])
        assert "reason=per_user_cap" in line and "dropped=confirm" in line, line
        assert "per-user cap" in d.log_line("session.close", cards[0])
        new = opened["session_id"]
        r = _turn(c, new, "好的")  # the offer taken: the same card again, nothing sent meanwhile
        assert r["state"] == "CONFIRMING" and not any(a.get("tool") == "send_document" for a in r["actions"])
        assert r["reply"]["card"]["fields"]["document"].startswith("报价单"), r["reply"]
        said = [(e["kind"], e["data"].get("reason")) for e in r.get("events", [])
                if e["data"].get("session_id") == cards[0]]
        assert ("confirmation_cancelled", "per_user_cap") in said and ("pending_task", None) in said, said
        sent = c.call("session.confirm", {"session_id": new, "accept": True})
        assert [a["tool"] for a in sent["actions"] if a.get("tool")] == ["send_document"]


def test_a_card_in_use_within_the_grace_and_a_running_turn_are_never_ended(start_daemon):
    """The same cap with a long grace: cards just shown are their person's; the refusal says so in a
    sentence with a stable code and no session is ended."""
    d = start_daemon({"session": {"max_sessions_per_user": 2, "cap_grace_s": 60.0}})
    with d.client() as c:
        sids = [c.call("session.open", {"locale": "en"})["session_id"] for _ in range(2)]
        for sid in sids:
            assert _turn(c, sid, "remind me to submit the report")["state"] != "IDLE"
        with pytest.raises(errors.SessionLimit) as exc:
            c.call("session.open", {"locale": "en"})
        assert exc.value.code == "SESSION_LIMIT" and exc.value.message.endswith("try again in a moment")
        for sid in sids:
            assert c.call("session.get", {"session_id": sid})["state"] == "LISTENING"
    assert "session.evicted" not in d.log()
