"""The fork server: a lean, single-threaded parent that forks sandbox workers (standard library only).

Started by the daemon as its own process, ``python -I -m hermesd.tools.forkserver FD``
(via :mod:`subprocess` with ``close_fds``), so workers inherit neither the
daemon's threads nor its ~170 MB of mapped libraries: a worker's memory limit
then means memory. It imports only the standard library,
:mod:`hermesd.tools.worker`, :mod:`hermesd.tools.sandbox` and :mod:`hermesd.recurrence` (a pure,
standard-library-only engine a handler may import: the reminder tool computes the same repeating
schedules as the daemon's event bus, and the sandbox reads no package file later); it never imports a
tool's handler (a worker does, inside its sandbox), it only compiles it to report
syntax errors at start.

Control channel: descriptor ``FD``, an ``AF_UNIX``/``SOCK_SEQPACKET`` socket;
every message is one UTF-8 JSON object (≤ 1 MiB, boundaries kept by the
socket, never pickle).

daemon → server::

    {"op": "init", "tools": {name: handler_path}, "tool_dirs": {name: folder}, "tool_env": {name: {VAR: value}},
     "worker_env": {VAR: value}, "user": "hermesd-tool", "isolation": "auto",
     "pool_processes": int, "ceilings": {memory_mb, max_open_files, max_file_bytes, max_processes}}
    {"op": "spawn", "worker_id": int, "network": bool, "bind": spec | null}
    {"op": "stop"}

server → daemon::

    {"op": "ready", "pid": int, "tools": {name: null | "syntax error"}, "netns": bool,
     "netns_error": str, "uid": int, "gid": int, "user": str | null, "identity": str,
     "user_warning": str, "filesystem_isolation": "landlock" | "mountns" | "none",
     "isolation_reason": str, "landlock_abi": int, "privileges": {...}, "landlock": {...},
     "unveiled": {folder: [paths]}, "userns": bool, "nproc_scope": str}
    {"op": "spawned", "worker_id": int, "pid": int}  + SCM_RIGHTS [socket, pidfd]
    {"op": "spawn_failed", "worker_id": int, "error": str}
    {"op": "exited", "worker_id": int, "pid": int, "exit_code": int | null,
     "signal": int | null, "cpu_ms": float, "maxrss_kb": int}

Who the workers are (capabilities(7), user_namespaces(7)):

* daemon running as root: the worker user (``tools.worker_user``, ``hermesd-tool``
  from ``systemd/hermesd.sysusers.conf``). When that account does not exist, or
  names root, the daemon's own uid or ``nobody`` (shared with other services, so
  ``RLIMIT_NPROC`` would count their processes), the workers get an unallocated uid
  from 65533 down to 65520 — a range systemd's UIDS-GIDS.md leaves unused — and
  ``user_warning`` says why; never root, never the daemon's uid. The uid is the
  pool's own, so ``RLIMIT_NPROC`` counts the pool's processes only.
* daemon not root: it cannot setuid; workers keep its uid, each in a user
  namespace of its own where the kernel allows unprivileged ones (so the bounding
  set can be emptied and, since Linux 5.14, ``RLIMIT_NPROC`` counts the worker's own
  processes), and Landlock keeps them from the daemon's files.

Each worker is a session and process-group leader with ``PR_SET_PDEATHSIG``
(it dies with the server); the server is a child subreaper
(``PR_SET_CHILD_SUBREAPER``, prctl(2)), so whatever a handler forks is reaped
here: when a worker exits, its whole process group is SIGKILLed before the
worker is reaped (the group id cannot be reused while the zombie leader holds
it), then every orphan is reaped too, and the worker's private temp folder is
removed. No zombies remain.
"""

from __future__ import annotations

import ctypes
import errno
import glob
import grp
import importlib.util
import json
import os
import pwd
import resource
import selectors
import shutil
import signal
import socket
import sys
import tempfile

