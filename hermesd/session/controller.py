"""The turn pipeline: one utterance in, one reply out, state and memory committed together.

``turn`` = PARSING (NLU) → anchoring (person mentions → anchors) → ROUTING (rule
engine, or the pending form / confirmation this turn answers) → EXECUTING (the
plan, :mod:`.executor`) → commit (session row, stored reply, events and memory
slots in ONE L2 transaction, :meth:`MemoryService.commit_turn`) → reply.

Forms across turns (the session's ``pending``):

- ``ask``: the next turn fills the slot when it carries an entity of the asked
  type and is not about something else; a turn with another intent is a
  digression — it is handled, the slot is asked again exactly once, and nothing
  of the digression's words fills it;
- ``confirm``: yes resumes the plan at the confirmed step, no / cancel drops it,
  a correction ("不对，是李工") replaces the slot and asks again;
- ``choice``: an ambiguous person ("张工": two engineers) is asked as a numbered
  choice; the answer resumes the turn with the chosen anchor.

A turn that fails or is only clarified drops that turn's slot changes, never
the session's. Turns of one session never overlap (``SESSION_BUSY``), and the
timer task takes the same flag, so a timeout never interleaves with a turn.
"""

from __future__ import annotations

import logging
import re
import time
from datetime import datetime, timezone
from typing import Any, Callable

from ..errors import SessionBusy, SessionExpired, SessionNotFound
from ..logging import session_id_var
from ..protocol import Caller
from ..rules.engine import Plan
from . import turnlog
from .executor import Executor, Failure, Finished, Handoff, Suspend
from .machine import (
    Event,
    Limits,
    Refusal,
    State,
    Transition,
    new_machine,
    recovery,
    restore,
    transition,
)
from .policy import LoadMonitor, Policy
from .record import Session, new_session_id
from .settings import SessionSettings
from .timers import DeadlineHeap

__all__ = ["Controller"]

log = logging.getLogger("hermesd.session")

_MEMORY_KEY = re.compile(r"\bmemory\.([A-Za-z0-9_]+)")
_DIGIT = re.compile(r"(\d+)")
_TEXTS = {
    "cancelled": {"zh": "好的，已取消。", "en": "OK, cancelled."},
    "nothing_to_cancel": {"zh": "好的。", "en": "OK."},
    "confirm_again": {"zh": "还需要你确认：{q}", "en": "I still need your confirmation: {q}"},
    "ask_again": {"zh": "回到刚才的问题：{q}", "en": "Back to my question: {q}"},
    "not_understood_slot": {"zh": "没听清。{q}", "en": "Sorry, I did not catch that. {q}"},
    "choose": {"zh": "你说的{m}是哪一位？{opts}", "en": "Which {m} do you mean? {opts}"},
    "failed": {"zh": "这一步没有成功（{code}）。", "en": "That step did not work ({code})."},
    "handoff": {"zh": "我已经请同事来处理。", "en": "I have asked a colleague to take over."},
    "offer": {"zh": "上次的“{what}”还没完成，要继续吗？", "en": "Last time's \"{what}\" is unfinished. Continue?"},
    "auth": {"zh": "请先完成身份验证。", "en": "Please verify your identity first."},
    "interrupted": {"zh": "上次的操作被中断了，没有重复执行。", "en": "The last action was interrupted and was not repeated."},
}


def _t(key: str, lang: str, **kw: Any) -> str:
    return _TEXTS[key]["zh" if lang == "zh" else "en"].format(**kw)


def wall_ms() -> int:
    return int(time.time() * 1000)


