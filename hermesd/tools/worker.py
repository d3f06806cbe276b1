"""The sandbox worker loop: runs in a process forked by the fork server (standard library only).

One worker serves calls one at a time over a stream socket with
length-prefixed JSON frames (:mod:`hermesd.tools.frames`).

Request ``{"id": int, "tool": str, "input": dict, "limits": {...}, "bind": {...}?}``
with limits ``memory_mb, cpu_ms, max_open_files, max_output_bytes,
max_file_bytes, max_processes``. Reply ``{"id", "ok": true, "output": dict,
"cpu_ms": float, "rss_kb": int}`` (``rss_kb`` is the peak RSS so far) or ``{"id", "ok": false, "code": str,
"message": str, "fatal": bool, ...}`` where ``code`` is ``TOOL_TIMEOUT``,
``TOOL_OOM``, ``OUTPUT_INVALID``, ``RAISED`` (the handler raised; ``error_code``
carries the exception's ``code`` attribute when it has one, ``retryable`` its
``retryable`` attribute), ``TOOL_UNHEALTHY`` (handler failed to import) or
``SANDBOX`` (the sandbox could not be entered; the worker exits).

A worker serves one tool for one caller: the first request carries ``bind``, the
sandbox spec (:mod:`hermesd.tools.sandbox` rules, environment), and the worker
enters it — Landlock, environment — and only then imports the tool's handler, so
no tool code ever runs outside the sandbox. Every later request must come for the
same spec (the pool keys idle workers by it); a worker forked for a spec (groups,
a private root) arrives bound already.

Per call, before the handler runs (setrlimit(2), setitimer(2)):

* ``RLIMIT_DATA`` soft = private writable memory at start-up + ``memory_mb``;
  since Linux 4.7 it counts brk and private anonymous mappings, i.e. real
  memory, not the address space of shared libraries.
* ``RLIMIT_AS`` soft = address space at start-up + ``memory_mb`` + 256 MiB: a
  backstop for shared anonymous mappings (thread stacks and malloc arena
  reservations are address space, not memory, hence the slack).
* ``ITIMER_PROF`` = ``cpu_ms`` of process CPU time (all threads), millisecond
  precision; ``RLIMIT_CPU`` soft = CPU used so far + ``cpu_ms`` + 1 s (the
  kernel counts whole seconds over the worker's life, so a reused worker's
  limit is relative to what it has used). Both end the call with
  ``TOOL_TIMEOUT``; the hard limit (set at spawn) stays above the soft one so
  the catchable SIGXCPU comes first.
* ``RLIMIT_NOFILE`` = the worker's own 4 descriptors + ``max_open_files``;
  ``RLIMIT_FSIZE`` = ``max_file_bytes`` (SIGXFSZ ignored, so writes fail with
  EFBIG); ``RLIMIT_NPROC`` = ``max_processes`` + the processes the kernel counts
  besides the call's (the pool's other workers under the shared worker uid), so fork
  bombs get EAGAIN.
"""

from __future__ import annotations

import gc
import json
import math
import os
import resource
import signal
import traceback
from typing import Any, Callable

from . import frames

__all__ = ["EXIT_OOM", "EXIT_SETUP", "EXIT_TIMEOUT", "serve"]

EXIT_TIMEOUT = 70
EXIT_OOM = 71
EXIT_SETUP = 75  # the fork server's child failed before serving (namespace, capabilities, limits)
MAX_REQUEST_BYTES = 1 << 20
RETIRE_FRACTION = 0.75
AS_SLACK_BYTES = 256 << 20
BASE_FDS = 4  # stdin, stdout, stderr (/dev/null) and the socket on fd 3
MIB = 1 << 20
#: processes RLIMIT_NPROC counts besides the call's own (the pool's other workers under a shared
#: worker uid); the fork server sets it before serving
NPROC_HEADROOM = 0


def _status_kb(field: str) -> int:
    with open("/proc/self/status", "rb") as fh:
        for line in fh:
            if line.startswith(field.encode()):
                return int(line.split()[1])
    return 0


def _cpu_s() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


# hard limits are fixed for the worker's life (set at spawn), so read them once; soft limits
# stay as the last call left them and are only rewritten when a call needs other values
_HARD: dict[int, int] = {}
_APPLIED: dict[int, int] = {}


