"""The session state machine (pure): seven states, an explicit transition table, versions.

Values in, values out: :func:`transition` takes a :class:`Machine` snapshot, an
:class:`Event` and the current monotonic time (the clock is passed in) and returns either a
:class:`Transition` (new snapshot, version + 1, the next deadline) or a :class:`Refusal`
with a reason. It never raises for a refused transition; each refusal is logged once.

The table (DESIGN.md, "Session state machine")::

    IDLE            open→LISTENING  text→PARSING
    LISTENING       text→PARSING    timeout→IDLE
    PARSING         parsed→ROUTING  timeout→ROUTING (keyword-only parse)  fail→ERROR_HANDLING
    ROUTING         routed→EXECUTING  timeout→EXECUTING (fallback path)  fail→ERROR_HANDLING
    EXECUTING       done→LISTENING  ask→LISTENING  confirm→CONFIRMING  handoff→IDLE
                    fail|timeout|interrupt→ERROR_HANDLING
    CONFIRMING      accept→EXECUTING  reject|cancel→LISTENING  text→PARSING  timeout→IDLE (cancelled)
    ERROR_HANDLING  retry→EXECUTING  degrade|cancel→LISTENING  text→PARSING  handoff→IDLE

Failure counting: entering ERROR_HANDLING (``fail``, ``timeout`` in EXECUTING,
``interrupt``) adds one to ``failures``; ``done`` and ``handoff`` reset it, so it counts
*consecutive* failures across turns. When it reaches ``handoff_after`` the transition
says ``handoff_due`` and ERROR_HANDLING accepts only ``handoff``. :func:`recovery` tells
the controller which of retry / degrade / handoff to send.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType

from .settings import SessionSettings

__all__ = [
    "TABLE",
    "TIMEOUT_ACTIONS",
    "Event",
    "Limits",
    "Machine",
    "Refusal",
    "State",
    "Transition",
    "new_machine",
    "recovery",
    "restore",
    "transition",
]

log = logging.getLogger(__name__)


class State(StrEnum):
    """The seven session states."""

    IDLE = "IDLE"
    LISTENING = "LISTENING"
    PARSING = "PARSING"
    ROUTING = "ROUTING"
    EXECUTING = "EXECUTING"
    CONFIRMING = "CONFIRMING"
    ERROR_HANDLING = "ERROR_HANDLING"


class Event(StrEnum):
    """What happened to a session; the table maps (state, event) to the next state."""

    OPEN = "open"
    TEXT = "text"
    PARSED = "parsed"
    ROUTED = "routed"
    DONE = "done"
    ASK = "ask"
    CONFIRM = "confirm"
    ACCEPT = "accept"
    REJECT = "reject"
    CANCEL = "cancel"
    FAIL = "fail"
    INTERRUPT = "interrupt"
    RETRY = "retry"
    DEGRADE = "degrade"
    HANDOFF = "handoff"
    TIMEOUT = "timeout"


S, E = State, Event

#: (state, event) → next state. Anything not listed is refused.
TABLE: Mapping[tuple[State, Event], State] = MappingProxyType({
    (S.IDLE, E.OPEN): S.LISTENING,
    (S.IDLE, E.TEXT): S.PARSING,
    (S.LISTENING, E.TEXT): S.PARSING,
    (S.LISTENING, E.TIMEOUT): S.IDLE,
    (S.PARSING, E.PARSED): S.ROUTING,
    (S.PARSING, E.TIMEOUT): S.ROUTING,
    (S.PARSING, E.FAIL): S.ERROR_HANDLING,
    (S.ROUTING, E.ROUTED): S.EXECUTING,
    (S.ROUTING, E.TIMEOUT): S.EXECUTING,
    (S.ROUTING, E.FAIL): S.ERROR_HANDLING,
    (S.EXECUTING, E.DONE): S.LISTENING,
    (S.EXECUTING, E.ASK): S.LISTENING,
    (S.EXECUTING, E.CONFIRM): S.CONFIRMING,
    (S.EXECUTING, E.HANDOFF): S.IDLE,
    (S.EXECUTING, E.FAIL): S.ERROR_HANDLING,
    (S.EXECUTING, E.TIMEOUT): S.ERROR_HANDLING,
    (S.EXECUTING, E.INTERRUPT): S.ERROR_HANDLING,
    (S.CONFIRMING, E.ACCEPT): S.EXECUTING,
    (S.CONFIRMING, E.REJECT): S.LISTENING,
    (S.CONFIRMING, E.CANCEL): S.LISTENING,
    (S.CONFIRMING, E.TEXT): S.PARSING,
    (S.CONFIRMING, E.TIMEOUT): S.IDLE,
    (S.ERROR_HANDLING, E.RETRY): S.EXECUTING,
    (S.ERROR_HANDLING, E.DEGRADE): S.LISTENING,
    (S.ERROR_HANDLING, E.CANCEL): S.LISTENING,
    (S.ERROR_HANDLING, E.TEXT): S.PARSING,
    (S.ERROR_HANDLING, E.HANDOFF): S.IDLE,
})

#: what a timeout in each state means for the controller.
TIMEOUT_ACTIONS: Mapping[State, str] = MappingProxyType({
    S.LISTENING: "idle",
    S.PARSING: "keyword_only",
    S.ROUTING: "fallback",
    S.EXECUTING: "plan_timeout",
    S.CONFIRMING: "cancelled",
})

_COUNTS_FAILURE = frozenset({E.FAIL, E.INTERRUPT})


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-state timeouts (seconds; ``None`` = no timer) and the failure thresholds.

    Build with :meth:`from_settings`; the defaults are DESIGN.md's figures.
    """

    timeouts_s: Mapping[State, float | None]
    handoff_after: int = 3
    max_retries: int = 1

    @classmethod
    def from_settings(cls, s: SessionSettings) -> Limits:
        """Timeouts from the ``session:`` section (ms fields converted to seconds)."""
        return cls(
            timeouts_s=MappingProxyType({
                S.IDLE: None,
                S.LISTENING: s.listening_s,
                S.PARSING: s.parsing_ms / 1000.0,
                S.ROUTING: s.routing_ms / 1000.0,
                S.EXECUTING: s.executing_s,
                S.CONFIRMING: s.confirming_s,
                S.ERROR_HANDLING: None,
            }),
            handoff_after=s.handoff_after_failures,
            max_retries=s.max_retries,
        )


