"""SQL for every L2 table: plain functions ``f(conn, ...)`` run on the L2 thread.

Rows go in and out as dicts with integer-millisecond times and JSON columns
decoded. ``uid=None`` means "every user" (admin); otherwise every read and
delete is restricted to that uid.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Iterable

import orjson

__all__ = [
    "add_task", "close_project", "count_user_memories", "delete_anchor_memories", "delete_user_history",
    "delete_user_memories", "delete_closed_projects", "delete_session",
    "get_summary", "insert_audit", "insert_event", "list_tasks", "list_user_memories", "preload_rows", "load_anchors",
    "load_reply", "load_session", "load_sessions", "max_version", "merge_anchor", "search_events",
    "search_summaries", "set_task_status", "store_reply", "save_session", "upsert_alias", "upsert_anchor",
    "upsert_summary",
]

_SUMMARY_JSON = ("entities", "actions", "data")


def _dumps(obj: Any) -> str:
    return orjson.dumps(obj).decode()


def _row(cur: sqlite3.Cursor, row: tuple[Any, ...], json_cols: Iterable[str] = ()) -> dict[str, Any]:
    out = {d[0]: v for d, v in zip(cur.description, row)}
    for c in json_cols:
        if c in out and isinstance(out[c], str):
            out[c] = orjson.loads(out[c])
    return out


# -- summaries (memory slots) ------------------------------------------------

def max_version(conn: sqlite3.Connection) -> int:
    """Highest slot version stored (0 when empty); seeds the process's version counter."""
    return conn.execute("SELECT coalesce(max(version), 0) FROM summaries").fetchone()[0]


def upsert_summary(conn: sqlite3.Connection, s: dict[str, Any]) -> bool:
    """Insert or replace the slot ``(uid, session_id, anchor)`` unless L2 holds a newer version.

    :param s: keys uid, session_id, anchor, version, memory_class, project, summary,
        keywords, entities, actions, data, size_before, size_after, access_count, created_ms, updated_ms.
    :return: whether the row was written.
    """
    cur = conn.execute(
        """INSERT INTO summaries (uid, session_id, anchor, version, memory_class, project, summary, keywords,
               entities, actions, data, size_before, size_after, access_count, created_ms, updated_ms)
           VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
           ON CONFLICT (uid, session_id, anchor) DO UPDATE SET
               version=excluded.version, memory_class=excluded.memory_class, project=excluded.project,
               summary=excluded.summary, keywords=excluded.keywords, entities=excluded.entities,
               actions=excluded.actions, data=excluded.data, size_before=excluded.size_before,
               size_after=excluded.size_after,
               access_count=max(summaries.access_count, excluded.access_count),
               updated_ms=excluded.updated_ms
           WHERE excluded.version >= summaries.version""",
        (s["uid"], s["session_id"], s["anchor"], s["version"], s.get("memory_class", "scratch"), s.get("project"),
         s.get("summary", ""), s.get("keywords", ""), _dumps(s.get("entities", {})), _dumps(s.get("actions", [])),
         _dumps(s.get("data", {})), s.get("size_before", 0), s.get("size_after", 0), s.get("access_count", 0),
         s["created_ms"], s["updated_ms"]))
    return cur.rowcount > 0


def get_summary(conn: sqlite3.Connection, uid: int, session_id: str, anchor: str) -> dict[str, Any] | None:
    """The slot row for the exact key, or None."""
    cur = conn.execute("SELECT * FROM summaries WHERE uid=? AND session_id=? AND anchor=?", (uid, session_id, anchor))
    row = cur.fetchone()
    return _row(cur, row, _SUMMARY_JSON) if row else None


