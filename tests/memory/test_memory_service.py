"""MemoryService: methods, hidden fields, sessions / stored replies / pending tasks for the controller."""

from __future__ import annotations

from pathlib import Path

import pytest
from memory_helpers import FakeClock, FakeWall, T0_MS, ctx, start_service

from hermesd.errors import InputInvalid
from hermesd.subsystems.memory import ForgetParams, GetParams, PutParams, SearchParams
from hermesd.memory.settings import MemorySettings
from hermesd.subsystems.subsystem import DaemonContext

UID = 1000


def test_settings_defaults_and_validation() -> None:
    s = MemorySettings()
    assert s.l1.max_bytes == 8 * 1024 * 1024 and s.l2.batch_ms == 50 and s.l2.journal_mode == "truncate"
    assert s.l2.synchronous == "full" and s.l2.busy_timeout_ms >= 2000 and s.default_k == 3
    with pytest.raises(ValueError, match="unsafe"):
        MemorySettings.model_validate({"l2": {"journal_mode": "off"}})
    with pytest.raises(ValueError):
        MemorySettings.model_validate({"l2": {"journal_mode": "wal", "unsafe": True}})
    with pytest.raises(ValueError):
        MemorySettings.model_validate({"l1": {"max_byte": 1}})  # unknown key
    assert MemorySettings.model_validate({"l2": {"journal_mode": "off", "unsafe": True}}).l2.unsafe


async def test_start_from_daemon_context_puts_l2_in_state_dir(tmp_path: Path) -> None:
    from hermesd.subsystems.memory import MemoryService

    svc = MemoryService(run_decay=False)
    await svc.start(DaemonContext(config=object(), state_dir=tmp_path, subsystems={}))  # type: ignore[arg-type]
    try:
        assert (tmp_path / "l2.sqlite3").is_file()
        assert svc.health()["status"] == "ok"
        assert "hermes_mcp_l1_hit_ratio" in svc.metrics_text()
    finally:
        await svc.stop()
    assert svc.health()["status"] == "down"


async def test_methods_round_trip_and_hidden_fields(tmp_path: Path, clock: FakeClock, wall: FakeWall) -> None:
    svc = await start_service(tmp_path, clock, wall, hidden_fields={"user": ["data.phone", "payload"]})
    try:
        m = {x.name: x for x in svc.methods()}
        assert set(m) == {"memory.get", "memory.put", "memory.search", "memory.forget"}
        me, root = ctx(UID), ctx(0, "admin")
        put = await m["memory.put"].handler(PutParams(session_id="s", anchor="person:sales/zhang",
                                                      data={"phone": "139", "email": "z@example.com"}), me)
        assert put["durable"] and put["tier"] == "l1"
        mine = await m["memory.get"].handler(GetParams(session_id="s", anchor="person:sales/zhang"), me)
        assert mine["slot"]["data"] == {"email": "z@example.com"}  # phone hidden from users
        full = await m["memory.get"].handler(GetParams(session_id="s", anchor="person:sales/zhang", uid=UID), root)
        assert full["slot"]["data"]["phone"] == "139"
        assert (await svc.get(UID, "s", "person:sales/zhang"))["data"]["phone"] == "139"  # not mutated
        found = await m["memory.search"].handler(SearchParams(query="example.com"), me)
        assert len(found["items"]) == 1 and "phone" not in found["items"][0]["data"]
        # nor through any derived text: keywords, summary (issue 12, §4: a test per path)
        assert "139" not in str(found["items"][0]), found["items"][0]
        by_phone = await m["memory.search"].handler(SearchParams(query="139"), me)
        assert all("139" not in str(item) for item in by_phone["items"])
        admin_view = await m["memory.search"].handler(SearchParams(query="example.com", uid=UID), root)
        assert "139" in str(admin_view["items"][0])  # an admin still sees it
        with pytest.raises(InputInvalid):
            await m["memory.search"].handler(SearchParams(since="last Wednesday"), me)
        gone = await m["memory.forget"].handler(ForgetParams(anchor="person:sales/zhang"), ctx(UID + 1))
        assert gone["summaries"] == 0  # another user cannot forget my memories
        gone = await m["memory.forget"].handler(ForgetParams(anchor="person:sales/zhang"), me)
        assert gone["summaries"] == 1
    finally:
        await svc.stop()


