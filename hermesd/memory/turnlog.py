"""The raw turn records of live sessions (L2 table ``turn_log``, migration v5 of :mod:`.schema`).

Each turn appends one record in the same transaction as its session row and stored reply
(:meth:`hermesd.subsystems.memory.MemoryService.commit_turn`). When a session ends, its records and
the audit lines it caused go to the L3 archive, and the rows are deleted once the volume is
written and verified (:mod:`hermesd.session.archiving`).

Every function takes the L2 connection first and runs on the L2 writer thread through
``L2Store.awrite`` / ``aread``.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import orjson

__all__ = ["audit_rows", "delete", "insert", "records"]


def insert(conn: sqlite3.Connection, session_id: str, at_ms: int, record: dict[str, Any]) -> None:
    """Append one turn record (a JSON object; values that are not JSON are written as ``str``)."""
    conn.execute("INSERT INTO turn_log (session_id, at_ms, record) VALUES (?,?,?)",
                 (session_id, at_ms, orjson.dumps(record, default=str).decode()))


def records(conn: sqlite3.Connection, session_id: str) -> list[dict[str, Any]]:
    """The session's turn records, oldest first."""
    return [orjson.loads(r[0]) for r in conn.execute("SELECT record FROM turn_log WHERE session_id=? ORDER BY id",
                                                     (session_id,))]


def audit_rows(conn: sqlite3.Connection, session_id: str) -> list[dict[str, Any]]:
    """The audit lines whose ``source`` is the session, oldest first, as ``{column: value}``."""
    cur = conn.execute("SELECT * FROM audit WHERE source=? ORDER BY id", (session_id,))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


def delete(conn: sqlite3.Connection, session_id: str) -> int:
    """Delete the session's turn records; returns how many."""
    return conn.execute("DELETE FROM turn_log WHERE session_id=?", (session_id,)).rowcount