def _fts_phrase(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def _text_filters(tokens: list[str], fts_table: str, id_col: str, text_expr: str,
                  where: list[str], args: list[Any]) -> bool:
    """Add keyword conditions; tokens of ≥3 chars use the trigram index, shorter ones ``instr``."""
    long = [t for t in tokens if len(t) >= 3]
    for t in tokens:
        if len(t) < 3:
            where.append(f"instr({text_expr}, ?) > 0")
            args.append(t)
    if long:
        where.append(f"{id_col} IN (SELECT rowid FROM {fts_table} WHERE {fts_table} MATCH ?)")
        args.append(" AND ".join(_fts_phrase(t) for t in long))
    return bool(long)


def search_events(conn: sqlite3.Connection, *, uid: int | None, tokens: list[str], anchors: list[str],
                  action: str | None, kind: str | None, since_ms: int | None, until_ms: int | None,
                  limit: int, session_id: str | None = None, object_eq: str | None = None) -> list[dict[str, Any]]:
    """Events matching every given filter, newest first, at most ``limit``.

    ``tokens`` must all occur in the event's text; ``object_eq`` is an exact object id;
    ``[since_ms, until_ms)`` is half-open on ``at_ms``.
    """
    where, args = ["1"], []
    if object_eq is not None:
        where.append("e.object=?"); args.append(object_eq)
    if uid is not None:
        # "+" keeps the planner off the (uid, at_ms) index when a more selective one applies
        selective = object_eq is not None or anchors or any(len(t) >= 3 for t in tokens)
        where.append("+e.uid=?" if selective else "e.uid=?"); args.append(uid)
    if session_id is not None:
        where.append("e.session_id=?"); args.append(session_id)
    if anchors:
        where.append(f"e.target_anchor IN ({','.join('?' * len(anchors))})"); args += anchors
    if action:
        where.append("e.action=?"); args.append(action)
    if kind:
        where.append("e.object_kind=?"); args.append(kind)
    if since_ms is not None:
        where.append("e.at_ms>=?"); args.append(since_ms)
    if until_ms is not None:
        where.append("e.at_ms<?"); args.append(until_ms)
    _text_filters(tokens, "events_fts", "e.id", "e.text", where, args)
    cur = conn.execute(f"SELECT e.* FROM events e WHERE {' AND '.join(where)} ORDER BY e.at_ms DESC LIMIT ?",
                       (*args, limit))
    return [_row(cur, r, ("payload",)) for r in cur.fetchall()]


def search_summaries(conn: sqlite3.Connection, *, uid: int | None, tokens: list[str], anchors: list[str],
                     action: str | None, kind: str | None, since_ms: int | None, until_ms: int | None,
                     limit: int, session_id: str | None = None, entity: str | None = None) -> list[dict[str, Any]]:
    """Slots matching every given filter, most recently updated first.

    ``action`` must be one of the slot's ``actions``; ``kind`` must occur in its keywords;
    ``entity`` (an entity type, ``order_id``) must be a key of its ``entities``.
    """
    where, args = ["1"], []
    if entity:
        where.append("EXISTS (SELECT 1 FROM json_each(s.entities) WHERE json_each.key=?)"); args.append(entity)
    if uid is not None:
        where.append("+s.uid=?" if any(len(t) >= 3 for t in tokens) else "s.uid=?"); args.append(uid)
    if session_id is not None:
        where.append("s.session_id=?"); args.append(session_id)
    if anchors:
        where.append(f"s.anchor IN ({','.join('?' * len(anchors))})"); args += anchors
    if action:
        where.append("EXISTS (SELECT 1 FROM json_each(s.actions) WHERE json_each.value=?)"); args.append(action)
    if kind:
        where.append("instr(s.keywords, ?) > 0"); args.append(kind)
    if since_ms is not None:
        where.append("s.updated_ms>=?"); args.append(since_ms)
    if until_ms is not None:
        where.append("s.updated_ms<?"); args.append(until_ms)
    _text_filters(tokens, "summaries_fts", "s.id", "s.summary || ' ' || s.keywords", where, args)
    cur = conn.execute(f"SELECT s.* FROM summaries s WHERE {' AND '.join(where)} ORDER BY s.updated_ms DESC LIMIT ?",
                       (*args, limit))
    return [_row(cur, r, _SUMMARY_JSON) for r in cur.fetchall()]


def delete_anchor_memories(conn: sqlite3.Connection, anchor: str, uid: int | None, at_ms: int) -> dict[str, int]:
    """Erase every slot keyed by ``anchor`` and every event targeting it; record it for L3.

    :return: ``{"summaries": n, "events": n}`` rows deleted.
    """
    u = "" if uid is None else " AND uid=?"
    a = (anchor,) if uid is None else (anchor, uid)
    n_s = conn.execute(f"DELETE FROM summaries WHERE anchor=?{u}", a).rowcount
    n_e = conn.execute(f"DELETE FROM events WHERE target_anchor=?{u}", a).rowcount
    conn.execute("INSERT INTO forgotten (anchor, uid, at_ms) VALUES (?,?,?)", (anchor, uid, at_ms))
    return {"summaries": n_s, "events": n_e}


def preload_rows(conn: sqlite3.Connection, uid: int, session_id: str, n: int) -> list[dict[str, Any]]:
    """Up to ``n`` most used slots of ``(uid, session_id)`` then up to ``n`` most recently updated
    ones not among them (what :meth:`MemoryCore.preload` warms), in that order."""
    cur = conn.execute("SELECT * FROM summaries WHERE uid=? AND session_id=? ORDER BY access_count DESC, "
                       "updated_ms DESC LIMIT ?", (uid, session_id, n))
    used = [_row(cur, r, _SUMMARY_JSON) for r in cur.fetchall()]
    seen = {r["id"] for r in used}
    cur = conn.execute("SELECT * FROM summaries WHERE uid=? AND session_id=? ORDER BY updated_ms DESC LIMIT ?",
                       (uid, session_id, n))
    recent = [_row(cur, r, _SUMMARY_JSON) for r in cur.fetchall()]
    # alternate the two lists, so a small budget holds both kinds
    rest = [r for r in recent if r["id"] not in seen]
    out: list[dict[str, Any]] = []
    for i in range(max(len(used), len(rest))):
        out += used[i:i + 1] + rest[i:i + 1]
    return out


def delete_user_memories(conn: sqlite3.Connection, uid: int, at_ms: int, upto: tuple[int, int] | None = None,
                         audit: dict[str, Any] | None = None) -> dict[str, int]:
    """Erase every slot and event of ``uid``; record it for L3 (anchor ``*``).

    :param upto: ``(max summary id, max event id)`` counted when the user was asked
        (:func:`count_user_memories`): rows stored after the question are kept. None: every row.
    :param audit: an audit row written in the same transaction (its ``detail`` gets the counts).
    :return: ``{"summaries": n, "events": n}`` rows deleted.
    """
    ms, me = upto if upto is not None else (2 ** 62, 2 ** 62)
    n_s = conn.execute("DELETE FROM summaries WHERE uid=? AND id<=?", (uid, ms)).rowcount
    n_e = conn.execute("DELETE FROM events WHERE uid=? AND id<=?", (uid, me)).rowcount
    conn.execute("INSERT INTO forgotten (anchor, uid, at_ms) VALUES ('*',?,?)", (uid, at_ms))
    if audit is not None:
        insert_audit(conn, {**audit, "detail": f"{audit.get('detail', '')} summaries={n_s} events={n_e}".strip()})
    return {"summaries": n_s, "events": n_e}


def count_user_memories(conn: sqlite3.Connection, uid: int, action: str | None = None) -> dict[str, int]:
    """What an erasure of ``uid``'s memories would take, counted when the user is asked.

    :param action: count only the history (events) of this action (``send_document``).
    :return: ``{"facts": n, "notes": n, "other": n, "events": n, "max_summary": id, "max_event": id}``:
        the slots that are facts (anchor ``fact:``) and notes (``note:``), the other slots, the events
        (of ``action`` if given), and the highest row ids then, so the erasure takes exactly what was
        counted and nothing stored after the question (:func:`delete_user_history`,
        :func:`delete_user_memories`).
    """
    f, n, o, ms = conn.execute(
        "SELECT COALESCE(SUM(anchor LIKE 'fact:%'),0), COALESCE(SUM(anchor LIKE 'note:%'),0), "
        "COALESCE(SUM(anchor NOT LIKE 'fact:%' AND anchor NOT LIKE 'note:%'),0), COALESCE(MAX(id),0) "
        "FROM summaries WHERE uid=?", (uid,)).fetchone()
    q, a = ("SELECT COUNT(*), COALESCE(MAX(id),0) FROM events WHERE uid=?", (uid,)) if action is None else \
        ("SELECT COUNT(*), COALESCE(MAX(id),0) FROM events WHERE uid=? AND action=?", (uid, action))
    e, me = conn.execute(q, a).fetchone()
    return {"facts": f, "notes": n, "other": o, "events": e, "max_summary": ms, "max_event": me}


def delete_user_history(conn: sqlite3.Connection, uid: int, action: str | None, max_id: int, at_ms: int,
                        audit: dict[str, Any]) -> int:
    """Erase ``uid``'s history — its events (of ``action`` only, if given) with ids up to ``max_id``
    — and write ``audit`` in the same transaction; record it for L3 (anchor ``history:<action|*>``).

    :return: events deleted.
    """
    if action is None:
        n = conn.execute("DELETE FROM events WHERE uid=? AND id<=?", (uid, max_id)).rowcount
    else:
        n = conn.execute("DELETE FROM events WHERE uid=? AND action=? AND id<=?", (uid, action, max_id)).rowcount
    conn.execute("INSERT INTO forgotten (anchor, uid, at_ms) VALUES (?,?,?)", (f"history:{action or '*'}", uid, at_ms))
    insert_audit(conn, {**audit, "detail": f"{audit.get('detail', '')} events={n}".strip()})
    return n


def close_project(conn: sqlite3.Connection, project: str, closed_ms: int | None) -> None:
    """Mark ``project`` closed at ``closed_ms`` (None reopens it)."""
    conn.execute("INSERT INTO projects (project, closed_ms) VALUES (?,?) "
                 "ON CONFLICT (project) DO UPDATE SET closed_ms=excluded.closed_ms", (project, closed_ms))


def delete_closed_projects(conn: sqlite3.Connection, before_ms: int) -> list[dict[str, Any]]:
    """Delete project-class slots whose project closed before ``before_ms``; returns the deleted keys."""
    cur = conn.execute(
        """SELECT s.id, s.uid, s.session_id, s.anchor, s.project, s.size_after FROM summaries s
           JOIN projects p ON p.project = s.project
           WHERE s.memory_class='project' AND p.closed_ms IS NOT NULL AND p.closed_ms < ?""", (before_ms,))
    rows = [_row(cur, r) for r in cur.fetchall()]
    conn.executemany("DELETE FROM summaries WHERE id=?", [(r["id"],) for r in rows])
    return rows


# -- events ---------------------------------------------------------------

def insert_event(conn: sqlite3.Connection, e: dict[str, Any]) -> int:
    """Append an event; returns its id.

    :param e: uid, session_id, actor, action, object, object_kind, target_anchor,
        at_ms, payload (dict), text (searchable), created_ms.
    """
    return conn.execute(
        """INSERT INTO events (uid, session_id, actor, action, object, object_kind, target_anchor, at_ms,
               payload, text, created_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?)""",
        (e["uid"], e["session_id"], e["actor"], e["action"], e.get("object", ""), e.get("object_kind", ""),
         e.get("target_anchor", ""), e["at_ms"], _dumps(e.get("payload", {})), e.get("text", ""),
         e["created_ms"])).lastrowid


# -- anchors and aliases ----------------------------------------------------

def upsert_anchor(conn: sqlite3.Connection, a: dict[str, Any]) -> None:
    """Insert or replace a pool entry (anchor_id, type, display, attributes, source, merged_into,
    last_updated_ms, verified_ms)."""
    conn.execute(
        """INSERT INTO anchors (anchor_id, type, display, attributes, source, merged_into, last_updated_ms, verified_ms)
           VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (anchor_id) DO UPDATE SET type=excluded.type,
           display=excluded.display, attributes=excluded.attributes, source=excluded.source,
           merged_into=excluded.merged_into, last_updated_ms=excluded.last_updated_ms,
           verified_ms=excluded.verified_ms""",
        (a["anchor_id"], a["type"], a["display"], _dumps(a.get("attributes", {})), a["source"],
         a.get("merged_into"), a["last_updated_ms"], a.get("verified_ms", 0)))


def upsert_alias(conn: sqlite3.Connection, alias: str, anchor_id: str, source: str) -> None:
    conn.execute("INSERT OR IGNORE INTO aliases (alias, anchor_id, source) VALUES (?,?,?)", (alias, anchor_id, source))


def load_anchors(conn: sqlite3.Connection) -> tuple[list[dict[str, Any]], list[tuple[str, str, str]]]:
    """Every anchor row and every (alias, anchor_id, source)."""
    cur = conn.execute("SELECT * FROM anchors")
    anchors = [_row(cur, r, ("attributes",)) for r in cur.fetchall()]
    aliases = conn.execute("SELECT alias, anchor_id, source FROM aliases").fetchall()
    return anchors, aliases


def merge_anchor(conn: sqlite3.Connection, old: str, new: str) -> dict[str, int]:
    """Re-point slots, events and aliases of ``old`` to ``new`` without losing any.

    A slot of ``old`` whose key already exists under ``new`` is folded into it:
    the data maps are merged (``new``'s values win) and the old row is deleted.
    """
    moved = conn.execute("UPDATE OR IGNORE summaries SET anchor=? WHERE anchor=?", (new, old)).rowcount
    folded = 0
    cur = conn.execute("SELECT id, uid, session_id, data FROM summaries WHERE anchor=?", (old,))
    for sid, uid, session_id, data in cur.fetchall():
        target = conn.execute("SELECT id, data FROM summaries WHERE uid=? AND session_id=? AND anchor=?",
                              (uid, session_id, new)).fetchone()
        merged = {**orjson.loads(data), **orjson.loads(target[1])}
        conn.execute("UPDATE summaries SET data=? WHERE id=?", (_dumps(merged), target[0]))
        conn.execute("DELETE FROM summaries WHERE id=?", (sid,))
        folded += 1
    events = conn.execute("UPDATE events SET target_anchor=? WHERE target_anchor=?", (new, old)).rowcount
    conn.execute("UPDATE OR IGNORE aliases SET anchor_id=? WHERE anchor_id=?", (new, old))
    conn.execute("DELETE FROM aliases WHERE anchor_id=?", (old,))
    conn.execute("UPDATE anchors SET merged_into=? WHERE anchor_id=?", (new, old))
    return {"summaries": moved + folded, "events": events}


# -- sessions, stored replies, pending tasks ---------------------------------

def save_session(conn: sqlite3.Connection, s: dict[str, Any]) -> None:
    """Upsert ``{session_id, uid, state, version, data, updated_ms, expires_ms}``."""
    conn.execute(
        """INSERT INTO sessions (session_id, uid, state, version, data, updated_ms, expires_ms) VALUES (?,?,?,?,?,?,?)
           ON CONFLICT (session_id) DO UPDATE SET uid=excluded.uid, state=excluded.state, version=excluded.version,
           data=excluded.data, updated_ms=excluded.updated_ms, expires_ms=excluded.expires_ms""",
        (s["session_id"], s["uid"], s["state"], s["version"], _dumps(s.get("data", {})), s["updated_ms"],
         s.get("expires_ms")))


def load_session(conn: sqlite3.Connection, session_id: str) -> dict[str, Any] | None:
    cur = conn.execute("SELECT * FROM sessions WHERE session_id=?", (session_id,))
    row = cur.fetchone()
    return _row(cur, row, ("data",)) if row else None


def load_sessions(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    cur = conn.execute("SELECT * FROM sessions ORDER BY updated_ms")
    return [_row(cur, r, ("data",)) for r in cur.fetchall()]


def delete_session(conn: sqlite3.Connection, session_id: str) -> int:
    n = conn.execute("DELETE FROM sessions WHERE session_id=?", (session_id,)).rowcount
    conn.execute("DELETE FROM stored_replies WHERE session_id=?", (session_id,))
    return n


def store_reply(conn: sqlite3.Connection, session_id: str, message_id: str, uid: int, reply: dict[str, Any],
                created_ms: int) -> None:
    """Keep the first reply given to ``(session_id, message_id)``; a retry never replaces it."""
    conn.execute("INSERT OR IGNORE INTO stored_replies (session_id, message_id, uid, reply, created_ms) "
                 "VALUES (?,?,?,?,?)", (session_id, message_id, uid, _dumps(reply), created_ms))


def load_reply(conn: sqlite3.Connection, session_id: str, message_id: str) -> dict[str, Any] | None:
    row = conn.execute("SELECT reply FROM stored_replies WHERE session_id=? AND message_id=?",
                       (session_id, message_id)).fetchone()
    return orjson.loads(row[0]) if row else None


def add_task(conn: sqlite3.Connection, t: dict[str, Any]) -> int:
    """Insert a pending task ``{uid, session_id, intent, slots, created_ms, due_ms?}``; returns its id."""
    return conn.execute("INSERT INTO pending_tasks (uid, session_id, intent, slots, status, created_ms, due_ms) "
                        "VALUES (?,?,?,?, 'open', ?,?)",
                        (t["uid"], t["session_id"], t["intent"], _dumps(t.get("slots", {})), t["created_ms"],
                         t.get("due_ms"))).lastrowid


def list_tasks(conn: sqlite3.Connection, uid: int | None, status: str | None = "open") -> list[dict[str, Any]]:
    where, args = ["1"], []
    if uid is not None:
        where.append("uid=?"); args.append(uid)
    if status is not None:
        where.append("status=?"); args.append(status)
    cur = conn.execute(f"SELECT * FROM pending_tasks WHERE {' AND '.join(where)} ORDER BY id", args)
    return [_row(cur, r, ("slots",)) for r in cur.fetchall()]


def set_task_status(conn: sqlite3.Connection, task_id: int, status: str) -> int:
    return conn.execute("UPDATE pending_tasks SET status=? WHERE id=?", (status, task_id)).rowcount


# -- audit --------------------------------------------------------------------

def insert_audit(conn: sqlite3.Connection, a: dict[str, Any]) -> None:
    """Append ``{at_ms, action, source, target, size_before, size_after, uid, subject, detail, trace_id}``."""
    conn.execute("INSERT INTO audit (at_ms, action, source, target, size_before, size_after, uid, subject, detail, "
                 "trace_id) VALUES (?,?,?,?,?,?,?,?,?,?)",
                 (a["at_ms"], a["action"], a["source"], a["target"], a.get("size_before", 0), a.get("size_after", 0),
                  a.get("uid"), a.get("subject", ""), a.get("detail", ""), a.get("trace_id") or ""))


def list_user_memories(conn: sqlite3.Connection, uid: int, session_id: str, *, prefix: str = "",
                       limit: int = 500) -> list[dict[str, Any]]:
    """Slots of ``(uid, session_id)`` whose anchor starts with ``prefix``, most used then newest first."""
    cur = conn.execute("SELECT * FROM summaries WHERE uid=? AND session_id=? AND substr(anchor, 1, ?)=? "
                       "ORDER BY access_count DESC, updated_ms DESC LIMIT ?",
                       (uid, session_id, len(prefix), prefix, limit))
    return [_row(cur, r, _SUMMARY_JSON) for r in cur.fetchall()]
