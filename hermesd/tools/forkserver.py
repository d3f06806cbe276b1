"""The fork server: a lean, single-threaded parent that forks sandbox workers (standard library only).

Started by the daemon as its own process, ``python -I -m hermesd.tools.forkserver FD``
(via :mod:`subprocess` with ``close_fds``), so workers inherit neither the
daemon's threads nor its ~170 MB of mapped libraries: a worker's memory limit
then means memory. It imports only the standard library, the tool handlers and
:mod:`hermesd.tools.worker`.

Control channel: descriptor ``FD``, an ``AF_UNIX``/``SOCK_SEQPACKET`` socket;
every message is one UTF-8 JSON object (≤ 1 MiB, boundaries kept by the
socket, never pickle).

daemon → server::

    {"op": "init", "tools": {name: handler_path}, "tool_env": {name: {VAR: value}},
     "worker_env": {VAR: value}, "user": "nobody", "ceilings": {memory_mb, max_open_files,
     max_file_bytes, max_processes}}                                     (first message)
    {"op": "spawn", "worker_id": int, "network": bool}
    {"op": "stop"}

server → daemon::

    {"op": "ready", "pid": int, "tools": {name: null | "import error"}, "netns": bool,
     "netns_error": str, "uid": int}
    {"op": "spawned", "worker_id": int, "pid": int}  + SCM_RIGHTS [socket, pidfd]
    {"op": "spawn_failed", "worker_id": int, "error": str}
    {"op": "exited", "worker_id": int, "pid": int, "exit_code": int | null,
     "signal": int | null, "cpu_ms": float, "maxrss_kb": int}

Each worker is a session and process-group leader with ``PR_SET_PDEATHSIG``
(it dies with the server); the server is a child subreaper
(``PR_SET_CHILD_SUBREAPER``, prctl(2)), so whatever a handler forks is reaped
here: when a worker exits, its whole process group is SIGKILLed before the
worker is reaped (the group id cannot be reused while the zombie leader holds
it), then every orphan is reaped too. No zombies remain.
"""

from __future__ import annotations

import ctypes
import errno
import importlib.util
import json
import os
import pwd
import resource
import selectors
import signal
import socket
import sys

from . import frames, worker

PR_SET_PDEATHSIG = 1
PR_SET_KEEPCAPS = 8
PR_SET_CHILD_SUBREAPER = 36
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_RAISE = 2
CAP_DAC_OVERRIDE = 1
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MAX_CONTROL_BYTES = 1 << 20
EXIT_SETUP = worker.EXIT_SETUP

_libc = ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, arg: int) -> None:
    if _libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def _unshare_net() -> None:
    """Enter a fresh network namespace (only ``lo``, down): CLONE_NEWNET, with a user namespace when unprivileged."""
    if os.geteuid() == 0:
        flags = CLONE_NEWNET
    else:
        flags = CLONE_NEWUSER | CLONE_NEWNET
    uid, gid = os.getuid(), os.getgid()
    if _libc.unshare(flags) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    if flags & CLONE_NEWUSER:
        # map ourselves to ourselves (user_namespaces(7)); setgroups must be denied first
        for path, text in (("/proc/self/setgroups", "deny"), ("/proc/self/uid_map", f"{uid} {uid} 1"),
                           ("/proc/self/gid_map", f"{gid} {gid} 1")):
            with open(path, "w") as fh:
                fh.write(text)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _drop_root(uid: int, gid: int) -> None:
    """Become ``uid``/``gid`` keeping only CAP_DAC_OVERRIDE (capabilities(7)).

    The worker keeps the daemon's file access (state folders, the journal) but
    loses every other privilege; with a non-zero uid and no CAP_SYS_RESOURCE
    or CAP_SYS_ADMIN, RLIMIT_NPROC finally binds (the kernel exempts root).
    The capability is also made ambient so programs a tool runs (journalctl)
    keep it across execve.
    """
    _prctl(PR_SET_KEEPCAPS, 1)
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    keep = 1 << CAP_DAC_OVERRIDE
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)(_CapData(keep, keep, keep), _CapData(0, 0, 0))
    if _libc.capset(ctypes.byref(header), data) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"capset: {os.strerror(err)}")
    _prctl(PR_SET_KEEPCAPS, 0)
    if _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_DAC_OVERRIDE, 0, 0) != 0:
        pass  # kernels before 4.3: children a tool executes lose the capability; the tool itself keeps it


