#!/usr/bin/env python3
"""Benchmark: one trivial tool call through hermesd's sandbox pool vs three baselines, same run.

1. ``hermesd``: ``ToolsService.call`` (schema validation in and out, breaker,
   setrlimit per call, fork-server pool, uvloop) — what the daemon does;
2. ``pool.run``: the same pool without the service layer (no validation, no breaker);
3. ``spawn``: ``python handler.py`` per call with JSON on stdin (the reference design's naive dispatcher);
4. ``ProcessPoolExecutor``: ``concurrent.futures`` with 2 workers (pickle over pipes);
5. ``bare``: a pre-forked worker answering length-prefixed JSON over a socketpair, no limits (the floor).

Then recovery: SIGKILL an idle worker and time until the pool is back at full
strength, and until the next call has been answered.

Usage: ``.venv/bin/python scripts/bench/tools.py [--calls 3000] [--spawn-calls 100]``
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

from hermesd.subsystem import DaemonContext  # noqa: E402
from hermesd.tools.service import ToolsService  # noqa: E402
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


def bench_spawn(handler: Path, n: int) -> list[float]:
    body = json.dumps(ARGS).encode()
    out = []
    for _ in range(n):
        t = time.perf_counter()
        proc = subprocess.run([sys.executable, str(handler)], input=body, capture_output=True, check=True)
        json.loads(proc.stdout)
        out.append(time.perf_counter() - t)
    return out


def bench_ppe(n: int) -> list[float]:
    out = []
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as ex:
        for _ in range(50):
            ex.submit(handle, ARGS).result()
        for _ in range(n):
            t = time.perf_counter()
            ex.submit(handle, ARGS).result()
            out.append(time.perf_counter() - t)
    return out


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def bench_bare(n: int) -> list[float]:
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
    out = []
    body = json.dumps(ARGS).encode()
    frame = HDR.pack(len(body)) + body
    for i in range(n + 50):
        t = time.perf_counter()
        parent.sendall(frame)
        (size,) = HDR.unpack(_recv_exact(parent, 4))
        json.loads(_recv_exact(parent, size))
        if i >= 50:
            out.append(time.perf_counter() - t)
    parent.close()
    os.waitpid(pid, 0)
    return out


async def bench_hermesd(folder: Path, state: Path, n: int, recoveries: int) -> dict:
    svc = ToolsService(ToolsSettings(tools_dir=folder))
    t0 = time.perf_counter()
    await svc.start(DaemonContext(config=None, state_dir=state, subsystems={}))
    startup = time.perf_counter() - t0
    assert svc.health()["tools"]["hello"]["health"] == "healthy"
    for _ in range(200):
        await svc.call("hello", ARGS, role="user")
    full = []
    for _ in range(n):
        t = time.perf_counter()
        await svc.call("hello", ARGS, role="user")
        full.append(time.perf_counter() - t)
    pool = svc.pool
    limits = svc.registry.get("hello").descriptor.sandbox.limits()
    loop = asyncio.get_running_loop()
    raw = []
    for _ in range(n):
        t = time.perf_counter()
        await pool.run("hello", ARGS, limits, network=False, deadline=loop.time() + 2)
        raw.append(time.perf_counter() - t)
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
    return {"full": full, "raw": raw, "startup": startup, "strength": strength, "answered": answered}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--spawn-calls", type=int, default=100)
    ap.add_argument("--recoveries", type=int, default=30)
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
        h = uvloop.run(bench_hermesd(root / "tools", state, a.calls, a.recoveries))
        rows = {
            "hermesd (service.call)": pct(h["full"]),
            "hermesd pool.run (no validation/breaker)": pct(h["raw"]),
            "bare pre-forked worker (floor)": pct(bench_bare(a.calls)),
            "ProcessPoolExecutor(2)": pct(bench_ppe(a.calls)),
            "spawn python handler.py per call": pct(bench_spawn(folder / "handler.py", a.spawn_calls)),
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
    s, ans = [x * 1e3 for x in h["strength"]], [x * 1e3 for x in h["answered"]]
    print(f"\nrecovery after SIGKILL of a worker ({len(s)} runs): back to full strength "
          f"median {statistics.median(s):.2f} ms, max {max(s):.2f} ms; next call answered "
          f"median {statistics.median(ans):.2f} ms, max {max(ans):.2f} ms (aim < 100 ms; reference 1.2 s)")
    print(f"service start (fork server, workers, self-tests): {h['startup'] * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
