"""Migration v5: the session layer's tables (turn log, event outbox, schedule) under L2's numbered
migrations, and a file made by the builds before it — which created them at start with
``CREATE TABLE IF NOT EXISTS`` at user_version 4 — upgrades in place with its rows kept."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hermesd.memory import outbox, turnlog
from hermesd.memory.l2 import L2Store
from hermesd.memory.schema import MIGRATIONS, SCHEMA_VERSION

TABLES = ("turn_log", "event_outbox", "event_schedule")

#: the DDL the previous build ran at every start (hermesd/session/turnlog.py DDL and
#: hermesd/session/events.py OUTBOX_DDL before migration v5), statement by statement, verbatim
PREVIOUS_START_DDL = (
    """CREATE TABLE IF NOT EXISTS turn_log (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        at_ms INTEGER NOT NULL,
        record TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS turn_log_session ON turn_log (session_id, id)",
    """CREATE TABLE IF NOT EXISTS event_outbox (
        id INTEGER PRIMARY KEY,
        uid INTEGER NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        delivered_ms INTEGER
    )""",
    "CREATE INDEX IF NOT EXISTS event_outbox_pending ON event_outbox (uid, id) WHERE delivered_ms IS NULL",
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


def _shape(conn: sqlite3.Connection) -> dict[str, object]:
    """Columns (name, type, not null, default, pk) and indexes (name, unique, partial, columns) of each table."""
    out: dict[str, object] = {}
    for t in TABLES:
        cols = [tuple(r[1:]) for r in conn.execute(f"PRAGMA table_info({t})")]
        idx = sorted((r[1], r[2], r[4], tuple(c[2] for c in conn.execute(f"PRAGMA index_info({r[1]})")))
                     for r in conn.execute(f"PRAGMA index_list({t})"))
        out[t] = (cols, idx)
    return out


def _previous_build_file(path: Path) -> None:
    """A file as the previous build left it: migrations 1–4, then its start-time DDL, then rows."""
    conn = sqlite3.connect(path, isolation_level=None)
    for version, sql in enumerate(MIGRATIONS[:4], start=1):
        conn.executescript(f"BEGIN; {sql}\nPRAGMA user_version={version}; COMMIT;")
    for statement in PREVIOUS_START_DDL:
        conn.execute(statement)
    conn.execute("INSERT INTO turn_log (session_id, at_ms, record) VALUES ('s1', 5, '{\"text\":\"hi\"}')")
    conn.execute("INSERT INTO event_outbox (uid, kind, data, created_ms) VALUES (7, 'handoff', '{\"a\":1}', 10)")
    conn.execute("INSERT INTO event_schedule (uid, kind, key, data, due_ms) "
                 "VALUES (7, 'reminder', 'reminder:r1', '{\"text\":\"call\"}', 99)")
    conn.close()


def test_a_file_of_the_previous_build_upgrades_with_its_rows_kept(tmp_path: Path) -> None:
    old, fresh = tmp_path / "old.sqlite3", tmp_path / "fresh.sqlite3"
    _previous_build_file(old)
    assert sqlite3.connect(old).execute("PRAGMA user_version").fetchone()[0] == 4
    for path in (old, fresh):
        store = L2Store(path)
        store.open()
        store.close()
    upgraded, new = sqlite3.connect(old), sqlite3.connect(fresh)
    assert upgraded.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5
    assert _shape(upgraded) == _shape(new)  # the same tables as a file made by this build
    assert all(_shape(new)[t][0] for t in TABLES)
    assert upgraded.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    upgraded.close()
    store = L2Store(old)
    store.open()
    try:
        assert store.read(turnlog.records, "s1").result() == [{"text": "hi"}]
        events, more = store.read(outbox.pending, 7, 10, 1000).result()
        assert [(e["kind"], e["data"]) for e in events] == [("handoff", {"a": 1})] and not more
        waiting = store.read(outbox.waiting_schedule).result()
        assert [due for due, _ in waiting] == [99]
        taken = store.write(outbox.take_scheduled, waiting[0][1]).result()
        assert taken == outbox.Scheduled(7, "reminder", {"text": "call"})
        assert store.write(outbox.take_scheduled, waiting[0][1]).result() is None  # fired once
    finally:
        store.close()


def test_a_fresh_file_has_the_session_tables_and_the_typed_api_round_trips(tmp_path: Path) -> None:
    store = L2Store(tmp_path / "l2.sqlite3")
    store.open()
    try:
        store.write(turnlog.insert, "s2", 1, {"text": "a", "at": Path("/x")}).result()
        store.write(turnlog.insert, "s2", 2, {"text": "b"}).result()
        assert [r["text"] for r in store.read(turnlog.records, "s2").result()] == ["a", "b"]
        assert store.write(turnlog.delete, "s2").result() == 2
        eid = store.write(outbox.add, 3, "reminder", {"text": "x"}, 50).result()
        assert store.read(outbox.waiting_uids).result() == [3]
        store.write(outbox.mark_delivered, [eid], 60).result()
        assert store.read(outbox.waiting_uids).result() == []
        store.write(outbox.schedule, 3, "reminder", "reminder:r9", {"t": 1}, 70).result()
        assert store.write(outbox.unschedule, 3, "reminder:r9").result() == 1
        assert store.read(outbox.waiting_schedule).result() == []
    finally:
        store.close()
