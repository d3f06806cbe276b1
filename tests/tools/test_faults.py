"""Every fault of a misbehaving tool yields one stable code, in time, and leaves the pool whole."""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from hermesd.errors import HermesError

from .conftest import children_of, zombies_of

FAULTS = [
    ("sleeper", "TOOL_TIMEOUT", 0.5),
    ("memhog", "TOOL_OOM", 2.0),
    ("memcreep", "TOOL_OOM", 2.0),
    ("spinner", "TOOL_TIMEOUT", 3.0),
    ("selfkill", "TOOL_CRASHED", 2.0),
    ("segfault", "TOOL_CRASHED", 2.0),
    ("exiter", "TOOL_CRASHED", 2.0),
    ("badoutput", "OUTPUT_INVALID", 2.0),
    ("notobject", "OUTPUT_INVALID", 2.0),
    ("raiser", "TOOL_CRASHED", 2.0),
    ("forkbomb", None, 1.5),
    ("bigoutput", "OUTPUT_INVALID", 5.0),
    ("pipe_garbage", "TOOL_CRASHED", 2.0),
]


async def test_fixtures_pass_their_self_tests(fixture_service):
    health = fixture_service.health()["tools"]
    assert {n for n, t in health.items() if t["health"] != "healthy"} == {"unhealthy"}


@pytest.mark.parametrize("name,code,timeout_s", FAULTS, ids=[f[0] for f in FAULTS])
async def test_fault_yields_code_and_pool_recovers(fixture_service, name, code, timeout_s):
    svc = fixture_service
    pool = svc.pool
    before = set(pool.worker_pids())
    t0 = time.monotonic()
    with pytest.raises(HermesError) as info:
        await svc.call(name, {"mode": "run"}, role="user")
    elapsed = time.monotonic() - t0
    if code is None:  # fork bomb: EAGAIN raises in the handler (non-root) or the deadline kills it
        assert info.value.code in ("TOOL_CRASHED", "TOOL_TIMEOUT")
    else:
        assert info.value.code == code, info.value
    assert elapsed < timeout_s + 1.0
    faulted = info.value.data.get("pid")
    await pool.wait_full_strength(2.0)
    if info.value.code != "OUTPUT_INVALID":  # a bad answer is not a sandbox fault; the worker is sound
        assert faulted in before and faulted not in pool.worker_pids()  # discarded, never reused
        assert set(pool.worker_pids()) != before  # and replaced
    res = await svc.call("echo", {"mode": "run"}, role="user")
    assert res["ok"] and res["output"] == {"echo": "run"}
    await asyncio.sleep(0.05)
    server = pool.server_pid
    assert zombies_of({server, os.getpid()}) == []
    # nothing a handler forked outlives the call: only the pool's workers remain
    assert sorted(children_of(server)) == sorted(pool.worker_pids())


async def test_stdout_garbage_is_harmless(fixture_service):
    res = await fixture_service.call("stdout_garbage", {"mode": "run"}, role="user")
    assert res["ok"] and res["output"] == {}


async def test_thread_can_use_most_of_budget_but_not_more(fixture_service):
    res = await fixture_service.call("threadmem", {"mode": "run", "share": 0.75}, role="user")
    assert res["output"]["allocated_mb"] == 48
    with pytest.raises(HermesError) as info:
        await fixture_service.call("threadmem", {"mode": "run", "share": 1.5}, role="user")
    assert info.value.code == "TOOL_OOM"


async def test_busy_pool_answers_unavailable_by_the_deadline(fixture_service):
    svc = fixture_service
    # two sleepers hold both workers for 0.5 s; a third call with a 0.5 s deadline gets no worker
    t0 = time.monotonic()
    results = await asyncio.gather(*(svc.call("sleeper", {"mode": "run"}, role="user") for _ in range(3)),
                                   return_exceptions=True)
    codes = sorted(r.code for r in results)
    assert codes == ["TOOL_TIMEOUT", "TOOL_TIMEOUT", "TOOL_UNAVAILABLE"]
    assert time.monotonic() - t0 < 1.5


async def test_worker_environment_is_clean_and_isolated(fixture_service, monkeypatch):
    res = await fixture_service.call("envdump", {"mode": "run"}, role="user")
    env = res["output"]["env"]
    assert env["PYTHONIOENCODING"] == "utf-8" and env["MALLOC_ARENA_MAX"] == "2"
    assert env["OPENBLAS_NUM_THREADS"] == "1"
    assert not [k for k in env if "TOKEN" in k or "SECRET" in k or k.startswith("PYTEST")]
    if fixture_service.netns:
        assert res["output"]["interfaces"] == ["lo"]
    out = res["output"]
    assert out["no_new_privs"] and out["caps"]["CapEff"] == out["caps"]["CapPrm"] == 0
    assert out["caps"]["CapInh"] == out["caps"]["CapAmb"] == 0
    if os.geteuid() == 0:  # a root daemon's workers: another uid, no capability at all, securebits locked
        assert out["uid"] not in (0, os.getuid(), 65534) and out["groups"] == []
        assert out["caps"]["CapBnd"] == 0 and out["securebits"] == 0xEF


async def test_fork_server_is_lean(fixture_service):
    with open(f"/proc/{fixture_service.pool.server_pid}/maps") as fh:
        maps = fh.read()
    for heavy in ("pydantic_core", "uvloop", "orjson", "zstandard"):
        assert heavy not in maps
