"""A small HTTP/1.1 client for the model server (asyncio streams; no HTTP library, no LLM SDK).

One ``POST`` per model call on a fresh connection (``Connection: close``): the server is on the
device or the LAN, where a TCP connect costs well under a millisecond, and no pooled socket can
go stale between turns. Reads a ``Content-Length`` or ``chunked`` body (RFC 9112 §6–7), at most
``max_bytes``. The whole exchange — connect, write, read — runs under one deadline.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

from .rounds import ModelUnavailable

__all__ = ["MAX_RESPONSE_BYTES", "post_json"]

#: a chat answer larger than this is not one (a runaway or hostile server)
MAX_RESPONSE_BYTES = 4 * 1024 * 1024


async def post_json(endpoint: str, path: str, body: bytes, *, timeout_s: float, token: str | None = None,
                    max_bytes: int = MAX_RESPONSE_BYTES) -> bytes:
    """POST ``body`` (JSON) to ``endpoint + path``; the answer's body when the status is 2xx.

    :param endpoint: ``http(s)://host[:port][/prefix]``. :param token: a bearer token, if any.
    :raises ModelUnavailable: ``timeout`` (past ``timeout_s``), ``connect`` (refused, reset,
        closed early), ``http_<status>`` (not 2xx), ``bad_reply`` (not HTTP, or too large).
    """
    try:
        return await asyncio.wait_for(_post(endpoint, path, body, token, max_bytes), timeout_s)
    except TimeoutError:
        raise ModelUnavailable("timeout", f"no answer within {timeout_s * 1000:.0f} ms") from None
    except (OSError, asyncio.IncompleteReadError, EOFError) as exc:
        raise ModelUnavailable("connect", f"{type(exc).__name__}: {exc}") from None


async def _post(endpoint: str, path: str, body: bytes, token: str | None, max_bytes: int) -> bytes:
    u = urlsplit(endpoint)
    secure = u.scheme == "https"
    host = u.hostname or "127.0.0.1"
    port = u.port or (443 if secure else 80)
    context = None
    if secure:
        import ssl  # only here: a daemon with no https endpoint runs without OpenSSL (hermesd.openssl)

        context = ssl.create_default_context()
    reader, writer = await asyncio.open_connection(host, port, ssl=context)
    try:
        target = (u.path.rstrip("/") + path) or "/"
        head = [f"POST {target} HTTP/1.1", f"Host: {u.netloc.rpartition('@')[2]}", "User-Agent: hermesd",
                "Content-Type: application/json", "Accept: application/json", f"Content-Length: {len(body)}",
                "Connection: close"]
        if token:
            head.append(f"Authorization: Bearer {token}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
        await writer.drain()
        status_line = await reader.readline()
        parts = status_line.decode("latin-1").split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
            raise ModelUnavailable("bad_reply", f"not an HTTP answer: {status_line[:60]!r}")
        status = int(parts[1])
        headers: dict[str, str] = {}
        while True:
            line = await reader.readline()
            if not line:
                raise ModelUnavailable("connect", "the server closed the connection in the headers")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if "chunked" in headers.get("transfer-encoding", "").lower():
            data = await _chunked(reader, max_bytes)
        elif "content-length" in headers:
            n = int(headers["content-length"]) if headers["content-length"].isdigit() else -1
            if not 0 <= n <= max_bytes:
                raise ModelUnavailable("bad_reply", f"Content-Length {headers['content-length']!r}")
            data = await reader.readexactly(n)
        else:
            data = await reader.read(max_bytes + 1)
            if len(data) > max_bytes:
                raise ModelUnavailable("bad_reply", "the answer is too large")
        if not 200 <= status < 300:
            raise ModelUnavailable(f"http_{status}", data[:200].decode("utf-8", "replace"))
        return data
    finally:
        writer.close()
        try:
            await writer.wait_closed()
        except OSError:  # ssl.SSLError is one
            pass


async def _chunked(reader: asyncio.StreamReader, max_bytes: int) -> bytes:
    out = bytearray()
    while True:
        size_line = (await reader.readline()).split(b";", 1)[0].strip()
        try:
            size = int(size_line, 16)
        except ValueError:
            raise ModelUnavailable("bad_reply", f"bad chunk size {size_line[:20]!r}") from None
        if size == 0:
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return bytes(out)
        if len(out) + size > max_bytes:
            raise ModelUnavailable("bad_reply", "the answer is too large")
        out += await reader.readexactly(size)
        await reader.readexactly(2)
