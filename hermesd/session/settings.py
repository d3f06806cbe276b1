"""The ``session:`` config section (state timeouts, TTL, caps, rule packs, load thresholds)."""

from __future__ import annotations

from pathlib import Path

from ..section import Section, shipped_path
from ..typed import Field

__all__ = ["ETC_RULES_DIR", "SessionSettings", "resolve_rules_dir"]

#: rule packs on a device (DESIGN.md, "Files on a device").
ETC_RULES_DIR = Path("/etc/hermesd/rules")


class SessionSettings(Section):
    """Session engine settings; every field has a default so hermesd runs with no config.

    State timeouts (DESIGN.md, "Session state machine"):

    :param listening_s: LISTENING with no input this long → IDLE: how long a session waits for the
        person's next line (an unanswered question or unfinished form is then kept as a pending task
        and offered later). 180 s by default, not 30: a person reads the reply, then types on a phone
        or a device keypad at about 36 words a minute (Palin et al., "How do People Type on Mobile
        Devices?", MobileHCI 2019, 37,000 volunteers), so a two-sentence answer after a pause to
        think takes a minute or more, and 30 s cut people off mid-answer. Lower it for kiosks that
        must forget a walk-away user sooner; tests set it to fractions of a second.
    :param cap_grace_s: a session opened or used this recently is still its client's (its next
        call is on its way): ``max_sessions_per_user`` never ends it to make room. It is also the
        longest a user is refused a new session while their sessions wait for answers.
    :param parsing_ms: PARSING over this budget → keyword-only parse.
    :param routing_ms: ROUTING over this budget → fallback path.
    :param executing_s: a whole tool plan over this long → ERROR_HANDLING (a watchdog above
        the per-tool timeouts, which the tools subsystem enforces).
    :param confirming_s: no answer to a confirmation card this long → cancelled.
    :param handoff_after_failures: consecutive failed turns/steps that raise ``handoff``.
    :param max_retries: retries of a failed step that is safe to retry before degrading.
    :param ttl_s: a session not touched this long is closed.
    :param max_sessions_per_user: live sessions one uid may hold; one more ends (archives, as expiry
        does) the uid's least recently used idle session — nothing in flight or open, untouched for
        ``cap_grace_s`` — else the one whose card, choice or form has waited longest untouched for
        ``cap_grace_s`` (the question is kept as a pending task and offered in the new session; the
        log line ``session.evicted … dropped=confirm`` and a ``confirmation_cancelled`` event say so).
        Refused (``SESSION_LIMIT``, ``data.reason`` and ``retry_after_ms``) only while every session
        runs a turn or was used within the grace (:mod:`.cap`).
    :param max_live_sessions: sessions held in memory; past it the least recently used idle ones
        are kept only as their L2 row and read back at their next call (:mod:`.parking`).
    :param rules_dir: folder of rule packs; ``None`` = ``/etc/hermesd/rules`` when it
        exists, else the shipped ``config/rules``.
    :param poll_interval_ms: how often rule files are checksummed for hot reload.
    :param load_cpu_percent: above this CPU use (from /proc, cached), optional expensive paths
        are skipped and the trace says ``degraded=load``.
    :param load_memory_percent: same for memory use.
    :param load_sample_interval_ms: how long one CPU/memory sample is reused.
    :param require_auth: sessions start ``PRE_AUTH``; only ``pre_auth_intents`` are routed until a
        rule sets ``auth: AUTHED`` (see :mod:`.policy`).
    :param policy_module: importable module with optional ``on_start`` / ``on_timeout`` /
        ``can_transition`` hooks.
    :param split_requests: cut an utterance that holds several requests into parts, each handled
        as a request of its own (:mod:`hermesd.dialogue.split`). A task pack whose every utterance
        serves the one task being talked about (the SGD pack: "I'd like to eat somewhere moderate,
        can you find me some options?" is one request) turns it off and keeps utterances whole.
    :param max_requests: the distinct requests one message carries out; the same request said again
        runs once, and those past this many are said not done (:func:`hermesd.dialogue.split.capped`).
    :param lexicon_files: answer-word files of the packs (the format of the shipped
        ``config/dialogue/lexicon.yaml``), read after it in order; they add words, never remove
        them (:func:`hermesd.dialogue.lexicon.load_lexicon`).
    """

    listening_s: float = Field(180.0, gt=0)
    parsing_ms: int = Field(500, ge=1)
    routing_ms: int = Field(200, ge=1)
    executing_s: float = Field(30.0, gt=0)
    confirming_s: float = Field(60.0, gt=0)
    handoff_after_failures: int = Field(3, ge=1, le=100)
    max_retries: int = Field(1, ge=0, le=10)
    ttl_s: float = Field(1800.0, gt=0)
    max_sessions_per_user: int = Field(8, ge=1, le=100_000)
    cap_grace_s: float = Field(5.0, ge=0)
    max_live_sessions: int = Field(1000, ge=1)
    rules_dir: Path | None = None
    poll_interval_ms: int = Field(1000, ge=50, le=60_000)
    load_cpu_percent: float = Field(85.0, gt=0, le=100)
    load_memory_percent: float = Field(90.0, gt=0, le=100)
    load_sample_interval_ms: int = Field(2000, ge=100)
    split_requests: bool = True
    max_requests: int = Field(5, ge=1, le=50)
    require_auth: bool = False
    pre_auth_intents: list[str] = Field(default_factory=list)
    lexicon_files: list[Path] = Field(default_factory=list)
    policy_module: str | None = None
    #: capture rule files of the packs (the format of the shipped ``config/capture/default.yaml``), read
    #: after it in order; they add, never remove (:func:`hermesd.memory.capture.load_capture_rules`)
    capture_files: list[Path] = Field(default_factory=list)


def resolve_rules_dir(settings: SessionSettings) -> Path:
    """The rule pack folder: config, else ``/etc/hermesd/rules`` if it holds packs, else shipped ``config/rules``."""
    if settings.rules_dir is not None:
        return settings.rules_dir
    # an empty /etc/hermesd/rules (as scripts/install creates it) must not hide the shipped packs
    if ETC_RULES_DIR.is_dir() and any(p.suffix in (".yaml", ".yml", ".json") for p in ETC_RULES_DIR.iterdir()):
        return ETC_RULES_DIR
    return shipped_path("config", "rules")
