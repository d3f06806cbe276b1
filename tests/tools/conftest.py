"""Fixtures for the tool runtime: a real ToolsService over real fork server and worker processes."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from hermesd.subsystems.subsystem import DaemonContext
from hermesd.subsystems.tools import ToolsService
from hermesd.tools.settings import ToolsSettings

FIXTURES = Path(__file__).parent / "fixtures"
PACK = Path(__file__).parents[2] / "tools"


@pytest.fixture
def state_dir():
    # workers may run as `nobody` (when tests run as root): they must be able to reach this folder,
    # and pytest's tmp_path lives under a 0700 directory
    path = Path(tempfile.mkdtemp(prefix="hermesd-tools-", dir="/tmp"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


async def start_service(tools_dir: Path, state_dir: Path, **kw) -> ToolsService:
    svc = ToolsService(ToolsSettings(tools_dir=tools_dir, **kw))
    await svc.start(DaemonContext(config=None, state_dir=state_dir, subsystems={}))
    await svc.settled()  # every tool's self-test verdict, as before READY used to wait for it
    return svc


@pytest.fixture
async def fixture_service(state_dir):
    svc = await start_service(FIXTURES, state_dir)
    yield svc
    await svc.stop()


@pytest.fixture
async def pack_service(state_dir):
    svc = await start_service(PACK, state_dir)
    yield svc
    await svc.stop()


def zombies_of(ppids: set[int]) -> list[int]:
    """Pids in state Z whose parent is one of ``ppids``."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z" and int(fields[1]) in ppids:
            out.append(int(entry))
    return out


def children_of(ppid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    if int(fh.read().rsplit(")", 1)[1].split()[1]) == ppid:
                        out.append(int(entry))
            except OSError:
                pass
    return out
