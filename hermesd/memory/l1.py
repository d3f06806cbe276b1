"""L1: the in-process hot tier — an LRU of memory slots bounded by entries, bytes and sessions, with TTL.

Keys are ``(uid, session_id, anchor)``. When many sessions exist, L1 holds the slots of only the
``max_sessions`` most recently used ones: past that bound the least recently used slots go (their
rows stay in L2, where a read finds them) until one session fewer is held, so the idle sessions of
a busy device live in L2 alone. TTL runs on the monotonic clock, so a
wall-clock jump (NTP step, RTC reset on a device) neither expires nor revives a
slot. The boundary is exact: a slot put at ``t`` with ``ttl_s=60`` is a hit at
``t+59.999`` and a miss at ``t+60``. A get that races an expiry or an eviction
returns the value or a miss, never raises.

Pure data structure: no I/O; the clock is passed in.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Iterator

__all__ = ["L1Cache", "Key", "Slot", "slot_size"]

Key = tuple[int, str, str]

#: bytes charged per slot besides its data and key strings: the Slot object with its
#: floats and ints, the key tuple and the OrderedDict entry (CPython 3.11, 64-bit;
#: checked against tracemalloc in tests/memory/test_memory_l1.py).
SLOT_OVERHEAD_BYTES = 320


@dataclass(slots=True)
class Slot:
    """One memory slot.

    :param key: ``(uid, session_id, anchor)``.
    :param data: JSON-serialisable mapping (the reference design's ``data``).
    :param version: copy-on-write version; a put with a lower version is ignored.
    :param memory_class: ``scratch``, ``project`` or ``person``.
    :param created_ms: wall-clock creation time in ms (for display and L2 only).
    :param expires_at: monotonic seconds after which the slot is a miss.
    :param last_access: monotonic seconds of the last get or put.
    :param access_count: gets served from L1.
    :param size: charged bytes (:func:`slot_size`).
    :param window: Bloom generation in which the slot was last recorded (see ``MemoryCore``).
    """

    key: Key
    data: dict[str, Any]
    version: int
    memory_class: str
    created_ms: int
    expires_at: float
    last_access: float
    access_count: int
    size: int
    window: int = -1


def _deep_size(obj: Any) -> int:
    """In-memory bytes of a JSON-shaped value (dict/list/str/number/bool/None), shared
    singletons (None, True, small ints) counted as 0."""
    if isinstance(obj, str):
        return sys.getsizeof(obj)
    if isinstance(obj, dict):
        return sys.getsizeof(obj) + sum(_deep_size(k) + _deep_size(v) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return sys.getsizeof(obj) + sum(_deep_size(v) for v in obj)
    if obj is None or isinstance(obj, bool) or (isinstance(obj, int) and -5 <= obj <= 256):
        return 0
    return sys.getsizeof(obj)


def slot_size(key: Key, data: dict[str, Any]) -> int:
    """Bytes charged for a slot: the data's in-memory size + key strings + fixed overhead.

    Charging real object sizes (not JSON length) keeps ``max_bytes`` an honest bound
    on the memory L1 holds (string keys shared between slots are counted each time).
    """
    return _deep_size(data) + sys.getsizeof(key[1]) + sys.getsizeof(key[2]) + SLOT_OVERHEAD_BYTES


class L1Cache:
    """LRU of :class:`Slot` bounded by ``max_entries``, ``max_bytes`` and ``max_sessions``.

    :param max_bytes: budget of the sum of :attr:`Slot.size`.
    :param max_entries: budget of the slot count.
    :param ttl_s: default time to live, seconds (monotonic).
    :param clock: monotonic seconds; injected by tests.
    :param max_sessions: budget of distinct session ids with a slot in L1; past it the least
        recently used slots are evicted until one session fewer is held. ``None`` = no bound.
        (The per-session count shares the slot keys' strings: ~50 B a session, within the
        slots' charge, see tests/memory/test_memory_l1.py.)

    Counters (``hits``, ``misses``, ``expirations``, ``evictions``) feed
    ``hermes_memory_l1_hit_ratio``; promotions are counted by the caller that promotes.
    A slot larger than ``max_bytes`` is refused (``put`` returns ``None``).
    Inserts and removals hold a lock, so the byte count stays exact if a thread
    shares the cache (the event loop is the usual only user); a hit takes no lock.
    """

    def __init__(self, max_bytes: int, max_entries: int, ttl_s: float,
                 clock: Callable[[], float] = time.monotonic, max_sessions: int | None = None) -> None:
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self.max_sessions = max_sessions
        self.ttl_s = ttl_s
        self.clock = clock
        self._slots: OrderedDict[Key, Slot] = OrderedDict()
        #: session id → how many of its slots L1 holds (the key's own string: no copy)
        self._sessions: dict[str, int] = {}
        self.bytes = 0
        self.hits = self.misses = self.expirations = self.evictions = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._slots)

    @property
    def sessions(self) -> int:
        """Distinct session ids with a slot in L1."""
        return len(self._sessions)

    def __contains__(self, key: Key) -> bool:
        slot = self._slots.get(key)
        return slot is not None and self.clock() < slot.expires_at

    def get(self, key: Key) -> Slot | None:
        """The live slot for ``key`` (marked most recently used), or ``None``."""
        slot = self._slots.get(key)
        if slot is None:
            self.misses += 1
            return None
        now = self.clock()
        if now >= slot.expires_at:
            with self._lock:
                self._drop(key, slot)
            self.expirations += 1
            self.misses += 1
            return None
        try:
            # lock-free hit path: each OrderedDict call is atomic under the GIL
            self._slots.move_to_end(key)
        except KeyError:  # evicted or expired by another thread since the lookup: still a valid read
            pass
        slot.last_access = now
        slot.access_count += 1
        self.hits += 1
        return slot

    def peek(self, key: Key) -> Slot | None:
        """Like :meth:`get` without touching recency or counters."""
        slot = self._slots.get(key)
        if slot is None or self.clock() >= slot.expires_at:
            return None
        return slot

    def put(self, key: Key, data: dict[str, Any], *, version: int, memory_class: str = "scratch",
            created_ms: int = 0, ttl_s: float | None = None, access_count: int = 0) -> Slot | None:
        """Insert or replace a slot; returns it, or ``None`` when ignored.

        Ignored when an existing live slot has a higher ``version`` (L1 is always
        the newest copy) or the slot alone exceeds ``max_bytes``. Evicts least
        recently used slots until every bound holds.
        """
        size = slot_size(key, data)
        if size > self.max_bytes:
            return None
        with self._lock:
            now = self.clock()
            old = self._slots.get(key)
            if old is not None:
                if old.version > version and now < old.expires_at:
                    return None
                self._drop(key, old)
            slot = Slot(key, data, version, memory_class, created_ms or (old.created_ms if old else 0),
                        now + (self.ttl_s if ttl_s is None else ttl_s), now, access_count, size)
            self._slots[key] = slot
            self.bytes += size
            self._count(key, 1)
            cap = self.max_sessions
            while self._slots and (self.bytes > self.max_bytes or len(self._slots) > self.max_entries
                                   or (cap is not None and len(self._sessions) > cap)):
                # popitem is one atomic call, safe against a concurrent lock-free move_to_end
                lru_key, lru = self._slots.popitem(last=False)
                self.bytes -= lru.size
                self._count(lru_key, -1)
                self.evictions += 1
            return slot

    def pop(self, key: Key) -> Slot | None:
        """Remove and return the slot (live or not)."""
        with self._lock:
            slot = self._slots.get(key)
            if slot is not None:
                self._drop(key, slot)
            return slot

    def items(self) -> Iterator[tuple[Key, Slot]]:
        """Snapshot of (key, slot), least recently used first (expired ones included)."""
        with self._lock:
            return iter(list(self._slots.items()))

    def hit_ratio(self) -> float:
        """hits / (hits + misses); 0.0 before the first get."""
        total = self.hits + self.misses
        return self.hits / total if total else 0.0

    def _drop(self, key: Key, slot: Slot) -> None:
        # only if ``slot`` is still the one stored: a put may have replaced it meanwhile
        if self._slots.get(key) is slot:
            del self._slots[key]
            self.bytes -= slot.size
            self._count(key, -1)

    def _count(self, key: Key, delta: int) -> None:
        """One slot of ``key``'s session more (``delta`` 1) or fewer (−1)."""
        sessions, session = self._sessions, key[1]
        n = sessions.get(session, 0) + delta
        if n > 0:
            sessions[session] = n
        else:
            del sessions[session]
