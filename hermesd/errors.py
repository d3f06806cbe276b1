"""Errors with stable codes, shared by the daemon and the tiny client.

Every failure hermesd reports has exactly one stable string code (the
``error.data.code`` of a JSON-RPC error) and one JSON-RPC integer code. Only the
server turns an exception into a JSON-RPC error object; only the client turns
one back into an exception (see :func:`from_wire`). This module imports nothing
but the standard library so that ``hermesd.client`` stays light.

The tree::

    HermesError                      INTERNAL            -32603
    ├── InvalidRequest               INVALID_REQUEST     -32600
    │   ├── ParseError               INVALID_REQUEST     -32700  (bad JSON / UTF-8)
    │   └── MethodNotFound           INVALID_REQUEST     -32601
    ├── FrameTooLarge                FRAME_TOO_LARGE     -32030
    ├── InputInvalid                 INPUT_INVALID       -32602  (bad params, tool input)
    ├── OutputInvalid                OUTPUT_INVALID      -32026
    ├── PermissionDenied             PERMISSION_DENIED   -32001
    ├── RateLimited                  RATE_LIMITED        -32029
    ├── SessionError
    │   ├── SessionNotFound          SESSION_NOT_FOUND   -32010
    │   ├── SessionBusy              SESSION_BUSY        -32011
    │   ├── SessionExpired           SESSION_EXPIRED     -32012
    │   └── SessionLimit             SESSION_LIMIT       -32013
    ├── ConfigInvalid                CONFIG_INVALID      -32040  (config file or rule packs)
    ├── ArchiveCorrupt               ARCHIVE_CORRUPT     -32041  (an L3 volume failed verification)
    └── ToolError
        ├── ToolNotFound             TOOL_NOT_FOUND      -32020
        ├── ToolUnavailable          TOOL_UNAVAILABLE    -32021
        ├── ToolUnhealthy            TOOL_UNHEALTHY      -32022
        ├── ToolTimeout              TOOL_TIMEOUT        -32023
        ├── ToolOOM                  TOOL_OOM            -32024
        └── ToolCrashed              TOOL_CRASHED        -32025

Integer codes follow JSON-RPC 2.0 §5.1: the reserved −32700…−32600 range for
protocol errors, −32000…−32099 for implementation-defined server errors.

:class:`ToolFault` is the one list of tool fault codes; :data:`BREAKER_FAULTS` and
:data:`RETRYABLE_FAULTS` say which of them count against a tool's circuit breaker and which
a turn may offer to retry.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

__all__ = [
    "BREAKER_FAULTS",
    "CODES",
    "RETRYABLE_FAULTS",
    "ArchiveCorrupt",
    "ConfigInvalid",
    "ToolFault",
    "FrameTooLarge",
    "HermesError",
    "InputInvalid",
    "InvalidRequest",
    "MethodNotFound",
    "OutputInvalid",
    "ParseError",
    "PermissionDenied",
    "RateLimited",
    "SessionBusy",
    "SessionError",
    "SessionExpired",
    "SessionLimit",
    "SessionNotFound",
    "ToolCrashed",
    "ToolError",
    "ToolNotFound",
    "ToolOOM",
    "ToolTimeout",
    "ToolUnavailable",
    "ToolUnhealthy",
    "from_wire",
]


class HermesError(Exception):
    """Base of every hermesd error.

    :param message: one human-readable sentence; shown to technicians and
        clients, so it must never contain a secret.
    :param data: extra JSON-serialisable fields merged into ``error.data``
        (for example ``retry_after_ms`` or a list of ``violations``).
    """

    code: str = "INTERNAL"
    rpc_code: int = -32603

    def __init__(self, message: str = "", *, data: dict[str, Any] | None = None) -> None:
        super().__init__(message or self.code)
        self.message = message or self.code
        self.data: dict[str, Any] = dict(data or {})

    def to_error_object(self) -> dict[str, Any]:
        """The JSON-RPC ``error`` member: ``{code, message, data: {code, ...}}``."""
        return {"code": self.rpc_code, "message": self.message, "data": {**self.data, "code": self.code}}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


class InvalidRequest(HermesError):
    """The line is not a valid JSON-RPC 2.0 request object."""

    code, rpc_code = "INVALID_REQUEST", -32600


class ParseError(InvalidRequest):
    """The line is not valid UTF-8 JSON."""

    rpc_code = -32700


class MethodNotFound(InvalidRequest):
    """No such method in the method table."""

    rpc_code = -32601


class FrameTooLarge(HermesError):
    """A line exceeded ``server.max_line_bytes``; its remainder was discarded."""

    code, rpc_code = "FRAME_TOO_LARGE", -32030


class InputInvalid(HermesError):
    """Params (or a tool's input) failed validation; ``data.violations`` lists each."""

    code, rpc_code = "INPUT_INVALID", -32602


class OutputInvalid(HermesError):
    """A tool returned output that does not match its declared schema."""

    code, rpc_code = "OUTPUT_INVALID", -32026


class PermissionDenied(HermesError):
    """The caller's role may not do this (or the peer has no role at all)."""

    code, rpc_code = "PERMISSION_DENIED", -32001


class RateLimited(HermesError):
    """Too many connections or requests; ``data.retry_after_ms`` when known."""

    code, rpc_code = "RATE_LIMITED", -32029


class SessionError(HermesError):
    """Base of session errors."""


class SessionNotFound(SessionError):
    """No such session for this caller (also when it belongs to another uid)."""

    code, rpc_code = "SESSION_NOT_FOUND", -32010


class SessionBusy(SessionError):
    """A turn is already running in this session; ``data.retry_after_ms`` says when to retry."""

    code, rpc_code = "SESSION_BUSY", -32011


class SessionExpired(SessionError):
    """The session passed its TTL and was closed."""

    code, rpc_code = "SESSION_EXPIRED", -32012


class SessionLimit(SessionError):
    """The caller already holds ``session.max_sessions_per_user`` live sessions and none may end yet
    (each runs a turn or was used within ``session.cap_grace_s``): ``data.retry_after_ms`` says when to retry."""

    code, rpc_code = "SESSION_LIMIT", -32013


class ConfigInvalid(HermesError):
    """A config file or rule pack did not load; subclasses carry the list of problems."""

    code, rpc_code = "CONFIG_INVALID", -32040


class ArchiveCorrupt(HermesError):
    """An L3 archive volume failed verification (see :class:`hermesd.memory.l3.VolumeCorrupt`)."""

    code, rpc_code = "ARCHIVE_CORRUPT", -32041


class ToolFault(StrEnum):
    """Every code a tool call can fail with, as the pool, the tools subsystem and the executor
    report it (``result.error.code`` or the raised error's ``code``)."""

    NOT_FOUND = "TOOL_NOT_FOUND"
    UNAVAILABLE = "TOOL_UNAVAILABLE"
    UNHEALTHY = "TOOL_UNHEALTHY"
    TIMEOUT = "TOOL_TIMEOUT"
    OOM = "TOOL_OOM"
    CRASHED = "TOOL_CRASHED"
    OUTPUT_INVALID = "OUTPUT_INVALID"


#: Faults that are the tool's own and count as failures against its circuit breaker. An open
#: breaker's own refusal (``TOOL_UNAVAILABLE``) does not count, or the breaker would feed itself.
BREAKER_FAULTS = frozenset({ToolFault.TIMEOUT, ToolFault.OOM, ToolFault.CRASHED, ToolFault.OUTPUT_INVALID})

#: Faults after which a turn may offer to run a retryable tool again: the breaker faults, and a
#: breaker that is open now but will let a call through later.
RETRYABLE_FAULTS = BREAKER_FAULTS | {ToolFault.UNAVAILABLE}


class ToolError(HermesError):
    """Base of tool errors."""


class ToolNotFound(ToolError):
    """No tool of that name is registered."""

    code, rpc_code = "TOOL_NOT_FOUND", -32020


class ToolUnavailable(ToolError):
    """The tool's circuit breaker is open, or no worker was free before the deadline."""

    code, rpc_code = "TOOL_UNAVAILABLE", -32021


class ToolUnhealthy(ToolError):
    """The tool failed its self-test cases and is never routed to."""

    code, rpc_code = "TOOL_UNHEALTHY", -32022


class ToolTimeout(ToolError):
    """The tool passed its wall-clock or CPU budget and its worker was killed."""

    code, rpc_code = "TOOL_TIMEOUT", -32023


class ToolOOM(ToolError):
    """The tool passed its memory budget."""

    code, rpc_code = "TOOL_OOM", -32024


class ToolCrashed(ToolError):
    """The worker died (signal, ``os._exit``) or wrote garbage on its pipe."""

    code, rpc_code = "TOOL_CRASHED", -32025


def _leaves() -> dict[str, type[HermesError]]:
    out: dict[str, type[HermesError]] = {"INTERNAL": HermesError}
    stack: list[type[HermesError]] = [HermesError]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            stack.append(sub)
            # the first class seen for a code is the most general one
            out.setdefault(sub.code, sub)
    return out


#: Stable code → exception class (the most general class carrying that code).
CODES: dict[str, type[HermesError]] = _leaves()
_BY_RPC: dict[int, type[HermesError]] = {ParseError.rpc_code: ParseError, MethodNotFound.rpc_code: MethodNotFound}


def from_wire(error: dict[str, Any]) -> HermesError:
    """Turn a JSON-RPC ``error`` object back into the matching exception.

    :param error: ``{"code": int, "message": str, "data": {"code": str, ...}}``.
    :return: an instance of the class for ``data.code`` (``HermesError`` when the
        code is unknown, for example from a newer daemon); ``.data`` keeps the
        extra fields, ``.rpc_code`` the integer code sent.
    """
    data = dict(error.get("data") or {}) if isinstance(error.get("data"), dict) else {}
    code = str(data.pop("code", "INTERNAL"))
    rpc = error.get("code")
    cls = _BY_RPC.get(rpc) if isinstance(rpc, int) else None
    if cls is None or cls.code != code:
        cls = CODES.get(code, HermesError)
    exc = cls(str(error.get("message") or code), data=data)
    if isinstance(rpc, int):
        exc.rpc_code = rpc
    if cls is HermesError and code != "INTERNAL":
        exc.code = code
    return exc
