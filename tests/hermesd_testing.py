"""Test support: a real hermesd process on a short socket path, its notify socket, raw connections.

``daemon`` starts ``python -m hermesd run`` as a child process with its own
socket and state folder under a short ``/tmp`` path (``sun_path`` is 108
bytes), waits for its ``READY=1`` on a real ``NOTIFY_SOCKET`` datagram socket,
and stops it at teardown (SIGTERM, then SIGKILL). Nothing of ours is mocked.

Everything the harness opens it also closes: :meth:`Daemon.stop` closes the
connections handed out by :meth:`Daemon.client` / :meth:`Daemon.raw` that a
test left open, the log file, the notify socket, and waits for the child, so
the suite runs clean under ``filterwarnings = error`` (no ``ResourceWarning``).
"""

from __future__ import annotations

import os
import pwd
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import yaml

from hermesd.client import Client

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


def clean_env(**extra: str) -> dict[str, str]:
    """The test environment without HERMESD_*/systemd variables, plus ``extra``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("HERMESD_", "NOTIFY_SOCKET", "WATCHDOG_", "LISTEN_", "JOURNAL_STREAM"))}
    env.update(extra)
    return env


HERMESCTL = [sys.executable, "-c", "import sys; from hermesd.cli import ctl_main; sys.argv[0] = 'hermesctl'; ctl_main()"]
"""``hermesctl`` run by this interpreter (the same entry point as the installed script)."""


def hermesctl(socket: Path | str | None, *args: str, timeout_s: float = 60.0,
              input: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``hermesctl [--socket SOCKET] ARGS…`` to completion; stdout/stderr captured as text.

    ``env`` defaults to :func:`clean_env`; raises ``subprocess.TimeoutExpired`` after ``timeout_s``.
    """
    cmd = HERMESCTL + (["--socket", str(socket)] if socket is not None else []) + list(args)
    return subprocess.run(cmd, input=input, capture_output=True, text=True, timeout=timeout_s,
                          env=clean_env() if env is None else env)


