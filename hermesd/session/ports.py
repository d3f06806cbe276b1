"""What the turn pipeline needs from the other subsystems (``typing.Protocol`` ports).

The controller and :mod:`.grounding` are typed against these, not against the
concrete services, so an engine test can hand them small in-process stand-ins and
the import graph stays one-way (session → ports, never session → memory).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping, Protocol, Sequence

__all__ = ["MemoryPort", "NluPort", "RuleEnginePort", "ToolsPort"]


class NluPort(Protocol):
    """The NLU subsystem (:class:`hermesd.subsystems.nlu.NluService`)."""

    settings: Any  #: ``.timezone`` (IANA name) is read
    engine: Any  #: ``.specs`` (intent specs with ``name`` and ``slots``), ``.gazetteers``

    def parse(self, text: str, ref: datetime, tz: str | None, locale: str | None,
              budget_ms: float | None = None) -> Any:
        """A :class:`hermesd.nlu.parser.ParseResult` (past ``budget_ms`` the keyword path decides)."""


class MemoryPort(Protocol):
    """The memory subsystem (:class:`hermesd.subsystems.memory.MemoryService`)."""

    graph: Any  #: ``.bind(session_id, mention, anchor_id)``
    core: Any  #: ``.event_row(...)``, ``.stage_capture(...)``, ``.l1``, ``.forget(...)``
    l2: Any  #: ``.aread`` / ``.awrite`` of turn-log functions
    settings: Any  #: ``.hidden_fields`` (role → dotted paths never shown to it)

    async def resolve(self, mention: str, *, session_id: str = "", type: str = "person",
                      context: dict[str, Any] | None = None, fuzzy: bool = True) -> Any: ...

    async def search(self, uid: int | None, **kw: Any) -> list[dict[str, Any]]: ...

    async def get(self, uid: int, session_id: str, anchor: str) -> dict[str, Any] | None: ...

    async def pending_tasks(self, uid: int | None) -> list[dict[str, Any]]: ...

    async def preload(self, uid: int) -> dict[str, Any]: ...

    async def add_pending_task(self, uid: int, session_id: str, intent: str, slots: dict[str, Any]) -> int: ...

    async def set_task_status(self, task_id: int, status: str) -> None: ...

    async def save_session(self, session: dict[str, Any], *, durable: bool = True) -> None: ...

    async def load_sessions(self) -> list[dict[str, Any]]: ...

    async def delete_session(self, session_id: str) -> int: ...

    async def load_reply(self, session_id: str, message_id: str) -> dict[str, Any] | None: ...

    async def commit_turn(self, **kw: Any) -> None: ...


class ToolsPort(Protocol):
    """The tools subsystem (:class:`hermesd.subsystems.tools.ToolsService`)."""

    registry: Any  #: ``.get(name)`` → a tool with ``.descriptor`` (``confirm``, ``idempotent``)

    async def call(self, name: str, params: dict[str, Any], *, role: str, session_id: str, trace_id: str,
                   uid: int) -> dict[str, Any]: ...


class RuleEnginePort(Protocol):
    """A loaded rule set (:class:`hermesd.rules.engine.RuleEngine`)."""

    packs: Sequence[Any]

    def match(self, intent: str | None, ctx: Mapping[str, Any]) -> Any: ...

    def rules_for(self, intent: str | None) -> Sequence[Any]: ...

    def fallback(self, intent: str | None) -> Any: ...
