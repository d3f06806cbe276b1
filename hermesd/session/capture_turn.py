"""The Memory Control Protocol's capture step of a turn (DESIGN.md, "A turn, step by step", step 6).

Runs once the reply is composed, before the turn's commit: the explicit facts the
turn told to remember and what the capture rules keep of the turn (entities,
memory verbs, structured tool results) are compressed and staged in L1 now, and
their L2 rows and audit lines ride in the turn's own transaction — no second
commit, no fsync of their own. The session's ``recent`` list (newest captured
entities) is what "that order" / "刚才那个订单" resolve against (:mod:`.references`).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from ..memory.capture import CaptureRules, turn_record
from .ports import MemoryPort
from .record import Session

__all__ = ["RECENT_MAX", "stage_memory"]

log = logging.getLogger(__name__)

#: captured entities a session keeps for references
RECENT_MAX = 20


def stage_memory(memory: MemoryPort, s: Session, reply: dict[str, Any], tool_results: list[tuple[str, dict, dict]],
                 rules: CaptureRules | None, trace_id: str) -> tuple[list[Any], list[tuple[str, str, int]]]:
    """Stage the turn's facts and capture; returns (staged writes, ``[(kind, anchor, version)]`` of facts).

    Records ``capture_us`` (the time this took, µs) in the session's last trace. The ``[MCP]`` lines
    are logged once the reply went out (``memory.flush_lines``, scheduled by the commit).
    """
    t0 = time.perf_counter()
    staged, updated = [], []
    for f in s.staged:
        st = memory.stage_fact(s.uid, s.session_id, f["anchor"], f["data"], detail=f["detail"], trace_id=trace_id)
        staged.append(st)
        updated.append(("fact", f["anchor"], st.row["version"]))
    s.staged = []
    trace = s.last_trace or {}
    if rules is not None and trace.get("path") != "memory":  # a fact turn is captured as the fact above
        kinds = s.refs.get("kinds", {})
        turn = turn_record(rules, text=str(trace.get("text") or ""), intent=reply.get("intent"),
                           entities=reply.get("entities") or [], anchors=s.refs.get("anchors", {}),
                           tool_results=tool_results, kind=str(next(iter(kinds.values()), "") or ""))
        st = memory.stage_capture(s.uid, s.session_id, turn, slot_session=f"user:{s.uid}", at_ms=s.ref_ms or None,
                                trace_id=trace_id, verbs=rules.memory_verbs, defer=True)
        if st is not None:
            staged.append(st)
            _remember_recent(s, turn)
    if s.last_trace is not None:
        s.last_trace.setdefault("timings_ms", {})["capture_us"] = round((time.perf_counter() - t0) * 1e6, 1)
    return staged, updated


def _remember_recent(s: Session, turn: dict[str, Any]) -> None:
    at = s.ref_ms
    for e in turn.get("entities") or []:
        if e["type"] != "datetime":
            s.recent.append({"type": e["type"], "value": e["value"], "at_ms": at})
    tr = turn.get("tool_result")
    if tr and tr.get("object"):
        fields = tr.get("fields") or {}
        etype = "order_id" if "order_id" in fields else "document" if tr.get("object_kind") or "document" in fields \
            else "object"
        s.recent.append({"type": etype, "value": tr["object"], "kind": tr.get("object_kind", ""), "at_ms": at})
        if tr.get("object_kind"):  # "那份文件": the kind of the document the tool acted on
            s.recent.append({"type": "doc_type", "value": tr["object_kind"], "at_ms": at})
    del s.recent[:-RECENT_MAX]
