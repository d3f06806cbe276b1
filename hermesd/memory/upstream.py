"""Upstream sync: PUT one archive volume to the fleet's storage (blocking; run in a thread).

Standard library ``http.client`` in a worker thread, not an async client: one
upload at a time on a small device gains nothing from an event-loop client, and
httpx/aiohttp would add several MB of RSS and a dependency tree for one PUT.

Each volume goes to ``<url>/<device_id>/<path>`` (or the URL template with
``{device_id}``/``{path}`` filled in) with:

- ``Idempotency-Key: "<sha256 hex>"`` (a Structured Field string,
  draft-ietf-httpapi-idempotency-key-header) — the same volume always carries
  the same key and goes to the same path, so a PUT repeated after a crash
  replaces the object with identical bytes instead of adding a copy;
- ``Content-Digest: sha-256=:<base64>:`` (RFC 9530) so the receiver can check the body;
- ``Authorization: Bearer <token>`` when a token file is configured. Redirects are
  never followed (``http.client`` does not), so the token goes to the configured
  host only; it is never logged or put in an error message.

Outcomes (:func:`classify`): 2xx ok; 408, 429, 5xx, timeouts and connection
errors retry with capped, fully jittered exponential backoff; any other status
(3xx, 4xx) fails the file for a human to look at.
"""

from __future__ import annotations

import base64
import http.client
import ipaddress
import random
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

import psutil

__all__ = ["Client", "Reply", "Target", "TransportError", "UploadResult", "backoff_s", "classify", "network_up", "put",
           "read_token", "retry_after", "target"]

_CHUNK_BYTES = 64 * 1024
_MAX_REPLY_BYTES = 64 * 1024
_PROBE_TIMEOUT_S = 3.0
_USER_AGENT = "hermesd-upstream/1"


