"""The ``reminders:`` config section: what a reminder without a clock time means."""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from ..section import Section

__all__ = ["DEFAULT_PART_TIMES", "PARTS", "RemindersSettings"]

#: the parts of day the NLU names (hermesd.nlu.temporal_atoms.PART_NAMES; kept in step by a test)
PARTS = ("early", "morning", "noon", "afternoon", "evening", "night", "daytime", "midnight")
DEFAULT_PART_TIMES = {"noon": "12:00", "afternoon": "15:00", "evening": "18:00", "night": "20:00"}

_HH_MM = re.compile(r"^([01][0-9]|2[0-3]):([0-5][0-9])$")


class RemindersSettings(Section):
    """Reminders set by the rules (the ``reminder`` tool).

    :param default_time: ``HH:MM`` (24-hour, local to the session's zone) at which a reminder
        for a day without a clock time is due ("提醒我周五交报告" → Friday 09:00); also the
        time picked inside a part of day that contains it ("后天上午" → 09:00). The reply says
        the time was not given and this one was used. Rules read it as
        ``{{session.reminders.default_time}}``.
    :param part_of_day: part of day → ``HH:MM``: when a reminder on a part of day without a clock
        time is due ("下午提醒我取快递" → 15:00, "remind me tonight" → 20:00). Parts are the
        NLU's (``TimeExpr.part``, :data:`hermesd.nlu.temporal_atoms.PART_NAMES`); a part not listed
        (``morning`` by default) is due at ``default_time`` when that falls inside it, else at its
        start. The reply says no time was given. Rules read :meth:`part_times` as
        ``{{session.reminders.part_times}}``.

    The shipped points are the middle of the working part (上午 09:00, 下午 15:00) and the usual
    hour of the meal or of the evening at home (中午 12:00, 傍晚 18:00, 晚上 20:00).
    """

    default_time: str = Field("09:00", description="HH:MM, 24-hour clock")
    part_of_day: dict[str, str] = Field(
        default_factory=lambda: dict(DEFAULT_PART_TIMES),
        description="part of day (morning, noon, afternoon, evening, night, early, daytime, midnight) -> HH:MM")

    @field_validator("part_of_day", mode="before")
    @classmethod
    def _parts(cls, v: object) -> object:
        if not isinstance(v, dict):
            raise ValueError("must be a mapping of part of day to HH:MM, e.g. {afternoon: '15:00'}")
        out = dict(DEFAULT_PART_TIMES)  # a part not set keeps its shipped point
        for k, t in v.items():
            if k not in PARTS:
                raise ValueError(f"unknown part of day {k!r}; known: {', '.join(PARTS)}")
            out[k] = cls._hh_mm(t)
        return out

    def part_times(self) -> dict[str, str]:
        """Part of day → ``HH:MM``, ``morning`` at ``default_time`` unless set."""
        return {"morning": self.default_time, **self.part_of_day}

    @field_validator("default_time", mode="before")
    @classmethod
    def _default_time(cls, v: object) -> object:
        return cls._hh_mm(v)

    @staticmethod
    def _hh_mm(v: object) -> str:
        # "9:00" and 9:00 written unquoted in YAML 1.1 (a sexagesimal int, 540) are read as meant
        if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 24 * 60:
            v = f"{v // 60:02d}:{v % 60:02d}"
        if isinstance(v, str) and re.fullmatch(r"\d:[0-5]\d", v.strip()):
            v = "0" + v.strip()
        if not isinstance(v, str) or not _HH_MM.match(v.strip()):
            raise ValueError("must be HH:MM on a 24-hour clock, e.g. '09:00'")
        return v.strip()
