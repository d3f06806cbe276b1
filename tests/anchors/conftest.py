"""Fixtures for the anchor tests: a real L2 file and the shipped directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from anchor_helpers import DIRECTORY, Clock

from hermesd.anchors.directory import Directory
from hermesd.anchors.graph import AnchorGraph
from hermesd.memory.l2 import L2Store

@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def l2(tmp_path: Path):
    store = L2Store(tmp_path / "l2.sqlite3")
    store.open()
    yield store
    store.close()


@pytest.fixture
async def graph(l2: L2Store, clock: Clock) -> AnchorGraph:
    g = AnchorGraph(l2, Directory.load(DIRECTORY), clock=clock, now_ms=lambda: 1_718_758_800_000)
    await g.load()
    return g
