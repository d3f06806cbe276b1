"""Rule packs: models, the condition language, templates, the loader with hot reload, the engine.

The controller's view::

    source = RuleSource(resolve_rules_dir(settings), known_tools=..., known_intents=...)
    source.reload()                     # at start; then source.poll() every poll_interval_ms
    plan = source.engine.match(intent, ctx)   # ctx: role, slots, entities, memory, session
    params = plan.actions[i].render_params({**ctx, "steps": results})
"""

from .conditions import Condition, ConditionError
from .engine import DEFAULT_FALLBACK, Plan, RuleEngine, Skip
from .loader import (
    LoadedRules,
    Problem,
    RulePackError,
    RuleSource,
    checksum,
    load_rules,
)
from .model import ACTION_KINDS, Action, Rule, RulePack
from .templating import MissingValue, Template, TemplateSyntaxError, render

__all__ = [
    "ACTION_KINDS",
    "DEFAULT_FALLBACK",
    "Action",
    "Condition",
    "ConditionError",
    "LoadedRules",
    "MissingValue",
    "Plan",
    "Problem",
    "Rule",
    "RuleEngine",
    "RulePack",
    "RulePackError",
    "RuleSource",
    "Skip",
    "Template",
    "TemplateSyntaxError",
    "checksum",
    "load_rules",
    "render",
]
