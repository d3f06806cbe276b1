"""``ToolsService``: the tool runtime as a daemon subsystem (methods ``tools.list``, ``tools.call``, ``tools.health``).

Wiring (``daemon.py``)::

    from hermesd.subsystems.tools import ToolsService
    tools = ToolsService(config.tools)        # ToolsSettings; None → defaults
    await tools.start(DaemonContext(...))     # loads the descriptors: every tool "starting"
    tools.ready()                             # after READY: forks the pool, runs the self-tests
    ...
    result = await tools.call("note", {"action": "recall", "query": "wifi"},
                              role="user", session_id=sid, trace_id=tid)

Tools that keep state (``state: true``) get a data folder per caller,
``<state_dir>/tools/<name>/users/<uid>/`` (``…/daemon/`` for the daemon's own
calls), as ``HERMESD_TOOL_STATE_DIR``; ``needs: [documents_dir, outbox_dir,
directory_file, data_dir]`` adds ``HERMESD_DOCUMENTS_DIR``, ``HERMESD_OUTBOX_DIR``,
``HERMESD_DIRECTORY_FILE``, ``HERMESD_DATA_DIR``. The values are set in the worker's environment for
that tool's calls only, never taken from the caller's input. Self-tests run
with scratch folders in their place, so they never touch real state.

Least privilege (:mod:`hermesd.tools.sandbox`): each call runs in a worker
sandboxed for that tool and that caller — the system read-only, the tool's folder,
a private temp folder, the caller's data folder read-write and what the tool's
``grants`` name, nothing else (the state folder, L2, the archive, tokens and other
callers' data are out of reach). When the daemon runs as root, the folders a worker
writes are handed to the worker user and the folders on the way to them inside
the state folder get the search bit for others (never the read bit), since the
worker has no capability to bypass file modes.
"""

from __future__ import annotations

import asyncio
import grp
import json
import logging
import os
import shutil
import stat
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from ..errors import (BREAKER_FAULTS, HermesError, ToolFault, InputInvalid, OutputInvalid, PermissionDenied, ToolCrashed, ToolNotFound,
                      ToolUnavailable, ToolUnhealthy)
from ..logging import REDACTED, clean_json, redact
from ..metrics import Histogram
from ..metrics import Registry as MetricsRegistry
from ..protocol import Method
from .subsystem import DaemonContext, Subsystem, section
from ..tools.pool import Pool
from ..tools.registry import Registry, Tool
from ..tools.sandbox import LANDLOCK_ABI_NET, reachable
from ..tools.settings import ToolsSettings, resolve_tools_dir
from ..typed import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from ..config import HermesConfig
    from ..protocol import CallContext
    from ..tools.descriptor import Descriptor

__all__ = ["ToolsService", "WORKER_ENV", "annotations"]

log = logging.getLogger(__name__)

#: the whole environment of the fork server and its workers (no inherited secrets)
WORKER_ENV = {
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "LANG": "C.UTF-8",
    "HOME": "/",
    "PYTHONIOENCODING": "utf-8",
    "PYTHONDONTWRITEBYTECODE": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MALLOC_ARENA_MAX": "2",
}
_LOG_ARGS_CHARS = 512
#: A self-test case that ran out of time or found no free worker says nothing about the tool on a
#: loaded machine (every tool's cases start at once): it is run again, up to this many times in all,
#: before the tool is marked unhealthy. A wrong answer fails at once.
_SELF_TEST_ATTEMPTS = 3
_LOAD_FAULTS = frozenset({ToolFault.TIMEOUT, ToolFault.UNAVAILABLE})


