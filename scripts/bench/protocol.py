#!/usr/bin/env python3
"""Benchmark: ``admin.ping`` through hermesd vs a bare uvloop NDJSON echo server, same run.

Both servers run as their own process on a Unix socket; the load generator is a
third process (uvloop, ``asyncio.Protocol`` clients) sending the same request
line to each. Reported per server and concurrency (1 and 64 clients): p50 and
p99 round trip in µs, requests/s, and the hermesd/echo ratio. Also: cold start
to ``READY=1`` (from ``Popen`` to the datagram on a real notify socket, median
of 5) and idle RSS after start-up.

Run: ``.venv/bin/python scripts/bench/protocol.py [--seconds 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import uvloop

REQUEST = b'{"jsonrpc":"2.0","id":1,"method":"admin.ping"}\n'

ECHO_SERVER = r"""
import asyncio, sys, uvloop
class Echo(asyncio.Protocol):
    def connection_made(self, t): self.t = t; self.buf = b""
    def data_received(self, data):
        self.buf += data
        while True:
            i = self.buf.find(b"\n")
            if i < 0: return
            line, self.buf = self.buf[:i + 1], self.buf[i + 1:]
            self.t.write(line)
async def main():
    srv = await asyncio.get_running_loop().create_unix_server(Echo, sys.argv[1], backlog=1024)
    print("ready", flush=True)
    await asyncio.Event().wait()
uvloop.run(main())
"""


class _Client(asyncio.Protocol):
    def __init__(self) -> None:
        self.fut: asyncio.Future[None] | None = None
        self.buf = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.t = transport

    def data_received(self, data: bytes) -> None:
        self.buf += data
        if b"\n" in self.buf and self.fut is not None and not self.fut.done():
            self.buf = self.buf[self.buf.index(b"\n") + 1:]
            self.fut.set_result(None)


async def _load(path: str, clients: int, seconds: float) -> tuple[list[float], float]:
    loop = asyncio.get_running_loop()
    conns = [(await loop.create_unix_connection(_Client, path))[1] for _ in range(clients)]
    lat: list[float] = []
    stop_at = time.perf_counter() + seconds

    async def run(c: _Client) -> None:
        # warm-up
        for _ in range(50):
            c.fut = loop.create_future()
            c.t.write(REQUEST)
            await c.fut
        while True:
            t0 = time.perf_counter()
            if t0 > stop_at:
                return
            c.fut = loop.create_future()
            c.t.write(REQUEST)
            await c.fut
            lat.append(time.perf_counter() - t0)

    t0 = time.perf_counter()
    await asyncio.gather(*(run(c) for c in conns))
    elapsed = time.perf_counter() - t0
    for c in conns:
        c.t.close()
    return lat, len(lat) / elapsed


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] * 1e6


def _start_hermesd(root: Path) -> tuple[subprocess.Popen[bytes], float, Path]:
    sock = root / "h.sock"
    notify_path = root / "notify"
    notify_path.unlink(missing_ok=True)
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(notify_path))
    notify.settimeout(15)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMESD_")}
    env["NOTIFY_SOCKET"] = str(notify_path)
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "hermesd", "run", "--socket", str(sock), "--state-dir",
                             str(root / "state")], env=env, stderr=subprocess.DEVNULL, cwd=root)
    while True:
        msg = notify.recv(4096).decode()
        if "READY=1" in msg:
            break
    ready = time.perf_counter() - t0
    notify.close()
    return proc, ready, sock


def _rss_mb(pid: int) -> float:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="measuring time per case")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="hdb-", dir="/tmp"))
    try:
        readies = []
        for _ in range(5):
            proc, ready, sock = _start_hermesd(root)
            readies.append(ready)
            proc.send_signal(signal.SIGTERM)
            proc.wait(10)
        proc, _, sock = _start_hermesd(root)
        time.sleep(1.0)
        idle_rss = _rss_mb(proc.pid)
        echo_path = root / "echo.sock"
        echo = subprocess.Popen([sys.executable, "-c", ECHO_SERVER, str(echo_path)], stdout=subprocess.PIPE)
        assert echo.stdout is not None and echo.stdout.readline().strip() == b"ready"
        print(f"hermesd cold start to READY: median {statistics.median(readies) * 1000:.0f} ms "
              f"(min {min(readies) * 1000:.0f}, max {max(readies) * 1000:.0f}; aim < 500 ms)")
        print(f"hermesd idle RSS: {idle_rss:.1f} MB (aim < 40 MB)")
        print()
        print(f"{'clients':>7} | {'server':<8} | {'p50 µs':>8} | {'p99 µs':>8} | {'req/s':>9}")
        print("-" * 52)
        rows = {}
        for clients in (1, 64):
            for name, path in (("echo", echo_path), ("hermesd", sock)):
                lat, rps = uvloop.run(_load(str(path), clients, args.seconds))
                rows[(clients, name)] = (_pct(lat, 50), _pct(lat, 99), rps)
                p50, p99, _ = rows[(clients, name)]
                print(f"{clients:>7} | {name:<8} | {p50:>8.1f} | {p99:>8.1f} | {rps:>9.0f}")
            h, e = rows[(clients, "hermesd")], rows[(clients, "echo")]
            print(f"{clients:>7} | {'ratio':<8} | {h[0] / e[0]:>7.2f}x | {h[1] / e[1]:>7.2f}x | {h[2] / e[2]:>8.2f}x"
                  "   (hermesd / echo; aim p50 ≤ 1.5x)")
        print(f"\nhermesd RSS after load: {_rss_mb(proc.pid):.1f} MB")
        echo.kill()
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
