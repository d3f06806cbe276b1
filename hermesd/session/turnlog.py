"""Raw turn records of live sessions (L2 table ``turn_log``), archived to L3 when a session ends.

Each turn appends one record in the same transaction as the session row and the
stored reply. When a session is closed, expires or is evicted by the per-user cap,
its records and audit lines go to the archive (:mod:`hermesd.memory.l3`) and the
rows are deleted once the volume is written and verified.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from .record import Session

__all__ = ["DDL", "archive_session", "audit_rows", "create", "delete", "insert", "records"]

log = logging.getLogger(__name__)

DDL = (
    """CREATE TABLE IF NOT EXISTS turn_log (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        at_ms INTEGER NOT NULL,
        record TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS turn_log_session ON turn_log (session_id, id)",
)


def create(conn: Any) -> None:
    for statement in DDL:
        conn.execute(statement)


def insert(conn: Any, session_id: str, at_ms: int, record: dict[str, Any]) -> None:
    conn.execute("INSERT INTO turn_log (session_id, at_ms, record) VALUES (?,?,?)",
                 (session_id, at_ms, orjson.dumps(record, default=str).decode()))


def records(conn: Any, session_id: str) -> list[dict[str, Any]]:
    return [orjson.loads(r[0]) for r in conn.execute("SELECT record FROM turn_log WHERE session_id=? ORDER BY id",
                                                     (session_id,))]


def audit_rows(conn: Any, session_id: str) -> list[dict[str, Any]]:
    cur = conn.execute("SELECT * FROM audit WHERE source=? ORDER BY id", (session_id,))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


def delete(conn: Any, session_id: str) -> int:
    return conn.execute("DELETE FROM turn_log WHERE session_id=?", (session_id,)).rowcount


async def archive_session(l2: Any, archive: Any, s: "Session", reason: str, closed_ms: int) -> str | None:
    """Move an ended session's turn records and audit lines to L3, then delete them from L2.

    :param l2: the L2 store (``aread`` / ``awrite``). :param archive: the archive subsystem
        (``await archive_session(session_id, records, audit) -> path``), or None: the records are
        only deleted. :param closed_ms: when it ended, epoch ms.
    :return: the volume's path, or None (no archive, no turns, or the archive failed — the records
        then stay in L2 and go at the next close or restart: nothing acknowledged is lost).
    """
    turns = await l2.aread(records, s.session_id)
    if archive is None or not turns:
        await l2.awrite(delete, s.session_id)
        return None
    audit = await l2.aread(audit_rows, s.session_id)
    header = {"kind": "session", "session_id": s.session_id, "uid": s.uid, "role": s.role,
              "created_ms": s.created_ms, "closed_ms": closed_ms, "reason": reason, "turns": s.turns}
    try:
        path = await archive.archive_session(s.session_id, [header, *turns], audit)
    except Exception as exc:  # kept in L2; retried at the next close/restart
        log.error("session.archive_failed", extra={"kv": {"session": s.session_id, "error": str(exc)}})
        return None
    await l2.awrite(delete, s.session_id)
    return str(path)
