"""The NLU subsystem: loads intent packs, trains (or loads the cached) scorer, serves ``nlu.parse``.

Wiring (daemon.py)::

    nlu = NluSubsystem()                       # settings come from ctx.config.nlu at start
    await nlu.start(ctx)                       # reads packs, trains/loads model off the loop
    nlu.set_people({"张伟": "person:sales/zhang", ...})   # from the directory (anchors)
    result = nlu.parse("把报价单发给张工")        # in-process use by the session engine

This is the I/O shell around the pure :func:`hermesd.nlu.parser.parse`: it reads the
clock (``clock`` argument) and files; ``parse`` itself does neither.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping
from zoneinfo import ZoneInfo

from ..errors import InputInvalid
from ..metrics import Histogram, Registry
from ..protocol import CallContext, Method
from .subsystem import DaemonContext, Subsystem, section
from ..nlu.entities import DEFAULT_ID_PATTERNS, IdPattern
from ..nlu import artifact
from ..nlu.packs import Packs
from ..nlu.parser import NluEngine, ParseResult, parse
from ..nlu.scripts import seed as seed_prefilters
from ..nlu.settings import NluSettings
from ..nlu.temporal_atoms import compile_pending
from ..typed import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from ..config import HermesConfig

__all__ = ["NluSubsystem", "ParseParams"]

log = logging.getLogger(__name__)
#: time-atom patterns compiled per event-loop turn after READY (~0.4 ms each on a 2-core machine)
_WARM_PER_STEP = 4


class ParseParams(BaseModel):
    """Params of ``nlu.parse``."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(max_length=65_536)
    #: ISO 8601 instant the relative times are resolved against; default: now.
    reference_time: datetime | None = None
    #: IANA zone; default: ``nlu.timezone``.
    tz: str | None = None
    locale: Literal["zh", "en"] | None = None


def _shipped_intents_dir() -> Path:
    try:
        from ..section import shipped_path

        return shipped_path("config", "intents")
    except ImportError:  # foundation not there yet
        return Path(__file__).resolve().parents[2] / "config" / "intents"


