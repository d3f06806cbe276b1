"""The event bus in process: a turn's own events ride on its reply, held from every other turn until
it ends; a failed turn's go back to waiting; a subscriber reads its events where it is, never on replies."""

from __future__ import annotations

from typing import Any

import pytest

from hermesd.session.events import EventBus

UID = 1000


class _Outbox:
    """The four outbox methods of the memory port, over a dict (the SQL is tested in tests/memory)."""

    def __init__(self) -> None:
        self.rows: dict[int, dict[str, Any]] = {}

    async def outbox_add(self, uid: int, kind: str, data: dict[str, Any], created_ms: int) -> int:
        eid = len(self.rows) + 1
        self.rows[eid] = {"uid": uid, "kind": kind, "data": data, "created_ms": created_ms, "delivered": None}
        return eid

    async def outbox_mark_delivered(self, ids: list[int], at_ms: int) -> None:
        for i in ids:
            if self.rows[i]["delivered"] is None:
                self.rows[i]["delivered"] = at_ms

    async def outbox_waiting_uids(self) -> list[int]:
        return sorted({r["uid"] for r in self.rows.values() if r["delivered"] is None})

    async def outbox_pending(self, uid: int, limit: int, before_ms: int,
                             kinds: tuple[str, ...] = ()) -> tuple[list[dict[str, Any]], bool]:
        left = [(i, r) for i, r in self.rows.items() if r["uid"] == uid and r["delivered"] is None]
        got = [{"id": i, "kind": r["kind"], "data": r["data"], "created_ms": r["created_ms"]} for i, r in left
               if r["created_ms"] < before_ms and (not kinds or r["kind"] in kinds)][:limit]
        return got, len(left) > len(got)

    def undelivered(self) -> list[str]:
        return [r["kind"] for r in self.rows.values() if r["delivered"] is None]


@pytest.fixture
def bus() -> EventBus:
    clock = iter(range(1_000, 1_000_000, 10))
    return EventBus(_Outbox(), now_ms=lambda: next(clock))  # type: ignore[arg-type]


async def test_a_turns_event_rides_on_its_reply_and_no_other_turn_takes_it(bus):
    await bus.publish(UID, "session_expired", {"session_id": "other"})  # raised between turns: waits
    ride: list[dict[str, Any]] = []
    await bus.publish(UID, "handoff", {"session_id": "s1"}, ride=ride)
    assert [e["kind"] for e in ride] == ["handoff"]
    # a turn of another session of the same user, meanwhile: takes what waited, never the held one
    assert [e["kind"] for e in await bus.take_pending(UID)] == ["session_expired"]
    assert bus.store.undelivered() == ["handoff"]  # type: ignore[attr-defined]
    await bus.deliver_held(ride)
    assert bus.store.undelivered() == [] and bus.held == set()  # type: ignore[attr-defined]
    assert await bus.take_pending(UID) == []


async def test_a_failed_turns_held_events_wait_for_the_next_turn(bus):
    ride: list[dict[str, Any]] = []
    await bus.publish(UID, "handoff", {"session_id": "s1"}, ride=ride)
    assert await bus.take_pending(UID) == []
    await bus.release_held(UID, ride)  # no reply carried it
    assert [e["kind"] for e in await bus.take_pending(UID)] == ["handoff"]
    await bus.deliver_held(ride)  # released: delivering again does nothing
    assert bus.delivered == 1


async def test_with_a_subscriber_nothing_rides_on_a_reply(bus):
    got: list[dict[str, Any]] = []

    async def notify(method: str, event: dict[str, Any]) -> None:
        got.append(event)

    await bus.subscribe(7, UID, [], notify)
    ride: list[dict[str, Any]] = []
    await bus.publish(UID, "handoff", {"session_id": "s1"}, ride=ride)
    assert ride == [] and [e["kind"] for e in got] == ["handoff"]
    assert bus.store.undelivered() == []  # type: ignore[attr-defined]


async def test_held_events_released_while_a_subscriber_listens_reach_it(bus):
    ride: list[dict[str, Any]] = []
    await bus.publish(UID, "handoff", {"session_id": "s1"}, ride=ride)
    got: list[dict[str, Any]] = []

    async def notify(method: str, event: dict[str, Any]) -> None:
        got.append(event)

    assert await bus.subscribe(7, UID, ["handoff"], notify) == 0  # held: not in the backlog
    await bus.release_held(UID, ride)  # the turn saw the subscriber: its event goes there
    assert [e["kind"] for e in got] == ["handoff"] and bus.store.undelivered() == []  # type: ignore[attr-defined]
