"""Worker life: per-call CPU accounting on reused workers, recycling, fork server loss, clean environment."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from hermesd.errors import HermesError

from .conftest import FIXTURES, start_service


async def test_cpu_budget_is_per_call_on_a_reused_worker(state_dir):
    # one worker, ten calls of 150 ms CPU each: 1.5 s over the worker's life, 300 ms budget per call
    svc = await start_service(FIXTURES, state_dir, pool_size=1)
    try:
        pids = set()
        for _ in range(10):
            res = await svc.call("burner", {"mode": "run", "ms": 150}, role="user")
            assert res["output"] == {"burned_ms": 150}
            pids.add(res.get("pid") or svc.pool.worker_pids()[0])
        assert len(set(svc.pool.worker_pids())) == 1 and len(pids) == 1
        with pytest.raises(HermesError) as info:
            await svc.call("burner", {"mode": "run", "ms": 1000}, role="user")
        assert info.value.code == "TOOL_TIMEOUT" and info.value.data["limit"] == "cpu_ms"
    finally:
        await svc.stop()


async def test_workers_recycled_after_max_calls(state_dir):
    svc = await start_service(FIXTURES, state_dir, pool_size=1, worker_max_calls=3)
    try:
        first = svc.pool.worker_pids()
        for _ in range(3):
            await svc.call("echo", {"mode": "run"}, role="user")
        await svc.pool.wait_full_strength(2.0)
        await asyncio.sleep(0.05)
        assert svc.pool.worker_pids() and svc.pool.worker_pids() != first
    finally:
        await svc.stop()


async def test_fork_server_loss_is_repaired(fixture_service):
    svc = fixture_service
    old_server, old_workers = svc.pool.server_pid, svc.pool.worker_pids()
    os.kill(old_server, signal.SIGKILL)
    for _ in range(200):
        await asyncio.sleep(0.01)
        if svc.pool.server_pid != old_server and svc.pool.at_full_strength():
            break
    assert svc.pool.server_pid != old_server
    assert (await svc.call("echo", {"mode": "run"}, role="user"))["ok"]
    await asyncio.sleep(0.05)
    # PR_SET_PDEATHSIG killed the orphaned workers (reaping them is init's job once they are orphans)
    assert [p for p in old_workers if _state(p) not in ("gone", "Z", "X")] == []


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


async def test_no_inherited_secrets(state_dir, monkeypatch):
    monkeypatch.setenv("HERMESD_API_TOKEN", "s3cret")
    monkeypatch.setenv("PYTHONPATH", "/nonexistent")
    svc = await start_service(FIXTURES, state_dir)
    try:
        env = (await svc.call("envdump", {"mode": "run"}, role="user"))["output"]["env"]
        assert "HERMESD_API_TOKEN" not in env and "PYTHONPATH" not in env
        assert env["HERMESD_TOOL_NAME"] == "envdump"
    finally:
        await svc.stop()


async def test_stop_leaves_no_process(state_dir):
    svc = await start_service(FIXTURES, state_dir)
    pids = [svc.pool.server_pid, *svc.pool.worker_pids()]
    await svc.stop()
    await asyncio.sleep(0.05)
    assert [p for p in pids if _state(p) != "gone"] == []


async def test_reload_lets_running_calls_finish(fixture_service):
    svc = fixture_service
    old_server = svc.pool.server_pid
    running = asyncio.ensure_future(svc.call("flaky", {"mode": "run"}, role="user"))  # 200 ms
    await asyncio.sleep(0.05)
    await svc.reload(None)
    assert svc.pool.server_pid != old_server
    res = await running
    assert res["error"]["code"] == "UPSTREAM_DOWN"  # answered by the old pool, not cut off
    assert (await svc.call("echo", {"mode": "run"}, role="user"))["ok"]
    for _ in range(100):
        if _state(old_server) == "gone":
            break
        await asyncio.sleep(0.02)
    assert _state(old_server) == "gone"


async def test_missing_worker_user_falls_back_to_an_unallocated_uid(state_dir, caplog):
    if os.geteuid() != 0:
        pytest.skip("worker_user only applies when the daemon runs as root")
    import pwd
    import time

    t0 = time.monotonic()
    svc = await start_service(FIXTURES, state_dir, worker_user="no-such-user-hermesd")
    try:
        assert time.monotonic() - t0 < 30
        assert any("no-such-user-hermesd" in r.getMessage() + str(getattr(r, "kv", ""))
                   and r.levelname == "WARNING" for r in caplog.records)
        sb = svc.health()["sandbox"]
        assert sb["identity"] == "fallback" and "no-such-user-hermesd" in sb["user_warning"]
        uid = (await svc.call("envdump", {"mode": "run"}, role="user"))["output"]["uid"]
        # never root, never the daemon's uid, never the shared nobody, and no account owns it
        assert uid == sb["worker_uid"] and uid not in (0, os.getuid(), 65534) and 65520 <= uid <= 65533
        with pytest.raises(KeyError):
            pwd.getpwuid(uid)
    finally:
        await svc.stop()


@pytest.mark.parametrize("user", ["root", "nobody"])
async def test_worker_user_that_is_root_or_shared_is_refused(state_dir, user):
    if os.geteuid() != 0:
        pytest.skip("worker_user only applies when the daemon runs as root")
    svc = await start_service(FIXTURES, state_dir, worker_user=user, self_test=False)
    try:
        sb = svc.health()["sandbox"]
        assert sb["identity"] == "fallback" and user in sb["user_warning"]
        assert sb["worker_uid"] not in (0, 65534)
    finally:
        await svc.stop()
