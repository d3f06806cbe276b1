"""The NLU entry point: :func:`parse` (pure; the clock and the timer are passed in).

normalise → time expressions → entities → utterance kind → intents (templates,
then the scorer; an utterance out of scope as typed is scored again with its English words
mistyped by one letter read as the pack's own, :meth:`~.intents.IntentRecognizer.spelled`; over ``budget_ms`` the keyword path, marked ``degraded``). A long
utterance that is out of scope as a whole is read clause by clause
(:meth:`~.intents.IntentRecognizer.rank_clauses`): the clause that decided is ``clause``.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Mapping, Sequence
from zoneinfo import ZoneInfo

from .. import lazyre
from .entities import DEFAULT_ID_PATTERNS, Entity, EntityExtractor, IdPattern
from .intents import IntentMatch, IntentModel, IntentRecognizer, IntentSpec
from .kinds import utterance_kind
from .normalize import normalize
from .numbers import SUM
from .temporal import TimeExpr, parse_times

__all__ = ["NluEngine", "ParseResult", "detect_lang", "parse"]

_CJK = lazyre.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# a Latin token that is an address, an id or a code says nothing of the language it sits in:
# e-mail addresses, URLs, paths, tokens with a digit or an underscore (SO20240615, nginx_1, 5G)
_NOT_WORDS = lazyre.compile(r"[\w.+-]*@[\w.-]+|https?://\S+|[/~][\w./-]*|[A-Za-z_]*[\d_][A-Za-z0-9_]*", re.ASCII)
_EN_WORD = lazyre.compile(r"[A-Za-z]{2,}")
#: Chinese ideographs per English word at which a mixed sentence is read as Chinese: a written
#: Chinese word averages one and a half to two characters, so 1.2 leans Chinese only when the
#: Chinese part carries the frame
#: (把report发给张伟, 帮我重启nginx) and leaves an English sentence that names a Chinese person or
#: thing English (send the report to 张伟, remind me 5月3号 to call mom)
ZH_CHARS_PER_EN_WORD = 1.2


def detect_lang(text: str) -> str:
    """The language a sentence is written in: ``zh`` or ``en``.

    No ideograph → ``en``; no English word (two or more Latin letters, not counting e-mail
    addresses, URLs, paths and ids with digits) → ``zh``; a mixed sentence is ``zh`` when its
    ideographs number at least :data:`ZH_CHARS_PER_EN_WORD` per English word.
    """
    cjk = len(_CJK.findall(text))
    if not cjk:
        return "en"
    words = len(_EN_WORD.findall(_NOT_WORDS.sub(" ", text)))
    return "zh" if cjk >= ZH_CHARS_PER_EN_WORD * words else "en"


@dataclass(frozen=True, slots=True)
class ParseResult:
    """Everything the NLU found in one utterance (spans index the original text).

    :param intent: top intent, or None when out of scope.
    :param intents: ranking, best first (templates, then scorer or keywords).
    :param degraded: the budget ran out and the keyword path decided the intent.
    :param elapsed_us: time the parse took, from the timer passed in.
    :param clause: for a long utterance out of scope as a whole, the span (original text) of the
        clause whose reading is ``intents``; None when the whole utterance was read. Entities and
        times are still the whole utterance's.
    """

    text: str
    normalized: str
    lang: str
    kind: str
    intent: str | None
    intents: tuple[IntentMatch, ...]
    out_of_scope: bool
    ambiguous: bool
    entities: tuple[Entity, ...]
    times: tuple[TimeExpr, ...]
    degraded: bool
    elapsed_us: float
    clause: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"text": self.text, "normalized": self.normalized, "lang": self.lang, "kind": self.kind,
                "intent": self.intent, "intents": [m.to_dict() for m in self.intents],
                "out_of_scope": self.out_of_scope, "ambiguous": self.ambiguous,
                "entities": [e.to_dict() for e in self.entities], "times": [t.to_dict() for t in self.times],
                "degraded": self.degraded, "elapsed_us": round(self.elapsed_us, 1),
                "clause": list(self.clause) if self.clause else None}


@dataclass(slots=True)
class NluEngine:
    """Compiled NLU resources: entity extractor and intent recognizer. Build once, parse many.

    :param specs: intents (from :func:`hermesd.nlu.packs.load_packs`).
    :param model: trained scorer or None. :param people: surface → canonical person (directory).
    :param gazetteers: entity type → {surface → canonical}. :param id_patterns: order/ticket ids.
    :param margin: ambiguity margin (score units); None = the model's cross-validated one.
    :param oos_threshold: a fixed cut on the top score, replacing the calibrated rejection.
    """

    specs: Sequence[IntentSpec] = ()
    model: IntentModel | None = None
    people: Mapping[str, str] = field(default_factory=dict)
    gazetteers: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    id_patterns: Sequence[IdPattern] = DEFAULT_ID_PATTERNS
    margin: float | None = None
    oos_threshold: float | None = None
    extractor: EntityExtractor = field(init=False)
    recognizer: IntentRecognizer = field(init=False)
    #: an intent of the packs is trained on sums in symbols (a calculator intent: CLINC150's has "what is 5+5"),
    #: so :func:`parse` never rules one out of scope
    sums_in_scope: bool = field(init=False)

    def __post_init__(self) -> None:
        self.sums_in_scope = any(SUM.search(x) for spec in self.specs for x in spec.examples)
        if self.model is not None and self.oos_threshold is not None:
            # a fixed threshold on the top score replaces the calibrated rejection (a copy: the
            # trained model may be shared)
            self.model = self.model.replace(threshold=self.oos_threshold, reject=None)
        self.extractor = EntityExtractor(self.people, self.gazetteers, self.id_patterns, self._places())
        self.recognizer = IntentRecognizer(self.specs, self.model, self.margin)

    def with_people(self, people: Mapping[str, str]) -> "NluEngine":
        """This engine with another directory (surface → canonical person): a new entity extractor,
        the intent recognizer shared — it reads no people, and building it again (its templates)
        was most of the cost of a directory change."""
        new = object.__new__(NluEngine)
        for name in self.__slots__:
            setattr(new, name, getattr(self, name))
        new.people = people
        new.extractor = EntityExtractor(people, self.gazetteers, self.id_patterns, self._places())
        return new

    def _places(self) -> bool:
        """Places are looked for only when an intent has a ``place`` slot (a pack without one, the
        SGD pack's cities, keeps its readings)."""
        return any(typ == "place" for s in self.specs for typ in s.slots.values())


def _delex(norm_text: str, spans: Sequence[tuple[int, int, str]]) -> str:
    out, pos = [], 0
    for a, b, typ in spans:
        out.append(norm_text[pos:a])
        out.append("{" + typ + "}")
        pos = b
    out.append(norm_text[pos:])
    return "".join(out)




def parse(text: str, *, ref: datetime, tz: ZoneInfo | str, engine: NluEngine, budget_ms: float = 500,
          locale: str | None = None, timer: Callable[[], float] = time.perf_counter) -> ParseResult:
    """Parse one utterance.

    :param text: what the person typed (any string).
    :param ref: reference instant for relative times (aware, any zone; naive = local time in ``tz``).
    :param tz: IANA zone (name or ZoneInfo) in which "today" is computed.
    :param engine: compiled resources. :param budget_ms: parse budget; past it the scorer is skipped.
    :param locale: ``zh`` / ``en``, or None to detect from the text.
    :param timer: monotonic seconds (``time.perf_counter``), passed in so tests can drive it.
    :raises zoneinfo.ZoneInfoNotFoundError: unknown zone name.

    A sum written in symbols (:data:`.numbers.SUM`: "what is 2+2") is out of scope unless a template took it or an
    intent of the packs is trained on such sums (:attr:`NluEngine.sums_in_scope`).
    """
    t0 = timer()
    deadline = t0 + budget_ms / 1000.0
    tzinfo = ZoneInfo(tz) if isinstance(tz, str) else tz
    norm = normalize(text)
    lang = locale or detect_lang(text)
    times = tuple(parse_times(norm, ref, tzinfo))
    entities = tuple(engine.extractor.extract(norm, times))
    kind = utterance_kind(norm.text)
    rec = engine.recognizer
    nspans = [(*norm.nspan(*e.span), e.type) for e in entities]
    ranked: list[IntentMatch] = rec.match_templates(_delex(norm.text, nspans), [e.type for e in entities])
    degraded = False
    if timer() <= deadline and rec.model is not None:
        seen = {m.intent for m in ranked}
        ranked += [m for m in rec.score(norm.text) if m.intent not in seen]
    else:
        degraded = rec.model is not None or budget_ms <= 0
        if not ranked:
            ranked = rec.keywords(norm.text)
    if degraded and ranked and ranked[0].source == "keyword":
        top, oos, amb = ranked[0].intent, False, len(ranked) > 1 and ranked[1].score == ranked[0].score
    else:
        top, oos, amb = rec.decide(ranked)
    if oos and not degraded and timer() <= deadline and (spelled := rec.spelled(norm.text)) != norm.text:
        # out of scope as typed: the same words with the typos read as the pack's words ("remnd me
        # tomorow"), kept only when that reading is in scope
        again = [m for m in ranked if m.source == "template"]
        again += [m for m in rec.score(spelled) if m.intent not in {a.intent for a in again}]
        if not (decided := rec.decide(again))[1]:
            ranked, (top, oos, amb) = again, decided
    if not oos and ranked and ranked[0].source != "template" and not engine.sums_in_scope and SUM.search(norm.text):
        # "what is 2+2", "3×5等于多少": a sum is a calculator's question, never a request of a pack — the
        # scorer's tokens drop the operator and read "what is 2 2", which the clock took
        top, oos, amb = None, True, False
    clause = None
    if oos and not degraded and timer() <= deadline:
        reading = rec.rank_clauses(norm.text, nspans, ranked)
        if reading is not None:
            ranked = list(reading.ranked)
            top, oos, amb = rec.decide(ranked)
            clause = norm.span(*reading.span)
    return ParseResult(text, norm.text, lang, kind, top, tuple(ranked), oos, amb, entities, times, degraded,
                       (timer() - t0) * 1e6, clause)
