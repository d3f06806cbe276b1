"""The daemon: the only place that wires subsystems, handles signals and talks to systemd.

Start order: state folder → listening socket (bound, or inherited from
systemd socket activation) → subsystems in order → method table → accept →
``READY=1``. Stop order is the reverse, in a ``finally``: ``STOPPING=1`` → stop
accepting → in-flight requests finish (up to ``server.shutdown_grace_s``) →
connections closed → subsystems stopped in reverse (stores flushed) → socket
file removed → exit 0.

Signals: SIGTERM/SIGINT stop; SIGHUP reloads the config (``RELOADING=1`` …
``READY=1``); a config that no longer validates is logged, every problem on
its own line, and the running one is kept.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from pathlib import Path
from typing import Callable

from . import __version__, lazyre, openssl
from .subsystems.admin import AdminMethods, DebugMethods
from .subsystems.footprint import one_malloc_arena, release_free_heap
from .config import ConfigError, ConfigProblem, HermesConfig, digest, resolve_socket_path, resolve_state_dir
from .logging import setup as setup_logging
from .metrics import Registry
from .metrics_export import MetricsExporter
from .sdnotify import Notifier, watchdog_interval_s
from .server import Server, bind_unix_socket, hold_lock, inherited_socket
from .subsystems.subsystem import DaemonContext, Subsystem

__all__ = ["Daemon", "build_subsystems"]

log = logging.getLogger(__name__)

#: module-level patterns compiled per turn of the event loop after READY (~0.5 ms each on the bench machine)
_REGEXES_PER_STEP = 4


def build_subsystems(cfg: HermesConfig) -> list[list[Subsystem]]:
    """The subsystems of this build as start stages: stages start in order, the
    subsystems of one stage concurrently (they do not depend on each other).

    Each reads its own config section from the :class:`DaemonContext` at start.
    """
    from .subsystems.archive import ArchiveService
    from .subsystems.llm import LlmService
    from .subsystems.memory import MemoryService
    from .subsystems.nlu import NluSubsystem
    from .subsystems.session import SessionService
    from .subsystems.tools import ToolsService

    return [[MemoryService()], [NluSubsystem(), ToolsService(), ArchiveService(), LlmService()], [SessionService()]]


def _link(subsystems: dict[str, Subsystem]) -> None:
    """Cross-subsystem wiring once all are started: the directory's names feed NLU person entities."""
    memory, nlu = subsystems.get("memory"), subsystems.get("nlu")
    graph = getattr(memory, "graph", None)
    directory = getattr(graph, "directory", None)
    if nlu is None or directory is None:
        return
    people: dict[str, str] = {}
    for person in directory.people.values():
        for form in (person.name, *person.aliases):
            if form:
                people[form] = person.anchor_id
            # a pinyin alias puts the family name first: "Zhang" alone names a person too (which
            # one, if several share it, the anchors decide: by memory or by asking)
            words = form.split() if form else []
            if len(words) == 2 and words[0].isascii() and words[0].isalpha() and not person.name.isascii():
                people.setdefault(words[0], person.anchor_id)
    nlu.set_people(people)  # type: ignore[attr-defined]


