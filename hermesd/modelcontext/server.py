"""``hermesctl mcp``: a Model Context Protocol server on stdio in front of the daemon's socket.

Sources (``../shared/specs/mcp/``): 2025-11-25 ``basic/transports.mdx`` and 2026-07-28
``basic/transports/stdio.mdx`` (one JSON-RPC message per line, no embedded newlines, nothing
but MCP messages on stdout, logs on stderr, exit when stdin closes), ``basic/lifecycle.mdx``,
``basic/versioning.mdx``, ``server/discover.mdx``, ``server/tools.mdx`` and each version's
``schema.json``. The message shapes are in :mod:`.protocol`; this module is the I/O shell.

::

    stdin ──lines──▶ McpServer.feed ──▶ task per request ──▶ DaemonLink (AsyncClient, the
    stdout ◀─lines── McpServer.write ◀──────────────────────  caller's own uid and role)
                     poller: tools.list every poll_s ─▶ notifications/tools/list_changed

The era is fixed by the client's first request, as the SDKs do: ``initialize`` opens a
legacy connection (2025-06-18 / 2025-11-25); a request carrying the 2026-07-28 ``_meta``
envelope opens a modern one. A later request from the other era is refused (an
``initialize`` on a modern connection gets -32022 naming the versions served).

Requests run concurrently, so ``ping`` is answered while a tool runs;
``notifications/cancelled`` cancels one (and nothing is sent for it).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
from typing import Any, Callable

import fastjsonschema
import orjson

from ..client import AsyncClient, DaemonNotRunning
from ..errors import HermesError
from . import protocol as P

__all__ = ["ConfirmNotAllowed", "DaemonLink", "McpServer", "serve_stdio"]

log = logging.getLogger(__name__)

#: the longest line read from stdin; a longer one is answered with an error and skipped
MAX_LINE_BYTES = 4 << 20
DEFAULT_POLL_S = 2.0
DEFAULT_PAGE_SIZE = 100
#: at end of input, how long requests already read may still run to answer
DRAIN_S = 5.0
#: a tools/call looks the tool up in a list at most this old
_LIST_MAX_AGE_S = 1.0
_RETRYABLE = frozenset({"TOOL_UNAVAILABLE", "TOOL_TIMEOUT", "RATE_LIMITED", "SESSION_BUSY"})
_DECLINED_NOTE = ("hermesctl mcp does not answer confirmations for a person, so it declined this one and nothing "
                  "was done. A person can confirm it in hermesctl chat or the app, or an admin can start "
                  "hermesctl mcp with --allow-confirm-tools.")


class ConfirmNotAllowed(Exception):
    """``--allow-confirm-tools`` was given by a caller whose role is not admin."""


class DaemonUnreachable(Exception):
    """The daemon's socket does not answer (not running, or the connection broke)."""


class DaemonLink:
    """One connection to hermesd as the invoking user, made again after the daemon restarts.

    :param socket_path: explicit socket, else the client's usual places (``$HERMESD_SOCKET`` …).
    :param timeout_s: per call.
    """

    def __init__(self, socket_path: str | None = None, timeout_s: float = 30.0) -> None:
        self.socket_path, self.timeout_s = socket_path, timeout_s
        self._client: AsyncClient | None = None
        # concurrent requests (a tools/call, the list-changed poller) share one connection: without
        # the lock each saw "no client" and connected, and all but the last connection leaked
        self._connecting = asyncio.Lock()

    async def _connected(self) -> AsyncClient:
        async with self._connecting:
            if self._client is None:
                self._client = await AsyncClient(self.socket_path, timeout_s=self.timeout_s).connect()
            return self._client

    async def call(self, method: str, params: dict[str, Any] | None = None, *, retry: bool = False) -> Any:
        """Call ``method``; ``retry`` once on a fresh connection when the old one broke (only for
        calls that may safely run twice).

        :raises HermesError: the daemon's answer. :raises DaemonUnreachable: no daemon.
        :raises TimeoutError: no reply within ``timeout_s``.
        """
        for attempt in (0, 1):
            try:
                client = await self._connected()
                return await client.call(method, params)
            except HermesError:
                raise
            except TimeoutError:
                raise
            except DaemonNotRunning as exc:
                await self.close()
                raise DaemonUnreachable(str(exc)) from None
            except (ConnectionError, OSError, ValueError) as exc:
                await self.close()
                if not retry or attempt:
                    raise DaemonUnreachable(f"the connection to hermesd broke ({exc})") from None
        raise AssertionError("unreachable")

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()


