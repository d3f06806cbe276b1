"""Events to clients: ``events.subscribe`` streams, an L2 outbox so nothing is lost.

An event (``reminder``, ``handoff``, ``session_expired``, ``pending_task``,
``confirmation_cancelled``, ``memory.updated`` — ``{kind, anchor, version, session_id}`` of a fact
stored, updated or forgotten, never its value) belongs to one uid. Reminders are scheduled
(``event_schedule``) when a tool that declares ``schedules`` in its descriptor creates one and published by the
session timer task when due. :meth:`EventBus.publish`
writes it to the ``event_outbox`` table first, then pushes it as a JSON-RPC
notification (``{"method": "event", "params": {id, kind, data, created_ms}}``)
to every connection of that uid subscribed to its kind, and marks it delivered.
With no subscriber it stays undelivered — across restarts too — until the uid
subscribes (the backlog is sent first, oldest first) or takes its next turn
(the reply carries it under ``events``). An event a turn raises itself (a hand-off, a fact stored)
rides on that turn's own reply when the uid has no subscriber: it is news of that turn, never of
the next one. Each event is marked delivered once,
so no subscriber receives it twice. The tables belong to memory (:mod:`hermesd.memory.outbox`,
migration v5); the bus reaches them through the memory port only.
"""

from __future__ import annotations

import heapq
import logging
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from .ports import MemoryPort
from .schedules import REPEAT, next_occurrence

__all__ = ["EVENT_KINDS", "EventBus"]

log = logging.getLogger(__name__)

EVENT_KINDS = ("reminder", "handoff", "session_expired", "pending_task", "confirmation_cancelled", "memory.updated")

Notify = Callable[[str, dict[str, Any]], Awaitable[None]]


@dataclass(slots=True)
class _Sub:
    connection_id: int
    uid: int
    kinds: frozenset[str]
    notify: Notify


