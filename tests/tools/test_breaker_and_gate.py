"""Breaker (pure and through the service), self-test gate, validation and roles."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time

import pytest

from hermesd.errors import HermesError
from hermesd.tools.breaker import Breaker
from hermesd.tools.descriptor import DescriptorError, load_descriptor

from .conftest import FIXTURES, start_service


def test_breaker_opens_probes_and_doubles():
    b = Breaker(threshold=3, cooldown_ms=100, cooldown_max_ms=250)
    for _ in range(3):
        b.record(b.admit(0), False, 0)
    assert b.state == "open" and b.admit(50) is None and b.retry_after_ms(50) == 50
    assert b.admit(100) == "probe" and b.state == "half_open"
    assert [b.admit(101) for _ in range(4)] == [None] * 4
    b.record("probe", False, 110)
    assert b.state == "open" and b.cooldown_ms == 200
    assert b.admit(309) is None and b.admit(310) == "probe"
    b.record("probe", False, 320)
    assert b.cooldown_ms == 250  # capped
    assert b.admit(570) == "probe"
    b.record("probe", True, 575)
    assert b.state == "closed" and b.cooldown_ms == 100


def test_breaker_lets_one_in_five_when_probe_released():
    b = Breaker(threshold=1, cooldown_ms=10, cooldown_max_ms=10, probe_every=5)
    b.record(b.admit(0), False, 0)
    assert b.admit(10) == "probe"
    b.release("probe")  # e.g. the probe's input was invalid: proves nothing
    assert [b.admit(11) for _ in range(5)] == [None, None, None, None, "probe"]


def test_success_resets_consecutive_count():
    b = Breaker(threshold=2, cooldown_ms=10, cooldown_max_ms=10)
    b.record(b.admit(0), False, 0)
    b.record(b.admit(0), True, 0)
    b.record(b.admit(0), False, 0)
    assert b.state == "closed"


async def test_half_open_crowd(fixture_service):
    svc = fixture_service
    tool = svc.registry.get("flaky")
    for _ in range(2):  # failure_threshold: 2
        res = await svc.call("flaky", {"mode": "run"}, role="user")
        assert res["error"]["code"] == "UPSTREAM_DOWN" and res["error"]["retryable"]
    assert tool.breaker.state == "open"
    with pytest.raises(HermesError) as info:
        await svc.call("flaky", {"mode": "run"}, role="user")
    assert info.value.code == "TOOL_UNAVAILABLE" and info.value.data["retry_after_ms"] > 0
    await asyncio.sleep(0.31)  # cooldown_ms: 300
    calls_before = tool.calls

    async def timed():
        t0 = time.monotonic()
        try:
            return await svc.call("flaky", {"mode": "run"}, role="user"), time.monotonic() - t0
        except HermesError as exc:
            return exc, time.monotonic() - t0

    results = await asyncio.gather(*(timed() for _ in range(10)))
    ran = [r for r, _ in results if isinstance(r, dict)]
    refused = [(r, dt) for r, dt in results if isinstance(r, HermesError)]
    assert len(ran) == 1 and ran[0]["error"]["code"] == "UPSTREAM_DOWN"
    assert len(refused) == 9 and all(r.code == "TOOL_UNAVAILABLE" and dt < 0.1 for r, dt in refused)
    assert tool.calls - calls_before == 10
    assert tool.breaker.state == "open" and tool.breaker.cooldown_ms == 600


async def test_business_error_and_bad_input_do_not_trip(fixture_service):
    svc = fixture_service
    for _ in range(8):
        res = await svc.call("business", {"mode": "run"}, role="user")
        assert res == {"ok": False, "error": {"code": "NOT_FOUND", "message": "no such thing", "retryable": False},
                       "duration_ms": res["duration_ms"]}
        with pytest.raises(HermesError):
            await svc.call("business", {"mode": "nope"}, role="user")
    assert svc.registry.get("business").breaker.state == "closed"


async def test_input_violations_listed_with_pointers(fixture_service):
    with pytest.raises(HermesError) as info:
        await fixture_service.call("echo", {"mode": 3, "share": "x", "extra": 1}, role="user")
    assert info.value.code == "INPUT_INVALID"
    pointers = sorted(v["pointer"] for v in info.value.data["violations"])
    assert pointers == ["/extra", "/mode", "/share"]


async def test_self_test_gate(fixture_service):
    svc = fixture_service
    t = svc.health()["tools"]["unhealthy"]
    assert t["health"] == "unhealthy" and "harmless" in t["failing_case"]
    with pytest.raises(HermesError) as info:
        await svc.call("unhealthy", {"mode": "check"}, role="user")
    assert info.value.code == "TOOL_UNHEALTHY" and info.value.data["failing_case"].startswith("harmless")
    listed = {x["name"]: x for x in svc.describe("admin")}
    assert listed["unhealthy"]["_meta"]["hermesd/health"] == "unhealthy"
    assert listed["echo"]["_meta"]["hermesd/health"] == "healthy"


async def test_gate_reruns_on_reload(state_dir, tmp_path):
    folder = tmp_path / "tools"
    shutil.copytree(FIXTURES / "echo", folder / "echo")
    svc = await start_service(folder, state_dir)
    try:
        assert svc.health()["tools"]["echo"]["health"] == "healthy"
        cases = json.loads((folder / "echo" / "test_cases.json").read_text())
        cases[0]["expect"] = {"values": {"echo": "something else"}}
        (folder / "echo" / "test_cases.json").write_text(json.dumps(cases))
        await svc.reload(None)
        assert svc.health()["tools"]["echo"]["health"] == "unhealthy"
        with pytest.raises(HermesError) as info:
            await svc.call("echo", {"mode": "run"}, role="user")
        assert info.value.code == "TOOL_UNHEALTHY"
    finally:
        await svc.stop()


async def test_stop_right_after_a_reload_ends_the_old_fork_server(state_dir, tmp_path):
    """The old pool drains in a task; a stop before that task first ran must still end its fork
    server and workers (they would outlive the daemon)."""
    folder = tmp_path / "tools"
    shutil.copytree(FIXTURES / "echo", folder / "echo")
    svc = await start_service(folder, state_dir)
    old_pool = svc.pool
    old = old_pool.server_pid
    try:
        await svc.reload(None)
        assert svc.pool is not old_pool and svc.pool.server_pid != old
    finally:
        await svc.stop()  # no await in between: the draining task has not started yet
    assert old_pool.server_pid is None and old_pool.worker_pids() == []
    with pytest.raises(ProcessLookupError):
        os.kill(old, 0)  # exited and reaped, not a zombie


async def test_unknown_tool_and_role(fixture_service, pack_service):
    with pytest.raises(HermesError) as info:
        await fixture_service.call("nope", {}, role="admin")
    assert info.value.code == "TOOL_NOT_FOUND"
    with pytest.raises(HermesError) as info:
        await pack_service.call("service_restart", {"unit": "x.service"}, role="user")
    assert info.value.code == "PERMISSION_DENIED"


def test_descriptor_errors_name_file_and_line(tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "tool.yaml").write_text("name: broken\ndescription: x\nsandbox:\n  memory_mb: -1\n  colour: red\n")
    (folder / "handler.py").write_text("def handle(i):\n    return {}\n")
    (folder / "test_cases.json").write_text('[{"name": "a", "input": {}, "expect": {"keys": []}}]')
    with pytest.raises(DescriptorError) as info:
        load_descriptor(folder)
    problems = info.value.problems
    assert any(p.startswith(f"{folder}/tool.yaml:4: sandbox.memory_mb") for p in problems), problems
    assert any(p.startswith(f"{folder}/tool.yaml:5: sandbox.colour") for p in problems), problems


def test_shorthand_schema(tmp_path):
    desc, _ = load_descriptor(FIXTURES / "echo")
    assert desc.input["required"] == ["mode"] and desc.input["additionalProperties"] is False
