"""Rule matching (pure): rules indexed by intent, first by priority whose needs and conditions hold.

``RuleEngine(packs).match(intent, ctx)`` looks up the intent's bucket (a dict hit, so
the cost depends on the rules of *that* intent, not on the size of the pack), then walks
it in priority order (higher first; ties keep load order: file name, then position) and
returns a :class:`Plan` for the first rule whose ``trigger.entities`` are all present
(not null) in ``ctx["entities"]`` and whose conditions all hold. Otherwise the plan is the
fallback: the pack's ``fallback`` for an intent that pack has rules for, else the
engine's default (a clarification reply). Every skipped rule is listed with its reason,
so a trace can explain the decision.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .conditions import Condition
from .model import Action, ReplyAction, Rule, RulePack, Text, ToolAction

__all__ = ["DEFAULT_FALLBACK", "Plan", "RuleEngine", "Skip"]

#: used when no pack has a fallback for the intent (or there is no intent).
DEFAULT_FALLBACK: tuple[Action, ...] = (
    ReplyAction(reply=Text(zh="抱歉，我没听明白。可以换个说法吗？", en="Sorry, I did not understand. Could you say it another way?")),
)


@dataclass(frozen=True, slots=True)
class Skip:
    """A rule that was tried and did not hold: ``reason`` is ``missing entity X`` or ``condition false: …``."""

    rule_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class Plan:
    """What to do for one turn.

    :param path: ``rule`` (a rule won) or ``fallback`` (none did).
    :param rule_id: the winning rule, or None. :param pack: the pack of the rule / fallback.
    :param actions: run in order (templates rendered per step with :meth:`ToolAction.render_params` etc.).
    :param on_error: the rule's ``fallback``: run when a step fails, after :meth:`compensation`.
    :param skipped: rules of this intent tried before the winner, with reasons.
    """

    path: Literal["rule", "fallback"]
    intent: str | None
    rule_id: str | None
    pack: str | None
    actions: tuple[Action, ...]
    on_error: tuple[Action, ...] = ()
    skipped: tuple[Skip, ...] = ()

    def compensation(self, failed_index: int) -> tuple[Action, ...]:
        """What to run after ``actions[failed_index]`` failed (and retries were given up).

        The ``on_failure`` undo steps of the tool steps that completed before it, newest
        step first (saga order, Garcia-Molina & Salem 1987), then :attr:`on_error` — without its replies
        when an undo step replies (that reply says what happened).
        :raises IndexError: ``failed_index`` is not an index of :attr:`actions`.
        """
        if not 0 <= failed_index < len(self.actions):
            raise IndexError(f"no action {failed_index} in a plan of {len(self.actions)}")
        undo: list[Action] = []
        for a in reversed(self.actions[:failed_index]):
            if isinstance(a, ToolAction):
                undo.extend(a.on_failure)
        if any(isinstance(a, ReplyAction) for a in undo):
            # an undo step that says what happened ("关于“bank”的提醒有 3 个：…要取消哪一个？") is the answer:
            # the fallback's own sentence ("没有关于“bank”的提醒") would contradict it in the same reply
            return (*undo, *(a for a in self.on_error if not isinstance(a, ReplyAction)))
        return (*undo, *self.on_error)

    def to_trace(self) -> dict[str, Any]:
        """JSON-ready summary for the turn trace."""
        return {"path": self.path, "intent": self.intent, "rule_id": self.rule_id, "pack": self.pack,
                "actions": [a.kind for a in self.actions],
                "skipped": [{"rule_id": s.rule_id, "reason": s.reason} for s in self.skipped]}


@dataclass(frozen=True, slots=True)
class _Entry:
    # copies of the rule's parts as plain tuples, read once per turn
    rule: Rule
    rule_id: str
    pack: str
    needs: tuple[str, ...]
    conditions: tuple[Condition, ...]
    actions: tuple[Action, ...]
    on_error: tuple[Action, ...]


class RuleEngine:
    """Immutable index of rule packs; build once per (re)load, share freely.

    :param packs: in load order. :param default_fallback: actions when no pack's fallback applies.
    :raises ValueError: the same ``rule_id`` in two packs.
    """

    __slots__ = ("_count", "_default", "_fallbacks", "_index", "packs")

    def __init__(self, packs: Sequence[RulePack], *, default_fallback: Sequence[Action] = DEFAULT_FALLBACK) -> None:
        self.packs: tuple[RulePack, ...] = tuple(packs)
        self._default = tuple(default_fallback)
        buckets: dict[str, list[tuple[int, int, _Entry]]] = {}
        fallbacks: dict[str, tuple[str, tuple[Action, ...]]] = {}
        owner: dict[str, str] = {}
        order = 0
        for pack in self.packs:
            for rule in pack.rules:
                if rule.rule_id in owner:
                    raise ValueError(f"rule_id {rule.rule_id!r} is in packs {owner[rule.rule_id]!r} and {pack.pack!r}")
                owner[rule.rule_id] = pack.pack
                entry = _Entry(rule, rule.rule_id, pack.pack, tuple(rule.trigger.entities),
                               rule.compiled_conditions, tuple(rule.actions), tuple(rule.fallback))
                buckets.setdefault(rule.trigger.intent, []).append((-rule.priority, order, entry))
                order += 1
                if pack.fallback and rule.trigger.intent not in fallbacks:
                    fallbacks[rule.trigger.intent] = (pack.pack, tuple(pack.fallback))
        self._index: dict[str, tuple[_Entry, ...]] = {
            intent: tuple(e for _, _, e in sorted(items, key=lambda t: (t[0], t[1])))
            for intent, items in buckets.items()
        }
        self._fallbacks = fallbacks
        self._count = order

    def __len__(self) -> int:
        """Number of rules."""
        return self._count

    @property
    def intents(self) -> frozenset[str]:
        """Intents some rule triggers on."""
        return frozenset(self._index)

    def rules_for(self, intent: str) -> tuple[Rule, ...]:
        """The rules of ``intent`` in the order they are tried."""
        return tuple(e.rule for e in self._index.get(intent, ()))

    def match(self, intent: str | None, ctx: Mapping[str, Any]) -> Plan:
        """The plan for ``intent`` in ``ctx``.

        :param intent: the NLU's intent, or None when out of scope.
        :param ctx: ``{"role": str, "slots": {}, "entities": {name: value}, "memory": {},
            "session": {}}``; ``entities`` holds this turn's entities by slot name, over the
            form's slots as the controller merges them.
        :return: a :class:`Plan` (never raises: conditions are total).
        """
        skipped: list[Skip] = []
        if intent is not None:
            entities = ctx.get("entities") or {}
            for entry in self._index.get(intent, ()):
                reason = None
                for name in entry.needs:
                    if entities.get(name) is None:
                        reason = f"missing entity {name}"
                        break
                else:
                    for cond in entry.conditions:
                        if not cond.fn(ctx):
                            reason = f"condition false: {cond.source}"
                            break
                if reason is not None:
                    skipped.append(Skip(entry.rule_id, reason))
                    continue
                return Plan("rule", intent, entry.rule_id, entry.pack, entry.actions, entry.on_error, tuple(skipped))
        return self.fallback(intent, tuple(skipped))

    def fallback(self, intent: str | None, skipped: tuple[Skip, ...] = ()) -> Plan:
        """The fallback plan of ``intent``'s pack (or the default one): what :meth:`match` returns when no
        rule holds, and what the session takes when ROUTING runs out of time (DESIGN.md, state machine)."""
        if intent is not None and intent in self._fallbacks:
            pack, actions = self._fallbacks[intent]
            return Plan("fallback", intent, None, pack, actions, (), skipped)
        return Plan("fallback", intent, None, None, self._default, (), skipped)
