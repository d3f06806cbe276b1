"""The ``nlu:`` config section."""

from __future__ import annotations

from typing import Literal

from ..section import Section
from ..typed import Field, field_validator

__all__ = ["IdPatternSettings", "NluSettings"]


class IdPatternSettings(Section):
    """An extra order/ticket id pattern (see :class:`hermesd.nlu.entities.IdPattern`)."""

    type: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    regex: str
    context: list[str] = []
    context_required: bool = False
    #: match over the original text (capitalisation as a cue); the value is the text as said
    case_sensitive: bool = False

    @field_validator("regex")
    @classmethod
    def _compiles(cls, v: str) -> str:
        import re

        re.compile(v)
        return v


#: a document serial: 2-6 digits not part of a longer number, an amount, a date or a clock time.
DOC_SERIAL_REGEX = r"(?<![a-z0-9.])\d{2,6}(?!\d|\.\d|[:%年月日号点时分秒个份张元块])"
#: the document kinds a serial may follow (the office pack's doc_type names, zh and en).
DOC_SERIAL_CONTEXT = ("报价单", "报价", "合同", "发票", "报表", "报告", "周报", "日报", "月报", "方案", "会议纪要",
                      "纪要", "简历", "说明书", "对账单", "采购单", "quote", "quotation", "contract", "invoice",
                      "report", "proposal", "minutes", "resume", "manual", "statement", "purchase order")


class NluSettings(Section):
    """Natural-language understanding.

    ``timezone`` defaults to ``Asia/Shanghai``, not to the system zone: embedded
    images very often leave ``/etc/localtime`` at UTC, and then "今天" at 07:30 in
    Beijing would still be yesterday. The product's users are first of all in
    China; integrators elsewhere set their IANA zone here, and a request may pass
    its own ``tz``.
    """

    #: IANA zone used to resolve 今天 / "tomorrow" when a request gives none.
    timezone: str = "Asia/Shanghai"
    #: ``auto`` picks zh when the text contains CJK characters, else en.
    locale: Literal["auto", "zh", "en"] = "auto"
    #: over this, the intent step falls back to keywords and the result is marked ``degraded``.
    parse_budget_ms: int = Field(500, ge=0, le=60_000)
    #: longest accepted utterance (characters); longer input is rejected with INPUT_INVALID.
    max_text_chars: int = Field(2000, ge=1, le=65_536)
    #: folders of intent packs (``*.yaml``); empty = the shipped ``config/intents``.
    intent_dirs: list[str] = []
    #: fixed out-of-scope threshold on the scorer's top score, replacing the rejection model that
    #: training fits by cross-validation (intents.train); null = the cross-validated rejection.
    oos_threshold: float | None = None
    #: the top two intents closer than this (score units) are reported ``ambiguous``; null = the
    #: margin chosen by cross-validation at training.
    ambiguity_margin: float | None = Field(None, ge=0.0, le=10.0)
    #: passes of the PA-II trainer over the examples.
    train_epochs: int = Field(10, ge=1, le=100)
    #: where trained models are cached by content hash; empty = ``<state_dir>/nlu-cache``.
    model_cache_dir: str = ""
    #: extra order/ticket id patterns, tried with the built-in ones.
    id_patterns: list[IdPatternSettings] = [
        # document numbers such as Q-2024-061 (quote), HT-2024-0012 (contract): letters, year, serial
        IdPatternSettings(type="doc_id", regex=r"(?<![a-z0-9_-])[a-z]{1,4}-\d{4}-\d{2,6}(?![a-z0-9_-])"),
        # a serial right after a document's kind, as file names carry it ("报价单_071", "报价单071",
        # "quote 071"): only with the kind before it, and never a year, date or clock (2024年, 10点)
        IdPatternSettings(type="doc_id", regex=DOC_SERIAL_REGEX, context=list(DOC_SERIAL_CONTEXT),
                          context_required=True),
    ]

    @field_validator("timezone")
    @classmethod
    def _zone_exists(cls, v: str) -> str:
        from zoneinfo import ZoneInfo

        try:
            ZoneInfo(v)
        except Exception:  # ZoneInfoNotFoundError is a KeyError; a validator reports ValueError
            raise ValueError(f"unknown IANA time zone {v!r}") from None
        return v
