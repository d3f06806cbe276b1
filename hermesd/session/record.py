"""One session's data (the controller's unit of state) and its L2 row.

A session is owned by the uid that opened it. ``machine`` is the state machine
snapshot (:mod:`.machine`); ``slots`` are the form's filled slots by slot name;
``vars`` are ``set_state`` variables (``session.<name>`` in rules); ``pending`` is the
open question (:mod:`hermesd.dialogue.questions`) the next turn is read against;
``anchors`` are the session-local mention → anchor choices (:mod:`.grounding`).
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from ..logging import clean_json, redact, redact_json
from ..dialogue.questions import OpenQuestion, from_dict, to_dict
from .machine import Machine, State

__all__ = ["Session", "new_session_id"]

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_RANDOM_CHARS = 17  # 62**17 ≈ 2**101: at least 96 random bits


def _b62(n: int, width: int) -> str:
    out = []
    for _ in range(width):
        n, r = divmod(n, 62)
        out.append(_B62[r])
    return "".join(reversed(out))


def new_session_id(now_ms: int | None = None) -> str:
    """``<8 chars of ms time><17 random chars>``, base62: sortable by creation, unguessable.

    The prefix orders ids by creation time (like ULID, https://github.com/ulid/spec);
    the suffix comes from :mod:`secrets` (≥ 96 bits), so ids are not an existence oracle.
    """
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    return _b62(ms, 8) + "".join(secrets.choice(_B62) for _ in range(_RANDOM_CHARS))


@dataclass(slots=True)
class Session:
    """A live session. Times are integer ms since the epoch (wall clock) unless named ``_mono``."""

    session_id: str
    uid: int
    role: str
    machine: Machine
    created_ms: int
    updated_ms: int
    expires_ms: int
    user: str | None = None
    locale: str | None = None
    tz: str | None = None
    channel: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    slots: dict[str, Any] = field(default_factory=dict)
    vars: dict[str, Any] = field(default_factory=dict)
    pending: OpenQuestion | None = None
    #: session-local people: normalised mention → anchor id (chosen, settled by memory, corrected)
    anchors: dict[str, str] = field(default_factory=dict)
    #: the last card that timed out unanswered: ``{"prompt", "at_ms"}`` (a late "yes" is told it expired)
    expired: dict[str, Any] | None = None
    executing: dict[str, Any] | None = None
    #: this turn's (or the pending plan's) anchors and document kinds: ``{"anchors": {name: id}, "kinds": {...}}``
    refs: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the reference instant of the running turn, epoch ms (events are stamped with it)
    ref_ms: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    last_trace: dict[str, Any] | None = None
    turns: int = 0
    interrupted: bool = False
    closed: bool = False
    busy: bool = False
    busy_since_mono: float = 0.0
    #: transitions of the running turn, ``[from, event, to]`` (for its trace; not stored)
    moves: list[list[str]] = field(default_factory=list)
    #: facts the running turn told to remember, ``{anchor, data, detail}``: written in its commit (not stored)
    staged: list[dict[str, Any]] = field(default_factory=list)
    #: the last captured entities of this session, newest last: ``{type, value, at_ms}`` (for "that order")
    recent: list[dict[str, Any]] = field(default_factory=list)
    #: id(trace) → (trace, its redacted form) for the stored history (not stored; see :meth:`to_row`)
    _redacted: dict[int, tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=dict, init=False,
                                                                         repr=False, compare=False)

    @property
    def state(self) -> State:
        return self.machine.state

    def summary(self) -> dict[str, Any]:
        """What ``session.get`` / ``session.list`` show."""
        return {"session_id": self.session_id, "state": self.machine.state.value, "version": self.machine.version,
                "uid": self.uid, "user": self.user, "locale": self.locale, "tz": self.tz, "channel": self.channel,
                "created_ms": self.created_ms, "updated_ms": self.updated_ms, "expires_ms": self.expires_ms,
                "turns": self.turns, "slots": self.slots, "vars": self.vars, "interrupted": self.interrupted,
                "executing": self.executing,
                "pending": _pending_summary(self.pending)}

    def to_row(self) -> dict[str, Any]:
        """The L2 ``sessions`` row (``data`` holds everything but the indexed columns).

        ``data`` is stored redacted (:func:`hermesd.logging.redact`): a secret the user typed never
        reaches the disk in the clear, whether it sits in an open question's utterance, a slot or the
        history — the running session keeps the clear value for the turn that needs it.

        A trace is final once its turn has committed, so its redacted form is kept and reused by
        the next rows (a row holds up to 21 traces: redacting them all on every turn was half of
        a rule-routed turn's CPU); the running turn's trace is redacted afresh."""
        history = [self._redact_trace(t) for t in self.history[-20:]]
        if self.last_trace is None:
            last = None
        elif self.history and self.history[-1] is self.last_trace:
            last = history[-1]
        else:
            last = self._redact_trace(self.last_trace)
        return {"session_id": self.session_id, "uid": self.uid, "state": self.machine.state.value,
                "version": self.machine.version, "updated_ms": self.updated_ms, "expires_ms": self.expires_ms,
                "data": redact_json({"role": self.role, "user": self.user, "locale": self.locale, "tz": self.tz,
                         "channel": self.channel, "metadata": self.metadata, "slots": self.slots, "vars": self.vars,
                         "pending": to_dict(self.pending), "anchors": self.anchors, "expired": self.expired,
                         "executing": self.executing, "refs": self.refs, "turns": self.turns,
                         "created_ms": self.created_ms, "interrupted": self.interrupted,
                         "failures": self.machine.failures, "recent": self.recent[-20:]})
                | {"history": history, "last_trace": last}}

    def _redact_trace(self, trace: dict[str, Any]) -> dict[str, Any]:
        """``redact(trace)``, remembered per trace object once its turn is over (while the session is
        busy, the newest trace may still be written to: its form is not kept)."""
        hit = self._redacted.get(id(trace))
        if hit is not None and hit[0] is trace:
            return hit[1]
        if self.busy and trace is self.last_trace:
            return redact_json(trace)  # a copy: the running turn may still write into it
        if clean_json(trace) is not None:
            clean = trace  # nothing in it can be secret: it is its own redacted form
        else:
            clean = redact(trace)
            if clean == trace:
                clean = trace  # nothing was secret: keep no second copy
        if len(self._redacted) > 24:  # only the traces still in the history are worth keeping
            live = {id(t) for t in self.history[-20:]} | {id(self.last_trace)}
            self._redacted = {k: v for k, v in self._redacted.items() if k in live}
        self._redacted[id(trace)] = (trace, clean)
        return clean

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "Session":
        """Rebuild from an L2 row; the machine's deadline is re-armed by the caller."""
        d = row.get("data") or {}
        machine = Machine(row["session_id"], state=State(row["state"]), version=int(row["version"]),
                          failures=int(d.get("failures", 0)))
        return cls(session_id=row["session_id"], uid=int(row["uid"]), role=d.get("role", "user"), machine=machine,
                   created_ms=int(d.get("created_ms", row["updated_ms"])), updated_ms=int(row["updated_ms"]),
                   expires_ms=int(row.get("expires_ms") or row["updated_ms"]), user=d.get("user"),
                   locale=d.get("locale"), tz=d.get("tz"), channel=d.get("channel"), metadata=d.get("metadata") or {},
                   slots=d.get("slots") or {}, vars=d.get("vars") or {}, pending=_load_pending(d.get("pending")),
                   anchors=d.get("anchors") or {}, expired=d.get("expired"),
                   executing=d.get("executing"), refs=d.get("refs") or {},
                   history=d.get("history") or [], last_trace=d.get("last_trace"), turns=int(d.get("turns", 0)),
                   interrupted=bool(d.get("interrupted", False)), recent=d.get("recent") or [])


def _pending_summary(q: OpenQuestion | None) -> dict[str, Any] | None:
    d = to_dict(q)
    if d is None:
        return None
    return {"kind": d["kind"], "intent": d.get("intent"), "slot": d.get("slot"), "card": d.get("card"),
            "prompt": d.get("prompt")}


def _load_pending(d: dict[str, Any] | None) -> OpenQuestion | None:
    try:
        return from_dict(d)
    except (ValueError, TypeError, KeyError):  # a row from an incompatible version: the question is dropped
        return None
