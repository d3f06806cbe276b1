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
    """The memory subsystem (:class:`hermesd.subsystems.memory.MemoryService`): everything the session
    layer stores or reads goes through these methods — it never holds L1, L2, the memory core or the
    anchor graph (``tests/test_architecture.py`` checks the source for such attribute reads)."""

    settings: Any  #: ``.hidden_fields`` (role → dotted paths never shown to it), ``.decay``

    @property
    def version(self) -> int:
        """The newest memory version given out."""

    # -- anchors and memories
    async def resolve(self, mention: str, *, session_id: str = "", type: str = "person",
                      context: dict[str, Any] | None = None, fuzzy: bool = True) -> Any: ...

    def bind_mention(self, session_id: str, mention: str, anchor_id: str) -> None: ...

    async def search(self, uid: int | None, **kw: Any) -> list[dict[str, Any]]: ...

    async def get(self, uid: int, session_id: str, anchor: str) -> dict[str, Any] | None: ...

    def get_hot(self, uid: int, session_id: str, anchor: str) -> dict[str, Any] | None:
        """``{anchor, data, version}`` from L1 only, or None."""

    async def user_memories(self, uid: int, session_id: str) -> list[dict[str, Any]]: ...

    async def forget(self, anchor: str, uid: int | None) -> dict[str, int]: ...

    async def forget_user(self, uid: int, upto: tuple[int, int] | None = None) -> dict[str, int]: ...

    async def count_user(self, uid: int, action: str | None = None) -> dict[str, int]: ...

    async def forget_history(self, uid: int, action: str | None, max_id: int) -> int: ...

    async def preload(self, uid: int) -> dict[str, Any]: ...

    # -- a turn's commit: rows and staged captures written in one transaction
    def event_row(self, uid: int, session_id: str, **fields: Any) -> dict[str, Any]: ...

    def stage_fact(self, uid: int, source: str, anchor: str, data: dict[str, Any], *, detail: str,
                   trace_id: str = "") -> Any: ...

    def stage_capture(self, uid: int, source: str, turn: dict[str, Any], **kw: Any) -> Any: ...

    def flush_lines(self) -> int: ...

    async def commit_turn(self, **kw: Any) -> Any: ...

    # -- sessions, replies, pending tasks
    async def add_pending_task(self, uid: int, session_id: str, intent: str, slots: dict[str, Any]) -> int: ...

    async def pending_tasks(self, uid: int | None) -> list[dict[str, Any]]: ...

    async def set_task_status(self, task_id: int, status: str) -> Any: ...

    async def save_session(self, session: dict[str, Any], *, durable: bool = True) -> None: ...

    async def load_sessions(self) -> list[dict[str, Any]]: ...

    async def save_sessions(self, rows: list[dict[str, Any]]) -> None: ...

    async def load_session(self, session_id: str) -> dict[str, Any] | None: ...

    async def delete_session(self, session_id: str) -> int: ...

    async def load_reply(self, session_id: str, message_id: str) -> dict[str, Any] | None: ...

    # -- the turn log of live sessions
    async def turn_records(self, session_id: str) -> list[dict[str, Any]]: ...

    async def session_audit(self, session_id: str) -> list[dict[str, Any]]: ...

    async def delete_turn_records(self, session_id: str) -> int: ...

    # -- the event outbox and schedule
    async def outbox_add(self, uid: int, kind: str, data: dict[str, Any], created_ms: int) -> int: ...

    async def outbox_mark_delivered(self, ids: list[int], at_ms: int) -> None: ...

    async def outbox_waiting_uids(self) -> list[int]: ...

    async def outbox_pending(self, uid: int, limit: int, before_ms: int,
                             kinds: tuple[str, ...] = ()) -> tuple[list[dict[str, Any]], bool]: ...

    async def schedule_event(self, uid: int, kind: str, key: str, data: dict[str, Any], due_ms: int) -> int: ...

    async def unschedule_event(self, uid: int, key: str) -> int: ...

    async def waiting_schedule(self) -> list[tuple[int, int]]: ...

    async def take_scheduled(self, schedule_id: int) -> tuple[int, str, dict[str, Any]] | None:
        """``(uid, kind, data)`` of a due event, now fired; None when it was cancelled or fired."""


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
