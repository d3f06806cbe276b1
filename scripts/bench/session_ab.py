#!/usr/bin/env python3
"""Session A/B: this checkout's hermesd beside another revision's, two real daemons, calls interleaved.

On a shared machine wall time drifts by several times within minutes; two daemons answering the
same calls in random alternation see the same drift, so their ratio holds where two runs of
``scripts/bench/session.py`` minutes apart do not. Cases: ``admin.ping``, a rule-routed turn
without tools ("cancel"), a turn with one pooled tool ("how much disk space is left"), and the
signature resend (both turns, after a first send a week before). Printed per case and daemon:
p50 / p95 wall ms and the daemon's CPU µs per call (all its threads, ``/proc/<pid>/task/*/schedstat``).

    .venv/bin/python scripts/bench/session_ab.py --against af830a8 [--n 150] [--pin]

``--against`` is a git revision (exported with ``git archive`` into a temporary folder) or a
folder holding another hermesd tree; ``--pin`` runs both daemons and this client on CPU 0.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from hermesd.client import Client  # noqa: E402

AT = "2024-06-19T10:00:00+08:00"


def _tree(against: str, tmp: Path) -> Path:
    if Path(against).is_dir():
        return Path(against).resolve()
    out = tmp / "tree"
    out.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", against], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    return out


def _start(tree: Path, tmp: Path, tag: str, pin: bool) -> tuple[subprocess.Popen[bytes], Path]:
    root = tmp / tag
    root.mkdir()
    os.chmod(root, 0o711)
    sock, notify_path = root / "h.sock", root / "notify"
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(notify_path))
    notify.settimeout(120)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMESD_")}
    env.update(NOTIFY_SOCKET=str(notify_path), HERMESD_SESSION__MAX_SESSIONS_PER_USER="100000",
               HERMESD_LOGGING__LEVEL="warning", PYTHONPATH=str(tree))
    cmd = (["taskset", "-c", "0"] if pin else []) + [sys.executable, "-m", "hermesd", "run", "--socket", str(sock),
                                                     "--state-dir", str(root / "state")]
    proc = subprocess.Popen(cmd, env=env, cwd=root, stderr=subprocess.DEVNULL)
    while b"READY=1" not in notify.recv(4096):
        pass
    notify.close()
    docs = root / "state" / "documents"
    docs.mkdir(parents=True, exist_ok=True)
    (docs / "报价单Q-2024-061.pdf").write_bytes(b"%PDF-1.4 quote")
    return proc, sock


def _cpu_ns(pid: int) -> int:
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as fh:
                total += int(fh.read().split()[0])
        except OSError:
            pass  # a thread that ended
    return total


def _resend(c: Client, _sid: str) -> float:
    rs = c.call("session.open", {"locale": "zh"})["session_id"]
    t0 = time.perf_counter()
    c.call("session.turn", {"session_id": rs, "text": "把上周三发给张伟的报价单再发一遍", "reference_time": AT})
    c.call("session.turn", {"session_id": rs, "text": "好的", "reference_time": AT})
    return time.perf_counter() - t0


CASES = [
    ("admin.ping", lambda c, sid: c.call("admin.ping"), 1),
    ("turn, rule, no tool", lambda c, sid: c.call("session.turn", {"session_id": sid, "text": "cancel",
                                                                   "reference_time": AT}), 1),
    ("turn, one pooled tool", lambda c, sid: c.call("session.turn", {
        "session_id": sid, "text": "how much disk space is left", "reference_time": AT}), 2),
    ("resend, both turns", _resend, 5),
]


def _p(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", required=True, help="git revision or folder of the other hermesd")
    ap.add_argument("--n", type=int, default=150, help="calls per case and daemon (tool turns n/2, resends n/5)")
    ap.add_argument("--pin", action="store_true", help="both daemons and this client on CPU 0")
    a = ap.parse_args()
    if a.pin:
        os.sched_setaffinity(0, {0})
    tmp = Path(tempfile.mkdtemp(prefix="hdab-", dir="/tmp"))
    os.chmod(tmp, 0o711)
    sides: dict[str, tuple[subprocess.Popen[bytes], Client, str]] = {}
    try:
        for tag, tree in (("against", _tree(a.against, tmp)), ("this", REPO)):
            proc, sock = _start(tree, tmp, tag, a.pin)
            c = Client(sock).connect()
            sid = c.call("session.open", {"locale": "en"})["session_id"]
            first = c.call("session.open", {"locale": "zh"})["session_id"]
            for text in ("把报价单Q-2024-061发给张伟", "好的"):
                c.call("session.turn", {"session_id": first, "text": text, "reference_time": "2024-06-12T10:00:00+08:00"})
            sides[tag] = (proc, c, sid)
        out: dict[str, dict[str, tuple[float, float, float]]] = {}
        for name, fn, div in CASES:
            n = max(20, a.n // div)
            for proc, c, sid in sides.values():
                for _ in range(10):
                    fn(c, sid)
            wall: dict[str, list[float]] = {t: [] for t in sides}
            cpu = dict.fromkeys(sides, 0)
            for _ in range(n):
                for tag in random.sample(list(sides), len(sides)):
                    proc, c, sid = sides[tag]
                    c0, t0 = _cpu_ns(proc.pid), time.perf_counter()
                    r = fn(c, sid)
                    wall[tag].append((r if isinstance(r, float) else time.perf_counter() - t0) * 1000)
                    cpu[tag] += _cpu_ns(proc.pid) - c0
            out[name] = {t: (_p(wall[t], 0.5), _p(wall[t], 0.95), cpu[t] / n / 1000) for t in sides}
        print(f"{'pinned to CPU 0' if a.pin else 'unpinned'}; against {a.against}; load {os.getloadavg()[0]:.1f}")
        print(f"{'case':<24} {'p50 ms':>16} {'p95 ms':>16} {'daemon CPU µs':>18}   (against / this)")
        for name, r in out.items():
            x, y = r["against"], r["this"]
            print(f"{name:<24} {x[0]:>7.3f} /{y[0]:>7.3f} {x[1]:>7.2f} /{y[1]:>7.2f} {x[2]:>8.1f} /{y[2]:>8.1f}   "
                  f"this is {x[2] / y[2]:.2f}x less CPU")
        for tag in sides:
            ping, rule = out["admin.ping"][tag], out["turn, rule, no tool"][tag]
            print(f"{tag}: rule-routed turn / ping: p50 {rule[0] / ping[0]:.1f}x, CPU {rule[2] / ping[2]:.1f}x "
                  f"(aim ≤ 10x); resend both turns p50 {out['resend, both turns'][tag][0]:.2f} ms (aim ≤ 5 ms)")
    finally:
        for proc, c, _ in sides.values():
            c.close()
            proc.send_signal(signal.SIGTERM)
            proc.wait(60)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
