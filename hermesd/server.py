"""Unix-socket JSON-RPC server: listening socket, peer credentials, roles, dispatch, limits.

One :class:`Connection` (an ``asyncio.Protocol``, no stream objects on the hot
path) per client. Lines are framed by :class:`~hermesd.protocol.LineDecoder`;
each request runs as soon as it is read, so requests on one connection are
pipelined and their responses carry their ids in completion order. Methods
whose handler is a plain function run inline (``admin.ping``); coroutine
handlers get a task each, so a slow request never delays anything else.

Flow control: a connection with ``max_inflight_per_connection`` requests
running, or whose peer is not reading its replies, stops being read until it
catches up — the flooding client is slowed, nobody else is.
"""

from __future__ import annotations

import asyncio
import fcntl
import grp
import inspect
import logging
import os
import pwd
import secrets
import socket
import stat
import struct
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .config import RolesSettings, ServerSettings
from .errors import (
    FrameTooLarge,
    HermesError,
    InputInvalid,
    InvalidRequest,
    MethodNotFound,
    PermissionDenied,
    RateLimited,
)
from .logging import trace_id_var
from .metrics import Counter, Gauge, Histogram, Registry
from .protocol import CallContext, Caller, LineDecoder, Method, encode, error_response, parse_request
from .tools.sandbox import FORK_SERVERS, tool_process
from .typed import ValidationError, errors_sentence

__all__ = ["AlreadyRunning", "RoleResolver", "Server", "SocketPathError", "bind_unix_socket", "hold_lock",
           "inherited_socket"]

log = logging.getLogger(__name__)

_PEERCRED = struct.Struct("3i")  # struct ucred {pid_t pid; uid_t uid; gid_t gid;}, unix(7)
_SUN_PATH_MAX = 107  # sizeof(sockaddr_un.sun_path) - 1 on Linux, unix(7)
_LISTEN_BACKLOG = 1024
_GROUPS_TTL_S = 60.0


class SocketPathError(Exception):
    """The socket path cannot be used (too long, not a socket, no permission)."""


class AlreadyRunning(Exception):
    """Another live hermesd holds this socket path."""


# ---------------------------------------------------------------------------
# listening socket


def inherited_socket(env: dict[str, str] | None = None) -> socket.socket | None:
    """The listening socket passed by systemd socket activation, if any.

    Follows sd_listen_fds(3): ``LISTEN_PID`` must be our pid and ``LISTEN_FDS`` ≥ 1;
    the first passed descriptor (fd 3) is used. The variables are removed so
    children do not inherit them.
    """
    env = os.environ if env is None else env
    try:
        pid = int(env.get("LISTEN_PID", "0"))
        nfds = int(env.get("LISTEN_FDS", "0"))
    except ValueError:
        return None
    if pid != os.getpid() or nfds < 1:
        return None
    for key in ("LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"):
        env.pop(key, None)
    sock = socket.socket(fileno=3)
    sock.setblocking(False)
    return sock


