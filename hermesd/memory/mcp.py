"""The Memory Control Protocol core: capture → compress → L1/L2, promote/demote, decay, retrieval, forget.

Ties :class:`~.l1.L1Cache`, :class:`~.doorkeeper.Doorkeeper` and
:class:`~.l2.L2Store` together. Writes are copy-on-write with versions: a put
lands in L1 at once (L1 is always the newest copy) and in L2 within one batch;
``durable=True`` awaits that batch's COMMIT. Every capture, compress, promote,
demote, decay and forget writes one audit row and one log line
``[MCP] ACTION=… SOURCE=… TARGET=… SIZE_BEFORE=… SIZE_AFTER=…``.

Retrieval ranks with time decay ``score = raw · e^(−λ·hours)``, λ = 0.001/h
(the reference design's rule), where ``raw`` counts the query terms and filters
an item matched plus 1 for an exact key (object id or anchor equal to the query).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import math
import time
from dataclasses import dataclass
from datetime import timezone, tzinfo
from typing import Any, Awaitable, Callable

import orjson

from ..clock import wall_ms
from . import records
from .compress import MEMORY_VERBS, Compressed, capture_reason, compress
from .doorkeeper import Doorkeeper
from .l1 import Key, L1Cache, Slot
from .l2 import L2Store
from .settings import MemorySettings

__all__ = ["MemoryCore", "Staged"]

log = logging.getLogger(__name__)

#: ``verifier(cutoff_ms)`` re-checks person anchors verified before ``cutoff_ms``;
#: returns ``[(anchor_id, "verified" | "stale")]``.
Verifier = Callable[[int], Awaitable[list[tuple[str, str]]]]


@dataclass(slots=True)
class Staged:
    """A capture staged in L1 whose L2 half is still to write: the slot row and its audit rows.

    :param tier: ``memory_l1`` or ``memory_l2`` (too large for L1).
    """

    row: dict[str, Any]
    audits: list[dict[str, Any]]
    reason: str
    compressed: Compressed | None
    tier: str

    def write(self, conn: Any) -> None:
        """Write the slot and its audit rows on ``conn`` (the L2 thread; inside the caller's transaction)."""
        records.upsert_summary(conn, self.row)
        for a in self.audits:
            records.insert_audit(conn, a)


def _key_str(key: Key) -> str:
    return f"{key[0]}\x1f{key[1]}\x1f{key[2]}"


def _nbytes(obj: Any) -> int:
    return len(orjson.dumps(obj))


class MemoryCore:
    """The memory stack of one daemon.

    :param settings: the ``memory:`` section.
    :param l2: an opened :class:`L2Store`.
    :param clock: monotonic seconds (L1 TTL); injected by tests.
    :param now_ms: wall-clock ms (stored times, retrieval decay); injected by tests.
    :param tz: zone the summaries render times in.
    :param verifier: re-verifies person anchors during decay (from the anchor graph).
    """

    def __init__(self, settings: MemorySettings, l2: L2Store, *, clock: Callable[[], float] = time.monotonic,
                 now_ms: Callable[[], int] = wall_ms, tz: tzinfo = timezone.utc,
                 verifier: Verifier | None = None) -> None:
        self.settings = settings
        self.l1 = L1Cache(settings.l1.max_bytes, settings.l1.max_entries, settings.l1.ttl_s, clock,
                          max_sessions=settings.l1.max_sessions)
        self.doorkeeper = Doorkeeper(settings.l1.bloom_capacity, settings.l1.bloom_error_rate)
        self.l2 = l2
        self.now_ms = now_ms
        self.tz = tz
        self.verifier = verifier
        self.promotions = self.demotions = 0
        self.decay_last_run_s = 0.0
        self._version = 0
        self._lines: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        #: forget calls so far (a preload whose read a forget overlapped reads again)
        self.forgets = 0

    async def start(self) -> None:
        """Seed the version counter from L2 so versions stay monotonic across restarts."""
        self._version = max(await self.l2.aread(records.max_version), self.now_ms())

    def _next_version(self) -> int:
        self._version = max(self._version + 1, self.now_ms())
        return self._version

    # -- audit --------------------------------------------------------------

    def audit(self, action: str, source: str, target: str, size_before: int, size_after: int, *,
              uid: int | None = None, subject: str = "", detail: str = "", trace_id: str = "") -> None:
        """Write one audit row (next L2 batch) and one ``[MCP]`` log line."""
        self.l2.write(records.insert_audit, self.audit_row(action, source, target, size_before, size_after, uid=uid,
                                                           subject=subject, detail=detail, trace_id=trace_id))

    def audit_row(self, action: str, source: str, target: str, size_before: int, size_after: int, *,
                  uid: int | None = None, subject: str = "", detail: str = "", trace_id: str = "",
                  defer: bool = False) -> dict[str, Any]:
        """Log the ``[MCP]`` line and return the audit row, for the caller's own transaction
        (:func:`records.insert_audit`). ``source`` is the session the memory came from.

        ``defer``: the line is kept until :meth:`flush_lines` (the turn path formats its lines
        after the reply went out: formatting is ~18 µs a line, more than the capture itself)."""
        args = (action, source, target, size_before, size_after)
        kv = {"uid": uid, "subject": subject, "detail": detail, "trace": trace_id or None}
        if defer:
            self._lines.append((args, kv))
        else:
            log.info("[MCP] ACTION=%s SOURCE=%s TARGET=%s SIZE_BEFORE=%d SIZE_AFTER=%d", *args, extra={"kv": kv})
        return {"at_ms": self.now_ms(), "action": action, "source": source, "target": target,
                "size_before": size_before, "size_after": size_after, "uid": uid, "subject": subject,
                "detail": detail, "trace_id": trace_id}

    def flush_lines(self) -> int:
        """Log the deferred ``[MCP]`` lines (see :meth:`audit_row`); returns how many."""
        lines, self._lines = self._lines, []
        for args, kv in lines:
            log.info("[MCP] ACTION=%s SOURCE=%s TARGET=%s SIZE_BEFORE=%d SIZE_AFTER=%d", *args, extra={"kv": kv})
        return len(lines)

    # -- slots --------------------------------------------------------------

    def get_hot(self, uid: int, session_id: str, anchor: str) -> Slot | None:
        """L1 only: the live slot (recorded in the Bloom window), or None. Never blocks."""
        slot = self.l1.get((uid, session_id, anchor))
        if slot is not None:
            gen = self.doorkeeper.generation
            if slot.window != gen:
                # once per generation is enough for a set filter, and keeps the hit path < 1 µs
                self.doorkeeper.touch(_key_str(slot.key))
                slot.window = gen
        return slot

    async def get(self, uid: int, session_id: str, anchor: str) -> dict[str, Any] | None:
        """The slot ``(uid, session_id, anchor)`` from L1, else L2 (promoted on its second touch).

        :return: ``{session_id, anchor, data, version, memory_class, created_ms, tier}`` or None.
        """
        slot = self.get_hot(uid, session_id, anchor)
        if slot is not None:
            return self._view(slot, "l1")
        row = await self.l2.aread(records.get_summary, uid, session_id, anchor)
        if row is None:
            return None
        self._maybe_promote(row)
        return self._row_view(row)

    def _maybe_promote(self, row: dict[str, Any]) -> bool:
        key = (row["uid"], row["session_id"], row["anchor"])
        seen = self.doorkeeper.touch(_key_str(key))
        if self.settings.l1.doorkeeper and not seen:
            return False
        if self.l1.peek(key) is not None:
            return False
        slot = self.l1.put(key, row["data"], version=row["version"], memory_class=row["memory_class"],
                           created_ms=row["created_ms"], access_count=row["access_count"])
        if slot is not None:
            slot.window = self.doorkeeper.generation
            self.promotions += 1
            self.audit("promote", row["session_id"], "memory_l1", row["size_after"], slot.size,
                       uid=row["uid"], subject=row["anchor"])
        return slot is not None

    async def put(self, uid: int, session_id: str, anchor: str, data: dict[str, Any], *,
                  memory_class: str = "scratch", project: str | None = None, ttl_s: float | None = None,
                  summary: str = "", keywords: str = "", entities: dict[str, Any] | None = None,
                  actions: list[str] | None = None, size_before: int | None = None,
                  durable: bool = False) -> dict[str, Any]:
        """Write a slot: L1 now, L2 in the next batch (awaited when ``durable``).

        :return: the slot view (``tier`` is ``l1``, or ``l2`` when too large for L1).
        """
        row, slot = self.stage_put(uid, session_id, anchor, data, memory_class=memory_class, project=project,
                                   ttl_s=ttl_s, summary=summary, keywords=keywords, entities=entities,
                                   actions=actions, size_before=size_before)
        await self._settle(self.l2.write(records.upsert_summary, row), durable)
        if slot is not None:
            return self._view(slot, "l1")
        return self._row_view(row)

    def stage_put(self, uid: int, session_id: str, anchor: str, data: dict[str, Any], *,
                  memory_class: str = "scratch", project: str | None = None, ttl_s: float | None = None,
                  summary: str = "", keywords: str = "", entities: dict[str, Any] | None = None,
                  actions: list[str] | None = None, size_before: int | None = None,
                  at_ms: int | None = None) -> tuple[dict[str, Any], Slot | None]:
        """The L1 half of a put, done now; returns the L2 row to write (e.g. inside a turn's
        transaction, see ``MemoryService.commit_turn``) and the L1 slot (None if too large).

        :param at_ms: when what is remembered happened (a captured turn's reference time, epoch ms):
            the row's ``updated_ms``, which time-range searches filter on; default now."""
        key = (uid, session_id, anchor)
        version = self._next_version()
        now = self.now_ms() if at_ms is None else at_ms
        old = self.l1.peek(key)
        created = old.created_ms if old else now
        slot = self.l1.put(key, data, version=version, memory_class=memory_class, created_ms=created, ttl_s=ttl_s)
        if old is None or old.window != self.doorkeeper.generation:
            self.doorkeeper.touch(_key_str(key))
        if slot is not None:
            slot.window = self.doorkeeper.generation
        size_after = _nbytes(data)
        row = {
            "uid": uid, "session_id": session_id, "anchor": anchor, "version": version,
            "memory_class": memory_class, "project": project,
            # a plain put is indexed by its anchor and scalar values (the data itself is returned
            # with every hit); captures bring their compressed summary and keywords
            "summary": summary or anchor,
            "keywords": keywords or " ".join(str(v) for v in data.values() if isinstance(v, (str, int, float))),
            "entities": entities or {}, "actions": actions or [], "data": data,
            "size_before": size_after if size_before is None else size_before, "size_after": size_after,
            "access_count": slot.access_count if slot else 0, "created_ms": created, "updated_ms": now}
        return row, slot

    # -- capture ------------------------------------------------------------

    def stage_capture(self, uid: int, source: str, turn: dict[str, Any], *, slot_session: str | None = None,
                      at_ms: int | None = None, memory_class: str = "scratch", project: str | None = None,
                      trace_id: str = "", verbs: tuple[str, ...] = MEMORY_VERBS, defer: bool = False) -> Staged | None:
        """The pure half of a capture, done now: capture rule, compression, decay class, L1 put and
        the three ``[MCP]`` lines (capture, compress, decay); returns the L2 rows to write — in the
        turn's own transaction on the turn path (``MemoryService.commit_turn``) — or None when the
        turn carries nothing worth remembering.

        :param source: the session the turn belongs to (the audit's SOURCE).
        :param slot_session: the slot's session key (default ``source``; ``user:<uid>`` files it
            for every later session of the user).
        """
        reason = capture_reason(turn, verbs)
        if reason is None:
            return None
        at = self.now_ms() if at_ms is None else at_ms
        size_raw = _nbytes(turn)
        audits = [self.audit_row("capture", source, "memory", size_raw, size_raw, uid=uid, detail=reason,
                                 trace_id=trace_id, defer=defer)]
        c = compress(turn, uid=uid, at_ms=at, tz=self.tz, verbs=verbs)
        body = c.as_dict()
        size_c = _nbytes(body)
        row, slot = self.stage_put(uid, slot_session or source, c.anchor, body, memory_class=memory_class,
                                   project=project, summary=c.summary, keywords=c.keywords, entities=c.entities,
                                   actions=c.actions, size_before=size_raw, at_ms=at)
        tier = "memory_l1" if slot is not None else "memory_l2"
        audits.append(self.audit_row("compress", source, tier, size_raw, size_c, uid=uid, subject=c.anchor,
                                     trace_id=trace_id, defer=defer))
        audits.append(self.audit_row("decay", source, tier, size_c, size_c, uid=uid, subject=c.anchor,
                                     detail=f"class={memory_class} {self._decay_rule(memory_class)}",
                                     trace_id=trace_id, defer=defer))
        return Staged(row, audits, reason, c, tier)

    def _decay_rule(self, memory_class: str) -> str:
        d = self.settings.decay
        return {"scratch": f"demote_after_idle_s={d.window_s:g}", "project": f"keep_after_close_s={d.project_keep_s:g}",
                "person": f"reverify_s={d.person_verify_s:g}"}.get(memory_class, "")

    async def capture(self, uid: int, session_id: str, turn: dict[str, Any], *, at_ms: int | None = None,
                      memory_class: str = "scratch", project: str | None = None,
                      durable: bool = False) -> dict[str, Any] | None:
        """Capture a turn if it carries an entity, a memory verb or a tool result; else None.

        :param turn: ``{text?, entities?: [{type, value, anchor?}], intent?, tool_result?:
            {action, object, object_kind, target_anchor, status, actor?}}``.
        :return: ``{"slot": view, "event_id": int | None, "reason": str}``.

        A tool result is also appended to ``events`` (actor, action, object, kind,
        target anchor, at), which is what "what did I send 张工 last Wednesday?" searches.
        """
        at = self.now_ms() if at_ms is None else at_ms
        staged = self.stage_capture(uid, session_id, turn, at_ms=at, memory_class=memory_class, project=project)
        if staged is None:
            return None
        c = staged.compressed
        event_fut = None
        event_id = None
        tr = turn.get("tool_result")
        if isinstance(tr, dict):
            event_fut = self.l2.write(records.insert_event, self.event_row(
                uid, session_id, actor=str(tr.get("actor") or f"user:{uid}"), action=c.actions[0],
                object=str(tr.get("object", "")), object_kind=str(tr.get("object_kind", "")),
                target_anchor=str(tr.get("target_anchor", "")), at_ms=at, payload=tr))
        await self._settle(self.l2.write(staged.write), durable)
        slot = self.l1.peek((uid, session_id, c.anchor))
        view = self._view(slot, "l1") if slot is not None else self._row_view(staged.row)
        if event_fut is not None:
            event_id = await asyncio.wrap_future(event_fut) if durable else None
        return {"slot": view, "event_id": event_id, "reason": staged.reason}

    def event_row(self, uid: int, session_id: str, *, actor: str, action: str, object: str = "",
                  object_kind: str = "", target_anchor: str = "", at_ms: int,
                  payload: dict[str, Any] | None = None) -> dict[str, Any]:
        """An ``events`` row for :func:`records.insert_event` (text = the searchable words)."""
        text = " ".join(x for x in (action, object_kind, object, target_anchor, actor) if x)
        return {"uid": uid, "session_id": session_id, "actor": actor, "action": action, "object": object,
                "object_kind": object_kind, "target_anchor": target_anchor, "at_ms": at_ms,
                "payload": payload or {}, "text": text, "created_ms": self.now_ms()}

    async def record_event(self, uid: int, session_id: str, *, durable: bool = False, **fields: Any) -> int | None:
        """Append one event (see :meth:`event_row`); returns its id when ``durable``."""
        fut = self.l2.write(records.insert_event, self.event_row(uid, session_id, **fields))
        result = await self._settle(fut, durable)
        return result if durable else None

    async def _settle(self, fut: "concurrent.futures.Future[Any]", durable: bool) -> Any:
        # durable: the caller waits for COMMIT; otherwise only when the L2 queue is long (backpressure)
        if durable or self.l2.backlog() > self.settings.l2.max_queue:
            return await asyncio.wrap_future(fut)
        return None

    # -- retrieval ------------------------------------------------------------

    async def search(self, uid: int | None, *, query: str | None = None, anchors: list[str] | None = None,
                     action: str | None = None, kind: str | None = None, since_ms: int | None = None,
                     until_ms: int | None = None, k: int = 3, session_id: str | None = None,
                     entity: str | None = None) -> list[dict[str, Any]]:
        """Structured filters first, then keywords, ranked by ``raw · e^(−λ·hours)``; top ``k``.

        :param uid: restrict to this user's memories (None = every user, admin only).
        :param entity: only memories holding an entity of this type (``order_id``); events, which
            carry no entities, are then left out.
        :param query: whitespace-separated terms that must all occur (≥ 3 chars use FTS5 trigram).
        :param since_ms: inclusive lower bound; :param until_ms: exclusive upper bound.
        :return: items ``{"type": "event"|"memory", "score", ...row}``, best first.

        Memory rows read here go through the doorkeeper, so one bulk search promotes nothing.
        """
        tokens = (query or "").split()
        anchors = list(anchors or [])
        limit = max(k * 10, 50)
        f = dict(uid=uid, tokens=tokens, anchors=anchors, action=action, kind=kind,
                 since_ms=since_ms, until_ms=until_ms, limit=limit)

        def both(conn: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
            if entity:
                return [], records.search_summaries(conn, session_id=session_id, entity=entity, **f)
            exact: list[dict[str, Any]] = []
            if len(tokens) == 1:  # exact keys first: an object id needs no keyword index
                exact = records.search_events(conn, session_id=session_id, object_eq=tokens[0],
                                              **{**f, "tokens": []})
            if len(exact) >= k:
                return exact, []
            seen = {e["id"] for e in exact}
            events = exact + [e for e in records.search_events(conn, session_id=session_id, **f)
                              if e["id"] not in seen]
            return events, records.search_summaries(conn, session_id=session_id, **f)

        events, sums = await self.l2.aread(both)
        now = self.now_ms()
        lam = self.settings.decay.retrieval_decay_per_hour
        base = float(max(1, len(tokens) + bool(anchors) + bool(action) + bool(kind) + bool(entity)))
        out: list[dict[str, Any]] = []
        q = (query or "").strip()
        for e in events:
            raw = base + (1.0 if q and q in (e["object"], e["target_anchor"]) else 0.0)
            out.append({"type": "event", "score": raw * math.exp(-lam * max(0.0, (now - e["at_ms"]) / 3.6e6)), **e})
        # a captured tool result is stored twice: the event (what was done) and its compressed
        # summary (for keyword recall); a search for an action returns the event once, not both
        done = {(e["uid"], e["at_ms"], e["action"]) for e in events} if action else set()
        for s in sums:
            if done and (s["uid"], s["updated_ms"], action) in done:
                continue
            raw = base + (1.0 if q and q == s["anchor"] else 0.0)
            newer = self.l1.peek((s["uid"], s["session_id"], s["anchor"]))
            if newer is not None and newer.version > s["version"]:
                s["data"], s["version"] = newer.data, newer.version
            out.append({"type": "memory", "score": raw * math.exp(-lam * max(0.0, (now - s["updated_ms"]) / 3.6e6)),
                        **s})
        out.sort(key=lambda r: (-r["score"], r["type"]))
        top = out[:k]
        for r in top:
            if r["type"] == "memory":
                self._maybe_promote(r)
        return top

    # -- preloading ------------------------------------------------------------------

    async def preload(self, uid: int, *, max_items: int | None = None, max_bytes: int | None = None) -> dict[str, Any]:
        """Warm L1 with ``uid``'s user-level memories: the most used anchors, then the last captured,
        at most ``max_items`` slots and ``max_bytes`` (default ``l1.preload_items`` / ``preload_bytes``).
        Slots already in L1 are left as they are (L1 is never older than L2).

        :return: ``{"loaded": n, "bytes": n, "ms": elapsed}``.
        """
        t0 = time.perf_counter()
        n_max = self.settings.l1.preload_items if max_items is None else max_items
        b_max = self.settings.l1.preload_bytes if max_bytes is None else max_bytes
        if n_max <= 0 or b_max <= 0:
            return {"loaded": 0, "bytes": 0, "ms": 0.0}
        for _ in range(3):  # a forget during the read: read again, never warm what was just erased
            epoch = self.forgets
            rows = await self.l2.aread(records.preload_rows, uid, f"user:{uid}", n_max)
            if epoch == self.forgets:
                break
        else:
            rows = []
        loaded = used = 0
        for row in rows:
            key = (row["uid"], row["session_id"], row["anchor"])
            if self.l1.peek(key) is not None:
                continue
            size = _nbytes(row["data"])
            if loaded >= n_max or used + size > b_max:
                break
            slot = self.l1.put(key, row["data"], version=row["version"], memory_class=row["memory_class"],
                               created_ms=row["created_ms"], access_count=row["access_count"])
            if slot is not None:
                slot.window = self.doorkeeper.generation
                loaded += 1
                used += size
        ms = (time.perf_counter() - t0) * 1000
        if loaded:
            self.audit("preload", f"user:{uid}", "memory_l1", used, used, uid=uid, detail=f"slots={loaded}")
        return {"loaded": loaded, "bytes": used, "ms": round(ms, 3)}

    # -- forget and decay ---------------------------------------------------------

    async def forget(self, anchor: str, uid: int | None) -> dict[str, int]:
        """Erase ``anchor`` everywhere: L1 slots, L2 slots and events, and mark it for L3.

        :return: ``{"l1_bytes": n, "summaries": n, "events": n}``. Awaits durability.
        """
        n_l1 = 0
        self.forgets += 1
        for key, slot in self.l1.items():
            if key[2] == anchor and (uid is None or key[0] == uid):
                self.l1.pop(key)
                n_l1 += slot.size
        counts = await self.l2.awrite(records.delete_anchor_memories, anchor, uid, self.now_ms())
        self.audit("forget", anchor, "memory_l1,memory_l2,memory_l3", n_l1, 0, uid=uid, subject=anchor,
                   detail=f"summaries={counts['summaries']} events={counts['events']}")
        return {"l1_bytes": n_l1, **counts}

    async def forget_user(self, uid: int, upto: tuple[int, int] | None = None) -> dict[str, int]:
        """Erase every memory of ``uid`` (slots and events, L1 and L2; recorded for L3), the audit row
        in the same transaction. Awaits durability.

        :param upto: ``(max summary id, max event id)`` from :meth:`count_user` when the user was
            asked: what was stored after the question stays. None: everything.
        :return: ``{"summaries": n, "events": n}`` rows deleted.
        """
        n_l1 = 0
        self.forgets += 1
        for key, slot in self.l1.items():
            if key[0] == uid:  # L1 is a write-through copy: dropping it loses nothing committed
                self.l1.pop(key)
                n_l1 += slot.size
        row = self.audit_row("forget", f"user:{uid}", "memory_l1,memory_l2,memory_l3", n_l1, 0, uid=uid,
                             subject="*", detail="everything")
        return await self.l2.awrite(records.delete_user_memories, uid, self.now_ms(), upto, row)

    async def count_user(self, uid: int, action: str | None = None) -> dict[str, int]:
        """What :meth:`forget_user` / :meth:`forget_history` would erase now (see
        :func:`records.count_user_memories`)."""
        return await self.l2.aread(records.count_user_memories, uid, action)

    async def forget_history(self, uid: int, action: str | None, max_id: int) -> int:
        """Erase ``uid``'s history (events; of ``action`` only if given) up to event id ``max_id``,
        the audit row in the same transaction; facts and other slots stay. Awaits durability.

        :return: events deleted.
        """
        self.forgets += 1
        row = self.audit_row("forget", f"user:{uid}", "memory_l2,memory_l3", 0, 0, uid=uid,
                             subject=f"history:{action or '*'}", detail="history")
        return await self.l2.awrite(records.delete_user_history, uid, action, max_id, self.now_ms(), row)

    async def close_project(self, project: str, closed_ms: int | None = None) -> None:
        """Mark a project closed (its project-class memories are deleted ``project_keep_s`` later)."""
        await self.l2.awrite(records.close_project, project, self.now_ms() if closed_ms is None else closed_ms)

    async def decay(self) -> dict[str, int]:
        """One decay run; the service calls it every ``decay.window_s``.

        1. rotate the Bloom generations (the window that just ended becomes "previous");
        2. demote scratch slots neither generation saw — untouched for the whole window
           that just ended, i.e. idle ≥ ``window_s`` (2 h) — from L1 to L2 (L2 already
           holds them: write-through), and drop expired slots;
        3. delete project-class memories whose project closed more than ``project_keep_s`` ago;
        4. re-verify person anchors not verified for ``person_verify_s`` (through ``verifier``).
        Sets ``decay_last_run_s`` (``hermes_memory_decay_last_run_timestamp_seconds``).
        """
        d = self.settings.decay
        self.doorkeeper.rotate()
        demoted = expired = 0
        now = self.now_ms()
        clock_now = self.l1.clock()
        for key, slot in self.l1.items():
            if clock_now >= slot.expires_at:
                self.l1.pop(key)
                expired += 1
                continue
            if slot.memory_class != "scratch" or self.doorkeeper.seen(_key_str(key)):
                continue
            self.l1.pop(key)
            self.l2.write(_touch_access, key, slot.version, slot.access_count, now)
            demoted += 1
            self.demotions += 1
            self.audit("demote", key[1], "memory_l2", slot.size, _nbytes(slot.data), uid=key[0], subject=key[2])
        gone = await self.l2.awrite(records.delete_closed_projects, now - int(d.project_keep_s * 1000))
        for r in gone:
            self.l1.pop((r["uid"], r["session_id"], r["anchor"]))
            self.audit("decay", r["session_id"], "deleted", r["size_after"], 0, uid=r["uid"], subject=r["anchor"],
                       detail=f"project={r['project']}")
        verified = 0
        if self.verifier is not None:
            for anchor_id, outcome in await self.verifier(now - int(d.person_verify_s * 1000)):
                verified += 1
                self.audit("decay", anchor_id, "anchors", 0, 0, subject=anchor_id, detail=outcome)
        self.decay_last_run_s = now / 1000.0
        log.info("decay run", extra={"kv": {"demoted": demoted, "expired": expired, "deleted": len(gone),
                                            "verified": verified}})
        return {"demoted": demoted, "expired": expired, "deleted": len(gone), "verified": verified}

    # -- views ----------------------------------------------------------

    @staticmethod
    def _view(slot: Slot, tier: str) -> dict[str, Any]:
        return {"session_id": slot.key[1], "anchor": slot.key[2], "data": slot.data, "version": slot.version,
                "memory_class": slot.memory_class, "created_ms": slot.created_ms, "tier": tier}

    @staticmethod
    def _row_view(row: dict[str, Any]) -> dict[str, Any]:
        return {"session_id": row["session_id"], "anchor": row["anchor"], "data": row["data"],
                "version": row["version"], "memory_class": row["memory_class"], "created_ms": row["created_ms"],
                "tier": "l2"}


def _touch_access(conn: Any, key: Key, version: int, access_count: int, now_ms: int) -> None:
    # L2 already holds the slot (write-through); carry L1's access count down with it.
    conn.execute("UPDATE summaries SET access_count=max(access_count, ?) "
                 "WHERE uid=? AND session_id=? AND anchor=? AND version<=?",
                 (access_count, key[0], key[1], key[2], version))
