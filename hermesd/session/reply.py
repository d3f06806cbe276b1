"""The reply of a turn, composed from its parts, and the trace a technician reads (``session.trace``).

A trace holds, per turn: ``intent``, ``kind``, ``entities``, ``reading`` (how the answer
was read), ``decision`` (what the dialogue manager decided), ``repairs`` (digression,
correction, choose, several_requests …), ``transitions`` (``[from, event, to]`` of
the state machine), ``plan``, ``actions``, ``path`` and ``timings_ms``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from ..dialogue import catalogue
from ..logging import redact, redact_json, secret_values
from .pipeline import Part
from .record import Session

__all__ = ["compose_reply"]

log = logging.getLogger(__name__)


def compose_reply(s: Session, text: str, trace_id: str, prefix: list[str], parts: list[Part], t0: float, *,
                  state_before: str, now_ms: int, ttl_s: float) -> dict[str, Any]:
    """The turn's reply from its parts (one, or several requests in order); updates the session's
    trace, history, turn count and TTL.

    :param prefix: sentences said before the parts' (an interrupted action's note).
    :param t0: ``time.perf_counter()`` at the turn's start. :param state_before: the state the turn began in.
    :param now_ms: wall clock, epoch ms.
    :return: the ``session.turn`` result (see :meth:`Controller.turn`).
    """
    first, last = parts[0], parts[-1]
    path = first.path if len(parts) == 1 else "multi"
    timings: dict[str, float] = {}
    for p in parts:
        for k, v in p.timings.items():
            timings[k] = timings.get(k, 0.0) + v
    timings.setdefault("route", (time.perf_counter() - first.r0) * 1000)
    timings["total"] = (time.perf_counter() - t0) * 1000
    actions = [a for p in parts for a in p.actions]
    intent = next((p.intent for p in parts if p.intent), None) if len(parts) > 1 else first.intent
    # the trace is stored (session row, L2 turn log, L3 archive): secrets the user typed are redacted
    trace: dict[str, Any] = {**redact_json(first.trace), "trace_id": trace_id, "text": redact(text), "path": path,
                             "state_before": state_before, "state_after": s.state.value,
                             "version": s.machine.version, "actions": actions,
                             "repairs": sorted({r for p in parts for r in p.repairs}),
                             "transitions": list(s.moves), "lang": last.lang,
                             "timings_ms": {k: round(v, 3) for k, v in timings.items()}}
    trace["intent"] = intent
    if len(parts) > 1:
        trace["decision"] = "split"
        trace["parts"] = [{"intent": p.intent, "decision": p.trace.get("decision"), "path": p.path,
                           "rule_id": p.rule_id} for p in parts]
    s.last_trace = trace
    s.turns += 1
    now = now_ms
    s.updated_ms = now
    s.expires_ms = now + int(ttl_s * 1000)
    texts = prefix + [t for p in parts for t in p.texts]
    reply: dict[str, Any] = {"text": "\n".join(t for t in texts if t)}
    if not reply["text"] and not last.card:
        # a plan that ended saying nothing (an ask whose slot an entity of the wrong kind filled, a rule
        # with no reply): the person is never left with silence — they are told it was not understood
        log.warning("turn.empty_reply", extra={"kv": {"intent": first.intent, "rule_id": first.rule_id,
                                                      "trace": trace_id}})
        reply["text"] = catalogue.say("not_understood", last.lang)
    if last.card:
        reply["card"] = dict(last.card)
    entities = [e.to_dict() for p in parts if p.parsed for e in p.parsed.entities]
    rule_id = (first.trace.get("plan") or {}).get("rule_id") if len(parts) == 1 else first.rule_id
    out = {"reply": reply, "state": s.state.value, "version": s.machine.version, "intent": intent,
           "entities": entities, "actions": actions, "path": path, "rule_id": rule_id,
           "decision": trace.get("decision"), "trace_id": trace_id,
           "timings_ms": trace["timings_ms"]}
    marks = [p.llm for p in parts if p.llm]
    if marks:  # the LLM executor took a request: what wrote the reply, at what cost
        out["generated"] = any(m.get("generated") for m in marks)
        out["llm"] = {"model": marks[0].get("model"), "tokens_in": sum(m.get("tokens_in", 0) for m in marks),
                      "tokens_out": sum(m.get("tokens_out", 0) for m in marks),
                      "ms": round(sum(m.get("ms", 0.0) for m in marks), 3),
                      "model_ms": round(sum(m.get("model_ms", 0.0) for m in marks), 3),
                      "prompt_ms": round(sum(m.get("prompt_ms", 0.0) for m in marks), 3),
                      "outcome": marks[-1].get("outcome")}
        trace["generated"] = out["generated"]
    trace["at_ms"], trace["reply"] = now, redact(reply["text"])
    # a value the role may not see, or a secret the user typed (and what the NLU read out of it: the
    # number in "密码是778899"): out of the stored trace (and so of the turn log and archive)
    hidden = sorted({v for p in parts for v in p.scrub if v} | set(secret_values(text)), key=len, reverse=True)
    if hidden:
        trace = _scrub(trace, hidden)
        out["entities"] = _scrub(entities, hidden)
        s.last_trace = trace
    s.history.append(trace)
    del s.history[:-20]
    if log.isEnabledFor(logging.INFO):  # the line's fields are not even gathered when it is not written
        log.info("turn", extra={"kv": {"path": path, "intent": intent, "state": s.state.value,
                                       "decision": trace.get("decision"), "duration_ms": round(timings["total"], 3),
                                       "trace": trace_id}})
    return out


def _scrub(obj: Any, values: list[str]) -> Any:
    """``obj`` with every occurrence of ``values`` in its strings replaced by ``***``."""
    if isinstance(obj, str):
        for v in values:
            obj = obj.replace(v, "***")
        return obj
    if isinstance(obj, (int, float)) and not isinstance(obj, bool) and str(obj) in values:
        return "***"
    if isinstance(obj, dict):
        return {k: _scrub(v, values) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_scrub(v, values) for v in obj]
    return obj
