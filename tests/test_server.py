"""The JSON-RPC server over a real socket: errors, framing, pipelining, limits, concurrency."""

from __future__ import annotations

import asyncio
import os
import stat
import socket
import time

import orjson
import pytest

from hermesd.client import AsyncClient


def _code(msg: dict) -> tuple[int, str]:
    return msg["error"]["code"], msg["error"]["data"]["code"]


def test_protocol_errors_keep_the_connection_usable(daemon):
    c = daemon.raw()
    c.send(b"{not json\n")
    r = c.recv()
    assert _code(r) == (-32700, "INVALID_REQUEST") and r["id"] is None
    c.send(b'[1, 2]\n')
    assert _code(c.recv()) == (-32600, "INVALID_REQUEST")
    c.send(b'{"jsonrpc": "1.0", "id": 7, "method": "admin.ping"}\n')
    r = c.recv()
    assert _code(r) == (-32600, "INVALID_REQUEST") and r["id"] == 7
    c.request("no.such.method", rid="abc")
    r = c.recv()
    assert _code(r) == (-32601, "INVALID_REQUEST") and r["id"] == "abc"
    c.request("debug.echo", {"delay_ms": "soon"}, rid=9)
    r = c.recv()
    assert _code(r) == (-32602, "INPUT_INVALID") and r["id"] == 9
    assert r["error"]["data"]["violations"][0]["pointer"] == "/delay_ms"
    c.request("debug.block", {"ms": 1, "unexpected": True}, rid=10)
    assert _code(c.recv()) == (-32602, "INPUT_INVALID")
    c.send(b"\n\r\n")  # blank lines are skipped, not errors
    c.request("admin.ping", rid=11)
    r = c.recv()
    assert r["id"] == 11 and r["result"]["pong"] is True


def test_notification_gets_no_reply(daemon):
    c = daemon.raw()
    c.send(b'{"jsonrpc": "2.0", "method": "admin.ping"}\n')
    c.request("admin.ping", rid=2)
    assert c.recv()["id"] == 2


def test_one_mib_line_without_newline_does_not_disturb_others(daemon):
    pid_before = daemon.call("admin.status")["pid"]
    talker = daemon.client()
    assert talker.call("debug.echo", {"text": "before"})["text"] == "before"
    flooder = daemon.raw()
    chunk = b"x" * 65536
    for _ in range(16):  # 1 MiB, no newline
        flooder.send(chunk)
        assert talker.call("debug.echo", {"text": "during"})["text"] == "during"
    r = flooder.recv()
    assert _code(r) == (-32030, "FRAME_TOO_LARGE") and r["id"] is None
    flooder.send(b"tail of the long line\n")  # rest of that line is discarded
    flooder.request("admin.ping", rid=5)
    assert flooder.recv()["id"] == 5  # same connection still works, nothing else was reported
    assert talker.call("admin.status")["pid"] == pid_before == daemon.pid
    metrics = talker.call("admin.metrics")["text"]
    assert 'hermes_frame_errors_total{code="FRAME_TOO_LARGE"} 1' in metrics


def test_line_at_the_limit_is_accepted(start_daemon):
    d = start_daemon({"server": {"debug_methods": True, "max_line_bytes": 1024}})
    c = d.raw()
    head = b'{"jsonrpc":"2.0","id":1,"method":"debug.echo","params":{"text":"'
    tail = b'"}}'
    c.send(head + b"a" * (1024 - len(head) - len(tail)) + tail + b"\n")
    assert "result" in c.recv()
    c.send(head + b"a" * (1025 - len(head) - len(tail)) + tail + b"\n")
    assert _code(c.recv())[1] == "FRAME_TOO_LARGE"


def test_multibyte_character_split_across_writes(daemon):
    c = daemon.raw()
    line = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "debug.echo", "params": {"text": "把报价单发给张工"}}) + b"\n"
    cut = line.index("张".encode()) + 1  # inside the 3-byte sequence
    c.send(line[:cut])
    time.sleep(0.05)
    c.send(line[cut:])
    assert c.recv()["result"]["text"] == "把报价单发给张工"


def test_invalid_utf8_is_an_error_reply(daemon):
    c = daemon.raw()
    c.send(b'{"jsonrpc":"2.0","id":1,"method":"debug.echo","params":{"text":"\xff\xfe"}}\n')
    r = c.recv()
    assert _code(r) == (-32700, "INVALID_REQUEST") and "UTF-8" in r["error"]["message"]
    c.request("admin.ping", rid=2)
    assert c.recv()["id"] == 2
    assert daemon.proc.poll() is None


def test_pipelined_requests_answer_by_id_and_slow_one_does_not_block(daemon):
    c = daemon.raw()
    batch = b"".join(orjson.dumps({"jsonrpc": "2.0", "id": i, "method": "debug.echo",
                                   "params": {"text": str(i), "delay_ms": 400 if i == 1 else 0}}) + b"\n"
                     for i in (1, 2, 3))
    c.send(batch)
    order = [c.recv()["id"] for _ in range(3)]
    assert order[-1] == 1 and sorted(order) == [1, 2, 3]


