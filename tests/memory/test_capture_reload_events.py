"""Capture rules reloaded on SIGHUP, and ``memory.updated`` to an ``events.subscribe`` subscriber
(issue 13 §1 and §4), against a real daemon."""

from __future__ import annotations

import signal
import time

import orjson


def _turn(c, sid: str, text: str) -> dict:
    return c.call("session.turn", {"session_id": sid, "text": text})


def _hup(d, count: int) -> None:
    """SIGHUP, then wait until the daemon logged its ``count``-th finished reload."""
    d.signal(signal.SIGHUP)
    deadline = time.monotonic() + 30
    while d.log().count("config.reloaded") < count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert d.log().count("config.reloaded") >= count, d.log()[-2000:]


def _found(c, word: str) -> list:
    return c.call("memory.search", {"query": word, "k": 5})["items"]


def test_a_pack_capture_rule_applies_after_sighup_and_a_broken_file_keeps_it(start_daemon, tmp_path):
    rules = tmp_path / "pack.capture.yaml"
    rules.write_text("memory_verbs: []\n", encoding="utf-8")
    d = start_daemon({"session": {"capture_files": [str(rules)]}})
    with d.client() as c:
        sid = c.call("session.open", {"locale": "en"})["session_id"]
        _turn(c, sid, "jot down: kayak stored behind the boathouse")
        assert _found(c, "kayak") == []  # "jot down" is no memory verb yet: nothing kept
        rules.write_text("memory_verbs: [jot down]\n", encoding="utf-8")
        _hup(d, 1)
        _turn(c, sid, "jot down: canoe paddles in the garage loft")
        hit = _found(c, "canoe")
        assert hit and "garage loft" in hit[0]["summary"] and "remember" in hit[0]["actions"]
        rules.write_text("memory_verbs: [jot down\n", encoding="utf-8")  # not YAML
        _hup(d, 2)
        assert "capture rules rejected" in d.log()
        _turn(c, sid, "jot down: snorkel set under the stairs")
        assert _found(c, "snorkel"), "the running capture rules kept working"


def test_memory_updated_reaches_a_subscriber_without_the_value(start_daemon):
    d = start_daemon({})
    with d.client() as sub:
        assert sub.call("events.subscribe", {"kinds": ["memory.updated"]})["backlog"] == 0
        with d.client() as c:
            sid = c.call("session.open", {"locale": "en"})["session_id"]
            _turn(c, sid, "remember that my desk number is D-4471")
            ev = sub.read_notification(timeout_s=10)
            _turn(c, sid, "remember that my desk number is D-5502")
            upd = sub.read_notification(timeout_s=10)
            assert _turn(c, sid, "forget my desk number")["state"] == "CONFIRMING"
            _turn(c, sid, "yes")
            gone = sub.read_notification(timeout_s=10)
    for e in (ev, upd, gone):
        assert e["method"] == "event" and e["params"]["kind"] == "memory.updated"
        blob = orjson.dumps(e).decode()
        assert "D-4471" not in blob and "D-5502" not in blob  # never the value
    first, second = ev["params"]["data"], upd["params"]["data"]
    assert first["kind"] == "fact" and first["anchor"] == second["anchor"] and first["anchor"].startswith("fact:")
    assert second["version"] > first["version"] and first["session_id"] == sid
    assert gone["params"]["data"]["kind"] == "forget" and gone["params"]["data"]["anchor"] == first["anchor"]
