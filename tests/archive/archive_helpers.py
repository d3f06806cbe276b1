"""A real HTTP upstream on 127.0.0.1 that can misbehave on cue, and test data.

``UpstreamServer`` stores PUT bodies by path, checks ``Content-Digest``, answers a
repeated ``Idempotency-Key`` without storing again (like an object store with
idempotency support; ``idempotency=False`` makes it a plain server that simply
overwrites), and records every request. ``script(*modes)`` queues what the next
PUTs do: ``"ok"``, an int status (``500``, ``429``, ``401`` …), ``"close_mid_body"``,
``"drop"`` (close after the headers), ``("slow", seconds)``, ``("status", code, headers)``, ``"ok_then_close"`` (reply, then close the kept-alive connection silently), ``"hang_before_body"``
and ``"store_then_hang"`` (set ``self.hung`` and block until :meth:`release`).
``Child`` runs ``uploader_child.py`` as a real process that a test can kill -9.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

TOKEN = "s3cr3t-t0ken-9f8e7d"


def turns(session: str, n: int = 6) -> list[dict[str, Any]]:
    """Deterministic turn records shaped like the session controller's."""
    out = []
    for i in range(n):
        out.append({"turn": i, "message_id": f"{session}-m{i}", "text": f"把报价单发给张工 #{i}",
                    "intent": "send_document", "state": "LISTENING",
                    "entities": [{"type": "person", "text": "张工", "anchor": "person:zhang"}],
                    "reply": {"text": f"已发送 {i}"}, "ts_ms": 1_764_000_000_000 + i * 1000})
    return out


def audit(session: str, n: int = 3) -> list[dict[str, Any]]:
    return [{"op": "capture", "session_id": session, "anchor": f"doc:{i}", "ts_ms": 1_764_000_000_000 + i}
            for i in range(n)]


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _reply(self, status: int, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_PUT(self) -> None:
        up = self.server.owner
        mode = up.next_mode()
        headers = {k.lower(): v for k, v in self.headers.items()}
        entry: dict[str, Any] = {"path": self.path, "headers": headers, "mode": mode, "status": None, "stored": False,
                                 "client_port": self.client_address[1]}
        with up.lock:
            up.requests.append(entry)
        length = int(headers.get("content-length", "0"))
        if mode == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if mode == "hang_before_body":
            up.hung.set()
            up._release.wait(30)
            self.close_connection = True
            return
        if mode == "close_mid_body":
            self.rfile.read(max(1, length // 2))
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        body = self.rfile.read(length)
        digest = "sha-256=:" + base64.b64encode(hashlib.sha256(body).digest()).decode() + ":"
        if headers.get("content-digest") != digest:
            entry["status"] = 400
            self._reply(400)
            return
        if isinstance(mode, tuple) and mode[0] == "slow":
            time.sleep(mode[1])
        if isinstance(mode, int):
            entry["status"] = mode
            self._reply(mode, {"Retry-After": "0"} if mode in (429, 503) else None)
            return
        if isinstance(mode, tuple) and mode[0] == "status":
            entry["status"] = mode[1]
            self._reply(mode[1], mode[2])
            return
        key = headers.get("idempotency-key", "")
        with up.lock:
            if up.idempotency and key and key in up.keys:
                entry["status"] = 200
                entry["replayed"] = True
            else:
                up.objects[self.path] = body
                up.writes[self.path] = up.writes.get(self.path, 0) + 1
                up.keys[key] = self.path
                entry["stored"] = True
        if mode == "store_then_hang":
            up.hung.set()
            up._release.wait(30)
            self.close_connection = True
            return
        entry["status"] = entry["status"] or 201
        self._reply(entry["status"])
        if mode == "ok_then_close":  # an idle keep-alive connection the server drops without notice
            self.close_connection = True


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: UpstreamServer


class UpstreamServer:
    """The fake fleet storage (a real HTTP/1.1 server in a thread)."""

    def __init__(self, *, idempotency: bool = True, port: int = 0) -> None:
        self.idempotency = idempotency
        self.lock = threading.Lock()
        self.objects: dict[str, bytes] = {}
        self.writes: dict[str, int] = {}
        self.keys: dict[str, str] = {}
        self.requests: list[dict[str, Any]] = []
        self.modes: deque[Any] = deque()
        self.hung = threading.Event()
        self._release = threading.Event()
        self.port = port
        self._srv: _Server | None = None
        self.up()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/fleet"

    def up(self) -> None:
        srv = _Server(("127.0.0.1", self.port), _Handler)
        srv.owner = self
        self.port = srv.server_address[1]
        self._srv = srv
        threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def down(self) -> None:
        """Stop listening (connection refused from now on)."""
        self.release()
        if self._srv is not None:
            self._srv.shutdown()
            self._srv.server_close()
            self._srv = None

    def script(self, *modes: Any) -> None:
        with self.lock:
            self.modes.extend(modes)

    def next_mode(self) -> Any:
        with self.lock:
            return self.modes.popleft() if self.modes else "ok"

    def release(self) -> None:
        self._release.set()

    def arm(self) -> None:
        """Make the next hanging mode hang again (after a :meth:`release`)."""
        self.hung.clear()
        self._release.clear()

    def puts(self, path_suffix: str = "") -> list[dict[str, Any]]:
        with self.lock:
            return [r for r in self.requests if r["path"].endswith(path_suffix)]


def wait_for(cond: Callable[[], Any], timeout_s: float = 10.0, step_s: float = 0.02) -> Any:
    """Poll ``cond`` until truthy; raise AssertionError after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(step_s)
    raise AssertionError(f"condition not met within {timeout_s} s")


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


CHILD = Path(__file__).with_name("uploader_child.py")


class Child:
    """The uploader child with its stdout/stderr pumped into lists; :meth:`close` reaps it and its pipes."""

    live: list["Child"] = []  # closed by conftest's autouse ``_reap_children``, also when a test fails half-way

    def __init__(self, state: Path, url: str, n: int, mode: str, token_file: Path, prefix: str = "c") -> None:
        self.proc = subprocess.Popen([sys.executable, str(CHILD), str(state), url, str(n), mode, str(token_file),
                                      prefix],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        Child.live.append(self)
        self.out: list[str] = []
        self.err: list[str] = []
        self._pumps = [threading.Thread(target=self._pump, args=(stream, sink), daemon=True)
                       for stream, sink in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))]
        for t in self._pumps:
            t.start()

    @staticmethod
    def _pump(stream, sink: list[str]) -> None:
        for line in stream:  # one at a time: the waiting test sees each line as it arrives
            sink.append(line)  # noqa: PERF402

    def _drain(self) -> None:
        """After the child ended: read its pipes to EOF, then close them."""
        for t in self._pumps:
            t.join(10)
        for stream in (self.proc.stdout, self.proc.stderr):
            stream.close()

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        assert self.proc.wait(10) == -signal.SIGKILL
        self._drain()

    def wait(self, timeout_s: float = 30.0) -> int:
        code = self.proc.wait(timeout_s)
        self._drain()  # all of stderr is in self.err once wait() returns
        return code

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._drain()
