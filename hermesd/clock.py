"""The daemon's one wall clock, in integer milliseconds (engines take it as a parameter)."""

from __future__ import annotations

import time

__all__ = ["wall_ms"]


def wall_ms() -> int:
    """Wall-clock time in integer milliseconds since the Unix epoch."""
    return time.time_ns() // 1_000_000
