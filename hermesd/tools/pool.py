"""The sandbox pool, daemon side: a fork server process and the workers it forks (asyncio).

:class:`Pool` starts ``python -I -m hermesd.tools.forkserver`` with
:class:`subprocess.Popen` (``close_fds``; exec right after fork, so the
daemon's threads and event loop are never duplicated) and keeps ``size``
workers per class ready: class ``isolated`` (no network namespace access)
and class ``network`` (only when a tool needs it). The fork server hands
back each worker's socket and a pidfd (pidfd_open(2)) over ``SCM_RIGHTS``, so
calls go straight from the daemon to the worker and the deadline kill
(``pidfd_send_signal`` SIGKILL) can never hit a recycled pid.

Per call: wait for an idle worker until the call's deadline (else
``TOOL_UNAVAILABLE``), send one frame, resolve on the reply frame. Any fault
— deadline passed, CPU or memory limit, signal, ``os._exit``, garbage or an
oversized frame on the socket — raises ``ToolTimeout``, ``ToolOOM``,
``ToolCrashed`` or ``OutputInvalid`` no later than the deadline + 0.5 s, the
worker is never reused, and a replacement is requested at once (the fork
server has the handlers imported already, so this takes a fork, not an
interpreter start). Workers are also retired after ``max_calls`` calls or
when their RSS grew ``max_rss_growth_mb`` past their first call.

Sandboxes (:mod:`hermesd.tools.sandbox`): a worker enters the sandbox of its first
call — the tool, its caller's folders, its grants — and keeps it for life (a
Landlock domain only ever narrows), so idle workers are keyed by that spec. A call
takes an idle worker of its key, else a *spare* (forked with no privileges, not yet
bound) which it binds; when neither exists and the class is at ``size``, the idle
worker used least recently is discarded for a new spare. Specs that need privilege
to enter (supplementary groups, a private mount namespace) are forked bound:
the fork server enters them before dropping its privileges.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..errors import HermesError, OutputInvalid, ToolCrashed, ToolFault, ToolOOM, ToolTimeout, ToolUnavailable
from . import frames, sandbox, worker as worker_mod

__all__ = ["Pool", "WorkerReply"]

log = logging.getLogger(__name__)

FRAME_SLACK_BYTES = 4096
RECV_BYTES = 1 << 16
KILL_GRACE_S = 0.5
START_TIMEOUT_S = 30.0
SPAWN_RETRY_S = 0.2
RESTART_PAUSE_S = 0.05
SETUP_BACKOFF_S = 0.1
SETUP_BACKOFF_MAX_S = 10.0
SETUP_FAILURES_AT_START = 3
OOM_RSS_FRACTION = 0.9
_HEADER = frames.HEADER


@dataclass(slots=True)
class WorkerReply:
    """A worker's answer that is not a sandbox fault.

    ``ok`` with ``output``; or ``ok=False`` with ``code`` ``RAISED`` (the handler
    raised: ``error_code``/``retryable`` from the exception's attributes),
    ``OUTPUT_INVALID`` (not an object, not JSON, too big) or ``TOOL_UNHEALTHY``
    (handler failed to import). ``pid``, ``cpu_ms`` and ``rss_kb`` describe the run.
    """

    ok: bool
    output: dict | None
    pid: int
    cpu_ms: float = 0.0
    rss_kb: int = 0
    code: str = ""
    message: str = ""
    error_code: str | None = None
    retryable: bool = False
    exception: str = ""


@dataclass(eq=False)
class _Worker:
    worker_id: int
    pid: int
    network: bool
    sock: socket.socket
    pidfd: int
    calls: int = 0
    first_rss_kb: int = 0
    busy: bool = False
    dead: bool = False
    buf: bytearray = field(default_factory=bytearray)
    pending: asyncio.Future | None = None
    req_id: int = 0
    limits: dict = field(default_factory=dict)
    key: str | None = None  # the sandbox spec it is bound to; None: a spare
    killed_for: str = ""
    timer: asyncio.TimerHandle | None = None
    rss_growth_kb: int = 0
    retiring: bool = False


@dataclass(eq=False)
class _Waiter:
    fut: asyncio.Future
    key: str
    spec: dict
    at_spawn: bool  # only a worker forked bound to ``spec`` will do


class Pool:
    """Pre-forked sandbox workers behind one fork server.

    :param size: workers kept ready for tools without network access.
    :param network_size: workers kept ready for ``network: true`` tools (0 when none need it).
    :param max_calls: calls after which a worker is retired.
    :param max_rss_growth_mb: RSS growth past a worker's first call that retires it.
    """

    def __init__(self, *, size: int = 2, network_size: int = 0, max_calls: int = 1000,
                 max_rss_growth_mb: int = 32) -> None:
        self.sizes = {False: size, True: network_size}
        self.max_calls = max_calls
        self.max_rss_growth_kb = max_rss_growth_mb * 1024
        self.ready: dict = {}
        self.respawns = 0
        self.faults: collections.Counter[str] = collections.Counter()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._proc: subprocess.Popen | None = None
        self._ctrl: socket.socket | None = None
        self._init: dict = {}
        self._workers: dict[int, _Worker] = {}  # worker_id -> worker
        self._idle: dict[bool, list[_Worker]] = {False: [], True: []}  # least recently used first
        self._waiters: dict[bool, collections.deque[_Waiter]] = {False: collections.deque(),
                                                                  True: collections.deque()}
        self._spawning: dict[bool, int] = {False: 0, True: 0}
        self._spawn_keys: dict[int, str] = {}  # worker_id -> key, for workers forked bound
        #: every spec is entered at spawn (a private mount namespace): spares would be useless
        self.bind_at_spawn = False
        self._next_id = 0
        self._ready_fut: asyncio.Future | None = None
        self._running = False
        self._strength_waiters: list[asyncio.Future] = []
        self._net_ids: set[int] = set()
        self._draining = False
        self._setup_failures = 0
        self.setup_error = ""

    # ---- life cycle -------------------------------------------------------------------------

    async def start(self, *, tools: dict[str, str], tool_env: dict[str, dict[str, str]],
                    worker_env: dict[str, str], user: str, ceilings: dict[str, int],
                    isolation: str = "auto", tool_dirs: dict[str, str] | None = None) -> dict:
        """Start the fork server, check the handlers there, fork the spare workers.

        :param tools: tool name → absolute path of its handler module (``handler.py``, or a
            module shared by several tools that the descriptor names).
        :param tool_dirs: tool name → its folder, when that is not the handler's folder (a shared
            handler): the worker may read both.
        :param user: the worker user when the daemon runs as root.
        :param ceilings: the largest ``memory_mb``, ``max_open_files``,
            ``max_file_bytes``, ``max_processes`` of any tool (hard limits).
        :param isolation: ``auto``, ``landlock``, ``mountns`` or ``none`` (:mod:`hermesd.tools.sandbox`).
        :return: the fork server's ``ready`` message (syntax errors per tool, ``netns``, the
            worker identity, ``filesystem_isolation``, the privileges a probe worker ended with).
        :raises RuntimeError: the fork server did not come up within 30 s.
        """
        self._loop = asyncio.get_running_loop()
        # RLIMIT_NPROC counts every process of the worker uid: this pool's workers, one being replaced
        # per worker, and a pool being retired on reload
        pool_processes = 4 * (self.sizes[False] + self.sizes[True]) + 4
        self._init = {"op": "init", "tools": tools, "tool_dirs": tool_dirs or {}, "tool_env": tool_env,
                      "worker_env": worker_env,
                      "user": user, "ceilings": ceilings, "isolation": isolation,
                      "pool_processes": pool_processes}
        self._running = True
        await self._start_server()
        await self.wait_full_strength(START_TIMEOUT_S)
        return self.ready

    async def _start_server(self) -> None:
        assert self._loop is not None
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # workers inherit this environment from the fork server; glibc reads
        # MALLOC_ARENA_MAX at process start, so it must be set here, not later
        env = dict(self._init["worker_env"])
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-m", "hermesd.tools.forkserver", str(child.fileno())],
                pass_fds=(child.fileno(),), close_fds=True, env=env, cwd="/",
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        finally:
            child.close()
        sandbox.FORK_SERVERS.add(self._proc.pid)  # the server refuses connections from below it
        parent.setblocking(False)
        self._ctrl = parent
        self._ready_fut = self._loop.create_future()
        self._loop.add_reader(parent.fileno(), self._on_ctrl)
        self._send(self._init)
        try:
            self.ready = await asyncio.wait_for(self._ready_fut, START_TIMEOUT_S)
        except (asyncio.TimeoutError, RuntimeError) as exc:
            self._running = False
            await self.stop()
            if isinstance(exc, RuntimeError):
                raise
            raise RuntimeError("tool fork server did not start within 30 s") from None
        self.bind_at_spawn = self.ready.get("filesystem_isolation") == "mountns"
        log.info("tool fork server ready", extra={"kv": {
            "pid": self.ready["pid"], "worker_uid": self.ready["uid"], "netns": self.ready["netns"],
            "filesystem_isolation": self.ready.get("filesystem_isolation"),
            "landlock_abi": self.ready.get("landlock_abi")}})
        self._top_up()

    async def stop_when_idle(self, timeout_s: float) -> None:
        """Refuse new calls, let running ones finish (at most ``timeout_s``), then :meth:`stop`."""
        self._draining = True
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout_s
        try:
            while any(w.busy for w in self._workers.values()) and loop.time() < end:
                await asyncio.sleep(0.01)
        finally:
            await self.stop()

    async def stop(self) -> None:
        """Kill every worker and the fork server; never raises."""
        self._running = False
        for waiters in self._waiters.values():
            while waiters:
                fut = waiters.popleft().fut
                if not fut.done():
                    fut.set_exception(ToolUnavailable("tool pool is stopping"))
        for w in list(self._workers.values()):
            self._fail(w, ToolUnavailable("tool pool is stopping"))
            self._discard(w)
            self._close(w)
        self._workers.clear()
        if self._ctrl is not None and self._loop is not None:
            try:
                self._send({"op": "stop"})
            except OSError:
                pass
            self._loop.remove_reader(self._ctrl.fileno())
            self._ctrl.close()
            self._ctrl = None
        if self._proc is not None:
            proc, self._proc = self._proc, None
            sandbox.FORK_SERVERS.discard(proc.pid)
            for _ in range(100):
                if proc.poll() is not None:
                    break
                await asyncio.sleep(0.02)
            else:
                proc.kill()
                await asyncio.get_running_loop().run_in_executor(None, proc.wait)

    # ---- strength ---------------------------------------------------------------------------

    def strength(self) -> dict[str, int]:
        """Live workers per class, e.g. ``{"isolated": 2, "network": 1}``."""
        out = {"isolated": 0, "network": 0}
        for w in self._workers.values():
            if not w.dead:
                out["network" if w.network else "isolated"] += 1
        return out

    def at_full_strength(self) -> bool:
        """Every class has its configured number of live workers (always, when workers are forked
        bound to their call: there is nothing to fork ahead then)."""
        if self.bind_at_spawn:
            return True
        s = self.strength()
        return s["isolated"] >= self.sizes[False] and s["network"] >= self.sizes[True]

    async def wait_full_strength(self, timeout_s: float) -> float:
        """Wait until :meth:`at_full_strength`; return the seconds waited.

        :raises TimeoutError: not back to strength within ``timeout_s``.
        """
        t0 = time.perf_counter()
        while not self.at_full_strength():
            fut = asyncio.get_running_loop().create_future()
            self._strength_waiters.append(fut)
            await asyncio.wait_for(fut, max(0.0, timeout_s - (time.perf_counter() - t0)))
        return time.perf_counter() - t0

    def worker_pids(self) -> list[int]:
        """Pids of live workers (for tests and ``admin.status``)."""
        return [w.pid for w in self._workers.values() if not w.dead]

    @property
    def server_pid(self) -> int | None:
        """Pid of the fork server process."""
        return self._proc.pid if self._proc is not None else None

    # ---- calls ------------------------------------------------------------------------------

    async def run(self, tool: str, arguments: dict, limits: dict[str, Any], *, network: bool,
                  deadline: float, env: dict[str, str] | None = None, sandbox: dict | None = None) -> WorkerReply:
        """Run one call in a worker.

        :param limits: ``memory_mb, cpu_ms, max_open_files, max_output_bytes,
            max_file_bytes, max_processes`` (see :mod:`hermesd.tools.worker`).
        :param deadline: ``loop.time()`` by which the call must be answered; the
            worker is SIGKILLed then.
        :param env: environment for the tool beyond its own (self-tests use a scratch state dir);
            part of the sandbox spec.
        :param sandbox: the spec beyond the system rules: ``fs`` (``[path, kind]`` rules),
            ``connect`` (TCP ports, ``None`` for any), ``groups`` (gids), ``at_spawn``
            (enter it before dropping privileges); ``None`` is the bare sandbox.
        :raises ToolUnavailable: no worker became free before the deadline, or the sandbox could
            not be entered.
        :raises ToolTimeout / ToolOOM / ToolCrashed / OutputInvalid: the sandbox faults listed above.
        """
        loop = self._loop
        assert loop is not None
        if self._draining:
            raise ToolUnavailable("tool pool is being replaced")
        spec = {"fs": [], "connect": [], "groups": [], **(sandbox or {}), "tool": tool}
        if env:
            spec["env"] = {**spec.get("env", {}), **env}
        at_spawn = bool(spec.pop("at_spawn", False)) or self.bind_at_spawn
        key = orjson.dumps(spec, option=orjson.OPT_SORT_KEYS).decode()
        spec["key"] = key
        w = await self._acquire(network, key, spec, at_spawn, deadline)
        w.req_id += 1
        w.limits = limits
        fut = loop.create_future()
        w.pending = fut
        req: dict[str, Any] = {"id": w.req_id, "tool": tool, "input": arguments, "limits": limits}
        if w.key is None:
            req["bind"] = spec
            w.key = key
        body = orjson.dumps(req)
        data = _HEADER.pack(len(body)) + body
        w.timer = loop.call_at(deadline, self._on_deadline, w)
        try:
            try:
                sent = w.sock.send(data)
            except (BlockingIOError, InterruptedError):
                sent = 0
            if sent < len(data):
                await loop.sock_sendall(w.sock, data[sent:])
        except OSError:
            pass  # the worker died; its exit report resolves the call
        try:
            return await fut
        finally:
            if w.timer is not None:
                w.timer.cancel()
                w.timer = None
            if not fut.done():  # the caller was cancelled mid-call: the worker's state is unknown
                fut.cancel()
                self._discard(w)
            w.pending = None
            self._release(w)

    async def _acquire(self, network: bool, key: str, spec: dict, at_spawn: bool, deadline: float) -> _Worker:
        w = self._take_idle(network, key, at_spawn)
        if w is not None:
            w.busy = True
            return w
        if not self._running:
            raise ToolUnavailable("tool pool is not running")
        if self.sizes[network] <= 0:
            raise ToolUnavailable("no worker class for this tool (network pool size is 0)")
        assert self._loop is not None
        fut = self._loop.create_future()
        self._waiters[network].append(_Waiter(fut, key, spec, at_spawn))
        self._balance(network)
        handle = self._loop.call_at(deadline, _expire, fut)
        try:
            w = await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled() and fut.exception() is None:
                self._release(fut.result())
            raise
        finally:
            handle.cancel()
        return w

    def _take_idle(self, network: bool, key: str, at_spawn: bool) -> _Worker | None:
        idle = self._idle[network]
        for i, w in enumerate(idle):
            if w.key == key and not w.dead:
                return idle.pop(i)
        if not at_spawn:
            for i, w in enumerate(idle):
                if w.key is None and not w.dead:
                    return idle.pop(i)
        return None

    def _release(self, w: _Worker) -> None:
        w.busy = False
        if w.dead:
            return
        if w.retiring or w.calls >= self.max_calls or w.rss_growth_kb > self.max_rss_growth_kb:
            log.info("tool worker retired", extra={"kv": {"pid": w.pid, "calls": w.calls,
                                                          "rss_growth_kb": w.rss_growth_kb}})
            self._discard(w)
            return
        self._offer(w)

    def _offer(self, w: _Worker) -> None:
        waiters = self._waiters[w.network]
        for waiter in list(waiters):
            if waiter.fut.done():
                waiters.remove(waiter)
            elif waiter.key == w.key or (w.key is None and not waiter.at_spawn):
                waiters.remove(waiter)
                w.busy = True
                waiter.fut.set_result(w)
                return
        self._idle[w.network].append(w)
        if waiters:
            self._balance(w.network)  # a waiter for another sandbox may want this slot

    def _balance(self, network: bool) -> None:
        """Fork what the waiting calls need (a spare, or a worker bound to their spec), discarding the
        least recently used idle worker when the class is full; with nobody waiting, top up spares."""
        if not self._running or self._ctrl is None:
            return
        waiters = self._waiters[network]
        for waiter in [x for x in waiters if x.fut.done()]:
            waiters.remove(waiter)
        live = sum(1 for w in self._workers.values() if w.network == network and not w.dead)
        free = self.sizes[network] - live - self._spawning[network]
        keyed = collections.Counter(k for wid, k in self._spawn_keys.items() if (wid in self._net_ids) == network)
        spares_coming = self._spawning[network] - sum(keyed.values())
        needs: list[_Waiter] = []
        for waiter in waiters:
            if waiter.at_spawn and keyed[waiter.key] > 0:
                keyed[waiter.key] -= 1
            elif not waiter.at_spawn and spares_coming > 0:
                spares_coming -= 1
            else:
                needs.append(waiter)
        wanted = {x.key for x in waiters}
        for waiter in needs:
            if free <= 0:
                idle = self._idle[network]
                victim = next((w for w in idle if not w.dead and w.key not in wanted), None)
                if victim is None:
                    return  # every worker is busy or wanted: the call waits for one (or its deadline)
                victim.killed_for = "evicted"
                self._discard(victim)
                free += 1
            self._spawn(network, waiter.spec if waiter.at_spawn else None)
            free -= 1
        if not needs and not self.bind_at_spawn:
            for _ in range(free):
                self._spawn(network, None)

    def _spawn(self, network: bool, spec: dict | None) -> None:
        self._next_id += 1
        if network:
            self._net_ids.add(self._next_id)
        if spec is not None:
            self._spawn_keys[self._next_id] = spec["key"]
        self._spawning[network] += 1
        self._send({"op": "spawn", "worker_id": self._next_id, "network": network, "bind": spec})

    def evict_idle_bound(self) -> int:
        """Discard every idle worker bound to a sandbox (after the self-tests: their scratch folders
        are gone); spares take their places. Returns how many were discarded."""
        n = 0
        for network in (False, True):
            for w in [w for w in self._idle[network] if w.key is not None and not w.dead]:
                w.killed_for = "evicted"
                self._discard(w)
                n += 1
        self._top_up()
        return n

    # ---- worker I/O -------------------------------------------------------------------------

    def _on_readable(self, w: _Worker) -> None:
        try:
            chunk = w.sock.recv(RECV_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._loop.remove_reader(w.sock.fileno())  # type: ignore[union-attr]
            self._discard(w)
            if w.pending is not None and not w.pending.done():
                # the exit report classifies the death; this bounds the wait if it never comes
                self._loop.call_later(KILL_GRACE_S, self._fail, w,  # type: ignore[union-attr]
                                      ToolCrashed("tool worker closed its socket", data={"pid": w.pid}))
            return
        buf = w.buf
        if buf:
            buf += chunk
            data: bytes | bytearray = buf
        else:
            data = chunk  # the usual case: one whole reply in one read, no copying
        pos, end = 0, len(data)
        cap = int(w.limits.get("max_output_bytes", 0)) + FRAME_SLACK_BYTES
        while end - pos >= _HEADER.size:
            (n,) = _HEADER.unpack_from(data, pos)
            if n > cap:
                self._garbage(w, f"frame of {n} bytes exceeds the cap of {cap}")
                return
            if end - pos - _HEADER.size < n:
                break
            body = data[pos + _HEADER.size:pos + _HEADER.size + n]
            pos += _HEADER.size + n
            try:
                msg = orjson.loads(body)
            except orjson.JSONDecodeError:
                self._garbage(w, "frame is not JSON")
                return
            if isinstance(msg, dict) and "setup_error" in msg:
                self.setup_error = str(msg["setup_error"])
                log.error("tool worker setup failed", extra={"kv": {"pid": w.pid, "error": self.setup_error}})
                continue
            if isinstance(msg, dict) and msg.get("code") == "SANDBOX" and w.pending is not None \
                    and not w.pending.done():
                log.error("tool sandbox setup failed", extra={"kv": {"pid": w.pid, "error": msg.get("message")}})
                self._fault(w, ToolUnavailable(f"the tool sandbox could not be set up: {msg.get('message')}",
                                               data={"pid": w.pid}))
                return
            if not isinstance(msg, dict) or msg.get("id") != w.req_id or w.pending is None or w.pending.done():
                self._garbage(w, "unexpected frame")
                return
            self._on_reply(w, msg)
        if data is buf:
            del buf[:pos]
        elif pos < end:
            buf += data[pos:]

    def _on_reply(self, w: _Worker, msg: dict) -> None:
        fut = w.pending
        assert fut is not None
        w.calls += 1
        self._setup_failures = 0
        rss = int(msg.get("rss_kb") or 0)
        if not w.first_rss_kb:
            w.first_rss_kb = rss
        w.rss_growth_kb = rss - w.first_rss_kb
        if msg.get("retire"):
            w.retiring = True  # it exits right after this reply: its heap came close to the limits
        code = msg.get("code", "")
        if msg.get("ok"):
            fut.set_result(WorkerReply(True, msg.get("output"), w.pid, msg.get("cpu_ms", 0.0), rss))
            return
        limits = w.limits
        if code == ToolFault.TIMEOUT:
            self._fault(w, ToolTimeout(f"tool used its {limits.get('cpu_ms')} ms CPU budget",
                                       data={"pid": w.pid, "limit": "cpu_ms"}))
        elif code == ToolFault.OOM:
            self._fault(w, ToolOOM(f"tool passed its memory budget of {limits.get('memory_mb')} MiB",
                                   data={"pid": w.pid, "memory_mb": limits.get("memory_mb")}))
        elif code == ToolFault.OUTPUT_INVALID and not msg.get("fatal"):
            fut.set_exception(OutputInvalid(msg.get("message") or "invalid output", data={"pid": w.pid}))
        elif code in ("RAISED", "TOOL_UNHEALTHY"):
            reply = WorkerReply(False, None, w.pid, msg.get("cpu_ms", 0.0), rss, code, msg.get("message", ""),
                                msg.get("error_code"), bool(msg.get("retryable")), msg.get("exception", ""))
            if code == "RAISED" and not reply.error_code:
                self._discard(w)  # an unexpected exception may leave the worker in any state
            fut.set_result(reply)
        else:
            self._garbage(w, f"unknown reply code {code!r}")

    def _garbage(self, w: _Worker, why: str) -> None:
        self._fault(w, ToolCrashed(f"tool worker wrote garbage: {why}", data={"pid": w.pid}))

    def _fault(self, w: _Worker, exc: HermesError) -> None:
        self._fail(w, exc)
        self._discard(w)

    def _fail(self, w: _Worker, exc: HermesError) -> None:
        fut = w.pending
        if fut is not None and not fut.done():
            self.faults[exc.code] += 1
            fut.set_exception(exc)

    def _on_deadline(self, w: _Worker) -> None:
        w.timer = None
        w.killed_for = "deadline"
        self._discard(w)
        assert self._loop is not None
        self._loop.call_later(KILL_GRACE_S, self._fail, w, ToolTimeout(
            "tool passed its wall-clock deadline", data={"pid": w.pid, "limit": "timeout_ms"}))

    def _kill(self, w: _Worker) -> None:
        try:
            signal.pidfd_send_signal(w.pidfd, signal.SIGKILL)
        except OSError:
            pass

    def _retire(self, w: _Worker) -> None:
        """Mark ``w`` dead and take it out of the idle list (it is never handed a call again)."""
        w.dead = True
        try:
            self._idle[w.network].remove(w)
        except ValueError:
            pass

    def _discard(self, w: _Worker) -> None:
        """Never reuse ``w``: kill it; its exit report frees the slot and triggers the replacement."""
        if w.dead:
            return
        self._retire(w)
        if not w.killed_for:
            w.killed_for = "discarded"
        self._kill(w)

    # ---- control channel --------------------------------------------------------------------

    def _send(self, obj: dict) -> None:
        assert self._ctrl is not None
        self._ctrl.send(orjson.dumps(obj))

    def _on_ctrl(self) -> None:
        assert self._ctrl is not None
        while True:
            try:
                data, fds, _flags, _addr = socket.recv_fds(self._ctrl, 1 << 20, 2)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data, fds = b"", []
            if not data:
                self._on_server_lost()
                return
            msg = orjson.loads(data)
            op = msg.get("op")
            if op == "ready":
                if self._ready_fut is not None and not self._ready_fut.done():
                    self._ready_fut.set_result(msg)
            elif op == "init_failed":
                if self._ready_fut is not None and not self._ready_fut.done():
                    self._ready_fut.set_exception(RuntimeError(f"tool fork server failed: {msg.get('error')}"))
            elif op == "spawned":
                self._on_spawned(msg, fds)
            elif op == "spawn_failed":
                network = msg["worker_id"] in self._net_ids
                self._spawning[network] -= 1
                self._spawn_keys.pop(msg["worker_id"], None)
                log.warning("tool worker fork failed", extra={"kv": {"error": msg.get("error")}})
                self._loop.call_later(SPAWN_RETRY_S, self._top_up)  # type: ignore[union-attr]
            elif op == "exited":
                self._on_exited(msg)

    def _on_spawned(self, msg: dict, fds: list[int]) -> None:
        wid = int(msg["worker_id"])
        network = wid in self._net_ids
        self._spawning[network] -= 1
        sock = socket.socket(fileno=fds[0])
        sock.setblocking(False)
        w = _Worker(worker_id=wid, pid=int(msg["pid"]), network=network, sock=sock, pidfd=fds[1],
                    key=self._spawn_keys.pop(wid, None))
        self._workers[wid] = w
        assert self._loop is not None
        self._loop.add_reader(sock.fileno(), self._on_readable, w)
        if not self._running:
            self._discard(w)
            return
        self._offer(w)
        if self.at_full_strength():
            for fut in self._strength_waiters:
                if not fut.done():
                    fut.set_result(None)
            self._strength_waiters.clear()

    def _on_exited(self, msg: dict) -> None:
        w = self._workers.pop(int(msg["worker_id"]), None)
        if w is None:
            return
        self._retire(w)
        self._close(w)
        self._net_ids.discard(w.worker_id)
        fut = w.pending
        if fut is not None and not fut.done():
            self._fail(w, self._classify(w, msg))
        self.respawns += 1
        if msg.get("exit_code") == worker_mod.EXIT_SETUP:
            # a worker that cannot even start will not start next time either: back off, do not fork-storm
            self._setup_failures += 1
            delay = min(SETUP_BACKOFF_MAX_S, SETUP_BACKOFF_S * 2 ** (self._setup_failures - 1))
            for fut in self._strength_waiters:
                if not fut.done() and self._setup_failures >= SETUP_FAILURES_AT_START:
                    fut.set_exception(RuntimeError(f"tool workers fail to start: {self.setup_error or 'exit 75'}"))
            self._loop.call_later(delay, self._top_up)  # type: ignore[union-attr]
            return
        self._top_up()

    def _close(self, w: _Worker) -> None:
        if w.pidfd < 0:
            return
        assert self._loop is not None
        try:
            self._loop.remove_reader(w.sock.fileno())
        except (ValueError, OSError):
            pass
        w.sock.close()
        os.close(w.pidfd)
        w.pidfd = -1

    def _classify(self, w: _Worker, msg: dict) -> HermesError:
        sig, code = msg.get("signal"), msg.get("exit_code")
        data = {"pid": w.pid, "signal": sig, "exit_code": code}
        limits = w.limits
        if w.killed_for == "deadline":
            return ToolTimeout("tool passed its wall-clock deadline", data={**data, "limit": "timeout_ms"})
        if code == worker_mod.EXIT_TIMEOUT or sig == signal.SIGXCPU or (
                sig == signal.SIGKILL and msg.get("cpu_ms", 0) >= limits.get("cpu_ms", 1 << 30)):
            return ToolTimeout("tool used its CPU budget", data={**data, "limit": "cpu_ms"})
        budget_kb = limits.get("memory_mb", 1 << 30) * 1024
        if code == worker_mod.EXIT_OOM or (sig is not None and msg.get("maxrss_kb", 0) >= OOM_RSS_FRACTION * budget_kb):
            return ToolOOM("tool passed its memory budget", data={**data, "memory_mb": limits.get("memory_mb")})
        how = f"signal {signal.Signals(sig).name}" if sig else f"exit code {code}"
        return ToolCrashed(f"tool worker died ({how})", data=data)

    def _on_server_lost(self) -> None:
        assert self._loop is not None and self._ctrl is not None
        self._loop.remove_reader(self._ctrl.fileno())
        self._ctrl.close()
        self._ctrl = None
        if self._ready_fut is not None and not self._ready_fut.done():
            # it died before it was ready: starting again would fail the same way
            self._ready_fut.set_exception(RuntimeError("tool fork server exited during start-up"))
            if self._proc is not None:
                self._proc.poll()
            return
        for w in list(self._workers.values()):
            self._fail(w, ToolCrashed("tool fork server died", data={"pid": w.pid}))
            w.dead = True
            self._close(w)
        self._workers.clear()
        for q in self._idle.values():
            q.clear()
        self._spawning = {False: 0, True: 0}
        self._spawn_keys.clear()
        if self._proc is not None:
            if self._proc.poll() is None and self._loop is not None:
                # its control socket closed a moment before it exits: reap it off the loop, so the
                # restart's new Popen never leaves this one unwaited (a zombie, a ResourceWarning)
                self._loop.run_in_executor(None, self._proc.wait)
            sandbox.FORK_SERVERS.discard(self._proc.pid)  # what it left is init's now, not below it
        if self._running:
            log.error("tool fork server died; restarting", extra={"kv": {"pid": self.server_pid}})
            self._loop.call_later(RESTART_PAUSE_S, lambda: self._loop.create_task(self._restart()))

    async def _restart(self) -> None:
        if not self._running or self._ctrl is not None:
            return
        try:
            await self._start_server()
        except Exception as exc:  # keep trying: tools are unavailable meanwhile, the daemon lives on
            log.error("tool fork server restart failed", extra={"kv": {"error": str(exc)}})
            assert self._loop is not None
            self._loop.call_later(RESTART_PAUSE_S, lambda: self._loop.create_task(self._restart()))

    def _top_up(self) -> None:
        for network in (False, True):
            self._balance(network)


def _expire(fut: asyncio.Future) -> None:
    if not fut.done():
        fut.set_exception(ToolUnavailable("every tool worker stayed busy until the call's deadline"))
