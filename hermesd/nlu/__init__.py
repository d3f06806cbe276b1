"""Deterministic Chinese/English NLU: normalise → time expressions → entities → kind → intent.

Pure functions (no I/O, the clock passed in) except :mod:`.packs` (reads intent packs at
start), :mod:`.service` (the subsystem shell) and :mod:`.eval` (the evaluation CLI).
"""

# hermesd.config imports our settings module to build HermesConfig, and our settings
# import ``Section`` from it: loading config first keeps either import order working.
from .. import config as _config  # noqa: F401
from .entities import Entity, EntityExtractor, IdPattern
from .intents import IntentMatch, IntentModel, IntentRecognizer, IntentSpec, train, train_cached
from .kinds import utterance_kind
from .normalize import Normalized, normalize
from .parser import NluEngine, ParseResult, parse
from .temporal import TimeExpr, parse_times

__all__ = [
    "Entity",
    "EntityExtractor",
    "IdPattern",
    "IntentMatch",
    "IntentModel",
    "IntentRecognizer",
    "IntentSpec",
    "NluEngine",
    "Normalized",
    "ParseResult",
    "TimeExpr",
    "normalize",
    "parse",
    "parse_times",
    "train",
    "train_cached",
    "utterance_kind",
]