def _soft(which: int, value: int) -> None:
    hard = _HARD.get(which)
    if hard is None:
        hard = _HARD[which] = resource.getrlimit(which)[1]
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    if _APPLIED.get(which) != value:
        resource.setrlimit(which, (value, hard))
        _APPLIED[which] = value


def serve(fd: int, handlers: dict[str, Callable[[dict], dict] | str],
          bind: Callable[[dict], dict[str, Callable[[dict], dict] | str]] | None = None,
          bound_key: str | None = None) -> None:
    """Serve calls on ``fd`` until EOF, then return (the caller exits the process).

    :param handlers: tool name → ``handle`` function, or an error string when
        the handler module failed to import (empty until the worker is bound).
    :param bind: enters the sandbox for a spec and returns the handlers; called for the
        first request's ``bind`` (never again: a Landlock domain cannot be widened).
    :param bound_key: the spec key when the worker was forked bound already.
    """
    me = os.getpid()
    base_data = _status_kb("VmData") * 1024
    base_as = _status_kb("VmSize") * 1024
    base_rss = _status_kb("VmRSS") * 1024
    current = {"id": None}

    def on_cpu_limit(signum: int, frame: Any) -> None:
        # Runs between bytecodes in the main thread; reply and leave so the
        # handler cannot catch it.
        if os.getpid() == me and current["id"] is not None:
            try:
                frames.write_all(fd, frames.encode({"id": current["id"], "ok": False, "code": "TOOL_TIMEOUT",
                                                    "message": "CPU budget exhausted", "fatal": True}))
            except OSError:
                pass
        os._exit(EXIT_TIMEOUT)

    signal.signal(signal.SIGPROF, on_cpu_limit)
    signal.signal(signal.SIGXCPU, on_cpu_limit)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    gc.collect()
    gc.freeze()  # keep the preloaded heap out of future collections

    key = bound_key
    while True:
        try:
            req = frames.read_frame(fd, MAX_REQUEST_BYTES)
        except (EOFError, frames.FrameError, OSError):
            return
        spec = req.get("bind") if isinstance(req, dict) else None
        if spec is not None:
            want = spec.get("key")
            if key is None and bind is not None:
                try:
                    handlers = bind(spec)
                    key = want
                except BaseException as exc:  # never run tool code in a half-built sandbox
                    _reply_and_leave(fd, req.get("id"), f"{type(exc).__name__}: {exc}"[:500])
            elif key != want:
                _reply_and_leave(fd, req.get("id"), "worker is bound to another sandbox")
        elif key is None and bind is not None:
            _reply_and_leave(fd, req.get("id") if isinstance(req, dict) else None, "first request without bind")
        reply = _call(req, handlers, base_data, base_as, base_rss, current)
        if os.getpid() != me:  # a child forked by the handler must never answer
            os._exit(0)
        try:
            frames.write_all(fd, reply)
        except OSError:
            return
        if current.get("fatal"):
            os._exit(EXIT_OOM if current["fatal"] == "TOOL_OOM" else 0)  # RETIRE: a clean exit


def _reply_and_leave(fd: int, rid: Any, message: str) -> None:
    try:
        frames.write_all(fd, frames.encode({"id": rid, "ok": False, "code": "SANDBOX", "fatal": True,
                                            "message": message}))
    except OSError:
        pass
    os._exit(0)


