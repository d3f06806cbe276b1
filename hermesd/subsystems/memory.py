"""``MemoryService``: the memory stack and anchor graph as one daemon subsystem.

Methods (JSON-RPC): ``memory.get``, ``memory.put``, ``memory.search``,
``memory.forget``. A caller reads and writes only its own user's memories
(keyed on ``ctx.caller.uid``); an admin may pass ``uid`` (and ``memory.search`` /
``memory.forget`` without ``uid`` span every user). Fields listed in
``memory.hidden_fields[role]`` are removed from what that role reads.

The session controller uses the Python API: :meth:`capture`, :meth:`search`,
:meth:`get`, :meth:`put`, :meth:`record_event`, :meth:`resolve`, sessions
(:meth:`save_session`, :meth:`load_session`, :meth:`load_sessions`,
:meth:`delete_session`), stored replies (:meth:`store_reply`, :meth:`load_reply`),
pending tasks (:meth:`add_pending_task`, :meth:`pending_tasks`,
:meth:`set_task_status`), :meth:`close_project`, :meth:`merge_anchors` and
:meth:`commit_turn` (session state + stored reply + events + memory slots + the turn's
log record in one transaction). What the session layer needs beyond that is here too, typed, so
it never holds L1, L2, the core or the anchor graph (``session/ports.py`` ``MemoryPort``): the
turn log (:meth:`turn_records`, :meth:`session_audit`, :meth:`delete_turn_records`), the event
outbox (:meth:`outbox_add`, :meth:`outbox_pending`, :meth:`outbox_mark_delivered`,
:meth:`outbox_waiting_uids`) and schedule (:meth:`schedule_event`, :meth:`unschedule_event`,
:meth:`waiting_schedule`, :meth:`take_scheduled`), a mention bound for a session
(:meth:`bind_mention`), event rows and staged captures for :meth:`commit_turn`
(:meth:`event_row`, :meth:`stage_fact`, :meth:`stage_capture`, :meth:`flush_lines`), a user's
facts (:meth:`user_memories`, :meth:`get_hot`, :meth:`forget_user`) and :attr:`version`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any, Callable

import orjson

from ..errors import InputInvalid, PermissionDenied
from ..metrics import Histogram, Registry
from ..protocol import CallContext, Method
from ..section import shipped_path
from .subsystem import DaemonContext, Subsystem, section
from ..tasks import cancel_and_wait
from ..anchors.directory import Directory
from ..anchors.graph import AnchorGraph, Resolution
from ..memory import outbox, records, turnlog
from ..memory.capture import stage_fact
from ..memory.l2 import L2Store
from ..clock import wall_ms
from ..memory.mcp import MemoryCore, Staged
from ..memory.hiding import hide
from ..memory.settings import MemorySettings
from ..typed import BaseModel, ConfigDict, Field

__all__ = ["MemoryService", "L2_FILENAME"]

log = logging.getLogger(__name__)
L2_FILENAME = "l2.sqlite3"


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GetParams(_Params):
    """``memory.get``: one slot by exact key; ``uid`` (admin only) reads another user's."""

    session_id: str = Field(min_length=1, max_length=256)
    anchor: str = Field(min_length=1, max_length=512)
    uid: int | None = None


class PutParams(_Params):
    """``memory.put``: write a slot; ``durable`` (default) answers after the L2 COMMIT;
    ``ttl_s`` bounds its stay in L1 (it stays in L2); ``project`` ties a project-class slot
    to a project for decay."""

    session_id: str = Field(min_length=1, max_length=256)
    anchor: str = Field(min_length=1, max_length=512)
    data: dict[str, Any]
    memory_class: str = Field("scratch", pattern="^(scratch|project|person)$")
    project: str | None = None
    ttl_s: float | None = Field(None, gt=0)
    durable: bool = True
    uid: int | None = None


class SearchParams(_Params):
    """``memory.search``: every given filter must hold; ``since``/``until`` are ms since the
    epoch or ISO 8601 (naive = device zone), half-open; ``k`` defaults to ``memory.default_k``."""

    query: str | None = Field(None, max_length=1024)
    anchors: list[str] | None = None
    action: str | None = None
    kind: str | None = None
    since: int | str | None = None
    until: int | str | None = None
    k: int | None = Field(None, ge=1, le=100)
    session_id: str | None = None
    entity: str | None = Field(None, max_length=64, pattern=r"^[a-z][a-z0-9_]*$")  #: an entity type: order_id
    uid: int | None = None