@dataclass(frozen=True, slots=True)
class Target:
    """Where one PUT goes: ``scheme`` (http/https), ``host``, ``port``, ``path`` (with query)."""

    scheme: str
    host: str
    port: int
    path: str

    def __str__(self) -> str:  # for logs: no query string (a presigned URL's query is a credential)
        return f"{self.scheme}://{self.host}:{self.port}{self.path.split('?', 1)[0]}"

    @property
    def host_header(self) -> str:
        """The ``Host`` value ``http.client`` would send (RFC 9110 §7.2): the port only when not the default."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == (443 if self.scheme == "https" else 80) else f"{host}:{self.port}"


@dataclass(frozen=True, slots=True)
class Reply:
    """One HTTP reply: ``status``, ``reason``, ``headers`` (names lower-case), ``body`` (at most 64 KiB read)."""

    status: int
    reason: str
    headers: dict[str, str]
    body: bytes


class TransportError(Exception):
    """No HTTP reply: connect refused, reset, timeout, TLS failure. The message holds no request header."""


@dataclass(frozen=True, slots=True)
class UploadResult:
    """``outcome`` is ``ok``, ``retry`` or ``failed``; ``status`` the HTTP status (None: no reply);
    ``error`` a short reason; ``retry_after_s`` from a 429/503 ``Retry-After``; ``elapsed_s``;
    ``already`` True when the store already held this exact volume (an S3 412 or HEAD check
    after a crash between the PUT and its mark), so nothing was written this time."""

    outcome: str
    status: int | None
    error: str = ""
    retry_after_s: float | None = None
    elapsed_s: float = 0.0
    already: bool = False


def target(url: str, device_id: str, rel_path: str) -> Target:
    """Build the PUT target for ``rel_path`` (``2026/11/29/s1.zst``).

    :raises ValueError: the URL is not http(s) or has no host.
    """
    quoted = quote(rel_path, safe="/")
    if "{path}" in url or "{device_id}" in url:
        url = url.replace("{device_id}", quote(device_id, safe="")).replace("{path}", quoted)
    else:
        url = f"{url.rstrip('/')}/{quote(device_id, safe='')}/{quoted}"
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("upstream.url must be an http:// or https:// URL with a host")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme, parts.hostname, port, path)


def read_token(token_file: str) -> str | None:
    """The bearer token (first line, stripped) or None when no file is configured.

    :raises OSError: the file is configured but unreadable.
    """
    if not token_file:
        return None
    token = Path(token_file).read_text(encoding="utf-8").strip().splitlines()
    return token[0].strip() if token else None


def classify(status: int) -> str:
    """``ok`` (2xx), ``retry`` (408, 429, 5xx) or ``failed`` (anything else)."""
    if 200 <= status < 300:
        return "ok"
    if status in (408, 429) or 500 <= status < 600:
        return "retry"
    return "failed"


def backoff_s(attempt: int, base_s: float, cap_s: float, rng: random.Random | None = None) -> float:
    """Delay before retry number ``attempt`` (1-based): uniform in [0, min(cap, base·2^(attempt−1))].

    "Full jitter" (M. Brooker, AWS Architecture Blog, "Exponential Backoff And
    Jitter", 2015): spreads a fleet's retries after a shared outage.
    """
    ceiling = min(cap_s, base_s * (2 ** min(max(attempt - 1, 0), 30)))
    return (rng or random).uniform(0.0, ceiling)


def _routes() -> set[str]:
    """Interfaces named in the kernel's IPv4 and IPv6 routing tables (Linux /proc)."""
    out: set[str] = set()
    try:
        with open("/proc/net/route", encoding="ascii") as f:
            next(f, None)
            out.update(line.split()[0] for line in f if line.strip())
    except OSError:
        pass
    try:
        with open("/proc/net/ipv6_route", encoding="ascii") as f:
            out.update(line.split()[-1] for line in f if line.strip())
    except OSError:
        pass
    return out


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def network_up(host: str, port: int, timeout_s: float = _PROBE_TIMEOUT_S) -> tuple[bool, str]:
    """Is the upstream reachable now? ``(True, "")`` or ``(False, reason)``.

    First psutil: some interface is up and (for a non-loopback host) has a route;
    then a cheap probe of the upstream itself: a TCP connect, closed at once (no
    request, so it works with any server and costs no credentials).
    """
    stats = psutil.net_if_stats()
    if _is_loopback(host):
        if not any(s.isup for name, s in stats.items() if name.startswith("lo")):
            return False, "loopback down"
    else:
        routed = _routes()
        if not any(s.isup and name in routed for name, s in stats.items() if not name.startswith("lo")):
            return False, "no interface up with a route"
    try:
        socket.create_connection((host, port), timeout=min(timeout_s, _PROBE_TIMEOUT_S)).close()
    except OSError as exc:
        return False, f"probe failed: {type(exc).__name__}: {exc.strerror or exc}"
    return True, ""


def retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP-date: fall back to our own backoff


class Client:
    """PUTs over one kept-alive connection (HTTP/1.1 persistent connections, RFC 9112 §9.3).

    :param timeout_s: socket timeout of connect, each send and the reply.
    :param max_bytes_per_s: body rate cap (0 = unlimited), sent in chunks with sleeps.

    Used by one thread at a time; :meth:`close` when the pass ends. A PUT that
    fails on a REUSED connection before any reply (the server closed it while
    idle) is sent once more on a fresh one — PUT is idempotent (RFC 9110 §9.2.2).
    """

    def __init__(self, timeout_s: float, max_bytes_per_s: int = 0) -> None:
        self.timeout_s = timeout_s
        self.max_bytes_per_s = max_bytes_per_s
        self._conn: http.client.HTTPConnection | None = None
        self._origin: tuple[str, str, int] | None = None
        self.connections = 0

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _connection(self, t: Target) -> tuple[http.client.HTTPConnection, bool]:
        origin = (t.scheme, t.host, t.port)
        if self._conn is not None and self._origin == origin:
            return self._conn, True
        self.close()
        if t.scheme == "https":
            import ssl  # only here: a daemon with no https upstream runs without OpenSSL (hermesd.openssl)

            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                t.host, t.port, timeout=self.timeout_s, context=ssl.create_default_context())
        else:
            conn = http.client.HTTPConnection(t.host, t.port, timeout=self.timeout_s)
        self._conn, self._origin = conn, origin
        self.connections += 1
        return conn, False

    def request(self, method: str, t: Target, headers: dict[str, str], body: bytes = b"") -> Reply:
        """Send one request and read its reply (body capped at 64 KiB).

        :param headers: sent as given; a ``Host`` entry replaces the one ``http.client`` adds
            (a SigV4 signature covers the exact value).
        :raises TransportError: no reply (network trouble); its message holds no header value.
        """
        for _ in range(2):
            conn, reused = self._connection(t)
            try:
                return self._once(conn, method, t, headers, body)
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as exc:
                self.close()
                if not reused:
                    raise TransportError(f"{type(exc).__name__}: {exc}"[:200]) from None
            except (OSError, http.client.HTTPException) as exc:
                # str(exc) of these never holds request headers, so no token can leak here
                self.close()
                raise TransportError(f"{type(exc).__name__}: {exc}"[:200]) from None
        raise AssertionError("unreachable")

    def _once(self, conn: http.client.HTTPConnection, method: str, t: Target, headers: dict[str, str],
              body: bytes) -> Reply:
        conn.putrequest(method, t.path, skip_host="Host" in headers, skip_accept_encoding=True)
        for k, v in headers.items():
            conn.putheader(k, v)
        conn.endheaders()
        if body:
            _send_body(conn, body, self.max_bytes_per_s)
        resp = conn.getresponse()
        data = resp.read(_MAX_REPLY_BYTES + 1)
        if resp.will_close or len(data) > _MAX_REPLY_BYTES:
            self.close()
        return Reply(resp.status, resp.reason, {k.lower(): v for k, v in resp.getheaders()}, data[:_MAX_REPLY_BYTES])

    def put(self, t: Target, data: bytes, sha256_hex: str, *, token: str | None) -> UploadResult:
        """PUT ``data`` to ``t`` (the plain HTTP target); never raises for network trouble (it becomes ``retry``).

        :param sha256_hex: digest of ``data`` (Idempotency-Key and Content-Digest).
        :param token: bearer token or None.
        """
        start = time.monotonic()
        digest = base64.b64encode(bytes.fromhex(sha256_hex)).decode("ascii")
        headers = {"Content-Type": "application/zstd", "Content-Length": str(len(data)),
                   "Idempotency-Key": f'"{sha256_hex}"', "Content-Digest": f"sha-256=:{digest}:",
                   "User-Agent": _USER_AGENT}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        try:
            reply = self.request("PUT", t, headers, data)
        except TransportError as exc:
            return UploadResult("retry", None, str(exc), None, time.monotonic() - start)
        status = reply.status
        outcome = classify(status)
        ra = retry_after(reply.headers.get("retry-after")) if status in (429, 503) else None
        return UploadResult(outcome, status, "" if outcome == "ok" else f"HTTP {status} {reply.reason}"[:200],
                            ra, time.monotonic() - start)


def put(t: Target, data: bytes, sha256_hex: str, *, token: str | None, timeout_s: float,
        max_bytes_per_s: int = 0) -> UploadResult:
    """One PUT on its own connection (see :class:`Client`)."""
    client = Client(timeout_s, max_bytes_per_s)
    try:
        return client.put(t, data, sha256_hex, token=token)
    finally:
        client.close()


def _send_body(conn: http.client.HTTPConnection, data: bytes, max_bytes_per_s: int) -> None:
    view = memoryview(data)
    if max_bytes_per_s <= 0:
        conn.send(view)
        return
    chunk = max(1024, min(_CHUNK_BYTES, max_bytes_per_s // 10))
    began = time.monotonic()
    sent = 0
    while sent < len(view):
        n = min(chunk, len(view) - sent)
        conn.send(view[sent:sent + n])
        sent += n
        ahead = sent / max_bytes_per_s - (time.monotonic() - began)
        if ahead > 0:
            time.sleep(ahead)
