"""The tiny client: talk to hermesd from an app in five lines.

::

    from hermesd.client import Client

    with Client() as c:                      # socket from HERMESD_SOCKET or the usual places
        print(c.call("admin.status")["status"])

Imports only the standard library, orjson and :mod:`hermesd.errors` (no pydantic).
Server errors come back as the matching :class:`~hermesd.errors.HermesError`
subclass (``SessionBusy``, ``ToolTimeout`` …) with ``.code`` and ``.data``; a
daemon that is not there raises :class:`DaemonNotRunning`.
:class:`AsyncClient` pipelines concurrent calls on one connection and queues
notifications (events) for :meth:`AsyncClient.next_notification`.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import os
import socket
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

import orjson

from .errors import HermesError, from_wire
from .tasks import cancel_and_wait

__all__ = ["AsyncClient", "Client", "DaemonNotRunning", "ProtocolError", "candidate_socket_paths", "default_socket_path",
           "on_connections"]

_T = TypeVar("_T")
_R = TypeVar("_R")

SYSTEM_SOCKET = Path("/run/hermesd/hermesd.sock")
LOCAL_SOCKET = Path("var/hermesd.sock")
_MAX_REPLY_BYTES = 64 * 1024 * 1024


class DaemonNotRunning(ConnectionError):
    """Nothing answers at the socket path(s); ``paths`` lists where we looked."""

    def __init__(self, paths: list[Path], reason: str) -> None:
        self.paths = paths
        self.reason = reason
        where = ", ".join(str(p) for p in paths)
        super().__init__(f"hermesd is not running (looked at {where}: {reason}); "
                         "start it with `hermesd run` or `systemctl start hermesd`")


class ProtocolError(HermesError):
    """The daemon sent something that is not a JSON-RPC 2.0 response."""


def candidate_socket_paths(explicit: str | os.PathLike[str] | None = None) -> list[Path]:
    """Where to look, in order: the argument, ``$HERMESD_SOCKET``, ``/run/hermesd``, ``./var``."""
    if explicit:
        return [Path(explicit)]
    if os.environ.get("HERMESD_SOCKET"):
        return [Path(os.environ["HERMESD_SOCKET"])]
    return [SYSTEM_SOCKET, LOCAL_SOCKET]


def default_socket_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The first candidate that exists, else the first candidate."""
    paths = candidate_socket_paths(explicit)
    for p in paths:
        if p.exists():
            return p
    return paths[0]


