"""cancel_and_wait: the awaited task's end is dropped, the caller's own cancellation is not."""

from __future__ import annotations

import asyncio

import pytest

from hermesd.tasks import cancel_and_wait


async def test_the_tasks_end_is_dropped():
    async def fails_when_cancelled() -> None:
        try:
            await asyncio.sleep(60)
        finally:
            raise ValueError("cleanup failed")

    for body in (asyncio.sleep(60), fails_when_cancelled()):
        task = asyncio.create_task(body)
        await asyncio.sleep(0)
        await cancel_and_wait(task)
        assert task.done()
    await cancel_and_wait(None)


async def test_a_cancelled_caller_stays_cancelled():
    """A caller cancelled while it waits for a slow cleanup must not run on (it used to)."""
    started, cleaning, release = asyncio.Event(), asyncio.Event(), asyncio.Event()
    ran_on = []

    async def slow_cleanup() -> None:
        started.set()
        try:
            await asyncio.sleep(60)
        finally:
            cleaning.set()
            await asyncio.shield(release.wait())  # the caller's cancel must not cut the cleanup short

    async def caller() -> None:
        task = asyncio.create_task(slow_cleanup())
        await started.wait()
        await cancel_and_wait(task)
        ran_on.append(True)

    outer = asyncio.create_task(caller())
    await cleaning.wait()
    outer.cancel()
    await asyncio.sleep(0)
    release.set()
    with pytest.raises(asyncio.CancelledError):
        await outer
    assert not ran_on
