"""Scrape paths for the metrics registry besides ``admin.metrics``: HTTP and node_exporter's textfile.

Prometheus cannot scrape a Unix socket, so two optional outputs (``metrics:`` in
the config, both off by default) carry the same exposition text:

- ``metrics.listen: HOST:PORT`` — a small HTTP/1.1 listener on the daemon's event
  loop: ``GET /metrics`` (and ``HEAD``) answers ``200`` with the text and
  ``Content-Type: text/plain; version=0.0.4``; other paths ``404``, other methods
  ``405``; one request per connection (``Connection: close``), request head at most
  8 KiB read within 5 s, at most 16 connections at once. Rendering runs on the loop,
  so it never reads a family while the loop changes it.
- ``metrics.textfile: PATH`` — node_exporter's textfile collector
  (https://github.com/prometheus/node_exporter#textfile-collector): the text is
  written to a temporary file in the same folder (a name not ending in ``.prom``, so
  the collector never reads a half-written file) and renamed over ``PATH`` every
  ``textfile_interval_s``, at start and at stop. The file is mode 0644 (the collector
  runs as another user). Staleness shows as ``node_textfile_mtime_seconds``.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from .config import split_listen
from .metrics import CONTENT_TYPE
from .tasks import cancel_and_wait

if TYPE_CHECKING:
    from .config import MetricsSettings

__all__ = ["MetricsExporter", "write_textfile"]

log = logging.getLogger(__name__)

_MAX_HEAD_BYTES = 8192
_HEAD_TIMEOUT_S = 5.0
_MAX_CLIENTS = 16


def write_textfile(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` atomically: a temporary file beside it, then ``rename(2)``.

    A reader sees the old file or the new one, never a part. No fsync: a snapshot lost
    to a power cut is replaced by the next write, and flash is spared four syncs a minute.

    :raises OSError: the folder is missing or not writable.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
    try:
        os.fchmod(fd, 0o644)  # the daemon's umask is 077; node_exporter runs as another user
        data = text.encode()
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    os.close(fd)
    try:
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _response(status: str, body: bytes, content_type: str, head_only: bool, extra: str = "") -> bytes:
    head = (f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
            f"Cache-Control: no-store\r\n{extra}Connection: close\r\n\r\n")
    return head.encode("latin-1") + (b"" if head_only else body)


class MetricsExporter:
    """The HTTP listener and the textfile writer for one daemon.

    :param settings: the ``metrics:`` section. :param render: returns the exposition text
        (``Daemon.metrics_text``); called on the event loop.
    """

    def __init__(self, settings: "MetricsSettings", render: Callable[[], str]) -> None:
        self.settings = settings
        self.render = render
        self.address: tuple[str, int] | None = None  # bound (host, port), once listening
        self._server: asyncio.base_events.Server | None = None
        self._task: asyncio.Task[None] | None = None
        self._clients = 0
        self._last_error = ""
        self._started = False

    async def start(self) -> None:
        """Bind the listener (if configured), write the textfile once and schedule its rewrites.

        :raises OSError: the listen address cannot be bound (in use, not on this host).
        """
        s = self.settings
        self._started = True
        if s.listen:
            host, port = split_listen(s.listen)
            try:
                self._server = await asyncio.start_server(self._serve, host, port, limit=_MAX_HEAD_BYTES,
                                                          reuse_address=True)
            except OSError as exc:
                raise OSError(exc.errno, f"metrics.listen {s.listen}: {exc.strerror}") from None
            sockname = self._server.sockets[0].getsockname()
            self.address = (sockname[0], sockname[1])
            log.info("metrics.listening", extra={"kv": {"address": s.listen, "port": self.address[1]}})
        if s.textfile is not None:
            await self.write_once()
            self._task = asyncio.create_task(self._textfile_loop(), name="hermesd-metrics-textfile")

    async def stop(self) -> None:
        """Close the listener, stop the rewrites and write the textfile a last time. Never raises."""
        await cancel_and_wait(self._task)
        self._task = None
        if self._server is not None:
            self._server.close()
            try:
                await asyncio.wait_for(self._server.wait_closed(), timeout=2.0)
            except (TimeoutError, asyncio.TimeoutError):
                pass
            self._server = None
            self.address = None
        if self.settings.textfile is not None and self._started:
            await self.write_once()
        self._started = False

    def status(self) -> dict[str, object]:
        """``{"listen": "HOST:PORT" bound or None, "textfile": path or None, "textfile_error": str}``."""
        listen = None
        if self.address is not None:
            host = f"[{self.address[0]}]" if ":" in self.address[0] else self.address[0]
            listen = f"{host}:{self.address[1]}"
        textfile = str(self.settings.textfile) if self.settings.textfile is not None else None
        return {"listen": listen, "textfile": textfile, "textfile_error": self._last_error}

    # -- textfile ---------------------------------------------------------------------

    async def write_once(self) -> bool:
        """Render on the loop, write in a thread; an error is logged once until it changes."""
        path = self.settings.textfile
        assert path is not None
        text = self.render()
        try:
            await asyncio.to_thread(write_textfile, path, text)
        except OSError as exc:
            error = f"{exc.strerror or exc}"
            if error != self._last_error:
                log.error("metrics.textfile_failed", extra={"kv": {"path": str(path), "error": error}})
            self._last_error = error
            return False
        if self._last_error:
            log.info("metrics.textfile_written", extra={"kv": {"path": str(path)}})
        self._last_error = ""
        return True

    async def _textfile_loop(self) -> None:
        while True:
            await asyncio.sleep(self.settings.textfile_interval_s)
            await self.write_once()

    # -- HTTP -------------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._clients >= _MAX_CLIENTS:
            writer.close()
            return
        self._clients += 1
        try:
            try:
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), _HEAD_TIMEOUT_S)
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError,
                    TimeoutError, asyncio.TimeoutError, ConnectionError):
                return
            writer.write(self._answer(head))
            await asyncio.wait_for(writer.drain(), _HEAD_TIMEOUT_S)
        except (ConnectionError, TimeoutError, asyncio.TimeoutError):
            pass
        finally:
            self._clients -= 1
            writer.close()

    def _answer(self, head: bytes) -> bytes:
        parts = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
        text_plain = "text/plain; charset=utf-8"
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            return _response("400 Bad Request", b"bad request line\n", text_plain, False)
        method, target = parts[0], parts[1]
        head_only = method == "HEAD"
        if method not in ("GET", "HEAD"):
            return _response("405 Method Not Allowed", b"only GET and HEAD\n", text_plain, False,
                             "Allow: GET, HEAD\r\n")
        path = target.split("?", 1)[0]
        if path == "/metrics":
            return _response("200 OK", self.render().encode(), CONTENT_TYPE, head_only)
        if path == "/":
            return _response("200 OK", b"hermesd: metrics at /metrics\n", text_plain, head_only)
        return _response("404 Not Found", b"not found; metrics are at /metrics\n", text_plain, head_only)
