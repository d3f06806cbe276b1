"""The MCP server in-process against a real daemon; every message both ways checked against the
official schema of the session's protocol version."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
from typing import Any

import jsonschema
import pytest

from hermesd.modelcontext import protocol as P
from hermesd.modelcontext.server import DaemonLink, McpServer

from .conftest import add_echo_tool, check_received, check_sent

MODERN = "2026-07-28"


class Peer:
    """An MCP client in the test: sends checked messages to an :class:`McpServer`, checks what comes back."""

    def __init__(self, socket_path, version: str, **kw: Any) -> None:
        self.version = version
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.server = McpServer(DaemonLink(str(socket_path), timeout_s=20), self.inbox.put_nowait, **kw)
        self.ids = itertools.count(1)
        self.methods: dict[Any, str] = {}
        self.notes: list[dict[str, Any]] = []

    def envelope(self, params: dict[str, Any] | None) -> dict[str, Any]:
        params = dict(params or {})
        if self.version == MODERN:
            params["_meta"] = {P.META_VERSION: MODERN, P.META_CAPABILITIES: {},
                               "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
                               **params.get("_meta", {})}
        return params

    def send(self, method: str, params: dict[str, Any] | None = None, *, rid: Any = None, raw: bool = False) -> Any:
        rid = next(self.ids) if rid is None else rid
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        params = params if raw else self.envelope(params)
        if params or method != "ping":
            msg["params"] = params
        if not raw:
            check_sent(self.version, msg)
        self.methods[rid] = method
        self.server.feed(json.dumps(msg).encode())
        return rid

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        check_sent(self.version, msg)
        self.server.feed(json.dumps(msg).encode())

    async def receive(self, timeout_s: float = 20.0) -> dict[str, Any]:
        msg = await asyncio.wait_for(self.inbox.get(), timeout_s)
        check_received(self.version, msg, self.methods.get(msg.get("id")))
        return msg

    async def reply(self, rid: Any, timeout_s: float = 20.0) -> dict[str, Any]:
        while True:
            msg = await self.receive(timeout_s)
            if msg.get("id") == rid:
                return msg
            self.notes.append(msg)

    async def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        msg = await self.reply(self.send(method, params))
        assert "result" in msg, msg
        return msg["result"]

    async def error(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        msg = await self.reply(self.send(method, params, **kw))
        assert "error" in msg, msg
        return msg["error"]

    async def tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return await self.call("tools/call", {"name": name, "arguments": arguments})

    async def initialize(self) -> dict[str, Any]:
        result = await self.call("initialize", {"protocolVersion": self.version, "capabilities": {},
                                                "clientInfo": {"name": "test", "version": "1"}})
        self.notify("notifications/initialized")
        return result

    async def all_tools(self) -> list[dict[str, Any]]:
        tools, cursor = [], None
        while True:
            page = await self.call("tools/list", {"cursor": cursor} if cursor else {})
            tools += page["tools"]
            cursor = page.get("nextCursor")
            if cursor is None:
                return tools


def check_tool_result(tool: dict[str, Any], result: dict[str, Any]) -> None:
    """What a careful client does: structuredContent matches the tool's outputSchema."""
    assert result["isError"] is False
    jsonschema.Draft202012Validator(tool["outputSchema"]).validate(result["structuredContent"])


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
async def test_legacy_session(daemon, version):
    peer = Peer(daemon.socket, version, page_size=3)
    try:
        assert await peer.call("ping") == {}  # allowed before initialize
        assert (await peer.error("tools/list"))["code"] == P.INVALID_REQUEST  # initialize first
        init = await peer.initialize()
        assert init["protocolVersion"] == version and init["serverInfo"]["name"] == "hermesd"
        tools = await peer.all_tools()
        names = [t["name"] for t in tools]
        assert names[0] == "hermesd_turn" and names[1:] == sorted(names[1:]) and len(set(names)) == len(names)
        assert {"disk_usage", "network_check", "note"} <= set(names)
        for t in tools:
            jsonschema.Draft202012Validator.check_schema(t["inputSchema"])
        by_name = {t["name"]: t for t in tools}
        assert by_name["disk_usage"]["annotations"]["readOnlyHint"] is True
        assert by_name["network_check"]["annotations"]["openWorldHint"] is True
        assert by_name["send_document"]["annotations"]["destructiveHint"] is True

        disk = await peer.tool("disk_usage", {"path": "/"})
        check_tool_result(by_name["disk_usage"], disk)
        assert json.loads(disk["content"][0]["text"]) == disk["structuredContent"]

        first = await peer.tool("hermesd_turn", {"text": "how much disk space is left", "locale": "en-US"})
        check_tool_result(by_name["hermesd_turn"], first)
        turn = first["structuredContent"]
        assert turn["session_id"] and turn["trace_id"] and turn["state"] == "LISTENING" and turn["reply"]
        assert first["content"][0]["text"].startswith(turn["reply"].splitlines()[0])
        again = await peer.tool("hermesd_turn", {"text": "thanks", "session_id": turn["session_id"]})
        assert again["structuredContent"]["session_id"] == turn["session_id"]

        # errors: a protocol error for an unknown tool, tool execution errors the model can correct
        unknown = await peer.error("tools/call", {"name": "no_such_tool", "arguments": {}})
        assert unknown["code"] == P.INVALID_PARAMS and "no_such_tool" in unknown["message"]
        bad = await peer.tool("disk_usage", {"path": "relative"})
        assert bad["isError"] is True and bad["_meta"]["hermesd/code"] == "INPUT_INVALID"
        assert "/path" in bad["content"][0]["text"] and bad["content"][0]["text"].endswith(".")
        no_text = await peer.tool("hermesd_turn", {"session_id": turn["session_id"]})
        assert no_text["isError"] and "text" in no_text["content"][0]["text"]
        gone = await peer.tool("hermesd_turn", {"text": "hi", "session_id": "0123456789abcdef"})
        assert gone["_meta"]["hermesd/code"] == "SESSION_NOT_FOUND" and "without session_id" in gone["content"][0]["text"]
        french = await peer.tool("hermesd_turn", {"text": "bonjour", "locale": "fr-FR"})
        assert french["_meta"]["hermesd/code"] == "INPUT_INVALID" and "fr-FR" in french["content"][0]["text"]
        assert (await peer.error("tools/list", {"cursor": "junk"}))["code"] == P.INVALID_PARAMS
        assert (await peer.error("resources/list"))["code"] == P.METHOD_NOT_FOUND
        assert (await peer.error("initialize", {"protocolVersion": version, "capabilities": {},
                                                "clientInfo": {"name": "t", "version": "1"}}))["code"] == P.INVALID_REQUEST
        # the era is fixed: a 2026-07-28 request on a legacy connection is refused
        modern_msg = {"_meta": {P.META_VERSION: MODERN, P.META_CAPABILITIES: {}}}
        assert (await peer.error("tools/list", modern_msg, raw=True))["code"] == P.INVALID_REQUEST
    finally:
        await peer.server.close()


