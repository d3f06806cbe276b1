#!/usr/bin/env python3
"""Benchmark: start-up and resident memory of the full daemon, prebuilt packs vs trained at start.

For the shipped packs and (when ``--sgd DIR`` names a built SGD pack, or ``--build-sgd``) the
SGD pack, each measured in the same run:

- exec → ``READY=1`` (``Popen`` to the datagram on a real notify socket), median of ``--n``
  starts, and the daemon's own CPU time at READY (user + system, less sensitive to other load);
- *baseline*: the same daemon on a copy of the pack without its artifact and a fresh state
  folder — what every first start did before ``hermesd build-pack`` (it trains the scorer);
- idle RSS :data:`SETTLE_S` after READY (what starts after READY has run by then: the tool
  self-tests, the patterns compiled a few per loop turn), and ``admin.memory``'s split
  (interpreter, libraries, heap by part);
- RSS after 10,000 sessions each wrote a memory (``memory.put``), shipped packs only.

Every figure also with the daemon pinned to one CPU (``taskset -c 0``) when ``taskset`` exists.

``--against REV`` also measures the hermesd of git revision REV (``git archive`` into a scratch
folder, its shipped packs built), interleaved start by start with this tree's so both see the
same machine load: each figure is printed beside REV's from the same run. Both trees run from
compiled bytecode (``compileall``, as an installed wheel does): a source tree whose ``.pyc``
files are not written (``PYTHONDONTWRITEBYTECODE``) compiles ~110 modules at every start,
~200 ms of CPU that no device pays.
Run: ``.venv/bin/python scripts/bench/footprint.py [--n 5] [--sgd DIR | --build-sgd] [--sessions N]
[--against REV]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
from hermesd.client import Client  # noqa: E402
from hermesd.nlu.artifact import ARTIFACT_NAME  # noqa: E402

#: seconds after READY at which the idle RSS is read: the work READY no longer waits for (tool
#: self-tests, patterns compiled per loop turn) is done by then even on the loaded bench machine
SETTLE_S = 3.0
AIMS = {"ready_shipped_ms": 500, "ready_sgd_ms": 1000, "idle_rss_mb": 40, "rss_sessions_mb": 60}


def _start(root: Path, config: Path | None, pin: bool,
           tree: Path = REPO, optimize: bool = False) -> tuple[subprocess.Popen[bytes], float, float]:
    notify_path = root / "notify"
    notify_path.unlink(missing_ok=True)
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(notify_path))
    notify.settimeout(0.5)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMESD_")}
    env["NOTIFY_SOCKET"] = str(notify_path)
    if optimize:  # as the systemd unit runs it: no docstrings or asserts in the bytecode
        env["PYTHONOPTIMIZE"] = "2"
    cmd = [sys.executable, "-m", "hermesd", "run", "--socket", str(root / "h.sock"), "--state-dir", str(root / "state")]
    if config is not None:
        cmd += ["--config", str(config)]
    if pin:
        cmd = ["taskset", "-c", "0", *cmd]
    t0 = time.perf_counter()
    err = open(root / "stderr", "w+b")
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err, cwd=tree)
    while True:  # wait for READY, or for the daemon to die (a tree that cannot start must not hang the bench)
        try:
            if b"READY=1" in notify.recv(4096):
                break
        except TimeoutError:
            if proc.poll() is not None:
                err.seek(0)
                raise SystemExit(f"hermesd of {tree} exited {proc.returncode} before READY:\n"
                                 + err.read().decode(errors="replace")[-2000:])
    ready = time.perf_counter() - t0
    err.close()
    notify.close()
    st = open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()
    cpu = (int(st[11]) + int(st[12])) / os.sysconf("SC_CLK_TCK")
    return proc, ready, cpu


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(30)


def _rss_mb(pid: int) -> float:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _config(root: Path, intents: Path, base: Path | None) -> Path:
    layer = yaml.safe_load(base.read_text()) if base else {}
    layer.setdefault("nlu", {})["intent_dirs"] = [str(intents)]
    if base is not None:  # the pack's rules and tools, relative to its folder
        layer.setdefault("session", {})["rules_dir"] = str(base.parent / "rules")
        layer.setdefault("tools", {})["tools_dir"] = str(base.parent / "tools")
    path = root / "hermesd.yaml"
    path.write_text(yaml.safe_dump(layer))
    return path


def _starts(root: Path, config: Path, n: int, pin: bool, fresh_state: bool,
            optimize: bool = False) -> tuple[list[float], list[float], float]:
    readies, cpus, rss = [], [], float("nan")
    for i in range(n):
        if fresh_state:
            shutil.rmtree(root / "state", ignore_errors=True)
        proc, ready, cpu = _start(root, config, pin, optimize=optimize)
        readies.append(ready * 1000)
        cpus.append(cpu * 1000)
        if i == n - 1:
            time.sleep(SETTLE_S)
            rss = _rss_mb(proc.pid)
        _stop(proc)
    return readies, cpus, rss


def _pack(name: str, intents: Path, base: Path | None, n: int, pin: bool, out: dict) -> None:
    root = Path(tempfile.mkdtemp(prefix="hfp-", dir="/tmp"))
    os.chmod(root, 0o755)
    try:
        built = intents / ARTIFACT_NAME
        if not built.exists():
            subprocess.run([sys.executable, "-m", "hermesd", "build-pack", str(intents)], check=True,
                           capture_output=True)
        cfg = _config(root, intents, base)
        r, c, rss = _starts(root, cfg, n, pin, fresh_state=True)
        ro, co, rss_o = _starts(root, cfg, n, pin, fresh_state=True, optimize=True)
        # the baseline: the same sources without their artifact, first start (trains the scorer)
        bare = root / "bare-intents"
        shutil.copytree(intents, bare, ignore=shutil.ignore_patterns(ARTIFACT_NAME))
        cfg_bare = _config(root, bare, base)
        rb, cb, rss_b = _starts(root, cfg_bare, max(1, n // 2) if name == "sgd" else n, pin, fresh_state=True)
        out[name] = (statistics.median(r), statistics.median(c), rss, statistics.median(rb), statistics.median(cb), rss_b,
                     statistics.median(ro), statistics.median(co), rss_o)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _sessions(n: int, pin: bool, tree: Path = REPO) -> tuple[float, float, dict, float]:
    """RSS before, after ``n`` sessions' memories, ``admin.memory`` then, RSS after that walk."""
    root = Path(tempfile.mkdtemp(prefix="hfp-", dir="/tmp"))
    os.chmod(root, 0o755)
    try:
        cfg = root / "hermesd.yaml"  # one test uid holds every session (a device has many users)
        cfg.write_text(yaml.safe_dump({"session": {"max_sessions_per_user": 100_000}}))
        proc, _, _ = _start(root, cfg, pin, tree)
        try:
            time.sleep(SETTLE_S)
            before = _rss_mb(proc.pid)
            with Client(root / "h.sock", timeout_s=60).connect() as c:
                for i in range(n):
                    sid = c.call("session.open", {})["session_id"]
                    c.call("memory.put", {"session_id": sid, "anchor": "last_report_filter",
                                          "data": {"text": f"报价单 {i}", "n": i}})
                time.sleep(1.0)
                after = _rss_mb(proc.pid)  # before admin.memory: its object walk (a set of every
                memory = c.call("admin.memory")  # object's id) itself leaves memory resident
            time.sleep(1.0)
            return before, after, memory, _rss_mb(proc.pid)
        finally:
            _stop(proc)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _tree(rev: str, into: Path) -> Path:
    """The hermesd of git revision ``rev`` in ``into``, its shipped packs built, bytecode compiled."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    subprocess.run([sys.executable, "-m", "hermesd", "build-pack", "config/intents"], cwd=into, check=True,
                   capture_output=True)
    _compile(into)
    subprocess.run(["chmod", "-R", "a+rX", str(into)], check=True)
    return into


def _compile(tree: Path) -> None:
    """The tree's ``.pyc`` and ``.opt-2.pyc`` (PYTHONOPTIMIZE=2, as the unit runs), and the venv's
    libraries' ``.opt-2.pyc``, which ``scripts/install`` compiles for the unit (pip writes only the
    plain ones): without them every PYTHONOPTIMIZE=2 start compiled yaml, fastjsonschema and
    pybloom_live from source, ~40 ms no device pays."""
    for flags in ([], ["-OO"]):
        subprocess.run([sys.executable, *flags, "-m", "compileall", "-q", str(tree / "hermesd")], check=True,
                       capture_output=True)
    subprocess.run([sys.executable, "-OO", "-m", "compileall", "-q", sysconfig.get_paths()["purelib"]],
                   capture_output=True)  # best effort: a read-only venv keeps what it has


def _against(rev: str, tree: Path, n: int, pin: bool, sgd: Path | None, sessions: int) -> None:
    """This tree beside ``tree`` (revision ``rev``), starts interleaved: READY wall and CPU, idle RSS,
    RSS after ``sessions`` sessions' memories."""
    cases = [("shipped", None, None)] + ([("sgd", sgd / "intents", sgd / "hermesd.yaml")] if sgd else [])
    print(f"{'pack':<8} {'tree':<14} {'READY ms':>9} {'cpu ms':>8} {'idle RSS MB':>12}")
    for name, intents, base in cases:
        got: dict[str, tuple[list[float], list[float], float]] = {}
        roots = {}
        for label, t in (("this tree", REPO), (rev, tree)):
            root = Path(tempfile.mkdtemp(prefix="hfp-", dir="/tmp"))
            os.chmod(root, 0o755)
            cfg = _config(root, intents, base) if intents is not None else None
            roots[label] = (root, cfg, t)
            got[label] = ([], [], float("nan"))
        try:
            for i in range(n):
                for label, (root, cfg, t) in roots.items():
                    shutil.rmtree(root / "state", ignore_errors=True)
                    proc, ready, cpu = _start(root, cfg, pin, t)
                    got[label][0].append(ready * 1000)
                    got[label][1].append(cpu * 1000)
                    if i == n - 1:
                        time.sleep(SETTLE_S)
                        got[label] = (got[label][0], got[label][1], _rss_mb(proc.pid))
                    _stop(proc)
        finally:
            for root, _, _ in roots.values():
                shutil.rmtree(root, ignore_errors=True)
        for label, (r, c, rss) in got.items():
            print(f"{name:<8} {label:<14} {statistics.median(r):>9.0f} {statistics.median(c):>8.0f} {rss:>12.1f}")
        (r1, c1, m1), (r0, c0, m0) = got["this tree"], got[rev]
        print(f"{name:<8} {'ratio':<14} {statistics.median(r1) / statistics.median(r0):>8.2f}x "
              f"{statistics.median(c1) / statistics.median(c0):>7.2f}x {m1 - m0:>+11.1f} MB")
    (_, a, _, wa), (_, b, _, wb) = _sessions(sessions, pin), _sessions(sessions, pin, tree)
    print(f"RSS with {sessions:,} sessions' memories: this tree {a:.1f} MB, {rev} {b:.1f} MB ({a - b:+.1f} MB); "
          f"after an admin.memory walk {wa:.1f} / {wb:.1f} MB")


