"""Sessions and their turns: one utterance in, one reply out, state and memory committed together.

The controller owns the sessions of this daemon (open, close, archive, restore,
the per-user cap, timeouts and TTL) and the turn's frame: one turn at a time per
session (``SESSION_BUSY``), a repeated ``message_id`` answered from the stored
reply, a failed turn rolled back to where it was, and the commit — session row,
stored reply, events and memory slots in ONE L2 transaction
(:meth:`MemoryService.commit_turn`).

What a turn does is the dialogue manager's: :mod:`.pipeline` reads the utterance
against the open question and carries out the decision of
:mod:`hermesd.dialogue.policy`; :mod:`.planrun` routes and executes rule plans;
:mod:`.grounding` anchors entities. The timer task takes the same busy flag, so a
timeout never interleaves with a turn.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime
from typing import Any, Callable

from ..dialogue import catalogue
from ..dialogue.lexicon import Lexicon, default_lexicon
from ..dialogue.offer import offer_language, offer_text
from ..dialogue.questions import Ask, Confirm, Offer
from ..errors import SessionBusy, SessionExpired, SessionLimit, SessionNotFound
from ..logging import hidden_values_var, secret_values, session_id_var
from ..caller import Caller
from ..clock import wall_ms
from ..metrics import Counter
from .archiving import archive_session
from .cap import make_room
from .commit import commit_turn
from ..memory.capture import CaptureRules, load_capture_rules
from .grounding import Grounding
from .llmturn import LlmTurns
from .memoryturn import MemoryTurns
from .machine import Event, Limits, Refusal, State, Transition, new_machine, transition
from .pipeline import Pipeline
from .planrun import PlanRunner
from .policy import LoadMonitor, Policy
from .parking import Parked, parkable, rehydrate, to_park
from .ports import MemoryPort, NluPort, RuleEnginePort, ToolsPort
from .record import Session, new_session_id
from .reply import compose_reply
from .restart import restore_sessions
from .settings import SessionSettings
from .timers import DeadlineHeap

__all__ = ["Controller"]

log = logging.getLogger(__name__)

#: sessions read back for their timeouts beyond ``max_live_sessions`` before they are parked again
_REPARK_AFTER = 64


class Controller:
    """Sessions of this daemon and their turns.

    :param settings: the ``session:`` section. :param nlu: the NLU subsystem (``parse``).
    :param memory: the memory subsystem (sessions, replies, slots, events, anchors).
    :param tools: the tools subsystem (``call``, ``registry``). :param rules: ``() -> RuleEngine``.
    :param now_ms: wall clock in ms. :param mono: monotonic seconds (timers).
    """

    def __init__(self, settings: SessionSettings, *, nlu: NluPort, memory: MemoryPort, tools: ToolsPort,
                 rules: Callable[[], RuleEnginePort], now_ms: Callable[[], int] = wall_ms,
                 mono: Callable[[], float] = time.monotonic, lexicon: Lexicon | None = None,
                 reminders: dict[str, Any] | None = None) -> None:
        self.settings = settings
        self.limits = Limits.from_settings(settings)
        self.policy = Policy(settings)
        self.load = LoadMonitor(settings, mono)
        self.nlu, self.memory, self.tools, self.rules = nlu, memory, tools, rules
        self.now_ms, self.mono = now_ms, mono
        self.sessions: dict[str, Session] = {}
        #: idle sessions held only as their L2 row (:mod:`.parking`), past ``max_live_sessions``
        self.parked: dict[str, Parked] = {}
        self._unparking: dict[str, asyncio.Task[Session | None]] = {}
        #: a uid's sessions, live or parked (the per-user cap counts both)
        self.by_uid: dict[int, dict[str, Session | Parked]] = {}
        #: uids with open pending tasks (loaded at restore), so ``open`` reads L2 only when needed
        self.task_uids: set[int] = set()
        self.deadlines = DeadlineHeap()
        #: registered by the session service (``hermes_turns_total``)
        self.turns_by_path = Counter("hermes_turns_total",
                                     "Turns by routing path (rule, fallback, form, confirm, error, ...).", ("path",))
        self.grounding = Grounding(nlu, memory, reminders=reminders)
        self.plans = PlanRunner(self)
        self.pipeline = Pipeline(self)
        self.memturns = MemoryTurns(self)
        #: the ``llm`` subsystem (the optional LLM executor), or None; set by the session shell
        self.llm: Any = None
        self.llm_turns = LlmTurns(self)
        self.capture_rules: CaptureRules | None = load_capture_rules()  #: the packs' (None = capture off)
        #: answer words (zh, zh-Hant, en) of the shipped lexicon and the packs'
        self.lexicon = lexicon or default_lexicon()
        #: how long after a card timed out a late answer is told it expired (ms)
        self.expired_memory_ms = 10 * 60 * 1000
        self.on_event: Callable[[int, str, dict[str, Any]], None] = lambda uid, kind, data: None
        #: the archive subsystem (L3), or None: ended sessions' turns then are only deleted
        self.archive: Any = None
        #: ``await on_tool_result(uid, session_id, tool, params, output)`` after a turn commits
        self.on_tool_result: Callable[..., Any] | None = None

    # ------------------------------------------------------------------ sessions

    def get(self, caller: Caller, session_id: str) -> Session:
        """The caller's session held in memory (a parked one: :meth:`live`).
        :raises SessionNotFound: unknown, or another uid's (no oracle). :raises SessionExpired: past its TTL."""
        s = self.sessions.get(session_id)
        self._check(caller, session_id, None if s is None or s.closed else s)
        assert s is not None
        return s

    def _check(self, caller: Caller, session_id: str, s: Session | Parked | None) -> None:
        if s is None or (s.uid != caller.uid and caller.role != "admin"):
            raise SessionNotFound("no such session", data={"session_id": session_id})
        if self.now_ms() >= s.expires_ms:
            raise SessionExpired("session expired", data={"session_id": session_id, "expires_ms": s.expires_ms})

    async def live(self, caller: Caller, session_id: str) -> Session:
        """The caller's session, read back from L2 first when it was parked (:mod:`.parking`); the
        stub answers ownership and expiry without I/O. :raises: as :meth:`get`."""
        stub = self.parked.get(session_id)
        if stub is not None:
            self._check(caller, session_id, stub)
            await self._unpark(session_id)
        return self.get(caller, session_id)

    async def _unpark(self, session_id: str) -> Session | None:
        """Rehydrate a parked session (one L2 read however many calls wait for it); None when it
        was closed meanwhile or its row is gone."""
        task = self._unparking.get(session_id)
        if task is None:
            if session_id not in self.parked:
                return self.sessions.get(session_id)
            task = asyncio.get_running_loop().create_task(self._load_parked(session_id))
            self._unparking[session_id] = task
            task.add_done_callback(lambda _t: self._unparking.pop(session_id, None))
        return await asyncio.shield(task)

    async def _load_parked(self, session_id: str) -> Session | None:
        stub = self.parked[session_id]
        row = await self.memory.load_session(session_id)
        if self.parked.get(session_id) is not stub:
            return None  # closed (cap, TTL) while it was read
        del self.parked[session_id]
        if row is None:
            log.error("session.unpark_lost", extra={"kv": {"session": session_id}})
            self.by_uid.get(stub.uid, {}).pop(session_id, None)
            self.deadlines.cancel(session_id)
            return None
        s = rehydrate(row, stub)
        self._add(s)
        return s

    async def park_idle(self) -> int:
        """Park the least recently used idle sessions past ``max_live_sessions`` (:mod:`.parking`):
        their rows are written in one awaited transaction, then each whose row did not change
        meanwhile (no turn started, nothing moved) is dropped for its stub. :return: how many."""
        go = to_park(self.sessions.values(), self.settings.max_live_sessions)
        if not go:
            return 0
        rows = [s.to_row() for s in go]
        await self.memory.save_sessions(rows)
        n = 0
        for s, row in zip(go, rows):
            if self.sessions.get(s.session_id) is s and parkable(s) and s.to_row() == row:
                stub = Parked(s)
                del self.sessions[s.session_id]
                self.parked[s.session_id] = stub
                self.by_uid[s.uid][s.session_id] = stub
                n += 1
        if n:
            log.info("session.parked", extra={"kv": {"parked": n, "live": len(self.sessions),
                                                     "held": len(self.parked)}})
        return n

    def count(self) -> int:
        """Open sessions, live and parked."""
        return len(self.sessions) + len(self.parked)

    async def open(self, caller: Caller, *, user: str | None, locale: str | None, tz: str | None,
                   channel: str | None, metadata: dict[str, Any]) -> dict[str, Any]:
        """Open a session for ``caller``.

        Past ``max_sessions_per_user`` a session of the caller is closed (archived, as expiry does) to
        make room (:mod:`.cap`): the least recently used idle one, else the one whose question has
        waited longest (kept as a pending task, offered in this new session) — never one with a turn in
        flight or touched within ``cap_grace_s``. The check and the new session's registration happen
        with no ``await`` between them, so concurrent opens cannot overshoot the cap.

        :raises SessionLimit: every session of the caller is running or was used within the grace
            (``data.retry_after_ms``).
        """
        evict = self._make_room(caller.uid)
        now = self.now_ms()
        sid = new_session_id(now)
        s = Session(sid, caller.uid, caller.role, new_machine(sid, self.mono(), self.limits), now, now,
                    now + int(self.settings.ttl_s * 1000), user=user, locale=locale, tz=tz, channel=channel,
                    metadata=metadata)
        s.vars.update(self.policy.initial_vars(s.summary()))
        self._add(s)
        for old, dropped in evict:  # detached already; archived and deleted now
            if dropped and isinstance(old, Session):
                await self._drop_question(old, dropped)
            await self._finish_close(old, "per-user cap")
        offer = None
        tasks = await self.memory.pending_tasks(caller.uid) if caller.uid in self.task_uids else []
        if not tasks:
            self.task_uids.discard(caller.uid)
        if tasks:
            task = tasks[-1]
            for older in tasks[:-1]:  # one offer, of the newest; what came before it is not offered again
                await self.memory.set_task_status(older["id"], "superseded")
            slots = task.get("slots") or {}
            prompt = self.offer_prompt(task["intent"], slots, offer_language(locale, slots))
            offer = {"task_id": task["id"], "intent": task["intent"], "slots": slots, "text": prompt}
            s.pending = Offer(task_id=task["id"], intent=task["intent"], slots=slots, prompt=prompt)
        await self.memory.preload(caller.uid)  # the first turn is served from L1
        # not awaited to disk: a session lost to a crash within the batch window was never used
        await self.memory.save_session(s.to_row(), durable=False)
        self._arm(s)
        if log.isEnabledFor(logging.INFO):
            log.info("session.open", extra={"kv": {"session": sid, "uid": caller.uid, "role": caller.role,
                                                   "offer": offer is not None}})
        out = {"session_id": sid, "state": s.state.value, "version": s.machine.version}
        if offer:
            out["offer"] = offer
        return out

    def offer_prompt(self, intent: str, slots: dict[str, Any], lang: str, *, after: bool = False) -> str:
        """The offer of a pending task in ``lang`` (``zh`` | ``en``), naming it by what the user said or
        by its intent's pack description (:func:`~hermesd.dialogue.offer.offer_text`)."""
        spec = next((x for x in getattr(self.nlu.engine, "specs", ()) if x.name == intent), None)
        return offer_text(intent, slots, lang, getattr(spec, "description", None), after=after)

    def _make_room(self, uid: int) -> list[tuple[Session | Parked, str]]:
        """Detach (synchronously) the sessions that must go for one more (:func:`.cap.make_room`: idle
        ones first, then the longest-waiting question, each untouched for ``cap_grace_s``), each logged
        as one ``session.evicted`` line (``dropped``: the question it held, if any).

        :return: each detached session with the kind of question it drops (``""``: none).
        :raises SessionLimit: none may go yet (``data``: ``reason`` ``in_use``, ``open``, ``limit``,
            ``running``, ``waiting`` — used within the grace and waiting for an answer — and
            ``retry_after_ms`` until one may)."""
        mine = self.by_uid.get(uid, {})
        cap, grace_s = self.settings.max_sessions_per_user, self.settings.cap_grace_s
        now = self.now_ms()
        room = make_room(mine.values(), cap, now, int(grace_s * 1000))
        if room.full is not None:
            f = room.full
            raise SessionLimit(f"{f.open} sessions are open (the limit is {cap}) and none is idle: "
                               f"{f.running} have a turn running, {f.waiting + f.recent} were used in the last "
                               f"{grace_s:g} s ({f.waiting} of them wait for an answer); close one or try again "
                               "in a moment",
                               data={"reason": "in_use", "retry_after_ms": f.retry_after_ms, "limit": cap,
                                     "open": f.open, "running": f.running, "waiting": f.waiting})
        for x, dropped in room.evict:
            self._detach(x)
            log.info("session.evicted", extra={"kv": {"session": x.session_id, "uid": uid, "reason": "per_user_cap",
                                                      "idle_ms": now - x.updated_ms, "open": len(mine) + 1,
                                                      "limit": cap, **({"dropped": dropped} if dropped else {})}})
        return list(room.evict)

    async def _drop_question(self, s: Session, dropped: str) -> None:
        """The question an evicted session held is kept as a pending task (offered at the user's next
        session, as a timed-out card's is) and a card's ``confirmation_cancelled`` event is raised:
        nothing it asked for runs, nothing committed is lost."""
        await self._park_pending(s)
        if dropped == "confirm":
            self.on_event(s.uid, "confirmation_cancelled", {"session_id": s.session_id, "reason": "per_user_cap"})
        s.pending, s.slots = None, {}

    def _detach(self, s: Session | Parked) -> bool:
        """Mark ``s`` closed and drop it from the live maps; False when it already was (close once)."""
        if isinstance(s, Parked):
            if self.parked.get(s.session_id) is not s:
                return False
            del self.parked[s.session_id]
        elif s.closed:
            return False
        else:
            s.closed = True
        self.deadlines.cancel(s.session_id)
        self.sessions.pop(s.session_id, None)
        self.by_uid.get(s.uid, {}).pop(s.session_id, None)
        return True

    async def close_session(self, s: Session, reason: str) -> None:
        """End ``s`` exactly once: its turns and audit lines go to the L3 archive, then the live rows are
        deleted. A second close of the same session (a client close racing the cap or the TTL) does nothing."""
        if self._detach(s):
            await self._finish_close(s, reason)

    async def _finish_close(self, s: Session | Parked, reason: str) -> None:
        if isinstance(s, Parked):  # detached already: its row is read for the archive's header
            row = await self.memory.load_session(s.session_id)
            if row is None:
                await self.memory.delete_session(s.session_id)
                return
            s = rehydrate(row, s)
        archived = await archive_session(self.memory, self.archive, s, reason, self.now_ms())
        await self.memory.delete_session(s.session_id)
        log.info("session.close", extra={"kv": {"session": s.session_id, "reason": reason, "turns": s.turns,
                                                "archive": archived}})

    async def restore(self) -> int:
        """Reload sessions from L2 after a restart (see :func:`.restart.restore_sessions`); returns how many."""
        return await restore_sessions(self)

    def _add(self, s: Session) -> None:
        self.sessions[s.session_id] = s
        self.by_uid.setdefault(s.uid, {})[s.session_id] = s

    def _arm(self, s: Session) -> None:
        if s.machine.deadline is None:
            self.deadlines.cancel(s.session_id)
        else:
            self.deadlines.arm(s.session_id, s.machine.deadline)

    def _hand_off(self, s: Session, why: str, reason: str, trace_id: str) -> None:
        """A person takes over: the HANDOFF transition (``why`` in its log line) and the ``handoff``
        event for the session's user (``reason``: ``failures``, ``asked`` or a rule's reason)."""
        self._move(s, Event.HANDOFF, why)
        self.on_event(s.uid, "handoff", {"session_id": s.session_id, "reason": reason, "trace_id": trace_id})

    def _move(self, s: Session, event: Event, reason: str = "") -> bool:
        ok, why = self.policy.can_transition(s.state.value, event.value, {"session_id": s.session_id,
                                                                        "vars": s.vars, "uid": s.uid}) \
            if self.policy.module is not None else (True, "")  # no policy module: no hook to ask
        if not ok:
            log.info("transition refused", extra={"kv": {"session": s.session_id, "state": s.state.value,
                                                         "event": event.value, "reason": f"policy: {why}"}})
            return False
        before = s.state.value
        result = transition(s.machine, event, now=self.mono(), limits=self.limits, reason=reason)
        if isinstance(result, Refusal):
            return False
        s.machine = result.machine
        s.moves.append([before, event.value, s.state.value])
        return True

    # ------------------------------------------------------------------ timers

    async def fire_timeouts(self) -> None:
        """Apply every due deadline (called by the service's one timer task)."""
        for sid in self.deadlines.due(self.mono()):
            s = self.sessions.get(sid) or await self._unpark(sid)
            if s is None or s.closed:
                continue
            if s.busy:  # a turn owns the session; it re-arms the deadline when it ends
                continue
            s.busy = True
            try:
                await self._timeout(s)
            except Exception:
                log.exception("session.timeout_failed", extra={"kv": {"session": sid}})
            finally:
                s.busy = False
            if len(self.sessions) > self.settings.max_live_sessions + _REPARK_AFTER:
                await self.park_idle()  # parked ones timing out together are read back a few at a time

    async def _timeout(self, s: Session) -> None:
        state = s.state
        ok, why = self.policy.can_transition(state.value, Event.TIMEOUT.value, {"session_id": s.session_id,
                                                                              "vars": s.vars, "uid": s.uid})
        result = transition(s.machine, Event.TIMEOUT, now=self.mono(), limits=self.limits,
                            reason="deadline passed") if ok else None
        if not isinstance(result, Transition):
            self._arm(s)
            return
        self.policy.on_timeout(s.summary(), state.value)
        # park what was unfinished before the new state shows, so a client that sees IDLE
        # and opens a new session is offered the task
        if state is State.CONFIRMING or (state is State.LISTENING and isinstance(s.pending, Ask)):
            if state is State.CONFIRMING and s.pending is not None:
                s.expired = {"prompt": s.pending.prompt, "at_ms": self.now_ms()}
            await self._park_pending(s)
            s.pending, s.slots = None, {}
            if state is State.CONFIRMING:
                self.on_event(s.uid, "confirmation_cancelled", {"session_id": s.session_id})
        s.machine = result.machine
        s.updated_ms = self.now_ms()
        log.info("session.timeout", extra={"kv": {"session": s.session_id, "from": state.value,
                                                  "to": s.state.value}})
        await self.memory.save_session(s.to_row(), durable=False)
        self._arm(s)

    async def _park_pending(self, s: Session) -> None:
        """Unfinished slots go to pending tasks (offered at the user's next session), not the bin — but for a
        tentative question (:class:`~hermesd.dialogue.questions.Ask` ``tentative``: asked of a time said alone)."""
        q = s.pending
        while q is not None and not isinstance(q, (Ask, Confirm)):
            q = getattr(q, "outer", None)  # a choice asked inside a form parks the form
        if isinstance(q, Ask) and q.tentative:
            return  # asked of a time said alone, never answered: nothing the person asked for is unfinished
        if q is not None and q.intent:
            slots = {**s.slots, **q.entities}
            if q.utterance:
                slots["_utterance"] = q.utterance  # what the user said, for the offer
            task_id = await self.memory.add_pending_task(s.uid, s.session_id, q.intent, slots)
            self.task_uids.add(s.uid)
            self.on_event(s.uid, "pending_task", {"task_id": task_id, "intent": q.intent, "slots": slots,
                                                  "session_id": s.session_id})

    async def expire(self) -> int:
        """Close sessions past their TTL; returns how many."""
        now = self.now_ms()
        gone = [s for s in self.sessions.values() if now >= s.expires_ms and not s.busy]
        parked = [sid for sid, p in self.parked.items() if now >= p.expires_ms]
        for s in gone:
            await self._expire_one(s)
        for sid in parked:  # read back one at a time: its expiry runs as a live one's (event, archive)
            s = await self._unpark(sid)
            if s is not None and not s.busy and not s.closed:
                await self._expire_one(s)
                gone.append(s)
        return len(gone)

    async def _expire_one(self, s: Session) -> None:
        if s.pending:
            await self._park_pending(s)
        self.on_event(s.uid, "session_expired", {"session_id": s.session_id})
        await self.close_session(s, "ttl")

    # ------------------------------------------------------------------ turns

    async def turn(self, caller: Caller, session_id: str, text: str, *, message_id: str | None,
                   reference_time: datetime | None, trace_id: str, answer: dict[str, Any] | None = None) -> dict[str, Any]:
        """One turn (``text``) or a direct answer to a card (``answer``: ``{accept}`` / ``{choice}``, 0-based).

        :return: ``{reply: {text, card?}, state, version, intent, entities, actions, path, rule_id,
            decision, trace_id, timings_ms}``.
        :raises SessionNotFound, SessionExpired, SessionBusy: see :meth:`get`; busy carries ``retry_after_ms``.
        """
        s = await self.live(caller, session_id)
        if s.busy:
            elapsed_ms = (self.mono() - s.busy_since_mono) * 1000
            raise SessionBusy("a turn is already running in this session",
                              data={"retry_after_ms": max(50, int(200 - elapsed_ms))})
        s.busy, s.busy_since_mono = True, self.mono()
        token = session_id_var.set(session_id)
        hidden = hidden_values_var.set(tuple(secret_values(text)) if text else ())  # masked in this turn's lines
        try:
            if message_id:
                stored = await self.memory.load_reply(session_id, message_id)
                if stored is not None:
                    return {**stored, "replayed": True}
            snapshot = (s.machine, dict(s.slots), s.pending, dict(s.vars), dict(s.anchors), s.expired)
            try:
                reply, results = await self._turn(s, text, reference_time, trace_id, answer)
            except Exception:
                await self._roll_back(s, snapshot, trace_id)
                raise
            if s.state in (State.PARSING, State.ROUTING, State.EXECUTING):
                # a refused transition (policy hook) left the turn mid-way: never leave a session there
                log.warning("turn ended mid-pipeline", extra={"kv": {"state": s.state.value}})
                s.pending = None
                self._move(s, Event.FAIL, "turn ended mid-pipeline")
                self._move(s, Event.DEGRADE, "turn ended mid-pipeline")
                reply["state"], reply["version"] = s.state.value, s.machine.version
            if message_id:
                reply["message_id"] = message_id
            await commit_turn(self.memory, s, reply, message_id, results, now_ms=self.now_ms(), on_event=self.on_event,
                              on_tool_result=self.on_tool_result, capture_rules=self.capture_rules)
            return reply
        finally:
            s.busy = False
            self._arm(s)
            hidden_values_var.reset(hidden)
            session_id_var.reset(token)

    async def _roll_back(self, s: Session, snapshot: tuple, trace_id: str) -> None:
        """A failed turn is dropped, the session is not: back to where it was, then ERROR_HANDLING →
        LISTENING (or a hand-off after too many failures), saved."""
        s.machine, s.slots, s.pending, s.vars, s.anchors, s.expired = snapshot
        self._move(s, Event.TEXT, "failed turn")
        self._move(s, Event.FAIL, "internal error")
        if not self._move(s, Event.DEGRADE, "internal error"):
            self._hand_off(s, "too many failures", "failures", trace_id)
        await self.memory.save_session(s.to_row())

    async def _turn(self, s: Session, text: str, ref: datetime | None, trace_id: str,
                    answer: dict[str, Any] | None) -> tuple[dict[str, Any], list[Any]]:
        t0 = time.perf_counter()
        s.moves = []
        before = s.state.value
        lang = self.pipeline.language(s, text)
        prefix: list[str] = []
        parts = None
        if s.interrupted:
            s.interrupted = False
            if isinstance(s.pending, Confirm):  # one sentence and the offer to run it again; nothing else runs
                parts = [self.pipeline.interrupted(s, lang)]
            else:
                prefix.append(catalogue.say("interrupted", lang))
                s.pending = None
        if parts is None:
            parts = await self.pipeline.run(s, text, ref, trace_id, answer, lang, t0)
        out = compose_reply(s, text, trace_id, prefix, parts, t0, state_before=before, now_ms=self.now_ms(),
                            ttl_s=self.settings.ttl_s)
        self.turns_by_path.inc_key((out["path"],))  # a str from compose_reply: the unchecked fast path
        return out, [p.result for p in parts if p.result is not None]

    # ------------------------------------------------------------------ what the pipeline asks

    def tool_info(self, name: str) -> tuple[bool, bool] | None:
        """``(confirm, idempotent)`` of a registered tool, or None when unknown."""
        registry = getattr(self.tools, "registry", None)
        tool = registry.get(name) if registry is not None else None
        if tool is None:
            return None
        return bool(tool.descriptor.confirm), bool(tool.descriptor.idempotent)
