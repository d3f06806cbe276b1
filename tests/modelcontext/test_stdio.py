"""``hermesctl mcp`` end to end: the official ``mcp`` Python SDK's stdio client against a real
daemon (both eras), and raw stdio framing (every line checked against the official schemas)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from hermesd_testing import HERMESCTL, NOBODY, clean_env

from .conftest import check_received, check_sent


def hermesctl(*args: str) -> list[str]:
    """The installed ``hermesctl`` beside this interpreter, else the same entry point by module."""
    script = Path(sys.executable).parent / "hermesctl"
    if script.exists():
        return [str(script), *args]
    return [*HERMESCTL, *args]


def server_params(socket: Path, *extra: str) -> StdioServerParameters:
    cmd = hermesctl("--socket", str(socket), "mcp", *extra)
    return StdioServerParameters(command=cmd[0], args=cmd[1:], env=clean_env())


@pytest.mark.parametrize("mode", ["legacy", "auto", "2026-07-28"])
async def test_the_sdk_drives_hermesctl_mcp(daemon, mode):
    async with Client(server_params(daemon.socket), mode=mode, read_timeout_seconds=30) as client:
        # legacy: initialize at 2025-11-25; auto: the server/discover probe finds 2026-07-28
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        # a pinned version skips the probe (the SDK makes up a DiscoverResult): ask the server itself
        if mode == "2026-07-28":
            found = await client.session.send_discover("2026-07-28")
            assert found["capabilities"]["tools"] == {"listChanged": True} and "2026-07-28" in found["supportedVersions"]
        else:
            assert client.server_capabilities.tools is not None and client.server_capabilities.tools.list_changed
        listed = await client.list_tools()
        tools = {t.name: t for t in listed.tools}
        assert {"hermesd_turn", "disk_usage", "network_check"} <= set(tools)
        assert tools["disk_usage"].annotations.read_only_hint is True
        assert tools["send_document"].annotations.destructive_hint is True

        disk = await client.call_tool("disk_usage", {"path": "/"})  # the SDK checks it against outputSchema
        assert disk.is_error is False and disk.structured_content["path"] == "/"
        assert json.loads(disk.content[0].text) == disk.structured_content

        turn = await client.call_tool("hermesd_turn", {"text": "how much disk space is left", "locale": "en-US"})
        out = turn.structured_content
        assert turn.is_error is False and out["session_id"] and out["trace_id"] and out["reply"]
        assert turn.content[0].text.startswith(out["reply"].splitlines()[0])
        more = await client.call_tool("hermesd_turn", {"text": "and the network?", "session_id": out["session_id"]})
        assert more.structured_content["session_id"] == out["session_id"]

        with pytest.raises(MCPError) as info:
            await client.call_tool("no_such_tool", {})
        assert info.value.code == -32602 and "no_such_tool" in info.value.error.message
        bad = await client.call_tool("disk_usage", {"path": 42})
        assert bad.is_error is True and "/path" in bad.content[0].text
        assert bad.meta["hermesd/code"] == "INPUT_INVALID"
        refused = await client.call_tool("send_document", {"document": "x.pdf", "to": "李娜"})
        assert refused.is_error is True and "--allow-confirm-tools" in refused.content[0].text


def _spawn(socket: Path, *extra: str, **kw) -> subprocess.Popen:
    return subprocess.Popen(hermesctl("--socket", str(socket), "mcp", *extra), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env(), **kw)


def test_raw_stdio_framing(daemon):
    version = "2025-11-25"
    sent = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
        {"jsonrpc": "2.0", "id": "three", "method": "tools/call",
         "params": {"name": "hermesd_turn", "arguments": {"text": "磁盘还剩多少"}}},
        {"jsonrpc": "2.0", "id": 4, "method": "ping"},
    ]
    for msg in sent:
        check_sent(version, msg)
    lines = [json.dumps(sent[0]).encode(), b"{broken", *(json.dumps(m, ensure_ascii=False).encode() for m in sent[1:])]
    proc = _spawn(daemon.socket)
    t0 = time.monotonic()
    out, err = proc.communicate(b"\n".join(lines) + b"\n", timeout=30)
    assert proc.returncode == 0, err.decode()
    assert time.monotonic() - t0 < 20  # it ends when stdin closes
    replies = [json.loads(line) for line in out.splitlines()]  # stdout: MCP messages only, one a line
    methods = {m.get("id"): m.get("method") for m in sent}
    for reply in replies:
        check_received(version, reply, methods.get(reply.get("id")))
    by_id = {r.get("id"): r for r in replies}
    assert by_id[None]["error"]["code"] == -32700  # the broken line, and the server lived on
    assert by_id[1]["result"]["protocolVersion"] == version and by_id[4]["result"] == {}
    assert by_id["three"]["result"]["structuredContent"]["reply"]


def test_overlong_line_is_refused_and_skipped(daemon):
    from hermesd.modelcontext.server import MAX_LINE_BYTES

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "r", "version": "1"}}}
    huge = b'{"jsonrpc": "2.0", "id": 9, "method": "ping", "pad": "' + b"x" * (MAX_LINE_BYTES + 10) + b'"}'
    proc = _spawn(daemon.socket)
    out, err = proc.communicate(huge + b"\n" + json.dumps(init).encode() + b"\n", timeout=30)
    replies = [json.loads(line) for line in out.splitlines()]
    assert replies[0]["error"]["code"] == -32600 and "longer than" in replies[0]["error"]["message"]
    assert replies[1]["id"] == 1 and replies[1]["result"]["protocolVersion"] == "2025-06-18"


def _as_nobody(socket: Path, argv: list[str], stdin: bytes) -> tuple[int, bytes, bytes]:
    """Run ``hermesctl --socket SOCKET mcp ARGV`` as nobody in a forked child (nobody cannot
    exec this interpreter under /root): its exit status, stdout and stderr."""
    from hermesd.cli import ctl_main

    fds = [os.pipe() for _ in range(3)]
    pid = os.fork()
    if pid == 0:  # child: never return into pytest
        code = 70
        try:
            os.setgroups([])
            os.setgid(NOBODY.pw_gid)
            os.setuid(NOBODY.pw_uid)
            for target, (r, w) in enumerate(fds):
                os.dup2(r if target == 0 else w, target)
            for pair in fds:
                for fd in pair:
                    os.close(fd)  # or stdin never ends: this child would hold its write end
            sys.stdin, sys.stdout, sys.stderr = (open(0, "r", closefd=False), open(1, "w", closefd=False),
                                                 open(2, "w", closefd=False))  # not pytest's capture
            try:
                ctl_main(["--socket", str(socket), "mcp", *argv])
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
        finally:
            sys.stderr.flush()
            os._exit(code)
    os.close(fds[0][0])
    os.write(fds[0][1], stdin)
    os.close(fds[0][1])
    outs = []
    for r, w in fds[1:]:
        os.close(w)
    for r, _ in fds[1:]:  # small outputs: reading one pipe after the other cannot deadlock here
        chunks = []
        while chunk := os.read(r, 65536):
            chunks.append(chunk)
        os.close(r)
        outs.append(b"".join(chunks))
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), outs[0], outs[1]


@pytest.mark.skipif(os.geteuid() != 0 or NOBODY is None, reason="needs root (to run as nobody) and a 'nobody' user")
def test_allow_confirm_tools_needs_an_admin(start_daemon):
    d = start_daemon({"server": {"socket_mode": "0666"}, "roles": {"user": {"uids": [NOBODY.pw_uid]}}})
    os.chmod(d.root, 0o755)
    code, out, err = _as_nobody(d.socket, ["--allow-confirm-tools"], b"")
    assert code == 77 and out == b"", err
    assert b"--allow-confirm-tools needs the admin role" in err
    # the same user without the flag gets a server offering the user role's tools
    lines = [json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "r", "version": "1"}}}),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})]
    code, out, err = _as_nobody(d.socket, [], ("\n".join(lines) + "\n").encode())
    assert code == 0, err
    names = {t["name"] for t in json.loads(out.splitlines()[1])["result"]["tools"]}
    assert "disk_usage" in names and "service_restart" not in names and "journal_query" not in names, err
