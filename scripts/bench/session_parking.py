#!/usr/bin/env python3
"""Benchmark: idle sessions parked in their L2 row (``session.max_live_sessions``), issue 15.

1. A turn on a parked session (read back from L2 first) against the next turn on the same
   session, now in memory — interleaved pair by pair on one real daemon, so both see the same load.
   The text is "cancel" (rule-routed, no tool), as in ``scripts/bench/session.py``.
2. tracemalloc, in this process: what 10,000 freshly opened sessions hold as :class:`Session`
   objects (as ``session.open`` builds them) against 10,000 :class:`Parked` stubs, by type.

Benchmarks are not tests. Usage: .venv/bin/python scripts/bench/session_parking.py [--n 200]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hermesd.client import Client  # noqa: E402
from _sample import pct  # noqa: E402 - sibling modules of this script
from session import _start as _start_daemon  # noqa: E402

AT = "2024-06-19T10:00:00+08:00"


def latency(n: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="hdbp-", dir="/tmp"))
    os.chmod(root, 0o711)
    proc, sock = _start_daemon(root, HERMESD_SESSION__MAX_LIVE_SESSIONS="1", HERMESD_SESSION__POLL_INTERVAL_MS="50")
    try:
        with Client(sock, timeout_s=60) as c:
            def turn(sid: str) -> float:
                t0 = time.perf_counter()
                c.call("session.turn", {"session_id": sid, "text": "cancel", "reference_time": AT})
                return (time.perf_counter() - t0) * 1000

            sids = [c.call("session.open", {"locale": "en"})["session_id"] for _ in range(n + 1)]
            for sid in sids:
                turn(sid)
            while c.call("admin.status")["subsystems"]["session"]["sessions_parked"] < n:
                time.sleep(0.05)
            parked, live = [], []
            for sid in sids[:n]:  # each was parked; after its turn it is the newest, so it stays live
                parked.append(turn(sid))
                live.append(turn(sid))
            held = c.call("admin.status")["subsystems"]["session"]
        print(f"[1] turn 'cancel' (rule, no tool), {n} pairs, interleaved")
        print(f"  {'case':<34} {'p50 ms':>8} {'p90 ms':>8}")
        print(f"  {'in memory (baseline)':<34} {pct(live, 0.5):8.3f} {pct(live, 0.9):8.3f}")
        print(f"  {'parked: read back from L2 first':<34} {pct(parked, 0.5):8.3f} {pct(parked, 0.9):8.3f}"
              f"   (+{pct(parked, 0.5) - pct(live, 0.5):.3f} ms p50)")
        print(f"  at the end: {held['sessions']} open, {held['sessions_parked']} parked")
    finally:
        proc.terminate()
        proc.wait(15)
        shutil.rmtree(root, ignore_errors=True)


def by_type(n: int) -> None:
    from hermesd.session.machine import Limits, new_machine
    from hermesd.session.parking import Parked
    from hermesd.session.policy import Policy
    from hermesd.session.record import Session, new_session_id
    from hermesd.session.settings import SessionSettings

    settings = SessionSettings()
    limits, policy = Limits.from_settings(settings), Policy(settings)
    now = int(time.time() * 1000)

    def opened(i: int) -> Session:  # as Controller.open builds one
        sid = new_session_id(now + i)
        s = Session(sid, 1000, "user", new_machine(sid, time.monotonic(), limits), now, now, now + 1_800_000,
                    user=None, locale="en", tz=None, channel=None, metadata={})
        s.vars.update(policy.initial_vars(s.summary()))
        return s

    def measure(make) -> tuple[int, Counter]:
        tracemalloc.start(1)
        before = tracemalloc.take_snapshot()
        held = {}
        for i in range(n):
            x = make(i)
            held[x.session_id] = x
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        total = sum(st.size_diff for st in after.compare_to(before, "filename"))
        kinds: Counter = Counter()
        seen: set[int] = set()

        def walk(o, depth=0):
            if id(o) in seen or depth > 4:
                return
            seen.add(id(o))
            kinds[type(o).__name__] += sys.getsizeof(o)
            if isinstance(o, dict):
                for k, v in o.items():
                    walk(k, depth + 1)
                    walk(v, depth + 1)
            elif isinstance(o, (list, tuple)):
                for v in o:
                    walk(v, depth + 1)
            elif hasattr(o, "__slots__"):
                for name in type(o).__slots__:
                    if hasattr(o, name):
                        walk(getattr(o, name), depth + 1)
        for k, v in held.items():
            walk(k)
            walk(v)
        return total, kinds

    full, full_kinds = measure(opened)
    stub, stub_kinds = measure(lambda i: Parked(opened(i)))
    mb = 1024 * 1024
    print(f"\n[2] tracemalloc: {n} sessions held in memory vs parked (stub only), in this process")
    print(f"  Session objects (baseline) {full / mb:6.2f} MB  ({full / n:6.0f} B each)")
    print(f"  Parked stubs               {stub / mb:6.2f} MB  ({stub / n:6.0f} B each)   saved {(full - stub) / mb:.2f} MB")
    print(f"  by type (sys.getsizeof over the reachable objects, shared ones once; MB held → parked):")
    for name in sorted(full_kinds.keys() | stub_kinds.keys(), key=lambda k: -full_kinds.get(k, 0))[:12]:
        print(f"    {name:<14} {full_kinds.get(name, 0) / mb:6.2f} → {stub_kinds.get(name, 0) / mb:6.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200, help="turn pairs")
    ap.add_argument("--sessions", type=int, default=10_000, help="sessions for the tracemalloc split")
    a = ap.parse_args()
    latency(a.n)
    by_type(a.sessions)


if __name__ == "__main__":
    main()
