"""L2 schema, versioned with ``PRAGMA user_version``: ``MIGRATIONS[i]`` takes version i to i+1.

Times are integer milliseconds since the Unix epoch (UTC). JSON columns hold
UTF-8 JSON text. ``summaries`` carries the reference design's ``memory_summary``
fields (session, summary, entities, actions, created/updated, access count) plus
the slot key, version and class; ``summaries_fts`` and ``events_fts`` are FTS5
external-content indexes with the ``trigram`` tokenizer (SQLite ≥ 3.34), so a
Chinese substring of three or more characters matches without a word segmenter.
"""

from __future__ import annotations

from .l3_schema import DDL as _L3_DDL

__all__ = ["MIGRATIONS", "SCHEMA_VERSION"]

_V1 = """
CREATE TABLE summaries (
    id INTEGER PRIMARY KEY,
    uid INTEGER NOT NULL,
    session_id TEXT NOT NULL,
    anchor TEXT NOT NULL,
    version INTEGER NOT NULL,
    memory_class TEXT NOT NULL DEFAULT 'scratch',
    project TEXT,
    summary TEXT NOT NULL DEFAULT '',
    keywords TEXT NOT NULL DEFAULT '',
    entities TEXT NOT NULL DEFAULT '{}',
    actions TEXT NOT NULL DEFAULT '[]',
    data TEXT NOT NULL DEFAULT '{}',
    size_before INTEGER NOT NULL DEFAULT 0,
    size_after INTEGER NOT NULL DEFAULT 0,
    access_count INTEGER NOT NULL DEFAULT 0,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    UNIQUE (uid, session_id, anchor)
);
CREATE INDEX summaries_anchor ON summaries (anchor, uid);
CREATE INDEX summaries_project ON summaries (project) WHERE project IS NOT NULL;

CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    uid INTEGER NOT NULL,
    session_id TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    object TEXT NOT NULL DEFAULT '',
    object_kind TEXT NOT NULL DEFAULT '',
    target_anchor TEXT NOT NULL DEFAULT '',
    at_ms INTEGER NOT NULL,
    payload TEXT NOT NULL DEFAULT '{}',
    text TEXT NOT NULL DEFAULT '',
    created_ms INTEGER NOT NULL
);
CREATE INDEX events_target ON events (target_anchor, at_ms);
CREATE INDEX events_uid_at ON events (uid, at_ms);

CREATE TABLE anchors (
    anchor_id TEXT PRIMARY KEY,
    type TEXT NOT NULL,
    display TEXT NOT NULL,
    attributes TEXT NOT NULL DEFAULT '{}',
    source TEXT NOT NULL,
    merged_into TEXT,
    last_updated_ms INTEGER NOT NULL,
    verified_ms INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE aliases (
    alias TEXT NOT NULL,
    anchor_id TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT 'directory',
    PRIMARY KEY (alias, anchor_id)
);
CREATE INDEX aliases_anchor ON aliases (anchor_id);

CREATE TABLE sessions (
    session_id TEXT PRIMARY KEY,
    uid INTEGER NOT NULL,
    state TEXT NOT NULL,
    version INTEGER NOT NULL,
    data TEXT NOT NULL DEFAULT '{}',
    updated_ms INTEGER NOT NULL,
    expires_ms INTEGER
);
CREATE INDEX sessions_uid ON sessions (uid);

CREATE TABLE pending_tasks (
    id INTEGER PRIMARY KEY,
    uid INTEGER NOT NULL,
    session_id TEXT NOT NULL,
    intent TEXT NOT NULL,
    slots TEXT NOT NULL DEFAULT '{}',
    status TEXT NOT NULL DEFAULT 'open',
    created_ms INTEGER NOT NULL,
    due_ms INTEGER
);
CREATE INDEX pending_tasks_uid ON pending_tasks (uid, status);

CREATE TABLE stored_replies (
    session_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    uid INTEGER NOT NULL,
    reply TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    PRIMARY KEY (session_id, message_id)
);

CREATE TABLE audit (
    id INTEGER PRIMARY KEY,
    at_ms INTEGER NOT NULL,
    action TEXT NOT NULL,
    source TEXT NOT NULL,
    target TEXT NOT NULL,
    size_before INTEGER NOT NULL DEFAULT 0,
    size_after INTEGER NOT NULL DEFAULT 0,
    uid INTEGER,
    subject TEXT NOT NULL DEFAULT '',
    detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_at ON audit (at_ms);

CREATE TABLE projects (
    project TEXT PRIMARY KEY,
    closed_ms INTEGER
);

CREATE TABLE forgotten (
    anchor TEXT NOT NULL,
    uid INTEGER,
    at_ms INTEGER NOT NULL
);

CREATE VIRTUAL TABLE summaries_fts USING fts5(
    summary, keywords, content='summaries', content_rowid='id', tokenize='trigram');
CREATE TRIGGER summaries_ai AFTER INSERT ON summaries BEGIN
    INSERT INTO summaries_fts (rowid, summary, keywords) VALUES (new.id, new.summary, new.keywords);
END;
CREATE TRIGGER summaries_ad AFTER DELETE ON summaries BEGIN
    INSERT INTO summaries_fts (summaries_fts, rowid, summary, keywords)
    VALUES ('delete', old.id, old.summary, old.keywords);
END;
CREATE TRIGGER summaries_au AFTER UPDATE OF summary, keywords ON summaries BEGIN
    INSERT INTO summaries_fts (summaries_fts, rowid, summary, keywords)
    VALUES ('delete', old.id, old.summary, old.keywords);
    INSERT INTO summaries_fts (rowid, summary, keywords) VALUES (new.id, new.summary, new.keywords);
END;

CREATE VIRTUAL TABLE events_fts USING fts5(
    text, content='events', content_rowid='id', tokenize='trigram');
CREATE TRIGGER events_ai AFTER INSERT ON events BEGIN
    INSERT INTO events_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER events_ad AFTER DELETE ON events BEGIN
    INSERT INTO events_fts (events_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
"""

