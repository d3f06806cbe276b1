"""After a restart: sessions restored from L2, and a tool a crash interrupted (DESIGN.md, "Session
state machine": one caught EXECUTING is marked interrupted and its tool is not re-run)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..dialogue import catalogue
from ..dialogue.questions import Confirm
from .machine import State, restore
from .record import Session

if TYPE_CHECKING:
    from .controller import Controller

__all__ = ["interrupted", "restore_sessions"]

log = logging.getLogger(__name__)


async def restore_sessions(c: "Controller") -> int:
    """Reload sessions from L2 after a restart; one caught EXECUTING becomes ERROR_HANDLING, interrupted
    (:func:`interrupted`). Sessions past their TTL are deleted. :return: how many were restored."""
    now, mono = c.now_ms(), c.mono()
    c.task_uids = {t["uid"] for t in await c.memory.pending_tasks(None)}
    n = 0
    for row in await c.memory.load_sessions():
        s = Session.from_row(row)
        if now >= s.expires_ms:
            await c.memory.delete_session(s.session_id)
            continue
        was = s.state
        s.machine = restore(s.machine, mono, c.limits, elapsed_s=(now - s.updated_ms) / 1000)
        if was is State.EXECUTING:
            await interrupted(c, s)
        c._add(s)
        c._arm(s)
        n += 1
    await c.park_idle()  # past max_live_sessions, the idle ones stay in their rows
    return n


async def interrupted(c: "Controller", s: Session) -> None:
    """A session caught EXECUTING by a crash: its tool is not re-run; memory records the step as
    interrupted (never as done), and the next turn offers to run it again as a yes/no card."""
    s.interrupted = True
    step = s.executing or {}
    s.executing = None
    if step.get("rule_id") and step.get("intent"):
        lang = step.get("lang") or "zh"
        what = step.get("utterance") or step.get("tool") or ""
        prompt = catalogue.say("interrupted_offer", lang, what=what)
        s.pending = Confirm(intent=step["intent"], rule_id=step["rule_id"], index=int(step["index"]),
                            entities=step.get("entities") or {}, steps=step.get("steps") or {}, prompt=prompt,
                            utterance=step.get("utterance"), card={"question": prompt})
    row = c.memory.event_row(
        s.uid, s.session_id, actor=f"uid:{s.uid}", action=f"interrupted:{step.get('tool', '')}", object="",
        object_kind="", target_anchor="", at_ms=c.now_ms(), payload={"step": step, "status": "interrupted"})
    await c.memory.commit_turn(session=s.to_row(), reply=None, events=[row], slots=[], durable=True)
    log.warning("session.interrupted", extra={"kv": {"session": s.session_id, "tool": step.get("tool"),
                                                     "offer": s.pending is not None}})
