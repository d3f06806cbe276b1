#!/usr/bin/env python3
"""Session timers: one DeadlineHeap vs a timer handle per session vs a task per session, same run.

For N sessions (default 10,000) each way: memory held by the timers (tracemalloc, bytes
per session), time to arm all N, time to re-arm all N (what a turn does to its session's
timer), and time to fire all N once due. Baselines: ``loop.call_at`` per session
(cancel + call_at on re-arm), and one asyncio task per session sleeping until its
deadline (cancel + new task on re-arm) — the shape the issue rules out.

Usage: .venv/bin/python scripts/bench/timers.py [--sessions N]
Benchmarks are not tests: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hermesd.session.timers import DeadlineHeap


def _fill_heap(ids: list[str], now: float) -> DeadlineHeap:
    heap = DeadlineHeap()
    for i, sid in enumerate(ids):
        heap.arm(sid, now + 30 + i * 1e-6)
    return heap


def _measure(build: Callable[[], Any], cleanup: Callable[[Any], Any] | None = None) -> float:
    """Bytes still allocated by ``build()``'s result (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    held = build()
    mem = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    if cleanup is not None:
        cleanup(held)
    return float(mem)


async def heap_way(ids: list[str]) -> dict[str, float]:
    loop = asyncio.get_running_loop()
    now = loop.time()
    mem = _measure(lambda: _fill_heap(ids, now))
    t0 = time.perf_counter()
    heap = _fill_heap(ids, now)
    arm = time.perf_counter() - t0
    t0 = time.perf_counter()
    for i, sid in enumerate(ids):
        heap.arm(sid, now + 0.05 + i * 1e-7)
    rearm = time.perf_counter() - t0
    fired = 0
    while heap:
        nxt = heap.next_deadline()
        await asyncio.sleep(max(0.0, nxt - loop.time()))
        fired += len(heap.due(loop.time()))
    assert fired == len(ids)
    return {"mem": mem, "arm": arm, "rearm": rearm}


async def handle_way(ids: list[str]) -> dict[str, float]:
    loop = asyncio.get_running_loop()
    done = asyncio.Event()
    fired = 0

    def on_timeout(sid: str) -> None:
        nonlocal fired
        fired += 1
        if fired == len(ids):
            done.set()

    now = loop.time()

    def fill() -> dict[str, asyncio.TimerHandle]:
        return {sid: loop.call_at(now + 30 + i * 1e-6, on_timeout, sid) for i, sid in enumerate(ids)}

    mem = _measure(fill, cleanup=lambda hs: [h.cancel() for h in hs.values()])
    t0 = time.perf_counter()
    handles = fill()
    arm = time.perf_counter() - t0
    t0 = time.perf_counter()
    for i, sid in enumerate(ids):
        handles[sid].cancel()
        handles[sid] = loop.call_at(now + 0.05 + i * 1e-7, on_timeout, sid)
    rearm = time.perf_counter() - t0
    await done.wait()
    return {"mem": mem, "arm": arm, "rearm": rearm}


async def task_way(ids: list[str]) -> dict[str, float]:
    loop = asyncio.get_running_loop()
    fired = 0

    async def sleeper(deadline: float) -> None:
        nonlocal fired
        await asyncio.sleep(deadline - loop.time())
        fired += 1

    now = loop.time()
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    probe = {sid: loop.create_task(sleeper(now + 30 + i * 1e-6)) for i, sid in enumerate(ids)}
    await asyncio.sleep(0)  # let each task start and park in its sleep
    mem = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    for t in probe.values():
        t.cancel()
    await asyncio.gather(*probe.values(), return_exceptions=True)
    del probe
    t0 = time.perf_counter()
    tasks = {sid: loop.create_task(sleeper(now + 30 + i * 1e-6)) for i, sid in enumerate(ids)}
    await asyncio.sleep(0)
    arm = time.perf_counter() - t0
    t0 = time.perf_counter()
    for i, sid in enumerate(ids):
        tasks[sid].cancel()
        tasks[sid] = loop.create_task(sleeper(now + 0.05 + i * 1e-7))
    await asyncio.sleep(0)
    rearm = time.perf_counter() - t0
    await asyncio.gather(*tasks.values())
    assert fired == len(ids)
    return {"mem": mem, "arm": arm, "rearm": rearm}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=10_000)
    args = ap.parse_args()
    ids = [f"s{i:06d}" for i in range(args.sessions)]
    results = {}
    for name, fn in (("DeadlineHeap", heap_way), ("call_at each", handle_way), ("task each", task_way)):
        results[name] = asyncio.run(fn(ids))
    n = len(ids)
    h = results["DeadlineHeap"]
    print(f"{n} sessions, all fired   bytes/session   arm all ms   re-arm all ms")
    for name, r in results.items():
        print(f"{name:<23} {r['mem'] / n:>14.0f} {r['arm'] * 1000:>12.1f} {r['rearm'] * 1000:>15.1f}")
    for name in ("call_at each", "task each"):
        r = results[name]
        print(f"{name} / DeadlineHeap: memory {r['mem'] / h['mem']:.1f}x, arm {r['arm'] / h['arm']:.1f}x, "
              f"re-arm {r['rearm'] / h['rearm']:.1f}x")


if __name__ == "__main__":
    main()