@dataclass(frozen=True, slots=True)
class Machine:
    """One session's machine snapshot (immutable; store it, replace it on transition).

    :param version: +1 on every accepted transition (optimistic concurrency token).
    :param failures: consecutive failures (reset by ``done`` and ``handoff``).
    :param retries: retries in the current error episode.
    :param entered_at: monotonic seconds when ``state`` was entered.
    :param deadline: monotonic seconds when ``state`` times out, or ``None``.
    """

    session_id: str
    state: State = S.IDLE
    version: int = 0
    failures: int = 0
    retries: int = 0
    entered_at: float = 0.0
    deadline: float | None = None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dict (monotonic times are process-local: persist state/version/failures only)."""
        return {"session_id": self.session_id, "state": self.state.value, "version": self.version,
                "failures": self.failures, "retries": self.retries}


@dataclass(frozen=True, slots=True)
class Transition:
    """An accepted transition.

    :param machine: the new snapshot (arm a timer at ``machine.deadline``).
    :param timeout_action: for ``timeout``, what it means (:data:`TIMEOUT_ACTIONS`), else None.
    :param handoff_due: ``failures`` reached the threshold: send ``handoff`` next.
    """

    machine: Machine
    source: State
    event: Event
    reason: str = ""
    timeout_action: str | None = None
    handoff_due: bool = False

    ok = True


@dataclass(frozen=True, slots=True)
class Refusal:
    """A refused transition: the snapshot is unchanged; ``reason`` says why."""

    machine: Machine
    event: Event | str
    reason: str

    ok = False


def new_machine(session_id: str, now: float, limits: Limits) -> Machine:
    """A fresh session, already LISTENING (``open`` applied), version 1."""
    result = transition(Machine(session_id, entered_at=now), E.OPEN, now=now, limits=limits)
    assert isinstance(result, Transition)
    return result.machine


def _refuse(m: Machine, event: Event | str, reason: str) -> Refusal:
    log.info("transition refused", extra={"kv": {"session": m.session_id, "state": m.state.value,
                                                 "event": str(event), "version": m.version, "reason": reason}})
    return Refusal(m, event, reason)


def transition(m: Machine, event: Event | str, *, now: float, limits: Limits,
               expected_version: int | None = None, reason: str = "") -> Transition | Refusal:
    """Apply ``event`` to ``m``.

    :param now: monotonic seconds (``loop.time()``); used for ``entered_at``/``deadline``
        and to check that a ``timeout`` is really due.
    :param expected_version: if given and not ``m.version``, refuse (someone else moved
        the session since the caller read it).
    :param reason: free text carried into the transition (for the trace).
    :return: :class:`Transition` or :class:`Refusal`; never raises for a refused event.
    """
    if event.__class__ is not Event:  # a member is itself; only a string is looked up
        try:
            event = Event(event)
        except ValueError:
            return _refuse(m, str(event), f"unknown event {event!r}")
    if expected_version is not None and expected_version != m.version:
        return _refuse(m, event, f"stale version {expected_version}, session is at {m.version}")
    target = TABLE.get((m.state, event))
    if target is None:
        allowed = sorted(e.value for (st, e) in TABLE if st is m.state)
        return _refuse(m, event, f"no transition from {m.state.value} on {event.value} (allowed: {', '.join(allowed)})")
    if event is E.TIMEOUT and (m.deadline is None or now < m.deadline):
        return _refuse(m, event, "no timeout due (the state changed or was re-armed since the timer was set)")
    if m.state is S.ERROR_HANDLING and m.failures >= limits.handoff_after and event is not E.HANDOFF:
        return _refuse(m, event, f"{m.failures} consecutive failures: only handoff is allowed")
    if event is E.RETRY and m.retries >= limits.max_retries:
        return _refuse(m, event, f"retry limit {limits.max_retries} reached: degrade or hand off")

    failures, retries = m.failures, m.retries
    if event in _COUNTS_FAILURE or (event is E.TIMEOUT and m.state is S.EXECUTING):
        failures += 1
    elif event in (E.DONE, E.HANDOFF):
        failures = 0
    if event is E.RETRY:
        retries += 1
    elif target is not S.EXECUTING and target is not S.ERROR_HANDLING:
        retries = 0
    timeout = limits.timeouts_s.get(target)
    # every field of Machine, given directly (dataclasses.replace looks the fields up on each call:
    # four times a turn); tests/session/test_machine.py keeps this list equal to Machine's fields
    new = Machine(m.session_id, state=target, version=m.version + 1, failures=failures, retries=retries,
                  entered_at=now, deadline=None if timeout is None else now + timeout)
    return Transition(
        machine=new, source=m.state, event=event, reason=reason,
        timeout_action=TIMEOUT_ACTIONS.get(m.state) if event is E.TIMEOUT else None,
        handoff_due=target is S.ERROR_HANDLING and failures >= limits.handoff_after,
    )


def recovery(m: Machine, limits: Limits, *, retryable: bool) -> Event:
    """Which event to send in ERROR_HANDLING.

    :param retryable: the failed step may run again (idempotent tool, or it never started).
    :return: ``handoff`` at ``limits.handoff_after`` consecutive failures; else ``retry`` while
        ``retryable`` and under ``limits.max_retries``; else ``degrade``.
    """
    if m.failures >= limits.handoff_after:
        return E.HANDOFF
    if retryable and m.retries < limits.max_retries:
        return E.RETRY
    return E.DEGRADE


def restore(m: Machine, now: float, limits: Limits, elapsed_s: float = 0.0) -> Machine:
    """A snapshot read back after a restart, with deadlines re-armed from ``now``, less ``elapsed_s``
    (wall-clock seconds the state had already lasted before the restart: a card open for 40 s keeps
    its remaining 20 s, and one whose time ran out while the daemon was down times out at once).

    A session that was EXECUTING when the process died goes to ERROR_HANDLING through
    ``interrupt`` (counted as a failure); the controller then decides with :func:`recovery`
    (``retryable`` only for idempotent tools), so a non-idempotent tool is never re-run.
    """
    if m.state is S.EXECUTING:
        result = transition(m, E.INTERRUPT, now=now, limits=limits, reason="interrupted by restart")
        assert isinstance(result, Transition)
        return result.machine
    timeout = limits.timeouts_s.get(m.state)
    left = None if timeout is None else max(0.0, timeout - max(0.0, elapsed_s))
    return replace(m, entered_at=now, deadline=None if left is None else now + left)
