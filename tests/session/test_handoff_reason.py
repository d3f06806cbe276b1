"""A hand-off's reason is a template: the colleague who takes over reads what was asked, with its time.

A real daemon on the shipped packs: "restart the device tonight at 11" is confirmed, then handed to a
technician; the ``handoff`` event (here on the reply, nobody subscribes) carries the time said. Before, the
reason was the rule's text as written: "reboot is done by a technician, at {{entities.when.point}}".
"""

from __future__ import annotations

AT = "2031-03-12T20:00:00+08:00"


def _handoff_reasons(c, sid: str, texts: list[str]) -> list[str]:
    reply = {}
    for text in texts:
        reply = c.call("session.turn", {"session_id": sid, "text": text, "reference_time": AT})
    return [e["data"]["reason"] for e in reply.get("events", []) if e["kind"] == "handoff"]


def test_a_reboot_at_a_time_is_handed_on_with_that_time(start_daemon):
    d = start_daemon()
    with d.client() as c:
        sid = c.call("session.open", {"locale": "en"})["session_id"]
        assert _handoff_reasons(c, sid, ["restart the device tonight at 11", "yes"]) == [
            "reboot is done by a technician, at 2031-03-12T23:00:00+08:00"]
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        assert _handoff_reasons(c, sid, ["重启设备", "好的"]) == ["reboot is done by a technician"]