class McpServer:
    """The protocol engine: ``feed`` it lines, it ``write``\\ s messages.

    :param daemon: the daemon connection.
    :param write: sends one message (a dict) to the client.
    :param allow_confirm: run ``confirm: true`` tools and let cards be answered (the caller was
        checked to be an admin, see :meth:`check_allow_confirm`).
    :param poll_s: how often ``tools.list`` is read for list-changed notifications.
    :param page_size: tools per ``tools/list`` page.
    """

    def __init__(self, daemon: DaemonLink, write: Callable[[dict[str, Any]], None], *, allow_confirm: bool = False,
                 poll_s: float = DEFAULT_POLL_S, page_size: int = DEFAULT_PAGE_SIZE) -> None:
        self.daemon, self.write = daemon, write
        self.allow_confirm, self.poll_s, self.page_size = allow_confirm, poll_s, page_size
        self.era: str | None = None  # "legacy" | "modern"
        self.version: str | None = None
        self.initialized = False
        self._tasks: dict[Any, asyncio.Task[None]] = {}
        self._subs: dict[Any, dict[str, Any]] = {}  # subscriptions/listen id → accepted filter
        self._daemon_tools: tuple[float, list[dict[str, Any]]] | None = None
        self._digest: str | None = None
        self._poller: asyncio.Task[None] | None = None
        self._closing = False  # set by close(): the poller stops even if its cancellation was lost
        self._poll_failing = False
        self._turn_input = fastjsonschema.compile(P.TURN_TOOL["inputSchema"])

    async def check_allow_confirm(self) -> None:
        """Ask the daemon whether the caller is an admin (``admin.ping`` is admin-only).

        :raises ConfirmNotAllowed: the caller's role is not admin.
        :raises DaemonUnreachable: the role cannot be checked.
        """
        try:
            await self.daemon.call("admin.ping")
        except HermesError as exc:
            if exc.code == "PERMISSION_DENIED":
                raise ConfirmNotAllowed("--allow-confirm-tools needs the admin role; this user's role is not "
                                        "admin") from None
            raise

    # ---- framing ----------------------------------------------------------------------------

    def feed(self, line: bytes) -> None:
        """One line from the client: a request starts a task, a notification acts at once."""
        if not line.strip():
            return
        try:
            msg = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            self._error(None, P.McpError(P.PARSE_ERROR, f"Parse error: {exc}"))
            return
        if isinstance(msg, list):
            self._error(None, P.McpError(P.INVALID_REQUEST, "JSON-RPC batches are not part of MCP"))
            return
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            self._error(_id_of(msg), P.McpError(P.INVALID_REQUEST, 'Invalid request: not a JSON-RPC 2.0 object'))
            return
        if "method" not in msg:
            return  # a response: this server sends no requests, so there is nothing to match it to
        method, params = msg.get("method"), msg.get("params")
        if not isinstance(method, str) or (params is not None and not isinstance(params, dict)):
            self._error(_id_of(msg), P.McpError(P.INVALID_REQUEST, "Invalid request: method must be a string "
                                                                   "and params an object"))
            return
        if "id" not in msg:
            self._notification(method, params or {})
            return
        rid = msg["id"]
        if isinstance(rid, bool) or not isinstance(rid, (str, int)):
            self._error(None, P.McpError(P.INVALID_REQUEST, "Invalid request: id must be a string or an integer"))
            return
        if rid in self._tasks or rid in self._subs:
            self._error(rid, P.McpError(P.INVALID_REQUEST, f"Request id {rid!r} is already in use"))
            return
        try:
            handler = self._route(method, params or {})
        except P.McpError as exc:
            self._error(rid, exc)
            return
        task = asyncio.get_running_loop().create_task(self._run(rid, handler, params or {}))
        self._tasks[rid] = task

    def _route(self, method: str, params: dict[str, Any]) -> Callable[..., Any]:
        """Pick the handler, fixing the era on the first request; raises the protocol errors."""
        if method == "initialize":
            if self.era == "modern":
                requested = params.get("protocolVersion")
                raise P.McpError(P.UNSUPPORTED_PROTOCOL_VERSION, "This connection serves the 2026-07-28 protocol, "
                                 "which has no initialize handshake", {"supported": list(P.SUPPORTED_VERSIONS),
                                                                       "requested": str(requested)})
            if self.era == "legacy":
                raise P.McpError(P.INVALID_REQUEST, f"Already initialized with protocol version {self.version}")
            if not isinstance(params.get("protocolVersion"), str):
                raise P.McpError(P.INVALID_PARAMS, "initialize needs params.protocolVersion")
            self.era, self.version = "legacy", P.negotiate(params["protocolVersion"])
            return self._initialize
        if P.modern(params):
            if self.era == "legacy":
                raise P.McpError(P.INVALID_REQUEST, f"This connection was initialized with protocol version "
                                 f"{self.version}; requests with the 2026-07-28 envelope are not accepted on it")
            P.check_envelope(params)
            self.era = "modern"
            table = {"server/discover": self._discover, "tools/list": self._list, "tools/call": self._call,
                     "subscriptions/listen": self._listen}
        elif self.era == "modern" or method in ("server/discover", "subscriptions/listen"):
            P.check_envelope(params)  # raises: the envelope is missing
            raise AssertionError("unreachable")
        elif method == "ping":
            return self._ping
        elif self.era is None:
            raise P.McpError(P.INVALID_REQUEST, "Send initialize first, or use the 2026-07-28 _meta envelope")
        else:
            table = {"tools/list": self._list, "tools/call": self._call}
        handler = table.get(method)
        if handler is None:
            raise P.McpError(P.METHOD_NOT_FOUND, f"Method not found: {method}")
        return handler

    async def _run(self, rid: Any, handler: Callable[..., Any], params: dict[str, Any]) -> None:
        try:
            result = await handler(params, rid)
            if result is not None:  # subscriptions/listen answers only when it ends
                self._result(rid, P.complete(result) if self.era == "modern" else result)
        except asyncio.CancelledError:
            pass  # notifications/cancelled: nothing more is sent for this request
        except P.McpError as exc:
            self._error(rid, exc)
        except DaemonUnreachable as exc:
            self._error(rid, P.McpError(P.INTERNAL_ERROR, f"hermesd is not reachable: {exc}"))
        except TimeoutError:
            self._error(rid, P.McpError(P.INTERNAL_ERROR, f"hermesd did not answer within {self.daemon.timeout_s} s"))
        except HermesError as exc:
            self._error(rid, P.McpError(P.INTERNAL_ERROR, f"hermesd answered {exc.code}: {exc.message}"))
        except Exception as exc:  # a bug here must not end the server; the client gets an answer
            log.exception("request failed")
            self._error(rid, P.McpError(P.INTERNAL_ERROR, f"Internal error: {type(exc).__name__}"))
        finally:
            self._tasks.pop(rid, None)

    def _notification(self, method: str, params: dict[str, Any]) -> None:
        if method == "notifications/initialized" and self.era == "legacy":
            self.initialized = True
            self._ensure_poller()
        elif method == "notifications/cancelled":
            rid = params.get("requestId")
            if rid in self._subs:
                del self._subs[rid]
            task = self._tasks.get(rid) if isinstance(rid, (str, int)) else None
            if task is not None:
                task.cancel()

    def _result(self, rid: Any, result: dict[str, Any]) -> None:
        self.write({"jsonrpc": "2.0", "id": rid, "result": result})

    def _error(self, rid: Any, exc: P.McpError) -> None:
        # no id when it cannot be known (parse errors): the 2025-11-25 and later schemas allow that
        msg: dict[str, Any] = {"jsonrpc": "2.0", "error": exc.to_wire()}
        if rid is not None:
            msg["id"] = rid
        self.write(msg)

    # ---- lifecycle --------------------------------------------------------------------------

    async def _initialize(self, params: dict[str, Any], rid: Any) -> dict[str, Any]:
        assert self.version is not None
        return P.initialize_result(self.version)

    @staticmethod
    async def _ping(params: dict[str, Any], rid: Any) -> dict[str, Any]:
        return {}

    async def _discover(self, params: dict[str, Any], rid: Any) -> dict[str, Any]:
        return P.discover_result(ttl_ms=int(self.poll_s * 1000))

    async def close(self, drain_s: float = 0.0) -> None:
        """End every subscription with its result, give running requests ``drain_s`` to answer (a
        client may close stdin right after its last request), cancel the rest, drop the daemon connection.

        The poller also stops by itself once closing is set: on Python 3.11 ``asyncio.wait_for``
        drops a cancellation that arrives as its future completes (CPython gh-86296, fixed in
        3.12), and a poller that lost its cancel would keep the ``gather`` below waiting forever."""
        self._closing = True
        if drain_s > 0 and self._tasks:
            await asyncio.wait(list(self._tasks.values()), timeout=drain_s)
        for rid in list(self._subs):
            self._subs.pop(rid)
            try:
                self._result(rid, {"resultType": "complete", "_meta": {
                    P.META_SUBSCRIPTION: rid, P.META_SERVER_INFO: P.server_info(P.MODERN_VERSIONS[-1])}})
            except OSError:
                break  # the client is gone
        tasks = [t for t in (*self._tasks.values(), self._poller) if t is not None]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.daemon.close()

    # ---- tools/list and list changes --------------------------------------------------------

    async def tools(self, max_age_s: float = 0.0) -> list[dict[str, Any]]:
        """The tools offered now: hermesd_turn, then the caller's healthy daemon tools by name."""
        cached = self._daemon_tools
        if cached is None or time.monotonic() - cached[0] > max_age_s:
            listed = (await self.daemon.call("tools.list", retry=True)).get("tools") or []
            cached = self._daemon_tools = (time.monotonic(), listed)
        offered = [t for t in (P.mcp_tool(x) for x in cached[1]) if t is not None and t["name"] != P.TURN_NAME]
        tools = [P.TURN_TOOL, *sorted(offered, key=lambda t: t["name"])]
        self._digest = P.fingerprint(tools)
        return tools

    async def _list(self, params: dict[str, Any], rid: Any) -> dict[str, Any]:
        tools = await self.tools()
        digest = P.fingerprint(tools)
        start = P.decode_cursor(params["cursor"], digest) if params.get("cursor") is not None else 0
        page = tools[start:start + self.page_size]
        out: dict[str, Any] = {"tools": page}
        if start + self.page_size < len(tools):
            out["nextCursor"] = P.encode_cursor(start + self.page_size, digest)
        if self.era == "modern":
            out.update(ttlMs=int(self.poll_s * 1000), cacheScope="private")  # the list depends on the caller's role
        return out

    async def _listen(self, params: dict[str, Any], rid: Any) -> None:
        """2026-07-28 ``subscriptions/listen``: acknowledge what is supported, then stay open."""
        wanted = params.get("notifications")
        if not isinstance(wanted, dict):
            raise P.McpError(P.INVALID_PARAMS, "subscriptions/listen needs params.notifications")
        accepted = {"toolsListChanged": True} if wanted.get("toolsListChanged") is True else {}
        self._subs[rid] = accepted
        self.write({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                    "params": {"notifications": accepted, "_meta": {P.META_SUBSCRIPTION: rid}}})
        self._ensure_poller()
        return None

    def _listening(self) -> bool:
        if self._closing:
            return False
        return (self.era == "legacy" and self.initialized) or any(s.get("toolsListChanged") for s in self._subs.values())

    def _ensure_poller(self) -> None:
        if self._listening() and (self._poller is None or self._poller.done()):
            self._poller = asyncio.get_running_loop().create_task(self._poll())

    async def _poll(self) -> None:
        """Read the tool list every ``poll_s`` while someone listens; tell them when it changed
        (a tool's health, a reloaded pack, the daemon back with other tools)."""
        while self._listening():
            before = self._digest
            try:
                await self.tools()
                if self._poll_failing:
                    log.warning("hermesd answers again")
                self._poll_failing = False
            except (DaemonUnreachable, HermesError, TimeoutError) as exc:
                if not self._poll_failing:
                    log.warning("cannot read the tool list: %s", exc)
                self._poll_failing = True
            if before is not None and self._digest != before:
                self._list_changed()
            await asyncio.sleep(self.poll_s)

    def _list_changed(self) -> None:
        if self.era == "legacy":
            self.write({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            return
        for rid, accepted in self._subs.items():
            if accepted.get("toolsListChanged"):
                self.write({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                            "params": {"_meta": {P.META_SUBSCRIPTION: rid}}})

    # ---- tools/call -------------------------------------------------------------------------

    async def _call(self, params: dict[str, Any], rid: Any) -> dict[str, Any]:
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str):
            raise P.McpError(P.INVALID_PARAMS, "tools/call needs params.name")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise P.McpError(P.INVALID_PARAMS, "tools/call params.arguments must be an object")
        if name == P.TURN_NAME:
            return await self._turn(arguments)
        tools = {t["name"]: t for t in await self.tools(_LIST_MAX_AGE_S)}
        if name not in tools:
            tools = {t["name"]: t for t in await self.tools()}
        if name not in tools:
            known = next((t for t in (self._daemon_tools or (0.0, []))[1] if t.get("name") == name), None)
            if known is not None:  # the daemon has it, but it failed its self-test: not offered, say why
                why = (known.get("_meta") or {}).get("hermesd/failing_case")
                return P.call_error("TOOL_UNHEALTHY", f"{name} is out of order: it failed its self-test"
                                    + (f" ({why})" if why else ""))
            raise P.McpError(P.INVALID_PARAMS, f"Unknown tool: {name}")
        confirm = bool(tools[name].get("_meta", {}).get("hermesd/confirm"))
        if confirm and not self.allow_confirm:
            return P.call_error("PERMISSION_DENIED", f"{name} changes something and needs a person's confirmation; "
                                "hermesctl mcp refuses it unless an admin starts it with --allow-confirm-tools")
        call: dict[str, Any] = {"name": name, "arguments": arguments}
        if confirm:
            call["confirmed"] = True  # an admin allowed it when starting this server
        try:
            res = await self.daemon.call("tools.call", call)
        except HermesError as exc:
            if exc.code == "TOOL_NOT_FOUND":
                raise P.McpError(P.INVALID_PARAMS, f"Unknown tool: {name}") from None
            return _failure(exc, name)
        except DaemonUnreachable as exc:
            return P.call_error("TOOL_UNAVAILABLE", f"hermesd is not reachable, so {name} did not run ({exc})",
                                retryable=True)
        except TimeoutError:
            return P.call_error("TOOL_TIMEOUT", f"hermesd did not answer within {self.daemon.timeout_s} s",
                                retryable=True)
        if not res.get("isError"):
            return P.call_ok(res.get("structuredContent") or {})
        err = (res.get("structuredContent") or {}).get("error") or {}
        text = err.get("message") or (res.get("content") or [{}])[0].get("text") or f"{name} failed"
        return P.call_error(str(err.get("code") or "TOOL_ERROR"), text, retryable=err.get("retryable"))

    async def _turn(self, args: dict[str, Any]) -> dict[str, Any]:
        """``hermesd_turn``: open a session (or continue one), say ``text``, return the reply."""
        try:
            self._turn_input(args)
        except fastjsonschema.JsonSchemaValueException as exc:
            what = exc.message[5:] if exc.message.startswith("data.") else "arguments" + exc.message[4:]
            return P.call_error("INPUT_INVALID", f"Invalid arguments for {P.TURN_NAME}: {what}")
        if not args["text"].strip():
            return P.call_error("INPUT_INVALID", f"Invalid arguments for {P.TURN_NAME}: text is empty")
        sid, offer = args.get("session_id"), None
        try:
            if sid is None:
                opened = await self.daemon.call("session.open", {"channel": "mcp", **(
                    {"locale": args["locale"]} if args.get("locale") is not None else {})})
                sid, offer = opened["session_id"], (opened.get("offer") or {}).get("text")
            res = await self.daemon.call("session.turn", {"session_id": sid, "text": args["text"]})
            reply = res.get("reply") or {}
            card = reply.get("card")
            out: dict[str, Any] = {"session_id": sid, "reply": reply.get("text", ""), "card": card,
                                   "state": res.get("state", ""), "trace_id": res.get("trace_id", ""),
                                   "intent": res.get("intent"), "offer": offer}
            text = _reply_text(out["reply"], card)
            if isinstance(card, dict) and not card.get("choices") and not self.allow_confirm:
                declined = await self.daemon.call("session.confirm", {"session_id": sid, "accept": False})
                out.update(state=declined.get("state", out["state"]), declined=True)
                text = f"{text}\n{_DECLINED_NOTE}"
        except HermesError as exc:
            return _failure(exc, P.TURN_NAME, session_id=sid)
        except DaemonUnreachable as exc:
            return P.call_error("TOOL_UNAVAILABLE", f"hermesd is not reachable ({exc})", retryable=True)
        except TimeoutError:
            return P.call_error("TOOL_TIMEOUT", f"hermesd did not answer within {self.daemon.timeout_s} s",
                                retryable=True)
        return P.call_ok(out, text)


def _reply_text(text: str, card: Any) -> str:
    """What a person reads: the reply, and a card's choices not already in it (as ``hermesctl say``)."""
    lines = [text] if text else []
    for i, choice in enumerate((card or {}).get("choices") or [], 1):
        display = choice.get("display") if isinstance(choice, dict) else None
        if display and display not in text:
            lines.append(f"{i}) {display}")
    return "\n".join(lines) or "(no reply)"


def _failure(exc: HermesError, tool: str, session_id: str | None = None) -> dict[str, Any]:
    """A daemon error as a tool execution error the model can act on."""
    data = exc.data if isinstance(exc.data, dict) else {}
    text = exc.message
    if exc.code == "INPUT_INVALID" and data.get("violations"):
        parts = [f"{v.get('pointer') or '/'}: {str(v.get('message')).removeprefix('Value error, ')}"
                 for v in data["violations"][:5]]
        text = f"Invalid arguments for {tool}: {'; '.join(parts)}"
    elif exc.code in ("SESSION_NOT_FOUND", "SESSION_EXPIRED"):
        text = (f"Session {session_id} is not open any more ({exc.message}); call {P.TURN_NAME} without "
                "session_id to start a new one")
    return P.call_error(exc.code, text, retryable=exc.code in _RETRYABLE or None,
                        retry_after_ms=data.get("retry_after_ms"), violations=data.get("violations"))


def _id_of(msg: Any) -> Any:
    rid = msg.get("id") if isinstance(msg, dict) else None
    return rid if isinstance(rid, (str, int)) and not isinstance(rid, bool) else None


# ---- stdio --------------------------------------------------------------------------------------


def _read_stdin(fd: int, loop: asyncio.AbstractEventLoop, queue: "asyncio.Queue[bytes | None]") -> None:
    """Thread: lines from ``fd`` into ``queue`` (None at end of input); an overlong line is cut
    to its first ``MAX_LINE_BYTES`` (then the rest is skipped) so it gets an error, not a guess."""
    stream = os.fdopen(fd, "rb", buffering=1 << 16, closefd=False)
    try:
        while True:
            line = stream.readline(MAX_LINE_BYTES + 1)
            if not line:
                break
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                while (rest := stream.readline(1 << 16)) and not rest.endswith(b"\n"):
                    pass
                line = b"\x00too long"
            loop.call_soon_threadsafe(queue.put_nowait, line)
    except (OSError, ValueError):
        pass
    finally:
        loop.call_soon_threadsafe(queue.put_nowait, None)


async def serve_stdio(socket_path: str | None, *, timeout_s: float = 30.0, allow_confirm: bool = False,
                      poll_s: float = DEFAULT_POLL_S, page_size: int = DEFAULT_PAGE_SIZE) -> None:
    """Serve MCP on this process's stdin/stdout until stdin closes.

    stdout is kept for MCP messages only: the original fd is kept aside and fd 1 is pointed at
    stderr, so a stray ``print`` anywhere cannot corrupt the stream.

    :raises ConfirmNotAllowed, DaemonUnreachable: ``allow_confirm`` and the caller is not an admin
        (or the daemon cannot say).
    """
    out_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    lock = threading.Lock()

    def write(msg: dict[str, Any]) -> None:
        data = orjson.dumps(msg, option=orjson.OPT_APPEND_NEWLINE)
        with lock:
            view = memoryview(data)
            while view:
                view = view[os.write(out_fd, view):]

    server = McpServer(DaemonLink(socket_path, timeout_s), write, allow_confirm=allow_confirm, poll_s=poll_s,
                       page_size=page_size)
    try:
        if allow_confirm:
            await server.check_allow_confirm()
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        threading.Thread(target=_read_stdin, args=(0, loop, queue), name="mcp-stdin", daemon=True).start()
        while (line := await queue.get()) is not None:
            if line == b"\x00too long":
                server._error(None, P.McpError(P.INVALID_REQUEST, f"Message longer than {MAX_LINE_BYTES} bytes"))
                continue
            server.feed(line)
    finally:
        await server.close(drain_s=DRAIN_S)
        os.close(out_fd)
