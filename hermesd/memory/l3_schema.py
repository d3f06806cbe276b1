"""The L3 upload manifest: one L2 row per archive volume, and the SQL that moves it.

Every function here takes the L2 connection first and runs on the L2 writer
thread through ``L2Store.awrite`` / ``aread`` (so each write is part of a
committed batch before its future resolves).

States: ``pending`` → ``uploading`` (with a lease) → ``uploaded`` | ``failed``;
``quarantined`` (file failed verification, never uploaded); ``dropped`` (deleted
by the disk budget before it was uploaded). ``local`` says whether the file is
still on disk. ``path`` is relative to the archive folder (``2026/11/29/s1.zst``).
"""

from __future__ import annotations

import sqlite3
from typing import Any

__all__ = [
    "DDL",
    "STATES",
    "claim",
    "ensure",
    "finish",
    "insert",
    "release_expired",
    "rows",
    "set_local_gone",
    "summary",
    "summary_empty",
    "unclaim",
]

STATES = ("pending", "uploading", "uploaded", "failed", "quarantined", "dropped")

#: Idempotent; the lead folds this into ``memory/schema.py`` MIGRATIONS.
DDL = """
CREATE TABLE IF NOT EXISTS l3_manifest (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    records INTEGER NOT NULL,
    dict_id INTEGER NOT NULL DEFAULT 0,
    created_ms INTEGER NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending','uploading','uploaded','failed','quarantined','dropped')),
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    lease_owner TEXT,
    lease_until REAL,
    uploaded_ms INTEGER,
    local INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS l3_manifest_state ON l3_manifest(state, id);
"""

_COLS = ("id", "path", "session_id", "sha256", "bytes", "records", "dict_id", "created_ms", "state",
         "attempts", "last_error", "lease_owner", "lease_until", "uploaded_ms", "local")
_SELECT = f"SELECT {', '.join(_COLS)} FROM l3_manifest"


def _dict(row: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip(_COLS, row))


def ensure(conn: sqlite3.Connection) -> None:
    """Create the table and index if missing (safe to run at every start)."""
    for stmt in DDL.split(";"):
        if stmt.strip():
            conn.execute(stmt)


def insert(conn: sqlite3.Connection, meta: dict[str, Any]) -> int:
    """Add a volume (verified: ``pending``; failed its check: ``quarantined``); returns its id.

    :param meta: ``path, session_id, sha256, bytes, records, dict_id, created_ms``, and
        optionally ``state`` (default ``pending``) and ``last_error``.
    :raises sqlite3.IntegrityError: the path already has a row.
    """
    cur = conn.execute(
        "INSERT INTO l3_manifest (path, session_id, sha256, bytes, records, dict_id, created_ms, state, last_error) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (meta["path"], meta["session_id"], meta["sha256"], meta["bytes"], meta["records"], meta["dict_id"],
         meta["created_ms"], meta.get("state", "pending"), meta.get("last_error")))
    return int(cur.lastrowid or 0)


def rows(conn: sqlite3.Connection, where: str = "1", args: tuple[Any, ...] = (), limit: int = -1) -> list[dict[str, Any]]:
    """Manifest rows matching ``where`` (an SQL expression over the columns), oldest first."""
    return [_dict(r) for r in conn.execute(f"{_SELECT} WHERE {where} ORDER BY id LIMIT ?", (*args, limit))]


def summary_empty() -> dict[str, Any]:
    """The :func:`summary` of an empty manifest."""
    out: dict[str, Any] = {s: {"files": 0, "bytes": 0} for s in STATES}
    out["local_bytes"] = 0
    return out


def summary(conn: sqlite3.Connection) -> dict[str, Any]:
    """``{state: {"files": n, "bytes": b}}`` plus ``local_bytes`` (files still on disk)."""
    out = summary_empty()
    for state, n, b in conn.execute("SELECT state, COUNT(*), COALESCE(SUM(bytes), 0) FROM l3_manifest GROUP BY state"):
        out[state] = {"files": n, "bytes": b}
    out["local_bytes"] = conn.execute("SELECT COALESCE(SUM(bytes), 0) FROM l3_manifest WHERE local = 1").fetchone()[0]
    return out