# v2: exact object ids ("Q-2024-061") are looked up before the keyword index; a slot
# re-written with the same text is not re-indexed (the trigram re-index is ~90 % of an upsert).
_V2 = """
CREATE INDEX events_object ON events (object);
DROP TRIGGER summaries_au;
CREATE TRIGGER summaries_au AFTER UPDATE OF summary, keywords ON summaries
WHEN old.summary IS NOT new.summary OR old.keywords IS NOT new.keywords BEGIN
    INSERT INTO summaries_fts (summaries_fts, rowid, summary, keywords)
    VALUES ('delete', old.id, old.summary, old.keywords);
    INSERT INTO summaries_fts (rowid, summary, keywords) VALUES (new.id, new.summary, new.keywords);
END;
"""

#: v3: the L3 archive manifest (:mod:`.l3_schema`; IF NOT EXISTS, as earlier builds created it at start).
_V3 = _L3_DDL

#: v4: the audit line of a capture, compress or decay carries the trace id of the turn it came from.
_V4 = """
ALTER TABLE audit ADD COLUMN trace_id TEXT NOT NULL DEFAULT '';
"""

#: v5: the session layer's tables — the raw turn log of live sessions (:mod:`.turnlog`), the event
#: outbox and the schedule of events due later (:mod:`.outbox`). IF NOT EXISTS, as earlier builds
#: created them at start (the same columns and indexes), so a file of those builds upgrades in place.
_V5 = """
CREATE TABLE IF NOT EXISTS turn_log (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS turn_log_session ON turn_log (session_id, id);

CREATE TABLE IF NOT EXISTS event_outbox (
    id INTEGER PRIMARY KEY,
    uid INTEGER NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    delivered_ms INTEGER
);
CREATE INDEX IF NOT EXISTS event_outbox_pending ON event_outbox (uid, id) WHERE delivered_ms IS NULL;

CREATE TABLE IF NOT EXISTS event_schedule (
    id INTEGER PRIMARY KEY,
    uid INTEGER NOT NULL,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    data TEXT NOT NULL,
    due_ms INTEGER NOT NULL,
    state TEXT NOT NULL DEFAULT 'waiting'
);
CREATE INDEX IF NOT EXISTS event_schedule_waiting ON event_schedule (due_ms) WHERE state = 'waiting';
"""

#: ``MIGRATIONS[i]`` is the SQL taking ``user_version`` i → i+1 (run in one transaction).
MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3, _V4, _V5)
SCHEMA_VERSION = len(MIGRATIONS)
