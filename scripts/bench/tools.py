#!/usr/bin/env python3
"""Benchmark: one trivial tool call through hermesd's sandbox pool vs three baselines, same run.

1. ``hermesd``: ``ToolsService.call`` (schema validation in and out, breaker,
   setrlimit per call, fork-server pool, uvloop) — what the daemon does; also
   with its INFO log line per call formatted by ``hermesd.logging`` (to /dev/null);
2. ``pool.run``: the same pool without the service layer (no validation, no breaker);
3. ``spawn``: ``python handler.py`` per call with JSON on stdin (the reference design's naive dispatcher);
4. ``ProcessPoolExecutor``: ``concurrent.futures`` with 2 workers (pickle over pipes);
5. ``bare``: a pre-forked worker answering length-prefixed JSON over a socketpair, no limits (the floor).

Then recovery: SIGKILL an idle worker and time until the pool is back at full
strength, and until the next call has been answered.

Usage: ``.venv/bin/python scripts/bench/tools.py [--calls 3000] [--spawn-calls 100] [--rounds 10]``
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from hermesd import logging as hermes_logging  # noqa: E402
from hermesd.subsystems.subsystem import DaemonContext  # noqa: E402
from hermesd.subsystems.tools import ToolsService  # noqa: E402
from hermesd.tools.settings import ToolsSettings  # noqa: E402

HANDLER = textwrap.dedent('''
    def handle(input):
        return {"greeting": "hello " + input["name"]}


    if __name__ == "__main__":
        import json, sys
        sys.stdout.write(json.dumps(handle(json.load(sys.stdin))))
''')
TOOL_YAML = textwrap.dedent('''
    name: hello
    description: {en: Says hello.}
    input:
      name: {type: string, required: true, max_length: 64}
    output:
      greeting: {type: string, required: true}
''')
ARGS = {"name": "bench"}
HDR = struct.Struct("!I")


def handle(input: dict) -> dict:
    return {"greeting": "hello " + input["name"]}


def pct(samples: list[float]) -> dict[str, float]:
    s = sorted(samples)
    at = lambda q: s[min(len(s) - 1, int(q * len(s)))] * 1e6  # noqa: E731
    return {"p50": at(0.50), "p95": at(0.95), "p99": at(0.99), "n": len(s)}


_TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def cpu_s(pids: list[int]) -> float:
    """CPU seconds used so far by this process plus ``pids`` (/proc/<pid>/stat utime + stime, proc(5))."""
    total = time.process_time()
    for pid in pids:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) * _TICK_S
    return total


def spawn_once(handler: Path) -> float:
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, str(handler)], input=json.dumps(ARGS).encode(), capture_output=True,
                          check=True)
    json.loads(proc.stdout)
    return time.perf_counter() - t


def ppe_once(ex: concurrent.futures.ProcessPoolExecutor) -> float:
    t = time.perf_counter()
    ex.submit(handle, ARGS).result()
    return time.perf_counter() - t


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def bare_worker() -> tuple[socket.socket, int]:
    """Fork a worker that answers length-prefixed JSON frames over a socketpair, nothing else."""
    parent, child = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        parent.close()
        try:
            while True:
                (size,) = HDR.unpack(_recv_exact(child, 4))
                req = json.loads(_recv_exact(child, size))
                body = json.dumps(handle(req)).encode()
                child.sendall(HDR.pack(len(body)) + body)
        except EOFError:
            os._exit(0)
    child.close()
    return parent, pid


def bare_once(sock: socket.socket) -> float:
    body = json.dumps(ARGS).encode()
    t = time.perf_counter()
    sock.sendall(HDR.pack(len(body)) + body)
    (size,) = HDR.unpack(_recv_exact(sock, 4))
    json.loads(_recv_exact(sock, size))
    return time.perf_counter() - t


async def run_all(folder: Path, state: Path, handler: Path, n: int, spawn_n: int, rounds: int,
                  recoveries: int) -> dict:
    """All dispatchers in interleaved rounds, so a burst of load on this shared machine hits them alike."""
    svc = ToolsService(ToolsSettings(tools_dir=folder))
    t0 = time.perf_counter()
    await svc.start(DaemonContext(config=None, state_dir=state, subsystems={}))
    await svc.settled()  # every tool's self-test verdict, as before READY used to wait for it
    startup = time.perf_counter() - t0
    assert svc.health()["tools"]["hello"]["health"] == "healthy"
    pool = svc.pool
    limits = svc.registry.get("hello").descriptor.sandbox.limits()
    loop = asyncio.get_running_loop()
    sock, bare_pid = bare_worker()
    samples: dict[str, list[float]] = {k: [] for k in ("full", "logged", "raw", "bare", "ppe", "spawn")}
    devnull = open(os.devnull, "w")
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as ex:
        for _ in range(200):  # warm-up
            await svc.call("hello", ARGS, role="user")
            bare_once(sock)
            ppe_once(ex)
        ppe_pids = list(ex._processes)  # noqa: SLF001 - only to read their CPU time
        cpu: dict[str, float] = {k: 0.0 for k in ("full", "raw", "bare", "ppe")}
        for _ in range(rounds):
            c0 = cpu_s([*pool.worker_pids()])
            for _ in range(n // rounds):
                t = time.perf_counter()
                await svc.call("hello", ARGS, role="user")
                samples["full"].append(time.perf_counter() - t)
            cpu["full"] += cpu_s([*pool.worker_pids()]) - c0
            hermes_logging.setup("info", "plain", devnull)  # the daemon's one line per call, formatted
            for _ in range(n // rounds):
                t = time.perf_counter()
                await svc.call("hello", ARGS, role="user")
                samples["logged"].append(time.perf_counter() - t)
            hermes_logging.setup("warning", "plain", devnull)
            c0 = cpu_s([*pool.worker_pids()])
            for _ in range(n // rounds):
                t = time.perf_counter()
                await pool.run("hello", ARGS, limits, network=False, deadline=loop.time() + 2)
                samples["raw"].append(time.perf_counter() - t)
            cpu["raw"] += cpu_s([*pool.worker_pids()]) - c0
            c0 = cpu_s([bare_pid])
            samples["bare"] += [bare_once(sock) for _ in range(n // rounds)]
            cpu["bare"] += cpu_s([bare_pid]) - c0
            c0 = cpu_s(ppe_pids)
            samples["ppe"] += [ppe_once(ex) for _ in range(n // rounds)]
            cpu["ppe"] += cpu_s(ppe_pids) - c0
            samples["spawn"] += [spawn_once(handler) for _ in range(spawn_n // rounds)]
    sock.close()
    devnull.close()
    os.waitpid(bare_pid, 0)
    strength, answered = [], []
    for _ in range(recoveries):
        victim = pool.worker_pids()[0]
        t = time.perf_counter()
        os.kill(victim, signal.SIGKILL)
        while victim in pool.worker_pids() or not pool.at_full_strength():
            await asyncio.sleep(0.0002)
        strength.append(time.perf_counter() - t)
        await svc.call("hello", ARGS, role="user")
        answered.append(time.perf_counter() - t)
    await svc.stop()
    per_call = {k: v / (n // rounds * rounds) for k, v in cpu.items()}
    return {**samples, "cpu": per_call, "startup": startup, "strength": strength, "answered": answered}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--spawn-calls", type=int, default=100)
    ap.add_argument("--recoveries", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=10)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        root = Path(tmp)
        root.chmod(0o755)
        folder = root / "tools" / "hello"
        folder.mkdir(parents=True)
        (folder / "tool.yaml").write_text(TOOL_YAML)
        (folder / "handler.py").write_text(HANDLER)
        (folder / "test_cases.json").write_text(json.dumps(
            [{"name": "hello", "input": ARGS, "expect": {"values": {"greeting": "hello bench"}}}]))
        state = root / "state"
        state.mkdir()
        h = uvloop.run(run_all(root / "tools", state, folder / "handler.py", a.calls, a.spawn_calls, a.rounds,
                               a.recoveries))
    rows = {
        "hermesd (service.call)": pct(h["full"]),
        "hermesd service.call + INFO call log line": pct(h["logged"]),
        "hermesd pool.run (no validation/breaker)": pct(h["raw"]),
        "bare pre-forked worker (floor)": pct(h["bare"]),
        "ProcessPoolExecutor(2)": pct(h["ppe"]),
        "spawn python handler.py per call": pct(h["spawn"]),
    }
    ours = rows["hermesd (service.call)"]
    print(f"{'dispatcher':<42} {'n':>6} {'p50 µs':>10} {'p95 µs':>10} {'p99 µs':>10}  {'p95 vs hermesd':>15}")
    for name, r in rows.items():
        ratio = r["p95"] / ours["p95"]
        print(f"{name:<42} {r['n']:>6} {r['p50']:>10.1f} {r['p95']:>10.1f} {r['p99']:>10.1f}  {ratio:>14.2f}x")
    floor = rows["bare pre-forked worker (floor)"]
    print(f"\nhermesd p95 / bare floor p95      = {ours['p95'] / floor['p95']:.2f}x  (aim: <= 3x)")
    print(f"spawn p95 / hermesd p95            = {rows['spawn python handler.py per call']['p95'] / ours['p95']:.0f}x"
          "  (aim: >= 100x)")
    print(f"ProcessPoolExecutor p95 / hermesd  = {rows['ProcessPoolExecutor(2)']['p95'] / ours['p95']:.2f}x")
    print(f"reference design pooled p95 135 ms / hermesd p95 = {135e3 / ours['p95']:.0f}x")
    c = h["cpu"]
    print(f"\nCPU per call, caller + workers (less sensitive to other load than wall time): "
          f"hermesd {c['full'] * 1e6:.1f} µs, pool.run {c['raw'] * 1e6:.1f} µs, bare {c['bare'] * 1e6:.1f} µs, "
          f"ProcessPoolExecutor {c['ppe'] * 1e6:.1f} µs → hermesd / bare = {c['full'] / c['bare']:.2f}x")
    s, ans = [x * 1e3 for x in h["strength"]], [x * 1e3 for x in h["answered"]]
    print(f"\nrecovery after SIGKILL of a worker ({len(s)} runs): back to full strength "
          f"median {statistics.median(s):.2f} ms, max {max(s):.2f} ms; next call answered "
          f"median {statistics.median(ans):.2f} ms, max {max(ans):.2f} ms (aim < 100 ms; reference 1.2 s)")
    print(f"service start (fork server, workers, self-tests): {h['startup'] * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
