"""Prometheus fit, checked by promtool: a real daemon's exposition (``hermesctl metrics``, the HTTP
listener, the node_exporter textfile) passes ``promtool check metrics``, and ``config/prometheus/``
passes ``promtool check rules`` and ``promtool test rules``.

promtool comes with Debian's ``prometheus`` package; ``scripts/test`` installs it and sets
``REQUIRE_PROMTOOL=1`` (as does ``CI``), so there a missing promtool fails these tests; a bare
``pytest`` run without it skips them and says why.
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import stat
import subprocess
import time

import pytest
import yaml

from hermesd_testing import REPO, hermesctl

PROM = REPO / "config" / "prometheus"


@pytest.fixture(scope="module")
def promtool() -> str:
    path = shutil.which("promtool")
    if path is None:
        reason = "promtool is not on PATH (Debian package prometheus; scripts/test installs it)"
        if os.environ.get("REQUIRE_PROMTOOL") or os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return path


def check_metrics(promtool: str, text: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)


def families(text: str) -> dict[str, str]:
    """``# TYPE`` lines → {family: kind}."""
    return dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M))


def samples(text: str) -> dict[str, float]:
    """``name{labels}`` → value, for every sample line (the text format's grammar, no timestamps)."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            series, _, value = line.rpartition(" ")
            out[series] = float(value)
    return out


# -- rules ---------------------------------------------------------------------------------------


def test_alert_rules_pass_promtool_check(promtool):
    r = subprocess.run([promtool, "check", "rules", str(PROM / "alerts.yml")], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SUCCESS: 8 rules found" in r.stdout


def test_alert_unit_tests_pass_and_cover_every_alert_both_ways(promtool):
    r = subprocess.run([promtool, "test", "rules", "alerts_test.yml"], capture_output=True, text=True, cwd=PROM,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SUCCESS" in r.stdout
    alerts = {rule["alert"] for g in yaml.safe_load((PROM / "alerts.yml").read_text())["groups"] for rule in g["rules"]}
    firing: set[str] = set()
    quiet: set[str] = set()
    for t in yaml.safe_load((PROM / "alerts_test.yml").read_text())["tests"]:
        for case in t["alert_rule_test"]:
            (firing if case["exp_alerts"] else quiet).add(case["alertname"])
    assert firing == alerts and quiet == alerts


# -- a real daemon -------------------------------------------------------------------------------


def _http(port: int, method: str, path: str) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def _wait_for(what: str, fn, timeout_s: float = 60.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        got = fn()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_real_daemon_exposition_passes_promtool_on_every_scrape_path(promtool, start_daemon, short_dir):
    os.chmod(short_dir, 0o755)
    textfile = short_dir / "collector" / "hermesd.prom"
    textfile.parent.mkdir()
    d = start_daemon({"metrics": {"listen": "127.0.0.1:0", "textfile": str(textfile), "textfile_interval_s": 1}})
    with d.client() as c:
        c.call("admin.ping")
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        c.call("session.turn", {"session_id": sid, "text": "磁盘还剩多少"})
        c.call("tools.call", {"name": "disk_usage", "arguments": {"path": "/"}})
        with pytest.raises(Exception):
            c.call("no.such.method")
        status = c.call("admin.status")
    port = int(status["metrics"]["listen"].rpartition(":")[2])

    # 1. hermesctl metrics, over the socket
    ctl = hermesctl(d.socket, "metrics")
    assert ctl.returncode == 0, ctl.stderr
    r = check_metrics(promtool, ctl.stdout)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    fams = families(ctl.stdout)
    # the reference design's figures, under conventional names
    for name, kind in {"hermes_active_sessions": "gauge", "hermes_tool_invocations_total": "counter",
                       "hermes_sandbox_oom_kills_total": "counter", "hermes_memory_l1_hit_ratio": "gauge",
                       "hermes_memory_decay_last_run_timestamp_seconds": "gauge",
                       "hermes_memory_l2_commit_duration_seconds": "histogram",
                       "hermes_archive_upload_backlog": "gauge", "hermes_tool_breaker_state": "gauge",
                       "hermes_archive_budget_bytes": "gauge", "hermes_archive_local_bytes": "gauge"}.items():
        assert fams.get(name) == kind, name
    got = samples(ctl.stdout)
    assert got["hermes_active_sessions"] == 1
    assert got['hermes_tool_invocations_total{tool="disk_usage",outcome="ok"}'] >= 1
    assert got['hermes_sandbox_oom_kills_total{tool="disk_usage"}'] == 0
    assert got["hermes_memory_l2_commit_duration_seconds_count"] >= 1
    # every series an alert reads is one the daemon writes
    rules = (PROM / "alerts.yml").read_text()
    for name in set(re.findall(r"\bhermes_[a-z0-9_]+", rules)):
        base = re.sub(r"_bucket$", "", name)
        assert base in fams, f"alerts.yml reads {name}, which hermesd does not export"

    # 2. the HTTP listener
    code, headers, body = _http(port, "GET", "/metrics")
    assert code == 200 and headers["content-type"].startswith("text/plain; version=0.0.4")
    assert int(headers["content-length"]) == len(body)
    r = check_metrics(promtool, body.decode())
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert families(body.decode()) == fams
    code, headers, body = _http(port, "HEAD", "/metrics")
    assert code == 200 and body == b"" and int(headers["content-length"]) > 0
    assert _http(port, "GET", "/nope")[0] == 404
    code, headers, _ = _http(port, "POST", "/metrics")
    assert code == 405 and headers["allow"] == "GET, HEAD"

    # 3. the textfile: written at start, rewritten every second, atomically (no temporary left)
    first = _wait_for("the textfile", lambda: textfile.exists() and textfile.read_text())
    assert stat.S_IMODE(textfile.stat().st_mode) == 0o644
    up_first = samples(first)["hermes_uptime_seconds"]
    later = _wait_for("a rewrite", lambda: (t := textfile.read_text()) and samples(t)["hermes_uptime_seconds"] > up_first
                      and t)
    r = check_metrics(promtool, later)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert samples(later)['hermes_build_info{version="' + status["version"] + '"}'] == 1
    assert [p.name for p in textfile.parent.iterdir()] == ["hermesd.prom"]


def test_metrics_listener_follows_a_reload_and_is_off_by_default(start_daemon, short_dir):
    d = start_daemon()
    assert d.call("admin.status")["metrics"] == {"listen": None, "textfile": None, "textfile_error": ""}
    assert d.config_path is None
    d2 = start_daemon({"metrics": {"listen": "127.0.0.1:0"}})
    port = int(d2.call("admin.status")["metrics"]["listen"].rpartition(":")[2])
    assert _http(port, "GET", "/metrics")[0] == 200
    assert d2.config_path is not None
    d2.config_path.write_text(yaml.safe_dump({"metrics": {"listen": None}}))
    res = d2.call("admin.reload")
    assert res["ok"], res
    assert d2.call("admin.status")["metrics"]["listen"] is None
    with pytest.raises(OSError):
        _http(port, "GET", "/metrics")


def test_a_listen_address_in_use_stops_the_start_with_a_clear_error(start_daemon):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        d = start_daemon({"metrics": {"listen": f"127.0.0.1:{port}"}}, wait=False)
        assert d.proc.wait(120) != 0
        assert f"metrics.listen 127.0.0.1:{port}" in d.log() and "in use" in d.log()

