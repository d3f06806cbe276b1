"""MCP: capture rule, compression, audit lines, decay per class, forget, retrieval and ranking."""

from __future__ import annotations

import logging
import math
import re
from datetime import datetime

import pytest
from memory_helpers import T0_MS

from hermesd.memory import records

UID = 1000
ZHANG = "person:sales/zhang"
AUDIT_LINE = re.compile(r"^\[MCP\] ACTION=(\w+) SOURCE=(\S+) TARGET=(\S+) SIZE_BEFORE=(\d+) SIZE_AFTER=(\d+)$")
HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS


def ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso).timestamp() * 1000)


def mcp_lines(caplog: pytest.LogCaptureFixture) -> list[tuple[str, ...]]:
    return [m.groups() for r in caplog.records if (m := AUDIT_LINE.match(r.getMessage()))]


async def audit_rows(svc) -> list[tuple]:
    await svc.l2.awrite(lambda c: None)  # barrier: audit rows are written in the next batch
    return await svc.l2.aread(lambda c: c.execute(
        "SELECT action, source, target, size_before, size_after FROM audit ORDER BY id").fetchall())


SEND_TURN = {
    "text": "把报价单发给张工",
    "intent": "send_document",
    "entities": [{"type": "person", "value": "张工", "anchor": ZHANG}, {"type": "doc_type", "value": "报价单"}],
    "tool_result": {"action": "send", "object": "Q-2024-061", "object_kind": "报价单", "target_anchor": ZHANG,
                    "status": "sent", "channel": "email", "attachments": [{"name": "Q-2024-061.pdf",
                                                                            "bytes": 48213}]},
}


async def test_capture_only_what_carries_entity_verb_or_tool_result(service, caplog) -> None:
    caplog.set_level(logging.INFO, logger="hermesd")
    assert await service.capture(UID, "s1", {"text": "你好"}) is None
    assert mcp_lines(caplog) == []
    got = await service.capture(UID, "s1", {"text": "记住 周五下午开周会"}, durable=True)
    assert got["reason"] == "memory_verb"
    assert got["slot"]["data"]["summary"] == "用户1000在2024-06-19 09:00执行remember操作，结果为周五下午开周会"
    got = await service.capture(UID, "s1", {"text": "remind me to call Li", "entities": []})
    assert got["reason"] == "memory_verb"
    got = await service.capture(UID, "s1", {"text": "张工的电话", "entities": [
        {"type": "person", "value": "张工", "anchor": ZHANG}]})
    assert got["reason"] == "entity" and got["slot"]["anchor"] == ZHANG


async def test_compress_writes_audit_row_and_line(service, caplog) -> None:
    caplog.set_level(logging.INFO, logger="hermesd")
    got = await service.capture(UID, "s1", SEND_TURN, at_ms=ms("2024-06-12T10:00+08:00"), durable=True)
    assert got["event_id"] is not None
    body = got["slot"]["data"]
    assert body["summary"] == "用户1000在2024-06-12 10:00执行send操作，结果为sent 报价单 Q-2024-061 →person:sales/zhang"
    assert body["actions"] == ["send"] and body["entities"]["doc_type"] == ["报价单"]
    lines = mcp_lines(caplog)
    assert [line[:3] for line in lines] == [("capture", "s1", "memory"), ("compress", "s1", "memory_l1"),
                                            ("decay", "s1", "memory_l1")]
    _, _, _, before, after = lines[1]
    assert int(after) < int(before)
    assert [r[:3] for r in await audit_rows(service)] == [("capture", "s1", "memory"),
                                                           ("compress", "s1", "memory_l1"),
                                                           ("decay", "s1", "memory_l1")]
    assert (await audit_rows(service))[1][3:] == (int(before), int(after))