class EventBus:
    """Per-uid event streams backed by the L2 outbox.

    :param store: the memory port (its outbox and schedule methods).
    :param now_ms: wall clock in ms.
    """

    def __init__(self, store: MemoryPort, now_ms: Callable[[], int] = lambda: int(time.time() * 1000)) -> None:
        self.store = store
        self.now_ms = now_ms
        self.subs: dict[int, _Sub] = {}
        #: uids that may have undelivered events (filled from L2 at start), so a turn
        #: never queues a read behind the writer just to find nothing
        self.waiting: set[int] = set()
        self.published = 0
        self.delivered = 0
        #: (due_ms, schedule id) of events waiting to be due, soonest first
        self.timeline: list[tuple[int, int]] = []
        #: ids of events held for the reply of the running turn that raised them (:meth:`publish` ``ride``)
        self.held: set[int] = set()

    async def start(self) -> None:
        self.waiting = set(await self.store.outbox_waiting_uids())
        self.timeline = sorted(await self.store.waiting_schedule())

    async def publish(self, uid: int, kind: str, data: dict[str, Any],
                      ride: list[dict[str, Any]] | None = None) -> int:
        """Store the event durably, then push it to subscribers; returns its id.

        :param ride: the event list of the reply of the turn that raised it. With no subscriber of
            this uid the event is appended there and held (no other turn takes it) until the turn
            ends: :meth:`deliver_held` when its reply carries it — the turn it is news of, not the
            uid's next one — or :meth:`release_held` when the turn failed (it then waits as any).
        """
        eid = await self.store.outbox_add(uid, kind, data, self.now_ms())
        self.published += 1
        event = {"id": eid, "kind": kind, "data": data, "created_ms": self.now_ms()}
        targets = [s for s in self.subs.values() if s.uid == uid and (not s.kinds or kind in s.kinds)]
        # a uid with a subscriber (of any kind) reads its events there, never on replies
        rides = ride is not None and not any(s.uid == uid for s in self.subs.values())
        if targets:
            for sub in targets:
                await sub.notify("event", event)
            await self.store.outbox_mark_delivered([eid], self.now_ms())
            self.delivered += 1
        elif rides:
            self.held.add(eid)
            ride.append(event)  # type: ignore[union-attr]
        else:
            self.waiting.add(uid)
        log.info("event", extra={"kv": {"id": eid, "kind": kind, "uid": uid, "subscribers": len(targets),
                                        "on_reply": rides}})
        return eid

    async def deliver_held(self, events: list[dict[str, Any]]) -> None:
        """Held events (:meth:`publish` ``ride``) went out on their turn's reply: delivered."""
        ids = [e["id"] for e in events if e["id"] in self.held]
        if ids:
            self.held.difference_update(ids)
            await self.store.outbox_mark_delivered(ids, self.now_ms())
            self.delivered += len(ids)

    async def release_held(self, uid: int, events: list[dict[str, Any]]) -> None:
        """Held events no reply carried (their turn failed, or a subscriber came meanwhile): pushed to
        the uid's subscribers now, else they wait for one or for the next turn as any event does."""
        for event in events:
            if event["id"] not in self.held:
                continue
            self.held.discard(event["id"])
            targets = [s for s in self.subs.values() if s.uid == uid and (not s.kinds or event["kind"] in s.kinds)]
            for sub in targets:
                await sub.notify("event", event)
            if targets:
                await self.store.outbox_mark_delivered([event["id"]], self.now_ms())
                self.delivered += 1
            else:
                self.waiting.add(uid)

    async def subscribe(self, connection_id: int, uid: int, kinds: list[str], notify: Notify) -> int:
        """Stream this uid's events to the connection; sends the undelivered backlog first. Returns its size."""
        self.subs[connection_id] = _Sub(connection_id, uid, frozenset(kinds), notify)
        backlog = await self.take_pending(uid, kinds)
        for event in backlog:
            await notify("event", event)
        return len(backlog)

    async def take_pending(self, uid: int, kinds: list[str] | None = None, limit: int = 100,
                           before_ms: int | None = None) -> list[dict[str, Any]]:
        """Undelivered events of ``uid`` (of ``kinds``, or every kind) created before ``before_ms``
        (default: now), oldest first; marked delivered. Events of other kinds stay for their subscribers."""
        if uid not in self.waiting:
            return []
        cutoff = self.now_ms() + 1 if before_ms is None else before_ms
        events, more = await self.store.outbox_pending(uid, limit, cutoff, tuple(kinds or ()))
        if self.held:  # a running turn's own: its reply carries them (or they are released)
            events = [e for e in events if e["id"] not in self.held]
        if not more:
            self.waiting.discard(uid)
        if events:
            await self.store.outbox_mark_delivered([e["id"] for e in events], self.now_ms())
            self.delivered += len(events)
        return events

    async def schedule(self, uid: int, kind: str, key: str, data: dict[str, Any], due_ms: int) -> int:
        """Publish ``kind`` for ``uid`` at ``due_ms`` (epoch ms), durably; ``key`` names it for :meth:`unschedule`."""
        sid = await self.store.schedule_event(uid, kind, key, data, due_ms)
        heapq.heappush(self.timeline, (due_ms, sid))
        log.info("event.scheduled", extra={"kv": {"kind": kind, "key": key, "uid": uid, "due_ms": due_ms}})
        return sid

    async def unschedule(self, uid: int, key: str) -> int:
        """Cancel this uid's waiting events named ``key`` (a cancelled reminder)."""
        return await self.store.unschedule_event(uid, key)

    def next_due_ms(self) -> int | None:
        return self.timeline[0][0] if self.timeline else None

    async def fire_due(self) -> int:
        """Publish every scheduled event that is due now; returns how many. An event of a repeating
        series (:data:`.schedules.REPEAT` in its data) is armed again for the first occurrence after now,
        under the same key: one missed many times while the daemon was down fires once."""
        now, n = self.now_ms(), 0
        while self.timeline and self.timeline[0][0] <= now:
            _, sid = heapq.heappop(self.timeline)
            row = await self.store.take_scheduled(sid)
            if row is not None:  # not cancelled meanwhile
                uid, kind, data = row
                await self.publish(uid, kind, {k: v for k, v in data.items() if k != REPEAT})
                n += 1
                upcoming = next_occurrence(data, now)
                if upcoming is not None:
                    await self.schedule(uid, kind, upcoming.key, upcoming.data, upcoming.due_ms)
        return n

    def unsubscribe(self, connection_id: int) -> None:
        self.subs.pop(connection_id, None)