async def test_sessions_replies_tasks_survive_restart(tmp_path: Path, clock: FakeClock, wall: FakeWall) -> None:
    svc = await start_service(tmp_path, clock, wall)
    try:
        sess = {"session_id": "s1", "uid": UID, "state": "EXECUTING", "version": 7, "data": {"slots": {"x": 1}},
                "updated_ms": T0_MS, "expires_ms": T0_MS + 3_600_000}
        ev = svc.core.event_row(UID, "s1", actor=f"user:{UID}", action="send", object="Q-1", object_kind="报价单",
                                target_anchor="person:sales/zhang", at_ms=T0_MS)
        ids = await svc.commit_turn(session=sess, reply=("s1", "m1", UID, {"text": "已发送"}), events=[ev])
        assert len(ids) == 1
        await svc.store_reply("s1", "m1", UID, {"text": "second answer must not replace the first"})
        task = await svc.add_pending_task(UID, "s1", "send_document", {"doc": "报价单"})
        await svc.add_pending_task(UID + 1, "s9", "other", {})
    finally:
        await svc.stop()
    svc = await start_service(tmp_path, clock, wall)
    try:
        assert await svc.load_session("s1") == sess
        assert [s["session_id"] for s in await svc.load_sessions()] == ["s1"]
        assert await svc.load_reply("s1", "m1") == {"text": "已发送"}
        assert await svc.load_reply("s1", "m2") is None
        assert [t["id"] for t in await svc.pending_tasks(UID)] == [task]
        assert await svc.set_task_status(task, "done") == 1
        assert await svc.pending_tasks(UID) == []
        assert len(await svc.pending_tasks(None)) == 1
        hits = await svc.search(UID, anchors=["person:sales/zhang"], action="send")
        assert hits[0]["object"] == "Q-1"
        assert await svc.delete_session("s1") == 1 and await svc.load_reply("s1", "m1") is None
    finally:
        await svc.stop()


async def test_commit_turn_is_atomic(service) -> None:
    from hermesd.memory import records

    bad_event = {"uid": UID}  # missing columns: the whole turn must roll back
    slot = {"uid": UID, "session_id": "s2", "anchor": "slot:date", "data": {"value": "2024-06-12"}}
    with pytest.raises(KeyError):
        await service.commit_turn(session={"session_id": "s2", "uid": UID, "state": "IDLE", "version": 1,
                                           "updated_ms": 1}, reply=("s2", "m", UID, {"t": 1}), events=[bad_event],
                                  slots=[slot])
    assert await service.load_session("s2") is None and await service.load_reply("s2", "m") is None
    assert await service.l2.aread(records.get_summary, UID, "s2", "slot:date") is None
    await service.commit_turn(slots=[slot])
    row = await service.l2.aread(records.get_summary, UID, "s2", "slot:date")
    assert row["data"] == {"value": "2024-06-12"}
    assert (await service.get(UID, "s2", "slot:date"))["tier"] == "l1"


async def test_search_within_one_session(service) -> None:
    for sid in ("s1", "s2"):
        await service.record_event(UID, sid, actor="u", action="send", object=f"Q-{sid}", object_kind="报价单",
                                   target_anchor="person:sales/zhang", at_ms=T0_MS)
        await service.put(UID, sid, "note", {"text": f"note {sid}"})
    hits = await service.search(UID, query="报价单", session_id="s2", k=10)
    assert [h["object"] for h in hits] == ["Q-s2"]
    hits = await service.search(UID, query="note", session_id="s1", k=10)
    assert [h["session_id"] for h in hits] == ["s1"]


async def test_write_flood_gets_backpressure(tmp_path: Path, clock: FakeClock, wall: FakeWall) -> None:
    import asyncio
    import threading

    svc = await start_service(tmp_path, clock, wall, l2={"max_queue": 5})
    try:
        gate = threading.Event()
        blocked = svc.l2.write(lambda c: gate.wait(10))  # the L2 thread is busy
        while svc.l2.backlog():
            await asyncio.sleep(0.001)
        for i in range(5):  # fills the queue without waiting: not durable
            await asyncio.wait_for(svc.core.put(UID, "s", f"k{i}", {"i": i}, durable=False), 1)
        flood = asyncio.ensure_future(svc.core.put(UID, "s", "k5", {"i": 5}, durable=False))
        await asyncio.sleep(0.1)
        assert not flood.done() and svc.l2.backlog() == 6  # the 6th waits for its commit
        gate.set()
        await asyncio.wait_for(flood, 5)
        assert blocked.result(5) is True
        assert (await svc.get(UID, "s", "k5"))["data"] == {"i": 5}
    finally:
        await svc.stop()


async def test_reload_swaps_the_directory_and_keeps_it_when_broken(service, tmp_path: Path) -> None:
    from types import SimpleNamespace

    assert (await service.resolve("钱经理")).status == "unresolved"
    d = tmp_path / "directory.yaml"
    d.write_text("people:\n  - {id: person:hr/qian, name: 钱敏, title: 经理, dept: hr, "
                 "email: qian.min@example.com}\n", encoding="utf-8")
    await service.reload(SimpleNamespace(memory=MemorySettings(directory_path=str(d))))
    assert (await service.resolve("钱经理")).anchor_id == "person:hr/qian"
    d.write_text("people: 7\n", encoding="utf-8")
    await service.reload(SimpleNamespace(memory=MemorySettings(directory_path=str(d))))
    assert service.graph.directory is not None and service.graph.directory.get("person:hr/qian") is not None
    assert service.settings.directory_path == str(d)
