"""Idle sessions kept only in their L2 row (parked), so a device with thousands of open sessions
holds just the few it is talking to.

A session with nothing open — no turn in flight, no open question or form, no tool step, no retry
count — is fully described by its L2 ``sessions`` row (:meth:`.record.Session.to_row`, the same row a
restart restores from) plus the process-local monotonic times of its state machine. Past
``session.max_live_sessions`` the least recently used such sessions are *parked*: the row is written
(awaited to disk), the :class:`~.record.Session` dropped and a :class:`Parked` stub (~200 bytes:
uid, times, state, deadline) kept for ownership, the per-user cap, expiry and timeouts. The next
call that needs the session reads the row back (:func:`rehydrate`), with the stub's deadline.

The pure parts (which sessions to park, the stub, the rebuilt session) live here; the I/O is the
controller's (:meth:`~.controller.Controller.park_idle`, ``live``). The eviction order is LRU
(least recently updated first), as in the L1 cap (:mod:`hermesd.memory.l1`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable

from .machine import State
from .record import Session

__all__ = ["Parked", "parkable", "rehydrate", "to_park"]

#: states a session may be parked in: nothing runs and no card waits in them
_QUIET = (State.IDLE, State.LISTENING)


class Parked:
    """What stays in memory of a parked session (times as in :class:`~.record.Session`:
    epoch ms; ``entered_at`` / ``deadline`` monotonic seconds of its machine)."""

    __slots__ = ("session_id", "uid", "state", "updated_ms", "expires_ms", "entered_at", "deadline")

    def __init__(self, s: Session) -> None:
        self.session_id, self.uid, self.state = s.session_id, s.uid, s.machine.state
        self.updated_ms, self.expires_ms = s.updated_ms, s.expires_ms
        self.entered_at, self.deadline = s.machine.entered_at, s.machine.deadline

    def __repr__(self) -> str:
        return f"Parked({self.session_id!r}, uid={self.uid}, state={self.state.value})"


def parkable(s: Session) -> bool:
    """True when ``s`` can live in its row alone: quiet state, nothing open or running, nothing
    that its row does not hold (the machine's retry count, a half-built turn, an interrupted step)."""
    return (not s.busy and not s.closed and s.state in _QUIET and s.pending is None and not s.slots
            and s.executing is None and not s.interrupted and s.machine.retries == 0 and not s.staged)


def to_park(sessions: Iterable[Session], cap: int) -> list[Session]:
    """The parkable sessions that must go for at most ``cap`` to stay in memory, least recently
    updated first (ties by id, so the choice is stable). Sessions that cannot be parked stay and
    count towards the cap: the result may leave more than ``cap`` live.

    :param cap: sessions to keep in memory (≥ 0)."""
    live = list(sessions)
    excess = len(live) - cap
    if excess <= 0:
        return []
    quiet = sorted((s for s in live if parkable(s)), key=lambda s: (s.updated_ms, s.session_id))
    return quiet[:excess]


def rehydrate(row: dict[str, Any], stub: Parked) -> Session:
    """The session again from its row, with the monotonic times the stub kept (a LISTENING
    session's timeout fires when it would have, not re-armed)."""
    s = Session.from_row(row)
    s.machine = replace(s.machine, entered_at=stub.entered_at, deadline=stub.deadline)
    return s
