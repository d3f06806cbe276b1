"""The base of every config section, and where shipped data lives (no other hermesd imports).

Subsystems define their own section models on :class:`Section` (``hermesd/<x>/settings.py``);
:mod:`hermesd.config` composes them into ``HermesConfig``. Keeping the base here means
``config`` can import every subsystem's settings at the top without an import cycle.
"""

from __future__ import annotations

import os
from pathlib import Path

from .typed import BaseModel, ConfigDict

__all__ = ["SHARE_DIR_ENV", "SHARE_DIRS", "Section", "share_dirs", "shipped_path"]

_PACKAGE = Path(__file__).resolve().parent
#: the folder holding ``config/`` and ``tools/`` in a source checkout (``<repo>``), in a wheel
#: (package data under ``hermesd/_shipped``, see ``setup.py``) and on a device (``scripts/install``).
SHARE_DIRS = (_PACKAGE.parent, _PACKAGE / "_shipped", Path("/usr/share/hermesd"))
#: names one share folder and only it (``systemd/hermesd.service`` sets it to ``/usr/share/hermesd``).
SHARE_DIR_ENV = "HERMESD_SHARE_DIR"


def share_dirs() -> tuple[Path, ...]:
    """Where shipped data is looked for, in order.

    1. ``$HERMESD_SHARE_DIR`` alone when set (a device's unit names its installed tree;
       a staged ``--root`` install or a test names another);
    2. the source checkout, ``<repo>`` — only when ``<repo>/pyproject.toml`` exists, so a
       stray top-level ``tools`` or ``config`` in site-packages is never taken for ours;
    3. the wheel's package data, ``<site-packages>/hermesd/_shipped``;
    4. ``/usr/share/hermesd`` (``scripts/install``).
    """
    env = os.environ.get(SHARE_DIR_ENV, "").strip()
    if env:
        return (Path(env),)
    checkout, wheel, system = SHARE_DIRS
    return ((checkout,) if (checkout / "pyproject.toml").is_file() else ()) + (wheel, system)


def shipped_path(*parts: str) -> Path:
    """First existing ``<share dir>/<parts>`` in :func:`share_dirs` order, else the first one's path.

    E.g. ``shipped_path("config", "intents")`` or ``shipped_path("tools")``.
    """
    dirs = share_dirs()
    for base in dirs:
        candidate = base.joinpath(*parts)
        if candidate.exists():
            return candidate
    return dirs[0].joinpath(*parts)


class Section(BaseModel):
    """Base of every config section: unknown keys are errors, models are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)
