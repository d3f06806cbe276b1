"""JSON-RPC 2.0 over NDJSON: framing, request parsing, the method contract (pure, no I/O).

One JSON object per line, UTF-8, at most ``max_line_bytes`` a line (JSON-RPC 2.0
spec, https://www.jsonrpc.org/specification). Framing never guesses: a line too
long is reported once and its remainder is skipped as it streams past, never
buffered; a character split across two reads is only decoded once its line is
complete, so it always arrives whole.

Subsystems plug into the server through :class:`Method`: a name, the roles that
may call it, an optional :mod:`hermesd.typed` model for its params and an async handler
``handler(params, ctx) -> result`` where ``ctx`` is a :class:`CallContext`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable

import orjson

from .errors import FrameTooLarge, InvalidRequest, ParseError
from .caller import Caller

if TYPE_CHECKING:
    from .typed import BaseModel

__all__ = ["CallContext", "Caller", "LineDecoder", "Method", "Request", "encode", "error_response", "parse_request"]

_EMPTY: dict[str, Any] = {}


class LineDecoder:
    """Split a byte stream into lines of at most ``max_line_bytes`` (newline excluded).

    :param max_line_bytes: longest accepted line in bytes, e.g. 65536.

    ``feed(data)`` returns a list whose items are either a complete line
    (``bytes``, without the newline or a trailing ``\\r``) or a
    :class:`~hermesd.errors.FrameTooLarge` instance, reported once per
    oversized line as soon as the limit is crossed. After that the decoder
    drops bytes until the next newline, holding none of them.
    """

    __slots__ = ("_buf", "_discarding", "max_line_bytes")

    def __init__(self, max_line_bytes: int) -> None:
        self.max_line_bytes = max_line_bytes
        self._buf = bytearray()
        self._discarding = False

    @property
    def buffered_bytes(self) -> int:
        """Bytes held for an unfinished line (0 while discarding)."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[bytes | FrameTooLarge]:
        # fast path: exactly one whole line in one read, nothing buffered (the usual request)
        if not self._buf and not self._discarding and data.endswith(b"\n") and data.find(b"\n") == len(data) - 1:
            if len(data) - 1 <= self.max_line_bytes:
                return [data[:-2] if data.endswith(b"\r\n") else data[:-1]]
        out: list[bytes | FrameTooLarge] = []
        start = 0
        n = len(data)
        while start < n:
            nl = data.find(b"\n", start)
            end = n if nl < 0 else nl
            if self._discarding:
                if nl < 0:
                    return out
                self._discarding = False
                start = nl + 1
                continue
            if len(self._buf) + (end - start) > self.max_line_bytes:
                self._buf.clear()
                out.append(FrameTooLarge(f"line longer than {self.max_line_bytes} bytes; rest of line discarded",
                                         data={"max_line_bytes": self.max_line_bytes}))
                if nl < 0:
                    self._discarding = True
                    return out
                start = nl + 1
                continue
            if nl < 0:
                self._buf += data[start:]
                return out
            if self._buf:
                self._buf += data[start:nl]
                line = bytes(self._buf)
                self._buf.clear()
            else:
                line = data[start:nl]
            if line.endswith(b"\r"):
                line = line[:-1]
            out.append(line)
            start = nl + 1
        return out


@dataclass(slots=True)
class CallContext:
    """What a method handler knows about its call.

    :param caller: the peer. :param trace_id: 16 hex chars, logged with every line of this call.
    :param notify: ``await notify(method, params)`` sends a JSON-RPC notification
        (no id) on this caller's connection; for streams such as events.
    :param connection_id: stable per connection, for subscriptions.
    """

    caller: Caller
    trace_id: str
    notify: Callable[[str, dict[str, Any]], Awaitable[None]]
    connection_id: int = 0
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Method:
    """One entry of the method table.

    :param name: dotted name, e.g. ``session.turn``; the group before the dot
        (``session``, ``memory``, ``tools``, ``admin``) is for humans.
    :param handler: ``async handler(params, ctx) -> JSON-serialisable result``;
        ``params`` is an instance of ``params_model`` when one is given, else the
        raw dict (``{}`` when the request had none). Raise a
        :class:`~hermesd.errors.HermesError` subclass for a clean error reply.
    :param roles: roles allowed to call it.
    :param params_model: :class:`hermesd.typed.BaseModel` validating by-name params (bad → −32602).
    """

    name: str
    handler: Callable[[Any, CallContext], Awaitable[Any]]
    roles: frozenset[str] = frozenset({"admin", "user"})
    params_model: type["BaseModel"] | None = None


@dataclass(slots=True)
class Request:
    """A parsed request. ``id`` is None for a notification (no reply is sent)."""

    method: str
    params: dict[str, Any] | list[Any]
    id: str | int | None
    is_notification: bool


def parse_request(line: bytes) -> Request:
    """Parse one NDJSON line into a :class:`Request`.

    :raises ParseError: the line is not UTF-8 JSON (−32700).
    :raises InvalidRequest: valid JSON but not a JSON-RPC 2.0 request object
        (−32600); ``data.id`` carries the id when one could be read.
    """
    try:
        obj = orjson.loads(line)  # validates UTF-8 as well (RFC 8259 §8.1)
    except orjson.JSONDecodeError as exc:
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as uexc:
            raise ParseError(f"line is not valid UTF-8 (byte offset {uexc.start})") from None
        raise ParseError(f"invalid JSON: {exc}") from None
    if type(obj) is not dict:
        raise InvalidRequest("a request must be a JSON object (batches are not supported)")
    rid = obj.get("id")
    method = obj.get("method")
    params = obj.get("params", _EMPTY)
    # fast path: a well-formed request passes these four checks and nothing else
    if (obj.get("jsonrpc") == "2.0" and type(method) is str and method
            and (rid is None or type(rid) is str or type(rid) is int)
            and (type(params) is dict or type(params) is list)):
        return Request(method, {} if params is _EMPTY else params, rid, "id" not in obj)
    id_ok = rid is None or (isinstance(rid, (str, int)) and not isinstance(rid, bool))
    if obj.get("jsonrpc") != "2.0":
        raise InvalidRequest('"jsonrpc" must be "2.0"', data={"id": rid} if id_ok else {})
    if not id_ok:
        raise InvalidRequest('"id" must be a string, an integer or null')
    if not isinstance(method, str) or not method:
        raise InvalidRequest('"method" must be a non-empty string', data={"id": rid})
    raise InvalidRequest('"params" must be an object or an array', data={"id": rid})


def encode(obj: Any) -> bytes:
    """Serialise one message as a UTF-8 JSON line ending in ``\\n``."""
    return orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE | orjson.OPT_NON_STR_KEYS)


def error_response(rid: str | int | None, error: dict[str, Any]) -> bytes:
    """A complete error response line for ``rid`` (null when the id is unknown)."""
    return encode({"jsonrpc": "2.0", "id": rid, "error": error})
