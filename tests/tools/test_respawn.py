"""Respawning workers never deadlocks, even while another thread logs as hard as it can."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest

from hermesd.errors import HermesError


async def test_500_respawns_while_a_thread_logs(fixture_service, tmp_path):
    svc = fixture_service
    pool = svc.pool
    logger = logging.getLogger("hermesd.tests.noise")
    handler = logging.FileHandler(tmp_path / "noise.log")
    logger.addHandler(handler)
    logger.propagate = False
    stop = threading.Event()

    def noise():
        while not stop.is_set():
            logger.warning("noise line while workers respawn")

    thread = threading.Thread(target=noise)
    thread.start()
    try:
        respawns = pool.respawns
        limits = svc.registry.get("selfkill").descriptor.sandbox.limits()
        loop = asyncio.get_running_loop()
        for _ in range(500):  # straight to the pool: the breaker would (rightly) stop us after 5
            with pytest.raises(HermesError) as info:
                await pool.run("selfkill", {"mode": "run"}, limits, network=False, deadline=loop.time() + 2)
            assert info.value.code == "TOOL_CRASHED"
        await pool.wait_full_strength(2.0)
        assert pool.respawns - respawns >= 500
        assert (await svc.call("echo", {"mode": "run"}, role="user"))["ok"]
    finally:
        stop.set()
        thread.join()
        logger.removeHandler(handler)
        handler.close()
