"""Session deadlines in one heap: no asyncio task or timer handle per session (pure).

The controller runs ONE task: sleep until :meth:`DeadlineHeap.next_deadline` (or until
woken because an earlier deadline was armed), then for each id in ``due(loop.time())``
take that session's lock and send ``timeout`` to its machine. The machine refuses a
timeout that is no longer due, so a turn that moved the session while the timer task
waited for the lock wins cleanly: a timeout and a turn never interleave.

A binary heap with lazy deletion (the scheme asyncio's own ``call_at`` uses; re-arming
leaves the old entry behind as garbage, compacted when garbage outweighs live entries)
rather than a hashed timing wheel (Varghese & Lauck, SOSP 1987): timeouts here span
200 ms to 30 min, and a heap keeps them exact with O(log n) arm and pop.
"""

from __future__ import annotations

import heapq

__all__ = ["DeadlineHeap"]

_Entry = tuple[float, int, str]


class DeadlineHeap:
    """At most one live deadline per session id.

    Deadlines are floats on the caller's clock (``loop.time()``, monotonic seconds).
    Memory is one tuple per live deadline plus bounded garbage (≤ live + 64 entries).
    """

    __slots__ = ("_heap", "_live", "_seq")

    def __init__(self) -> None:
        self._heap: list[_Entry] = []
        self._live: dict[str, _Entry] = {}
        self._seq = 0

    def __len__(self) -> int:
        return len(self._live)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._live

    def deadline_of(self, session_id: str) -> float | None:
        """The live deadline of ``session_id``, or ``None``."""
        entry = self._live.get(session_id)
        return None if entry is None else entry[0]

    def arm(self, session_id: str, deadline: float | None) -> None:
        """Set (or replace) the deadline of ``session_id``; ``None`` cancels it. O(log n)."""
        if deadline is None:
            self.cancel(session_id)
            return
        self._seq += 1
        entry = (deadline, self._seq, session_id)
        self._live[session_id] = entry
        heapq.heappush(self._heap, entry)
        if len(self._heap) > 2 * len(self._live) + 64:
            self._compact()

    def cancel(self, session_id: str) -> None:
        """Drop the deadline of ``session_id`` (no error when there is none). O(1)."""
        if self._live.pop(session_id, None) is not None and len(self._heap) > 2 * len(self._live) + 64:
            self._compact()

    def next_deadline(self) -> float | None:
        """The earliest live deadline, or ``None`` when nothing is armed."""
        heap, live = self._heap, self._live
        while heap and live.get(heap[0][2]) is not heap[0]:
            heapq.heappop(heap)
        return heap[0][0] if heap else None

    def due(self, now: float) -> list[str]:
        """Remove and return the ids whose deadline is ``<= now``, earliest first."""
        heap, live, out = self._heap, self._live, []
        while heap and heap[0][0] <= now:
            entry = heapq.heappop(heap)
            if live.get(entry[2]) is entry:
                del live[entry[2]]
                out.append(entry[2])
        return out

    def _compact(self) -> None:
        self._heap = list(self._live.values())
        heapq.heapify(self._heap)