def claim(conn: sqlite3.Connection, ids: list[int], lease: str, lease_until: float) -> list[int]:
    """``pending`` → ``uploading`` leased to ``lease`` until ``lease_until`` (monotonic s), one attempt
    counted each; returns the ids claimed (a row no longer pending is skipped)."""
    out = []
    for row_id in ids:
        cur = conn.execute(
            "UPDATE l3_manifest SET state = 'uploading', lease_owner = ?, lease_until = ?, attempts = attempts + 1 "
            "WHERE id = ? AND state = 'pending'", (lease, lease_until, row_id))
        if cur.rowcount == 1:
            out.append(row_id)
    return out


def unclaim(conn: sqlite3.Connection, ids: list[int], lease: str) -> None:
    """Give back claims that were never attempted (``uploading`` → ``pending``, attempt uncounted)."""
    conn.executemany(
        "UPDATE l3_manifest SET state = 'pending', lease_owner = NULL, lease_until = NULL, attempts = attempts - 1 "
        "WHERE id = ? AND state = 'uploading' AND lease_owner = ?", [(i, lease) for i in ids])


def set_local_gone(conn: sqlite3.Connection, ids: list[int]) -> None:
    """Record that these rows' local files were deleted (``local = 0``)."""
    conn.executemany("UPDATE l3_manifest SET local = 0 WHERE id = ?", [(i,) for i in ids])


def requeue_failed(conn: sqlite3.Connection) -> int:
    """``failed`` rows whose file is still local → ``pending`` (an operator fixed the cause); returns the count."""
    return conn.execute("UPDATE l3_manifest SET state = 'pending' WHERE state = 'failed' AND local = 1").rowcount


def release_expired(conn: sqlite3.Connection, owner: str, now: float) -> int:
    """Back to ``pending``: leases not taken by ``owner`` (a dead process) or past ``now``; returns the count.

    A lease is ``<owner>#<n>``, one ``n`` per claim. The daemon holds L2
    exclusively, so a lease of any other owner is a crashed run's; ``now`` and
    ``lease_until`` are monotonic seconds of the same boot (the owner string
    carries the boot id, so an older boot's lease is foreign).
    """
    cur = conn.execute(
        "UPDATE l3_manifest SET state = 'pending', lease_owner = NULL, lease_until = NULL, "
        "last_error = COALESCE(last_error, 'lease expired') "
        "WHERE state = 'uploading' AND (lease_owner IS NULL OR substr(lease_owner, 1, ?) != ? "
        "OR lease_until < ?)", (len(owner) + 1, owner + "#", now))
    return cur.rowcount


def finish(conn: sqlite3.Connection, row_id: int, owner: str | None, state: str, *, error: str | None = None,
           uploaded_ms: int | None = None, local: int | None = None, path: str | None = None,
           created_ms: int | None = None) -> bool:
    """Set ``state`` (and the given fields), clearing the lease.

    :param owner: when given, only if the row is still leased to ``owner`` (a
        lease that expired and was re-claimed is not overwritten); None = any row.
    :return: True if a row changed.
    """
    sets = ["state = ?", "lease_owner = NULL", "lease_until = NULL", "last_error = ?"]
    args: list[Any] = [state, error]
    for col, val in (("uploaded_ms", uploaded_ms), ("local", local), ("path", path), ("created_ms", created_ms)):
        if val is not None:
            sets.append(f"{col} = ?")
            args.append(val)
    sql = f"UPDATE l3_manifest SET {', '.join(sets)} WHERE id = ?"
    args.append(row_id)
    if owner is not None:
        sql += " AND state = 'uploading' AND lease_owner = ?"
        args.append(owner)
    return conn.execute(sql, args).rowcount == 1
