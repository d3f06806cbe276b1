"""The session subsystem: ``session.*`` methods, the one timer task, rule hot reload, restore.

Methods (admin and user; a session belongs to the uid that opened it, anyone else
gets ``SESSION_NOT_FOUND``; admin may list and read every session):

- ``session.open {user?, locale?, tz?, channel?, metadata?}`` → ``{session_id, state, version, offer?}``;
  ``locale`` is a BCP 47 tag (``zh-CN``, ``zh-TW``, ``en-US`` …) kept as the session language ``zh`` | ``en``
  (:mod:`.locale`), an unknown one is ``INPUT_INVALID``
- ``session.turn {session_id, text, message_id?, reference_time?}`` → ``{reply: {text, card?}, state,
  version, intent, entities, actions, path, trace_id, timings_ms, events?}``; ``events``: when the user
  has no ``events.subscribe`` stream, those that waited for them, then those this turn raised (a
  hand-off rides on the reply that says it)
- ``session.confirm {session_id, accept | choice, message_id?}`` → same as a turn
- ``session.get {session_id}``, ``session.trace {session_id}``, ``session.close {session_id}``, ``session.list``
- ``events.subscribe {kinds?}``: the connection becomes a stream of ``event`` notifications (:mod:`.events`)

One asyncio task serves every session's deadlines (a heap, not a task or timer
per session), the TTL sweep and the rule-file poll (checksum, ``poll_interval_ms``).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from dataclasses import dataclass, field as dc_field
from datetime import datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo

from ..dialogue.lexicon import load_lexicon
from ..memory.capture import load_capture_rules
from ..dialogue.questions import Choice, Confirm, Offer
from ..errors import InputInvalid, SessionNotFound
from ..metrics import Registry
from ..protocol import CallContext, Method
from ..rules.loader import RuleSource
from .subsystem import DaemonContext, Subsystem, section
from ..tasks import cancel_and_wait
from ..session.controller import Controller
from ..session.locale import session_language
from ..session.record import Session
from ..session.events import EVENT_KINDS, EventBus
from ..session.schedules import schedule_changes
from ..session.settings import SessionSettings, resolve_rules_dir
from ..typed import BaseModel, ConfigDict, Field, StrictBool, field_validator, model_validator

__all__ = ["SessionService"]

log = logging.getLogger(__name__)
_ALL = frozenset({"admin", "user"})
_SID = Field(min_length=8, max_length=64, pattern=r"^[0-9A-Za-z]+$")


@dataclass(slots=True)
class _TurnEvents:
    """The events a running turn of ``session_id`` raised: their publishing, and those that ride on its reply."""

    session_id: str
    publishing: list[asyncio.Task[Any]] = dc_field(default_factory=list)
    events: list[dict[str, Any]] = dc_field(default_factory=list)


#: the turn this task is running (set by ``session.turn`` / ``session.confirm`` around the controller's turn)
_TURN: contextvars.ContextVar[_TurnEvents | None] = contextvars.ContextVar("hermesd_turn_events", default=None)


class _P(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OpenParams(_P):
    user: str | None = Field(None, max_length=128)
    #: a BCP 47 tag (zh-CN, zh-Hans-CN, zh-TW, en-US, en …), stored as the session language zh | en
    locale: str | None = Field(None, max_length=64)
    tz: str | None = Field(None, max_length=64)
    channel: str | None = Field(None, max_length=64)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("locale")
    @classmethod
    def _locale(cls, v: str | None) -> str | None:
        return None if v is None else session_language(v)

    @field_validator("tz")
    @classmethod
    def _zone(cls, v: str | None) -> str | None:
        if v is not None:
            try:
                ZoneInfo(v)
            except Exception:
                raise ValueError(f"unknown IANA time zone {v!r}") from None
        return v


class TurnParams(_P):
    session_id: str = _SID
    text: str = Field(max_length=4096)
    message_id: str | None = Field(None, min_length=1, max_length=128)
    reference_time: datetime | None = None

    @field_validator("reference_time")
    @classmethod
    def _aware(cls, v: datetime | None) -> datetime | None:
        if v is not None and v.tzinfo is None:
            raise ValueError("reference_time needs a UTC offset, e.g. 2024-06-19T10:00:00+08:00")
        if v is not None and not 1971 <= v.year <= 9000:
            raise ValueError("reference_time must be between the years 1971 and 9000")
        return v


class ConfirmParams(_P):
    session_id: str = _SID
    accept: StrictBool | None = None
    choice: int | None = Field(None, ge=1, le=100, description="1-based, as shown in the card")
    message_id: str | None = Field(None, min_length=1, max_length=128)
    #: default: the reference time of the turn that asked
    reference_time: datetime | None = None

    _aware = field_validator("reference_time")(TurnParams._aware.__func__)  # type: ignore[attr-defined]

    @model_validator(mode="after")
    def _one(self) -> "ConfirmParams":
        if (self.accept is None) == (self.choice is None):
            raise ValueError("give exactly one of accept, choice")
        return self


class SessionParams(_P):
    session_id: str = _SID


class ListParams(_P):
    all_users: bool = False


class SubscribeParams(_P):
    kinds: list[Literal[EVENT_KINDS]] = Field(default_factory=list,  # type: ignore[valid-type]
                                             description="empty = every kind")


class SessionService(Subsystem):
    """Subsystem ``session``; needs ``memory``, ``nlu`` and ``tools`` started before it."""

    name = "session"

    def __init__(self, settings: SessionSettings | None = None) -> None:
        self._override = settings
        self.settings = settings or SessionSettings()
        self.controller: Controller | None = None
        self.rules: RuleSource | None = None
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._last_poll = 0.0
        self.events: EventBus | None = None
        self._tools: Any = None
        self._publishing: set[asyncio.Task[Any]] = set()

    async def start(self, ctx: DaemonContext) -> None:
        if self._override is None:
            self.settings = section(ctx.config, "session", SessionSettings)
        subs = ctx.subsystems
        for need in ("memory", "nlu", "tools"):
            if need not in subs:
                raise RuntimeError(f"the session subsystem needs {need}, which did not start")
        tools, nlu = subs["tools"], subs["nlu"]
        registry = getattr(tools, "registry", None)
        known_tools = set(registry.tools) if registry else None
        # each tool step of the packs gets its tool's reply template, for {{steps.<id>.reply}}
        tool_replies = registry.reply_templates() if registry else None
        known_intents = {spec.name for spec in nlu.engine.specs} or None
        self.rules = RuleSource(resolve_rules_dir(self.settings), known_intents=known_intents, known_tools=known_tools,
                                tool_replies=tool_replies)
        await asyncio.to_thread(self.rules.reload)
        if not len(self.rules.engine):
            log.warning("no rules loaded: every turn will take the fallback path",
                        extra={"kv": {"folder": str(self.rules.folder)}})
        reminders = section(ctx.config, "reminders")
        lexicon = await asyncio.to_thread(load_lexicon, self.settings.lexicon_files)
        self.controller = Controller(self.settings, nlu=nlu, memory=subs["memory"], tools=tools,
                                     rules=lambda: self.rules.engine,  # type: ignore[union-attr]
                                     lexicon=lexicon,
                                     reminders={"default_time": reminders.default_time} if reminders else None)
        self.controller.capture_rules = await asyncio.to_thread(load_capture_rules, self.settings.capture_files)
        self.events = EventBus(subs["memory"])
        await self.events.start()
        self._tools = tools
        self.controller.archive = subs.get("archive")
        self.controller.llm = subs.get("llm")  # the optional LLM executor (off unless llm.enabled)
        self.controller.on_event = self._publish
        self.controller.on_tool_result = self._on_tool_result
        restored = await self.controller.restore()
        # a card whose time ran out while the daemon was down times out now, before READY: a first
        # turn must find it expired, never race the timer task for the session (SESSION_BUSY)
        await self.controller.fire_timeouts()
        self._task = asyncio.get_running_loop().create_task(self._timer_loop(), name="hermesd-session-timers")
        log.info("sessions ready", extra={"kv": {"restored": restored, **{k: v for k, v in self.rules.status().items()
                                                                           if k in ("rules", "folder")}}})

    async def stop(self) -> None:
        await cancel_and_wait(self._task)

    async def reload(self, config: Any) -> None:
        new = section(config, "session")
        if new is not None and self._override is None:
            self.settings = new
        if self.controller is not None:
            try:  # a broken pack lexicon keeps the running one, like a broken rule pack
                self.controller.lexicon = await asyncio.to_thread(load_lexicon, self.settings.lexicon_files)
            except InputInvalid as exc:
                raise RuntimeError(f"answer lexicon rejected: {exc.message}; the previous one keeps running") from exc
            try:  # capture rules too: SIGHUP re-reads them; a broken file keeps the running ones
                self.controller.capture_rules = await asyncio.to_thread(load_capture_rules, self.settings.capture_files)
            except ValueError as exc:
                raise RuntimeError(f"capture rules rejected: {exc}; the previous ones keep running") from exc
        if self.rules is not None:
            await asyncio.to_thread(self.rules.reload)
            if self.rules.last_error is not None:
                first = self.rules.last_error.problems[0]
                raise RuntimeError(f"rule packs rejected ({len(self.rules.last_error.problems)} problems, first: "
                                   f"{first}); the previous rules keep running")

    # -- the one timer task -----------------------------------------------------

    async def _timer_loop(self) -> None:
        assert self.controller is not None and self.rules is not None
        c = self.controller
        poll_s = self.settings.poll_interval_ms / 1000
        while True:
            nxt = c.deadlines.next_deadline()
            now = time.monotonic()
            wait = poll_s if nxt is None else max(0.0, min(poll_s, nxt - now))
            due_ms = self.events.next_due_ms() if self.events is not None else None
            if due_ms is not None:
                wait = max(0.0, min(wait, (due_ms - time.time() * 1000) / 1000))
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=wait)
            except TimeoutError:
                pass
            self._wake.clear()
            try:
                await c.fire_timeouts()
                if self.events is not None:
                    await self.events.fire_due()
                if time.monotonic() - self._last_poll >= poll_s:
                    self._last_poll = time.monotonic()
                    await c.expire()
                    await c.park_idle()
                    if await asyncio.to_thread(self.rules.poll):
                        log.info("rules hot-reloaded", extra={"kv": {"rules": len(self.rules.engine)}})
            except Exception:
                log.exception("session timer loop step failed")

    def _publish(self, uid: int, kind: str, data: dict[str, Any]) -> None:
        """Controller callback: publish in the background (the outbox write is durable). An event of
        the session whose turn is running in this task (a hand-off, a fact stored) is published for
        that turn's reply: the turn waits for it and carries it (:meth:`_with_events`)."""
        assert self.events is not None
        turn = _TURN.get()
        mine = turn is not None and turn.session_id == data.get("session_id")
        task = asyncio.get_running_loop().create_task(
            self.events.publish(uid, kind, data, ride=turn.events if mine else None))  # type: ignore[union-attr]
        self._publishing.add(task)
        task.add_done_callback(self._publishing.discard)
        if mine:
            turn.publishing.append(task)  # type: ignore[union-attr]

    async def _on_tool_result(self, uid: int, session_id: str, tool: str, params: dict[str, Any],
                              output: dict[str, Any]) -> None:
        """A tool that declares a scheduled side (``schedules`` in its descriptor: the reminder tool)
        stores its items; the daemon makes them fire (an event when due) and drops cancelled ones."""
        registry = getattr(self._tools, "registry", None)
        found = registry.get(tool) if registry is not None else None
        spec = found.descriptor.schedules if found is not None else None
        if spec is None or self.events is None:
            return
        if spec.kind not in EVENT_KINDS:
            log.error("tool.schedules_unknown_kind", extra={"kv": {"tool": tool, "kind": spec.kind}})
            return
        changes = schedule_changes(spec, params, output, session_id=session_id,
                                   zone=self.controller.nlu.settings.timezone)  # type: ignore[union-attr]
        if changes is None:
            return
        for item in changes.schedule:
            await self.events.schedule(uid, changes.kind, item.key, item.data, item.due_ms)
        for key in changes.unschedule:
            await self.events.unschedule(uid, key)
        if changes.created:
            self._poke()

    def connection_closed(self, connection_id: int) -> None:
        if self.events is not None:
            self.events.unsubscribe(connection_id)

    def _poke(self) -> None:
        """Wake the timer task (a deadline earlier than the one it sleeps on may have been armed)."""
        self._wake.set()

    # -- methods --------------------------------------------------------------------

    def methods(self) -> list[Method]:
        return [
            Method("session.open", self._open, _ALL, OpenParams),
            Method("session.turn", self._turn, _ALL, TurnParams),
            Method("session.confirm", self._confirm, _ALL, ConfirmParams),
            Method("session.get", self._get, _ALL, SessionParams),
            Method("session.trace", self._trace, _ALL, SessionParams),
            Method("session.close", self._close, _ALL, SessionParams),
            Method("session.list", self._list, _ALL, ListParams),
            Method("events.subscribe", self._subscribe, _ALL, SubscribeParams),
            Method("admin.packs", self._packs, _ALL),
        ]

    async def _packs(self, p: Any, ctx: CallContext) -> dict[str, Any]:
        """The loaded intents and rules (for ``hermesctl test`` coverage and pack authors; any role):
        ``{intents: [{name, pack}], rules: [{rule_id, intent, pack}]}``."""
        c = self._c()
        intents = [{"name": spec.name, "pack": spec.pack} for spec in c.nlu.engine.specs]
        engine = self.rules.engine if self.rules is not None else None
        rules = [{"rule_id": r.rule_id, "intent": r.trigger.intent, "pack": pack.pack}
                 for pack in (engine.packs if engine is not None else ()) for r in pack.rules]
        return {"intents": intents, "rules": rules}

    def _c(self) -> Controller:
        if self.controller is None:
            raise RuntimeError("the session subsystem is not started")
        return self.controller

    async def _open(self, p: OpenParams, ctx: CallContext) -> dict[str, Any]:
        out = await self._c().open(ctx.caller, user=p.user, locale=p.locale, tz=p.tz, channel=p.channel,
                                   metadata=p.metadata)
        self._poke()
        return out

    async def _turn(self, p: TurnParams, ctx: CallContext) -> dict[str, Any]:
        if not p.text.strip():
            raise InputInvalid("text is empty", data={"violations": [{"pointer": "/text", "message": "empty"}]})
        started_ms = int(time.time() * 1000)
        out, turn = await self._run_turn(ctx, p.session_id, p.text, message_id=p.message_id,
                                         reference_time=p.reference_time)
        return await self._with_events(out, ctx, started_ms, turn)

    async def _run_turn(self, ctx: CallContext, session_id: str, text: str, **kw: Any) -> tuple[dict[str, Any],
                                                                                             _TurnEvents]:
        """The controller's turn, with the events it raises gathered for its reply; a failed turn's
        events are released to wait for the uid's next turn (no reply carried them)."""
        turn = _TurnEvents(session_id)
        token = _TURN.set(turn)
        try:
            out = await self._c().turn(ctx.caller, session_id, text, trace_id=ctx.trace_id, **kw)
        except BaseException:
            if turn.publishing:
                await asyncio.gather(*turn.publishing, return_exceptions=True)
            if self.events is not None:
                await self.events.release_held(ctx.caller.uid, turn.events)
            raise
        finally:
            _TURN.reset(token)
            self._poke()
        return out, turn

    async def _with_events(self, out: dict[str, Any], ctx: CallContext, started_ms: int,
                           turn: _TurnEvents) -> dict[str, Any]:
        """Events that waited for this user (no subscriber was connected) ride on the reply, oldest
        first, then those this very turn raised (a hand-off in the reply that says it, never one
        turn late): ``out["events"]``, each ``{id, kind, data, created_ms}``."""
        if turn.publishing:  # this turn's own events: on disk, and held for this reply when nobody subscribes
            await asyncio.gather(*turn.publishing, return_exceptions=True)
        ev = self.events
        if ev is None:
            return out
        if not out.get("replayed") and not any(s.uid == ctx.caller.uid for s in ev.subs.values()):
            pending = await ev.take_pending(ctx.caller.uid, before_ms=started_ms)
            if pending or turn.events:
                out["events"] = pending + turn.events
            await ev.deliver_held(turn.events)
        else:  # a subscriber came meanwhile: the held ones wait for it (its backlog) as any
            await ev.release_held(ctx.caller.uid, turn.events)
        return out

    async def _subscribe(self, p: SubscribeParams, ctx: CallContext) -> dict[str, Any]:
        assert self.events is not None
        n = await self.events.subscribe(ctx.connection_id, ctx.caller.uid, list(p.kinds), ctx.notify)
        return {"subscribed": list(p.kinds) or list(EVENT_KINDS), "backlog": n}

    async def _confirm(self, p: ConfirmParams, ctx: CallContext) -> dict[str, Any]:
        c = self._c()
        s = await c.live(ctx.caller, p.session_id)
        if p.message_id:
            stored = await c.memory.load_reply(p.session_id, p.message_id)
            if stored is not None:  # a retried answer: the stored reply, nothing runs again
                return {**stored, "replayed": True}
        q = s.pending
        if not isinstance(q, (Confirm, Choice, Offer)):
            if not s.expired:
                raise InputInvalid("nothing to confirm in this session", data={"state": s.state.value})
            # the card timed out: the turn says so in a plain sentence and runs nothing
        elif p.choice is not None:
            choices = q.candidates if isinstance(q, Choice) else ()
            if not isinstance(q, Choice) or p.choice > len(choices):
                raise InputInvalid(f"no choice {p.choice} here" + (f" (1–{len(choices)})" if choices else
                                                                    ": answer with accept"),
                                   data={"choices": len(choices)})
        elif isinstance(q, Choice):
            raise InputInvalid("this card needs a choice (1-based), not accept", data={"choices": len(q.candidates)})
        answer: dict[str, Any] = {"accept": p.accept} if p.accept is not None else {"choice": p.choice - 1}  # type: ignore[operator]
        started_ms = int(time.time() * 1000)
        out, turn = await self._run_turn(ctx, p.session_id, "", message_id=p.message_id,
                                         reference_time=p.reference_time, answer=answer)
        return await self._with_events(out, ctx, started_ms, turn)

    async def _get(self, p: SessionParams, ctx: CallContext) -> dict[str, Any]:
        return (await self._c().live(ctx.caller, p.session_id)).summary()

    async def _trace(self, p: SessionParams, ctx: CallContext) -> dict[str, Any]:
        """A live session's last traces; an ended one's turn records from the L3 archive, with
        ``ended: {closed_ms, reason, path, state}`` (``traces`` empty when its volume has left the
        device). Another uid's session is not found, live or archived (no oracle)."""
        try:
            s = await self._c().live(ctx.caller, p.session_id)
        except SessionNotFound:
            archive = getattr(self._c(), "archive", None)
            found = await archive.find_session(p.session_id) if archive is not None else None
            if found is None:
                raise
            head = found["header"]
            if (head is None and ctx.caller.role != "admin") or \
                    (head is not None and head.get("uid") != ctx.caller.uid and ctx.caller.role != "admin"):
                raise
            ended = {"closed_ms": (head or {}).get("closed_ms") or found["created_ms"],
                     "reason": (head or {}).get("reason"), "path": found["path"], "state": found["state"],
                     "on_device": bool(found["turns"]) or head is not None}
            return {"session_id": p.session_id, "traces": [_archived_trace(r) for r in found["turns"][-20:]], "ended": ended}
        return {"session_id": s.session_id, "traces": s.history[-20:]}

    async def _close(self, p: SessionParams, ctx: CallContext) -> dict[str, Any]:
        c = self._c()
        s = await c.live(ctx.caller, p.session_id)
        await c.close_session(s, "closed by client")
        return {"session_id": s.session_id, "closed": True}

    async def _list(self, p: ListParams, ctx: CallContext) -> dict[str, Any]:
        c = self._c()
        everyone = ctx.caller.role == "admin" and p.all_users
        rows = [s.summary() for s in c.sessions.values()
                if not s.closed and (everyone or s.uid == ctx.caller.uid)]
        if any(everyone or x.uid == ctx.caller.uid for x in c.parked.values()):  # parked: from their rows
            rows += [Session.from_row(r).summary() for r in await c.memory.load_sessions()
                     if (x := c.parked.get(r["session_id"])) is not None and (everyone or x.uid == ctx.caller.uid)]
        return {"sessions": sorted(rows, key=lambda r: r["updated_ms"], reverse=True)}

    # -- status -----------------------------------------------------------------------

    def memory_roots(self) -> dict[str, list[Any]]:
        rules = getattr(self, "rules", None)
        controller = getattr(self, "controller", None)
        return {"rule engine": [rules] if rules is not None else [],
                "sessions": [controller] if controller is not None else []}

    def health(self) -> dict[str, Any]:
        if self.controller is None or self.rules is None:
            return {"status": "down"}
        st = self.rules.status()
        return {"status": "degraded" if st["errors"] else "ok", "sessions": self.controller.count(),
                "sessions_parked": len(self.controller.parked),
                "rules": st["rules"], "rules_checksum": st["checksum"], "rule_errors": st["errors"]}

    def register_metrics(self, registry: Registry) -> None:
        if self.controller is None:
            return
        c = self.controller
        registry.add(c.turns_by_path)
        registry.gauge("hermes_active_sessions", "Sessions open now (not closed, not expired and swept).",
                       collect=c.count)


def _archived_trace(record: dict[str, Any]) -> dict[str, Any]:
    """A turn record of the L3 archive (:func:`hermesd.session.commit.commit_turn`'s ``raw``) in the
    shape of a live trace: the reply's text, the state after, the entities, rule, failure and timings
    it recorded (a record written before those were kept has the reply's rule and timings only)."""
    stored = record.get("reply") if isinstance(record.get("reply"), dict) else {}
    said = stored.get("reply") if isinstance(stored.get("reply"), dict) else {}
    plan = record.get("plan") or ({"rule_id": stored.get("rule_id")} if stored.get("rule_id") else {})
    return {**record, "reply": said.get("text", ""), "state_after": record.get("state"), "plan": plan,
            "timings_ms": record.get("timings_ms") or stored.get("timings_ms") or {}, "archived": True}
