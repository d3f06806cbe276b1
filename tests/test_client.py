"""The tiny client: error codes round-trip to exception classes, light imports, not-running exit 69."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hermesd_testing import clean_env, hermesctl
from hermesd import errors
from hermesd.client import Client, DaemonNotRunning

DESIGN_CODES = ("INPUT_INVALID OUTPUT_INVALID TOOL_TIMEOUT TOOL_OOM TOOL_CRASHED TOOL_UNAVAILABLE TOOL_UNHEALTHY "
                "TOOL_NOT_FOUND PERMISSION_DENIED SESSION_NOT_FOUND SESSION_BUSY SESSION_EXPIRED INVALID_REQUEST "
                "RATE_LIMITED INTERNAL FRAME_TOO_LARGE").split()
#: codes issues added since the design's list: SESSION_LIMIT (issue 12, the per-user cap under concurrency);
#: CONFIG_INVALID and ARCHIVE_CORRUPT (issue 14: config, rule-pack and L3 volume errors joined the tree)
ADDED_CODES = ["SESSION_LIMIT", "CONFIG_INVALID", "ARCHIVE_CORRUPT"]


def test_every_stable_code_has_a_class_and_round_trips():
    assert set(errors.CODES) == set(DESIGN_CODES + ADDED_CODES)
    for code, cls in errors.CODES.items():
        exc = cls(f"something about {code}", data={"retry_after_ms": 5})
        back = errors.from_wire(exc.to_error_object())
        assert type(back) is cls and back.code == code and back.data == {"retry_after_ms": 5}
        assert back.rpc_code == exc.rpc_code and back.message == exc.message


def test_protocol_subclasses_keep_their_rpc_codes():
    for cls in (errors.ParseError, errors.MethodNotFound):
        back = errors.from_wire(cls("x").to_error_object())
        assert type(back) is cls and back.code == "INVALID_REQUEST"


def test_unknown_code_from_a_newer_daemon_is_kept():
    back = errors.from_wire({"code": -32099, "message": "m", "data": {"code": "SOMETHING_NEW"}})
    assert isinstance(back, errors.HermesError) and back.code == "SOMETHING_NEW"


def test_server_errors_arrive_as_exception_classes(daemon):
    with daemon.client() as c:
        with pytest.raises(errors.MethodNotFound):
            c.call("nope.nope")
        with pytest.raises(errors.InputInvalid) as ei:
            c.call("debug.block", {"ms": -1})
        assert ei.value.data["violations"][0]["pointer"] == "/ms"
        assert c.call("admin.ping")["pong"]


def test_client_imports_no_pydantic():
    code = "import sys, hermesd.client; print(sorted(m for m in ('pydantic', 'yaml', 'uvloop') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean_env())
    assert out.stdout.strip() == "[]", out.stderr


def test_not_running(tmp_path):
    with pytest.raises(DaemonNotRunning) as ei:
        Client(tmp_path / "none.sock").connect()
    assert str(tmp_path / "none.sock") in str(ei.value)
    p = hermesctl(None, "status", env=clean_env(HERMESD_SOCKET=str(tmp_path / "none.sock")))
    assert p.returncode == 69
    assert str(tmp_path / "none.sock") in p.stderr and "hermesd run" in p.stderr


def _ctl(d, *args: str) -> subprocess.CompletedProcess[str]:
    return hermesctl(d.socket, *args)


def test_hermesctl_commands(daemon):
    daemon.wait_settled()
    st = _ctl(daemon, "status")
    assert st.returncode == 0 and "status=ok" in st.stdout and f"pid={daemon.pid}" in st.stdout
    js = _ctl(daemon, "--json", "status")
    import orjson

    assert orjson.loads(js.stdout)["status"] == "ok"
    assert "pong" in _ctl(daemon, "ping").stdout
    assert "hermes_requests_total" in _ctl(daemon, "metrics").stdout
    assert "reload ok" in _ctl(daemon, "reload").stdout


def test_a_connection_the_daemon_closed_is_dropped_and_the_next_call_reconnects(start_daemon):
    d = start_daemon({"server": {"idle_timeout_s": 0.3}})
    with Client(d.socket, timeout_s=10) as c:
        assert c.call("admin.ping")["pong"]
        with pytest.raises(ConnectionResetError):
            c.read_notification(timeout_s=10)  # the idle connection is closed by the daemon: EOF
        assert c.call("admin.ping")["pong"]  # on a fresh connection, the dead one was closed
