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
from typing import Any, Mapping

from ..memory.capture import CaptureRules, turn_record
from .ports import MemoryPort
from .record import Session

__all__ = ["RECENT_MAX", "document_kind", "stage_memory"]

log = logging.getLogger(__name__)

#: captured entities a session keeps for references
RECENT_MAX = 20


def document_kind(document: str, kinds: Mapping[str, str], words: Mapping[str, list[str]] | None = None) -> str:
    """The kind of the document a tool acted on, from the session's document kinds as said
    (``kinds``: ``{"报价单": "quote", "合同": "contract"}``) and every surface form of each (``words``:
    ``{"quote": ["quote", "报价", "报价单", …]}``): the one kind whose words are in the file name
    (报价单Q-2024-061.pdf), else the only kind the session holds when no other kind's words are there,
    else ``""`` (and ``""`` for no document) — never the first one said when several were
    ("把报价单和合同发给王芳" used to file the quote's send as a contract)."""
    if not document:
        return ""
    name = document.casefold()
    forms = {said: k for said, k in kinds.items() if said and k}
    for k, ws in (words or {}).items():
        forms.update({w: k for w in ws if w})
    named = {k for w, k in forms.items() if w.casefold() in name}
    if len(named) == 1:
        return next(iter(named))
    held = {k for k in kinds.values() if k}
    return next(iter(held)) if len(held) == 1 and not named else ""


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
        last = tool_results[-1] if tool_results else None
        kind = document_kind(str((last[2].get("document") or last[1].get("document") or "") if last else ""), kinds,
                             s.refs.get("kind_words"))
        turn = turn_record(rules, text=str(trace.get("text") or ""), intent=reply.get("intent"),
                           entities=reply.get("entities") or [], anchors=s.refs.get("anchors", {}),
                           tool_results=tool_results, kind=kind)
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
    # a value said in a request that failed ("把周报发给王芳": no 周报 was found) names nothing that exists:
    # kept marked, so that a generic noun of a later request ("那个文件", "the document") never means it
    failed = bool((s.last_trace or {}).get("failure"))
    for e in turn.get("entities") or []:
        if e["type"] != "datetime":
            s.recent.append({"type": e["type"], "value": e["value"], "at_ms": at, **({"failed": True} if failed else {})})
    tr = turn.get("tool_result")
    if tr and tr.get("object"):
        fields = tr.get("fields") or {}
        etype = "order_id" if "order_id" in fields else "document" if tr.get("object_kind") or "document" in fields \
            else "object"
        s.recent.append({"type": etype, "value": tr["object"], "kind": tr.get("object_kind", ""), "at_ms": at})
        if tr.get("object_kind"):  # "那份文件": the kind of the document the tool acted on
            s.recent.append({"type": "doc_type", "value": tr["object_kind"], "at_ms": at})
    del s.recent[:-RECENT_MAX]
