"""READY comes before the tools' self-tests end: each tool is ``starting`` until its cases have run,
a call to a starting tool waits for the verdict within the tool's own timeout, a failing case makes
the tool unhealthy with the case and the reason. Real daemon, real fork server and workers.

The fixtures in ``fixtures_gated`` answer their self-test case only once the test creates a file
named ``open`` in the tool's folder, so "still starting" is a state the test holds, not a race.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from hermesd.errors import ToolUnavailable
from hermesd_testing import clean_env

GATED = Path(__file__).parent / "fixtures_gated"


def _ctl(d: Any, *args: str) -> str:
    out = subprocess.run([sys.executable, "-c", "from hermesd.cli import ctl_main; ctl_main()", "--socket",
                          str(d.socket), *args], capture_output=True, text=True, env=clean_env(), timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _tools(root: Path, *names: str) -> Path:
    folder = root / "tools"
    for name in names:
        shutil.copytree(GATED / name, folder / name)
    folder.chmod(0o755)
    return folder


def _health(d: Any) -> dict[str, str]:
    return {t["name"]: t["_meta"]["hermesd/health"] for t in d.call("tools.list")["tools"]}


def _call_in_thread(d: Any, name: str, out: dict[str, Any]) -> threading.Thread:
    def run() -> None:
        with d.client(timeout_s=120) as c:
            try:
                out["result"] = c.call("tools.call", {"name": name, "arguments": {"mode": "run"}})
            except Exception as exc:  # noqa: BLE001 - the test reads it
                out["error"] = exc

    th = threading.Thread(target=run, daemon=True)
    th.start()
    return th


def _wait_connections(d: Any, n: int) -> None:
    """Until the daemon holds ``n`` connections (the test's own and the caller's)."""
    deadline = time.monotonic() + 60
    while d.call("admin.status")["connections"] < n:
        assert time.monotonic() < deadline, "the calling thread never connected"
        time.sleep(0.02)


def test_ready_before_self_tests_end_and_a_call_waits_for_them(start_daemon, short_dir):
    tools = _tools(short_dir, "gated", "gated_wrong")
    rules = short_dir / "rules"  # no rule names the shipped tools these fixtures stand in for
    rules.mkdir()
    d = start_daemon({"tools": {"tools_dir": str(tools)}, "session": {"rules_dir": str(rules)}}, settle=False)
    # READY came, and neither self-test can have ended: both wait for their gate
    assert _health(d) == {"gated": "starting", "gated_wrong": "starting"}
    st = d.call("admin.status")
    assert st["subsystems"]["tools"]["status"] == "starting" and st["status"] == "starting"
    listing = _ctl(d, "tools")
    assert any(line.split()[:2] == ["gated", "starting"] for line in listing.splitlines()), listing
    assert "status=starting" in _ctl(d, "status")

    good: dict[str, Any] = {}
    bad: dict[str, Any] = {}
    threads = [_call_in_thread(d, "gated", good)]
    _wait_connections(d, 2)
    threads.append(_call_in_thread(d, "gated_wrong", bad))
    _wait_connections(d, 3)
    threads[0].join(0.3)
    # no verdict without the gate: the calls are still waiting, and the tools still starting
    assert threads[0].is_alive() and threads[1].is_alive() and not good and not bad
    assert _health(d) == {"gated": "starting", "gated_wrong": "starting"}

    (tools / "gated" / "open").touch()
    (tools / "gated_wrong" / "open").touch()
    for th in threads:
        th.join(90)
    assert good["result"]["isError"] is False and good["result"]["structuredContent"] == {"echo": "run"}
    err = bad["error"]
    assert err.code == "TOOL_UNHEALTHY" and "answers right" in err.message and "echo" in err.message

    st = d.wait_settled()
    tools_health = st["subsystems"]["tools"]["tools"]
    assert tools_health["gated"]["health"] == "healthy"
    assert tools_health["gated_wrong"]["health"] == "unhealthy"
    assert tools_health["gated_wrong"]["failing_case"].startswith("answers right: ")
    assert st["subsystems"]["tools"]["status"] == "degraded" and st["status"] == "degraded"


async def test_a_call_waits_no_longer_than_the_tools_timeout(state_dir):
    tools = _tools(state_dir, "gated_quick")
    from hermesd.subsystems.subsystem import DaemonContext
    from hermesd.subsystems.tools import ToolsService
    from hermesd.tools.settings import ToolsSettings

    svc = ToolsService(ToolsSettings(tools_dir=tools))
    await svc.start(DaemonContext(config=None, state_dir=state_dir, subsystems={}))
    try:
        # the self-test needs three attempts of 1 s each to fail: the 1 s call ends first
        t0 = time.monotonic()
        with pytest.raises(ToolUnavailable) as info:
            await svc.call("gated_quick", {"mode": "run"}, role="user")
        waited = time.monotonic() - t0
        assert info.value.data["health"] == "starting" and "still starting" in info.value.message
        assert waited >= 0.9  # it did wait its whole budget
        await svc.settled()
        t = svc.health()["tools"]["gated_quick"]
        assert t["health"] == "unhealthy" and "TOOL_TIMEOUT" in t["failing_case"]
        assert t["breaker"] == "closed"  # waiting for its own self-test is not a failure of the tool
    finally:
        await svc.stop()