async def test_signature_example_found_first(service) -> None:
    """After "sent 报价单 Q-2024-061 to person:sales/zhang at 2024-06-12 10:00 +08:00",
    anchor + action send + kind 报价单 + that day returns it first."""
    def send(obj: str, kind: str, target: str, at: str) -> dict:
        return {"text": f"发{kind}", "tool_result": {"action": "send", "object": obj, "object_kind": kind,
                                                     "target_anchor": target, "status": "sent"}, "_at": at}

    turns = [
        send("Q-2024-055", "报价单", ZHANG, "2024-06-05T15:00+08:00"),   # a week earlier
        send("Q-2024-061", "报价单", ZHANG, "2024-06-12T10:00+08:00"),   # the one
        send("C-2024-009", "合同", ZHANG, "2024-06-12T11:00+08:00"),     # same day, other kind
        send("Q-2024-062", "报价单", "person:rd/zhang", "2024-06-12T10:30+08:00"),  # the other 张工
        send("Q-2024-070", "报价单", ZHANG, "2024-06-13T09:00+08:00"),   # the next day
    ]
    for t in turns:
        at = t.pop("_at")
        await service.capture(UID, "s-week-ago", t, at_ms=ms(at))
    await service.record_event(UID, "s-week-ago", actor=f"user:{UID}", action="view", object="Q-2024-061",
                               object_kind="报价单", target_anchor=ZHANG, at_ms=ms("2024-06-12T12:00+08:00"),
                               durable=True)
    # a week later, in a new session
    hits = await service.search(UID, anchors=[ZHANG], action="send", kind="报价单",
                                since="2024-06-12T00:00:00+08:00", until="2024-06-13T00:00:00+08:00")
    assert hits[0]["type"] == "event" and hits[0]["object"] == "Q-2024-061"
    assert hits[0]["at_ms"] == ms("2024-06-12T10:00+08:00")
    assert [h["object"] for h in hits if h["type"] == "event"] == ["Q-2024-061"]
    by_text = await service.search(UID, query="Q-2024-061")
    assert by_text[0]["type"] == "event" and by_text[0]["object"] == "Q-2024-061"


async def test_ranking_is_raw_times_time_decay(service, wall) -> None:
    for hours_ago in (10, 1000, 100):
        await service.record_event(UID, "s", actor="u", action="send", object=f"合同 {hours_ago}",
                                   object_kind="合同", target_anchor=ZHANG, at_ms=T0_MS - hours_ago * HOUR_MS)
    hits = await service.search(UID, query="合同", k=3)
    assert [h["object"] for h in hits] == ["合同 10", "合同 100", "合同 1000"]
    for h, hours in zip(hits, (10, 100, 1000)):
        assert h["score"] == pytest.approx(1.0 * math.exp(-0.001 * hours))
    assert len(await service.search(UID, query="合同")) == 3  # k defaults to 3


async def test_chinese_substrings_match_short_and_long(service) -> None:
    await service.capture(UID, "s", {"text": "记住 下周二去深圳见客户"}, durable=True)
    for q in ("深圳", "见客户", "下周二去深圳"):
        hits = await service.search(UID, query=q)
        assert hits and "深圳" in hits[0]["summary"], q
    assert await service.search(UID, query="北京") == []


async def test_decay_demotes_idle_scratch_only(service, caplog) -> None:
    caplog.set_level(logging.INFO, logger="hermesd")
    core = service.core
    await service.put(UID, "s", "scratch:idle", {"v": 1}, durable=True)
    await service.put(UID, "s", "scratch:busy", {"v": 2})
    await service.put(UID, "s", ZHANG, {"phone": "1"}, memory_class="person")
    assert (await core.decay())["demoted"] == 0  # all were touched in the window that just ended
    await service.get(UID, "s", "scratch:busy")
    caplog.clear()
    assert (await core.decay())["demoted"] == 1
    assert core.l1.peek((UID, "s", "scratch:idle")) is None
    assert core.l1.peek((UID, "s", "scratch:busy")) is not None
    assert core.l1.peek((UID, "s", ZHANG)) is not None  # person facts are kept
    assert [line[:3] for line in mcp_lines(caplog)] == [("demote", "s", "memory_l2")]
    assert (await service.get(UID, "s", "scratch:idle"))["data"] == {"v": 1}  # still in L2
    assert "hermes_mcp_decay_last_run_timestamp_seconds 1718758800.000" in service.metrics_text()


async def test_decay_deletes_closed_projects_after_30_days(service, wall, caplog) -> None:
    caplog.set_level(logging.INFO, logger="hermesd")
    await service.put(UID, "s", "doc:old", {"v": 1}, memory_class="project", project="P-old")
    await service.put(UID, "s", "doc:new", {"v": 2}, memory_class="project", project="P-new")
    await service.put(UID, "s", "doc:open", {"v": 3}, memory_class="project", project="P-open")
    await service.core.close_project("P-old", T0_MS - 31 * DAY_MS)
    await service.core.close_project("P-new", T0_MS - 29 * DAY_MS)
    caplog.clear()
    assert (await service.core.decay())["deleted"] == 1
    assert await service.get(UID, "s", "doc:old") is None
    assert await service.get(UID, "s", "doc:new") is not None and await service.get(UID, "s", "doc:open") is not None
    assert ("decay", "s", "deleted") in [line[:3] for line in mcp_lines(caplog)]