from .. import recurrence  # noqa: F401  (preloaded for handlers; see the module docstring)
from . import frames, sandbox, worker

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MAX_CONTROL_BYTES = 1 << 20
EXIT_SETUP = worker.EXIT_SETUP
#: uids no distribution allocates (systemd UIDS-GIDS.md: 65520…65533 unused), tried from the top
FALLBACK_UIDS = range(65533, 65519, -1)
NOBODY_UID = 65534
TMP_PREFIX = "hermesd-sandbox-"  # + "<fork server pid>-<random>"

_libc = ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, arg: int) -> None:
    if _libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def _unshare(flags: int) -> None:
    """unshare(2) ``flags``; with CLONE_NEWUSER, map our uid and gid to themselves first thing."""
    uid, gid = os.getuid(), os.getgid()
    if _libc.unshare(flags) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"unshare: {os.strerror(err)}")
    if flags & CLONE_NEWUSER:
        # map ourselves to ourselves (user_namespaces(7)); setgroups must be denied first
        for path, text in (("/proc/self/setgroups", "deny"), ("/proc/self/uid_map", f"{uid} {uid} 1"),
                           ("/proc/self/gid_map", f"{gid} {gid} 1")):
            with open(path, "w") as fh:
                fh.write(text)


def _unshare_net() -> None:
    """Enter a fresh network namespace (only ``lo``, down): CLONE_NEWNET, with a user namespace when unprivileged."""
    _unshare(CLONE_NEWNET if os.geteuid() == 0 else CLONE_NEWUSER | CLONE_NEWNET)


def _worker_identity(user: str) -> tuple[int, int, str | None, str, str]:
    """``(uid, gid, user name or None, identity, warning)`` for a daemon running as root."""
    why = ""
    if user:
        try:
            pw = pwd.getpwnam(user)
        except KeyError:
            why = f"worker user {user!r} does not exist (systemd-sysusers hermesd.conf creates hermesd-tool)"
        else:
            if pw.pw_uid == 0 or pw.pw_uid == os.getuid():
                why = f"worker user {user!r} is uid {pw.pw_uid}, the daemon's own"
            elif pw.pw_uid == NOBODY_UID:
                why = f"worker user {user!r} is shared with other services (RLIMIT_NPROC would count theirs)"
            else:
                return pw.pw_uid, pw.pw_gid, user, "dedicated", ""
    else:
        why = "no worker user configured"
    for uid in FALLBACK_UIDS:
        try:
            pwd.getpwuid(uid)
            continue
        except KeyError:
            pass
        try:
            grp.getgrgid(uid)
            continue
        except KeyError:
            return uid, uid, None, "fallback", f"{why}; workers run as uid {uid}, which no account owns"
    raise RuntimeError(f"{why}, and every fallback uid 65520-65533 is taken")


def _count_tasks(uid: int) -> int:
    """Threads whose real uid is ``uid`` (what RLIMIT_NPROC counts, setrlimit(2))."""
    n = 0
    for status in glob.glob("/proc/[0-9]*/status"):
        try:
            with open(status) as fh:
                fields = dict(line.split(":", 1) for line in fh if ":" in line)
        except OSError:
            continue
        try:
            if int(fields["Uid"].split()[0]) == uid:
                n += int(fields["Threads"])
        except (KeyError, ValueError, IndexError):
            pass
    return n


