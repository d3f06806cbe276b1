"""Start, stop, reload and systemd integration of a real daemon process."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import yaml

from hermesd_testing import NotifyListener, clean_env


def test_ready_once_after_the_socket_listens(start_daemon):
    d = start_daemon(wait=False)
    _, fields = d.notify.wait_for("READY", "1", 15)
    # READY means: the socket already accepts (no retry loop needed by clients)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(str(d.socket))
    s.close()
    assert fields["MAINPID"] == str(d.pid) and "serving on" in fields["STATUS"]
    d.notify.read(0.5)
    assert sum(1 for _, f in d.notify.messages if f.get("READY") == "1") == 1


def test_watchdog_pings_from_the_loop_and_stop_when_it_blocks(start_daemon):
    d = start_daemon({"server": {"debug_methods": True}}, env={"WATCHDOG_USEC": "500000"})
    msgs = d.notify.read(1.6)
    pings = [t for t, f in msgs if f.get("WATCHDOG") == "1"]
    gaps = [b - a for a, b in zip(pings, pings[1:])]
    assert len(pings) >= 5, msgs
    # 225 ms schedule; the allowance is for the test runner's own scheduling on a loaded machine
    assert sorted(gaps)[len(gaps) // 2] <= 0.25 and max(gaps) < 0.4, gaps
    c = d.raw()
    c.request("debug.block", {"ms": 2000})
    blocked = d.notify.read(1.8)
    assert not [f for _, f in blocked if f.get("WATCHDOG") == "1"], "pinged while the loop was blocked"
    assert c.recv()["result"]["blocked_ms"] == 2000
    after = d.notify.read(0.6)
    assert [f for _, f in after if f.get("WATCHDOG") == "1"]


def test_watchdog_pid_of_another_process_disables_pings(start_daemon):
    d = start_daemon(env={"WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1"})
    assert not [f for _, f in d.notify.read(0.6) if "WATCHDOG" in f]


def test_sigterm_finishes_in_flight_request_then_exits_zero(start_daemon):
    d = start_daemon({"server": {"debug_methods": True}})
    c = d.raw()
    c.request("debug.echo", {"text": "in flight", "delay_ms": 700}, rid=42)
    time.sleep(0.2)
    d.signal(signal.SIGTERM)
    d.notify.wait_for("STOPPING", "1", 5)
    # no new connections once stopping
    time.sleep(0.1)
    late = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        late.connect(str(d.socket))
        refused = False
    except (ConnectionRefusedError, FileNotFoundError):
        refused = True
    finally:
        late.close()
    assert refused
    r = c.recv()
    assert r["id"] == 42 and r["result"]["text"] == "in flight"
    assert d.proc.wait(10) == 0
    assert not d.socket.exists()
    assert "daemon.stopped" in d.log()


def test_sigterm_deadline_cancels_what_is_left(start_daemon):
    d = start_daemon({"server": {"debug_methods": True, "shutdown_grace_s": 0.3}})
    c = d.raw()
    c.request("debug.echo", {"delay_ms": 30000}, rid=1)
    time.sleep(0.2)
    t0 = time.monotonic()
    d.signal(signal.SIGTERM)
    r = c.recv()
    assert r["error"]["data"]["reason"] == "shutdown"
    assert d.proc.wait(10) == 0 and time.monotonic() - t0 < 5


def test_stale_socket_file_is_replaced(start_daemon, short_dir):
    root = short_dir / "stale"
    root.mkdir()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(root / "h.sock"))
    s.close()  # file stays, nobody listens: what a killed daemon leaves
    d = start_daemon(root=root)
    assert d.call("admin.ping")["pong"]
    assert "socket.stale_replaced" in d.log()


def test_socket_left_by_kill_9_is_replaced_on_restart(start_daemon, short_dir):
    root = short_dir / "k9"
    root.mkdir()
    d1 = start_daemon(root=root)
    d1.proc.kill()
    d1.proc.wait(5)
    assert d1.socket.exists()
    d2 = start_daemon(root=root)
    assert d2.call("admin.status")["pid"] == d2.pid


def test_second_instance_exits_and_leaves_the_first_alone(daemon):
    cmd = [sys.executable, "-m", "hermesd", "run", "--socket", str(daemon.socket),
           "--state-dir", str(daemon.root / "state2")]
    p = subprocess.run(cmd, env=clean_env(), capture_output=True, text=True, timeout=20)
    assert p.returncode == 75, p.stderr
    assert "another hermesd" in p.stderr or "live daemon" in p.stderr
    assert daemon.call("admin.status")["pid"] == daemon.pid


def test_live_daemon_detected_without_the_lock_file(daemon):
    # another tool removed the lock file: the connect probe still finds the live daemon
    (daemon.socket.parent / "h.sock.lock").unlink()
    p = subprocess.run([sys.executable, "-m", "hermesd", "run", "--socket", str(daemon.socket)],
                       env=clean_env(), capture_output=True, text=True, timeout=20, cwd=daemon.root)
    assert p.returncode == 75 and "live daemon" in p.stderr
    assert daemon.call("admin.ping")["pong"]


def test_path_that_is_not_a_socket_is_never_deleted(short_dir):
    victim = short_dir / "h.sock"
    victim.write_text("precious")
    p = subprocess.run([sys.executable, "-m", "hermesd", "run", "--socket", str(victim),
                        "--state-dir", str(short_dir / "st")], env=clean_env(), capture_output=True, text=True,
                       timeout=20)
    assert p.returncode == 73 and "not a socket" in p.stderr
    assert victim.read_text() == "precious"


def test_socket_path_too_long_is_a_clear_error(short_dir):
    long_path = short_dir / ("x" * 120) / "h.sock"
    p = subprocess.run([sys.executable, "-m", "hermesd", "run", "--socket", str(long_path),
                        "--state-dir", str(short_dir / "st")], env=clean_env(), capture_output=True, text=True,
                       timeout=20)
    assert p.returncode == 73 and "limit is 107" in p.stderr


def test_systemd_socket_activation(short_dir):
    path = short_dir / "act.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(16)
    fd = listener.fileno()
    notify = NotifyListener(short_dir / "notify")
    # LISTEN_PID must be the daemon's own pid: a wrapper puts the socket on fd 3, sets it, and execs
    wrapper = ("import os, sys; os.dup2(int(sys.argv[1]), 3); os.environ['LISTEN_PID'] = str(os.getpid()); "
               "os.environ['LISTEN_FDS'] = '1'; os.execv(sys.executable, [sys.executable] + sys.argv[2:])")
    proc = subprocess.Popen([sys.executable, "-c", wrapper, str(fd), "-m", "hermesd", "run",
                             "--socket", f"{short_dir}/unused.sock", "--state-dir", f"{short_dir}/st"],
                            pass_fds=(fd,), env=clean_env(NOTIFY_SOCKET=str(notify.path)), stderr=subprocess.PIPE)
    try:
        notify.wait_for("READY", "1", 15)
        listener.close()  # only the daemon holds it now
        from hermesd.client import Client

        with Client(path) as c:
            st = c.call("admin.status")
        assert st["pid"] == proc.pid
        assert not (short_dir / "unused.sock").exists()
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=10)  # reads stderr to EOF and closes the pipe
        notify.close()
        listener.close()  # no-op if already closed above
    assert proc.returncode == 0, err.decode(errors="replace")
    assert path.exists()  # systemd owns the file of an inherited socket


def test_sighup_reloads_config_and_a_broken_one_keeps_the_old(start_daemon):
    d = start_daemon({"server": {"max_connections": 5}})
    digest0 = d.call("admin.status")["config_digest"]
    d.config_path.write_text(yaml.safe_dump({"server": {"max_connections": 7}}))
    d.signal(signal.SIGHUP)
    d.notify.wait_for("RELOADING", "1", 5)
    deadline = time.time() + 5
    while d.call("admin.status")["config_digest"] == digest0 and time.time() < deadline:
        time.sleep(0.05)
    st = d.call("admin.status")
    assert st["config_digest"] != digest0 and st["last_reload"]["ok"]
    deadline = time.time() + 10
    while sum(1 for _, f in d.notify.messages if f.get("READY") == "1") < 2 and time.time() < deadline:
        d.notify.read(0.1)
    assert sum(1 for _, f in d.notify.messages if f.get("READY") == "1") == 2  # once at start, once after reload
    good = st["config_digest"]
    d.config_path.write_text(yaml.safe_dump({"server": {"max_conections": 7}}))
    res = d.call("admin.reload")
    assert not res["ok"] and "did you mean 'max_connections'" in res["problems"][0]
    st = d.call("admin.status")
    assert st["config_digest"] == good and st["status"] == "degraded"
    assert "config.reload_rejected" in d.log()
    assert d.proc.poll() is None


def test_stopping_is_notified_and_exit_is_clean(start_daemon):
    d = start_daemon()
    os.kill(d.pid, signal.SIGINT)
    d.notify.wait_for("STOPPING", "1", 5)
    assert d.proc.wait(10) == 0


def test_second_daemon_on_the_same_state_folder_exits_at_once(daemon):
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "hermesd", "run", "--socket", str(daemon.root / "other.sock"),
                        "--state-dir", str(daemon.state_dir)], env=clean_env(), capture_output=True, text=True,
                       timeout=30)
    assert p.returncode == 75 and "state folder" in p.stderr
    assert time.monotonic() - t0 < 5
    assert daemon.call("admin.ping")["pong"]


def _maps(d) -> str:
    return Path(f"/proc/{d.pid}/maps").read_text()


def test_the_default_daemon_runs_without_uvloop_or_openssl(start_daemon):
    # the shipped default is the stdlib loop, and with no https endpoint OpenSSL is never loaded
    # (hermesd.openssl): 6.8 MB less resident on the smallest devices
    d = start_daemon()
    sid = d.call("session.open", {})["session_id"]
    d.call("memory.put", {"session_id": sid, "anchor": "last_report_filter", "data": {"text": "报价单"}})
    got = d.call("memory.get", {"session_id": sid, "anchor": "last_report_filter"})
    assert got["found"] and got["slot"]["data"] == {"text": "报价单"}
    turn = d.call("session.turn", {"session_id": sid, "text": "明天早上八点提醒我开会"})
    assert "08:00" in turn["reply"]["text"]
    maps = _maps(d)
    assert "uvloop" not in maps and "libssl" not in maps and "libcrypto" not in maps
    d.signal(signal.SIGTERM)
    assert d.proc.wait(10) == 0


def test_uvloop_and_an_https_endpoint_load_openssl(start_daemon):
    fast = start_daemon({"server": {"event_loop": "uvloop"}})
    assert fast.call("admin.ping")["pong"]
    assert "uvloop" in _maps(fast) and "libssl" in _maps(fast)
    # an https LLM endpoint needs TLS on the stdlib loop too (never reached here: no turn asks it)
    tls = start_daemon({"llm": {"enabled": True, "endpoint": "https://127.0.0.1:9"}})
    assert tls.call("admin.ping")["pong"]
    assert "libssl" in _maps(tls) and "uvloop" not in _maps(tls)


def test_a_reload_that_needs_tls_the_process_never_loaded_is_refused(start_daemon):
    d = start_daemon({})
    good = d.call("admin.status")["config_digest"]
    d.config_path.write_text(yaml.safe_dump({"upstream": {"url": "https://backup.example/volumes"}}))
    res = d.call("admin.reload")
    assert not res["ok"] and res["problems"] == [
        "upstream.url: https needs TLS, which this process did not load at start (nothing configured then "
        "used it); restart hermesd to use it"]
    assert d.call("admin.status")["config_digest"] == good
    # plain http needs nothing new: that reload is taken
    d.config_path.write_text(yaml.safe_dump({"upstream": {"url": "http://127.0.0.1:9/volumes"}}))
    assert d.call("admin.reload")["ok"]
    assert "libssl" not in _maps(d)
