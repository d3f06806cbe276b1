"""Events to clients: ``events.subscribe`` streams, an L2 outbox so nothing is lost.

An event (``reminder``, ``handoff``, ``session_expired``, ``pending_task``,
``confirmation_cancelled``, ``memory.updated`` — ``{kind, anchor, version, session_id}`` of a fact
stored, updated or forgotten, never its value) belongs to one uid. Reminders are scheduled
(``event_schedule``) when the ``reminder`` tool creates one and published by the
session timer task when due. :meth:`EventBus.publish`
writes it to the ``event_outbox`` table first, then pushes it as a JSON-RPC
notification (``{"method": "event", "params": {id, kind, data, created_ms}}``)
to every connection of that uid subscribed to its kind, and marks it delivered.
With no subscriber it stays undelivered — across restarts too — until the uid
subscribes (the backlog is sent first, oldest first) or takes its next turn
(the reply carries it under ``events``). Each event is marked delivered once,
so no subscriber receives it twice.
"""

from __future__ import annotations

import heapq
import logging
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

import orjson

__all__ = ["EVENT_KINDS", "EventBus", "OUTBOX_DDL"]

log = logging.getLogger(__name__)

EVENT_KINDS = ("reminder", "handoff", "session_expired", "pending_task", "confirmation_cancelled", "memory.updated")

#: the outbox table, created idempotently at start (CREATE ... IF NOT EXISTS); statement by statement,
#: because ``executescript`` would COMMIT the L2 writer's batch transaction.
OUTBOX_DDL = (
    """CREATE TABLE IF NOT EXISTS event_outbox (
        id INTEGER PRIMARY KEY,
        uid INTEGER NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        delivered_ms INTEGER
    )""",
    "CREATE INDEX IF NOT EXISTS event_outbox_pending ON event_outbox (uid, id) WHERE delivered_ms IS NULL",
    # events due later (reminders): published by the timer task when due, across restarts
    """CREATE TABLE IF NOT EXISTS event_schedule (
        id INTEGER PRIMARY KEY,
        uid INTEGER NOT NULL,
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        data TEXT NOT NULL,
        due_ms INTEGER NOT NULL,
        state TEXT NOT NULL DEFAULT 'waiting'
    )""",
    "CREATE INDEX IF NOT EXISTS event_schedule_waiting ON event_schedule (due_ms) WHERE state = 'waiting'",
)

Notify = Callable[[str, dict[str, Any]], Awaitable[None]]


@dataclass(slots=True)
class _Sub:
    connection_id: int
    uid: int
    kinds: frozenset[str]
    notify: Notify


def _create(conn: Any) -> None:
    for statement in OUTBOX_DDL:
        conn.execute(statement)


def _insert(conn: Any, uid: int, kind: str, data: bytes, created_ms: int) -> int:
    return conn.execute("INSERT INTO event_outbox (uid, kind, data, created_ms) VALUES (?,?,?,?)",
                        (uid, kind, data.decode(), created_ms)).lastrowid


def _mark(conn: Any, ids: list[int], at_ms: int) -> None:
    conn.executemany("UPDATE event_outbox SET delivered_ms=? WHERE id=? AND delivered_ms IS NULL",
                     [(at_ms, i) for i in ids])


def _schedule(conn: Any, uid: int, kind: str, key: str, data: bytes, due_ms: int) -> int:
    return conn.execute("INSERT INTO event_schedule (uid, kind, key, data, due_ms) VALUES (?,?,?,?,?)",
                        (uid, kind, key, data.decode(), due_ms)).lastrowid


def _unschedule(conn: Any, uid: int, key: str) -> int:
    return conn.execute("UPDATE event_schedule SET state='cancelled' WHERE uid=? AND key=? AND state='waiting'",
                        (uid, key)).rowcount


def _waiting_schedule(conn: Any) -> list[tuple[int, int]]:
    return conn.execute("SELECT due_ms, id FROM event_schedule WHERE state='waiting'").fetchall()


def _take_scheduled(conn: Any, sid: int) -> tuple[int, str, str] | None:
    row = conn.execute("SELECT uid, kind, data FROM event_schedule WHERE id=? AND state='waiting'", (sid,)).fetchone()
    if row is not None:
        conn.execute("UPDATE event_schedule SET state='fired' WHERE id=?", (sid,))
    return row


def _waiting_uids(conn: Any) -> list[int]:
    return [r[0] for r in conn.execute("SELECT DISTINCT uid FROM event_outbox WHERE delivered_ms IS NULL")]


