"""Fixtures for the memory tests: injected clocks, a real L2 file, a started MemoryService."""

from __future__ import annotations

from pathlib import Path

import pytest
from memory_helpers import FakeClock, FakeWall, start_service


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def wall() -> FakeWall:
    return FakeWall()


@pytest.fixture
async def service(tmp_path: Path, clock: FakeClock, wall: FakeWall):
    svc = await start_service(tmp_path, clock, wall)
    try:
        yield svc
    finally:
        await svc.stop()