async def test_unknown_version_in_initialize_gets_the_latest(daemon):
    peer = Peer(daemon.socket, "2025-11-25")
    try:
        rid = peer.send("initialize", {"protocolVersion": "1999-01-01", "capabilities": {},
                                       "clientInfo": {"name": "t", "version": "1"}}, raw=True)
        assert (await peer.reply(rid))["result"]["protocolVersion"] == "2025-11-25"
    finally:
        await peer.server.close()


async def test_modern_session(daemon):
    peer = Peer(daemon.socket, MODERN)
    try:
        found = await peer.call("server/discover")
        assert MODERN in found["supportedVersions"] and found["capabilities"]["tools"]["listChanged"]
        listed = await peer.call("tools/list")
        assert listed["resultType"] == "complete" and listed["cacheScope"] == "private" and listed["ttlMs"] >= 0
        assert listed["_meta"][P.META_SERVER_INFO]["name"] == "hermesd" and "nextCursor" not in listed
        disk = await peer.tool("disk_usage", {"path": "/"})
        assert disk["resultType"] == "complete"
        check_tool_result(next(t for t in listed["tools"] if t["name"] == "disk_usage"), disk)
        turn = await peer.tool("hermesd_turn", {"text": "磁盘还剩多少", "locale": "zh-CN"})
        assert any("\u4e00" <= ch <= "\u9fff" for ch in turn["content"][0]["text"])

        old = {"_meta": {P.META_VERSION: "2025-11-25", P.META_CAPABILITIES: {}}}
        err = await peer.error("tools/list", old, raw=True)
        assert err["code"] == P.UNSUPPORTED_PROTOCOL_VERSION and err["data"]["requested"] == "2025-11-25"
        assert (await peer.error("tools/list", {}, raw=True))["code"] == P.INVALID_PARAMS  # no envelope
        # removed in 2026-07-28 (so not in its schema)
        assert (await peer.error("ping", peer.envelope({}), raw=True))["code"] == P.METHOD_NOT_FOUND
        init = await peer.error("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                               "clientInfo": {"name": "t", "version": "1"}}, raw=True)
        assert init["code"] == P.UNSUPPORTED_PROTOCOL_VERSION and MODERN in init["data"]["supported"]
    finally:
        await peer.server.close()


async def test_bad_lines_get_errors_and_the_server_lives_on(daemon):
    peer = Peer(daemon.socket, "2025-11-25")
    try:
        for line, code in ((b"{not json", P.PARSE_ERROR), (b"[1, 2]", P.INVALID_REQUEST),
                           (b'{"jsonrpc": "1.0", "id": 1, "method": "ping"}', P.INVALID_REQUEST),
                           (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', P.INVALID_REQUEST),
                           (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}', P.INVALID_REQUEST)):
            peer.server.feed(line)
            msg = await peer.receive()
            assert msg["error"]["code"] == code, (line, msg)
        peer.server.feed(b"   \n")  # blank: nothing at all
        assert (await peer.initialize())["protocolVersion"] == "2025-11-25"
    finally:
        await peer.server.close()


async def test_a_cancelled_call_gets_no_reply(daemon):
    peer = Peer(daemon.socket, "2025-11-25")
    try:
        await peer.initialize()
        rid = peer.send("tools/call", {"name": "disk_usage", "arguments": {"path": "/"}})
        peer.notify("notifications/cancelled", {"requestId": rid, "reason": "test"})
        assert await peer.call("ping") == {}
        with pytest.raises(TimeoutError):
            await peer.reply(rid, timeout_s=1.0)
    finally:
        await peer.server.close()


async def test_confirm_tools_refused_unless_allowed(tools_daemon):
    d, _ = tools_daemon
    peer = Peer(d.socket, "2025-11-25")
    try:
        await peer.initialize()
        tools = {t["name"]: t for t in await peer.all_tools()}
        assert set(tools) == {"hermesd_turn", "disk_usage", "flag_set"}
        assert tools["flag_set"]["annotations"] == {"readOnlyHint": False, "destructiveHint": True,
                                                    "idempotentHint": False, "openWorldHint": False}
        refused = await peer.tool("flag_set", {"flag": "a"})
        assert refused["isError"] and refused["_meta"]["hermesd/code"] == "PERMISSION_DENIED"
        assert "--allow-confirm-tools" in refused["content"][0]["text"]
    finally:
        await peer.server.close()
    allowed = Peer(d.socket, "2025-11-25", allow_confirm=True)
    try:
        await allowed.server.check_allow_confirm()  # the tests run as root: the daemon's admin
        await allowed.initialize()
        ran = await allowed.tool("flag_set", {"flag": "a"})
        assert ran["isError"] is False and ran["structuredContent"] == {"flag": "a", "set": True}
    finally:
        await allowed.server.close()


def _documents(d) -> None:
    folder = d.state_dir / "documents"
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o755)
    path = folder / "报价单Q-2024-061.pdf"
    path.write_text("quote")
    os.chmod(path, 0o644)


async def test_hermesd_turn_declines_confirmation_cards_unless_allowed(daemon):
    _documents(daemon)
    peer = Peer(daemon.socket, "2025-11-25")
    try:
        await peer.initialize()
        res = await peer.tool("hermesd_turn", {"text": "send the quote to Li Na", "locale": "en"})
        out = res["structuredContent"]
        assert out["card"] and not out["card"].get("choices") and out["declined"] is True, out
        assert out["state"] != "CONFIRMING" and "declined" in res["content"][0]["text"]
        outbox = daemon.state_dir / "outbox"
        assert not [p for p in outbox.rglob("*") if p.is_file()]  # nothing was sent
    finally:
        await peer.server.close()
    allowed = Peer(daemon.socket, "2025-11-25", allow_confirm=True)
    try:
        await allowed.initialize()
        res = await allowed.tool("hermesd_turn", {"text": "send the quote to Li Na", "locale": "en"})
        out = res["structuredContent"]
        assert out["state"] == "CONFIRMING" and "declined" not in out, out
        yes = await allowed.tool("hermesd_turn", {"text": "yes", "session_id": out["session_id"]})
        assert yes["structuredContent"]["state"] == "LISTENING", yes
        assert [p for p in (daemon.state_dir / "outbox").rglob("*") if p.is_file()]  # sent once confirmed
    finally:
        await allowed.server.close()


async def _wait_for(peer: Peer, method: str, timeout_s: float = 15.0) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        for i, note in enumerate(peer.notes):
            if note.get("method") == method:
                return peer.notes.pop(i)
        left = deadline - asyncio.get_running_loop().time()
        if left <= 0:
            raise AssertionError(f"no {method} within {timeout_s}s; got {peer.notes}")
        try:
            peer.notes.append(await peer.receive(left))
        except TimeoutError:
            pass


async def test_list_changed_when_the_pack_changes(tools_daemon):
    d, folder = tools_daemon
    legacy, modern = Peer(d.socket, "2025-11-25", poll_s=0.2), Peer(d.socket, MODERN, poll_s=0.2)
    try:
        await legacy.initialize()
        assert "echo" not in {t["name"] for t in await legacy.all_tools()}
        assert "echo" not in {t["name"] for t in await modern.all_tools()}  # each server knows the list as it is
        sub = modern.send("subscriptions/listen", {"notifications": {"toolsListChanged": True,
                                                                     "promptsListChanged": True}})
        ack = await _wait_for(modern, "notifications/subscriptions/acknowledged")
        assert ack["params"] == {"notifications": {"toolsListChanged": True}, "_meta": {P.META_SUBSCRIPTION: sub}}
        add_echo_tool(folder)
        reloaded = d.call("admin.reload")  # the shipped rules name tools this folder lacks: only they complain
        assert not [p for p in reloaded["problems"] if not p.startswith("session:")], reloaded
        await _wait_for(legacy, "notifications/tools/list_changed")
        note = await _wait_for(modern, "notifications/tools/list_changed")
        assert note["params"]["_meta"][P.META_SUBSCRIPTION] == sub
        assert "echo" in {t["name"] for t in await legacy.all_tools()}
        # a subscription the client cancels gets nothing more; one still open ends with a result
        modern.notify("notifications/cancelled", {"requestId": sub})
        second = modern.send("subscriptions/listen", {"notifications": {"toolsListChanged": True}})
        await _wait_for(modern, "notifications/subscriptions/acknowledged")
        await modern.server.close()
        end = await modern.reply(second)
        assert end["result"]["_meta"][P.META_SUBSCRIPTION] == second
        assert modern.inbox.empty()
    finally:
        await legacy.server.close()
        await modern.server.close()


async def test_concurrent_first_calls_share_one_connection(daemon):
    """A tools/call and the list-changed poller may both be first: one connection, none left open."""
    accepted = 'hermes_connections_total{outcome="accepted"}'

    def count() -> float:
        line = next(x for x in daemon.call("admin.metrics")["text"].splitlines() if x.startswith(accepted))
        return float(line.split()[-1])

    before = count()
    link = DaemonLink(str(daemon.socket), timeout_s=30)
    try:
        pongs = await asyncio.gather(*(link.call("admin.ping") for _ in range(8)))
        assert all(p["pong"] for p in pongs)
    finally:
        await link.close()
    assert count() == before + 2  # the link's one connection, and this count()'s own


async def test_without_a_daemon(short_dir):
    """The server starts before the daemon does (an MCP host starts it at login): calls say so."""
    peer = Peer(short_dir / "nothing.sock", "2025-11-25")
    try:
        assert (await peer.initialize())["protocolVersion"] == "2025-11-25"
        err = await peer.error("tools/list")
        assert err["code"] == P.INTERNAL_ERROR and "not running" in err["message"]
        turn = await peer.tool("hermesd_turn", {"text": "hi"})
        assert turn["isError"] and turn["_meta"]["hermesd/code"] == "TOOL_UNAVAILABLE"
        assert "not reachable" in turn["content"][0]["text"]
    finally:
        await peer.server.close()


async def test_an_unhealthy_tool_is_not_offered_and_says_why(tools_daemon):
    d, folder = tools_daemon
    # a case the handler cannot pass: the next load marks the tool unhealthy
    (folder / "flag_set" / "test_cases.json").write_text(json.dumps(
        [{"name": "impossible", "input": {"flag": "a"}, "expect": {"values": {"set": False}}}]))
    d.call("admin.reload")
    peer = Peer(d.socket, "2025-11-25")
    try:
        await peer.initialize()
        assert "flag_set" not in {t["name"] for t in await peer.all_tools()}
        res = await peer.tool("flag_set", {"flag": "a"})
        assert res["isError"] and res["_meta"]["hermesd/code"] == "TOOL_UNHEALTHY"
        assert "impossible" in res["content"][0]["text"]
    finally:
        await peer.server.close()
