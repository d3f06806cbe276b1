"""Fixtures for the archive tests: a real upstream server, a real L2 file, a started ArchiveService."""

from __future__ import annotations

import logging
import random
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from archive_helpers import TOKEN, Child, UpstreamServer

from hermesd.subsystems.archive import ArchiveService
from hermesd.memory.archive_settings import ArchiveSettings, UpstreamSettings
from hermesd.memory.l2 import L2Store


class RawLogs(logging.Handler):
    """Every record under ``hermesd`` rendered WITHOUT redaction: message, kv fields, traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        text = f"{record.levelname} {record.getMessage()} {getattr(record, 'kv', {})!r}"
        if record.exc_info:
            text += logging.Formatter().formatException(record.exc_info)
        self.lines.append(text)

    def events(self, msg: str) -> list[dict[str, Any]]:
        return [getattr(r, "kv", {}) for r in self.records if r.getMessage() == msg]


@pytest.fixture(autouse=True)
def _reap_children() -> Iterator[None]:
    """Every uploader child a test started is reaped and its pipes closed, also when the test failed."""
    yield
    while Child.live:
        Child.live.pop().close()


@pytest.fixture
def raw_logs() -> Iterator[RawLogs]:
    handler = RawLogs()
    logger = logging.getLogger("hermesd")
    old = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)


@pytest.fixture
def server() -> Iterator[UpstreamServer]:
    srv = UpstreamServer()
    try:
        yield srv
    finally:
        srv.down()


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    p = tmp_path / "token"
    p.write_text(TOKEN + "\n")
    return p


class Harness:
    """Opens ArchiveServices on one state folder; closes everything at the end."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self.opened: list[tuple[ArchiveService, L2Store]] = []

    async def open(self, *, url: str | None = None, run_loop: bool = False, now_ms: Any = None,
                   archive: dict[str, Any] | None = None, upstream: dict[str, Any] | None = None) -> ArchiveService:
        l2 = L2Store(self.state / "l2.sqlite3")
        l2.open()
        a = ArchiveSettings(**(archive or {}))
        u = UpstreamSettings(**{"url": url, "device_id": "dev1", "interval_s": 0.05, "timeout_s": 2.0,
                                "backoff_base_s": 0.01, "backoff_max_s": 0.05, **(upstream or {})})
        kw = {"now_ms": now_ms} if now_ms else {}
        svc = ArchiveService(a, u, l2=l2, rng=random.Random(7), **kw)
        await svc.open(self.state / "archive", run_loop=run_loop)
        self.opened.append((svc, l2))
        return svc

    async def close(self, svc: ArchiveService) -> None:
        for i, (s, l2) in enumerate(self.opened):
            if s is svc:
                await s.stop()
                l2.close()
                del self.opened[i]
                return


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    h = Harness(tmp_path)
    try:
        yield h
    finally:
        for s, l2 in h.opened:
            await s.stop()
            l2.close()


@pytest.fixture(scope="module")
def moto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A real S3-compatible server process (moto, SigV4 checked) shared by one test module."""
    from s3_server import MotoS3

    srv = MotoS3(log_dir=tmp_path_factory.mktemp("moto"))
    try:
        yield srv
    finally:
        srv.stop()