class CallParams(BaseModel):
    """``tools.call`` params (Model Context Protocol ``tools/call`` shape)."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=64)
    arguments: dict[str, Any] = {}
    #: a tool declared ``confirm: true`` runs through this raw API only when the client says the
    #: user confirmed (sessions ask with a card instead)
    confirmed: bool = False


class ToolsService(Subsystem):
    """The tool runtime subsystem.

    :param settings: the ``tools:`` section; ``None`` reads ``config.tools`` at
        start, or uses the defaults when the config has no such section.
    """

    name = "tools"

    def __init__(self, settings: ToolsSettings | None = None) -> None:
        self.settings = settings
        self.registry: Registry | None = None
        self.pool: Pool | None = None
        self.state_dir = Path(".")
        self.netns = False
        self._user_dirs: set[Path] = set()
        self._ready: dict = {}
        self._paths: dict[str, str] = {}  # placeholder -> real path for calls
        self._gids: dict[str, list[int]] = {}  # tool -> granted supplementary groups
        self._retiring: dict[asyncio.Task, Pool] = {}  # draining old pools after a reload: task -> pool
        self._bringing_up: asyncio.Task | None = None  # the first start's pool and self-tests
        self._verdicts: dict[Tool, asyncio.Event] = {}  # a tool still starting -> set when it has its verdict
        self.call_seconds = Histogram("hermes_tool_invocation_duration_seconds",
                                      "Time one tools.call took, admission to reply, by tool.", ("tool",))

    # ---- life cycle -------------------------------------------------------------------------

    async def start(self, ctx: DaemonContext) -> None:
        """Load the descriptors and return; the fork server, its workers and the self-tests come up
        in the background once the daemon is READY (:meth:`ready`). Each tool is ``starting`` until
        its cases have run; a call to it meanwhile waits for the verdict within the tool's own
        timeout. :meth:`settled` waits for every verdict."""
        if self.settings is None:
            self.settings = section(ctx.config, "tools", ToolsSettings)
        self.state_dir = Path(ctx.state_dir)
        self.registry, self.pool = self._load(self.settings)

    def ready(self) -> None:
        """Bring the pool up and run the self-tests, after READY: the fork server's own start
        (an interpreter importing every handler) would otherwise take CPU from the daemon's."""
        if self._bringing_up is None and self.registry is not None and self.pool is not None \
                and self.settings is not None:
            self._bringing_up = asyncio.get_running_loop().create_task(
                self._bring_up_in_background(self.registry, self.pool, self.settings))

    async def settled(self) -> None:
        """Wait until every tool of the first start has its verdict (``healthy`` or ``unhealthy``)
        and the pool is at strength; starts the bring-up first if :meth:`ready` was not called
        (a service used without a daemon)."""
        self.ready()
        if self._bringing_up is not None:
            await asyncio.shield(self._bringing_up)

    def _load(self, settings: ToolsSettings) -> tuple[Registry, Pool]:
        """The descriptors (every tool ``starting``) and an unstarted pool sized for them."""
        registry = Registry.load(resolve_tools_dir(settings), settings.breaker)
        for tool in registry.tools.values():
            self._verdicts[tool] = asyncio.Event()
        descs = [t.descriptor for t in registry.tools.values()]
        pool = Pool(size=settings.pool_size,
                    network_size=settings.network_pool_size if any(d.sandbox.network for d in descs) else 0,
                    max_calls=settings.worker_max_calls, max_rss_growth_mb=settings.worker_max_rss_growth_mb)
        return registry, pool

    async def _bring_up_in_background(self, registry: Registry, pool: Pool, settings: ToolsSettings) -> None:
        try:
            await self._bring_up(registry, pool, settings)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the daemon serves on without tools; each says why
            log.error("tools failed to start", exc_info=exc, extra={"kv": {"error": str(exc)}})
            for tool in registry.tools.values():
                if tool.health == "starting":
                    self._settle(tool, "unhealthy", f"the tool sandbox did not start: {exc}")

    def _settle(self, tool: Tool, health: str, failing_case: str | None) -> None:
        """Give ``tool`` its verdict and wake the calls waiting for it."""
        tool.health, tool.failing_case = health, failing_case  # type: ignore[assignment]
        event = self._verdicts.pop(tool, None)
        if event is not None:
            event.set()

    async def _bring_up(self, registry: Registry, pool: Pool, settings: ToolsSettings) -> None:
        """Start the fork server and workers, check grants and handlers, run the self-tests.

        Every tool has its verdict when this returns, or when it raises (the pool is stopped then).
        :raises RuntimeError: the fork server did not come up.
        """
        descs = [t.descriptor for t in registry.tools.values()]
        ceilings = {"memory_mb": max([64, *(d.sandbox.memory_mb for d in descs)]),
                    "max_open_files": max([32, *(d.sandbox.max_open_files for d in descs)]),
                    "max_file_bytes": max([1 << 20, *(d.sandbox.max_file_bytes for d in descs)]),
                    "max_processes": max([32, *(d.sandbox.max_processes for d in descs)])}
        envs = {t.name: self._tool_env(t, settings) for t in registry.tools.values()}
        try:
            ready = await pool.start(tools={n: str(t.descriptor.handler_path) for n, t in registry.tools.items()},
                                     tool_dirs={n: str(t.descriptor.folder.absolute())
                                                for n, t in registry.tools.items()},
                                     tool_env=envs, worker_env=WORKER_ENV, user=settings.worker_user,
                                     ceilings=ceilings, isolation=settings.filesystem_isolation)
            self._ready = ready
            self.netns = bool(ready.get("netns"))
            self._warn_sandbox(ready, descs)
            self._paths = self._placeholders(settings, self.state_dir)
            for tool in registry.tools.values():
                problem = self._check_grants(tool, self._paths)
                if problem:
                    self._settle(tool, "unhealthy", problem)
                    log.error("tool grant refused", extra={"kv": {"tool": tool.name, "reason": problem}})
            self._prepare_dirs(envs, registry)
            self._warn_unreachable_state(registry)
            for name, err in (ready.get("tools") or {}).items():
                if err and registry.tools[name].health == "starting":
                    self._settle(registry.tools[name], "unhealthy", f"handler import failed: {err}")
            if settings.self_test:
                await self._self_test(registry, pool)
            for tool in registry.tools.values():
                if tool.health == "starting":
                    self._settle(tool, "healthy", None)
            if settings.self_test and pool.evict_idle_bound():  # their sandboxes name scratch folders now gone
                try:
                    await pool.wait_full_strength(30.0)
                except TimeoutError:
                    log.warning("tool pool below strength 30 s after the self-tests",
                                extra={"kv": {"workers": pool.strength()}})
        except BaseException:
            await pool.stop()
            raise
        log.info("tools ready", extra={"kv": {
            "folder": str(registry.folder), "healthy": sum(t.health == "healthy" for t in registry.tools.values()),
            "unhealthy": sum(t.health != "healthy" for t in registry.tools.values()) + len(registry.broken),
            "workers": pool.strength(), "netns": self.netns}})

    # ---- the sandbox ------------------------------------------------------------------------

    def _warn_sandbox(self, ready: dict, descs: list["Descriptor"]) -> None:
        """Say at start what cannot be enforced here (each a WARNING, also in ``admin.status``)."""
        if not self.netns and any(not d.sandbox.network for d in descs):
            log.warning("tool network isolation not enforced: no unprivileged network namespace",
                        extra={"kv": {"reason": ready.get("netns_error")}})
        if ready.get("user_warning"):
            log.warning("tool worker user", extra={"kv": {"warning": ready["user_warning"], "uid": ready.get("uid")}})
        if ready.get("filesystem_isolation") == "none":
            log.warning("tool filesystem isolation: none; workers can read whatever their uid can",
                        extra={"kv": {"reason": ready.get("isolation_reason")}})
        abi = int(ready.get("landlock_abi") or 0)
        if any(d.grants.network.connect for d in descs) and (abi < LANDLOCK_ABI_NET
                                                             or ready.get("filesystem_isolation") != "landlock"):
            log.warning("tool network grants cannot be enforced: Landlock TCP rules need ABI 4",
                        extra={"kv": {"landlock_abi": abi}})

    def _warn_unreachable_state(self, registry: Registry) -> None:
        """A root daemon's workers reach their folders only if every folder above the state folder
        lets them pass; the daemon changes modes inside the state folder only, so say it at start."""
        ids = self._worker_ids()
        if ids is None or not any(t.descriptor.state or t.descriptor.needs for t in registry.tools.values()):
            return
        stop = reachable(str(self.state_dir), ids[0], {ids[1]})
        if stop is not None and Path(stop).resolve() != self.state_dir.resolve():
            log.warning("tool workers cannot reach the state folder: give others the search bit (chmod o+x)",
                        extra={"kv": {"folder": stop, "state_dir": str(self.state_dir), "uid": ids[0]}})

    def _placeholders(self, settings: ToolsSettings, state_dir: Path) -> dict[str, str]:
        return {"{documents}": str(Path(settings.documents_dir or state_dir / "documents").resolve()),
                "{outbox}": str(Path(settings.outbox_dir or state_dir / "outbox").resolve()),
                "{directory_file}": str(Path(settings.directory_file or _people_directory()).resolve()),
                "{data_dir}": str(Path(settings.data_dir or state_dir / "data").resolve()),
                "{state}": str(state_dir.resolve())}

    @staticmethod
    def _resolve(path: str, paths: dict[str, str]) -> str:
        head, sep, rest = path.partition("/")
        if head in paths:
            return paths[head] + (sep + rest if rest else "")
        return path

    def _check_grants(self, tool: Tool, paths: dict[str, str]) -> str | None:
        """Why a tool's grants are refused (they would reach the daemon's own state), or None."""
        state = paths["{state}"]
        allowed = [paths["{documents}"], paths["{outbox}"], paths["{directory_file}"], paths["{data_dir}"],
                   str(Path(state) / "tools" / tool.name)]
        for raw in (*tool.descriptor.grants.fs.read, *tool.descriptor.grants.fs.write):
            real = os.path.realpath(self._resolve(raw, paths))
            if real == state or state.startswith(real.rstrip("/") + "/"):
                return f"grant {raw} covers the state folder {state}"
            if real.startswith(state + "/") and not raw.startswith("{state}/") \
                    and not any(real == a or real.startswith(a + "/") for a in allowed):
                return f"grant {raw} reaches into the state folder"
        for name in tool.descriptor.grants.groups:
            try:
                self._gids.setdefault(tool.name, []).append(grp.getgrnam(name).gr_gid)
            except KeyError:
                log.warning("tool group grant skipped: no such group",
                            extra={"kv": {"tool": tool.name, "group": name}})
        return None

    def _spec(self, tool: Tool, data_dir: str | None, paths: dict[str, str],
              env: dict[str, str] | None = None) -> dict[str, Any]:
        """The sandbox of one call: the grants resolved, the caller's data folder, groups, ports."""
        d = tool.descriptor
        fs = [[self._resolve(p, paths), "ro"] for p in d.grants.fs.read]
        fs += [[self._resolve(p, paths), "rw"] for p in d.grants.fs.write]
        env = dict(env or {})
        if d.state and data_dir:
            fs.append([data_dir, "rw"])
            env["HERMESD_TOOL_STATE_DIR"] = data_dir
        groups = self._gids.get(tool.name, []) if self._ready.get("identity") != "daemon" else []
        # a rule for a path that does not exist yet cannot be made: a worker bound while it was
        # missing must not serve the call that follows its creation, so its absence is part of the key
        missing = [p for p, _ in fs if not os.path.lexists(p)]
        return {"fs": fs, "connect": d.grants.network.ports() if d.sandbox.network else [],
                "groups": sorted(groups), "env": env, "at_spawn": bool(groups), "missing": missing}

    def _worker_ids(self) -> tuple[int, int] | None:
        """The worker's uid/gid when it differs from ours (a root daemon), else None."""
        uid, gid = self._ready.get("uid"), self._ready.get("gid")
        if uid is None or uid == os.geteuid():
            return None
        return int(uid), int(gid)

    def _give(self, path: Path, *, write: bool) -> None:
        """Let the worker user reach ``path`` (inside the state folder only): search bits on the way,
        the tree itself handed over (write) or group-readable (read). A no-op for a non-root daemon."""
        ids = self._worker_ids()
        state = self.state_dir.resolve()
        real = path.resolve()
        if ids is None or not (real == state or state in real.parents) or not real.exists():
            return
        for folder in [state, *[p for p in reversed(real.parents) if state in p.parents]]:
            mode = folder.stat().st_mode
            if not mode & stat.S_IXOTH:
                folder.chmod(stat.S_IMODE(mode) | stat.S_IXOTH)  # search only: names inside stay unlisted
        uid, gid = ids
        targets = [real]
        if real.is_dir():
            targets = []
            for root, _dirs, files in os.walk(real):  # symlinked folders are listed, never walked
                targets.append(Path(root))
                targets += [Path(root) / f for f in files]
        for p in targets:
            if p.is_symlink():
                continue
            st = p.lstat()
            if write:
                if st.st_uid != uid:
                    os.chown(p, uid, gid)
            elif not st.st_mode & stat.S_IROTH:
                os.chown(p, -1, gid)
                p.chmod(stat.S_IMODE(st.st_mode) | stat.S_IRGRP | (stat.S_IXGRP if p.is_dir() else 0))

    def _tool_env(self, tool: Tool, settings: ToolsSettings) -> dict[str, str]:
        d = tool.descriptor
        env = {"HERMESD_TOOL_NAME": d.name}
        if d.state:
            env["HERMESD_TOOL_STATE_DIR"] = str(self.state_dir / "tools" / d.name)
        paths = {"documents_dir": ("HERMESD_DOCUMENTS_DIR", settings.documents_dir or self.state_dir / "documents"),
                 "outbox_dir": ("HERMESD_OUTBOX_DIR", settings.outbox_dir or self.state_dir / "outbox"),
                 "directory_file": ("HERMESD_DIRECTORY_FILE",
                                    settings.directory_file or _people_directory()),
                 "data_dir": ("HERMESD_DATA_DIR", settings.data_dir or self.state_dir / "data")}
        for need in d.needs:
            var, path = paths[need]
            env[var] = str(Path(path).resolve())
        return env

    def _prepare_dirs(self, envs: dict[str, dict[str, str]], registry: Registry) -> None:
        for env in envs.values():
            for var in ("HERMESD_TOOL_STATE_DIR", "HERMESD_OUTBOX_DIR", "HERMESD_DOCUMENTS_DIR"):
                if var in env:
                    Path(env[var]).mkdir(parents=True, exist_ok=True)
        for tool in registry.tools.values():
            grants = tool.descriptor.grants.fs
            for raw, write in [(p, False) for p in grants.read] + [(p, True) for p in grants.write]:
                path = Path(self._resolve(raw, self._paths))
                if write and raw.startswith("{") and not path.exists():
                    path.mkdir(parents=True, exist_ok=True)  # a Landlock rule needs the folder to exist
                self._give(path, write=write)

    async def _self_test(self, registry: Registry, pool: Pool) -> None:
        scratch_root = self.state_dir / "selftest"
        # at most one tool per worker at a time, so no case waits for a worker past its deadline
        slots = {net: asyncio.Semaphore(max(1, pool.sizes[net])) for net in (False, True)}

        async def run_cases(tool: Tool) -> None:
            if tool.health != "starting":
                return
            async with slots[tool.descriptor.sandbox.network]:
                await run_cases_now(tool)

        async def run_cases_now(tool: Tool) -> None:
            scratch = scratch_root / tool.name
            shutil.rmtree(scratch, ignore_errors=True)
            env = {}
            for var in ("HERMESD_TOOL_STATE_DIR", "HERMESD_OUTBOX_DIR", "HERMESD_DOCUMENTS_DIR"):
                path = scratch / var.lower()
                path.mkdir(parents=True)
                env[var] = str(path)
            paths = {**self._paths, "{documents}": env["HERMESD_DOCUMENTS_DIR"],
                     "{outbox}": env["HERMESD_OUTBOX_DIR"], "{state}": str(scratch / "state")}
            for raw in tool.descriptor.grants.fs.write:
                if raw.startswith("{"):
                    Path(self._resolve(raw, paths)).mkdir(parents=True, exist_ok=True)
            self._give(scratch, write=True)
            data = env.pop("HERMESD_TOOL_STATE_DIR")
            spec = self._spec(tool, data, paths, env if tool.descriptor.needs else None)
            try:
                for case in tool.cases:
                    for attempt in range(1, _SELF_TEST_ATTEMPTS + 1):
                        output, error, detail = None, None, ""
                        try:
                            res = await self._execute(tool, case.input, pool, spec=spec)
                            if res["ok"]:
                                output = res["output"]
                            else:
                                error, detail = res["error"]["code"], res["error"]["message"]
                        except HermesError as exc:
                            error, detail = exc.code, exc.message
                        if error not in _LOAD_FAULTS or attempt == _SELF_TEST_ATTEMPTS:
                            break
                        log.warning("tool self-test retried", extra={"kv": {
                            "tool": tool.name, "case": case.name, "error": error, "attempt": attempt}})
                    why = case.check(output, error)
                    if why is not None:
                        why += f" ({detail})" if detail else ""
                        self._settle(tool, "unhealthy", f"{case.name}: {why}")
                        log.error("tool self-test failed", extra={"kv": {"tool": tool.name, "case": case.name,
                                                                          "reason": why}})
                        return
                self._settle(tool, "healthy", None)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)

        scratch_root.mkdir(parents=True, exist_ok=True)
        self._give(scratch_root, write=False)
        await asyncio.gather(*(run_cases(t) for t in registry.tools.values()))
        shutil.rmtree(scratch_root, ignore_errors=True)

    async def stop(self) -> None:
        if self._bringing_up is not None and not self._bringing_up.done():
            self._bringing_up.cancel()  # it stops its pool on the way out
            await asyncio.gather(self._bringing_up, return_exceptions=True)
        retiring = dict(self._retiring)
        for task in retiring:
            task.cancel()
        await asyncio.gather(*retiring, return_exceptions=True)
        for old in retiring.values():
            # a task cancelled before it first ran never reached its own stop(): the old fork
            # server and its workers would outlive the daemon (stop() is idempotent)
            await old.stop()
        if self.pool is not None:
            await self.pool.stop()

    async def reload(self, config: "HermesConfig") -> None:
        """Reload descriptors and handlers (a new fork server), self-test, then swap; keep the old set on failure."""
        settings = section(config, "tools") or self.settings or ToolsSettings()
        # the first start finishes first: a reload never races its self-tests for the pool in use
        await asyncio.gather(self.settled(), return_exceptions=True)
        registry = None
        try:
            registry, pool = self._load(settings)
            await self._bring_up(registry, pool, settings)
        except Exception as exc:
            for tool in registry.tools.values() if registry is not None else ():
                self._verdicts.pop(tool, None)
            log.error("tools reload failed; keeping the old tools", extra={"kv": {"error": str(exc)}})
            return
        old, self.pool, self.registry, self.settings = self.pool, pool, registry, settings
        if old is not None:
            # calls already running on the old pool finish there; new calls go to the new one
            grace_s = max([2.0, *(t.descriptor.sandbox.timeout_ms / 1000 for t in registry.tools.values())]) + 1
            task = asyncio.get_running_loop().create_task(old.stop_when_idle(grace_s))
            self._retiring[task] = old
            task.add_done_callback(lambda t: self._retiring.pop(t, None))
        log.info("tools reloaded", extra={"kv": {"tools": len(registry.tools)}})

    def descriptor(self, name: str) -> "Descriptor | None":
        """The descriptor of tool ``name`` (``confirm``, ``roles``, ``idempotent``, schemas), or None."""
        tool = self.registry.get(name) if self.registry is not None else None
        return tool.descriptor if tool is not None else None

    # ---- calls ------------------------------------------------------------------------------

    async def call(self, name: str, arguments: dict[str, Any], *, role: str, session_id: str | None = None,
                   trace_id: str | None = None, uid: int | None = None) -> dict[str, Any]:
        """Run tool ``name`` with ``arguments`` for a caller of ``role``.

        :return: ``{"ok": True, "output": {...}, "duration_ms": float}``, or for a
            business error the tool declared ``{"ok": False, "error": {"code",
            "message", "retryable"}, "duration_ms": float}``.
        :raises ToolNotFound, PermissionDenied, ToolUnhealthy: before anything runs.
        :raises ToolUnavailable: breaker open (``data.retry_after_ms``) or no free worker before the deadline.
        :raises InputInvalid: ``data.violations`` lists each ``{pointer, message, rule}``.
        :raises OutputInvalid, ToolTimeout, ToolOOM, ToolCrashed: the tool misbehaved.
        """
        t0 = time.perf_counter()
        registry, pool = self.registry, self.pool
        if registry is None or pool is None:
            raise ToolUnavailable("the tool runtime is not running")
        tool = registry.get(name)
        outcome, pid, result = "error", None, None
        try:
            if tool is None:
                raise ToolNotFound(f"no tool named {name!r}", data={"tool": name})
            if role not in tool.descriptor.roles:
                raise PermissionDenied(f"role {role!r} may not call {name}", data={"tool": name})
            if tool.health == "starting":
                # the wait for its verdict takes at most the tool's own timeout; the call itself
                # then has its whole timeout, as any other call
                self.ready()  # a service used without a daemon comes up on its first call
                await self._await_verdict(
                    tool, asyncio.get_running_loop().time() + tool.descriptor.sandbox.timeout_ms / 1000)
            if tool.health != "healthy":
                raise ToolUnhealthy(f"{name} failed its self-test: {tool.failing_case}",
                                    data={"tool": name, "failing_case": tool.failing_case})
            now_ms = time.monotonic() * 1000
            ticket = tool.breaker.admit(now_ms)
            if ticket is None:
                raise ToolUnavailable(f"{name} is failing; its circuit breaker is {tool.breaker.state}",
                                      data={"tool": name, "breaker": tool.breaker.state,
                                            "retry_after_ms": tool.breaker.retry_after_ms(now_ms)})
            infra_ok: bool | None = None
            try:
                result = await self._execute(tool, arguments, pool,
                                             spec=self._spec(tool, self._caller_dir(tool, uid), self._paths))
                infra_ok = result["ok"] or not result["error"]["retryable"]
            except (InputInvalid, ToolUnavailable):
                infra_ok = None  # not the tool's fault
                raise
            except HermesError as exc:
                infra_ok = exc.code not in BREAKER_FAULTS
                raise
            finally:
                if infra_ok is None:
                    tool.breaker.release(ticket)
                else:
                    tool.breaker.record(ticket, infra_ok, time.monotonic() * 1000)
            pid = result.pop("pid", None)
            outcome = "ok" if result["ok"] else result["error"]["code"]
            return result
        except HermesError as exc:
            outcome = exc.code
            pid = exc.data.get("pid")
            raise
        finally:
            ms = round((time.perf_counter() - t0) * 1000, 3)
            if result is not None:
                result["duration_ms"] = ms
            if tool is not None:
                tool.calls += 1
                tool.outcomes[outcome] = tool.outcomes.get(outcome, 0) + 1
                if outcome in BREAKER_FAULTS:
                    tool.failures += 1
                self.call_seconds.observe_key((tool.name,), ms / 1000)
            if log.isEnabledFor(logging.INFO):
                log.info("tool call", extra={"kv": {
                    "tool": name, "outcome": outcome, "duration_ms": ms, "pid": pid, "session": session_id,
                    "trace": trace_id, "role": role, "args": self._loggable(tool, arguments)}})

    @staticmethod
    def _loggable(tool: Tool | None, arguments: Any) -> str:
        if isinstance(arguments, dict) and tool is not None and tool.descriptor.secrets:
            arguments = {k: (REDACTED if k in tool.descriptor.secrets else v) for k, v in arguments.items()}
        # a tool's arguments (a pack's tracked state is hundreds of values) are walked for secrets
        # only when one could be there (clean_json: one orjson pass), as the turn log's are
        text = clean_json(arguments)
        if text is None:
            text = json.dumps(redact(arguments), ensure_ascii=False, separators=(",", ":"), default=str)
        return text if len(text) <= _LOG_ARGS_CHARS else text[:_LOG_ARGS_CHARS] + "…"

    def _caller_dir(self, tool: Tool, uid: int | None) -> str | None:
        """A stateful tool (``state: true``) keeps each caller's data apart: its data folder for a
        call is ``<state_dir>/tools/<name>/users/<uid>`` (``…/daemon`` without a caller), made on
        first use and handed to the worker user; the worker may reach that folder only."""
        if not tool.descriptor.state:
            return None
        base = self.state_dir / "tools" / tool.name
        path = base / "daemon" if uid is None else base / "users" / str(uid)
        if path not in self._user_dirs:
            path.mkdir(parents=True, exist_ok=True)
            path.chmod(0o700)
            self._give(path, write=True)  # data from before least privilege was root's: hand it over
            self._user_dirs.add(path)
        return str(path)

    async def _await_verdict(self, tool: Tool, deadline: float) -> None:
        """Wait until a ``starting`` tool has passed or failed its self-test, at most until ``deadline``
        (``loop.time()``).

        :raises ToolUnavailable: still starting at the deadline (``data.health`` = ``starting``).
        """
        event = self._verdicts.get(tool)
        if event is not None and not event.is_set():
            loop = asyncio.get_running_loop()
            try:
                await asyncio.wait_for(event.wait(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                pass
        if tool.health == "starting":
            raise ToolUnavailable(f"{tool.name} is still starting: its self-test has not finished; try again shortly",
                                  data={"tool": tool.name, "health": "starting", "retry_after_ms": 1000})

    async def _execute(self, tool: Tool, arguments: Any, pool: Pool, *,
                       spec: dict[str, Any] | None = None) -> dict[str, Any]:
        """Validate, run in the sandbox, validate the output (no breaker, no health gate)."""
        d = tool.descriptor
        value, violations = tool.input_validator.validate(arguments)
        if violations:
            raise InputInvalid(f"invalid input for {d.name}: {violations[0]['message']}",
                               data={"tool": d.name, "violations": violations})
        reply = await pool.run(d.name, value, tool.limits, network=d.sandbox.network,
                               deadline=asyncio.get_running_loop().time() + d.sandbox.timeout_ms / 1000,
                               sandbox=spec)
        if reply.ok:
            _, violations = tool.output_validator.validate(reply.output)
            if violations:
                raise OutputInvalid(f"{d.name} returned output that breaks its schema: {violations[0]['message']}",
                                    data={"tool": d.name, "violations": violations, "pid": reply.pid})
            return {"ok": True, "output": reply.output, "pid": reply.pid}
        if reply.code == "TOOL_UNHEALTHY":
            raise ToolUnhealthy(reply.message, data={"tool": d.name})
        if reply.error_code and reply.error_code in d.errors:
            return {"ok": False, "error": {"code": reply.error_code, "message": reply.message or d.errors[
                reply.error_code], "retryable": reply.retryable}, "pid": reply.pid}
        what = (f"undeclared error code {reply.error_code}" if reply.error_code
                else f"{reply.exception}: {reply.message}")
        raise ToolCrashed(f"{d.name} raised {what}", data={"tool": d.name, "pid": reply.pid})

    # ---- methods ----------------------------------------------------------------------------

    def methods(self) -> list[Method]:
        return [Method("tools.list", self._m_list), Method("tools.call", self._m_call, params_model=CallParams),
                Method("tools.health", self._m_health)]

    def describe(self, role: str | None = None) -> list[dict[str, Any]]:
        """Tools in Model Context Protocol ``tools/list`` shape (``name``, ``description``,
        ``inputSchema``, ``outputSchema``, ``annotations``), only those ``role`` may call when given.

        hermesd's own fields are in the tool's ``_meta`` under the ``hermesd/`` prefix (the MCP
        ``MetaObject`` key rules, schema 2025-06-18 and later): ``version``, ``description_zh``,
        ``confirm``, ``roles``, ``health``, ``breaker``, ``failing_case``, ``grants``
        (:meth:`grants_view`).
        """
        out: list[dict[str, Any]] = []
        registry = self.registry
        if registry is None:
            return out
        for tool in registry.tools.values():
            d = tool.descriptor
            if role is not None and role not in d.roles:
                continue
            out.append({
                "name": d.name, "description": d.text("en"), "inputSchema": d.input, "outputSchema": d.output,
                "annotations": annotations(d),
                "_meta": _meta(version=d.version, description_zh=d.description.get("zh"), confirm=d.confirm,
                               roles=sorted(d.roles), health=tool.health, breaker=tool.breaker.state,
                               failing_case=tool.failing_case, grants=self.grants_view(tool))})
        if role in (None, "admin"):
            for name, problems in registry.broken.items():
                out.append({"name": name, "description": "", "inputSchema": {"type": "object"},
                            "_meta": _meta(health="unhealthy", breaker="closed", failing_case=problems[0])})
        return out

    def grants_view(self, tool: Tool) -> dict[str, Any]:
        """What a tool may reach beyond the bare sandbox, as declared and as enforced here.

        ``fs``/``groups``/``network`` as in tool.yaml plus ``data`` (the caller's folder of a
        stateful tool), ``network_class`` (``isolated``: its own network namespace) and
        ``not_enforced``: each declared grant this machine cannot hold the tool to.
        """
        d = tool.descriptor
        view: dict[str, Any] = d.grants.summary()
        view["data"] = "{state}/tools/%s/users/<uid> (read-write)" % d.name if d.state else None
        view["network_class"] = "host" if d.sandbox.network else "isolated"
        gaps: list[str] = []
        ready = self._ready
        if d.grants.network.connect:
            if any(not e.startswith("*:") for e in d.grants.network.connect):
                gaps.append("network hosts: Landlock filters TCP by port only")
            if int(ready.get("landlock_abi") or 0) < LANDLOCK_ABI_NET or \
                    ready.get("filesystem_isolation") != "landlock":
                gaps.append("network ports: needs Landlock ABI 4")
        elif d.sandbox.network and (int(ready.get("landlock_abi") or 0) < LANDLOCK_ABI_NET
                                    or ready.get("filesystem_isolation") != "landlock"):
            gaps.append("TCP connect denial: needs Landlock ABI 4")
        if d.grants.groups and ready.get("identity") == "daemon":
            gaps.append("groups: the daemon is not root; workers keep the daemon's groups")
        if ready.get("filesystem_isolation") == "none":
            gaps.append("fs: no filesystem isolation on this machine")
        view["not_enforced"] = gaps
        return view

    def sandbox_status(self) -> dict[str, Any]:
        """The sandbox as it stands on this machine (``tools.health`` and ``admin.status``)."""
        r = self._ready
        priv = r.get("privileges") or {}
        return {"filesystem_isolation": r.get("filesystem_isolation", "none"),
                "isolation_reason": r.get("isolation_reason") or None,
                "landlock_abi": r.get("landlock_abi", 0),
                "landlock_scopes": (r.get("landlock") or {}).get("scoped", []),
                "network_rules": "landlock" if (r.get("filesystem_isolation") == "landlock"
                                                and int(r.get("landlock_abi") or 0) >= LANDLOCK_ABI_NET)
                else "not enforced",
                "network_namespace": bool(r.get("netns")),
                "worker_uid": r.get("uid"), "worker_user": r.get("user"), "identity": r.get("identity"),
                "user_warning": r.get("user_warning") or None,
                "capabilities": priv.get("capabilities", "unknown"), "bounding_set": priv.get("bounding"),
                "securebits": priv.get("securebits"), "no_new_privs": bool(priv.get("no_new_privs")),
                "nproc_scope": r.get("nproc_scope"), "unveiled": r.get("unveiled") or {}}

    async def _m_list(self, params: Any, ctx: "CallContext") -> dict[str, Any]:
        return {"tools": self.describe(ctx.caller.role)}

    async def _m_call(self, params: CallParams, ctx: "CallContext") -> dict[str, Any]:
        tool = self.registry.get(params.name) if self.registry is not None else None
        if tool is not None and tool.descriptor.confirm and ctx.caller.role != "admin":
            # a tool that changes something runs for users only through a session: the rules decide
            # who may do what, and the user confirms a card
            raise PermissionDenied(f"{params.name} needs confirmation: users run it through a session",
                                   data={"tool": params.name, "role": ctx.caller.role})
        if tool is not None and tool.descriptor.confirm and not params.confirmed:
            raise InputInvalid(f"{params.name} changes something and needs the user's confirmation: "
                               "ask, then call again with confirmed: true",
                               data={"tool": params.name, "needs_confirmation": True})
        res = await self.call(params.name, params.arguments, role=ctx.caller.role, trace_id=ctx.trace_id,
                              uid=ctx.caller.uid)
        if res["ok"]:
            return {"content": [{"type": "text", "text": json.dumps(res["output"], ensure_ascii=False)}],
                    "structuredContent": res["output"], "isError": False}
        err = res["error"]
        return {"content": [{"type": "text", "text": err["message"]}], "structuredContent": {"error": err},
                "isError": True, "_meta": _meta(code=err["code"], retryable=err["retryable"])}

    async def _m_health(self, params: Any, ctx: "CallContext") -> dict[str, Any]:
        return self.health()

    def memory_roots(self) -> dict[str, list[Any]]:
        return {"tool pool and registry": [self.pool, self.registry]}

    def health(self) -> dict[str, Any]:
        registry, pool = self.registry, self.pool
        if registry is None or pool is None:
            return {"status": "down"}
        tools = {t.name: {"health": t.health, "breaker": t.breaker.state, "failing_case": t.failing_case,
                          "calls": t.calls, "failures": t.failures} for t in registry.tools.values()}
        for name, problems in registry.broken.items():
            tools[name] = {"health": "unhealthy", "breaker": "closed", "failing_case": problems[0]}
        bad = [n for n, t in tools.items() if t["health"] != "healthy" or t["breaker"] != "closed"]
        status = "ok" if not bad and pool.at_full_strength() else "degraded"
        # until the pool is up, every verdict given and the workers back to strength
        bringing_up = self._bringing_up is None or not self._bringing_up.done()
        starting = bringing_up or any(t["health"] == "starting" for t in tools.values())
        if not any(t["health"] == "healthy" for t in tools.values()) and not starting:
            status = "down" if tools else "degraded"
        elif starting and not any(t["health"] == "unhealthy" or t["breaker"] != "closed" for t in tools.values()):
            status = "starting"  # self-tests still running: calls to a starting tool wait for them
        return {"status": status, "starting": starting, "tools": tools, "folder": str(registry.folder),
                "pool": {"workers": pool.strength(), "sizes": {"isolated": pool.sizes[False],
                                                                "network": pool.sizes[True]},
                         "respawns": pool.respawns, "fork_server_pid": pool.server_pid,
                         "worker_uid": self._ready.get("uid")},
                "network_isolation": self.netns,
                "filesystem_isolation": self._ready.get("filesystem_isolation", "none"),
                "sandbox": self.sandbox_status()}

    def register_metrics(self, registry: MetricsRegistry) -> None:
        """Tool invocations, breakers, health, sandbox OOM kills and the worker pool; the counts
        are the ones the tools and the pool keep, read at scrape time."""
        def tools() -> Iterable[Tool]:
            return self.registry.tools.values() if self.registry is not None else ()

        state_num = {"closed": 0, "half_open": 1, "open": 2}
        registry.counter("hermes_tool_invocations_total",
                         "tools.call invocations by tool and outcome (ok, or the stable error code).",
                         ("tool", "outcome"),
                         collect=lambda: {(t.name, o): n for t in tools() for o, n in t.outcomes.items()})
        registry.add(self.call_seconds)
        registry.counter("hermes_sandbox_oom_kills_total",
                         "Tool workers stopped for passing their memory budget (TOOL_OOM), by tool.", ("tool",),
                         collect=lambda: {(t.name,): t.outcomes.get("TOOL_OOM", 0) for t in tools()})
        registry.gauge("hermes_tool_breaker_state",
                       "Circuit breaker state by tool: 0 closed, 1 half-open, 2 open.", ("tool",),
                       collect=lambda: {(t.name,): state_num[t.breaker.state] for t in tools()})
        registry.counter("hermes_tool_breaker_transitions_total", "Circuit breaker state changes by tool.",
                         ("tool",), collect=lambda: {(t.name,): t.breaker.transitions for t in tools()})

        def healthy() -> dict[tuple[str, ...], float]:
            out: dict[tuple[str, ...], float] = {(t.name,): float(t.health == "healthy") for t in tools()}
            if self.registry is not None:
                out.update({(name,): 0.0 for name in self.registry.broken})
            return out

        registry.gauge("hermes_tool_healthy", "1 if the tool passed its self-test cases at load, else 0.",
                       ("tool",), collect=healthy)
        registry.gauge("hermes_tool_workers", "Live sandbox worker processes by class (isolated, network).",
                       ("class",),
                       collect=lambda: {(k,): v for k, v in self.pool.strength().items()} if self.pool else {})
        registry.counter("hermes_tool_worker_respawns_total", "Sandbox workers replaced after one died or retired.",
                         collect=lambda: self.pool.respawns if self.pool else 0)


def annotations(d: "Descriptor") -> dict[str, bool]:
    """Model Context Protocol ``ToolAnnotations`` from a descriptor (schema 2025-06-18 and later).

    Read-only unless the tool keeps state, writes to the outbox or is ``confirm: true``;
    ``destructiveHint`` (meaningful only when not read-only, default true in the spec) is the
    ``confirm`` flag, so a stateful tool that only adds is marked non-destructive;
    ``openWorldHint`` (default true) is set for network tools only.
    """
    read_only = not (d.confirm or d.state or "outbox_dir" in d.needs)
    out = {"readOnlyHint": read_only, "idempotentHint": d.idempotent,
           "openWorldHint": d.sandbox.network or d.kind == "network"}
    if not read_only:
        out["destructiveHint"] = d.confirm
    return out


def _meta(**fields: Any) -> dict[str, Any]:
    """A ``_meta`` object with hermesd's keys under the ``hermesd/`` prefix."""
    return {f"hermesd/{k}": v for k, v in fields.items()}


def _people_directory() -> Path:
    """The people directory the ``contacts`` tool reads by default: the same file the anchors use."""
    from ..section import shipped_path

    return shipped_path("config", "directory.yaml")
