"""The base of every config section, and where shipped data lives (no other hermesd imports).

Subsystems define their own section models on :class:`Section` (``hermesd/<x>/settings.py``);
:mod:`hermesd.config` composes them into ``HermesConfig``. Keeping the base here means
``config`` can import every subsystem's settings at the top without an import cycle.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

__all__ = ["SHARE_DIRS", "Section", "shipped_path"]

#: where shipped data lives: the checkout (``<repo>/config``, ``<repo>/tools``), else
#: what ``scripts/install`` copies to ``/usr/share/hermesd``.
SHARE_DIRS = (Path(__file__).resolve().parent.parent, Path("/usr/share/hermesd"))


def shipped_path(*parts: str) -> Path:
    """First existing ``<share dir>/<parts>`` (checkout first), else the checkout's path.

    E.g. ``shipped_path("config", "intents")`` or ``shipped_path("tools")``.
    """
    for base in SHARE_DIRS:
        candidate = base.joinpath(*parts)
        if candidate.exists():
            return candidate
    return SHARE_DIRS[0].joinpath(*parts)


class Section(BaseModel):
    """Base of every config section: unknown keys are errors, models are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)
