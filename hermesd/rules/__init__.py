"""Rule packs: models, the condition language, templates, the loader with hot reload, the engine.

The controller's view::

    source = RuleSource(resolve_rules_dir(settings), known_tools=..., known_intents=...,
                        tool_replies={name: descriptor.reply_template, ...})
    source.reload()                     # at start; then source.poll() every poll_interval_ms
    plan = source.engine.match(intent, ctx)   # ctx: role, slots, entities, memory, session
    style = Style.of(lang, ctx["session"], departments)    # filters: language, zone, reference instant
    params = plan.actions[i].render_params({**ctx, "steps": results}, style)
"""

from .conditions import Condition, ConditionError
from .engine import DEFAULT_FALLBACK, Plan, RuleEngine, Skip
from .filters import FILTERS, Style
from .loader import (
    LoadedRules,
    Problem,
    RulePackError,
    RuleSource,
    checksum,
    load_rules,
)
from .model import ACTION_KINDS, Action, Rule, RulePack
from .phrases import Phrase, PhraseError
from .templating import MissingValue, Template, TemplateSyntaxError, render

__all__ = [
    "ACTION_KINDS",
    "DEFAULT_FALLBACK",
    "FILTERS",
    "Action",
    "Condition",
    "ConditionError",
    "LoadedRules",
    "MissingValue",
    "Phrase",
    "PhraseError",
    "Plan",
    "Problem",
    "Rule",
    "RuleEngine",
    "RulePack",
    "RulePackError",
    "RuleSource",
    "Skip",
    "Style",
    "Template",
    "TemplateSyntaxError",
    "checksum",
    "load_rules",
    "render",
]