def hold_lock(path: Path, held_message: str) -> int:
    """Take an exclusive ``flock`` on ``path`` (created 0600) for the caller's life; returns its fd.

    :raises AlreadyRunning: ``held_message``, when another process holds the lock.
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise AlreadyRunning(held_message) from None
    return fd


def bind_unix_socket(path: Path, mode: int) -> tuple[socket.socket, int]:
    """Bind and listen on ``path`` with permissions ``mode``, replacing only a stale socket.

    :return: (listening socket, fd of the held lock file ``<path>.lock``).
    :raises AlreadyRunning: a live daemon answers at ``path`` (or holds its lock).
    :raises SocketPathError: the path is too long, exists and is not a socket,
        or cannot be created.

    The lock (``flock`` on ``<path>.lock``, held for the daemon's life) closes the
    race where two instances both find a stale file and both replace it.
    """
    raw = os.fsencode(path)
    if len(raw) > _SUN_PATH_MAX:
        raise SocketPathError(f"socket path is {len(raw)} bytes, the limit is {_SUN_PATH_MAX}: {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    lock_path = path.with_name(path.name + ".lock")
    lock_fd = hold_lock(lock_path, f"another hermesd holds {lock_path}")
    try:
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            st = None
        if st is not None:
            if not stat.S_ISSOCK(st.st_mode):
                raise SocketPathError(f"{path} exists and is not a socket; refusing to touch it")
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            probe.settimeout(1.0)
            try:
                probe.connect(raw)
            except (ConnectionRefusedError, FileNotFoundError):
                log.warning("socket.stale_replaced", extra={"kv": {"path": str(path)}})
                os.unlink(path)
            except OSError as exc:
                raise SocketPathError(f"cannot probe existing socket {path}: {exc.strerror}") from None
            else:
                raise AlreadyRunning(f"a live daemon answers at {path}")
            finally:
                probe.close()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o777 & ~mode)
        try:
            sock.bind(raw)
        except OSError as exc:
            sock.close()
            raise SocketPathError(f"cannot bind {path}: {exc.strerror}") from None
        finally:
            os.umask(old)
        os.chmod(path, mode)
        sock.listen(_LISTEN_BACKLOG)
        sock.setblocking(False)
        return sock, lock_fd
    except BaseException:
        os.close(lock_fd)
        raise


# ---------------------------------------------------------------------------
# roles


class RoleResolver:
    """Map a peer's uid/gid to a role, per config ``roles`` (admin wins over user).

    The daemon's own uid is always admin. Supplementary groups come from
    ``os.getgrouplist`` (NSS), cached per uid for 60 s. Group names that do not
    exist on this machine are ignored.
    """

    def __init__(self, roles: RolesSettings) -> None:
        self.own_uid = os.getuid()
        self._cache: dict[tuple[int, int], tuple[float, frozenset[int]]] = {}
        self.rules: dict[str, tuple[frozenset[int], frozenset[int]]] = {}
        for role in ("admin", "user"):
            rule = getattr(roles, role)
            gids: set[int] = set()
            for g in rule.groups:
                if isinstance(g, int):
                    gids.add(g)
                    continue
                try:
                    gids.add(grp.getgrnam(g).gr_gid)
                except KeyError:
                    log.debug("roles.group_missing", extra={"kv": {"role": role, "group": g}})
            self.rules[role] = (frozenset(rule.uids), frozenset(gids))

    def _groups(self, uid: int, gid: int) -> frozenset[int]:
        now = time.monotonic()
        hit = self._cache.get((uid, gid))
        if hit and now - hit[0] < _GROUPS_TTL_S:
            return hit[1]
        groups = {gid}
        try:
            groups.update(os.getgrouplist(pwd.getpwuid(uid).pw_name, gid))
        except (KeyError, OSError):
            pass
        result = frozenset(groups)
        self._cache[(uid, gid)] = (now, result)
        return result

    def role_of(self, uid: int, gid: int) -> str | None:
        """``"admin"``, ``"user"`` or None (refused)."""
        if uid == self.own_uid:
            return "admin"
        groups: frozenset[int] | None = None
        for role in ("admin", "user"):
            uids, gids = self.rules[role]
            if uid in uids:
                return role
            if gids:
                groups = groups if groups is not None else self._groups(uid, gid)
                if groups & gids:
                    return role
        return None


def _from_a_tool(pid: int, own_uid: bool) -> bool:
    """A peer below one of the daemon's tool fork servers is tool code, whatever its uid: under a
    daemon that is not root it has the daemon's own uid (admin), and Landlock up to ABI 7 cannot keep
    it from connecting to a path socket. From our own uid, a peer we cannot place is refused too."""
    if not FORK_SERVERS:
        return False
    verdict = tool_process(pid)
    return bool(verdict) or (verdict is None and own_uid)


# ---------------------------------------------------------------------------
# metrics


class ServerMetrics:
    """The server's Prometheus series (``hermes_`` prefix)."""

    def __init__(self, registry: Registry) -> None:
        self.connections = registry.add(Gauge("hermes_connections_open", "Client connections open now."))
        self.connections_total = registry.add(
            Counter("hermes_connections_total", "Connections accepted or refused, by outcome.", ["outcome"]))
        self.requests = registry.add(
            Counter("hermes_requests_total", "Requests by method and outcome (ok or error code).", ["method", "outcome"]))
        self.latency = registry.add(
            Histogram("hermes_request_duration_seconds", "Time from reading a request to writing its reply.", ["method"]))
        self.frame_errors = registry.add(
            Counter("hermes_frame_errors_total", "Lines rejected before dispatch, by code.", ["code"]))


# ---------------------------------------------------------------------------
# connections


@dataclass(slots=True)
class _Flight:
    rid: Any
    method: str
    t0: float
    notification: bool


class Connection(asyncio.Protocol):
    """One client connection: framing, role, pipelined dispatch, flow control."""

    def __init__(self, server: "Server") -> None:
        self.server = server
        self.transport: asyncio.Transport | None = None
        self.decoder = LineDecoder(server.settings.max_line_bytes)
        self.caller: Caller | None = None
        self.cid = 0
        self.inflight: set[asyncio.Task[Any]] = set()
        self.last_activity = time.monotonic()
        self._paused_inflight = False
        self._paused_writing = False
        self._reading_paused = False
        self.closed = False
        self.peer_eof = False

    # -- life cycle -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop transports are not asyncio.Transport subclasses; both have the same API
        srv = self.server
        self.transport = transport  # type: ignore[assignment]
        self.cid = srv.next_cid()
        sock = transport.get_extra_info("socket")
        try:
            pid, uid, gid = _PEERCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size))
        except OSError:
            pid, uid, gid = 0, -1, -1
        role = srv.roles.role_of(uid, gid) if uid >= 0 else None
        kv = {"conn": self.cid, "uid": uid, "gid": gid, "pid": pid}
        if role is not None and _from_a_tool(pid, uid == srv.roles.own_uid):
            srv.metrics.connections_total.inc("refused_role")
            log.warning("conn.refused", extra={"kv": {**kv, "code": "PERMISSION_DENIED", "reason": "tool"}})
            self._refuse(PermissionDenied("a tool's process may not call hermesd"))
            return
        if role is None:
            srv.metrics.connections_total.inc("refused_role")
            log.warning("conn.refused", extra={"kv": {**kv, "code": "PERMISSION_DENIED"}})
            self._refuse(PermissionDenied(f"uid {uid} has no hermesd role (ask an admin to add it to group hermesd)"))
            return
        if srv.closing:
            srv.metrics.connections_total.inc("refused_shutdown")
            self._refuse(RateLimited("daemon is shutting down", data={"reason": "shutdown"}))
            return
        if len(srv.connections) >= srv.settings.max_connections:
            srv.metrics.connections_total.inc("refused_limit")
            log.warning("conn.refused", extra={"kv": {**kv, "code": "RATE_LIMITED",
                                                      "max_connections": srv.settings.max_connections}})
            self._refuse(RateLimited(f"too many connections (max_connections={srv.settings.max_connections})",
                                     data={"retry_after_ms": 1000}))
            return
        self.caller = Caller(uid=uid, gid=gid, pid=pid, role=role)
        srv.connections.add(self)
        srv.metrics.connections_total.inc("accepted")
        log.debug("conn.accept", extra={"kv": {**kv, "role": role}})

    def _refuse(self, exc: HermesError) -> None:
        assert self.transport is not None
        self.closed = True
        self.transport.write(error_response(None, exc.to_error_object()))
        self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.caller is not None:
            self.server.connections.discard(self)
            self.server.on_connection_lost(self)
            log.debug("conn.close", extra={"kv": {"conn": self.cid, "reason": "peer" if exc is None else str(exc)}})
        for task in self.inflight:
            task.cancel()

    def close(self) -> None:
        if self.transport is not None and not self.closed:
            self.closed = True
            self.transport.close()

    # -- flow control ---------------------------------------------------------------

    def pause_writing(self) -> None:
        self._paused_writing = True
        self._update_reading()

    def resume_writing(self) -> None:
        self._paused_writing = False
        self._update_reading()

    def _update_reading(self) -> None:
        if self.transport is None or self.closed:
            return
        want_pause = self._paused_writing or self._paused_inflight
        if want_pause and not self._reading_paused:
            self.transport.pause_reading()
            self._reading_paused = True
        elif not want_pause and self._reading_paused:
            self.transport.resume_reading()
            self._reading_paused = False

    # -- input ----------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        if self.caller is None:
            return
        self.last_activity = time.monotonic()
        for item in self.decoder.feed(data):
            if self.closed:
                return
            if isinstance(item, FrameTooLarge):
                self.server.metrics.frame_errors.inc(item.code)
                log.warning("frame.too_large", extra={"kv": {"conn": self.cid, "max_line_bytes": self.decoder.max_line_bytes}})
                self.write(error_response(None, item.to_error_object()))
            elif item.strip():
                self.server.dispatch(self, item)

    def eof_received(self) -> bool:
        # a half-closed peer still gets the replies to what it already sent; the connection is
        # closed when the last of them is written (Server._task_done), never left half-open
        self.peer_eof = True
        return bool(self.inflight)

    def write(self, payload: bytes) -> None:
        if self.transport is not None and not self.closed:
            self.transport.write(payload)

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        """Send a JSON-RPC notification on this connection (no-op once closed)."""
        self.write(encode({"jsonrpc": "2.0", "method": method, "params": params}))


