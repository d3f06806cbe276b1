"""Erasing a user's own memory on real SQLite (MemoryService over L1/L2): what is counted when the user
is asked is exactly what goes, the send history alone leaves the facts, nothing stored after the
question is lost, and every erasure has its audit row and [MCP] line."""

from __future__ import annotations

import logging

from hermesd.memory.facts import SEND_ACTION

UID, OTHER = 1000, 1001


async def _audit(svc) -> list[tuple]:
    return await svc.l2.aread(lambda c: c.execute(
        "SELECT action, source, subject, detail, uid FROM audit WHERE action='forget' ORDER BY id").fetchall())


async def _seed(svc) -> None:
    await svc.put(UID, f"user:{UID}", "fact:车位号", {"subject": "车位号", "value": "B2-117"}, durable=True)
    await svc.put(UID, f"user:{UID}", "note:买牛奶", {"subject": "买牛奶", "value": "买牛奶"}, durable=True)
    await svc.put(UID, "s1", "person:sales/zhang", {"phone": "2"}, durable=True)
    for doc in ("Q-1", "Q-2"):
        await svc.record_event(UID, "s1", actor=f"uid:{UID}", action=SEND_ACTION, object=doc, at_ms=1)
    await svc.record_event(UID, "s1", actor=f"uid:{UID}", action="reminder", object="r1", at_ms=1)
    await svc.record_event(OTHER, "s9", actor=f"uid:{OTHER}", action=SEND_ACTION, object="Q-9", at_ms=1)
    await svc.l2.awrite(lambda c: None)  # barrier: events are written in the next batch


async def test_counts_say_what_each_erasure_takes(service) -> None:
    await _seed(service)
    every = await service.count_user(UID)
    assert (every["facts"], every["notes"], every["other"], every["events"]) == (1, 1, 1, 3)
    sent = await service.count_user(UID, SEND_ACTION)
    assert sent["events"] == 2  # the reminder is history, not send history


async def test_the_send_history_goes_alone_and_the_facts_stay(service, caplog) -> None:
    caplog.set_level(logging.INFO, logger="hermesd")
    await _seed(service)
    asked = await service.count_user(UID, SEND_ACTION)
    assert await service.forget_history(UID, SEND_ACTION, asked["max_event"]) == 2
    left = await service.count_user(UID)
    assert (left["facts"], left["notes"], left["other"], left["events"]) == (1, 1, 1, 1)
    assert (await service.count_user(OTHER, SEND_ACTION))["events"] == 1  # another user's history stays
    assert await service.get(UID, f"user:{UID}", "fact:车位号") is not None
    assert await _audit(service) == [("forget", f"user:{UID}", "history:send_document", "history events=2", UID)]
    assert any("ACTION=forget" in r.getMessage() and r.__dict__.get("kv", {}).get("subject") == "history:send_document"
               for r in caplog.records)


async def test_what_is_stored_after_the_question_is_kept(service) -> None:
    await _seed(service)
    asked = await service.count_user(UID)
    # another session of the same user sends and remembers while the question is open
    await service.record_event(UID, "s2", actor=f"uid:{UID}", action=SEND_ACTION, object="Q-3", at_ms=2)
    await service.put(UID, f"user:{UID}", "fact:工位", {"subject": "工位", "value": "7楼"}, durable=True)
    await service.l2.awrite(lambda c: None)
    got = await service.forget_user(UID, (asked["max_summary"], asked["max_event"]))
    assert got == {"summaries": 3, "events": 3}
    left = await service.count_user(UID)
    assert (left["facts"], left["events"]) == (1, 1)
    assert (await service.get(UID, f"user:{UID}", "fact:工位"))["data"]["value"] == "7楼"
    assert await _audit(service) == [("forget", f"user:{UID}", "*", "everything summaries=3 events=3", UID)]


async def test_the_whole_history_goes_with_every_action(service) -> None:
    await _seed(service)
    asked = await service.count_user(UID)
    assert await service.forget_history(UID, None, asked["max_event"]) == 3
    left = await service.count_user(UID)
    assert (left["facts"], left["notes"], left["events"]) == (1, 1, 0)
