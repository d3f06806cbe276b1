#!/usr/bin/env python3
"""Session benchmark: whole turns through a real hermesd, against ``admin.ping`` in the same run.

Cases, each on one connection, sequential, after a warm-up:

- ``admin.ping`` — the protocol floor;
- a rule-routed turn with no tool ("cancel" in an idle session: parse, route, commit);
- a rule-routed turn with one pooled tool call ("how much disk space is left" →
  ``disk_usage`` in the sandbox pool, then a reply; parse, anchor, route, execute, commit);
- the signature resend: "把上周三发给张伟的报价单再发一遍" (date, person, memory recall, card) and the
  confirming "好的" (one pooled ``send_document``), against the reference design's 300 ms;
- the same tool turn again with 10,000 sessions open (RSS before and after, latency ratio).

``session.open`` and a ``memory.put`` + ``memory.get`` pair over the socket compare with the
reference design's Redis session start (HSET + EXPIRE) and SETEX/GET, measured by
``scripts/bench/memory.py`` against a real redis-server. Matching time against the number of
rules (1 / 100 / 1,000) is ``scripts/bench/rules.py``.
Reported: p50 / p99 in ms and the ratio to ping, and the daemon's CPU time per call (all its
threads, from ``/proc/<pid>/task/*/schedstat``, ns; tool workers are other processes and not
counted), which a loaded machine disturbs far less than wall time. Benchmarks are not tests.

Usage: .venv/bin/python scripts/bench/session.py [--n 300] [--sessions 10000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hermesd.client import Client  # noqa: E402

AT = "2024-06-19T10:00:00+08:00"


def _start(root: Path, **settings: str) -> tuple[subprocess.Popen[bytes], Path]:
    """A daemon of this checkout under ``root`` (socket ``root/h.sock``), returned at READY=1 with its
    socket; ``settings`` are further ``HERMESD_*`` variables. Raises ``TimeoutError`` after 120 s."""
    sock, notify_path = root / "h.sock", root / "notify"
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(notify_path))
    notify.settimeout(120)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMESD_")}
    env.update(NOTIFY_SOCKET=str(notify_path), HERMESD_SESSION__MAX_SESSIONS_PER_USER="100000",
               HERMESD_LOGGING__LEVEL="warning", **settings)
    proc = subprocess.Popen([sys.executable, "-m", "hermesd", "run", "--socket", str(sock), "--state-dir",
                             str(root / "state")], env=env, cwd=root, stderr=subprocess.DEVNULL)
    while b"READY=1" not in notify.recv(4096):
        pass
    notify.close()
    return proc, sock


def _rss_mb(pid: int) -> float:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


#: daemon pid whose CPU time :func:`_time` reads (set once it runs); CPU µs per call by case name
_PID: list[int] = []
CPU_US: dict[str, float] = {}


def _cpu_ns(pid: int) -> int:
    """CPU time of every thread of ``pid`` so far, ns (first field of schedstat, proc(5))."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as fh:
                total += int(fh.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass  # a thread that ended
    return total


def _time(fn, n: int, name: str | None = None) -> list[float]:
    for _ in range(min(30, n)):
        fn()
    out = []
    c0 = _cpu_ns(_PID[0]) if _PID and name else 0
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    if _PID and name:
        CPU_US[name] = (_cpu_ns(_PID[0]) - c0) / n / 1000
    return sorted(out)


def _p(xs: list[float], q: float) -> float:
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300, help="turns per case")
    ap.add_argument("--sessions", type=int, default=10_000, help="open sessions for the last case")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="hdbs-", dir="/tmp"))
    os.chmod(root, 0o711)
    proc, sock = _start(root)
    _PID.append(proc.pid)
    try:
        with Client(sock) as c:
            sid = c.call("session.open", {"locale": "en"})["session_id"]
            rows = []
            ping = _time(lambda: c.call("admin.ping"), args.n, "admin.ping")
            rows.append(("admin.ping", ping))
            rows.append(("session.open", _time(lambda: c.call("session.open", {"locale": "en"}), args.n, "session.open")))
            rows.append(("memory.put + memory.get", _time(lambda: (
                c.call("memory.put", {"session_id": sid, "anchor": "person:sales/zhang", "data": {"phone": "1"}}),
                c.call("memory.get", {"session_id": sid, "anchor": "person:sales/zhang"})), args.n,
                "memory.put + memory.get")))
            no_tool = _time(lambda: c.call("session.turn", {"session_id": sid, "text": "cancel",
                                                            "reference_time": AT}), args.n, "turn, rule, no tool")
            rows.append(("turn, rule, no tool", no_tool))
            tool = _time(lambda: c.call("session.turn", {"session_id": sid, "text": "how much disk space is left",
                                                         "reference_time": AT}), args.n, "turn, one pooled tool")
            rows.append(("turn, one pooled tool", tool))
            # the signature resend, end to end: recall in memory + confirmation card, then the pooled send
            docs = root / "state" / "documents"
            docs.mkdir(parents=True, exist_ok=True)
            (docs / "报价单Q-2024-061.pdf").write_bytes(b"%PDF-1.4 quote")
            day1 = c.call("session.open", {"locale": "zh"})["session_id"]
            for text in ("把报价单Q-2024-061发给张伟", "好的"):
                c.call("session.turn", {"session_id": day1, "text": text, "reference_time": "2024-06-12T10:00:00+08:00"})
            ask, confirm = [], []
            c0 = _cpu_ns(proc.pid)
            for _ in range(max(20, args.n // 5)):
                rs = c.call("session.open", {"locale": "zh"})["session_id"]
                t0 = time.perf_counter()
                c.call("session.turn", {"session_id": rs, "text": "把上周三发给张伟的报价单再发一遍", "reference_time": AT})
                t1 = time.perf_counter()
                c.call("session.turn", {"session_id": rs, "text": "好的", "reference_time": AT})
                t2 = time.perf_counter()
                ask.append((t1 - t0) * 1000)
                confirm.append((t2 - t1) * 1000)
            CPU_US["resend, both turns (+ session.open)"] = (_cpu_ns(proc.pid) - c0) / len(ask) / 1000
            rows.append(("resend: date+person+memory+card", sorted(ask)))
            rows.append(("resend: confirmed, pooled send", sorted(confirm)))
            both = sorted(a + b for a, b in zip(ask, confirm))
            rss0 = _rss_mb(proc.pid)
            t0 = time.perf_counter()
            for _ in range(args.sessions):
                c.call("session.open", {"locale": "en"})
            opened_s = time.perf_counter() - t0
            rss1 = _rss_mb(proc.pid)
            tool_many = _time(lambda: c.call("session.turn", {"session_id": sid, "text": "how much disk space is left",
                                                              "reference_time": AT}), args.n)
            rows.append((f"turn, one tool, {args.sessions:,} sessions", tool_many))
        base = _p(ping, 0.5)
        print(f"{'case':<34} {'p50 ms':>8} {'p99 ms':>8} {'p50 / ping':>11}")
        for name, xs in rows:
            print(f"{name:<34} {_p(xs, 0.5):>8.3f} {_p(xs, 0.99):>8.3f} {_p(xs, 0.5) / base:>10.1f}x")
        ping_cpu = CPU_US["admin.ping"]
        print(f"\n{'daemon CPU per call':<38} {'µs':>8} {'/ ping':>8}")
        for name, us in CPU_US.items():
            print(f"{name:<38} {us:>8.1f} {us / ping_cpu:>7.1f}x")
        print(f"\nrule-routed turn without tools vs ping: p50 {_p(no_tool, 0.5) / base:.1f}x, daemon CPU "
              f"{CPU_US['turn, rule, no tool'] / ping_cpu:.1f}x (aim: within 10x)")
        print(f"resend, both turns together: p50 {_p(both, 0.5):.2f} ms, p99 {_p(both, 0.99):.2f} ms vs the "
              f"reference design's 300 ms for the same five steps: {300 / _p(both, 0.5):.0f}x faster at p50")
        print(f"{args.sessions:,} sessions opened in {opened_s:.1f} s; RSS {rss0:.1f} MB → {rss1:.1f} MB "
              f"(+{(rss1 - rss0) * 1024 / args.sessions:.2f} KB per session)")
        print(f"tool turn p50 with {args.sessions:,} sessions / without: {_p(tool_many, 0.5) / _p(tool, 0.5):.2f}x")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