class Controller:
    """Sessions of this daemon and their turns.

    :param settings: the ``session:`` section. :param nlu: the NLU subsystem (``parse``).
    :param memory: the memory subsystem (sessions, replies, slots, events, anchors).
    :param tools: the tools subsystem (``call``, ``registry``). :param rules: ``() -> RuleEngine``.
    :param now_ms: wall clock in ms. :param mono: monotonic seconds (timers).
    """

    def __init__(self, settings: SessionSettings, *, nlu: Any, memory: Any, tools: Any,
                 rules: Callable[[], Any], now_ms: Callable[[], int] = wall_ms,
                 mono: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.limits = Limits.from_settings(settings)
        self.policy = Policy(settings)
        self.load = LoadMonitor(settings, mono)
        self.nlu, self.memory, self.tools, self.rules = nlu, memory, tools, rules
        self.now_ms, self.mono = now_ms, mono
        self.sessions: dict[str, Session] = {}
        self.by_uid: dict[int, dict[str, Session]] = {}
        #: uids with open pending tasks (loaded at restore), so ``open`` reads L2 only when needed
        self.task_uids: set[int] = set()
        self.deadlines = DeadlineHeap()
        self.turns_by_path: dict[str, int] = {}
        #: memory keys each intent's rules read, for the engine they were computed from
        self._keys_engine: Any = None
        self._keys: dict[str | None, tuple[str, ...]] = {}
        self.on_event: Callable[[int, str, dict[str, Any]], None] = lambda uid, kind, data: None
        #: the archive subsystem (L3), or None: ended sessions' turns then are only deleted
        self.archive: Any = None
        #: ``await on_tool_result(uid, session_id, tool, params, output)`` after a turn commits
        self.on_tool_result: Callable[..., Any] | None = None

    # ------------------------------------------------------------------ sessions

    def get(self, caller: Caller, session_id: str) -> Session:
        """The caller's session. :raises SessionNotFound: unknown, or another uid's (no oracle).
        :raises SessionExpired: past its TTL."""
        s = self.sessions.get(session_id)
        if s is None or (s.uid != caller.uid and caller.role != "admin") or s.closed:
            raise SessionNotFound("no such session", data={"session_id": session_id})
        if self.now_ms() >= s.expires_ms:
            raise SessionExpired("session expired", data={"session_id": session_id, "expires_ms": s.expires_ms})
        return s

    async def open(self, caller: Caller, *, user: str | None, locale: str | None, tz: str | None,
                   channel: str | None, metadata: dict[str, Any]) -> dict[str, Any]:
        """Open a session for ``caller``; the oldest live one is closed past ``max_sessions_per_user``."""
        mine = sorted(self.by_uid.get(caller.uid, {}).values(), key=lambda s: s.updated_ms)
        while len(mine) >= self.settings.max_sessions_per_user:
            oldest = mine.pop(0)
            await self.close_session(oldest, "per-user cap")
        now = self.now_ms()
        sid = new_session_id(now)
        s = Session(sid, caller.uid, caller.role, new_machine(sid, self.mono(), self.limits), now, now,
                    now + int(self.settings.ttl_s * 1000), user=user, locale=locale, tz=tz, channel=channel,
                    metadata=metadata)
        s.vars.update(self.policy.initial_vars(s.summary()))
        self._add(s)
        offer = None
        tasks = await self.memory.pending_tasks(caller.uid) if caller.uid in self.task_uids else []
        if not tasks:
            self.task_uids.discard(caller.uid)
        if tasks:
            task = tasks[-1]
            lang = locale or "zh"
            offer = {"task_id": task["id"], "intent": task["intent"], "slots": task.get("slots") or {},
                     "text": _t("offer", lang, what=(task.get("slots") or {}).get("_utterance") or task["intent"])}
            s.pending = {"kind": "offer", **offer}
        # not awaited to disk: a session lost to a crash within the batch window was never used
        await self.memory.save_session(s.to_row(), durable=False)
        self._arm(s)
        log.info("session.open", extra={"kv": {"session": sid, "uid": caller.uid, "role": caller.role,
                                               "offer": offer is not None}})
        out = {"session_id": sid, "state": s.state.value, "version": s.machine.version}
        if offer:
            out["offer"] = offer
        return out

    async def close_session(self, s: Session, reason: str) -> None:
        """End ``s``: its turns and audit lines go to the L3 archive, then the live rows are deleted."""
        s.closed = True
        self.deadlines.cancel(s.session_id)
        self.sessions.pop(s.session_id, None)
        self.by_uid.get(s.uid, {}).pop(s.session_id, None)
        archived = await self._archive(s, reason)
        await self.memory.delete_session(s.session_id)
        log.info("session.close", extra={"kv": {"session": s.session_id, "reason": reason, "turns": s.turns,
                                                "archive": archived}})

    async def _archive(self, s: Session, reason: str) -> str | None:
        l2 = self.memory.l2
        turns = await l2.aread(turnlog.records, s.session_id)
        if self.archive is None or not turns:
            await l2.awrite(turnlog.delete, s.session_id)
            return None
        audit = await l2.aread(turnlog.audit_rows, s.session_id)
        header = {"kind": "session", "session_id": s.session_id, "uid": s.uid, "role": s.role,
                  "created_ms": s.created_ms, "closed_ms": self.now_ms(), "reason": reason, "turns": s.turns}
        try:
            path = await self.archive.archive_session(s.session_id, [header, *turns], audit)
        except Exception as exc:  # kept in L2: nothing acknowledged is lost; retried at the next close/restart
            log.error("session.archive_failed", extra={"kv": {"session": s.session_id, "error": str(exc)}})
            return None
        await l2.awrite(turnlog.delete, s.session_id)
        return str(path)

    async def restore(self) -> int:
        """Reload sessions from L2 after a restart; one caught EXECUTING becomes ERROR_HANDLING, interrupted."""
        now, mono = self.now_ms(), self.mono()
        self.task_uids = {t["uid"] for t in await self.memory.pending_tasks(None)}
        n = 0
        for row in await self.memory.load_sessions():
            s = Session.from_row(row)
            if now >= s.expires_ms:
                await self.memory.delete_session(s.session_id)
                continue
            was = s.state
            s.machine = restore(s.machine, mono, self.limits)
            if was is State.EXECUTING:
                s.interrupted = True
                log.warning("session.interrupted", extra={"kv": {"session": s.session_id, "pending": bool(s.pending)}})
                await self.memory.save_session(s.to_row())
            self._add(s)
            self._arm(s)
            n += 1
        return n

    def _add(self, s: Session) -> None:
        self.sessions[s.session_id] = s
        self.by_uid.setdefault(s.uid, {})[s.session_id] = s

    def _arm(self, s: Session) -> None:
        if s.machine.deadline is None:
            self.deadlines.cancel(s.session_id)
        else:
            self.deadlines.arm(s.session_id, s.machine.deadline)

    def _move(self, s: Session, event: Event, reason: str = "") -> bool:
        ok, why = self.policy.can_transition(s.state.value, event.value, {"session_id": s.session_id,
                                                                        "vars": s.vars, "uid": s.uid})
        if not ok:
            log.info("transition refused", extra={"kv": {"session": s.session_id, "state": s.state.value,
                                                         "event": event.value, "reason": f"policy: {why}"}})
            return False
        result = transition(s.machine, event, now=self.mono(), limits=self.limits, reason=reason)
        if isinstance(result, Refusal):
            return False
        s.machine = result.machine
        return True

    # ------------------------------------------------------------------ timers

    async def fire_timeouts(self) -> None:
        """Apply every due deadline (called by the service's one timer task)."""
        for sid in self.deadlines.due(self.mono()):
            s = self.sessions.get(sid)
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
        if state is State.CONFIRMING or (state is State.LISTENING and s.pending and s.pending.get("kind") == "ask"):
            await self._park_pending(s)
            s.pending = None
            if state is State.CONFIRMING:
                self.on_event(s.uid, "confirmation_cancelled", {"session_id": s.session_id})
        s.machine = result.machine
        s.updated_ms = self.now_ms()
        log.info("session.timeout", extra={"kv": {"session": s.session_id, "from": state.value,
                                                  "to": s.state.value}})
        await self.memory.save_session(s.to_row(), durable=False)
        self._arm(s)

    async def _park_pending(self, s: Session) -> None:
        """Unfinished slots go to pending tasks (offered at the user's next session), not the bin."""
        p = s.pending or {}
        if p.get("intent"):
            slots = {**s.slots, **p.get("entities", {})}
            if p.get("utterance"):
                slots["_utterance"] = p["utterance"]  # what the user said, for the offer
            task_id = await self.memory.add_pending_task(s.uid, s.session_id, p["intent"], slots)
            self.task_uids.add(s.uid)
            self.on_event(s.uid, "pending_task", {"task_id": task_id, "intent": p["intent"], "slots": slots,
                                                  "session_id": s.session_id})

    async def expire(self) -> int:
        """Close sessions past their TTL; returns how many."""
        now = self.now_ms()
        gone = [s for s in self.sessions.values() if now >= s.expires_ms and not s.busy]
        for s in gone:
            if s.pending:
                await self._park_pending(s)
            self.on_event(s.uid, "session_expired", {"session_id": s.session_id})
            await self.close_session(s, "ttl")
        return len(gone)

    # ------------------------------------------------------------------ turns

    async def turn(self, caller: Caller, session_id: str, text: str, *, message_id: str | None,
                   reference_time: datetime | None, trace_id: str, answer: dict[str, Any] | None = None) -> dict[str, Any]:
        """One turn (``text``) or a direct answer to a card (``answer``: ``{accept}`` / ``{choice}``).

        :raises SessionNotFound, SessionExpired, SessionBusy: see :meth:`get`; busy carries ``retry_after_ms``.
        """
        s = self.get(caller, session_id)
        if s.busy:
            elapsed_ms = (self.mono() - s.busy_since_mono) * 1000
            raise SessionBusy("a turn is already running in this session",
                              data={"retry_after_ms": max(50, int(200 - elapsed_ms))})
        s.busy, s.busy_since_mono = True, self.mono()
        token = session_id_var.set(session_id)
        try:
            if message_id:
                stored = await self.memory.load_reply(session_id, message_id)
                if stored is not None:
                    return {**stored, "replayed": True}
            snapshot = (s.machine, dict(s.slots), s.pending, dict(s.vars))
            try:
                reply, result = await self._turn(s, text, reference_time, trace_id, answer)
            except Exception:
                # the turn is dropped, the session is not: back to where it was, then ERROR_HANDLING → LISTENING
                s.machine, s.slots, s.pending, s.vars = snapshot
                self._move(s, Event.TEXT, "failed turn")
                self._move(s, Event.FAIL, "internal error")
                if not self._move(s, Event.DEGRADE, "internal error"):
                    self._move(s, Event.HANDOFF, "too many failures")
                    self.on_event(s.uid, "handoff", {"session_id": s.session_id, "reason": "failures",
                                                     "trace_id": trace_id})
                await self.memory.save_session(s.to_row())
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
            await self._commit(s, reply, message_id, result)
            return reply
        finally:
            s.busy = False
            self._arm(s)
            session_id_var.reset(token)

    async def _turn(self, s: Session, text: str, ref: datetime | None, trace_id: str,
                    answer: dict[str, Any] | None) -> tuple[dict[str, Any], Any]:
        t0 = time.perf_counter()
        timings: dict[str, float] = {}
        # the session's locale, else the text's script; an answer without text (session.confirm)
        # keeps the language of the conversation so far
        last = s.history[-1].get("lang") if s.history else None
        lang = s.locale or (("zh" if re.search(r"[\u4e00-\u9fff]", text) else "en") if text else last or "zh")
        trace: dict[str, Any] = {"trace_id": trace_id, "text": text, "state_before": s.state.value}
        slots_before = dict(s.slots)
        if s.pending and s.pending.get("kind") == "choice":
            chosen = self._choice(s.pending, text, answer)
            if chosen is not None:
                # bind the mention for this session, then run the original utterance again
                self.memory.graph.bind(s.session_id, s.pending["mention"], chosen["anchor_id"])
                trace["chosen"] = chosen["anchor_id"]
                text, ref, answer = s.pending["text"], datetime.fromisoformat(s.pending["ref"]), None
                s.pending = s.pending.get("outer")  # the form or card the ambiguous answer belonged to
        if s.state is State.ERROR_HANDLING and s.machine.failures >= self.limits.handoff_after:
            # too many failures in a row: a person takes over before anything else runs
            self._move(s, Event.HANDOFF, "too many failures")
            self.on_event(s.uid, "handoff", {"session_id": s.session_id, "reason": "failures", "trace_id": trace_id})
        self._move(s, Event.TEXT, "utterance")
        if ref is None and s.pending and s.pending.get("ref"):
            ref = datetime.fromisoformat(s.pending["ref"])  # an answer continues its plan's moment
        ref = ref or datetime.now(timezone.utc)
        s.ref_ms = int(ref.timestamp() * 1000)
        parsed = None
        if text:
            p0 = time.perf_counter()
            parsed = self.nlu.parse(text, ref, s.tz, s.locale)
            timings["parse"] = (time.perf_counter() - p0) * 1000
            lang = s.locale or (parsed.lang if re.search(r"[^\W\d_]", text) else last or parsed.lang)
        self._move(s, Event.PARSED, "parsed")
        a0 = time.perf_counter()
        load = self.load.overloaded()
        if load:
            trace["degraded"] = f"load:{load}"
        if not (s.pending and s.pending.get("refs")):
            s.refs = {}
        entities, ambiguous = await self._entities(s, parsed, fuzzy=load is None)
        if ambiguous and await self._disambiguate_by_memory(s, ambiguous, entities):
            trace["disambiguated_by"] = "memory"
            entities, ambiguous = await self._entities(s, parsed, fuzzy=load is None)
        timings["anchor"] = (time.perf_counter() - a0) * 1000
        intent = parsed.intent if parsed else None
        kind = parsed.kind if parsed else ("affirm" if (answer or {}).get("accept") else "deny")
        if answer is not None and "accept" in answer:
            kind = "affirm" if answer["accept"] else "deny"
        trace.update({"intent": intent, "kind": kind, "entities": {k: v for k, v in entities.items()}})
        if parsed is not None and parsed.degraded:
            trace["degraded"] = "parse_budget"
        r0 = time.perf_counter()

        def answer(text_: str, intent_: str | None, path_: str, reason: str) -> tuple[dict[str, Any], None]:
            """End the turn with one sentence: nothing to run (cancelled, refused, nothing to cancel)."""
            self._move(s, Event.ROUTED, reason)
            self._move(s, Event.DONE, reason)
            return self._reply(s, [text_], None, intent_, parsed, [], trace, timings, t0, r0, path_), None

        texts: list[str] = []
        pending = s.pending
        result: Any = None
        plan: Plan | None = None
        start, confirmed, steps = 0, None, {}
        form_entities: dict[str, Any] = {}
        path = "rule"

        if s.interrupted:
            texts.append(_t("interrupted", lang))
            s.interrupted = False
            s.pending = None
            pending = None

        if ambiguous and not (pending and pending.get("kind") == "choice"):
            # ask which person before anything runs; the turn resumes from the answer
            mention, cands = ambiguous
            opts = " ".join(f"{i + 1}) {c['display']}{'（' + c['dept'] + '）' if c.get('dept') else ''}"
                            for i, c in enumerate(cands))
            s.pending = {"kind": "choice", "text": text, "mention": mention, "candidates": cands, "outer": pending,
                         "ref": ref.isoformat(), "card": {"question": _t("choose", lang, m=mention, opts=opts),
                                                          "choices": cands}}
            self._move(s, Event.ROUTED, "ambiguous mention")
            self._move(s, Event.CONFIRM, "choice")
            trace["path"] = "clarify"
            return self._reply(s, [s.pending["card"]["question"]], s.pending["card"], intent, parsed, [], trace,
                               timings, t0, r0, "clarify"), None

        if pending and pending.get("kind") == "choice":
            # no usable choice in this answer
            s.pending = None
            if kind in ("cancel", "deny"):
                return answer(_t("cancelled", lang), intent, "cancel", "choice cancelled")
            s.pending = pending
            self._move(s, Event.ROUTED, "no choice")
            self._move(s, Event.CONFIRM, "choice again")
            texts.append(_t("not_understood_slot", lang, q=pending["card"]["question"]))
            return self._reply(s, texts, pending["card"], intent, parsed, [], trace, timings, t0, r0,
                               "clarify"), None

        resume = None
        if pending and pending.get("kind") == "offer":
            s.pending = None
            if kind == "affirm":
                await self.memory.set_task_status(pending["task_id"], "resumed")
                intent, form_entities = pending["intent"], dict(pending.get("slots") or {})
                form_entities.pop("_utterance", None)
                path = "pending_task"
            elif kind in ("deny", "cancel"):
                await self.memory.set_task_status(pending["task_id"], "dropped")
                return answer(_t("cancelled", lang), intent, "cancel", "offer declined")
        elif pending and pending.get("kind") == "confirm":
            if kind == "affirm":
                resume = pending
                start = confirmed = pending["index"]
                path = "confirm"
            elif kind in ("deny", "cancel"):
                s.pending = None
                s.slots = {}
                return answer(_t("cancelled", lang), pending.get("intent"), "cancel", "declined")
            elif intent == pending.get("intent") and kind == "command" and \
                    len(self._slot_values(intent, entities)) >= 2:
                # a whole new request of the same kind ("send the contract to Li Na") replaces the old one
                s.pending = None
                pending = None
            elif kind == "correction" or (intent in (None, pending.get("intent")) and entities):
                # replace the corrected slots, then run the plan again: it stops at the confirmation anew
                form_entities = {**pending.get("entities", {}), **self._slot_values(pending.get("intent"), entities)}
                intent = pending.get("intent")
                s.pending = None
                path = "correction"
            else:
                s.pending = None  # digression: handled below, the confirmation asked again after it
        elif pending and pending.get("kind") == "ask":
            slot, etype = pending["slot"], pending.get("entity") or pending["slot"]
            value = self._value_of_type(entities, etype, pending.get("intent"), slot)
            # "Li Na" / "给王会计" answer the question even when the scorer guesses some intent for them
            answer_like = value is not None and _mostly_entity(parsed, etype)
            digression = (intent is not None and intent != pending.get("intent") and not parsed.out_of_scope
                          and not answer_like)
            if kind == "cancel":
                s.pending = None
                s.slots = {}
                return answer(_t("cancelled", lang), pending.get("intent"), "cancel", "form cancelled")
            if value is not None and not digression:
                form_entities = {**pending.get("entities", {}), slot: value,
                                 **self._slot_values(pending.get("intent"), entities)}
                intent = pending.get("intent")
                s.pending = None
                path = "form"
            elif digression:
                s.pending = None  # handled below; the slot is asked again after it, not filled from it
            else:
                texts.append(_t("not_understood_slot", lang, q=pending["prompt"]))
                self._move(s, Event.ROUTED, "slot not filled")
                self._move(s, Event.ASK, "ask again")
                return self._reply(s, texts, None, pending.get("intent"), parsed, [], trace, timings, t0, r0, "form"), None
        elif kind == "cancel" and not intent:
            return answer(_t("nothing_to_cancel", lang), None, "cancel", "nothing to cancel")

        if not self.policy.gate(intent, s.vars):
            return answer(_t("auth", lang), intent, "auth", "auth required")
        engine = self.rules()
        if resume is not None:
            rule = _rule_by_id(engine, resume.get("rule_id"))
            if rule is None:  # the pack was reloaded without that rule: route afresh
                resume, start, confirmed = None, 0, None
            else:
                plan = Plan("rule", resume["intent"], rule.rule_id, None, tuple(rule.actions), tuple(rule.fallback))
        if resume is not None:
            form_entities = dict(resume.get("entities", {}))
            steps = dict(resume.get("steps", {}))
            intent = resume["intent"]
            s.pending = None
        turn_entities = {**form_entities, **(self._slot_values(intent, entities) if path not in
                                             ("confirm",) else {})}
        ctx = await self._context(s, intent, turn_entities, text, engine)
        if plan is None:
            plan = engine.match(intent, ctx)
            if plan.path == "fallback" and path == "rule":
                path = "fallback"
        timings["route"] = (time.perf_counter() - r0) * 1000
        trace["plan"] = plan.to_trace()
        self._move(s, Event.ROUTED, plan.path)

        e0 = time.perf_counter()
        async def before_tool(tool: str, index: int, idempotent: bool) -> None:
            # restart safety: a non-idempotent tool starts only once EXECUTING is on disk
            step = {"tool": tool, "index": index, "rule_id": plan.rule_id, "trace_id": trace_id}
            if not idempotent:
                s.executing = step
                row = s.to_row()
                s.executing = None
                await self.memory.save_session(row)
            s.executing = step  # visible in session.get only once it is on disk

        async def recall(params: dict[str, Any]) -> dict[str, Any]:
            return await self._recall(s, params)

        executor = Executor(self._tool_caller(s, trace_id), self._tool_info, lang, before_tool, recall)
        result = await executor.run(plan.actions, ctx, start=start, confirmed=confirmed, steps=steps)
        if isinstance(result, Failure) and result.retryable:
            self._move(s, Event.FAIL, result.code)
            if recovery(s.machine, self.limits, retryable=True) is Event.RETRY and self._move(s, Event.RETRY):
                result = await executor.run(plan.actions, ctx, start=result.index, confirmed=confirmed,
                                            steps=dict(ctx.get("steps") or {}))
        timings["execute"] = (time.perf_counter() - e0) * 1000
        s.executing = None
        texts += result.texts
        card = None
        self._apply_effects(s, result)
        if isinstance(result, Finished):
            s.slots = {}
            self._move(s, Event.DONE, "plan finished")
        elif isinstance(result, Suspend):
            s.pending = {"kind": result.kind, "intent": intent, "rule_id": plan.rule_id, "index": result.index,
                         "steps": dict(ctx.get("steps") or {}), "entities": turn_entities, "slot": result.slot,
                         "entity": result.entity, "prompt": result.prompt, "card": result.card,
                         "refs": True, "utterance": (pending or {}).get("utterance") or trace.get("text"),
                         "ref": datetime.fromtimestamp(s.ref_ms / 1000, timezone.utc).isoformat()}
            s.slots = {k: v for k, v in turn_entities.items() if v is not None}
            texts.append(result.prompt)
            card = result.card
            self._move(s, Event.CONFIRM if result.kind == "confirm" else Event.ASK, result.kind)
        elif isinstance(result, Handoff):
            s.pending, s.slots = None, {}
            self._move(s, Event.HANDOFF, result.reason)
            self.on_event(s.uid, "handoff", {"session_id": s.session_id, "reason": result.reason, "trace_id": trace_id})
        elif isinstance(result, Failure) and not result.counts:
            # an answer, not a fault (a required recall found nothing): the rule's fallback says so
            undo = await executor.compensate(plan.on_error, ctx)
            self._merge(s, result, undo)
            texts += undo.texts
            s.pending, s.slots = None, {}
            self._move(s, Event.DONE, result.code)
            trace["failure"] = {"index": result.index, "code": result.code, "message": result.message}
        elif isinstance(result, Failure):
            undo = await executor.compensate(plan.compensation(result.index), ctx)
            self._merge(s, result, undo)
            texts += undo.texts or [_t("failed", lang, code=result.code)]
            s.slots = slots_before  # only this turn's changes are dropped
            if s.state is not State.ERROR_HANDLING:
                self._move(s, Event.FAIL, result.code)
            ev = recovery(s.machine, self.limits, retryable=False)
            if ev is Event.HANDOFF:
                self._move(s, Event.HANDOFF, "too many failures")
                texts.append(_t("handoff", lang))
                self.on_event(s.uid, "handoff", {"session_id": s.session_id, "reason": "failures",
                                                 "trace_id": trace_id})
            else:
                self._move(s, Event.DEGRADE, result.code)
            trace["failure"] = {"index": result.index, "code": result.code, "message": result.message}
            path = "error"
        if pending and pending.get("kind") in ("confirm", "ask") and s.pending is None and path in ("rule", "fallback"):
            # a digression finished: the open question comes back (asked again exactly once)
            if pending.get("reasked"):
                # asked again once already: keep it open without repeating it, in its own state
                # (so its timer still runs and a late "yes" after a timeout sends nothing)
                s.pending = pending
                s.slots = {k: v for k, v in pending.get("entities", {}).items() if v is not None}
                self._move(s, Event.TEXT, "digression done")
                self._move(s, Event.PARSED, "digression done")
                self._move(s, Event.ROUTED, "digression done")
                self._move(s, Event.CONFIRM if pending["kind"] == "confirm" else Event.ASK, "still open")
            else:
                s.pending = {**pending, "reasked": True}
                q = pending.get("prompt") or (pending.get("card") or {}).get("question", "")
                texts.append(_t("confirm_again" if pending["kind"] == "confirm" else "ask_again", lang, q=q))
                card = pending.get("card") if pending["kind"] == "confirm" else None
                s.slots = {k: v for k, v in pending.get("entities", {}).items() if v is not None}
                self._move(s, Event.TEXT, "digression done")
                self._move(s, Event.PARSED, "digression done")
                self._move(s, Event.ROUTED, "digression done")
                self._move(s, Event.CONFIRM if pending["kind"] == "confirm" else Event.ASK, "asked again")
        return self._reply(s, texts, card, intent, parsed, [x.to_dict() for x in result.log], trace, timings,
                           t0, r0, path), result

    # ------------------------------------------------------------------ helpers

    def _reply(self, s: Session, texts: list[str], card: dict[str, Any] | None, intent: str | None, parsed: Any,
               actions: list[dict[str, Any]], trace: dict[str, Any], timings: dict[str, float], t0: float,
               r0: float, path: str) -> dict[str, Any]:
        timings.setdefault("route", (time.perf_counter() - r0) * 1000)
        timings["total"] = (time.perf_counter() - t0) * 1000
        self.turns_by_path[path] = self.turns_by_path.get(path, 0) + 1
        trace.update({"path": path, "state_after": s.state.value, "version": s.machine.version, "actions": actions,
                      "timings_ms": {k: round(v, 3) for k, v in timings.items()}})
        s.last_trace = trace
        s.turns += 1
        now = self.now_ms()
        s.updated_ms = now
        s.expires_ms = now + int(self.settings.ttl_s * 1000)
        reply: dict[str, Any] = {"text": "\n".join(t for t in texts if t)}
        if card:
            reply["card"] = card
        out = {"reply": reply, "state": s.state.value, "version": s.machine.version, "intent": intent,
               "entities": [e.to_dict() for e in parsed.entities] if parsed else [], "actions": actions,
               "path": path, "rule_id": (trace.get("plan") or {}).get("rule_id"), "trace_id": trace["trace_id"],
               "timings_ms": {k: round(v, 3) for k, v in timings.items()}}
        trace["at_ms"], trace["reply"] = now, reply["text"]
        trace.setdefault("lang", "zh" if re.search(r"[\u4e00-\u9fff]", reply["text"]) else "en")
        s.history.append(trace)
        del s.history[:-20]
        log.info("turn", extra={"kv": {"path": path, "intent": intent, "state": s.state.value,
                                       "duration_ms": timings["total"]}})
        return out

    async def _commit(self, s: Session, reply: dict[str, Any], message_id: str | None, result: Any) -> None:
        """Session row, stored reply, events of tool calls and remembered values: one transaction."""
        slots, events = [], []
        if result is not None:
            for key, value, mclass in result.remembered:
                slots.append({"uid": s.uid, "session_id": f"user:{s.uid}", "anchor": key, "data": {"value": value},
                              "memory_class": {"session": "scratch"}.get(mclass, mclass)})
            anchors, kinds = s.refs.get("anchors", {}), s.refs.get("kinds", {})
            kind = next(iter(kinds.values()), "") or ""
            for tool, params, output in result.tool_results:
                who = params.get("recipient") or params.get("person") or params.get("query")
                target = anchors.get(who) if isinstance(who, str) else None
                if target is None and len(anchors) == 1:
                    target = next(iter(anchors.values()))
                events.append(self.memory.core.event_row(
                    s.uid, s.session_id, actor=f"uid:{s.uid}", action=tool,
                    object=str(output.get("document") or params.get("document") or ""),
                    object_kind=str(kind), target_anchor=str(target or ""),
                    at_ms=s.ref_ms or self.now_ms(), payload={"params": params, "output": output}))
        # a turn with side effects (a tool ran, something was remembered) is on disk before its
        # reply goes out; a pure turn is queued in the same single transaction without waiting
        durable = bool(slots or events)
        trace = s.last_trace or {}
        raw = {"at_ms": s.updated_ms, "message_id": message_id, "text": trace.get("text"), "reply": reply,
               "intent": trace.get("intent"), "path": trace.get("path"), "actions": trace.get("actions"),
               "state": s.state.value, "version": s.machine.version, "trace_id": trace.get("trace_id")}
        await self.memory.commit_turn(session=s.to_row(), reply=(s.session_id, message_id, s.uid, reply)
                                      if message_id else None, events=events, slots=slots, durable=durable,
                                      extra=[lambda conn: turnlog.insert(conn, s.session_id, s.updated_ms, raw)])
        if result is not None and self.on_tool_result is not None:
            for tool, params, output in result.tool_results:
                try:
                    await self.on_tool_result(s.uid, s.session_id, tool, params, output)
                except Exception:
                    log.exception("tool result hook failed", extra={"kv": {"tool": tool}})

    def _apply_effects(self, s: Session, result: Any) -> None:
        s.vars.update(result.state_vars)

    def _merge(self, s: Session, result: Failure, undo: Finished) -> None:
        """Fold what the compensation/fallback steps did into the failed plan's outcome."""
        result.log.extend(undo.log)
        result.remembered.extend(undo.remembered)
        self._apply_effects(s, undo)

    def _tool_caller(self, s: Session, trace_id: str) -> Callable[..., Any]:
        async def call(name: str, params: dict[str, Any]) -> dict[str, Any]:
            return await self.tools.call(name, params, role=s.role, session_id=s.session_id, trace_id=trace_id,
                                         uid=s.uid)
        return call

    def _tool_info(self, name: str) -> tuple[bool, bool] | None:
        registry = getattr(self.tools, "registry", None)
        tool = registry.get(name) if registry is not None else None
        if tool is None:
            return None
        return bool(tool.descriptor.confirm), bool(tool.descriptor.idempotent)

    async def _entities(self, s: Session, parsed: Any, *,
                        fuzzy: bool = True) -> tuple[dict[str, list[Any]], tuple[str, list] | None]:
        """Entity values by type (first mention first), person mentions anchored.

        Also fills ``s.refs``: ``anchors`` (shown name → anchor id) and ``kinds`` (document kind as
        said → canonical kind), which recall steps and captured events use.

        :return: (type → [value, ...], (mention, candidates) of the first ambiguous person or None).
        """
        out: dict[str, list[Any]] = {}
        ambiguous = None
        if parsed is None:
            return out, None
        anchors, kinds = s.refs.setdefault("anchors", {}), s.refs.setdefault("kinds", {})
        for e in parsed.entities:
            d = e.to_dict()
            value: Any = d.get("value")
            if e.type == "person":
                res = await self.memory.resolve(d["text"], session_id=s.session_id, type="person", fuzzy=fuzzy)
                if res.status == "resolved":
                    value = res.text
                    anchors[value] = res.anchor_id
                elif res.status == "ambiguous" and ambiguous is None:
                    ambiguous = (d["text"], res.candidates)
                    value = res.text
                else:
                    value = res.text or d["text"]
            elif e.type == "doc_type":
                value = d["text"]
                kinds[value] = d.get("value")
            out.setdefault(e.type, []).append(value)
        return out, ambiguous

    async def _disambiguate_by_memory(self, s: Session, ambiguous: tuple[str, list], entities: dict[str, list[Any]]) -> bool:
        """"上周三发给张工的…": of the people a mention could be, keep the one this user dealt with in the
        time range the utterance names. Binds the mention for the session and returns True when
        exactly one candidate has memories there; otherwise the user is asked."""
        times = [t for t in entities.get("datetime", []) if isinstance(t, dict) and t.get("start") and t.get("end")]
        if not times:
            return False
        since, until = self._ms_range(s, times[0])
        if since is None:
            return False
        mention, cands = ambiguous
        hits = []
        for cand in cands:
            found = await self.memory.search(s.uid, anchors=[cand["anchor_id"]], since=since, until=until, k=1)
            if found:
                hits.append(cand)
        if len(hits) != 1:
            return False
        self.memory.graph.bind(s.session_id, mention, hits[0]["anchor_id"])
        log.info("anchor.disambiguated", extra={"kv": {"mention": mention, "anchor": hits[0]["anchor_id"],
                                                       "via": "memory", "candidates": len(cands)}})
        return True

    def _zone(self, s: Session) -> Any:
        from zoneinfo import ZoneInfo

        return ZoneInfo(s.tz or self.nlu.settings.timezone)

    def _ms_range(self, s: Session, when: dict[str, Any]) -> tuple[int | None, int | None]:
        """A time expression's half-open [start, end) in epoch ms (dates at local midnight in the session zone)."""
        def ms(v: Any) -> int | None:
            if not v:
                return None
            try:
                dt = datetime.fromisoformat(str(v))
            except ValueError:
                return None
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=self._zone(s))
            return int(dt.timestamp() * 1000)
        return ms(when.get("start")), ms(when.get("end"))

    async def _recall(self, s: Session, params: dict[str, Any]) -> dict[str, Any]:
        """The memory search behind a rule's ``recall`` step (this user's memories only)."""
        person = params.get("person")
        anchors = s.refs.get("anchors", {})
        anchor = anchors.get(person) if isinstance(person, str) else None
        if anchor is None and isinstance(person, str) and ":" in person:
            anchor = person
        if person and anchor is None:
            return {"items": [], "count": 0}  # an unresolved person matches nobody's memories
        kind = params.get("kind")
        kind = s.refs.get("kinds", {}).get(kind, kind) if isinstance(kind, str) else None
        since, until = self._ms_range(s, {"start": params.get("since"), "end": params.get("until")})
        items = await self.memory.search(s.uid, anchors=[anchor] if anchor else None, action=params.get("action"),
                                         kind=kind, since=since, until=until, query=params.get("query"),
                                         k=int(params.get("k") or 3))
        out = []
        for it in items:
            payload = it.get("payload") or {}
            out.append({"type": it.get("type"), "action": it.get("action"), "object": it.get("object"),
                        "kind": it.get("object_kind"), "anchor": it.get("target_anchor"), "at_ms": it.get("at_ms"),
                        "at": datetime.fromtimestamp((it.get("at_ms") or 0) / 1000, self._zone(s)).strftime(
                            "%Y-%m-%d %H:%M"), "params": payload.get("params"), "output": payload.get("output")})
        return {"items": out, "count": len(out)}

    def _spec_slots(self, intent: str | None) -> dict[str, str]:
        if intent is None:
            return {}
        for spec in self.nlu.engine.specs:
            if spec.name == intent:
                return dict(spec.slots)
        return {}

    def _slot_values(self, intent: str | None, entities: dict[str, list[Any]]) -> dict[str, Any]:
        """This turn's entities by the intent's slot names (slot → entity type in the intent pack)."""
        out: dict[str, Any] = {}
        used: dict[str, int] = {}
        for slot, etype in self._spec_slots(intent).items():
            values = entities.get(etype) or []
            i = used.get(etype, 0)
            if i < len(values):
                out[slot] = values[i]
                used[etype] = i + 1
        return out

    def _aliases(self, s: Session, intent: str | None, entities: dict[str, Any]) -> dict[str, list[str]]:
        """``<slot>_kind``: the slot's canonical value (合同, Contract, CONTRACT → ``contract``), for conditions;
        ``<slot>_aliases``: every name the gazetteer knows for it (报价单, 报价, quote, quotation), so a rule
        can match files or records named in any language."""
        out: dict[str, list[str]] = {}
        gazetteers = getattr(self.nlu.engine, "gazetteers", {}) or {}
        for slot, etype in self._spec_slots(intent).items():
            gaz, value = gazetteers.get(etype), entities.get(slot)
            if not gaz or not isinstance(value, str):
                continue
            canonical = s.refs.get("kinds", {}).get(value) or gaz.get(value) or gaz.get(value.casefold())
            if canonical:
                out[f"{slot}_kind"] = canonical
                out[f"{slot}_aliases"] = sorted({surface for surface, c in gaz.items() if c == canonical} | {value})
        return out

    def _value_of_type(self, entities: dict[str, list[Any]], etype: str, intent: str | None, slot: str) -> Any:
        values = entities.get(etype) or entities.get(self._spec_slots(intent).get(slot, ""), [])
        return values[0] if values else None

    @staticmethod
    def _choice(pending: dict[str, Any], text: str, answer: dict[str, Any] | None) -> dict[str, Any] | None:
        cands = pending.get("candidates") or []
        idx = None
        if answer is not None and isinstance(answer.get("choice"), int):
            idx = answer["choice"]
        elif text:
            m = _DIGIT.search(text)
            if m:
                idx = int(m.group(1)) - 1
            else:
                for i, c in enumerate(cands):
                    if c.get("display") and c["display"] in text or c.get("dept") and c["dept"] in text:
                        idx = i
                        break
        if idx is None or not 0 <= idx < len(cands):
            return None
        return cands[idx]

    async def _context(self, s: Session, intent: str | None, entities: dict[str, Any], text: str,
                       engine: Any) -> dict[str, Any]:
        memory: dict[str, Any] = {}
        if engine is not self._keys_engine:  # a (re)loaded rule set: its own cache, not one keyed by id()
            self._keys_engine, self._keys = engine, {}
        keys = self._keys.get(intent)
        if keys is None:
            keys = self._keys[intent] = _memory_keys(engine, intent)
        for key in keys:
            slot = await self.memory.get(s.uid, f"user:{s.uid}", key)
            if slot is not None:
                memory[key] = (slot.get("data") or {}).get("value")
        entities = {**entities, **self._aliases(s, intent, entities)}
        return {"role": s.role, "slots": dict(s.slots), "entities": entities, "memory": memory,
                "session": {**s.vars, "state": s.state.value, "channel": s.channel, "user": s.user,
                            "utterance": text, "locale": s.locale}}


