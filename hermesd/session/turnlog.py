"""Raw turn records of live sessions (L2 table ``turn_log``), archived to L3 when a session ends.

Each turn appends one record in the same transaction as the session row and the
stored reply. When a session is closed, expires or is evicted by the per-user cap,
its records and audit lines go to the archive (:mod:`hermesd.memory.l3`) and the
rows are deleted once the volume is written and verified.
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["DDL", "audit_rows", "create", "delete", "insert", "records"]

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
