"""Rule packs as typed models (:mod:`hermesd.typed`), in the reference design's form.

A pack file::

    pack: office
    fallback:                       # this pack's intents matched, but no rule's needs/conditions held
      - reply: {zh: 请再说具体一点, en: Could you say a bit more?}
    rules:
      - rule_id: doc.send.confirmed
        priority: 100               # higher is tried first; ties keep file order
        trigger: {intent: doc.send, entities: [doc, person]}   # entity needs: present, not null
        conditions: ["role in ['admin', 'user']", "not has(session.pending)"]   # all must hold
        actions:                    # run in order by the controller
          - tool: contacts
            id: who                 # its result is {{steps.who.…}} for later steps
            params: {query: "{{entities.person}}"}
          - confirm: {zh: "把{{entities.doc}}发给{{steps.who.matches.0.name}}？", en: …}
            fields: {document: "{{entities.doc}}"}
          - tool: send_document
            id: send
            params: {document: "{{entities.doc}}", recipient: "{{steps.who.matches.0.name}}"}
            on_failure: [...]       # compensation: undoes this step if a LATER step fails
          - remember: last_sent
            value: {doc: "{{entities.doc}}", message_id: "{{steps.send.message_id}}"}
          - reply: {zh: 已发送, en: Sent.}
        fallback:                   # a step failed: these run after the compensations
          - reply: {zh: 发送失败, en: Sending failed.}

Action kinds (exactly one kind key per action): ``tool``, ``recall``, ``ask``, ``confirm``, ``choose``, ``reply``,
``remember``, ``set_state``, ``handoff``. Strings may hold ``{{path}}`` templates
(:mod:`.templating`); conditions are :mod:`.conditions` expressions. Both are parsed when
the pack is validated, so a pack that loads cannot fail to parse at run time.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal

from .. import lazyre
from .conditions import CONDITION_ROOTS, Condition, ConditionError
from .conditions import parse as parse_condition
from .filters import Style
from .phrases import Phrase
from .templating import Template, TemplateSyntaxError, compile_value, paths_in, render
from ..typed import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    ValidationInfo,
    field_validator,
    model_validator,
)

__all__ = [
    "ACTION_KINDS",
    "Action",
    "AskAction",
    "ChooseAction",
    "ConfirmAction",
    "HandoffAction",
    "RememberAction",
    "RecallAction",
    "ReplyAction",
    "Rule",
    "RulePack",
    "SetStateAction",
    "Text",
    "ToolAction",
    "Trigger",
]

ACTION_KINDS = ("tool", "recall", "ask", "confirm", "choose", "reply", "remember", "set_state", "handoff")
_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
_DOTTED = r"^[A-Za-z0-9_][A-Za-z0-9_.:-]*$"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _compiled(value: Any) -> Any:
    try:
        return compile_value(value)
    except TemplateSyntaxError as exc:
        raise ValueError(f"template {exc.source!r}: {exc}") from None


def _check_templates(value: Any) -> Any:
    _compiled(value)
    return value


def _check_condition(src: str) -> str:
    try:
        parse_condition(src)
    except ConditionError as exc:
        raise ValueError(f"condition {src!r}: {exc}") from None
    return src


#: names a reply case's ``when`` may read: the rule's context and the plan's tool results.
CASE_ROOTS: tuple[str, ...] = (*CONDITION_ROOTS, "steps")
_CONDITION_PATH = lazyre.compile(r"(?<![\w.'\"])((?:role|slots|entities|memory|session|steps)\b(?:\.[A-Za-z0-9_]+)*)")


def _check_case_condition(src: str) -> str:
    try:
        parse_condition(src, CASE_ROOTS)
    except ConditionError as exc:
        raise ValueError(f"condition {src!r}: {exc}") from None
    return src


def _condition_paths(src: str) -> list[tuple[str, ...]]:
    """The paths a condition reads (for step references and memory keys); quoted text skipped."""
    unquoted = re.sub(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"", "''", src)
    return [tuple(m.split(".")) for m in _CONDITION_PATH.findall(unquoted)]


#: a value whose strings may hold ``{{path}}`` templates (checked when validated).
Templated = Annotated[Any, AfterValidator(_check_templates)]
ConditionText = Annotated[str, AfterValidator(_check_condition)]


class Text(_Model):
    """A bilingual text template; at least one of ``zh`` / ``en``.

    A plain string is the same template in every language (``reply: "{{steps.disk.reply}}"``).
    A list is cases tried in order, each but the last with a ``when`` condition that may also
    read ``steps`` (the plan's tool results)::

        reply:
          - when: "has(steps.log.entries.0)"
            zh: "{{steps.log.entries | count(条)}}错误：\\n{{steps.log.entries | lines('{message}')}}"
            en: "{{steps.log.entries | count(error)}}:\\n{{steps.log.entries | lines('{message}')}}"
          - {zh: 没有错误。, en: No errors.}

    :meth:`render` picks the caller's language, else the other one.
    """

    zh: Annotated[str, AfterValidator(_check_templates)] | None = None
    en: Annotated[str, AfterValidator(_check_templates)] | None = None
    when: Annotated[str, AfterValidator(_check_case_condition)] | None = None
    cases: list[Text] | None = None
    _compiled: dict[str, Any] = PrivateAttr(default_factory=dict)
    _when: Condition | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, v: Any) -> Any:
        if isinstance(v, str):
            return {"zh": v, "en": v}
        if isinstance(v, list):
            return {"cases": v}
        return v

    @model_validator(mode="after")
    def _check(self) -> Text:
        if self.cases is not None:
            if self.zh is not None or self.en is not None or self.when is not None:
                raise ValueError("give either zh/en or a list of cases")
            if not self.cases:
                raise ValueError("a list of cases needs at least one case")
            for i, case in enumerate(self.cases):
                if case.cases is not None:
                    raise ValueError(f"case {i}: cases do not nest")
                if case.when is None and i < len(self.cases) - 1:
                    raise ValueError(f"case {i} has no 'when': only the last case may go without one")
            if self.cases[-1].when is not None:
                raise ValueError("the last case needs no 'when' (it is said when no other case holds)")
            return self
        if self.zh is None and self.en is None:
            raise ValueError("give at least one of zh, en")
        self._compiled = {k: _compiled(v) for k, v in (("zh", self.zh), ("en", self.en)) if v is not None}
        self._when = parse_condition(self.when, CASE_ROOTS) if self.when is not None else None
        return self

    @property
    def paths(self) -> list[tuple[str, ...]]:
        """Template paths read by either language (and by ``when``), of every case."""
        if self.cases is not None:
            return [p for c in self.cases for p in c.paths]
        own = [p for v in self._compiled.values() for p in paths_in(v)]
        return own + (_condition_paths(self.when) if self.when else [])

    def holds(self, ctx: dict[str, Any]) -> bool:
        """This case's ``when`` holds in ``ctx`` (a text without ``when`` always does)."""
        return self._when is None or self._when(ctx)

    def render(self, ctx: dict[str, Any], lang: str, style: Style | None = None) -> str:
        """The text in ``lang`` (``zh``/``en``), templates filled; of a list, the first case that holds.

        :param style: for filters (language, zone, reference instant); default: ``lang``, no zone.
        :raises MissingValue:
        """
        if self.cases is not None:
            for case in self.cases:
                if case.holds(ctx):
                    return case.render(ctx, lang, style)
            return ""  # pragma: no cover - the last case has no condition
        key = lang if lang in self._compiled else next(iter(self._compiled))
        return render(self._compiled[key], ctx, style or Style(lang))


class _Templated(_Model):
    """An action whose ``params``-like payload holds templates (compiled once)."""

    _payload: Any = PrivateAttr(default=None)

    def _template_source(self) -> Any:  # pragma: no cover - overridden
        return None

    def model_post_init(self, context: Any, /) -> None:
        self._payload = _compiled(self._template_source())

    @property
    def paths(self) -> list[tuple[str, ...]]:
        """Template paths read by this action (not counting nested actions)."""
        own = paths_in(self._payload)
        for v in self.__dict__.values():
            if isinstance(v, Text):
                own += v.paths
        return own

    @model_validator(mode="after")
    def _no_lone_when(self) -> Any:
        for name, v in self.__dict__.items():
            if isinstance(v, Text) and v.when is not None:
                raise ValueError(f"{name}: 'when' belongs to a case in a list of cases")
        return self

    def render_payload(self, ctx: dict[str, Any], style: Style | None = None) -> Any:
        """The templated payload rendered against ``ctx`` (``style`` for filters). :raises MissingValue:"""
        return render(self._payload, ctx, style)


class ToolAction(_Templated):
    """Call a tool. ``id`` names its result for later ``{{steps.<id>.…}}``.

    A tool whose descriptor says ``confirm: true`` is confirmed by the controller even
    without a ``confirm`` action before it; a ``confirm`` action adds a card for any step.
    :param on_failure: compensation — actions that undo this step, run (newest step first)
        when a later step of the same plan fails (saga, Garcia-Molina & Salem 1987).
    :param stop: texts, each with a ``when`` that may read this step's result, tried in order once
        the step succeeded: the first that holds ends the plan there, its sentence the answer (an
        answer, not a failure: nothing after it runs, no fallback). A check before a card says plainly
        that the request cannot be done instead of asking for a yes first::

            - tool: service_status
              id: known
              params: {unit: "{{entities.service}}"}
              stop:
                - when: "steps.known.load_state == 'not-found'"
                  zh: "这台设备上没有 {{entities.service}} 这个服务，没法重启。"
                  en: "There is no {{entities.service}} service here, so it cannot be restarted."
    """

    tool: str = Field(pattern=_NAME)
    id: str | None = Field(None, pattern=_NAME)
    params: dict[str, Templated] = Field(default_factory=dict)
    on_failure: list[Action] = Field(default_factory=list)
    stop: list[Text] = Field(default_factory=list)
    _reply: Phrase | None = PrivateAttr(default=None)

    kind: ClassVar[str] = "tool"

    @model_validator(mode="after")
    def _stops_have_when(self) -> ToolAction:
        for i, t in enumerate(self.stop):
            if t.cases is not None or t.when is None:
                raise ValueError(f"stop[{i}]: needs a 'when' (and zh/en), not a list of cases")
        if self.stop and self.id is None:
            raise ValueError("stop reads the step's result: give the step an id")
        return self

    def stopped(self, ctx: dict[str, Any]) -> Text | None:
        """The first ``stop`` text whose ``when`` holds in ``ctx`` (this step's result in ``ctx["steps"]``), or None."""
        return next((t for t in self.stop if t.holds(ctx)), None)

    def _template_source(self) -> Any:
        return self.params

    def render_params(self, ctx: dict[str, Any], style: Style | None = None) -> dict[str, Any]:
        """``params`` with templates filled (typed when a value is one placeholder)."""
        return self.render_payload(ctx, style)

    @property
    def reply_template(self) -> Phrase | None:
        """The tool's own reply template (``reply:`` of its ``tool.yaml``), bound when the pack
        was loaded with the tools' templates; the executor renders it into ``steps.<id>.reply``."""
        return self._reply

    def bind_reply(self, phrase: Phrase | None) -> None:
        """Attach the tool's reply template (the loader does this once per load)."""
        self._reply = phrase


class AskAction(_Templated):
    """Ask for a required slot: the plan stops in LISTENING until the slot is filled.

    :param ask: the slot name. :param entity: the entity type that fills it (default: same name).
    :param refine: ask even when the slot holds a value — one that is not enough (a day whose default
        time has gone: "今天提醒我交报告" said at 14:00); the answer is read together with it (the day,
        then its clock time: :func:`hermesd.dialogue.whenjoin.join_when`). Without it a filled slot is
        not asked for again.
    """

    ask: str = Field(pattern=_NAME)
    prompt: Text
    entity: str | None = Field(None, pattern=_NAME)
    refine: bool = False

    kind: ClassVar[str] = "ask"


class ConfirmAction(_Templated):
    """Stop in CONFIRMING with a card: ``confirm`` is its question, ``fields`` label → value."""

    confirm: Text
    fields: dict[str, Templated] = Field(default_factory=dict)

    kind: ClassVar[str] = "confirm"

    def _template_source(self) -> Any:
        return self.fields


def _dig(item: Any, path: list[str]) -> Any:
    for k in path:
        item = item.get(k) if isinstance(item, dict) else None
    return item


def _check_item_template(src: str) -> str:
    try:
        Template.parse(src, None, item=True)
    except TemplateSyntaxError as exc:
        raise ValueError(f"item template {exc.source!r}: {exc}") from None
    return src


class ChooseAction(_Templated):
    """Which one? When ``among`` (a template naming a list, e.g. ``"{{steps.sent.items}}"``) holds several
    items, stop and ask ``choose``, each item said as ``label`` (an item template per language, fields in single braces as in the
    ``lines`` filter: ``{zh: "{object}（发给{params.recipient}，{at | datetime}）", en: …}``), numbered; the answer (a position, a word of a label, a time) picks one
    and the plan goes on with it as ``steps.<id>``. One item is taken without asking; none fails the step
    as a recall finding nothing does (the rule's fallback says so).

    ``pick`` (a template, e.g. ``"{{entities.nth}}"``): the place the request itself names — 1-based, or
    ``last`` (the NLU's ``ordinal``: 第二个, "the second one", 最后一个, "the last one") — takes the item at
    that place without asking ("第二个再发一遍" right after a list: the second of it); a place past the
    end fails the step as an empty ``among`` does. Rendered empty or absent: asked as above.
    """

    choose: Text
    among: Templated
    label: dict[Literal["zh", "en"], Annotated[str, AfterValidator(_check_item_template)]] = Field(min_length=1)
    id: str = Field(pattern=_NAME)
    #: item fields (dotted) by which two items are one: the first (the newest of a recall) is kept
    distinct: list[Annotated[str, Field(pattern=_DOTTED)]] = Field(default_factory=list)
    #: the place the request names (1-based, or ``last``): the item there is taken without asking
    pick: Templated = None

    kind: ClassVar[str] = "choose"

    def distinct_items(self, items: list[Any]) -> list[Any]:
        """``items`` without the later ones equal to an earlier one on :attr:`distinct` (all kept when empty)."""
        if not self.distinct:
            return list(items)
        seen, out = set(), []
        for item in items:
            key = tuple(repr(_dig(item, f.split("."))) for f in self.distinct)
            if key not in seen:
                seen.add(key)
                out.append(item)
        return out

    def _template_source(self) -> Any:
        return {"among": self.among, "pick": self.pick}

    def render_among(self, ctx: dict[str, Any], style: Style | None = None) -> tuple[list[Any], int | None]:
        """(the distinct items of ``among``, the 0-based place ``pick`` names or None when it names none).
        A place past the end is ``len(items)`` (no item there). :raises MissingValue:"""
        payload = self.render_payload(ctx, style)
        among = payload.get("among")
        items = self.distinct_items(list(among) if isinstance(among, (list, tuple)) else [])
        return items, place(payload.get("pick"), len(items))

    def render_label(self, item: Any, lang: str, style: Style | None = None) -> str:
        """``item`` said as its ``label`` in ``lang`` (else the other language). :raises MissingValue:"""
        src = self.label.get("zh" if lang == "zh" else "en") or next(iter(self.label.values()))
        return str(Template.parse(src, None, item=True).render(item if isinstance(item, dict) else {}, style))


def place(said: Any, n: int) -> int | None:
    """The 0-based index a position names among ``n`` items: ``"2"`` → 1, ``"last"`` → ``n - 1``; None
    for nothing said (None, "") or a word that is no position; ``n`` for a place past the end (no item).

    >>> place("2", 3), place("last", 3), place("5", 3), place(None, 3), place("x", 3)
    (1, 2, 3, None, None)
    """
    if said is None or said == "" or isinstance(said, bool):
        return None
    word = str(said).strip().lower()
    if word == "last":
        return n - 1 if n else n
    if word == "first":
        return 0 if n else n
    try:
        k = int(word)
    except ValueError:
        return None
    return k - 1 if 1 <= k <= n else n


class ReplyAction(_Templated):
    """Say something (zh/en templates, or a list of cases: see :class:`Text`).

    A tool step's own sentence is ``{{steps.<id>.reply}}`` (its ``tool.yaml`` ``reply:``,
    rendered in the turn's language), e.g. ``reply: "{{steps.disk.reply}}"``.
    """

    reply: Text

    kind: ClassVar[str] = "reply"


class RememberAction(_Templated):
    """Write ``value`` to memory under ``remember`` (the key), decay class ``memory_class``."""

    remember: str = Field(pattern=_DOTTED)
    value: Templated
    memory_class: Literal["session", "project", "person"] = Field("session", alias="class")

    kind: ClassVar[str] = "remember"
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    def _template_source(self) -> Any:
        return self.value


class SetStateAction(_Templated):
    """Set session state variables (``session.<name>`` in conditions), e.g. ``{auth: AUTHED}``."""

    set_state: dict[Annotated[str, Field(pattern=_NAME)], Templated] = Field(min_length=1)

    kind: ClassVar[str] = "set_state"

    def _template_source(self) -> Any:
        return self.set_state


class RecallAction(_Templated):
    """Search the caller's memory (events and remembered items) in the daemon, not in a tool.

    ``recall`` holds the filters, each templated: ``action`` (e.g. ``send_document``),
    ``kind`` (a document kind as said), ``person`` (a person as anchored this turn),
    ``since`` / ``until`` (a half-open time range: dates or ISO 8601), ``query`` (keywords),
    ``k`` (how many, default 3). The result ``{items: [...], count}`` is ``{{steps.<id>.…}}``,
    best first. With ``required`` (the default) no match ends the plan with the rule's
    ``fallback`` — a clear answer, and nothing after it runs.
    """

    recall: dict[Annotated[str, Field(pattern=r"^(action|kind|person|since|until|query|k)$")], Templated]
    id: str | None = Field(None, pattern=_NAME)
    required: bool = True

    kind: ClassVar[str] = "recall"

    def _template_source(self) -> Any:
        return self.recall


class HandoffAction(_Templated):
    """Hand the conversation to a person: raises the ``handoff`` event, state → IDLE. ``handoff`` (the reason,
    for the event a colleague reads and the trace) is a template too: "reboot at {{entities.when.point}}"."""

    handoff: str = Field(min_length=1, description="reason, for the event and the trace")
    message: Text | None = None

    kind: ClassVar[str] = "handoff"

    def _template_source(self) -> Any:
        return self.handoff


def _kind_of(v: Any) -> str | None:
    if isinstance(v, dict):
        kinds = [k for k in ACTION_KINDS if k in v]
        return kinds[0] if len(kinds) == 1 else None
    return getattr(v, "kind", None)


def _one_kind(v: Any) -> Any:
    if isinstance(v, dict):
        kinds = [k for k in ACTION_KINDS if k in v]
        if len(kinds) != 1:
            have = f"found {', '.join(kinds)}" if kinds else "found none"
            raise ValueError(f"an action needs exactly one of {', '.join(ACTION_KINDS)} ({have})")
    elif not isinstance(v, _Model):
        raise ValueError(f"an action is a mapping, not {type(v).__name__}")  # noqa: TRY004 - a validator reports ValueError
    return v


Action = Annotated[
    Annotated[
        Annotated[ToolAction, Tag("tool")] | Annotated[RecallAction, Tag("recall")] | Annotated[AskAction, Tag("ask")] | Annotated[ConfirmAction, Tag("confirm")] | Annotated[ChooseAction, Tag("choose")] | Annotated[ReplyAction, Tag("reply")] | Annotated[RememberAction, Tag("remember")] | Annotated[SetStateAction, Tag("set_state")] | Annotated[HandoffAction, Tag("handoff")],
        Discriminator(_kind_of),
    ],
    BeforeValidator(_one_kind),
]
ToolAction.model_rebuild()


class Trigger(_Model):
    """When a rule is considered: ``intent`` and the entities it needs (present, not null)."""

    intent: str = Field(min_length=1, pattern=_DOTTED)
    entities: list[Annotated[str, Field(pattern=_NAME)]] = Field(default_factory=list)


def _step_refs(actions: list[Any]) -> list[tuple[int, bool, str, tuple[str, ...]]]:
    """(index, in on_failure, kind, path) of every ``steps.*`` path in ``actions``.

    Paths inside a tool step's ``on_failure`` carry that step's index.
    """
    out = []
    for i, a in enumerate(actions):
        out += [(i, False, a.kind, p) for p in a.paths if p[0] == "steps"]
        if isinstance(a, ToolAction):
            out += [(i, True, k, p) for _, _, k, p in _step_refs(a.on_failure)]
            # a stop text is read after its own step returned: it may read that step, as a compensation does
            out += [(i, True, "stop", p) for t in a.stop for p in t.paths if p[0] == "steps"]
    return out


def _step_ids(actions: list[Any]) -> dict[str, int]:
    ids: dict[str, int] = {}
    for i, a in enumerate(actions):
        if isinstance(a, (ToolAction, RecallAction, ChooseAction)) and a.id is not None:
            if a.id in ids:
                raise ValueError(f"step id {a.id!r} used twice (actions {ids[a.id]} and {i})")
            ids[a.id] = i
    return ids


class Rule(_Model):
    """One rule. ``priority``: higher first. ``conditions``: all must hold (one string or a list).

    ``fallback`` runs when a step of ``actions`` fails, after the compensations.
    """

    rule_id: str = Field(min_length=1, max_length=128, pattern=_DOTTED)
    priority: int = 0
    description: str = ""
    trigger: Trigger
    conditions: list[ConditionText] = Field(default_factory=list)
    actions: list[Action] = Field(min_length=1)
    fallback: list[Action] = Field(default_factory=list)
    _conditions: tuple[Condition, ...] = PrivateAttr(default=())

    @field_validator("conditions", mode="before")
    @classmethod
    def _one_or_many(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v

    @field_validator("actions")
    @classmethod
    def _check_steps(cls, actions: list[Any]) -> list[Any]:
        ids = _step_ids(actions)
        for i, compensating, kind, path in _step_refs(actions):
            # a compensation runs after its own step succeeded, so it may read that step too
            if len(path) >= 2 and path[1] in ids and ids[path[1]] <= i - (not compensating):
                continue
            known = ", ".join(sorted(ids)) or "none"
            raise ValueError(f"actions[{i}] ({kind}) reads {{{{{'.'.join(path)}}}}} but no earlier "
                             f"tool step has that id (step ids: {known})")
        return actions

    @field_validator("fallback")
    @classmethod
    def _check_fallback(cls, fallback: list[Any], info: ValidationInfo) -> list[Any]:
        ids = _step_ids(info.data.get("actions") or [])
        for _, _, kind, path in _step_refs(fallback):
            if len(path) < 2 or path[1] not in ids:
                raise ValueError(f"fallback ({kind}) reads {{{{{'.'.join(path)}}}}}: no step has that id")
        return fallback

    def model_post_init(self, context: Any, /) -> None:
        self._conditions = tuple(parse_condition(src) for src in self.conditions)

    @property
    def compiled_conditions(self) -> tuple[Condition, ...]:
        """The parsed conditions, in order."""
        return self._conditions


class RulePack(_Model):
    """One pack file: a name, rules, and the pack's fallback.

    ``fallback`` runs when an intent this pack has rules for is recognised but none of
    them holds (typically a clarification ``reply`` or an ``ask``).
    """

    pack: str = Field(min_length=1, max_length=64, pattern=_DOTTED)
    description: str = ""
    rules: list[Rule] = Field(default_factory=list)
    fallback: list[Action] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_ids(self) -> RulePack:
        seen: dict[str, int] = {}
        for i, r in enumerate(self.rules):
            if r.rule_id in seen:
                raise ValueError(f"rule_id {r.rule_id!r} used twice (rules {seen[r.rule_id]} and {i})")
            seen[r.rule_id] = i
        for _, _, kind, path in _step_refs(self.fallback):
            raise ValueError(f"pack fallback ({kind}) reads {{{{{'.'.join(path)}}}}}: no steps run before it")
        return self