def _request(rid: int, method: str, params: dict[str, Any] | list[Any] | None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    return orjson.dumps(msg, option=orjson.OPT_APPEND_NEWLINE)


def _result(msg: dict[str, Any]) -> Any:
    if "error" in msg and isinstance(msg["error"], dict):
        raise from_wire(msg["error"])
    if "result" not in msg:
        raise ProtocolError(f"response without result or error: {msg!r}")
    return msg["result"]


class Client:
    """Blocking client, one call at a time.

    :param socket_path: explicit path; default per :func:`candidate_socket_paths`.
    :param timeout_s: per-call timeout (connect, send, and wait for the reply).
    :raises DaemonNotRunning: from :meth:`connect` when no daemon answers.

    A connection the daemon closed (or whose reply stream is unreadable) is closed at once and
    its error raised; the next :meth:`call` connects again. Use it as a context manager (or call
    :meth:`close`) so the socket is closed on every path.
    """

    def __init__(self, socket_path: str | os.PathLike[str] | None = None, timeout_s: float = 30.0) -> None:
        self.paths = candidate_socket_paths(socket_path)
        self.timeout_s = timeout_s
        self.socket_path: Path | None = None
        self._sock: socket.socket | None = None
        self._buf = bytearray()
        self._ids = itertools.count(1)
        self.notifications: collections.deque[dict[str, Any]] = collections.deque(maxlen=10_000)

    def connect(self) -> "Client":
        reasons = []
        for path in self.paths:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(self.timeout_s)
            try:
                s.connect(os.fspath(path))
            except (FileNotFoundError, ConnectionRefusedError) as exc:
                s.close()
                reasons.append(exc.strerror or type(exc).__name__)
                continue
            except PermissionError as exc:
                s.close()
                raise DaemonNotRunning([path], f"permission denied ({exc.strerror}); are you in group hermesd?") from None
            except BaseException:  # a timeout, a path too long, an interrupt: never leak the socket
                s.close()
                raise
            self._sock, self.socket_path = s, path
            return self
        raise DaemonNotRunning(self.paths, "; ".join(sorted(set(reasons))) or "no socket")

    def __enter__(self) -> "Client":
        return self.connect() if self._sock is None else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def _lost(self) -> None:
        """The connection is gone or its stream cannot be trusted: close it (the next call reconnects)."""
        self.close()
        self._buf.clear()

    def _read_or_drop(self) -> bytes:
        try:
            return self._readline()
        except (ConnectionError, ProtocolError):
            self._lost()
            raise

    def _readline(self) -> bytes:
        assert self._sock is not None
        while True:
            nl = self._buf.find(b"\n")
            if nl >= 0:
                line = bytes(self._buf[:nl])
                del self._buf[: nl + 1]
                return line
            chunk = self._sock.recv(65536)
            if not chunk:
                raise ConnectionResetError("hermesd closed the connection")
            self._buf += chunk
            if len(self._buf) > _MAX_REPLY_BYTES:
                raise ProtocolError("reply line too long")

    def call(self, method: str, params: dict[str, Any] | list[Any] | None = None) -> Any:
        """Call ``method`` and return its ``result``.

        :raises HermesError: the server's error, as its subclass (e.g. ``PermissionDenied``).
        :raises DaemonNotRunning: no daemon to connect to.
        :raises TimeoutError: no reply within ``timeout_s``.
        """
        if self._sock is None:
            self.connect()
        assert self._sock is not None
        rid = next(self._ids)
        try:
            self._sock.sendall(_request(rid, method, params))
        except ConnectionError:
            self._lost()
            raise
        while True:
            msg = orjson.loads(self._read_or_drop())
            if "id" not in msg:
                self.notifications.append(msg)
                continue
            if msg.get("id") == rid:
                return _result(msg)
            if msg.get("id") is None and "error" in msg:
                # connection-level error (refused, frame too large) with no id
                raise from_wire(msg["error"])

    def read_notification(self, timeout_s: float | None = None) -> dict[str, Any]:
        """Next notification (``{"method", "params"}``), waiting up to ``timeout_s``."""
        if self.notifications:
            return self.notifications.popleft()
        assert self._sock is not None
        self._sock.settimeout(timeout_s)
        try:
            while True:
                msg = orjson.loads(self._read_or_drop())
                if "id" not in msg:
                    return msg
        finally:
            if self._sock is not None:
                self._sock.settimeout(self.timeout_s)


class AsyncClient:
    """asyncio client; concurrent :meth:`call`\\ s are pipelined on one connection.

    :param socket_path: explicit path; default per :func:`candidate_socket_paths`.
    :param timeout_s: per-call timeout.
    """

    def __init__(self, socket_path: str | os.PathLike[str] | None = None, timeout_s: float = 30.0) -> None:
        self.paths = candidate_socket_paths(socket_path)
        self.timeout_s = timeout_s
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._ids = itertools.count(1)
        self._task: asyncio.Task[None] | None = None
        self._notes: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._conn_error: BaseException | None = None

    async def connect(self) -> "AsyncClient":
        reasons = []
        for path in self.paths:
            try:
                # asyncio.timeout, not wait_for: 3.11's wait_for can lose a connection that completes
                # just as the caller is cancelled (the transport would leak unclosed)
                async with asyncio.timeout(self.timeout_s):
                    self._reader, self._writer = await asyncio.open_unix_connection(
                        os.fspath(path), limit=_MAX_REPLY_BYTES)
            except (FileNotFoundError, ConnectionRefusedError) as exc:
                reasons.append(exc.strerror or type(exc).__name__)
                continue
            self._task = asyncio.get_running_loop().create_task(self._read_loop())
            return self
        raise DaemonNotRunning(self.paths, "; ".join(sorted(set(reasons))) or "no socket")

    async def __aenter__(self) -> "AsyncClient":
        return await self.connect() if self._writer is None else self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            try:
                await self._writer.wait_closed()
            except OSError:
                pass
            self._writer = None
        await cancel_and_wait(self._task)
        self._task = None

    async def _read_loop(self) -> None:
        assert self._reader is not None
        err: BaseException = ConnectionResetError("hermesd closed the connection")
        try:
            while True:
                line = await self._reader.readline()
                if not line:
                    break
                msg = orjson.loads(line)
                rid = msg.get("id")
                if "id" not in msg:
                    self._notes.put_nowait(msg)
                elif rid in self._pending:
                    fut = self._pending.pop(rid)
                    if not fut.done():
                        try:
                            fut.set_result(_result(msg))
                        except HermesError as exc:
                            fut.set_exception(exc)
                elif rid is None and "error" in msg:
                    err = from_wire(msg["error"])
                    if not self._pending:
                        self._conn_error = err
        except (OSError, ValueError) as exc:
            err = exc
        self._conn_error = self._conn_error or err
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(err)
        self._pending.clear()

    async def call(self, method: str, params: dict[str, Any] | list[Any] | None = None) -> Any:
        """Call ``method`` and return its ``result``; same errors as :meth:`Client.call`."""
        if self._writer is None:
            await self.connect()
        assert self._writer is not None
        if self._conn_error is not None:
            raise self._conn_error
        rid = next(self._ids)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        self._writer.write(_request(rid, method, params))
        try:
            return await asyncio.wait_for(fut, self.timeout_s)
        finally:
            self._pending.pop(rid, None)

    async def next_notification(self, timeout_s: float | None = None) -> dict[str, Any]:
        """Next notification (``{"method", "params"}``); raises ``TimeoutError`` after ``timeout_s``."""
        return await asyncio.wait_for(self._notes.get(), timeout_s)


def on_connections(socket_path: str | os.PathLike[str] | None, items: Sequence[_T],
                   fn: Callable[["Client", _T], _R], concurrency: int) -> list[_R]:
    """``[fn(client, item) for item in items]``, run on ``concurrency`` connections at once.

    Each of ``min(concurrency, len(items))`` threads opens its own :class:`Client` and takes every
    n-th item in turn (item k goes to connection ``k % n``), so the items of one connection run in
    their order; the results come back in the order of ``items``. What one replay of recorded
    dialogues uses to measure the daemon's throughput (turns/s) rather than one connection's round
    trip: a turn returns only once its state is committed.

    :raises: the first exception a call of ``fn`` raised (the other threads finish their items).
    """
    n = max(1, min(concurrency, len(items)))

    def run(k: int) -> list[_R]:
        with Client(socket_path) as c:
            return [fn(c, item) for item in items[k::n]]

    with ThreadPoolExecutor(max_workers=n) as pool:
        chunks = list(pool.map(run, range(n)))
    out: list[_R] = [None] * len(items)  # type: ignore[list-item]
    for k, chunk in enumerate(chunks):
        out[k::n] = chunk
    return out