def _probe(fn) -> str:
    """Run ``fn`` in a throw-away child; return its JSON report (a string) or ``"!" + why`` it failed."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            out = fn()
            os.write(w, json.dumps(out if out is not None else "ok").encode()[:60000])
        except BaseException as exc:  # report any failure, never return into the server
            os.write(w, ("!" + f"{type(exc).__name__}: {exc}"[:500]).encode())
        finally:
            os._exit(0)
    os.close(w)
    chunks = []
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode(errors="replace") or "!probe died"


def _check_handlers(tools: dict[str, str]) -> dict[str, str | None]:
    """Compile (never run) each handler: a missing file or a syntax error makes that tool unhealthy."""
    report: dict[str, str | None] = {}
    for name, path in tools.items():
        try:
            with open(path, "rb") as fh:
                compile(fh.read(), path, "exec", dont_inherit=True)
            report[name] = None
        except (OSError, SyntaxError, ValueError) as exc:
            report[name] = f"{type(exc).__name__}: {exc}"[:500]
    return report


def _import_handler(name: str, path: str) -> dict:
    """Import ``path`` as tool ``name``'s handler module (inside the worker's sandbox)."""
    try:
        spec = importlib.util.spec_from_file_location(f"hermesd_tool_{name}", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        handle = getattr(module, "handle", None)
        if not callable(handle):
            raise ImportError(f"{path} defines no handle(input) function")
        return {name: handle}
    except BaseException as exc:  # an import error makes that tool unhealthy, not the worker
        return {name: f"handler import failed: {type(exc).__name__}: {exc}"[:500]}


class Server:
    """State of the fork server process (one instance, in ``main``)."""

    def __init__(self, ctrl: socket.socket) -> None:
        self.ctrl = ctrl
        self.workers: dict[int, int] = {}  # pid -> worker_id
        self.scratch: dict[int, list[str]] = {}  # pid -> its temp folders
        self.init: dict = {}
        self.tools: dict[str, str] = {}
        self.netns_error = ""
        self.worker_uid: int | None = None
        self.worker_gid: int | None = None
        self.userns = False
        self.mode = "none"
        self.abi = 0
        self.unveil: dict[str, list[str]] = {}
        self.tmp_root = ""
        self.nproc_headroom = 0
        self._child_fd_moved = False

    def send(self, obj: dict, fds: list[int] | None = None) -> None:
        data = json.dumps(obj, separators=(",", ":")).encode()
        if fds:
            socket.send_fds(self.ctrl, [data], fds)
        else:
            self.ctrl.send(data)

    # ---- start-up ---------------------------------------------------------------------------

    def setup(self, init: dict) -> None:
        self.init = init
        self.pid = os.getpid()
        self.daemon_pid = os.getppid()
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
        # the real folder: a symlinked tool folder may sit under a folder the worker user cannot enter
        self.tools = {name: os.path.realpath(path) for name, path in init.get("tools", {}).items()}
        # a tool whose handler module is shared with others: its own folder as well as the module's
        self.tool_dirs = {name: os.path.realpath(path) for name, path in (init.get("tool_dirs") or {}).items()}
        root = os.geteuid() == 0
        ready: dict = {"op": "ready", "pid": os.getpid(), "user": None, "user_warning": ""}
        if root:
            uid, gid, name, identity, warning = _worker_identity(init.get("user") or "")
            self.worker_uid, self.worker_gid = uid, gid
            ready.update(uid=uid, gid=gid, user=name, identity=identity, user_warning=warning)
        else:
            self.userns = _probe(lambda: _unshare(CLONE_NEWUSER)) == '"ok"'
            ready.update(uid=os.getuid(), gid=os.getgid(), user=pwd.getpwuid(os.getuid()).pw_name
                         if _has_pw(os.getuid()) else None, identity="daemon",
                         user_warning="the daemon is not root: workers run as its uid, confined by Landlock"
                                      + ("" if self.userns else " (no user namespace: bounding set kept)"))
        ready["userns"] = self.userns
        net = _probe(_unshare_net)
        self.netns_error = "" if net == '"ok"' else net.lstrip("!")
        self._clean_stale_tmp()
        self.tmp_root = tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{os.getpid()}-")
        os.chmod(self.tmp_root, 0o711)
        uid = self.worker_uid if self.worker_uid is not None else os.getuid()
        gid = self.worker_gid if self.worker_gid is not None else os.getgid()
        if root:
            needed = [p for p, kind in sandbox.system_rules() if kind == "rx"]
            needed += [os.path.dirname(h) for h in self.tools.values()]
            self.unveil = sandbox.unreachable_roots(needed, uid, {gid})
        pool = int(init.get("pool_processes") or 8)
        if root:
            self.nproc_headroom, scope = pool, "pool (the worker uid's processes)"
        elif self.userns:
            self.nproc_headroom, scope = 1, "worker (its own user namespace)"
        else:
            self.nproc_headroom, scope = _count_tasks(uid) + pool + 16, "uid (every process of the daemon's user)"
        self.abi = sandbox.landlock_abi()
        self.mode, reason, report = self._pick_isolation(init.get("isolation") or "auto")
        ready.update(netns=not self.netns_error, netns_error=self.netns_error, filesystem_isolation=self.mode,
                     isolation_reason=reason, landlock_abi=self.abi, unveiled=self.unveil, nproc_scope=scope,
                     privileges=report.get("privileges", {}), landlock=report.get("landlock", {}),
                     tools=_check_handlers(self.tools), tmp_root=self.tmp_root)
        self.send(ready)

    def _pick_isolation(self, wanted: str) -> tuple[str, str, dict]:
        """Try the isolation modes in order in a throw-away worker; the first that works is used."""
        order = {"auto": ["landlock", "mountns", "none"], "landlock": ["landlock", "none"],
                 "mountns": ["mountns", "none"], "none": ["none"]}[wanted]
        reasons = []
        for mode in order:
            if mode == "landlock" and self.abi < 1:
                reasons.append("landlock: the kernel has no Landlock (Linux < 5.13 or not in lsm=)")
                continue
            scratch = os.path.join(self.tmp_root, "probe")
            tmp = os.path.join(self.tmp_root, "probe-tmp")
            for d in (scratch, tmp):
                os.makedirs(d, mode=0o700, exist_ok=True)
            self._own(tmp)
            out = _probe(lambda: self._enter(mode, None, tmp, scratch, network=True, probe=True))
            shutil.rmtree(scratch, ignore_errors=True)
            shutil.rmtree(tmp, ignore_errors=True)
            if not out.startswith("!"):
                return mode, "; ".join(reasons), json.loads(out)
            reasons.append(f"{mode}: {out[1:]}")
        return "none", "; ".join(reasons), {}

    def _clean_stale_tmp(self) -> None:
        for path in glob.glob(os.path.join(tempfile.gettempdir(), TMP_PREFIX + "[0-9]*-*")):
            try:
                pid = int(os.path.basename(path)[len(TMP_PREFIX):].split("-", 1)[0])
                if not os.path.isdir(path) or os.path.islink(path) or os.stat(path).st_uid != os.geteuid():
                    continue  # only a fork server's own folders (a root daemon's or ours)
                os.kill(pid, 0)
            except ValueError:
                continue
            except ProcessLookupError:
                shutil.rmtree(path, ignore_errors=True)
            except PermissionError:
                pass

    def _own(self, path: str) -> None:
        if self.worker_uid is not None:
            os.chown(path, self.worker_uid, self.worker_gid)

    # ---- the sandbox a worker enters -------------------------------------------------------

    def _rules(self, spec: dict | None, tmp: str) -> list[tuple[str, str]]:
        tool = spec.get("tool") if spec else None
        folder = os.path.dirname(self.tools[tool]) if tool in self.tools else None
        extra = [(str(p), str(k)) for p, k in (spec or {}).get("fs", [])]
        own = self.tool_dirs.get(tool) if tool else None
        if own and own != folder:
            extra.append((own, "ro"))
        return sandbox.system_rules(folder, tmp) + extra

    def _enter(self, mode: str, spec: dict | None, tmp: str, scratch: str, *, network: bool,
               probe: bool = False) -> dict:
        """Everything privileged, in one go: namespaces (a user namespace when the daemon is not root,
        a network namespace unless ``network``), the private root or the unveiled interpreter,
        groups and ids, capabilities dropped; Landlock too when ``spec`` is known (or in a probe)."""
        report: dict = {}
        flags = CLONE_NEWUSER if self.userns else 0
        if not network and not self.netns_error:
            flags |= CLONE_NEWNET
        if flags:
            _unshare(flags)
        if mode == "mountns":
            report["skipped"] = sandbox.private_root(self._rules(spec, tmp), scratch)
        elif self.unveil:
            sandbox.unveil_paths(self.unveil)
        groups = [int(g) for g in (spec or {}).get("groups", [])] if self.worker_uid is not None else []
        report["privileges"] = sandbox.drop_privileges(self.worker_uid, self.worker_gid, groups)
        # without Landlock's signal scope a worker that shares the daemon's uid could kill it
        scoped = mode == "landlock" and self.abi >= 6
        protect = [] if scoped else [p for p in (self.daemon_pid, self.pid) if p > 1]
        report["privileges"]["seccomp"] = sandbox.deny_metadata_changes(protect)
        if mode == "landlock" and (spec is not None or probe):
            report["landlock"] = sandbox.apply_landlock(self._rules(spec, tmp), abi=self.abi,
                                                        connect_ports=(spec or {}).get("connect", []))
        if probe:
            try:  # the probe proves the rules bind: the daemon's own files must be out of reach
                with open("/etc/shadow", "rb"):
                    raise RuntimeError("/etc/shadow is readable inside the sandbox")
            except (FileNotFoundError, PermissionError):
                pass
        return report

    def _bind(self, spec: dict, tmp: str) -> dict:
        """Enter ``spec``'s sandbox (Landlock, environment), then import the tool's handler."""
        tool = spec.get("tool")
        if tool not in self.tools:
            raise sandbox.SandboxError(errno.ENOENT, f"no tool named {tool!r} in this fork server")
        if self.mode == "landlock":
            sandbox.apply_landlock(self._rules(spec, tmp), abi=self.abi, connect_ports=spec.get("connect", []))
        os.environ.update(self.init.get("tool_env", {}).get(tool, {}))
        os.environ.update({str(k): str(v) for k, v in (spec.get("env") or {}).items()})
        return _import_handler(tool, self.tools[tool])

    # ---- workers ----------------------------------------------------------------------------

    def spawn(self, worker_id: int, network: bool, spec: dict | None) -> None:
        tmp = os.path.join(self.tmp_root, f"w{worker_id}")
        scratch = os.path.join(self.tmp_root, f"r{worker_id}")
        try:
            os.mkdir(tmp, 0o700)
            self._own(tmp)
            os.mkdir(scratch, 0o700)
        except OSError as exc:
            self.send({"op": "spawn_failed", "worker_id": worker_id, "error": f"temp folder: {exc}"})
            return
        parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            pid = os.fork()
        except OSError as exc:
            parent_end.close()
            child_end.close()
            shutil.rmtree(tmp, ignore_errors=True)
            shutil.rmtree(scratch, ignore_errors=True)
            self.send({"op": "spawn_failed", "worker_id": worker_id, "error": str(exc)})
            return
        if pid == 0:
            code = EXIT_SETUP
            fd = child_end.detach()
            try:
                parent_end.close()
                self._child(fd, network, spec, tmp, scratch)
                code = 0
            except BaseException as exc:  # tell the daemon why on the worker's own socket, then leave
                try:
                    frames.write_all(3 if self._child_fd_moved else fd, frames.encode(
                        {"id": None, "setup_error": f"{type(exc).__name__}: {exc}"[:300]}))
                except OSError:
                    pass
            finally:
                os._exit(code)
        child_end.close()
        self.scratch[pid] = [tmp, scratch]
        try:
            pidfd = os.pidfd_open(pid)
        except OSError as exc:  # the child already died and was reaped: report it like any exit
            parent_end.close()
            self.send({"op": "spawn_failed", "worker_id": worker_id, "error": str(exc)})
            return
        self.workers[pid] = worker_id
        try:
            self.send({"op": "spawned", "worker_id": worker_id, "pid": pid}, [parent_end.fileno(), pidfd])
        finally:
            parent_end.close()
            os.close(pidfd)

    def _child(self, fd: int, network: bool, spec: dict | None, tmp: str, scratch: str) -> None:
        os.setsid()
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != self.pid:
            os._exit(0)
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, signal.SIG_DFL)
        if fd != 3:
            os.dup2(fd, 3)
            os.close(fd)
        self._child_fd_moved = True
        os.closerange(4, 1 << 16)
        null = os.open(os.devnull, os.O_RDWR)
        for std in (0, 1, 2):
            os.dup2(null, std)
        os.close(null)
        os.environ.clear()
        os.environ.update(self.init.get("worker_env", {}))
        os.environ["TMPDIR"] = tmp
        tempfile.tempdir = tmp  # the module cached the fork server's /tmp; tools get their own folder
        os.chdir("/")
        self._enter(self.mode, spec, tmp, scratch, network=network)
        os.chdir("/")
        ceil = self.init["ceilings"]
        # hard limits for the worker's life; per call the worker lowers only the soft ones
        data_kb = worker._status_kb("VmData")
        vm_kb = worker._status_kb("VmSize")
        hard = {
            resource.RLIMIT_DATA: data_kb * 1024 + (ceil["memory_mb"] + 16) * worker.MIB,
            resource.RLIMIT_AS: vm_kb * 1024 + (ceil["memory_mb"] + 16) * worker.MIB + worker.AS_SLACK_BYTES,
            resource.RLIMIT_NOFILE: 16 + ceil["max_open_files"],
            resource.RLIMIT_FSIZE: ceil["max_file_bytes"],
            resource.RLIMIT_NPROC: ceil["max_processes"] + self.nproc_headroom,
        }
        for which, value in hard.items():
            soft, old_hard = resource.getrlimit(which)
            if old_hard != resource.RLIM_INFINITY:
                value = min(value, old_hard)
            resource.setrlimit(which, (value, value))
        worker.NPROC_HEADROOM = self.nproc_headroom
        if spec is not None:
            worker.serve(3, self._bind(spec, tmp), bound_key=spec.get("key"))
        else:
            worker.serve(3, {}, bind=lambda s: self._bind(s, tmp))

    def reap(self) -> None:
        while True:
            try:
                info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return
            if info is None:
                return
            pid = info.si_pid
            worker_id = self.workers.pop(pid, None)
            if worker_id is not None:
                try:  # the zombie leader still holds the group id, so this hits only its group
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass
            try:
                _, status, ru = os.wait4(pid, 0)
            except ChildProcessError:
                continue
            for folder in self.scratch.pop(pid, []):
                shutil.rmtree(folder, ignore_errors=True)  # fd-based: a symlink planted there is not followed
            if worker_id is None:
                continue
            self.send({"op": "exited", "worker_id": worker_id, "pid": pid,
                       "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                       "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                       "cpu_ms": round((ru.ru_utime + ru.ru_stime) * 1000, 3), "maxrss_kb": ru.ru_maxrss})

    def kill_all(self) -> None:
        for pid in list(self.workers):
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
        while self.workers:
            try:
                pid, status, ru = os.wait4(-1, 0)
            except ChildProcessError:
                break
            self.workers.pop(pid, None)
        if self.tmp_root:
            shutil.rmtree(self.tmp_root, ignore_errors=True)

    def run(self) -> int:
        self.pid = os.getpid()
        wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the daemon stops us with {"op": "stop"} or EOF
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in a terminal reaches the daemon, which stops us
        sel = selectors.DefaultSelector()
        sel.register(self.ctrl, selectors.EVENT_READ)
        sel.register(wake_r, selectors.EVENT_READ)
        try:
            while True:
                for key, _ in sel.select():
                    if key.fileobj == wake_r:
                        try:
                            os.read(wake_r, 4096)
                        except BlockingIOError:
                            pass
                        self.reap()
                        continue
                    try:
                        data = self.ctrl.recv(MAX_CONTROL_BYTES)
                    except InterruptedError:
                        continue
                    if not data:
                        return 0
                    msg = json.loads(data)
                    op = msg.get("op")
                    if op == "init":
                        try:
                            self.setup(msg)
                        except Exception as exc:  # e.g. every fallback uid taken: say so, then stop
                            self.send({"op": "init_failed", "error": f"{type(exc).__name__}: {exc}"[:500]})
                            return 1
                    elif op == "spawn":
                        self.spawn(int(msg["worker_id"]), bool(msg.get("network")), msg.get("bind"))
                    elif op == "stop":
                        return 0
        finally:
            self.kill_all()


def _has_pw(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


def main(argv: list[str]) -> int:
    """Entry point: ``argv[1]`` is the control socket's descriptor number."""
    ctrl = socket.socket(fileno=int(argv[1]))
    try:
        return Server(ctrl).run()
    except OSError as exc:
        if exc.errno in (errno.EPIPE, errno.ECONNRESET):
            return 0
        raise


if __name__ == "__main__":
    sys.exit(main(sys.argv))
