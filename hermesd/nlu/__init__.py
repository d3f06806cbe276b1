"""Deterministic Chinese/English NLU: normalise → time expressions → entities → kind → intent.

Pure functions (no I/O, the clock passed in) except :mod:`.packs` (reads intent packs at
start) and :mod:`.eval` (the evaluation CLI).
"""

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