class ForgetParams(_Params):
    """``memory.forget``: erase an anchor's memories (the caller's; an admin's without
    ``uid`` span every user)."""

    anchor: str = Field(min_length=1, max_length=512)
    uid: int | None = None


def to_ms(value: int | str | None, tz: tzinfo) -> int | None:
    """ms since epoch from an int (already ms) or an ISO 8601 string (naive → ``tz``).

    :raises InputInvalid: unparseable string.
    """
    if value is None or isinstance(value, int):
        return value
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        raise InputInvalid(f"not an ISO 8601 time: {value!r}", data={"violations": [{"value": value}]}) from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=tz)
    return int(dt.timestamp() * 1000)


#: derived text of a memory item that repeats its values (search keywords, compressed summary, FTS snippet)
def _load_directory(s: MemorySettings) -> Directory | None:
    """The configured directory, the shipped one when none is configured, or None.

    :raises ValueError: a configured file is missing or malformed.
    """
    path = Path(s.directory_path) if s.directory_path else shipped_path("config", "directory.yaml")
    if path.is_file():
        return Directory.load(path)
    if s.directory_path:
        raise ValueError(f"memory.directory_path {path} does not exist")
    return None


class MemoryService(Subsystem):
    """The ``memory`` subsystem.

    :param settings: the ``memory:`` section; when None, read from ``ctx.config.memory``
        at start (defaults if the config has no such key).
    :param clock: monotonic seconds, :param now_ms: wall-clock ms, :param tz: device
        zone for rendering summaries and naive ``since``/``until`` (tests inject these).
    :param run_decay: schedule the decay job every ``decay.window_s``.

    L2 lives at ``<state_dir>/l2.sqlite3``.
    """

    name = "memory"

    def __init__(self, settings: MemorySettings | None = None, *, clock: Callable[[], float] = time.monotonic,
                 now_ms: Callable[[], int] = wall_ms, tz: tzinfo | None = None, run_decay: bool = True) -> None:
        self._settings = settings
        self.clock = clock
        self.now_ms = now_ms
        self.tz = tz or datetime.now().astimezone().tzinfo
        self.run_decay = run_decay
        self.l2: L2Store | None = None
        self.core: MemoryCore | None = None
        self.graph: AnchorGraph | None = None
        self._decay_task: asyncio.Task[None] | None = None
        self.l2_commit_seconds = Histogram(
            "hermes_memory_l2_commit_duration_seconds",
            "One L2 write transaction, BEGIN IMMEDIATE to the end of COMMIT (the fsync included).")

    @property
    def settings(self) -> MemorySettings:
        assert self._settings is not None
        return self._settings

    # -- life cycle -------------------------------------------------------------

    async def start(self, ctx: DaemonContext) -> None:
        if self._settings is None:
            self._settings = section(ctx.config, "memory", MemorySettings)
        await self.open(Path(ctx.state_dir))

    async def open(self, state_dir: Path) -> None:
        """Open L2 under ``state_dir``, load the anchor pool and directory, start decay.

        :raises L2Unavailable: the L2 file cannot be opened; ValueError: bad directory file.
        """
        s = self.settings
        self.l2 = L2Store(Path(state_dir) / L2_FILENAME, journal_mode=s.l2.journal_mode,
                          synchronous=s.l2.synchronous, locking_mode=s.l2.locking_mode,
                          busy_timeout_ms=s.l2.busy_timeout_ms, batch_ms=s.l2.batch_ms,
                          max_batch_ops=s.l2.max_batch_ops, unsafe=s.l2.unsafe)
        self.l2.on_commit = self.l2_commit_seconds.observe
        await asyncio.to_thread(self.l2.open)
        self.graph = AnchorGraph(self.l2, _load_directory(s), mention_ttl_s=s.mention_ttl_s, clock=self.clock,
                                 now_ms=self.now_ms)
        await self.graph.load()
        self.core = MemoryCore(s, self.l2, clock=self.clock, now_ms=self.now_ms, tz=self.tz,
                               verifier=self.graph.reverify)
        await self.core.start()
        if self.run_decay:
            self._decay_task = asyncio.create_task(self._decay_loop(), name="hermesd-memory-decay")
        log.info("memory started", extra={"kv": {"l2": str(self.l2.path), "journal_mode": s.l2.journal_mode,
                                                 "anchors": len(self.graph.pool)}})

    async def stop(self) -> None:
        await cancel_and_wait(self._decay_task)
        self._decay_task = None
        if self.l2 is not None:
            await asyncio.to_thread(self.l2.close)

    async def _decay_loop(self) -> None:
        while True:
            await asyncio.sleep(self.settings.decay.window_s)
            try:
                assert self.core is not None and self.graph is not None
                await self.core.decay()
                self.graph.prune_mentions()
            except Exception:
                log.exception("decay run failed")

    def memory_roots(self) -> dict[str, list[Any]]:
        core = self.core
        return {"L1": [core.l1] if core is not None else [], "memory core and anchors": [core, self.graph]}

    def health(self) -> dict[str, Any]:
        if self.core is None or self.l2 is None or not self.l2.running:
            return {"status": "down"}
        return {"status": "ok", "l1_entries": len(self.core.l1), "l1_bytes": self.core.l1.bytes,
                "l1_sessions": self.core.l1.sessions, "l1_hit_ratio": round(self.core.l1.hit_ratio(), 4), "l2_commits": self.l2.commits}

    def register_metrics(self, registry: Registry) -> None:
        """L1 (hits, misses, ratio, size), L2 (commits, their latency, queue) and decay; the counts
        are the ones L1, L2 and the core keep, read at scrape time."""
        if self.core is None or self.l2 is None:
            return
        core, l1, l2 = self.core, self.core.l1, self.l2
        registry.gauge("hermes_memory_l1_hit_ratio", "Share of memory reads served by L1 since start (0..1).",
                       collect=l1.hit_ratio)
        registry.counter("hermes_memory_l1_hits_total", "Memory reads served by L1.", collect=lambda: l1.hits)
        registry.counter("hermes_memory_l1_misses_total", "Memory reads L1 did not hold.", collect=lambda: l1.misses)
        registry.counter("hermes_memory_l1_evictions_total", "L1 entries evicted by its byte or entry bound.",
                         collect=lambda: l1.evictions)
        registry.counter("hermes_memory_l1_promotions_total", "Slots promoted from L2 into L1 (second touch).",
                         collect=lambda: core.promotions)
        registry.counter("hermes_memory_l1_demotions_total", "Idle scratch slots demoted from L1 by decay.",
                         collect=lambda: core.demotions)
        registry.gauge("hermes_memory_l1_bytes", "Bytes held in L1.", collect=lambda: l1.bytes)
        registry.gauge("hermes_memory_l1_entries", "Entries held in L1.", collect=lambda: len(l1))
        registry.counter("hermes_memory_l2_commits_total", "L2 write transactions committed.",
                         collect=lambda: l2.commits)
        registry.counter("hermes_memory_l2_writes_total", "Writes the committed L2 transactions held.",
                         collect=lambda: l2.batched_writes)
        registry.counter("hermes_memory_l2_failed_commits_total", "L2 write transactions whose COMMIT failed.",
                         collect=lambda: l2.failed_commits)
        registry.add(self.l2_commit_seconds)
        registry.gauge("hermes_memory_l2_queue_length", "L2 operations queued and not yet taken by its thread.",
                       collect=l2.backlog)
        registry.gauge("hermes_memory_decay_last_run_timestamp_seconds",
                       "Unix time the last decay run finished (0: none since start).",
                       collect=lambda: core.decay_last_run_s)
        registry.gauge("hermes_memory_decay_interval_seconds", "Seconds between decay runs (memory.decay.window_s).",
                       collect=lambda: self.settings.decay.window_s)

    async def reload(self, config: Any) -> None:
        """Apply hidden fields, default k, decay, L1 bounds and the directory file;
        L2 settings need a restart. A directory file that does not load keeps the old one.
        """
        new = section(config, "memory")
        if new is None or self.core is None or self.graph is None:
            return
        if new.l2 != self.settings.l2:
            log.warning("memory.l2 changes take effect at the next start")
        try:
            n = await self.graph.set_directory(_load_directory(new))
            log.info("directory reloaded", extra={"kv": {"people": n}})
        except (OSError, ValueError) as exc:
            log.error("directory reload failed; keeping the old one", extra={"kv": {"error": str(exc)}})
        self._settings = new
        self.core.settings = new
        self.core.l1.max_bytes, self.core.l1.max_entries = new.l1.max_bytes, new.l1.max_entries
        self.core.l1.ttl_s, self.core.l1.max_sessions = new.l1.ttl_s, new.l1.max_sessions

    # -- JSON-RPC methods -----------------------------------------------------------

    def methods(self) -> list[Method]:
        return [
            Method("memory.get", self._m_get, params_model=GetParams),
            Method("memory.put", self._m_put, params_model=PutParams),
            Method("memory.search", self._m_search, params_model=SearchParams),
            Method("memory.forget", self._m_forget, params_model=ForgetParams),
        ]

    @staticmethod
    def _uid(uid: int | None, ctx: CallContext, *, all_if_admin: bool = False) -> int | None:
        if uid is not None and uid != ctx.caller.uid and ctx.caller.role != "admin":
            raise PermissionDenied("only an admin may read or change another user's memories")
        if uid is None:
            return None if (all_if_admin and ctx.caller.role == "admin") else ctx.caller.uid
        return uid

    def _hide(self, obj: Any, ctx: CallContext) -> Any:
        return hide(obj, self.settings.hidden_fields.get(ctx.caller.role, []))

    async def _m_get(self, p: GetParams, ctx: CallContext) -> dict[str, Any]:
        slot = await self.get(self._uid(p.uid, ctx), p.session_id, p.anchor)  # type: ignore[arg-type]
        return {"found": slot is not None, "slot": self._hide(slot, ctx) if slot else None}

    async def _m_put(self, p: PutParams, ctx: CallContext) -> dict[str, Any]:
        view = await self.put(self._uid(p.uid, ctx), p.session_id, p.anchor, p.data,  # type: ignore[arg-type]
                              memory_class=p.memory_class, project=p.project, ttl_s=p.ttl_s, durable=p.durable)
        return {"version": view["version"], "tier": view["tier"], "durable": p.durable}

    async def _m_search(self, p: SearchParams, ctx: CallContext) -> dict[str, Any]:
        items = await self.search(self._uid(p.uid, ctx, all_if_admin=True), query=p.query, anchors=p.anchors,
                                  action=p.action, kind=p.kind, since=p.since, until=p.until, k=p.k,
                                  session_id=p.session_id, entity=p.entity)
        return {"items": self._hide(items, ctx)}

    async def _m_forget(self, p: ForgetParams, ctx: CallContext) -> dict[str, Any]:
        return await self.forget(p.anchor, self._uid(p.uid, ctx, all_if_admin=True))

    # -- Python API (session controller) -------------------------------------------

    def _c(self) -> MemoryCore:
        if self.core is None:
            raise RuntimeError("memory service is not started")
        return self.core

    async def get(self, uid: int, session_id: str, anchor: str) -> dict[str, Any] | None:
        """Slot view or None (see :meth:`MemoryCore.get`)."""
        return await self._c().get(uid, session_id, anchor)

    async def put(self, uid: int, session_id: str, anchor: str, data: dict[str, Any], **kw: Any) -> dict[str, Any]:
        """Write a slot (see :meth:`MemoryCore.put`; ``durable=True`` awaits the COMMIT).

        An explicit put is a capture: it writes one audit record and one ``[MCP]`` line.
        """
        view = await self._c().put(uid, session_id, anchor, data, **kw)
        size = len(orjson.dumps(data))
        self._c().audit("capture", session_id, "memory_l1" if view["tier"] == "l1" else "memory_l2", size, size,
                        uid=uid, subject=anchor, detail="put")
        return view

    async def capture(self, uid: int, session_id: str, turn: dict[str, Any], **kw: Any) -> dict[str, Any] | None:
        """Capture a turn (see :meth:`MemoryCore.capture`)."""
        return await self._c().capture(uid, session_id, turn, **kw)

    async def preload(self, uid: int, **kw: Any) -> dict[str, Any]:
        """Warm L1 with the caller's most used and last captured memories (see :meth:`MemoryCore.preload`)."""
        out = await self._c().preload(uid, **kw)
        log.info("memory.preload", extra={"kv": {"uid": uid, **out}})
        return out

    async def record_event(self, uid: int, session_id: str, **fields: Any) -> int | None:
        """Append an event ``{actor, action, object, object_kind, target_anchor, at_ms, payload, durable}``."""
        return await self._c().record_event(uid, session_id, **fields)

    async def search(self, uid: int | None, *, query: str | None = None, anchors: list[str] | None = None,
                     action: str | None = None, kind: str | None = None, since: int | str | None = None,
                     until: int | str | None = None, k: int | None = None,
                     session_id: str | None = None, entity: str | None = None) -> list[dict[str, Any]]:
        """Ranked retrieval; ``since``/``until`` are ms or ISO 8601 (half-open range); ``entity``: only
        memories holding an entity of that type."""
        return await self._c().search(uid, query=query, anchors=anchors, action=action, kind=kind,
                                      since_ms=to_ms(since, self.tz), until_ms=to_ms(until, self.tz),
                                      k=k or self.settings.default_k, session_id=session_id, entity=entity)

    async def forget(self, anchor: str, uid: int | None) -> dict[str, int]:
        """Erase an anchor's memories everywhere (durable when it returns)."""
        return await self._c().forget(anchor, uid)

    async def resolve(self, mention: str, *, session_id: str = "", type: str = "person",
                      context: dict[str, Any] | None = None, fuzzy: bool = True) -> Resolution:
        """Anchor resolution (see :class:`~hermesd.anchors.graph.AnchorGraph`); ``fuzzy=False`` skips
        the fuzzy step (the session layer does so under load)."""
        assert self.graph is not None
        return await self.graph.resolve(mention, session_id=session_id, type=type, context=context, fuzzy=fuzzy)

    async def merge_anchors(self, old: str, new: str) -> dict[str, int]:
        """Merge two anchors found to be the same; L1 copies of ``old`` are flushed first."""
        assert self.graph is not None and self.l2 is not None
        core = self._c()
        for key, _slot in core.l1.items():
            if key[2] == old:
                core.l1.pop(key)
        return await self.graph.merge(old, new)

    async def close_project(self, project: str, closed_ms: int | None = None) -> None:
        """Mark a project closed; its project-class memories go ``decay.project_keep_s`` later."""
        await self._c().close_project(project, closed_ms)

    async def save_session(self, session: dict[str, Any], *, durable: bool = True) -> None:
        """Upsert ``{session_id, uid, state, version, data, updated_ms, expires_ms}``."""
        if not durable:
            self._l2().write_soon(records.save_session, session)  # after the reply, in order (L2Store.write_soon)
            return
        await asyncio.wrap_future(self._l2().write(records.save_session, session))

    async def save_sessions(self, rows: list[dict[str, Any]]) -> None:
        """Upsert many session rows in one transaction, awaited to disk (parking idle sessions)."""
        def save(conn: Any) -> None:
            for row in rows:
                records.save_session(conn, row)
        await self._l2().awrite(save)

    async def load_session(self, session_id: str) -> dict[str, Any] | None:
        return await self._l2().aread(records.load_session, session_id)

    async def load_sessions(self) -> list[dict[str, Any]]:
        """Every stored session, oldest update first (for restore at start-up)."""
        return await self._l2().aread(records.load_sessions)

    async def delete_session(self, session_id: str) -> int:
        if self.graph is not None:
            self.graph.forget_session(session_id)
        return await self._l2().awrite(records.delete_session, session_id)

    async def store_reply(self, session_id: str, message_id: str, uid: int, reply: dict[str, Any]) -> None:
        """Keep the first reply to a message id (durable when it returns)."""
        await self._l2().awrite(records.store_reply, session_id, message_id, uid, reply, self.now_ms())

    async def load_reply(self, session_id: str, message_id: str) -> dict[str, Any] | None:
        return await self._l2().aread(records.load_reply, session_id, message_id)

    async def add_pending_task(self, uid: int, session_id: str, intent: str, slots: dict[str, Any],
                               due_ms: int | None = None) -> int:
        return await self._l2().awrite(records.add_task, {"uid": uid, "session_id": session_id, "intent": intent,
                                                          "slots": slots, "created_ms": self.now_ms(),
                                                          "due_ms": due_ms})

    async def pending_tasks(self, uid: int | None, status: str | None = "open") -> list[dict[str, Any]]:
        return await self._l2().aread(records.list_tasks, uid, status)

    async def set_task_status(self, task_id: int, status: str) -> int:
        return await self._l2().awrite(records.set_task_status, task_id, status)

    async def commit_turn(self, *, session: dict[str, Any] | None = None,
                          reply: tuple[str, str, int, dict[str, Any]] | None = None,
                          events: list[dict[str, Any]] | None = None,
                          slots: list[dict[str, Any]] | None = None, durable: bool = True,
                          turn_record: tuple[str, int, dict[str, Any]] | None = None,
                          staged: list[Staged] | None = None) -> list[int]:
        """Session state + stored reply + events + memory slots + turn log in ONE transaction.

        :param session: see :meth:`save_session`.
        :param reply: ``(session_id, message_id, uid, reply)``.
        :param events: rows from :meth:`event_row`.
        :param slots: ``[{uid, session_id, anchor, data, memory_class?, project?}]``;
            they are in L1 at once and in L2 with the rest of the turn.
        :param turn_record: ``(session_id, at_ms, record)``: the turn's raw record for the turn log.
        :param staged: captures and facts from :meth:`stage_capture` / :meth:`stage_fact`.
        :param durable: wait for the COMMIT (fsync); False queues the same single transaction and
            returns at once (for turns without side effects: losing one to a crash only means the
            client's retry runs it again).
        :return: the event ids (empty when not durable). Durable when it returns with ``durable``;
            on error nothing of the turn is in L2.
        """
        now = self.now_ms()
        core = self._c()
        rows = [core.stage_put(s["uid"], s["session_id"], s["anchor"], s["data"],
                               memory_class=s.get("memory_class", "scratch"), project=s.get("project"))[0]
                for s in slots or []]

        def op(conn: Any) -> list[int]:
            if session is not None:
                records.save_session(conn, session)
            if reply is not None:
                records.store_reply(conn, *reply, now)
            for r in rows:
                records.upsert_summary(conn, r)
            if turn_record is not None:
                turnlog.insert(conn, *turn_record)
            for st in staged or []:
                st.write(conn)
            return [records.insert_event(conn, e) for e in events or []]

        if not durable:
            self._l2().write_soon(op)  # the thread starts on it once the reply is on its way
            return []
        return await self._l2().awrite(op)

    # -- for the session layer: staged captures, facts, mentions ---------------------

    @property
    def version(self) -> int:
        """The newest memory version given out (ms-based, increasing; 0 before start)."""
        return self.core._version if self.core is not None else 0

    def event_row(self, uid: int, session_id: str, **fields: Any) -> dict[str, Any]:
        """An ``events`` row for :meth:`commit_turn` (fields: see :meth:`MemoryCore.event_row`)."""
        return self._c().event_row(uid, session_id, **fields)

    def stage_fact(self, uid: int, source: str, anchor: str, data: dict[str, Any], *, detail: str,
                   trace_id: str = "") -> Staged:
        """Stage an explicit fact of ``uid`` in L1 (see :func:`hermesd.memory.capture.stage_fact`); its L2
        half goes in :meth:`commit_turn` ``staged``."""
        return stage_fact(self._c(), uid, source, anchor, data, detail=detail, trace_id=trace_id)

    def stage_capture(self, uid: int, source: str, turn: dict[str, Any], **kw: Any) -> Staged | None:
        """Stage the capture of a turn (see :meth:`MemoryCore.stage_capture`), or None: nothing to keep."""
        return self._c().stage_capture(uid, source, turn, **kw)

    def flush_lines(self) -> int:
        """Log the deferred ``[MCP]`` lines of staged captures; returns how many."""
        return self._c().flush_lines()

    def get_hot(self, uid: int, session_id: str, anchor: str) -> dict[str, Any] | None:
        """A slot from L1 only (counts as a lookup; never blocks): ``{anchor, data, version}`` or None."""
        slot = self._c().get_hot(uid, session_id, anchor)
        return None if slot is None else {"anchor": slot.key[2], "data": slot.data, "version": slot.version}

    async def user_memories(self, uid: int, session_id: str) -> list[dict[str, Any]]:
        """The slots of ``(uid, session_id)`` (most used, then newest first), each row's ``data`` replaced
        by a newer L1 copy when L1 holds one (L1 is ahead of L2 until the turn's batch commits)."""
        core = self._c()
        rows = await self._l2().aread(records.list_user_memories, uid, session_id)
        out = []
        for r in rows:
            hot = core.l1.peek((uid, session_id, r["anchor"]))
            out.append({**r, "data": hot.data} if hot is not None and hot.version >= r["version"] else r)
        return out

    async def forget_user(self, uid: int, upto: tuple[int, int] | None = None) -> dict[str, int]:
        """Erase every memory of ``uid`` stored up to ``upto`` (durable when it returns); returns
        ``{"summaries": n, "events": n}`` (see :meth:`MemoryCore.forget_user`)."""
        return await self._c().forget_user(uid, upto)

    async def count_user(self, uid: int, action: str | None = None) -> dict[str, int]:
        """What an erasure of ``uid``'s memories or history would take now (facts, notes, other slots,
        events, highest ids)."""
        return await self._c().count_user(uid, action)

    async def forget_history(self, uid: int, action: str | None, max_id: int) -> int:
        """Erase ``uid``'s history (events, of ``action`` if given) up to ``max_id``; returns how many."""
        return await self._c().forget_history(uid, action, max_id)

    def bind_mention(self, session_id: str, mention: str, anchor_id: str) -> None:
        """Keep ``mention`` → ``anchor_id`` in the anchor graph's cache for this session."""
        assert self.graph is not None
        self.graph.bind(session_id, mention, anchor_id)

    # -- for the session layer: turn log ----------------------------------------------

    async def turn_records(self, session_id: str) -> list[dict[str, Any]]:
        """The session's raw turn records (:mod:`hermesd.memory.turnlog`), oldest first."""
        return await self._l2().aread(turnlog.records, session_id)

    async def session_audit(self, session_id: str) -> list[dict[str, Any]]:
        """The audit lines the session caused, oldest first, as ``{column: value}``."""
        return await self._l2().aread(turnlog.audit_rows, session_id)

    async def delete_turn_records(self, session_id: str) -> int:
        """Delete the session's turn records (durable when it returns); returns how many."""
        return await self._l2().awrite(turnlog.delete, session_id)

    # -- for the session layer: the event outbox and schedule -------------------------

    async def outbox_add(self, uid: int, kind: str, data: dict[str, Any], created_ms: int) -> int:
        """Store an undelivered event for ``uid`` (durable when it returns); returns its id."""
        return await self._l2().awrite(outbox.add, uid, kind, data, created_ms)

    async def outbox_mark_delivered(self, ids: list[int], at_ms: int) -> None:
        """Mark events delivered (durable when it returns)."""
        await self._l2().awrite(outbox.mark_delivered, ids, at_ms)

    async def outbox_waiting_uids(self) -> list[int]:
        """The uids with undelivered events."""
        return await self._l2().aread(outbox.waiting_uids)

    async def outbox_pending(self, uid: int, limit: int, before_ms: int,
                             kinds: tuple[str, ...] = ()) -> tuple[list[dict[str, Any]], bool]:
        """Undelivered events ``{id, kind, data, created_ms}`` of ``uid`` and whether more are left
        (see :func:`hermesd.memory.outbox.pending`)."""
        return await self._l2().aread(outbox.pending, uid, limit, before_ms, kinds)

    async def schedule_event(self, uid: int, kind: str, key: str, data: dict[str, Any], due_ms: int) -> int:
        """Schedule an event for ``due_ms`` (epoch ms; durable when it returns); returns its schedule id."""
        return await self._l2().awrite(outbox.schedule, uid, kind, key, data, due_ms)

    async def unschedule_event(self, uid: int, key: str) -> int:
        """Cancel the uid's waiting events named ``key``; returns how many."""
        return await self._l2().awrite(outbox.unschedule, uid, key)

    async def waiting_schedule(self) -> list[tuple[int, int]]:
        """``(due_ms, schedule id)`` of every waiting event."""
        return await self._l2().aread(outbox.waiting_schedule)

    async def take_scheduled(self, schedule_id: int) -> outbox.Scheduled | None:
        """Mark a waiting event fired and return it; None when it was cancelled or fired meanwhile."""
        return await self._l2().awrite(outbox.take_scheduled, schedule_id)

    def _l2(self) -> L2Store:
        if self.l2 is None:
            raise RuntimeError("memory service is not started")
        return self.l2
