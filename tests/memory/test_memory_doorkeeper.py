"""The Bloom doorkeeper: one bulk search over 10,000 L2 rows leaves L1's hot set in place."""

from __future__ import annotations

import logging
from pathlib import Path

from memory_helpers import FakeClock, FakeWall, start_service

from hermesd.memory import records

UID = 1000
HOT = 50
BULK = 10_000


async def _fill(svc) -> list[tuple[int, str, str]]:
    rows = [{"uid": UID, "session_id": "bulk", "anchor": f"doc:{i}", "version": 1, "summary": f"报价单 第{i}号",
             "keywords": "报价单", "data": {"i": i}, "created_ms": 1, "updated_ms": 1 + i} for i in range(BULK)]
    await svc.l2.awrite(lambda conn: [records.upsert_summary(conn, r) for r in rows])
    hot = [(UID, "hot", f"person:{i}") for i in range(HOT)]
    for key in hot:
        await svc.put(*key, {"hot": True})
    return hot


async def _bulk_search_then_count(tmp_path: Path, clock: FakeClock, wall: FakeWall, doorkeeper: bool):
    svc = await start_service(tmp_path, clock, wall, l1={"max_entries": 200, "doorkeeper": doorkeeper})
    try:
        hot = await _fill(svc)
        found = await svc.search(UID, query="报价单", k=BULK)
        assert len(found) == BULK
        return svc, sum(svc.core.l1.peek(k) is not None for k in hot), len(svc.core.l1)
    except BaseException:
        await svc.stop()
        raise


async def test_bulk_search_does_not_flush_l1(tmp_path: Path, clock: FakeClock, wall: FakeWall, caplog) -> None:
    caplog.set_level(logging.INFO, logger="hermesd")
    svc, hot_left, entries = await _bulk_search_then_count(tmp_path, clock, wall, doorkeeper=True)
    try:
        assert hot_left == HOT and entries == HOT
        assert svc.core.promotions == 0
        # a second touch inside the window does promote, with its audit line
        caplog.clear()
        assert (await svc.get(UID, "bulk", "doc:7"))["tier"] == "l2"
        assert svc.core.l1.peek((UID, "bulk", "doc:7")) is not None and svc.core.promotions == 1
        assert [r.getMessage().split(" SIZE_")[0] for r in caplog.records if r.getMessage().startswith("[MCP]")] == [
            "[MCP] ACTION=promote SOURCE=bulk TARGET=memory_l1"]
    finally:
        await svc.stop()


async def test_without_doorkeeper_the_same_search_flushes_l1(tmp_path: Path, clock: FakeClock,
                                                             wall: FakeWall) -> None:
    # the control: proves the test above measures the doorkeeper, not an accident
    svc, hot_left, _ = await _bulk_search_then_count(tmp_path, clock, wall, doorkeeper=False)
    try:
        assert hot_left == 0
    finally:
        await svc.stop()
