"""The small HTTP client against real asyncio servers on 127.0.0.1 (hermesd.llm.http)."""

from __future__ import annotations

import asyncio

import pytest

from hermesd.llm.http import post_json
from hermesd.llm.rounds import ModelUnavailable


async def _serve(answer: bytes, delay_s: float = 0.0):
    seen: list[bytes] = []

    async def handle(reader, writer):
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            n = int([h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")][0].split(b":")[1])
            seen.append(head + await reader.readexactly(n))
            await asyncio.sleep(delay_s)
            writer.write(answer)
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client gave up first
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/prefix", seen


def _run(answer: bytes, delay_s: float = 0.0, timeout_s: float = 2.0, token: str | None = None):
    async def go():
        server, url, seen = await _serve(answer, delay_s)
        async with server:
            try:
                return await post_json(url, "/api/chat", b'{"a":1}', timeout_s=timeout_s, token=token), seen
            finally:
                server.close()
    return asyncio.run(go())


def test_content_length_body_and_the_request_line():
    body, seen = _run(b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n{\"x\":1}", token="t0k")
    assert body == b'{"x":1}'
    assert seen[0].startswith(b"POST /prefix/api/chat HTTP/1.1\r\n")
    assert b"Authorization: Bearer t0k" in seen[0] and seen[0].endswith(b'{"a":1}')


def test_chunked_body():
    body, _ = _run(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"x\"\r\n3\r\n:1}\r\n0\r\n\r\n")
    assert body == b'{"x":1}'


@pytest.mark.parametrize("answer, reason", [
    (b"HTTP/1.1 503 Busy\r\nContent-Length: 2\r\n\r\n{}", "http_503"),
    (b"SSH-2.0-OpenSSH\r\n\r\n", "bad_reply"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n", "bad_reply"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}", "connect"),  # closed before the body ended
])
def test_failures_have_one_reason_each(answer, reason):
    with pytest.raises(ModelUnavailable) as e:
        _run(answer)
    assert e.value.reason == reason


def test_a_slow_server_times_out():
    with pytest.raises(ModelUnavailable) as e:
        _run(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", delay_s=2.0, timeout_s=0.2)
    assert e.value.reason == "timeout"


def test_a_closed_port_is_a_connect_failure():
    async def go():
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        return await post_json(f"http://127.0.0.1:{port}", "/x", b"{}", timeout_s=1.0)
    with pytest.raises(ModelUnavailable) as e:
        asyncio.run(go())
    assert e.value.reason == "connect"
