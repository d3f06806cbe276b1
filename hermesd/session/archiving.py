"""An ended session's turn records go to the L3 archive (DESIGN.md, "Memory": L3).

When a session is closed, expires or is evicted by the per-user cap, its raw turn records
(the turn log, kept by memory: :mod:`hermesd.memory.turnlog`) and the audit lines it caused are
written to one archive volume, and the records are deleted from L2 once the volume is written
and verified.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from .ports import MemoryPort

if TYPE_CHECKING:
    from .record import Session

__all__ = ["archive_session"]

log = logging.getLogger(__name__)


async def archive_session(memory: MemoryPort, archive: Any, s: "Session", reason: str, closed_ms: int) -> str | None:
    """Move an ended session's turn records and audit lines to L3, then delete them from L2.

    :param memory: the memory port (turn log). :param archive: the archive subsystem
        (``await archive_session(session_id, records, audit) -> path``), or None: the records are
        only deleted. :param closed_ms: when it ended, epoch ms.
    :return: the volume's path, or None (no archive, no turns, or the archive failed — the records
        then stay in L2 and go at the next close or restart: nothing acknowledged is lost).
    """
    turns = await memory.turn_records(s.session_id)
    if archive is None or not turns:
        await memory.delete_turn_records(s.session_id)
        return None
    audit = await memory.session_audit(s.session_id)
    header = {"kind": "session", "session_id": s.session_id, "uid": s.uid, "role": s.role,
              "created_ms": s.created_ms, "closed_ms": closed_ms, "reason": reason, "turns": s.turns}
    try:
        path = await archive.archive_session(s.session_id, [header, *turns], audit)
    except Exception as exc:  # kept in L2; retried at the next close/restart
        log.error("session.archive_failed", extra={"kv": {"session": s.session_id, "error": str(exc)}})
        return None
    await memory.delete_turn_records(s.session_id)
    return str(path)
