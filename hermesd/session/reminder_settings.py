"""The ``reminders:`` config section: what a reminder without a clock time means."""

from __future__ import annotations

import re

from .. import lazyre
from ..section import Section
from ..typed import Field, field_validator

__all__ = ["RemindersSettings"]

_HH_MM = lazyre.compile(r"^([01][0-9]|2[0-3]):([0-5][0-9])$")


class RemindersSettings(Section):
    """Reminders set by the rules (the ``reminder`` tool).

    :param default_time: ``HH:MM`` (24-hour, local to the session's zone) at which a reminder
        for a day without a clock time is due ("提醒我周五交报告" → Friday 09:00); also the
        time picked inside a part of day that contains it ("后天上午" → 09:00). The reply says
        the time was not given and this one was used. Rules read it as
        ``{{session.reminders.default_time}}``.
    """

    default_time: str = Field("09:00", description="HH:MM, 24-hour clock")

    @field_validator("default_time", mode="before")
    @classmethod
    def _hh_mm(cls, v: object) -> object:
        # "9:00" and 9:00 written unquoted in YAML 1.1 (a sexagesimal int, 540) are read as meant
        if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 24 * 60:
            v = f"{v // 60:02d}:{v % 60:02d}"
        if isinstance(v, str) and re.fullmatch(r"\d:[0-5]\d", v.strip()):
            v = "0" + v.strip()
        if not isinstance(v, str) or not _HH_MM.match(v.strip()):
            raise ValueError("must be HH:MM on a 24-hour clock, e.g. '09:00'")
        return v.strip()
