"""ROUTING and EXECUTING of one request: the winning rule's plan, run and settled.

:class:`PlanRunner` takes the intent and the slot values a decision settled on,
builds the rule context (:mod:`.grounding`), lets the rule engine pick the plan
(or resumes a confirmed one), runs it with :class:`~.executor.Executor`, and
settles the outcome on the session: finished, suspended at a question (a typed
:class:`~hermesd.dialogue.questions.Ask` / :class:`~hermesd.dialogue.questions.Confirm`),
handed off, or failed (compensation, retry, degrade, handoff).
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Mapping

from ..dialogue import catalogue
from ..dialogue.questions import Ask, Confirm, Pick, choices_of
from ..rules.engine import DEFAULT_FALLBACK, Plan
from ..rules.model import ReplyAction, Text
from .executor import Executor, Failure, Finished, Handoff, Suspend
from .machine import Event, State, recovery
from .record import Session

if TYPE_CHECKING:
    from .controller import Controller
    from .pipeline import Part

__all__ = ["PlanRunner", "answers_asked"]

#: the plan of a turn the NLU is sure is out of scope, instead of the rule engine's "say it another way"
_OUT_OF_SCOPE = (ReplyAction(reply=Text(zh=catalogue.say("out_of_scope", "zh"), en=catalogue.say("out_of_scope", "en"))),)
#: the plan of a turn whose ROUTING ran past its budget: the fallback path, saying so
_BUSY = (ReplyAction(reply=Text(zh=catalogue.say("busy", "zh"), en=catalogue.say("busy", "en"))),)

log = logging.getLogger(__name__)


class PlanRunner:
    """Runs plans for the controller ``c`` (its ports, state moves and events)."""

    def __init__(self, c: "Controller") -> None:
        self.c = c

    def _plan_for(self, engine: Any, resume: Confirm | None) -> Plan | None:
        if resume is None:
            return None
        rule = _rule_by_id(engine, resume.rule_id)
        if rule is None:  # the pack was reloaded without that rule: route afresh
            return None
        return Plan("rule", resume.intent, rule.rule_id, None, tuple(rule.actions), tuple(rule.fallback))

    async def run(self, s: Session, p: "Part", *, intent: str | None, entities: Mapping[str, Any], text: str,
                  trace_id: str, resume: Confirm | None = None, utterance: str | None = None,
                  asked: tuple[str, str] | None = None) -> None:
        """Route and execute ``intent`` with ``entities`` (slot → value) into ``p``.

        :param resume: an accepted card: its plan runs from the confirmed step with its tool results.
        :param utterance: what the user first said for this plan (kept on a question it suspends at).
        :param asked: the request was a question about it — ``(kind, sentence)``, kind ``done`` or ``how``
            (:meth:`.pipeline.Pipeline._asked`): rules see ``session.asked`` = kind, and only a rule whose
            conditions read it may run; else the sentence is the answer and nothing runs.
        """
        c = self.c
        if not c.policy.gate(intent, s.vars):
            p.end(s, c, catalogue.say("auth", p.lang), "auth", "auth required")
            return
        engine = c.rules()
        plan = self._plan_for(engine, resume)
        start, confirmed, steps = 0, None, {}
        if plan is not None and resume is not None:
            start = confirmed = resume.index
            steps = dict(resume.steps)
        ctx = await c.grounding.context(s, intent, entities, text, engine)
        # the NLU's ranking, best first (at most five intent names): a pack may open the runner-up
        # when the best reading continues nothing (a dialogue act said with no task tracked)
        ctx["session"]["ranked"] = [m.intent for m in getattr(p.parsed, "intents", None) or []][:5]
        over = p.routing_t0 and (time.perf_counter() - p.routing_t0) * 1000 > c.settings.routing_ms
        if plan is None and over:
            # ROUTING past its budget: the fallback path, never a half-matched rule (DESIGN.md, state machine)
            plan = replace(engine.fallback(intent), actions=_BUSY)
            p.degrade("routing_budget")
            p.path = "fallback"
            log.warning("routing over budget", extra={"kv": {"routing_ms": c.settings.routing_ms, "intent": intent}})
        if asked is not None:
            ctx["session"]["asked"] = asked[0]
        if plan is None:
            plan = engine.match(intent, ctx)
            if plan.path == "fallback" and p.path == "rule":
                p.path = "fallback"
        if asked is not None and not answers_asked(_rule_by_id(engine, plan.rule_id)):
            p.trace["plan"] = plan.to_trace()
            p.end(s, c, asked[1], "clarify", f"asked {asked[0]}")  # a question about it: nothing runs
            return
        if plan.actions is DEFAULT_FALLBACK and intent is None and getattr(p.parsed, "out_of_scope", False):
            # the NLU is sure it is none of ours: say so, rather than "say it another way"
            plan = replace(plan, actions=_OUT_OF_SCOPE)
        p.timings["route"] = (time.perf_counter() - p.r0) * 1000
        p.trace["plan"] = plan.to_trace()
        p.rule_id = plan.rule_id
        if c.llm_turns.wanted(s, p, plan, intent, resume, bool(over)):  # the optional LLM executor (llmturn.py)
            await c.llm_turns.run(s, p, plan, ctx, dict(entities), utterance or text, trace_id, resume)
            return
        c._move(s, Event.ROUTED, plan.path)
        e0 = time.perf_counter()
        executor = self._executor(s, p, plan, trace_id, ctx, dict(entities), utterance or text)
        result = await executor.run(plan.actions, ctx, start=start, confirmed=confirmed, steps=steps)
        if isinstance(result, Failure) and result.retryable:
            c._move(s, Event.FAIL, result.code)
            if recovery(s.machine, c.limits, retryable=True) is Event.RETRY and c._move(s, Event.RETRY):
                result = await executor.run(plan.actions, ctx, start=result.index, confirmed=confirmed,
                                            steps=dict(ctx.get("steps") or {}))
        p.timings["execute"] = p.timings.get("execute", 0.0) + (time.perf_counter() - e0) * 1000
        s.executing = None
        p.intent = intent
        await self._settle(s, p, plan, executor, ctx, result, dict(entities), utterance or text, trace_id)

    def _executor(self, s: Session, p: "Part", plan: Plan, trace_id: str, ctx: dict[str, Any],
                  ctx_entities: dict[str, Any], utterance: str) -> Executor:
        c = self.c

        async def before_tool(tool: str, index: int, idempotent: bool) -> None:
            # restart safety: a non-idempotent tool starts only once EXECUTING is on disk
            # with what the plan needs to run this step again, should a crash interrupt it
            step = {"tool": tool, "index": index, "rule_id": plan.rule_id, "trace_id": trace_id,
                    "intent": plan.intent or p.intent, "entities": dict(ctx_entities),
                    "steps": dict(ctx.get("steps") or {}), "utterance": utterance, "lang": p.lang}
            if not idempotent:
                s.executing = step
                row = s.to_row()
                s.executing = None
                await c.memory.save_session(row)
            s.executing = step  # visible in session.get only once it is on disk

        async def recall(params: dict[str, Any]) -> dict[str, Any]:
            return await c.grounding.recall(s, params)

        async def call(name: str, params: dict[str, Any]) -> dict[str, Any]:
            return await c.tools.call(name, params, role=s.role, session_id=s.session_id, trace_id=trace_id,
                                      uid=s.uid)

        directory = getattr(getattr(c.memory, "graph", None), "directory", None)
        departments = directory.department_names() if directory is not None else None
        people = directory.english_names() if directory is not None else None
        return Executor(call, c.tool_info, p.lang, before_tool, recall, departments=departments, people=people)

    async def _settle(self, s: Session, p: "Part", plan: Plan, executor: Executor, ctx: dict[str, Any],
                      result: Any, entities: dict[str, Any], utterance: str, trace_id: str) -> None:
        """Fold the plan's outcome into the session and the part's reply."""
        c = self.c
        p.texts += result.texts
        s.vars.update(result.state_vars)
        p.result = result
        p.actions = [x.to_dict() for x in result.log]
        if isinstance(result, Finished):
            s.slots = {}
            c._move(s, Event.DONE, "plan finished")
        elif isinstance(result, Suspend):
            ref = datetime.fromtimestamp(s.ref_ms / 1000, timezone.utc).isoformat()
            common = {"intent": plan.intent or p.intent, "rule_id": plan.rule_id, "index": result.index,
                      "entities": entities, "steps": dict(ctx.get("steps") or {}), "prompt": result.prompt,
                      "utterance": utterance, "ref": ref, "prompts": dict(result.prompts)}
            if result.kind == "choose":
                labels = [str(x.get("display", "")) for x in (result.card or {}).get("choices", [])]
                s.pending = Pick(items=tuple(result.items), choices=choices_of(result.items, labels),
                                 save=result.slot or "", **common)
            else:
                s.pending = (Confirm(card=result.card or {}, **common) if result.kind == "confirm"
                             else Ask(slot=result.slot or "", entity=result.entity,
                                      tentative=p.trace.get("time_alone") == "ask", **common))
            s.slots = {k: v for k, v in entities.items() if v is not None}
            p.texts.append(result.prompt)
            p.card = result.card
            c._move(s, Event.ASK if result.kind == "ask" else Event.CONFIRM, result.kind)
        elif isinstance(result, Handoff) and c.llm_turns.takes_handoff(s, p, result):  # `handoff: llm`
            await c.llm_turns.run(s, p, c.rules().fallback(plan.intent), ctx, entities, utterance, trace_id)
        elif isinstance(result, Handoff):
            s.pending, s.slots = None, {}
            c._hand_off(s, result.reason, result.reason, trace_id)
        elif isinstance(result, Failure) and not result.counts:
            # an answer, not a fault (a required recall found nothing): the rule's fallback says so
            await self._compensate(s, p, executor, plan.on_error, ctx, result)
            s.pending, s.slots = None, {}
            c._move(s, Event.DONE, result.code)
        elif isinstance(result, Failure):
            await self._fail(s, p, plan, executor, ctx, result, trace_id)
            if s.pending is None and s.state is State.LISTENING:
                self._ask_again(s, p, plan, result, entities, utterance)

    async def _compensate(self, s: Session, p: "Part", executor: Executor, actions: tuple[Any, ...],
                          ctx: dict[str, Any], result: Failure) -> list[str]:
        undo = await executor.compensate(actions, ctx)
        result.log.extend(undo.log)
        result.remembered.extend(undo.remembered)
        s.vars.update(undo.state_vars)
        p.actions = [x.to_dict() for x in result.log]
        p.trace["failure"] = {"index": result.index, "code": result.code, "message": result.message}
        p.texts += undo.texts
        return undo.texts

    async def _fail(self, s: Session, p: "Part", plan: Plan, executor: Executor, ctx: dict[str, Any],
                    result: Failure, trace_id: str) -> None:
        """A failed step: compensate (saga order), say so in words, then degrade or hand off."""
        c = self.c
        said = await self._compensate(s, p, executor, plan.compensation(result.index), ctx, result)
        if not said:
            tool = _failed_tool(plan, result.index)
            p.texts.append(catalogue.failure(result.code, p.lang, tool=self._descriptor(tool) or tool))
        s.slots = dict(p.slots_before)  # only this turn's changes are dropped
        if s.state is not State.ERROR_HANDLING:
            c._move(s, Event.FAIL, result.code)
        if recovery(s.machine, c.limits, retryable=False) is Event.HANDOFF:
            c._hand_off(s, "too many failures", "failures", trace_id)
            p.texts.append(catalogue.say("handoff", p.lang))
        else:
            c._move(s, Event.DEGRADE, result.code)
        p.path = "error"

    def _descriptor(self, tool: str | None) -> Any:
        """The descriptor of ``tool`` (its words and declared errors), or None: no tool, or a tool service
        without descriptors."""
        describe = getattr(self.c.tools, "descriptor", None)
        return describe(tool) if tool and describe is not None else None

    def _ask_again(self, s: Session, p: "Part", plan: Plan, result: Failure, entities: dict[str, Any],
                   utterance: str) -> None:
        """A step refused one value of the request, an error its tool declares with ``ask_again`` (the
        reminder tool's ``IN_THE_PAST``: "上午十点" said at 14:00): the failure's sentence asked for another
        one, so the session waits for it with the rest of the request kept — the answer ("下午五点") runs
        the plan again with it. Before, the task was dropped and the answer was a new request ("要提醒你做
        什么？"). Nothing is asked when no slot of the intent holds a value of that type."""
        c = self.c
        desc = self._descriptor(_failed_tool(plan, result.index))
        etype = (getattr(desc, "error_asks", None) or {}).get(result.code)
        intent = plan.intent or p.intent
        slot = next((k for k, t in c.grounding.spec_slots(intent).items() if t == etype and entities.get(k) is not None),
                    None) if etype and intent else None
        if slot is None or not p.texts:
            return
        kept = {k: v for k, v in entities.items() if v is not None and k != slot}
        ref = datetime.fromtimestamp(s.ref_ms / 1000, timezone.utc).isoformat()
        s.pending = Ask(intent=intent, rule_id=plan.rule_id, index=0, entities=kept, prompt=p.texts[-1],
                        utterance=utterance, ref=ref, prompts={p.lang: p.texts[-1]}, slot=slot, entity=etype)
        s.slots = dict(kept)
        p.repairs.append("ask_again")


def _failed_tool(plan: Plan, index: int) -> str | None:
    action = plan.actions[index] if 0 <= index < len(plan.actions) else None
    return getattr(action, "tool", None)


def answers_asked(rule: Any) -> bool:
    """``rule`` (or None) is written for a question about its intent: a condition reads ``session.asked``
    (``'done'``: was it done? ``'how'``: how is it done?), so it may run on such a question."""
    return any("session.asked" in cond for cond in getattr(rule, "conditions", ()) or ())


def _rule_by_id(engine: Any, rule_id: str | None) -> Any:
    """The rule ``rule_id`` in the engine's packs (None when a reload removed it)."""
    if rule_id is None:
        return None
    for pack in engine.packs:
        for rule in pack.rules:
            if rule.rule_id == rule_id:
                return rule
    return None
