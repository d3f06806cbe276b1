"""The optional LLM executor's turn: when a request goes to the model, and what its answer becomes.

A request goes to the LLM (:meth:`LlmTurns.wanted`) only when the executor is on for the
caller's role, no rule matched — the NLU put it out of scope (``llm.out_of_scope``), its intent
is one of ``llm.intents`` and no rule of it held, or a rule handed off with ``handoff: llm`` —
and no card or form is open: a digression, or an utterance the reader could not take as an
answer to the open question, goes only with ``llm.while_open`` (the question is asked again
after it). An answer to a form, a card or a pending task never does.

:meth:`LlmTurns.run` builds the prompt through the Memory Control Protocol
(:func:`hermesd.memory.prompt.build_prompt`: the session's context from L2, its last tool
results, the profile fields the role may see, unresolved mentions as 【…】), runs the rounds
(:mod:`hermesd.llm.rounds`) with the caller's allowed tools through the tools port (breaker,
sandbox), and settles like a rule's plan (as :mod:`.planrun` settles a plan): a reply, or a
confirmation card for a ``confirm: true`` tool whose yes resumes the rounds. The model failing —
timeout, its breaker open, an unreadable answer — or the uid over its rate runs the request's
own fallback plan instead, in the user's language, with ``degraded: llm`` in the trace.

Nothing the model wrote is stored as a fact: the turn's capture sees the user's words, the
entities the NLU found and the structured tool results, as for any turn (the capture rules).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, Mapping

from ..anchors.directory import unmarked
from ..errors import HermesError
from ..logging import redact
from ..memory.hiding import hide
from ..memory.prompt import PromptInputs, build_prompt
from ..rules.engine import Plan
from .executor import Finished, Handoff, StepLog, Suspend
from .machine import Event, State
from .record import Session

if TYPE_CHECKING:
    from ..dialogue.questions import Confirm
    from ..llm.calls import Offered
    from ..llm.rounds import Rounds
    from .controller import Controller
    from .pipeline import Part

__all__ = ["LLM_HANDOFF", "LLM_RULE_ID", "LlmTurns"]

log = logging.getLogger(__name__)

#: the ``rule_id`` of a card a model's ``confirm: true`` tool call waits at
LLM_RULE_ID = "llm:confirm"
#: ``handoff: llm`` in a rule: the rule hands the request to the LLM executor
LLM_HANDOFF = "llm"
#: how many of the session's last turns, tool results and memories the prompt may hold (before trimming)
HISTORY_TURNS = 4
CONTEXT_ITEMS = 3


class LlmTurns:
    """The LLM path of the controller ``c`` (``c.llm`` is the ``llm`` subsystem, or None)."""

    def __init__(self, c: "Controller") -> None:
        self.c = c

    def _on(self, s: Session) -> Any:
        llm = getattr(self.c, "llm", None)
        return llm if llm is not None and llm.allows(s.role) else None

    def wanted(self, s: Session, p: "Part", plan: Plan, intent: str | None, resume: "Confirm | None",
               over_budget: bool) -> bool:
        """This request goes to the LLM instead of ``plan`` (see the module doc)."""
        llm = self._on(s)
        if llm is None:
            return False
        if resume is not None:
            return resume.rule_id == LLM_RULE_ID
        if over_budget or plan.path != "fallback" or p.path not in ("rule", "fallback"):
            return False
        if "digression" in p.repairs and not llm.settings.while_open:
            return False
        return llm.settings.out_of_scope if intent is None else intent in llm.settings.intents

    def takes_handoff(self, s: Session, p: "Part", result: Any) -> bool:
        """A rule's ``handoff: llm`` of a new request, with the executor on for this role."""
        return (isinstance(result, Handoff) and result.reason == LLM_HANDOFF and p.path in ("rule", "fallback")
                and "digression" not in p.repairs and self._on(s) is not None)

    def takes_unreadable(self, s: Session, p: "Part") -> bool:
        """An utterance said at an open question that the reader could not take as an answer and the
        NLU found no intent in, with ``llm.while_open`` on: the LLM may answer it as a digression."""
        llm = self._on(s)
        return (llm is not None and llm.settings.while_open and llm.settings.out_of_scope
                and getattr(p.parsed, "intent", None) is None)

    # -- the turn --------------------------------------------------------------------------

    async def run(self, s: Session, p: "Part", fallback: Plan, ctx: dict[str, Any], entities: dict[str, Any],
                  utterance: str, trace_id: str, resume: "Confirm | None" = None) -> None:
        """Answer the request with the model; on failure run ``fallback`` (the request's own plan)."""
        c, llm = self.c, self.c.llm
        settings = llm.settings
        t0 = time.perf_counter()
        if s.state is State.ROUTING:
            c._move(s, Event.ROUTED, "llm")
        p.path, p.rule_id = "llm", None
        info: dict[str, Any] = {"api": settings.api, "model": settings.model}
        model_s = [0.0]

        async def chat(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> Any:
            m0 = time.perf_counter()
            try:
                return await llm.chat(messages, tools)
            finally:
                model_s[0] += time.perf_counter() - m0

        async def run_tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            flags = c.tool_info(name)
            if flags is not None and not flags[1]:
                # restart safety, as for a rule's step: a non-idempotent tool starts only once EXECUTING
                # is on disk, so a crash mid-call leaves the session interrupted, never re-running it
                s.executing = {"tool": name, "index": 0, "rule_id": LLM_RULE_ID, "trace_id": trace_id,
                               "intent": fallback.intent, "entities": dict(entities), "steps": {},
                               "utterance": utterance, "lang": p.lang}
                await c.memory.save_session(s.to_row())
            try:
                return await c.tools.call(name, arguments, role=s.role, session_id=s.session_id, trace_id=trace_id,
                                          uid=s.uid)
            except HermesError as exc:  # told to the model as the call's result, never a crash of the turn
                return {"ok": False, "error": {"code": exc.code, "message": exc.message}}

        from ..llm.rounds import resume as resume_rounds, run_rounds  # loaded with the first LLM turn

        offered, known = self._offered(s.role, settings.tools)
        rounds: Rounds | None = None
        if resume is not None:
            state = (resume.steps or {}).get("llm") or {}
            info["resumed"] = True
            if state:
                rounds = await resume_rounds(chat, run_tool, state, offered, known, s.role, settings.max_tool_rounds)
        elif not llm.admit(s.uid):
            info["outcome"] = "rate_limited"
        else:
            b0 = time.perf_counter()
            prompt = build_prompt(await self._inputs(s, p, ctx, utterance))
            info["prompt_ms"] = round((time.perf_counter() - b0) * 1000, 3)
            # (no key named *token*: the trace's redaction would take it for a secret)
            info["prompt"] = {"messages": redact(prompt.messages), "estimate": prompt.tokens, "kept": prompt.kept,
                              "dropped": prompt.dropped, "cut_request": prompt.cut_request}
            info["tools_offered"] = sorted(offered)
            rounds = await run_rounds(chat, run_tool, prompt.messages, offered, known, s.role, settings.max_tool_rounds)
        texts: list[str] = []
        steps: list[StepLog] = []
        if rounds is not None:
            info.update({"rounds": rounds.rounds, "tool_rounds": rounds.tool_rounds, "calls": rounds.calls,
                         "usage": {"prompt": rounds.tokens_in, "completion": rounds.tokens_out}})
            for i, call in enumerate(rounds.calls):
                outcome = call["outcome"] if call["outcome"] in ("ok", "confirm") else call.get("code") or call["outcome"]
                steps.append(StepLog("tool", i, call["tool"], outcome, float(call.get("duration_ms") or 0.0),
                                     call.get("arguments")))
                llm.tool_calls.inc(call["outcome"])
            if rounds.kind == "reply" and not rounds.text:
                rounds.kind, rounds.reason = "degraded", "empty_reply"
            info["outcome"] = rounds.kind if rounds.kind != "degraded" else f"degraded:{rounds.reason}"
        llm.turns.inc(info["outcome"].split(":")[0] if "outcome" in info else "degraded")
        info["model_ms"] = round(model_s[0] * 1000, 3)
        p.trace["llm"] = info
        fields = {"texts": texts, "log": steps, "tool_results": list(rounds.tool_results) if rounds else []}
        plan = Plan("fallback", fallback.intent, LLM_RULE_ID, None, ())
        executor = None
        if rounds is not None and rounds.kind == "reply":
            texts.append(rounds.text)
            result: Any = Finished(**fields)
            p.llm = {"generated": True}
        elif rounds is not None and rounds.kind == "confirm":
            pending = rounds.pending
            assert pending is not None
            ctx["steps"] = {"llm": rounds.state()}
            card = {"question": self._question(pending.call.name, pending.arguments, p.lang),
                    "tool": pending.call.name, "fields": redact(pending.arguments), "generated": True}
            result = Suspend(**fields, kind="confirm", index=0, prompt=card["question"], card=card)
            p.llm = {"generated": True}
        else:  # the model failed, or the uid is over its rate: the request's own fallback, in its language
            p.degrade("llm")
            p.llm = {"generated": False}
            executor = c.plans._executor(s, p, fallback, trace_id, ctx, dict(entities), utterance)
            result = await executor.run(fallback.actions, ctx)
            result.tool_results[:0] = fields["tool_results"]
            result.log[:0] = steps
            plan = fallback
        ms = (time.perf_counter() - t0) * 1000
        usage = info.get("usage") or {}
        p.llm.update({"model": settings.model, "tokens_in": usage.get("prompt", 0),
                      "tokens_out": usage.get("completion", 0), "ms": round(ms, 3), "model_ms": info["model_ms"],
                      "prompt_ms": info.get("prompt_ms", 0.0), "outcome": info.get("outcome")})
        p.timings["llm"] = p.timings.get("llm", 0.0) + ms
        log.info("llm turn", extra={"kv": {"outcome": info.get("outcome"), "rounds": info.get("rounds", 0),
                                           "usage_in": p.llm["tokens_in"], "usage_out": p.llm["tokens_out"],
                                           "duration_ms": round(ms, 3),
                                           "model_ms": info["model_ms"], "trace": trace_id}})
        s.executing = None
        p.intent = fallback.intent
        await c.plans._settle(s, p, plan, executor, ctx, result, dict(entities), utterance, trace_id)

    # -- what the model is offered and told ---------------------------------------------------

    def _offered(self, role: str, allow: list[str]) -> tuple[dict[str, Offered], dict[str, frozenset[str]]]:
        """The caller's allow-list (tools the role may call, within ``llm.tools`` when set, that are
        healthy or still ``starting`` — a call to a starting tool waits for its self-test within its own
        timeout, as over MCP), and every registered tool's roles."""
        from ..llm.calls import Offered

        registry = getattr(self.c.tools, "registry", None)
        tools = dict(getattr(registry, "tools", {}) or {})
        now_ms = time.monotonic() * 1000
        offered: dict[str, Offered] = {}
        known: dict[str, frozenset[str]] = {}
        for name, tool in tools.items():
            d = tool.descriptor
            known[name] = frozenset(d.roles)
            if role not in d.roles or tool.health not in ("healthy", "starting") or (allow and name not in allow):
                continue
            offered[name] = Offered(name, d.text("en"), d.input, tool.input_validator, frozenset(d.roles),
                                    confirm=bool(d.confirm),
                                    breaker_open=tool.breaker.state == "open" and tool.breaker.retry_after_ms(now_ms) > 0)
        return offered, known

    def _question(self, tool: str, arguments: Mapping[str, Any], lang: str) -> str:
        describe = getattr(self.c.tools, "descriptor", None)
        d = describe(tool) if describe is not None else None
        # the tool's own short name for what it does (文件发送 / sending the document), else its description
        what = ((d.subject_text(lang) or d.text(lang)) if d is not None else tool).rstrip("。.")
        if lang == "zh":
            shown = "，".join(f"{k}：{v}" for k, v in redact(dict(arguments)).items())
            return f"要进行{what}吗？（{shown}）" if shown else f"要进行{what}吗？"
        shown = ", ".join(f"{k}: {v}" for k, v in redact(dict(arguments)).items())
        return f"Shall I go ahead with {what}? ({shown})" if shown else f"Shall I go ahead with {what}?"

    async def _inputs(self, s: Session, p: "Part", ctx: Mapping[str, Any], utterance: str) -> PromptInputs:
        """What the prompt holds, read through the memory port (hidden fields of the role taken out)."""
        memory, settings = self.c.memory, self.c.llm.settings
        hidden = (getattr(memory.settings, "hidden_fields", None) or {}).get(s.role, [])
        grounded = p.trace.get("entities") or {}
        unresolved = tuple(dict.fromkeys(m for m in (unmarked(v) for v in grounded.get("person", [])
                                                      if isinstance(v, str)) if m is not None))
        anchors = sorted(set((s.refs.get("anchors") or {}).values()))
        # the three L2 reads queue on the L2 thread together: one wait for them, not three
        facts, found, recalled = await asyncio.gather(
            memory.user_memories(s.uid, f"user:{s.uid}"),
            memory.search(s.uid, session_id=s.session_id, k=CONTEXT_ITEMS * 3),
            memory.search(s.uid, anchors=anchors or None, k=CONTEXT_ITEMS))
        facts, found, recalled = hide(facts, hidden), hide(found, hidden), hide(recalled, hidden)
        profile = tuple((str(d.get("subject") or r["anchor"].split(":", 1)[-1]), str(d["value"]))
                        for r in facts if r["anchor"].startswith(("fact:", "note:"))
                        for d in [r.get("data") or {}] if d.get("value") is not None and not d.get("secret"))[:8]
        tool_results = tuple({"tool": e.get("action"), "output": (e.get("payload") or {}).get("output")}
                             for e in found if e.get("type") == "event" and e.get("action"))[:CONTEXT_ITEMS]
        memories = tuple(str(r.get("summary")) for r in recalled if r.get("type") == "memory" and r.get("summary"))
        history = tuple((str(t.get("text") or ""), str(t.get("reply") or "")) for t in reversed(s.history[-HISTORY_TURNS:])
                        if t.get("text"))
        now = str((ctx.get("session") or {}).get("now") or "")
        return PromptInputs(utterance=redact(utterance), lang=p.lang, now=now, budget_tokens=settings.prompt_tokens,
                            unresolved=unresolved, profile=profile, tool_results=tool_results, memories=memories,
                            history=history)
