"""asyncio helpers shared by the daemon's subsystems and the tiny client (standard library only)."""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["cancel_and_wait"]


async def cancel_and_wait(task: asyncio.Task[Any] | None) -> None:
    """Cancel ``task`` and wait until it has finished; whatever it ends with is dropped.

    Raises ``asyncio.CancelledError`` only when the *caller* is being cancelled meanwhile
    (``Task.cancelling()``, Python 3.11): swallowing that would let a cancelled caller run on.
    """
    if task is None:
        return
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise
    except Exception:
        pass
