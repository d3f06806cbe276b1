"""The commit of a turn: what it changed, on disk together (DESIGN.md, "A turn, step by step", step 7)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable

from ..logging import redact_json
from ..memory.capture import CaptureRules
from .capture_turn import document_kind, stage_memory
from .ports import MemoryPort
from .record import Session

__all__ = ["commit_turn"]

#: a turn trace's fields kept in its turn record (the L3 archive's copy of the turn)
_TRACED = ("text", "intent", "kind", "entities", "decision", "path", "plan", "actions", "failure", "degraded",
           "state_before", "trace_id", "timings_ms")

log = logging.getLogger(__name__)


async def commit_turn(memory: MemoryPort, s: Session, reply: dict[str, Any], message_id: str | None,
                      results: list[Any], *, now_ms: int, on_tool_result: Callable[..., Any] | None,
                      capture_rules: CaptureRules | None = None,
                      on_event: Callable[[int, str, dict[str, Any]], None] | None = None) -> None:
    """Session row, stored reply, events of tool calls, remembered values and what the turn's
    capture kept (:func:`.capture_turn.stage_memory`): one L2 transaction.

    :param results: the executor outcomes of the turn's plans (``remembered``, ``tool_results``).
    :param on_tool_result: ``await on_tool_result(uid, session_id, tool, params, output)`` after the commit.
    :param capture_rules: the packs' capture rules; None = no capture (the turn's own remembers only).
    :param on_event: publishes ``memory.updated`` for each fact stored, after the commit.

    A staged fact's ``replaces`` (anchors of the notes a correction replaces) are forgotten after the
    commit, so a crash between the two keeps the old note beside the new one and loses neither.
    """
    slots, events = [], []
    anchors, kinds = s.refs.get("anchors", {}), s.refs.get("kinds", {})
    tool_results = [tr for r in results for tr in r.tool_results]
    for r in results:
        for key, value, mclass in r.remembered:
            slots.append({"uid": s.uid, "session_id": f"user:{s.uid}", "anchor": key, "data": {"value": value},
                          "memory_class": {"session": "scratch"}.get(mclass, mclass)})
    for tool, params, output in tool_results:
        who = params.get("recipient") or params.get("person") or params.get("query")
        target = anchors.get(who) if isinstance(who, str) else None
        if target is None and len(anchors) == 1:
            target = next(iter(anchors.values()))
        events.append(memory.event_row(
            s.uid, s.session_id, actor=f"uid:{s.uid}", action=tool,
            object=str(output.get("document") or params.get("document") or ""),
            object_kind=document_kind(str(output.get("document") or params.get("document") or ""), kinds,
                                      s.refs.get("kind_words")),
            target_anchor=str(target or ""),
            at_ms=s.ref_ms or now_ms, payload={"params": params, "output": output}))
    # a turn with side effects (a tool ran, something was remembered) is on disk before its
    # reply goes out; a pure turn is queued in the same single transaction without waiting
    trace = s.last_trace or {}
    replaced = [a for f in s.staged for a in f.get("replaces", ())]
    staged, updated = stage_memory(memory, s, reply, tool_results, capture_rules, trace.get("trace_id") or "")
    # an explicit fact is a promise to the user: on disk before the reply goes out
    durable = bool(slots or events or updated)
    # the turn as `hermesctl trace` shows it live (entities, rule, failure, timings), so an ended
    # session's trace read back from L3 explains its turns as well; redacted whole, utterance included
    raw = redact_json({"at_ms": s.updated_ms, "message_id": message_id, "reply": reply, "state": s.state.value,
                       "version": s.machine.version, **{k: trace.get(k) for k in _TRACED if trace.get(k) is not None}})
    await memory.commit_turn(session=s.to_row(), reply=(s.session_id, message_id, s.uid, reply)
                                  if message_id else None, events=events, slots=slots, durable=durable,
                                  turn_record=(s.session_id, s.updated_ms, raw), staged=staged)
    if staged:  # the audit lines are formatted after the reply went out (the loop's next round)
        asyncio.get_running_loop().call_soon(memory.flush_lines)
    for anchor in replaced:  # a note a corrected one replaces goes only after the new one is committed
        await memory.forget(anchor, s.uid)
        updated.append(("forget", anchor, memory.version))
    if on_event is not None:
        for kind, anchor, version in updated:
            on_event(s.uid, "memory.updated", {"kind": kind, "anchor": anchor, "version": version,
                                               "session_id": s.session_id})
    if on_tool_result is not None:
        for tool, params, output in tool_results:
            try:
                await on_tool_result(s.uid, s.session_id, tool, params, output)
            except Exception:
                log.exception("tool result hook failed", extra={"kv": {"tool": tool}})
