"""Run a rule plan's actions in order until it finishes, suspends or fails.

The executor is the EXECUTING state: it renders each action's templates against
the turn context (``role``, ``slots``, ``entities``, ``memory``, ``session``) plus the
results of earlier tool steps (``steps.<id>``), calls tools through an injected
``call_tool`` coroutine, and stops at the first step that needs the user:

- ``ask`` for a slot not yet filled → :class:`Suspend` (kind ``ask``);
- ``confirm``, or a ``tool`` step whose descriptor (or the rule) says ``confirm``
  → :class:`Suspend` (kind ``confirm``) with a structured card; the confirmed step
  index is passed back in when the user accepts, and execution resumes there;
- ``handoff`` → the plan ends and the session is handed to a person.

A failing step (tool error, business error, missing template value) stops the plan
with :class:`Failure`; the caller runs :meth:`Plan.compensation` through
:meth:`Executor.compensate` (saga order) and decides retry / degrade / handoff.
Nothing here touches sockets, SQLite or the clock except through what is injected.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Mapping

from ..errors import RETRYABLE_FAULTS, HermesError
from ..logging import redact, redact_json
from ..rules.model import (
    AskAction, ChooseAction, ConfirmAction, HandoffAction, RecallAction, RememberAction, ReplyAction, SetStateAction, ToolAction,
)
from ..rules.filters import Style
from ..rules.templating import MissingValue

__all__ = ["Executor", "Failure", "Finished", "Handoff", "StepLog", "Suspend", "ToolCaller"]

log = logging.getLogger(__name__)

#: ``await call_tool(name, params) -> {"ok": bool, "output"|"error": ..., "duration_ms"}``
ToolCaller = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
#: ``tool_info(name) -> (confirm, idempotent)`` from the tool's descriptor, or None when unknown.
ToolInfo = Callable[[str], "tuple[bool, bool] | None"]


@dataclass(slots=True)
class StepLog:
    """What ran, for the reply's ``actions`` and the trace."""

    kind: str
    index: int
    tool: str | None = None
    outcome: str = "ok"
    duration_ms: float = 0.0
    params: dict[str, Any] | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "index": self.index, "outcome": self.outcome}
        if self.tool:
            out["tool"] = self.tool
            out["duration_ms"] = round(self.duration_ms, 3)
        if self.params is not None:
            out["params"] = redact_json(self.params)  # one orjson round trip when nothing is secret
        if self.error:
            out["error"] = self.error
        return out


@dataclass(slots=True)
class _Outcome:
    texts: list[str] = field(default_factory=list)
    log: list[StepLog] = field(default_factory=list)
    remembered: list[tuple[str, Any, str]] = field(default_factory=list)
    state_vars: dict[str, Any] = field(default_factory=dict)
    tool_results: list[tuple[str, dict[str, Any], dict[str, Any]]] = field(default_factory=list)


@dataclass(slots=True)
class Finished(_Outcome):
    """Every action ran."""


#: the languages a question is kept in, for a re-ask in the language of a later turn
LANGS = ("zh", "en")


@dataclass(slots=True)
class Suspend(_Outcome):
    """The plan waits for the user at action ``index``.

    :param kind: ``ask`` (a slot), ``confirm`` (yes/no with a card) or ``choose`` (which of ``items``).
    :param slot: for ``ask``: the slot name; :param entity: the entity type that fills it.
    :param prompt: the question already rendered. :param card: for ``confirm``.
    """

    kind: str = "ask"
    index: int = 0
    slot: str | None = None
    entity: str | None = None
    prompt: str = ""
    card: dict[str, Any] | None = None
    #: the question in each language (``zh``, ``en``): a re-ask in another turn's language says it in that one
    prompts: dict[str, str] = field(default_factory=dict)
    #: for ``choose``: the items to choose from (``slot`` is the step id the chosen one is saved as)
    items: list[Any] = field(default_factory=list)


@dataclass(slots=True)
class Handoff(_Outcome):
    """A ``handoff`` action ended the plan: ``reason`` for the event."""

    reason: str = ""


@dataclass(slots=True)
class Failure(_Outcome):
    """Action ``index`` failed with ``error`` (a stable code) — compensate, then recover.

    :param retryable: the failed step may safely run again (its tool is idempotent).
    """

    index: int = 0
    code: str = "INTERNAL"
    message: str = ""
    retryable: bool = False
    #: False for an answer rather than a fault (a required recall found nothing): it does not
    #: count toward the consecutive failures that hand a session to a person
    counts: bool = True