def test_slow_request_never_delays_other_connections(daemon):
    slow = daemon.raw()
    slow.request("debug.echo", {"delay_ms": 1500}, rid=1)
    t0 = time.monotonic()
    with daemon.client() as fast:
        for _ in range(20):
            fast.call("admin.ping")
    assert time.monotonic() - t0 < 1.5  # finished while the slow one still sleeps
    assert slow.recv()["id"] == 1


def test_max_connections_then_clear_error(start_daemon):
    d = start_daemon({"server": {"max_connections": 3}})
    held = [d.client() for _ in range(3)]
    for c in held:
        c.call("admin.ping")
    extra = d.raw()
    r = extra.recv()
    assert _code(r) == (-32029, "RATE_LIMITED") and "max_connections=3" in r["error"]["message"]
    assert extra.closed_by_peer()
    held[0].close()
    time.sleep(0.1)
    assert d.call("admin.ping")["pong"]


def test_idle_connection_is_closed(start_daemon):
    d = start_daemon({"server": {"idle_timeout_s": 0.3}})
    c = d.raw()
    c.request("admin.ping")
    c.recv()
    assert c.closed_by_peer(timeout_s=5.0)


def test_five_hundred_concurrent_clients(start_daemon):
    d = start_daemon({"server": {"max_connections": 600, "debug_methods": True}})

    async def one(i: int) -> str:
        async with AsyncClient(d.socket) as c:
            r = await c.call("debug.echo", {"text": f"c{i}", "delay_ms": 50})
            await c.call("admin.ping")
            return r["text"]

    async def main() -> list[str]:
        return await asyncio.gather(*(one(i) for i in range(500)))

    assert asyncio.run(main()) == [f"c{i}" for i in range(500)]
    assert d.call("admin.status")["pid"] == d.pid


def test_async_client_pipelines_on_one_connection(daemon):
    async def main() -> list[str]:
        async with AsyncClient(daemon.socket) as c:
            return await asyncio.gather(*(c.call("debug.echo", {"text": str(i), "delay_ms": 100}) for i in range(50)))

    t0 = time.monotonic()
    res = asyncio.run(main())
    assert [r["text"] for r in res] == [str(i) for i in range(50)]
    assert time.monotonic() - t0 < 4.0  # 50 × 100 ms would be 5 s if serialised


def test_socket_mode_is_0660(daemon):
    assert stat.S_IMODE(os.stat(daemon.socket).st_mode) == 0o660


def test_metrics_count_requests_by_method_and_outcome(daemon):
    with daemon.client() as c:
        c.call("admin.ping")
        c.call("admin.ping")
        with pytest.raises(Exception):
            c.call("nope")
        text = c.call("admin.metrics")["text"]
    assert 'hermes_requests_total{method="admin.ping",outcome="ok"} 2' in text
    assert 'hermes_requests_total{method="unknown",outcome="INVALID_REQUEST"} 1' in text
    assert 'hermes_request_duration_seconds_count{method="admin.ping"} 2' in text
    assert "# TYPE hermes_request_duration_seconds histogram" in text
    assert "hermes_connections_open 1" in text


def test_status_reports_health(daemon):
    daemon.wait_settled()
    st = daemon.call("admin.status")
    assert st["status"] == "ok" and st["pid"] == daemon.pid
    assert st["rss_bytes"] > 1_000_000 and st["connections"] == 1
    assert len(st["config_digest"]) == 16 and st["subsystems"]["server"]["status"] == "ok"


def test_flooding_client_is_slowed_not_the_daemon(daemon):
    flood = daemon.raw()
    line = b'{"jsonrpc":"2.0","id":1,"method":"admin.ping"}\n'
    flood.sock.setblocking(False)
    sent = 0
    deadline = time.monotonic() + 2
    # write without ever reading for 2 s, retrying whenever the socket is full: a daemon that
    # kept reading would let megabytes through; one that pushes back stops at the socket buffers
    while time.monotonic() < deadline:
        try:
            sent += flood.sock.send(line * 512)
        except BlockingIOError:
            time.sleep(0.02)
    assert sent < 2 * 1024 * 1024, f"the daemon kept reading a client that never reads ({sent} bytes)"
    t0 = time.monotonic()
    with daemon.client() as c:
        for _ in range(50):
            assert c.call("admin.ping")["pong"]
        rss = c.call("admin.status")["rss_bytes"]
    assert time.monotonic() - t0 < 5
    assert rss < 200 * 1024 * 1024
    # reading the replies lets the daemon catch up: every complete request gets its answer
    flood.sock.setblocking(True)
    flood.sock.settimeout(10)
    want, got = sent // len(line), 0
    while got < want:
        got += flood.sock.recv(1 << 20).count(b"\n")
    assert got == want


def test_a_client_that_leaves_mid_request_does_not_leak_its_connection(daemon):
    for _ in range(30):
        c = daemon.raw()
        c.request("debug.echo", {"text": "x", "delay_ms": 20})
        c.sock.shutdown(socket.SHUT_WR)  # half-close while the request runs
        assert c.recv()["result"]["text"] == "x"  # still answered
        c.close()
    for _ in range(30):  # and clients that read their reply and close at once
        with daemon.client() as cl:
            cl.call("debug.echo", {"text": "y", "delay_ms": 1})
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if daemon.call("admin.status")["connections"] == 1:  # only this one
            break
        time.sleep(0.05)
    assert daemon.call("admin.status")["connections"] == 1
