"""The per-user session cap (``session.max_sessions_per_user``): which sessions end to make room for
one more, or why none may yet (pure: the sessions and the clock in, a :class:`Room` out).

A session of the user stands in one of three ways:

- ``running``: a turn or a tool plan is in flight. Never ended to make room.
- ``waiting``: it holds a question for the person — a card to confirm, a choice, a slot asked for, a
  form half filled. Once untouched for ``cap_grace_s`` it may end, after every idle one: the person
  has gone on to open another conversation, and the question waits as a pending task (offered in the
  next session, as a card that timed out is), so nothing committed is lost and nothing runs.
- ``idle``: nothing open (an offer of parked work is no work of its own; a parked session is idle).
  It may end once IDLE or untouched for ``cap_grace_s`` (a session opened moments ago is still its
  client's: its first turn is on the way).

Idle ones go first, least recently used first (IDLE before LISTENING). A question gives way only
when no idle session can make room, not even once its own grace is over (the user is then asked to
retry in a moment, and the card stays); then the longest-waiting question goes. The user is refused
(``SESSION_LIMIT``) only while every session is running or was used within the grace — for at most
``cap_grace_s``, never for a card's whole ``confirming_s``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Literal

from ..dialogue.questions import Ask, Choice, Confirm, Offer, Pick
from .machine import State
from .parking import Parked
from .record import Session

__all__ = ["CapFull", "Room", "make_room", "question_of", "standing"]

Standing = Literal["running", "waiting", "idle"]

#: the soonest and latest a refused client is told to retry (ms): a session may be closed any moment
RETRY_MIN_MS, RETRY_MAX_MS = 50, 250


def standing(s: Session | Parked) -> Standing:
    """How ``s`` stands for the cap (see the module docstring)."""
    if isinstance(s, Parked):
        return "idle"
    if s.busy or s.executing is not None:
        return "running"
    if s.state is not State.IDLE and ((s.pending is not None and not isinstance(s.pending, Offer)) or s.slots):
        return "waiting"
    return "idle"


def question_of(s: Session | Parked) -> str:
    """What ``s`` waits on, for the log line of its eviction: ``confirm``, ``choice``, ``ask``, ``form``
    (slots filled, nothing asked) or ``""`` (nothing)."""
    if isinstance(s, Parked):
        return ""
    q = s.pending
    if isinstance(q, Confirm):
        return "confirm"
    if isinstance(q, (Choice, Pick)):
        return "choice"
    if isinstance(q, Ask):
        return "ask"
    return "form" if s.slots else ""


@dataclass(frozen=True, slots=True)
class CapFull:
    """Why no session may end yet: counts of the user's sessions and when to retry (ms)."""

    open: int
    limit: int
    running: int
    #: used within the grace and waiting for the person's answer
    waiting: int
    #: used within the grace with nothing open
    recent: int
    retry_after_ms: int


@dataclass(frozen=True, slots=True)
class Room:
    """The sessions to end for one more (in order, each with the :func:`question_of` it drops — ``""``
    for an idle one), or ``full``."""

    evict: tuple[tuple[Session | Parked, str], ...] = ()
    full: CapFull | None = None


def make_room(sessions: Iterable[Session | Parked], cap: int, now_ms: int, grace_ms: int) -> Room:
    """Choose what ends so the user may hold one more session.

    :param sessions: the user's open sessions, live and parked. :param cap: ``max_sessions_per_user``.
    :param now_ms: wall clock, epoch ms. :param grace_ms: ``cap_grace_s`` in ms.
    :return: :class:`Room`: nothing when under the cap; else the sessions that end, idle ones first
        (IDLE before others, then least recently used), then — only when idle ones, even those still
        in their grace, are too few — waiting ones (longest untouched first); ``full`` when fewer than
        needed may end now.
    """
    mine = list(sessions)
    excess = len(mine) + 1 - cap
    if excess <= 0:
        return Room()
    idle: list[Session | Parked] = []
    waiting: list[Session | Parked] = []
    running = waiting_recent = idle_recent = 0
    soonest: int | None = None
    for s in mine:
        how = standing(s)
        if how == "running":
            running += 1
            continue
        old_enough = now_ms - s.updated_ms >= grace_ms
        if how == "idle" and (s.state is State.IDLE or old_enough):
            idle.append(s)
        elif how == "waiting" and old_enough:
            waiting.append(s)
        else:
            waiting_recent += how == "waiting"
            idle_recent += how == "idle"
            left = s.updated_ms + grace_ms - now_ms
            soonest = left if soonest is None else min(soonest, left)
    idle.sort(key=lambda s: (s.state is not State.IDLE, s.updated_ms, s.session_id))
    waiting.sort(key=lambda s: (s.updated_ms, s.session_id))
    order: list[tuple[Session | Parked, str]] = [(s, "") for s in idle]
    # a question gives way only when no idle session will make room either, not even after its grace
    if len(idle) + idle_recent < excess:
        order += [(s, question_of(s)) for s in waiting]
    if len(order) < excess:
        retry = min(max(soonest if soonest is not None else grace_ms, RETRY_MIN_MS), RETRY_MAX_MS)
        return Room(full=CapFull(len(mine), cap, running, waiting_recent, idle_recent, int(retry)))
    return Room(evict=tuple(order[:excess]))