class Executor:
    """Runs plans for one turn.

    :param call_tool: calls a tool (role, session and trace already bound).
    :param tool_info: the tool's ``(confirm, idempotent)`` flags.
    :param lang: ``zh`` or ``en``: which reply template to render.
    :param before_tool: ``await before_tool(name, index, idempotent)`` just before a tool runs
        (the controller makes EXECUTING durable there, so a crash never re-runs the tool).
    :param recall: ``await recall(filters) -> {"items", "count"}``: the memory search behind ``recall`` steps.
    :param people: a person's name → its English form (the people directory), for ``| person``.
    :param departments: department code → ``{"zh": 销售部, "en": Sales}`` (the people directory),
        for the ``| dept`` filter.

    Templates are rendered in the :class:`~hermesd.rules.filters.Style` of the turn: ``lang``,
    and the zone and reference instant of ``ctx["session"]["tz"]`` / ``["now"]`` when present.
    A tool step whose tool has a reply template (bound at load, see
    :func:`hermesd.rules.loader.load_rules`) also gets ``steps.<id>.reply``: that template
    rendered over its output in the turn's language.
    """

    def __init__(self, call_tool: ToolCaller, tool_info: ToolInfo, lang: str,
                 before_tool: Callable[[str, int, bool], Awaitable[None]] | None = None,
                 recall: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None, *,
                 departments: Mapping[str, Mapping[str, str]] | None = None,
                 people: Mapping[str, str] | None = None) -> None:
        self.call_tool = call_tool
        self.tool_info = tool_info
        self.lang = lang
        self.before_tool = before_tool
        self.recall = recall
        self.departments = departments or {}
        self.people = people or {}

    def style(self, ctx: Mapping[str, Any]) -> Style:
        """The turn's reply style (language, zone, reference instant, department and people's names)."""
        return Style.of(self.lang, ctx.get("session"), self.departments, self.people)

    async def run(self, actions: tuple[Any, ...], ctx: dict[str, Any], *, start: int = 0,
                  confirmed: int | None = None, steps: dict[str, Any] | None = None) -> Finished | Suspend | Handoff | Failure:
        """Run ``actions[start:]``.

        :param ctx: turn context; ``ctx["steps"]`` is (re)bound to ``steps`` and grows as tools return;
            ``ctx["memory"]`` sees values remembered earlier in the same plan.
        :param confirmed: index of the step the user just accepted (runs without asking again).
        :param steps: results of the plan's earlier tool steps (when resuming).
        """
        steps = dict(steps or {})
        ctx["steps"] = steps
        style = self.style(ctx)
        out = _Outcome()
        for i in range(start, len(actions)):
            a = actions[i]
            try:
                if isinstance(a, ToolAction):
                    info = self.tool_info(a.tool) or (False, False)
                    params = a.render_params(ctx, style)
                    # a descriptor's confirm: true asks first, unless the rule's own confirm step
                    # right before this one was just accepted
                    just_confirmed = confirmed is not None and confirmed in (i, i - 1) and (
                        confirmed == i or isinstance(actions[i - 1], ConfirmAction))
                    if info[0] and not just_confirmed:
                        card = {"question": self._tool_question(a.tool, params), "tool": a.tool,
                                "fields": redact(params)}
                        prompts = {lang: self._tool_question(a.tool, params, lang) for lang in LANGS}
                        return self._suspend(out, "confirm", i, prompt=card["question"], card=card, prompts=prompts)
                    if self.before_tool is not None:
                        await self.before_tool(a.tool, i, info[1])
                    t0 = time.perf_counter()
                    res = await self.call_tool(a.tool, params)
                    dt = (time.perf_counter() - t0) * 1000
                    if not res.get("ok"):
                        err = res.get("error") or {}
                        out.log.append(StepLog("tool", i, a.tool, "business_error", dt, params, err.get("message")))
                        return self._fail(out, i, str(err.get("code") or "TOOL_ERROR"), str(err.get("message", "")),
                                          retryable=bool(err.get("retryable")) and info[1])
                    result = res.get("output") or {}
                    if a.id:
                        steps[a.id] = self._with_reply(a, result, style)
                    out.tool_results.append((a.tool, params, result))
                    out.log.append(StepLog("tool", i, a.tool, "ok", dt, params))
                    stop = a.stopped(ctx) if a.stop else None
                    if stop is not None:  # the check found the request cannot be done: said, nothing else runs
                        out.texts.append(stop.render(ctx, self.lang, style))
                        out.log.append(StepLog("stop", i, a.tool))
                        return Finished(**_fields(out))
                elif isinstance(a, RecallAction):
                    params = a.render_payload(ctx, style)
                    t0 = time.perf_counter()
                    found = await self.recall(params) if self.recall is not None else {"items": [], "count": 0}
                    dt = (time.perf_counter() - t0) * 1000
                    if a.id:
                        steps[a.id] = found
                    if a.required and not found.get("count"):
                        out.log.append(StepLog("recall", i, None, "not_found", dt, params))
                        failure = self._fail(out, i, "NOT_FOUND", "nothing in memory matches", retryable=False)
                        failure.counts = False
                        return failure
                    out.log.append(StepLog("recall", i, None, "ok", dt, params))
                elif isinstance(a, AskAction):
                    if not a.refine and (ctx.get("entities") or {}).get(a.ask) is not None:
                        out.log.append(StepLog("ask", i, outcome="filled"))
                        continue
                    return self._suspend(out, "ask", i, slot=a.ask, entity=a.entity or a.ask,
                                         prompt=a.prompt.render(ctx, self.lang, style),
                                         prompts=self._in_each(a.prompt, ctx))
                elif isinstance(a, ConfirmAction):
                    if confirmed == i:
                        out.log.append(StepLog("confirm", i, outcome="accepted"))
                        continue
                    card = {"question": a.confirm.render(ctx, self.lang, style), "fields": a.render_payload(ctx, style)}
                    return self._suspend(out, "confirm", i, prompt=card["question"], card=card,
                                         prompts=self._in_each(a.confirm, ctx))
                elif isinstance(a, ChooseAction):
                    if confirmed == i and a.id in steps:  # the answer picked it (steps.<id> is the item)
                        out.log.append(StepLog("choose", i, outcome="chosen"))
                        continue
                    items, at = a.render_among(ctx, style)
                    if at is not None:  # the request named the place ("第二个再发一遍"): that one, not a question
                        if at < len(items):
                            steps[a.id] = items[at]
                            out.log.append(StepLog("choose", i, outcome="picked"))
                            continue
                        items = []  # no item at that place: as nothing to choose from
                    if not items:
                        out.log.append(StepLog("choose", i, outcome="not_found"))
                        failure = self._fail(out, i, "NOT_FOUND", "nothing to choose from", retryable=False)
                        failure.counts = False
                        return failure
                    if len(items) == 1:
                        steps[a.id] = items[0]
                        out.log.append(StepLog("choose", i, outcome="only_one"))
                        continue
                    labels = [a.render_label(x, self.lang, style) for x in items]
                    question = a.choose.render(ctx, self.lang, style)
                    prompt = "\n".join([question, *(f"{k + 1}) {t}" for k, t in enumerate(labels))])
                    card = {"question": question, "choices": [{"index": k + 1, "display": t} for k, t in enumerate(labels)]}
                    return self._suspend(out, "choose", i, slot=a.id, prompt=prompt, card=card, items=items)
                elif isinstance(a, ReplyAction):
                    out.texts.append(a.reply.render(ctx, self.lang, style))
                    out.log.append(StepLog("reply", i))
                elif isinstance(a, RememberAction):
                    value = a.render_payload(ctx, style)
                    out.remembered.append((a.remember, value, a.memory_class))
                    ctx.setdefault("memory", {})[a.remember] = value
                    out.log.append(StepLog("remember", i))
                elif isinstance(a, SetStateAction):
                    values = a.render_payload(ctx, style)
                    out.state_vars.update(values)
                    ctx.setdefault("session", {}).update(values)
                    out.log.append(StepLog("set_state", i))
                elif isinstance(a, HandoffAction):
                    if a.message is not None:
                        out.texts.append(a.message.render(ctx, self.lang, style))
                    out.log.append(StepLog("handoff", i))
                    return Handoff(**_fields(out), reason=str(a.render_payload(ctx, style)))
            except MissingValue as exc:
                out.log.append(StepLog(a.kind, i, getattr(a, "tool", None), exc.code, error=exc.message))
                return self._fail(out, i, exc.code, exc.message, retryable=False)
            except HermesError as exc:
                tool = getattr(a, "tool", None)
                out.log.append(StepLog(a.kind, i, tool, exc.code, error=exc.message))
                info = self.tool_info(tool) if tool else None
                infra = exc.code in RETRYABLE_FAULTS
                return self._fail(out, i, exc.code, exc.message, retryable=bool(info and info[1] and infra))
        return Finished(**_fields(out))

    async def compensate(self, actions: tuple[Any, ...], ctx: dict[str, Any]) -> Finished:
        """Run compensation / fallback actions best-effort (a failing one is logged, the rest still run).

        Only ``tool``, ``reply``, ``remember`` and ``set_state`` make sense here; ``ask``,
        ``confirm`` and ``handoff`` are skipped (the plan already failed).

        :return: what they did (texts, log, remembered values, state variables), for the caller to
            merge into the failed plan's outcome.
        """
        out = Finished()
        style = self.style(ctx)
        for i, a in enumerate(actions):
            try:
                if isinstance(a, ToolAction):
                    params = a.render_params(ctx, style)
                    t0 = time.perf_counter()
                    res = await self.call_tool(a.tool, params)
                    out.log.append(StepLog("compensate", i, a.tool, "ok" if res.get("ok") else "business_error",
                                           (time.perf_counter() - t0) * 1000, params))
                elif isinstance(a, ReplyAction):
                    out.texts.append(a.reply.render(ctx, self.lang, style))
                    out.log.append(StepLog("reply", i))
                elif isinstance(a, RememberAction):
                    value = a.render_payload(ctx, style)
                    ctx.setdefault("memory", {})[a.remember] = value
                    out.remembered.append((a.remember, value, a.memory_class))
                    out.log.append(StepLog("remember", i))
                elif isinstance(a, SetStateAction):
                    values = a.render_payload(ctx, style)
                    ctx.setdefault("session", {}).update(values)
                    out.state_vars.update(values)
                    out.log.append(StepLog("set_state", i))
            except (HermesError, MissingValue) as exc:
                log.warning("compensation step failed", extra={"kv": {"index": i, "kind": a.kind, "code": exc.code}})
                out.log.append(StepLog("compensate", i, getattr(a, "tool", None), exc.code, error=exc.message))
        return out

    @staticmethod
    def _with_reply(a: ToolAction, result: dict[str, Any], style: Style) -> dict[str, Any]:
        """The step's result as rules see it: the output, plus ``reply`` when the tool has a template."""
        phrase = a.reply_template
        if phrase is None:
            return result
        try:
            return {**result, "reply": phrase.render(result, style)}
        except MissingValue as exc:  # a template naming an optional field the tool left out
            log.warning("tool reply template failed", extra={"kv": {"tool": a.tool, "path": exc.path}})
            return result

    def _in_each(self, text: Any, ctx: Mapping[str, Any]) -> dict[str, str]:
        """``text`` (a rule's :class:`~hermesd.rules.model.Text`) rendered in each language (``LANGS``); a
        language whose template cannot be filled from ``ctx`` is left out (the turn's own is always there)."""
        out: dict[str, str] = {}
        for lang in LANGS:
            try:
                out[lang] = text.render(ctx, lang, Style.of(lang, ctx.get("session"), self.departments))
            except Exception:  # noqa: BLE001 - another language's template may read what this turn lacks
                continue
        return out

    def _tool_question(self, tool: str, params: Mapping[str, Any], lang: str | None = None) -> str:
        shown = ", ".join(f"{k}={v}" for k, v in redact(dict(params)).items())
        if (lang or self.lang) == "zh":
            return f"确认执行 {tool}（{shown}）吗？"
        return f"Run {tool} ({shown})?"

    @staticmethod
    def _suspend(out: _Outcome, kind: str, index: int, **kw: Any) -> Suspend:
        out.log.append(StepLog(kind, index, outcome="waiting"))
        return Suspend(**_fields(out), kind=kind, index=index, **kw)

    @staticmethod
    def _fail(out: _Outcome, index: int, code: str, message: str, *, retryable: bool) -> Failure:
        return Failure(**_fields(out), index=index, code=code, message=message, retryable=retryable)


def _fields(out: _Outcome) -> dict[str, Any]:
    return {"texts": out.texts, "log": out.log, "remembered": out.remembered, "state_vars": out.state_vars,
            "tool_results": out.tool_results}
