"""The contract every subsystem (tools, memory, sessions, …) meets to plug into the daemon.

``daemon.py`` is the only place that wires subsystems: it starts them in order
after the config is loaded and before the socket listens (so ``READY=1`` means
every store is open), stops them in reverse order in a ``finally``, asks each
for its health in ``admin.status``, has it add its metric families to the
daemon's one registry (``hermesd/metrics.py``) once it has started, and adds its
methods to the server's method table.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from ..config import HermesConfig
    from ..metrics import Registry
    from ..protocol import Method

__all__ = ["DaemonContext", "Subsystem", "section"]


def section(config: Any, name: str, default: Callable[[], Any] | None = None) -> Any:
    """The ``name`` section of the daemon's validated config (``config.nlu``, ``config.tools`` …) —
    the one way a shell reads its settings, at start (``ctx.config``) and at reload (the new config).

    :param default: called when the config has no such section (a shell started alone by a script
        or a test, with a partial config); without it, ``None`` is returned (at reload: keep what
        runs).
    """
    value = getattr(config, name, None)
    if value is None and default is not None:
        return default()
    return value


@dataclass(slots=True)
class DaemonContext:
    """What the daemon hands each subsystem at start.

    :param config: the whole validated config (read your own section).
    :param state_dir: writable folder for this instance (L2 file, archive, …).
    :param subsystems: name → subsystem already started, for dependencies
        (e.g. sessions use ``tools`` and ``memory``).
    """

    config: "HermesConfig"
    state_dir: Path
    subsystems: dict[str, "Subsystem"]


class Subsystem(abc.ABC):
    """A part of the daemon with a life cycle, methods, health and metrics."""

    #: short name, e.g. ``tools``; key in ``admin.status``'s ``subsystems``.
    name: str = ""

    @abc.abstractmethod
    async def start(self, ctx: DaemonContext) -> None:
        """Open stores, fork workers; raise to abort start-up (the daemon exits non-zero)."""

    def ready(self) -> None:
        """Called once, right after the daemon sent READY: start here what may come up in the
        background (the tool pool and its self-tests), off the start-up path. Must not block."""

    @abc.abstractmethod
    async def stop(self) -> None:
        """Flush and close; must not raise, and must finish within a few seconds."""

    def health(self) -> dict[str, Any]:
        """``{"status": "ok" | "starting" | "degraded" | "down", ...details}`` for ``admin.status``
        (``starting``: serving, with parts still coming up in the background)."""
        return {"status": "ok"}

    def memory_roots(self) -> dict[str, list[Any]]:
        """Part name (``NLU model``, ``L1``, ``rule engine`` …) → the objects that hold its memory,
        for ``admin.memory`` (:mod:`.footprint` walks them); ``{}`` when nothing is worth naming."""
        return {}

    def methods(self) -> list["Method"]:
        """JSON-RPC methods this subsystem serves."""
        return []

    def register_metrics(self, registry: "Registry") -> None:
        """Add this subsystem's metric families to the daemon's registry (called once, after
        :meth:`start`): ``registry.counter(...)`` / ``.gauge(...)`` / ``.histogram(...)``, or
        ``registry.add(family)`` for one built earlier. Never write exposition text by hand."""

    def metrics_text(self) -> str:
        """This subsystem's families alone, rendered by a registry of their own (tests, diagnosis)."""
        from ..metrics import Registry

        registry = Registry()
        self.register_metrics(registry)
        return registry.render()

    def connection_closed(self, connection_id: int) -> None:
        """A client connection went away (drop its subscriptions); must not block."""

    async def reload(self, config: "HermesConfig") -> None:
        """Apply a new config on SIGHUP / ``admin.reload``; keep the old one if it is unusable."""