def _call(req: Any, handlers: dict, base_data: int, base_as: int, base_rss: int, current: dict) -> bytes:
    rid = req.get("id") if isinstance(req, dict) else None
    current["fatal"] = None
    try:
        tool = req["tool"]
        lim = req["limits"]
        arguments = req["input"]
    except (KeyError, TypeError):
        return frames.encode({"id": rid, "ok": False, "code": "INTERNAL", "message": "malformed request",
                              "fatal": False})
    handler = handlers.get(tool)
    if not callable(handler):
        return frames.encode({"id": rid, "ok": False, "code": "TOOL_UNHEALTHY",
                              "message": handler or f"no handler for {tool!r}", "fatal": False})
    cpu0 = _cpu_s()
    cpu_budget_s = lim["cpu_ms"] / 1000.0
    if lim != current.get("limits"):  # the same tool again (the common case) needs no syscalls
        _soft(resource.RLIMIT_DATA, base_data + lim["memory_mb"] * MIB)
        _soft(resource.RLIMIT_AS, base_as + lim["memory_mb"] * MIB + AS_SLACK_BYTES)
        _soft(resource.RLIMIT_NOFILE, BASE_FDS + lim["max_open_files"])
        _soft(resource.RLIMIT_FSIZE, lim["max_file_bytes"])
        _soft(resource.RLIMIT_NPROC, lim["max_processes"] + NPROC_HEADROOM)
        current["limits"] = lim
    _soft(resource.RLIMIT_CPU, math.ceil(cpu0 + cpu_budget_s) + 1)
    current["id"] = rid
    signal.setitimer(signal.ITIMER_PROF, cpu_budget_s)
    body: bytes | None = None
    reply: dict | None = None
    try:
        output = handler(arguments)
    except MemoryError:
        reply = _oom(rid)  # the handler's frames are gone by now, so this small dict fits
    except BaseException as exc:  # the handler's fault, whatever it is (SystemExit included)
        reply = _raised(rid, exc)
    else:
        if not isinstance(output, dict):
            reply = {"id": rid, "ok": False, "code": "OUTPUT_INVALID", "fatal": False,
                     "message": f"handler returned {type(output).__name__}, not an object"}
        else:
            try:  # serialising is part of the call's budget
                body = json.dumps({"id": rid, "ok": True, "output": output}, ensure_ascii=False,
                                  separators=(",", ":")).encode("utf-8")
            except MemoryError:
                reply = _oom(rid)
            except (TypeError, ValueError) as exc:
                reply = {"id": rid, "ok": False, "code": "OUTPUT_INVALID", "fatal": False,
                         "message": f"output is not JSON: {exc}"}
        output = None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        current["id"] = None
    if body is not None and len(body) > lim["max_output_bytes"]:
        body = None
        reply = {"id": rid, "ok": False, "code": "OUTPUT_INVALID", "fatal": False,
                 "message": f"output exceeds max_output_bytes ({lim['max_output_bytes']})"}
    ru = resource.getrusage(resource.RUSAGE_SELF)
    cpu_ms = round((ru.ru_utime + ru.ru_stime - cpu0) * 1000, 3)
    rss_kb = ru.ru_maxrss  # peak, in KiB on Linux: growth of the peak retires the worker
    if rss_kb * 1024 > base_rss + RETIRE_FRACTION * lim["memory_mb"] * MIB:
        # the heap stays under this call's limits until the next call; too close to them → retire
        current["fatal"] = "RETIRE"
    if body is not None:
        return _with_stats(body, cpu_ms, rss_kb, current["fatal"] == "RETIRE")
    assert reply is not None
    if reply.get("fatal"):
        current["fatal"] = reply["code"]
    reply.update(cpu_ms=cpu_ms, rss_kb=rss_kb, retire=current["fatal"] == "RETIRE")
    return frames.encode(reply)


def _oom(rid: Any) -> dict:
    return {"id": rid, "ok": False, "code": "TOOL_OOM", "fatal": True, "message": "memory budget exhausted"}


def _with_stats(body: bytes, cpu_ms: float, rss_kb: int, retire: bool) -> bytes:
    # splice the stats into the already-serialised object instead of re-encoding the output
    body = body[:-1] + b',"cpu_ms":%s,"rss_kb":%d,"retire":%s}' % (
        repr(cpu_ms).encode(), rss_kb, b"true" if retire else b"false")
    return frames.HEADER.pack(len(body)) + body


def _raised(rid: Any, exc: BaseException) -> dict:
    code = getattr(exc, "code", None)
    tb = traceback.extract_tb(exc.__traceback__)
    where = f"{os.path.basename(tb[-1].filename)}:{tb[-1].lineno}" if tb else ""
    return {"id": rid, "ok": False, "code": "RAISED", "fatal": False,
            "error_code": code if isinstance(code, str) else None,
            "retryable": bool(getattr(exc, "retryable", False)),
            "exception": type(exc).__name__, "where": where, "message": str(exc)[:500]}