def _pending(conn: Any, uid: int, limit: int, before_ms: int,
             kinds: tuple[str, ...] = ()) -> tuple[list[dict[str, Any]], bool]:
    """Undelivered events of ``uid`` (of ``kinds``, or all), and whether any undelivered event of the
    uid — of any kind — is left beyond those returned."""
    only = f" AND kind IN ({','.join('?' * len(kinds))})" if kinds else ""
    rows = conn.execute("SELECT id, kind, data, created_ms FROM event_outbox WHERE uid=? AND delivered_ms IS NULL "
                        f"AND created_ms < ?{only} ORDER BY id LIMIT ?", (uid, before_ms, *kinds, limit)).fetchall()
    total = conn.execute("SELECT COUNT(*) FROM event_outbox WHERE uid=? AND delivered_ms IS NULL", (uid,)).fetchone()[0]
    events = [{"id": r[0], "kind": r[1], "data": orjson.loads(r[2]), "created_ms": r[3]} for r in rows]
    return events, total > len(events)


class EventBus:
    """Per-uid event streams backed by the L2 outbox.

    :param l2: the memory subsystem's ``L2Store`` (``awrite``/``aread``).
    :param now_ms: wall clock in ms.
    """

    def __init__(self, l2: Any, now_ms: Callable[[], int] = lambda: int(time.time() * 1000)) -> None:
        self.l2 = l2
        self.now_ms = now_ms
        self.subs: dict[int, _Sub] = {}
        #: uids that may have undelivered events (filled from L2 at start), so a turn
        #: never queues a read behind the writer just to find nothing
        self.waiting: set[int] = set()
        self.published = 0
        self.delivered = 0
        #: (due_ms, schedule id) of events waiting to be due, soonest first
        self.timeline: list[tuple[int, int]] = []

    async def start(self) -> None:
        await self.l2.awrite(_create)
        self.waiting = set(await self.l2.aread(_waiting_uids))
        self.timeline = sorted(tuple(r) for r in await self.l2.aread(_waiting_schedule))

    async def publish(self, uid: int, kind: str, data: dict[str, Any]) -> int:
        """Store the event durably, then push it to subscribers; returns its id."""
        eid = await self.l2.awrite(_insert, uid, kind, orjson.dumps(data, default=str), self.now_ms())
        self.published += 1
        event = {"id": eid, "kind": kind, "data": data, "created_ms": self.now_ms()}
        targets = [s for s in self.subs.values() if s.uid == uid and (not s.kinds or kind in s.kinds)]
        if targets:
            for sub in targets:
                await sub.notify("event", event)
            await self.l2.awrite(_mark, [eid], self.now_ms())
            self.delivered += 1
        else:
            self.waiting.add(uid)
        log.info("event", extra={"kv": {"id": eid, "kind": kind, "uid": uid, "subscribers": len(targets)}})
        return eid

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
        events, more = await self.l2.aread(_pending, uid, limit, cutoff, tuple(kinds or ()))
        if not more:
            self.waiting.discard(uid)
        if events:
            await self.l2.awrite(_mark, [e["id"] for e in events], self.now_ms())
            self.delivered += len(events)
        return events

    async def schedule(self, uid: int, kind: str, key: str, data: dict[str, Any], due_ms: int) -> int:
        """Publish ``kind`` for ``uid`` at ``due_ms`` (epoch ms), durably; ``key`` names it for :meth:`unschedule`."""
        sid = await self.l2.awrite(_schedule, uid, kind, key, orjson.dumps(data, default=str), due_ms)
        heapq.heappush(self.timeline, (due_ms, sid))
        log.info("event.scheduled", extra={"kv": {"kind": kind, "key": key, "uid": uid, "due_ms": due_ms}})
        return sid

    async def unschedule(self, uid: int, key: str) -> int:
        """Cancel this uid's waiting events named ``key`` (a cancelled reminder)."""
        return await self.l2.awrite(_unschedule, uid, key)

    def next_due_ms(self) -> int | None:
        return self.timeline[0][0] if self.timeline else None

    async def fire_due(self) -> int:
        """Publish every scheduled event that is due now; returns how many."""
        now, n = self.now_ms(), 0
        while self.timeline and self.timeline[0][0] <= now:
            _, sid = heapq.heappop(self.timeline)
            row = await self.l2.awrite(_take_scheduled, sid)
            if row is not None:  # not cancelled meanwhile
                uid, kind, data = row
                await self.publish(uid, kind, orjson.loads(data))
                n += 1
        return n

    def unsubscribe(self, connection_id: int) -> None:
        self.subs.pop(connection_id, None)
