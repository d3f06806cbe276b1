"""Helpers shared by the memory tests (imported as a top-level module: tests/ is not a package)."""

from __future__ import annotations

from datetime import timedelta, timezone
from pathlib import Path

from hermesd.subsystems.memory import MemoryService
from hermesd.memory.settings import MemorySettings
from hermesd.protocol import CallContext, Caller

CST = timezone(timedelta(hours=8))
#: 2024-06-19 09:00 +08:00 (a week after the signature example's send), in ms.
T0_MS = 1_718_758_800_000


class FakeClock:
    """Monotonic seconds that only move when a test says so."""

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, s: float) -> None:
        self.t += s


class FakeWall:
    """Wall-clock milliseconds that only move when a test says so."""

    def __init__(self, ms: int = T0_MS) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


def make_settings(**kw: object) -> MemorySettings:
    """MemorySettings from a nested dict (validated like the config file)."""
    return MemorySettings.model_validate(kw)


async def start_service(state_dir: Path, clock: FakeClock, wall: FakeWall, **settings: object) -> MemoryService:
    svc = MemoryService(make_settings(**settings), clock=clock, now_ms=wall, tz=CST, run_decay=False)
    await svc.open(state_dir)
    return svc


def ctx(uid: int, role: str = "user") -> CallContext:
    async def notify(method: str, params: dict) -> None:  # memory methods never notify
        raise AssertionError("unexpected notification")

    return CallContext(caller=Caller(uid=uid, gid=uid, pid=1, role=role), trace_id="0" * 16, notify=notify)