_FILLER = re.compile(r"[\s\W_]+")


def _mostly_entity(parsed: Any, etype: str, max_rest_chars: int = 4) -> bool:
    """The utterance is (almost) only an entity of ``etype``: at most ``max_rest_chars`` other
    letters ("to", "给", "是") once spaces and punctuation are dropped."""
    for e in parsed.entities:
        if e.type == etype:
            a, b = e.span
            rest = _FILLER.sub("", parsed.text[:a] + parsed.text[b:])
            return len(rest) <= max_rest_chars
    return False


def _rule_by_id(engine: Any, rule_id: str | None) -> Any:
    """The rule ``rule_id`` in the engine's packs (None when a reload removed it)."""
    if rule_id is None:
        return None
    for pack in engine.packs:
        for rule in pack.rules:
            if rule.rule_id == rule_id:
                return rule
    return None


def _memory_keys(engine: Any, intent: str | None) -> tuple[str, ...]:
    """``memory.<key>`` names the rules of ``intent`` read (conditions and templates)."""
    if intent is None:
        return ()
    keys: set[str] = set()
    for rule in engine.rules_for(intent):
        for cond in rule.conditions:
            keys.update(_MEMORY_KEY.findall(cond))
        for action in (*rule.actions, *rule.fallback):
            keys.update(p[1] for p in action.paths if len(p) > 1 and p[0] == "memory")
    return tuple(sorted(keys))