class NotifyListener:
    """A real ``AF_UNIX``/``SOCK_DGRAM`` socket standing in for systemd's notify socket."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.unlink(missing_ok=True)  # a restarted daemon in the same folder gets a fresh listener
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.messages: list[tuple[float, dict[str, str]]] = []

    def read(self, timeout_s: float) -> list[tuple[float, dict[str, str]]]:
        """Collect datagrams for up to ``timeout_s``; returns the new ones."""
        new: list[tuple[float, dict[str, str]]] = []
        deadline = time.monotonic() + timeout_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except (TimeoutError, socket.timeout):
                break
            fields = dict(line.split("=", 1) for line in data.decode().splitlines() if "=" in line)
            item = (time.monotonic(), fields)
            self.messages.append(item)
            new.append(item)
        return new

    def wait_for(self, key: str, value: str, timeout_s: float) -> tuple[float, dict[str, str]]:
        deadline = time.monotonic() + timeout_s
        for item in self.messages:
            if item[1].get(key) == value:
                return item
        while time.monotonic() < deadline:
            for item in self.read(min(0.1, deadline - time.monotonic())):
                if item[1].get(key) == value:
                    return item
        raise AssertionError(f"no {key}={value} within {timeout_s}s; got {[m[1] for m in self.messages]}")

    def close(self) -> None:
        self.sock.close()


class Daemon:
    """A running hermesd child process."""

    def __init__(self, root: Path, config: dict[str, Any] | None, env: dict[str, str], args: list[str],
                 python: str = sys.executable) -> None:
        """:param python: the interpreter to run ``-m hermesd`` with (a scratch venv's for the wheel test)."""
        self.root = root
        self.socket = root / "h.sock"
        self.state_dir = root / "state"
        self.log_path = root / "hermesd.log"
        self.notify = NotifyListener(root / "notify")
        self.config_path: Path | None = None
        if config is not None:
            self.config_path = root / "hermesd.yaml"
            self.config_path.write_text(yaml.safe_dump(config))
        cmd = [python, "-m", "hermesd", "run", "--socket", str(self.socket), "--state-dir", str(self.state_dir)]
        if self.config_path is not None:
            cmd += ["--config", str(self.config_path)]
        cmd += args
        self.env = clean_env(NOTIFY_SOCKET=str(self.notify.path), **env)
        self._conns: list[Client | RawConn] = []  # handed out by client()/raw(); stop() closes what is left
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed by stop()
        try:
            self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, env=self.env, cwd=root)
        except BaseException:
            self._log.close()
            self.notify.close()
            raise
        self.pid = self.proc.pid

    def wait_ready(self, timeout_s: float = 300.0) -> None:
        """Until the daemon says READY=1 on the notify socket (it exits or says it at its own pace;
        the limit is generous for a busy 2-core machine training a pack's intents at first start)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"hermesd exited {self.proc.returncode}:\n{self.log()}")
            for _, fields in self.notify.read(0.05):
                if fields.get("READY") == "1":
                    return
        raise AssertionError(f"hermesd not READY within {timeout_s}s:\n{self.log()}")

    def wait_settled(self, timeout_s: float = 120.0) -> dict[str, Any]:
        """Until the tools subsystem has come up (READY comes before the tools' self-tests end:
        every tool has its verdict and the pool is at strength); returns ``admin.status`` then."""
        deadline = time.monotonic() + timeout_s
        while True:
            st = self.call("admin.status")
            tools = st["subsystems"].get("tools", {})
            if not tools.get("starting"):
                return st
            if time.monotonic() > deadline:
                raise AssertionError(f"tools still starting after {timeout_s}s: {tools}")
            time.sleep(0.05)

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def log_line(self, event: str, session: str, timeout_s: float = 30.0) -> str:
        """The daemon's ``event`` log line for ``session``, waited for (never a fixed sleep); raises
        ``AssertionError`` with the log's tail after ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while True:
            for line in self.log().splitlines():
                if f"{event} " in line and f"session={session}" in line:
                    return line
            assert time.monotonic() < deadline, f"no {event} line for {session}:\n{self.log()[-3000:]}"
            time.sleep(0.05)

    def client(self, timeout_s: float = 10.0) -> Client:
        """A connected :class:`Client`; close it (``with``) or :meth:`stop` does."""
        c = Client(self.socket, timeout_s=timeout_s).connect()
        self._conns.append(c)
        return c

    def call(self, method: str, params: Any = None) -> Any:
        with Client(self.socket, timeout_s=10.0) as c:
            return c.call(method, params)

    def raw(self) -> "RawConn":
        """A bare NDJSON connection; close it (``with``) or :meth:`stop` does."""
        c = RawConn(self.socket)
        self._conns.append(c)
        return c

    def signal(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def stop(self, timeout_s: float = 15.0) -> int:
        """SIGTERM (SIGKILL after ``timeout_s``), reap the child, close what the harness opened.

        Safe to call twice; returns the exit status (negative: killed by that signal)."""
        while self._conns:
            self._conns.pop().close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self._log.close()
        self.notify.close()
        return self.proc.returncode


class RawConn:
    """A bare socket speaking NDJSON, for framing tests."""

    def __init__(self, path: Path, timeout_s: float = 10.0) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.settimeout(timeout_s)
            self.sock.connect(str(path))
        except BaseException:
            self.sock.close()
            raise
        self.buf = b""

    def __enter__(self) -> "RawConn":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def request(self, method: str, params: Any = None, rid: Any = 1) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(orjson.dumps(msg) + b"\n")

    def recv(self) -> dict[str, Any]:
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionResetError(f"closed; pending {self.buf!r}")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return orjson.loads(line)

    def closed_by_peer(self, timeout_s: float = 5.0) -> bool:
        self.sock.settimeout(timeout_s)
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return True
                self.buf += chunk
        except (TimeoutError, socket.timeout):
            return False
        except ConnectionResetError:
            return True

    def close(self) -> None:
        self.sock.close()


try:
    NOBODY: Any = pwd.getpwnam("nobody")
except KeyError:  # pragma: no cover - every Debian has it
    NOBODY = None


def as_nobody(path: str, lines: list[bytes]) -> list[dict]:
    """Fork, drop to nobody, connect, send ``lines``, return the replies (until EOF or one per line)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(NOBODY.pw_gid)
            os.setuid(NOBODY.pw_uid)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(5)
            s.connect(path)
            try:
                for line in lines:
                    s.sendall(line)
            except (BrokenPipeError, ConnectionResetError):
                pass  # refused peers are told why and closed at once; read the reason below
            buf = b""
            while buf.count(b"\n") < max(1, len(lines)):
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
            os.write(w, buf)
        except BaseException as exc:  # report, never return into pytest
            os.write(w, orjson.dumps({"child_error": repr(exc)}) + b"\n")
        finally:
            os._exit(0)
    os.close(w)
    out = b""
    while chunk := os.read(r, 65536):
        out += chunk
    os.close(r)
    os.waitpid(pid, 0)
    return [orjson.loads(x) for x in out.splitlines() if x.strip()]