async def test_decay_reverifies_person_anchors_after_90_days(service, wall, caplog) -> None:
    caplog.set_level(logging.INFO, logger="hermesd")
    made = await service.resolve("赵工", context={"dept": "qa", "email": "zhao@example.com"})
    assert made.status == "resolved" and made.via == "created"
    assert (await service.core.decay())["verified"] == 0
    wall.ms += 91 * DAY_MS
    caplog.clear()
    result = await service.core.decay()
    n_dir = len(service.graph.directory.people)
    assert result["verified"] == n_dir + 1
    outcomes = {line[1]: line for line in mcp_lines(caplog) if line[0] == "decay"}
    assert outcomes.keys() >= {ZHANG, made.anchor_id}
    assert service.graph.get(made.anchor_id).attributes["stale"] is True
    assert service.graph.get(ZHANG).verified_ms == wall.ms


async def test_forget_erases_everywhere_and_marks_l3(service, caplog) -> None:
    caplog.set_level(logging.INFO, logger="hermesd")
    await service.capture(UID, "s1", SEND_TURN, durable=True)
    await service.put(UID, "s2", ZHANG, {"phone": "2"}, durable=True)
    await service.put(UID, "s2", "person:sales/li", {"phone": "3"}, durable=True)
    caplog.clear()
    counts = await service.forget(ZHANG, UID)
    assert counts["summaries"] == 2 and counts["events"] == 1 and counts["l1_bytes"] > 0
    assert await service.get(UID, "s1", ZHANG) is None and await service.get(UID, "s2", ZHANG) is None
    assert await service.search(UID, anchors=[ZHANG]) == []
    assert await service.get(UID, "s2", "person:sales/li") is not None
    marks = await service.l2.aread(lambda c: c.execute("SELECT anchor, uid FROM forgotten").fetchall())
    assert marks == [(ZHANG, UID)]
    assert [line[:3] for line in mcp_lines(caplog)] == [("forget", ZHANG, "memory_l1,memory_l2,memory_l3")]


async def test_l2_catches_up_within_one_batch(service) -> None:
    v1 = await service.put(UID, "s", "k", {"n": 1})
    v2 = await service.put(UID, "s", "k", {"n": 2})
    assert v2["version"] > v1["version"] and v2["tier"] == "l1"
    await service.l2.awrite(lambda c: None)
    row = await service.l2.aread(records.get_summary, UID, "s", "k")
    assert row["data"] == {"n": 2} and row["version"] == v2["version"]
    # a stale version never overwrites a newer row in L2
    stale = {**row, "version": v1["version"], "data": {"n": 1}}
    assert await service.l2.awrite(records.upsert_summary, stale) is False


async def test_explicit_put_is_audited(service, caplog) -> None:
    caplog.set_level(logging.INFO, logger="hermesd")
    await service.put(UID, "s9", ZHANG, {"phone": "139"}, durable=True)
    assert mcp_lines(caplog) == [("capture", "s9", "memory_l1", "15", "15")]  # {"phone":"139"}
    assert (await audit_rows(service))[-1] == ("capture", "s9", "memory_l1", 15, 15)


async def test_keyword_index_follows_rewrites(service) -> None:
    await service.put(UID, "s", "person:sales/li", {"city": "深圳南山"})
    await service.put(UID, "s", "person:sales/li", {"city": "深圳南山"})  # same text: not re-indexed
    assert [h["anchor"] for h in await service.search(UID, query="深圳南山")] == ["person:sales/li"]
    await service.put(UID, "s", "person:sales/li", {"city": "北京海淀"}, durable=True)
    assert await service.search(UID, query="深圳南山") == []
    assert [h["data"] for h in await service.search(UID, query="北京海淀")] == [{"city": "北京海淀"}]
    await service.forget("person:sales/li", UID)

    def check(conn) -> None:  # raises SQLITE_CORRUPT_VTAB if the index disagrees with its table
        conn.execute("INSERT INTO summaries_fts (summaries_fts) VALUES ('integrity-check')")
        conn.execute("INSERT INTO events_fts (events_fts) VALUES ('integrity-check')")

    await service.l2.aread(check)
