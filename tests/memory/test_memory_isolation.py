"""Two sessions store a different phone for 张工: neither ever sees the other's, also after
L1 eviction and a restart; and one user never sees another user's memories."""

from __future__ import annotations

from pathlib import Path

import pytest
from memory_helpers import FakeClock, FakeWall, ctx, start_service

from hermesd.errors import PermissionDenied
from hermesd.subsystems.memory import GetParams, PutParams, SearchParams

ZHANG = "person:sales/zhang"
UID = 1000


async def _phones(svc, sessions=("phone-a", "phone-b")) -> dict[str, object]:
    out = {}
    for s in sessions:
        slot = await svc.get(UID, s, ZHANG)
        out[s] = slot and slot["data"]["phone"]
    return out


async def test_two_sessions_two_phones_through_eviction_and_restart(tmp_path: Path, clock: FakeClock,
                                                                    wall: FakeWall) -> None:
    svc = await start_service(tmp_path, clock, wall, l1={"max_entries": 16})
    want = {"phone-a": "+86-139-0000-0001", "phone-b": "+86-139-0000-0002"}
    try:
        for s, phone in want.items():
            await svc.put(UID, s, ZHANG, {"phone": phone}, memory_class="person", durable=True)
        assert await _phones(svc) == want
        for i in range(64):  # push both slots out of L1
            await svc.put(UID, "filler", f"note:{i}", {"i": i})
        assert len(svc.core.l1) <= 16 and svc.core.l1.peek((UID, "phone-a", ZHANG)) is None
        assert await _phones(svc) == want  # from L2 now
        assert await _phones(svc) == want  # second touch: promoted
        assert svc.core.l1.peek((UID, "phone-a", ZHANG)) is not None
    finally:
        await svc.stop()
    svc = await start_service(tmp_path, clock, wall)
    try:
        assert await _phones(svc) == want
        hits = await svc.search(UID, anchors=[ZHANG], session_id="phone-a", k=10)
        assert [h["data"]["phone"] for h in hits] == [want["phone-a"]]
    finally:
        await svc.stop()


async def test_idle_sessions_past_the_session_bound_are_read_from_l2(tmp_path: Path, clock: FakeClock,
                                                                      wall: FakeWall) -> None:
    svc = await start_service(tmp_path, clock, wall, l1={"max_sessions": 16})
    try:
        for i in range(40):
            await svc.put(UID, f"session-{i:02d}", ZHANG, {"phone": f"+86-139-{i:08d}"}, durable=True)
        assert svc.core.l1.sessions == 16 and len(svc.core.l1) == 16
        first = await svc.get(UID, "session-00", ZHANG)  # the oldest: in L2 only
        assert first["tier"] == "l2" and first["data"]["phone"] == "+86-139-00000000"
        last = await svc.get(UID, "session-39", ZHANG)
        assert last["tier"] == "l1" and last["data"]["phone"] == "+86-139-00000039"
    finally:
        await svc.stop()


async def test_users_are_isolated_unless_admin(service) -> None:
    m = {x.name: x for x in service.methods()}
    alice, bob, root = ctx(1001), ctx(1002), ctx(0, "admin")
    await m["memory.put"].handler(PutParams(session_id="s", anchor=ZHANG, data={"phone": "alice's"}), alice)
    got = await m["memory.get"].handler(GetParams(session_id="s", anchor=ZHANG), bob)
    assert got == {"found": False, "slot": None}
    assert (await m["memory.search"].handler(SearchParams(anchors=[ZHANG]), bob))["items"] == []
    with pytest.raises(PermissionDenied):
        await m["memory.get"].handler(GetParams(session_id="s", anchor=ZHANG, uid=1001), bob)
    got = await m["memory.get"].handler(GetParams(session_id="s", anchor=ZHANG, uid=1001), root)
    assert got["slot"]["data"] == {"phone": "alice's"}
    everyone = await m["memory.search"].handler(SearchParams(anchors=[ZHANG]), root)
    assert [i["uid"] for i in everyone["items"]] == [1001]