def _split(memory: dict) -> str:
    maps = memory["mappings"]
    parts = ", ".join(f"{k} {v / 1e6:.1f}" for k, v in memory["parts"].items() if v >= 50_000)
    return (f"interpreter {maps['interpreter'] / 1e6:.1f}, libraries {sum(maps['libraries'].values()) / 1e6:.1f}, "
            f"heap {maps['heap'] / 1e6:.1f} MB (of which {parts}; interpreter heap "
            f"{memory['heap_unattributed_bytes'] / 1e6:.1f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=5, help="starts per case")
    ap.add_argument("--sgd", type=Path, help="a built SGD pack folder (scripts/build_sgd_pack.py --out DIR)")
    ap.add_argument("--build-sgd", action="store_true", help="build the SGD pack into a scratch folder first")
    ap.add_argument("--sessions", type=int, default=10_000)
    ap.add_argument("--no-pin", action="store_true")
    ap.add_argument("--against", metavar="REV", help="also measure git revision REV, interleaved (e.g. main)")
    a = ap.parse_args()
    scratch = None
    _compile(REPO)
    if a.build_sgd and a.sgd is None:
        scratch = Path(tempfile.mkdtemp(prefix="hfp-sgd-", dir="/tmp"))
        os.chmod(scratch, 0o755)
        subprocess.run([sys.executable, str(REPO / "scripts" / "build_sgd_pack.py"), "--out", str(scratch / "sgd")],
                       check=True, capture_output=True)
        a.sgd = scratch / "sgd"
    pins = [False] + ([True] if shutil.which("taskset") and not a.no_pin else [])
    against = None
    if a.against:
        scratch = scratch or Path(tempfile.mkdtemp(prefix="hfp-rev-", dir="/tmp"))
        os.chmod(scratch, 0o755)
        against = _tree(a.against, scratch / "rev")
    try:
        for pin in pins:
            label = "pinned to one CPU (taskset -c 0)" if pin else "both CPUs"
            if against is not None:
                print(f"\n== this tree beside {a.against}, {label} ==")
                _against(a.against, against, a.n, pin, a.sgd, a.sessions)
                continue
            out: dict = {}
            _pack("shipped", REPO / "config" / "intents", None, a.n, pin, out)
            if a.sgd:
                _pack("sgd", a.sgd / "intents", a.sgd / "hermesd.yaml", a.n, pin, out)
            before, after, memory, walked = _sessions(a.sessions, pin)
            print(f"\n== {label} ==")
            print(f"{'pack':<8} {'case':<32} {'READY ms':>9} {'cpu ms':>8} {'RSS MB':>7}")
            for name, (r, c, rss, rb, cb, rssb, ro, co, rsso) in out.items():
                aim = AIMS["ready_shipped_ms"] if name == "shipped" else AIMS["ready_sgd_ms"]
                print(f"{name:<8} {'prebuilt artifact':<32} {r:>9.0f} {c:>8.0f} {rss:>7.1f}")
                print(f"{name:<8} {'prebuilt, PYTHONOPTIMIZE=2 (unit)':<32} {ro:>9.0f} {co:>8.0f} {rsso:>7.1f}")
                print(f"{name:<8} {'baseline: trained at start':<32} {rb:>9.0f} {cb:>8.0f} {rssb:>7.1f}")
                print(f"{name:<8} {'ratio baseline / prebuilt':<32} {rb / r:>8.1f}x {cb / c:>7.1f}x"
                      f"   (aim READY ≤ {aim} ms)")
            print(f"idle RSS, shipped packs: {out['shipped'][2]:.1f} MB, {out['shipped'][8]:.1f} MB as the unit runs "
                  f"it (PYTHONOPTIMIZE=2) (aim ≤ {AIMS['idle_rss_mb']} MB; trained at start: {out['shipped'][5]:.1f} MB)")
            print(f"RSS with {a.sessions:,} sessions' memories: {before:.1f} → {after:.1f} MB "
                  f"(aim ≤ {AIMS['rss_sessions_mb']} MB; {walked:.1f} MB after the admin.memory walk below)")
            print(f"where it goes: {_split(memory)}")
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