# ---------------------------------------------------------------------------
# server


class Server:
    """The JSON-RPC server: a method table, a listening socket, its connections.

    :param settings: ``server`` config section. :param roles: ``roles`` section.
    :param registry: where the server's metrics are registered.
    """

    def __init__(self, settings: ServerSettings, roles: RolesSettings, registry: Registry) -> None:
        self.settings = settings
        self.roles = RoleResolver(roles)
        self.metrics = ServerMetrics(registry)
        self.methods: dict[str, Method] = {}
        self._sync: dict[str, bool] = {}
        self.connections: set[Connection] = set()
        self.closing = False
        self.access_level = logging.DEBUG
        self._aserver: asyncio.AbstractServer | None = None
        self._cid = 0
        # trace ids: 8 random hex chars per daemon life + a counter — unique, and no syscall per request
        self._trace_prefix = secrets.token_hex(4)
        self._seq = 0
        self._keys: dict[tuple[str, str], tuple[str, str]] = {}
        self._sweeper: asyncio.TimerHandle | None = None
        self._lost_hooks: list[Callable[[Connection], None]] = []
        self.metrics.connections.collect = lambda: len(self.connections)

    # -- method table ---------------------------------------------------------------

    def add_method(self, method: Method) -> None:
        """Register ``method``; a name may be registered once."""
        if method.name in self.methods:
            raise ValueError(f"method {method.name} registered twice")
        self.methods[method.name] = method
        self._sync[method.name] = not inspect.iscoroutinefunction(method.handler)

    def on_connection_lost_hook(self, fn: Callable[[Connection], None]) -> None:
        """Call ``fn(connection)`` when a client goes away (e.g. drop its subscriptions)."""
        self._lost_hooks.append(fn)

    def on_connection_lost(self, conn: Connection) -> None:
        for fn in self._lost_hooks:
            try:
                fn(conn)
            except Exception:
                log.exception("conn.lost_hook_failed")

    def next_cid(self) -> int:
        self._cid += 1
        return self._cid

    def apply_settings(self, settings: ServerSettings, roles: RolesSettings) -> None:
        """Take new limits and roles (SIGHUP); open connections keep their line limit."""
        self.settings = settings
        self.roles = RoleResolver(roles)

    # -- listening ------------------------------------------------------------------

    async def serve(self, sock: socket.socket) -> None:
        """Start accepting on an already bound, listening socket."""
        loop = asyncio.get_running_loop()
        self._aserver = await loop.create_unix_server(lambda: Connection(self), sock=sock, backlog=_LISTEN_BACKLOG)
        self._schedule_sweep()

    def _schedule_sweep(self) -> None:
        # one timer for all connections, not one per connection
        period = max(0.05, min(self.settings.idle_timeout_s / 4, 5.0))
        self._sweeper = asyncio.get_running_loop().call_later(period, self._sweep_idle)

    def _sweep_idle(self) -> None:
        limit = self.settings.idle_timeout_s
        now = time.monotonic()
        for conn in list(self.connections):
            if not conn.inflight and now - conn.last_activity > limit:
                log.debug("conn.idle_closed", extra={"kv": {"conn": conn.cid, "idle_timeout_s": limit}})
                conn.close()
        if not self.closing:
            self._schedule_sweep()

    def stop_accepting(self) -> None:
        """Close the listening socket; existing connections keep being served."""
        self.closing = True
        if self._aserver is not None:
            self._aserver.close()
        if self._sweeper is not None:
            self._sweeper.cancel()

    async def drain(self, timeout_s: float) -> int:
        """Wait up to ``timeout_s`` for in-flight requests, then cancel the rest.

        :return: how many requests were still running at the deadline.
        """
        deadline = time.monotonic() + timeout_s
        while True:
            pending = [t for c in self.connections for t in c.inflight]
            if not pending:
                break
            left = deadline - time.monotonic()
            if left <= 0:
                for t in pending:
                    t.cancel()
                await asyncio.gather(*pending, return_exceptions=True)
                return len(pending)
            await asyncio.wait(pending, timeout=left)
        return 0

    def close_connections(self) -> None:
        for conn in list(self.connections):
            conn.close()

    # -- dispatch -------------------------------------------------------------------

    def dispatch(self, conn: Connection, line: bytes) -> None:
        t0 = time.perf_counter()
        try:
            req = parse_request(line)
        except InvalidRequest as exc:
            self.metrics.frame_errors.inc(exc.code if exc.rpc_code != -32700 else "PARSE_ERROR")
            rid = exc.data.pop("id", None)
            conn.write(error_response(rid, exc.to_error_object()))
            self.metrics.requests.inc("-", exc.code)
            return
        method = self.methods.get(req.method)
        name = req.method if method is not None else "unknown"
        flight = _Flight(req.id, name, t0, req.is_notification)
        self._seq += 1
        trace_id = f"{self._trace_prefix}{self._seq & 0xFFFFFFFF:08x}"
        token = trace_id_var.set(trace_id)
        try:
            if method is None:
                self._finish(conn, flight, error=self._not_found(req.method, conn.caller))
                return
            assert conn.caller is not None
            if conn.caller.role not in method.roles:
                self._finish(conn, flight, error=PermissionDenied(
                    f"role {conn.caller.role} may not call {method.name}", data={"role": conn.caller.role}))
                return
            if self.closing:
                self._finish(conn, flight, error=HermesError("daemon is shutting down", data={"reason": "shutdown"}))
                return
            try:
                params = self._params(method, req.params)
            except InputInvalid as exc:
                self._finish(conn, flight, error=exc)
                return
            ctx = CallContext(caller=conn.caller, trace_id=trace_id, notify=conn.notify, connection_id=conn.cid)
            if self._sync[method.name]:
                try:
                    result = method.handler(params, ctx)
                except HermesError as exc:
                    self._finish(conn, flight, error=exc)
                except Exception as exc:  # noqa: BLE001 - the boundary where errors become replies
                    self._finish(conn, flight, error=self._internal(method.name, exc))
                else:
                    self._finish(conn, flight, result=result)
                return
            task = asyncio.get_running_loop().create_task(self._run(conn, flight, method, params, ctx))
            conn.inflight.add(task)
            task.add_done_callback(lambda t, c=conn: self._task_done(c, t))
            if len(conn.inflight) >= self.settings.max_inflight_per_connection:
                conn._paused_inflight = True
                conn._update_reading()
        finally:
            trace_id_var.reset(token)

    def _not_found(self, name: str, caller: Caller | None) -> MethodNotFound:
        """No method ``name``: a sentence, with the nearest method the caller may call ("did you
        mean …"), also in ``data.did_you_mean``."""
        import difflib

        mine = [m for m, x in self.methods.items() if caller is None or caller.role in x.roles]
        close = difflib.get_close_matches(name, mine, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return MethodNotFound(f"There is no method {name!r}{hint}",
                              data={"method": name, **({"did_you_mean": close[0]} if close else {})})

    @staticmethod
    def _params(method: Method, raw: dict[str, Any] | list[Any]) -> Any:
        if method.params_model is None:
            return raw
        if isinstance(raw, list):
            if raw:
                raise InputInvalid(f"{method.name} takes named params (an object)")
            raw = {}
        try:
            return method.params_model.model_validate(raw)
        except ValidationError as exc:
            violations = [
                {"pointer": "/" + "/".join(str(p) for p in e["loc"]), "message": e["msg"], "type": e["type"]}
                for e in exc.errors(include_url=False)
            ]
            # the message is read by a person (hermesctl prints it); data.violations keeps each pointer
            raise InputInvalid(f"Invalid params for {method.name}: {errors_sentence(exc.errors())}.",
                               data={"violations": violations}) from None

    @staticmethod
    def _internal(name: str, exc: BaseException) -> HermesError:
        log.error("request.internal_error", exc_info=exc, extra={"kv": {"method": name}})
        return HermesError(f"internal error in {name} (trace {trace_id_var.get()})")

    async def _run(self, conn: Connection, flight: _Flight, method: Method, params: Any, ctx: CallContext) -> None:
        try:
            result = await method.handler(params, ctx)
        except HermesError as exc:
            self._finish(conn, flight, error=exc)
        except asyncio.CancelledError:
            self._finish(conn, flight, error=HermesError("request cancelled: daemon shutting down",
                                                         data={"reason": "shutdown"}))
            raise
        except Exception as exc:  # noqa: BLE001 - the boundary where errors become replies
            self._finish(conn, flight, error=self._internal(method.name, exc))
        else:
            self._finish(conn, flight, result=result)

    def _task_done(self, conn: Connection, task: asyncio.Task[Any]) -> None:
        conn.inflight.discard(task)
        conn.last_activity = time.monotonic()
        if conn.peer_eof and not conn.inflight:
            conn.close()  # the peer is gone and owed nothing more
            return
        if conn._paused_inflight and len(conn.inflight) < self.settings.max_inflight_per_connection:
            conn._paused_inflight = False
            conn._update_reading()

    def _finish(self, conn: Connection, flight: _Flight, *, result: Any = None, error: HermesError | None = None) -> None:
        outcome = "ok" if error is None else error.code
        if not flight.notification:
            if error is None:
                try:
                    payload = encode({"jsonrpc": "2.0", "id": flight.rid, "result": result})
                except TypeError as exc:
                    error = self._internal(flight.method, exc)
                    outcome = error.code
            if error is not None:
                payload = error_response(flight.rid, error.to_error_object())
            conn.write(payload)
        dt = time.perf_counter() - flight.t0
        key = self._keys.get((flight.method, outcome))
        if key is None:
            key = self._keys[(flight.method, outcome)] = (flight.method, outcome)
        self.metrics.requests.inc_key(key)
        self.metrics.latency.observe_key(key[:1], dt)
        if error is not None and error.code not in ("INTERNAL",):
            level = logging.INFO
        else:
            level = self.access_level
        if log.isEnabledFor(level):
            kv = {"method": flight.method, "outcome": outcome, "duration_ms": dt * 1000, "conn": conn.cid}
            if error is not None:
                kv["error"] = error.message
            log.log(level, "request", extra={"kv": kv})

