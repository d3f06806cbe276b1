"""The event outbox and the event schedule (L2 tables ``event_outbox``, ``event_schedule``, migration v5
of :mod:`.schema`).

An event for a uid is written to the outbox before it is pushed to any subscriber and marked
delivered once it was (:mod:`hermesd.session.events`); one due later (a reminder) waits in the
schedule as ``waiting`` until it is ``fired`` or ``cancelled``. Times are epoch ms; ``data`` is a
JSON object.

Every function takes the L2 connection first and runs on the L2 writer thread through
``L2Store.awrite`` / ``aread``.
"""

from __future__ import annotations

import sqlite3
from typing import Any, NamedTuple

import orjson

__all__ = ["Scheduled", "add", "mark_delivered", "pending", "schedule", "take_scheduled", "unschedule",
           "waiting_schedule", "waiting_uids"]


class Scheduled(NamedTuple):
    """A scheduled event taken from the schedule when due: its uid, kind and data."""

    uid: int
    kind: str
    data: dict[str, Any]


def _json(data: dict[str, Any]) -> str:
    return orjson.dumps(data, default=str).decode()


def add(conn: sqlite3.Connection, uid: int, kind: str, data: dict[str, Any], created_ms: int) -> int:
    """Store an undelivered event; returns its id."""
    return conn.execute("INSERT INTO event_outbox (uid, kind, data, created_ms) VALUES (?,?,?,?)",
                        (uid, kind, _json(data), created_ms)).lastrowid  # type: ignore[return-value]


def mark_delivered(conn: sqlite3.Connection, ids: list[int], at_ms: int) -> None:
    """Mark events delivered at ``at_ms`` (one already delivered keeps its first time)."""
    conn.executemany("UPDATE event_outbox SET delivered_ms=? WHERE id=? AND delivered_ms IS NULL",
                     [(at_ms, i) for i in ids])


def waiting_uids(conn: sqlite3.Connection) -> list[int]:
    """The uids with at least one undelivered event."""
    return [r[0] for r in conn.execute("SELECT DISTINCT uid FROM event_outbox WHERE delivered_ms IS NULL")]


def pending(conn: sqlite3.Connection, uid: int, limit: int, before_ms: int,
            kinds: tuple[str, ...] = ()) -> tuple[list[dict[str, Any]], bool]:
    """Undelivered events of ``uid`` created before ``before_ms`` (of ``kinds``, or all), oldest first, at
    most ``limit``, as ``{id, kind, data, created_ms}``; and whether any undelivered event of the uid — of
    any kind — is left beyond those returned."""
    only = f" AND kind IN ({','.join('?' * len(kinds))})" if kinds else ""
    rows = conn.execute("SELECT id, kind, data, created_ms FROM event_outbox WHERE uid=? AND delivered_ms IS NULL "
                        f"AND created_ms < ?{only} ORDER BY id LIMIT ?", (uid, before_ms, *kinds, limit)).fetchall()
    total = conn.execute("SELECT COUNT(*) FROM event_outbox WHERE uid=? AND delivered_ms IS NULL", (uid,)).fetchone()[0]
    events = [{"id": r[0], "kind": r[1], "data": orjson.loads(r[2]), "created_ms": r[3]} for r in rows]
    return events, total > len(events)


def schedule(conn: sqlite3.Connection, uid: int, kind: str, key: str, data: dict[str, Any], due_ms: int) -> int:
    """Schedule ``kind`` for ``uid`` at ``due_ms``, named ``key`` (for :func:`unschedule`); returns its id."""
    return conn.execute("INSERT INTO event_schedule (uid, kind, key, data, due_ms) VALUES (?,?,?,?,?)",
                        (uid, kind, key, _json(data), due_ms)).lastrowid  # type: ignore[return-value]


def unschedule(conn: sqlite3.Connection, uid: int, key: str) -> int:
    """Cancel the uid's waiting events named ``key``; returns how many."""
    return conn.execute("UPDATE event_schedule SET state='cancelled' WHERE uid=? AND key=? AND state='waiting'",
                        (uid, key)).rowcount


def waiting_schedule(conn: sqlite3.Connection) -> list[tuple[int, int]]:
    """``(due_ms, schedule id)`` of every waiting event."""
    return [(r[0], r[1]) for r in conn.execute("SELECT due_ms, id FROM event_schedule WHERE state='waiting'")]


def take_scheduled(conn: sqlite3.Connection, sid: int) -> Scheduled | None:
    """Mark a waiting event ``fired`` and return it; None when it is not waiting (cancelled, fired)."""
    row = conn.execute("SELECT uid, kind, data FROM event_schedule WHERE id=? AND state='waiting'", (sid,)).fetchone()
    if row is None:
        return None
    conn.execute("UPDATE event_schedule SET state='fired' WHERE id=?", (sid,))
    return Scheduled(row[0], row[1], orjson.loads(row[2]))
