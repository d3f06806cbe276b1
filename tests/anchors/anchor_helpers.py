"""Helpers shared by the anchor tests (imported as a top-level module: tests/ is not a package)."""

from __future__ import annotations

from pathlib import Path

DIRECTORY = Path(__file__).resolve().parents[2] / "config" / "directory.yaml"


class Clock:
    """Monotonic seconds that only move when a test says so."""

    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t
