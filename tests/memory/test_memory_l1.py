"""L1: TTL on the monotonic clock with an exact boundary, byte/entry bounds, versions, races."""

from __future__ import annotations

import threading
import time

from hermesd.memory.l1 import L1Cache, slot_size

from memory_helpers import FakeClock

KEY = (1000, "s1", "person:sales/zhang")


def test_ttl_boundary_is_exact(clock: FakeClock) -> None:
    l1 = L1Cache(1 << 20, 100, ttl_s=60.0, clock=clock)
    l1.put(KEY, {"phone": "1"}, version=1)
    clock.advance(59.999)
    assert l1.get(KEY) is not None
    clock.advance(0.001)  # exactly t + 60 s
    assert l1.get(KEY) is None
    assert l1.expirations == 1 and l1.hits == 1 and l1.misses == 1


def test_per_slot_ttl_overrides_default(clock: FakeClock) -> None:
    l1 = L1Cache(1 << 20, 100, ttl_s=60.0, clock=clock)
    l1.put(KEY, {"a": 1}, version=1, ttl_s=5.0)
    clock.advance(4.999)
    assert KEY in l1
    clock.advance(0.001)
    assert KEY not in l1


def test_wall_clock_jump_neither_expires_nor_revives(monkeypatch) -> None:
    # the default clock is time.monotonic; move time.time far both ways
    l1 = L1Cache(1 << 20, 100, ttl_s=60.0)
    l1.put(KEY, {"a": 1}, version=1)
    short = (1, "s", "short")
    l1.put(short, {"b": 2}, version=1, ttl_s=0.02)
    real_time = time.time
    monkeypatch.setattr(time, "time", lambda: real_time() + 10 * 86400)
    assert l1.get(KEY) is not None  # a jump forward does not expire
    time.sleep(0.03)
    monkeypatch.setattr(time, "time", lambda: real_time() - 10 * 86400)
    assert l1.get(short) is None  # a jump back does not revive
    assert l1.get(KEY) is not None


def test_entry_bound_evicts_least_recently_used(clock: FakeClock) -> None:
    l1 = L1Cache(1 << 20, 3, ttl_s=60.0, clock=clock)
    for i in range(3):
        l1.put((1, "s", f"a{i}"), {"i": i}, version=1)
    l1.get((1, "s", "a0"))  # a0 becomes most recent; a1 is now the LRU
    l1.put((1, "s", "a3"), {"i": 3}, version=1)
    assert (1, "s", "a1") not in l1
    assert all((1, "s", f"a{i}") in l1 for i in (0, 2, 3))
    assert l1.evictions == 1


def test_byte_bound_holds(clock: FakeClock) -> None:
    one = slot_size((1, "s", "a00"), {"v": "x" * 1000})
    l1 = L1Cache(one * 5, 1000, ttl_s=60.0, clock=clock)
    for i in range(20):
        l1.put((1, "s", f"a{i:02d}"), {"v": "x" * 1000}, version=1)
        assert l1.bytes <= l1.max_bytes
    assert len(l1) == 5 and l1.evictions == 15
    assert l1.put((1, "s", "huge"), {"v": "x" * one * 6}, version=1) is None


def test_session_bound_keeps_the_most_recently_used_sessions(clock: FakeClock) -> None:
    l1 = L1Cache(1 << 20, 1000, ttl_s=60.0, clock=clock, max_sessions=3)
    for sid in ("s0", "s1", "s2"):
        for a in ("a", "b"):
            l1.put((1, sid, a), {"v": sid + a}, version=1)
    l1.get((1, "s0", "a"))  # s0 is used again; s1's slots are now the least recently used
    l1.put((1, "s3", "a"), {"v": "s3a"}, version=1)
    assert l1.sessions == 3
    assert (1, "s1", "a") not in l1 and (1, "s1", "b") not in l1
    # only the slots older than s1's last one went: s0's unused slot was older and went too
    assert (1, "s0", "b") not in l1 and (1, "s0", "a") in l1
    assert all((1, sid, a) in l1 for sid in ("s2",) for a in ("a", "b")) and (1, "s3", "a") in l1
    assert l1.bytes == sum(slot.size for _, slot in l1.items())
    l1.pop((1, "s3", "a"))
    l1.put((1, "s0", "c"), {"v": "s0c"}, version=1)  # a known session takes no place of another
    assert l1.sessions == 2 and (1, "s2", "a") in l1


def test_without_a_session_bound_sessions_are_bounded_by_bytes_only(clock: FakeClock) -> None:
    l1 = L1Cache(1 << 20, 1000, ttl_s=60.0, clock=clock)
    for i in range(50):
        l1.put((1, f"s{i}", "a"), {"i": i}, version=1)
    assert l1.sessions == 50 and len(l1) == 50 and l1.evictions == 0


def test_older_version_never_replaces_newer(clock: FakeClock) -> None:
    l1 = L1Cache(1 << 20, 100, ttl_s=60.0, clock=clock)
    l1.put(KEY, {"phone": "new"}, version=5)
    assert l1.put(KEY, {"phone": "old"}, version=4) is None
    assert l1.get(KEY).data == {"phone": "new"}
    l1.put(KEY, {"phone": "newer"}, version=6)
    assert l1.get(KEY).data == {"phone": "newer"}
    assert l1.bytes == slot_size(KEY, {"phone": "newer"})


def test_get_racing_expiry_and_eviction_never_raises() -> None:
    l1 = L1Cache(64 * 1024, 50, ttl_s=0.0005)
    stop = threading.Event()
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            i = 0
            while not stop.is_set():
                l1.put((1, "s", f"k{i % 80}"), {"i": i}, version=i)
                i += 1
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    def reader() -> None:
        try:
            while not stop.is_set():
                for j in range(80):
                    slot = l1.get((1, "s", f"k{j}"))
                    assert slot is None or slot.key == (1, "s", f"k{j}")
        except BaseException as exc:  # noqa: BLE001 — the assertion is "nothing escapes"
            errors.append(exc)

    threads = [threading.Thread(target=writer), threading.Thread(target=reader), threading.Thread(target=reader)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    stop.set()
    for t in threads:
        t.join()
    assert errors == []
    assert l1.hits + l1.misses > 0
    assert l1.bytes == sum(slot.size for _, slot in l1.items())  # accounting survived the races


def test_charged_bytes_bound_real_memory() -> None:
    """max_bytes is an honest bound: the charge per slot is at least what tracemalloc sees."""
    import tracemalloc

    shapes = [
        lambda i: {"phone": f"+86-139-{i:08d}", "dept": "sales"},
        lambda i: {"summary": f"用户1000在2024-06-12 10:00执行send操作，结果为sent 报价单 Q-{i}",
                   "entities": {"person": ["张工"], "doc_type": ["报价单"]}, "actions": ["send"]},
        lambda i: {"value": i * 1000, "ok": True, "ratio": i / 7},
    ]
    for shape in shapes:
        l1 = L1Cache(1 << 30, 1 << 20, ttl_s=60.0)
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for i in range(5000):
            l1.put((1000, f"session-{i:05d}", f"person:sales/zhang-{i}"), shape(i), version=1)
        real = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        assert real <= l1.bytes <= real * 1.5, (real, l1.bytes)