class NluSubsystem(Subsystem):
    """Subsystem ``nlu``.

    :param settings: overrides ``ctx.config.nlu`` (tests, tools); None = read it at start.
    :param clock: aware "now" for requests without ``reference_time``.
    :param timer: monotonic seconds for the parse budget.
    """

    name = "nlu"

    def __init__(self, settings: NluSettings | None = None, *,
                 clock: Callable[[], datetime] = lambda: datetime.now(timezone.utc),
                 timer: Callable[[], float] = time.perf_counter) -> None:
        self._settings_override = settings
        self.settings = settings or NluSettings()
        self._clock = clock
        self._timer = timer
        self._people: dict[str, str] = {}
        self._packs = Packs()
        self._model = None
        self._artifact = ""
        self.engine = NluEngine()
        self._cache_dir: Path | None = None
        self._n = 0
        self._degraded = 0
        self._oos = 0
        self.parse_seconds = Histogram("hermes_nlu_parse_duration_seconds",
                                       "Time one utterance took to parse (NLU engine only).")

    # ---- life cycle --------------------------------------------------------------------------
    async def start(self, ctx: DaemonContext) -> None:
        if self._settings_override is None:
            self.settings = section(ctx.config, "nlu", NluSettings)
        s = self.settings
        self._cache_dir = Path(s.model_cache_dir) if s.model_cache_dir else Path(ctx.state_dir) / "nlu-cache"
        await asyncio.to_thread(self._load, s)

    async def start_standalone(self, cache_dir: Path | None = None) -> None:
        """Start without a daemon (scripts, benchmarks): packs from settings, cache in ``cache_dir``."""
        self._cache_dir = cache_dir
        await asyncio.to_thread(self._load, self.settings)

    def ready(self) -> None:
        """Once the daemon serves, compile the time-expression patterns no parse has needed yet, a
        few per turn of the event loop (each is compiled at its first use anyway; this way the
        first turns after start-up rarely wait for one, and READY never does)."""
        loop = asyncio.get_running_loop()

        def step() -> None:
            if compile_pending(_WARM_PER_STEP):
                loop.call_soon(step)

        loop.call_soon(step)

    def _load(self, s: NluSettings) -> None:
        t0 = time.perf_counter()
        dirs = [Path(d) for d in s.intent_dirs] or [_shipped_intents_dir()]
        compiled, source = self._compiled(dirs, s)
        # the time patterns' prefilters the pack was built with: not read again at the first parse
        seed_prefilters(compiled.prefilters)
        self._packs, self._model = compiled.packs, compiled.model
        self._artifact = source
        self._rebuild()
        log.info("nlu loaded", extra={"kv": {"files": len(compiled.packs.files), "intents": len(compiled.packs.intents),
                                              "examples": compiled.examples, "from": source,
                                              "duration_ms": round((time.perf_counter() - t0) * 1000, 1)}})

    def _compiled(self, dirs: list[Path], s: NluSettings) -> tuple[artifact.Compiled, str]:
        """The packs and model of ``dirs``: the pack's own fresh artifact (``hermesd build-pack``),
        else the one trained once into the cache folder, else trained now (and cached).

        :return: (compiled packs, where they came from: ``artifact``, ``cache`` or ``trained``).
        """
        files = [str(p) for p in artifact.source_files(dirs)]
        key = artifact.artifact_key(dirs, artifact.train_params(epochs=s.train_epochs))
        built = dirs[0] / artifact.ARTIFACT_NAME
        how = f"hermesd build-pack {' '.join(map(str, dirs))}"
        try:
            found = artifact.read(built, key, files)
            if found is not None:
                return found, "artifact"
            log.warning("nlu pack artifact is stale: training once into the cache; rebuild it with " + how,
                        extra={"kv": {"artifact": str(built)}})
        except FileNotFoundError:
            log.warning("nlu pack has no prebuilt artifact: training once into the cache; prebuild it with " + how,
                        extra={"kv": {"folder": str(dirs[0])}})
        except (OSError, artifact.ArtifactError) as exc:
            log.warning("nlu pack artifact is unreadable: training once into the cache; rebuild it with " + how,
                        extra={"kv": {"artifact": str(built), "error": str(exc)}})
        cached = self._cache_dir / f"pack-{key[:32]}.compiled" if self._cache_dir else None
        if cached is not None:
            try:
                found = artifact.read(cached, key, files)
                if found is not None:
                    return found, "cache"
            except FileNotFoundError:
                pass
            except (OSError, artifact.ArtifactError) as exc:
                log.warning("nlu cached pack is unreadable; training again", extra={"kv": {"file": str(cached),
                                                                                          "error": str(exc)}})
        compiled = artifact.compile_packs(dirs, epochs=s.train_epochs)
        if cached is not None:
            try:
                cached.parent.mkdir(parents=True, exist_ok=True)
                artifact.write(compiled, cached)
            except OSError as exc:
                log.warning("nlu cannot cache the trained pack", extra={"kv": {"file": str(cached), "error": str(exc)}})
        compiled.packs.files = files
        return compiled, "trained"

    def _rebuild(self) -> None:
        s = self.settings
        extra = tuple(IdPattern(p.type, p.regex, tuple(p.context), p.context_required, p.case_sensitive) for p in s.id_patterns)
        self.engine = NluEngine(self._packs.intents, self._model, self._people, self._packs.gazetteers,
                                DEFAULT_ID_PATTERNS + extra, s.ambiguity_margin, s.oos_threshold)

    async def stop(self) -> None:
        return None

    async def reload(self, config: "HermesConfig") -> None:
        new = section(config, "nlu", NluSettings)
        old = self.settings
        try:
            self.settings = new
            await asyncio.to_thread(self._load, new)
        except Exception as exc:
            self.settings = old
            log.error("nlu reload failed; keeping the old packs", extra={"kv": {"error": str(exc)}})

    @property
    def pack_titles(self) -> dict[str, dict[str, str]]:
        """Pack name → language → display title of the loaded intent packs, in load order."""
        return self._packs.titles

    def set_people(self, people: Mapping[str, str]) -> None:
        """Replace the directory names/aliases (surface form → canonical person id)."""
        self._people = dict(people)
        self.engine = self.engine.with_people(self._people)

    # ---- parsing -------------------------------------------------------------------------------
    def parse(self, text: str, reference_time: datetime | None = None, tz: str | None = None,
              locale: str | None = None, budget_ms: float | None = None) -> ParseResult:
        """Parse one utterance with the configured zone and budget.

        :param budget_ms: the caller's budget (the session's PARSING limit); the smaller of it and
            ``nlu.parse_budget_ms`` applies — past it the keyword path decides (``degraded``).
        :raises InputInvalid: text too long, unknown time zone.
        """
        s = self.settings
        budget = s.parse_budget_ms if budget_ms is None else min(budget_ms, s.parse_budget_ms)
        if len(text) > s.max_text_chars:
            raise InputInvalid(f"text longer than {s.max_text_chars} characters",
                               data={"max_text_chars": s.max_text_chars})
        zone = tz or s.timezone
        try:
            tzinfo = ZoneInfo(zone)
        except Exception:
            raise InputInvalid(f"unknown IANA time zone {zone!r}") from None
        ref = reference_time or self._clock()
        loc = locale or (None if s.locale == "auto" else s.locale)
        r = parse(text, ref=ref, tz=tzinfo, engine=self.engine, budget_ms=budget, locale=loc, timer=self._timer)
        self._n += 1
        self._degraded += r.degraded
        self._oos += r.out_of_scope
        self.parse_seconds.observe_key((), r.elapsed_us / 1e6)
        if r.degraded:
            log.warning("nlu parse degraded", extra={"kv": {"elapsed_us": round(r.elapsed_us), "budget_ms": budget}})
        return r

    async def _h_parse(self, params: ParseParams, ctx: CallContext) -> dict[str, Any]:
        return self.parse(params.text, params.reference_time, params.tz, params.locale).to_dict()

    def methods(self) -> list[Method]:
        return [Method("nlu.parse", self._h_parse, frozenset({"admin", "user"}), ParseParams)]

    def memory_roots(self) -> dict[str, list[Any]]:
        return {"NLU model": [self._model], "NLU packs and extractor": [self._packs, self.engine]}

    def health(self) -> dict[str, Any]:
        return {"status": "ok" if self._packs.intents else "degraded", "intents": len(self._packs.intents),
                "scorer": self._model is not None, "files": self._packs.files, "compiled": self._artifact,
                "timezone": self.settings.timezone}

    def register_metrics(self, registry: Registry) -> None:
        registry.counter("hermes_nlu_parses_total", "Utterances parsed.", collect=lambda: self._n)
        registry.counter("hermes_nlu_degraded_total",
                         "Parses that passed their time budget and were decided by the keyword path.",
                         collect=lambda: self._degraded)
        registry.counter("hermes_nlu_out_of_scope_total", "Parses classed out of scope (no intent).",
                         collect=lambda: self._oos)
        registry.add(self.parse_seconds)