class Daemon:
    """One hermesd instance.

    :param cfg: validated config. :param reload_config: returns a fresh config
        for SIGHUP / ``admin.reload`` (raises :class:`ConfigError`).
    :param socket_path: overrides the resolved socket path. :param state_dir: same for state.
    """

    def __init__(
        self,
        cfg: HermesConfig,
        reload_config: Callable[[], HermesConfig] | None = None,
    ) -> None:
        self.cfg = cfg
        self.reload_config = reload_config
        self.socket_path = resolve_socket_path(cfg).absolute()
        self.state_dir = resolve_state_dir(cfg).absolute()
        self.registry = Registry()
        self.server = Server(cfg.server, cfg.roles, self.registry)
        self.notifier = Notifier()
        self.exporter = MetricsExporter(cfg.metrics, self.metrics_text)
        self.subsystems: list[Subsystem] = []
        self.started_mono = time.monotonic()
        self.started_wall = time.time()
        self.ready_ms: float | None = None
        self.last_reload: dict[str, object] = {"ok": True, "at": None, "problems": []}
        self._stop = asyncio.Event()
        self._lock_fd: int | None = None
        self._state_lock_fd: int | None = None
        self._owns_socket_file = False
        self._watchdog: asyncio.TimerHandle | None = None
        self._settling: asyncio.Task[None] | None = None
        self._apply_logging(cfg)
        self.registry.gauge("hermes_build_info", "Always 1; the version label is hermesd's version.", ("version",),
                            collect=lambda: {(__version__,): 1})
        self.registry.gauge("hermes_uptime_seconds", "Seconds since the daemon started.",
                            collect=lambda: time.monotonic() - self.started_mono)
        self.registry.gauge("hermes_process_resident_memory_bytes", "Resident set size of the daemon process.",
                            collect=_rss_bytes)
        self.registry.gauge("hermes_start_time_seconds", "Unix time the daemon started.",
                            collect=lambda: self.started_wall)

    def _apply_logging(self, cfg: HermesConfig) -> None:
        setup_logging(cfg.logging.level, cfg.logging.format)
        self.server.access_level = {"off": logging.NOTSET - 1, "debug": logging.DEBUG,
                                    "info": logging.INFO}[cfg.logging.access_log]

    # -- life cycle -------------------------------------------------------------------

    async def run(self) -> int:
        """Serve until SIGTERM/SIGINT or :meth:`request_stop`; returns the exit status."""
        loop = asyncio.get_running_loop()
        one_malloc_arena()  # before the first worker thread (asyncio.to_thread, the L2 writer)
        self.notifier.status("starting")
        # state (L2, tool folders, archive) is for the daemon's user alone; the socket sets its own mode
        os.umask(0o077)
        self.state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        # one daemon per state folder: its L2 file is opened exclusively
        self._state_lock_fd = hold_lock(self.state_dir / ".lock",
                                        f"another hermesd uses the state folder {self.state_dir}")
        sock = inherited_socket()
        if sock is None:
            sock, self._lock_fd = bind_unix_socket(self.socket_path, self.cfg.server.socket_mode)
            self._owns_socket_file = True
        else:
            self.socket_path = Path(sock.getsockname() or self.socket_path)
        try:
            ctx = DaemonContext(config=self.cfg, state_dir=self.state_dir, subsystems={})
            for stage in build_subsystems(self.cfg):
                results = await asyncio.gather(*(self._start_one(sub, ctx) for sub in stage),
                                               return_exceptions=True)
                failed = [r for r in results if isinstance(r, BaseException)]
                if failed:
                    raise failed[0]
            _link(ctx.subsystems)
            self.server.on_connection_lost_hook(self._connection_closed)
            AdminMethods(self).register(self.server)
            if self.cfg.server.debug_methods:
                DebugMethods().register(self.server)
            for sub in self.subsystems:
                for m in sub.methods():
                    self.server.add_method(m)
            await self.server.serve(sock)
            await self.exporter.start()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, self.request_stop, sig.name)
            loop.add_signal_handler(signal.SIGHUP, lambda: loop.create_task(self.reload("SIGHUP")))
            self.ready_ms = (time.monotonic() - self.started_mono) * 1000
            self.notifier.ready(self._status_line())
            log.info("daemon.ready", extra={"kv": {"version": __version__, "pid": os.getpid(),
                                                   "socket": str(self.socket_path), "state_dir": str(self.state_dir),
                                                   "startup_ms": self.ready_ms, "config": digest(self.cfg)}})
            self._start_watchdog()
            for sub in self.subsystems:
                sub.ready()
            self._compile_regexes(loop)
            release_free_heap()  # what the start freed (config, packs, rules, descriptors read)
            self._settling = loop.create_task(self._release_after_start())
            await self._stop.wait()
        finally:
            await self._shutdown(loop)
        return 0

    @staticmethod
    def _compile_regexes(loop: asyncio.AbstractEventLoop) -> None:
        """Once the daemon serves, compile the module-level patterns (:mod:`.lazyre`) no request has
        needed yet, a few per turn of the event loop: READY never waits for them, and the first
        turns rarely do."""

        def step() -> None:
            if lazyre.compile_pending(_REGEXES_PER_STEP):
                loop.call_soon(step)

        loop.call_soon(step)

    async def _release_after_start(self) -> None:
        """Once what starts after READY (the tool pool and its self-tests) has settled, hand the
        heap it freed back to the system (:func:`release_free_heap`), as at READY."""
        for sub in self.subsystems:
            settled = getattr(sub, "settled", None)
            if settled is not None:
                try:
                    await settled()
                except Exception:  # its own health says why; the trim is only about memory
                    log.debug("subsystem.settle_failed", extra={"kv": {"name": sub.name}})
        release_free_heap()

    async def _start_one(self, sub: Subsystem, ctx: DaemonContext) -> None:
        t0 = time.perf_counter()
        try:
            await sub.start(ctx)
        except BaseException as exc:
            log.error("subsystem.start_failed", exc_info=exc, extra={"kv": {"name": sub.name}})
            # stopped in the finally with the others, so what it opened is closed
            self.subsystems.append(sub)
            raise
        ctx.subsystems[sub.name] = sub
        self.subsystems.append(sub)
        sub.register_metrics(self.registry)
        log.info("subsystem.started", extra={"kv": {"name": sub.name, "duration_ms": (time.perf_counter() - t0) * 1000}})

    def _connection_closed(self, conn: object) -> None:
        cid = getattr(conn, "cid", 0)
        for sub in self.subsystems:
            sub.connection_closed(cid)

    def request_stop(self, reason: str = "request") -> None:
        if not self._stop.is_set():
            log.info("daemon.stopping", extra={"kv": {"reason": reason}})
            self._stop.set()

    async def _shutdown(self, loop: asyncio.AbstractEventLoop) -> None:
        self.notifier.stopping()
        if self._watchdog is not None:
            self._watchdog.cancel()
        if self._settling is not None:
            self._settling.cancel()
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            loop.remove_signal_handler(sig)
        self.server.stop_accepting()
        cancelled = await self.server.drain(self.cfg.server.shutdown_grace_s)
        self.server.close_connections()
        await self.exporter.stop()
        for sub in reversed(self.subsystems):
            try:
                await asyncio.wait_for(sub.stop(), timeout=max(5.0, self.cfg.server.shutdown_grace_s))
            except Exception:
                log.exception("subsystem.stop_failed", extra={"kv": {"name": sub.name}})
        if self._owns_socket_file:
            try:
                os.unlink(self.socket_path)
            except FileNotFoundError:
                pass
        if self._lock_fd is not None:
            os.close(self._lock_fd)
        if self._state_lock_fd is not None:
            os.close(self._state_lock_fd)
        log.info("daemon.stopped", extra={"kv": {"cancelled_requests": cancelled,
                                                 "uptime_s": time.monotonic() - self.started_mono}})
        self.notifier.close()

    # -- systemd watchdog -----------------------------------------------------------

    def _start_watchdog(self) -> None:
        interval = watchdog_interval_s()
        if interval is None or not self.notifier.enabled:
            return
        loop = asyncio.get_running_loop()

        def ping() -> None:
            # scheduled on the loop itself: a blocked loop stops the pings and systemd restarts us
            self.notifier.watchdog()
            self._watchdog = loop.call_later(interval, ping)

        log.info("watchdog.enabled", extra={"kv": {"interval_ms": interval * 1000}})
        ping()

    # -- reload -----------------------------------------------------------------------

    async def reload(self, reason: str) -> dict[str, object]:
        """Re-read the config and apply it; the old one stays when the new one is bad.

        :return: ``{"ok": bool, "config": digest, "problems": [str, ...]}``.
        """
        self.notifier.reloading()
        problems: list[str] = []
        try:
            if self.reload_config is None:
                raise ConfigError([])
            new = self.reload_config()
            tls = openssl.needed(new) if openssl.refused() else []
            if tls:  # asyncio and http.client were imported without TLS: it cannot be added now
                raise ConfigError([ConfigProblem("", key, "https needs TLS, which this process did not load at start "
                                                 "(nothing configured then used it); restart hermesd to use it")
                                   for key in tls])
        except ConfigError as exc:
            problems = [str(p) for p in exc.problems] or ["reload is not available for this instance"]
            for p in problems:
                log.error("config.reload_rejected", extra={"kv": {"reason": reason, "problem": p}})
        else:
            self.cfg = new
            self._apply_logging(new)
            self.server.apply_settings(new.server, new.roles)
            if new.metrics != self.exporter.settings:
                problem = await self._restart_exporter(new)
                if problem:
                    problems.append(problem)
            for sub in self.subsystems:
                try:
                    await sub.reload(new)
                except Exception as exc:
                    problems.append(f"{sub.name}: {exc}")
                    log.exception("subsystem.reload_failed", extra={"kv": {"name": sub.name}})
            log.info("config.reloaded", extra={"kv": {"reason": reason, "config": digest(new)}})
            release_free_heap()  # what the new config, rules and packs replaced
        self.last_reload = {"ok": not problems, "at": time.time(), "problems": problems}
        self.notifier.ready(self._status_line())
        return {"ok": not problems, "config": digest(self.cfg), "problems": problems}

    async def _restart_exporter(self, new: HermesConfig) -> str:
        """Swap the metrics listener/textfile for the new ``metrics:`` section; on failure the old
        one comes back and the problem is returned."""
        old = self.exporter
        await old.stop()
        fresh = MetricsExporter(new.metrics, self.metrics_text)
        try:
            await fresh.start()
        except OSError as exc:
            await fresh.stop()
            log.error("metrics.reload_failed", extra={"kv": {"error": str(exc)}})
            try:
                await old.start()
            except OSError:
                log.exception("metrics.restore_failed")
            return f"metrics: {exc.strerror or exc}"
        self.exporter = fresh
        return ""

    # -- status -------------------------------------------------------------------------

    def _status_line(self) -> str:
        return f"serving on {self.socket_path}, {len(self.server.connections)} connections"

    def status(self) -> dict[str, object]:
        """The ``admin.status`` document."""
        subs: dict[str, object] = {"server": {"status": "ok" if not self.server.closing else "stopping",
                                              "socket": str(self.socket_path),
                                              "connections": len(self.server.connections),
                                              "max_connections": self.cfg.server.max_connections}}
        for sub in self.subsystems:
            try:
                subs[sub.name] = sub.health()
            except Exception as exc:
                subs[sub.name] = {"status": "down", "error": str(exc)}
        statuses = [s.get("status") for s in subs.values() if isinstance(s, dict)]
        overall = "ok" if all(s == "ok" for s in statuses) else ("down" if "down" in statuses else "degraded")
        if overall == "degraded" and all(s in ("ok", "starting") for s in statuses):
            overall = "starting"  # READY comes before the tools' self-tests end
        if not self.last_reload["ok"]:
            overall = "degraded" if overall == "ok" else overall
        return {
            "status": overall,
            "version": __version__,
            "pid": os.getpid(),
            "uptime_s": round(time.monotonic() - self.started_mono, 3),
            "started_at": self.started_wall,
            "ready_ms": None if self.ready_ms is None else round(self.ready_ms, 1),
            "rss_bytes": _rss_bytes(),
            "connections": len(self.server.connections),
            "config_digest": digest(self.cfg),
            "last_reload": self.last_reload,
            "state_dir": str(self.state_dir),
            "socket": str(self.socket_path),
            "subsystems": subs,
            "metrics": self.exporter.status(),
        }

    def memory_roots(self) -> dict[str, list[object]]:
        """Part name → roots for ``admin.memory``: the server (connections), then each subsystem's."""
        parts: dict[str, list[object]] = {"server and connections": [self.server]}
        for sub in self.subsystems:
            try:
                parts.update(sub.memory_roots())
            except Exception:
                log.exception("subsystem.memory_roots_failed", extra={"kv": {"name": sub.name}})
        return parts

    def metrics_text(self) -> str:
        """Every family of the daemon's one registry, Prometheus text format 0.0.4."""
        return self.registry.render()


def _rss_bytes() -> int:
    # /proc read is ~10 µs and needs no psutil import on the status path
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