def _probe_netns() -> str:
    """Fork a throw-away child that tries :func:`_unshare_net`; return "" or the reason it failed."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            _unshare_net()
            os.write(w, b"ok")
        except BaseException as exc:  # report any failure, never return into the server
            os.write(w, str(exc).encode()[:200])
        finally:
            os._exit(0)
    os.close(w)
    msg = os.read(r, 256).decode(errors="replace")
    os.close(r)
    os.waitpid(pid, 0)
    return "" if msg == "ok" else (msg or "unshare failed")


def _load_handlers(tools: dict[str, str]) -> tuple[dict, dict[str, str | None]]:
    handlers: dict = {}
    report: dict[str, str | None] = {}
    for name, path in tools.items():
        try:
            spec = importlib.util.spec_from_file_location(f"hermesd_tool_{name}", path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {path}")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            handle = getattr(module, "handle", None)
            if not callable(handle):
                raise ImportError(f"{path} defines no handle(input) function")
            handlers[name] = handle
            report[name] = None
        except BaseException as exc:  # an import error makes that tool unhealthy, not the server
            handlers[name] = report[name] = f"{type(exc).__name__}: {exc}"[:500]
    return handlers, report


class Server:
    """State of the fork server process (one instance, in ``main``)."""

    def __init__(self, ctrl: socket.socket) -> None:
        self.ctrl = ctrl
        self.workers: dict[int, int] = {}  # pid -> worker_id
        self.init: dict = {}
        self.handlers: dict = {}
        self.netns_error = ""
        self.worker_uid: int | None = None
        self.worker_gid: int | None = None
        self._child_fd_moved = False

    def send(self, obj: dict, fds: list[int] | None = None) -> None:
        data = json.dumps(obj, separators=(",", ":")).encode()
        if fds:
            socket.send_fds(self.ctrl, [data], fds)
        else:
            self.ctrl.send(data)

    def setup(self, init: dict) -> None:
        self.init = init
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
        user = init.get("user") or ""
        if os.geteuid() == 0 and user:
            pw = pwd.getpwnam(user)
            self.worker_uid, self.worker_gid = pw.pw_uid, pw.pw_gid
        self.netns_error = _probe_netns()
        self.handlers, report = _load_handlers(init.get("tools", {}))
        self.send({"op": "ready", "pid": os.getpid(), "tools": report, "netns": not self.netns_error,
                   "netns_error": self.netns_error,
                   "uid": self.worker_uid if self.worker_uid is not None else os.geteuid()})

    def spawn(self, worker_id: int, network: bool) -> None:
        parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            pid = os.fork()
        except OSError as exc:
            parent_end.close()
            child_end.close()
            self.send({"op": "spawn_failed", "worker_id": worker_id, "error": str(exc)})
            return
        if pid == 0:
            code = EXIT_SETUP
            fd = child_end.detach()
            try:
                parent_end.close()
                self._child(fd, network)
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

    def _child(self, fd: int, network: bool) -> None:
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
        if not network and not self.netns_error:
            _unshare_net()
        if self.worker_uid is not None:
            _drop_root(self.worker_uid, self.worker_gid)
        os.environ.clear()
        os.environ.update(self.init.get("worker_env", {}))
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
            resource.RLIMIT_NPROC: ceil["max_processes"],
        }
        for which, value in hard.items():
            soft, old_hard = resource.getrlimit(which)
            if old_hard != resource.RLIM_INFINITY:
                value = min(value, old_hard)
            resource.setrlimit(which, (value, value))
        worker.serve(3, self.handlers, self.init.get("tool_env", {}))

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
                        except Exception as exc:  # e.g. no such worker_user: say so, then stop
                            self.send({"op": "init_failed", "error": f"{type(exc).__name__}: {exc}"[:500]})
                            return 1
                    elif op == "spawn":
                        self.spawn(int(msg["worker_id"]), bool(msg.get("network")))
                    elif op == "stop":
                        return 0
        finally:
            self.kill_all()


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
