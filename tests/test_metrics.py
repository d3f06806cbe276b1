"""The metrics registry (naming rules, rendering) and the textfile writer, in-process; and the ``metrics:`` config."""

from __future__ import annotations

import os
import stat

import pytest

from hermesd.config import ConfigError, load, split_listen
from hermesd.metrics import Counter, Gauge, Histogram, Registry
from hermesd.metrics_export import write_textfile


@pytest.mark.parametrize("build, why", [
    (lambda: Counter("hermes_turns", "Turns."), "ends in _total"),
    (lambda: Gauge("hermes_sessions_total", "Sessions."), "_total is for counters"),
    (lambda: Gauge("hermes_parse_ms", "Parse time."), "base units"),
    (lambda: Histogram("hermes_upload_kb", "Upload size."), "base units"),
    (lambda: Gauge("hermes_l1_percent", "Share."), "base units"),
    (lambda: Gauge("hermes_l1_bytes", "  "), "HELP text is required"),
    (lambda: Gauge("l1_bytes", "Bytes."), "hermes_ prefix"),
    (lambda: Gauge("hermes_l1-bytes", "Bytes."), "hermes_ prefix"),
    (lambda: Gauge("hermes_queue_count", "Queue."), "suffixes"),
    (lambda: Histogram("hermes_x_seconds", "X.", ("le",)), "bad label name"),
    (lambda: Counter("hermes_x_total", "X.", ("a", "a")), "repeated label"),
])
def test_names_that_break_the_conventions_are_refused(build, why):
    with pytest.raises(ValueError, match=why):
        build()


def test_colliding_families_are_refused():
    reg = Registry()
    reg.gauge("hermes_connections", "Open connections.")
    # a parser reads hermes_connections_total as the counter family hermes_connections
    with pytest.raises(ValueError, match="collides with hermes_connections"):
        reg.counter("hermes_connections_total", "Connections accepted.")
    reg.histogram("hermes_request_duration_seconds", "Latency.")
    with pytest.raises(ValueError, match="collides with hermes_request_duration_seconds"):
        reg.counter("hermes_request_duration_seconds_total", "Oops.")
    with pytest.raises(ValueError, match="suffixes"):  # hermes_request_duration_seconds_sum is the histogram's
        reg.gauge("hermes_request_duration_seconds_sum", "Oops.")
    with pytest.raises(ValueError, match="registered twice"):
        reg.gauge("hermes_connections", "Again.")


def test_render_counters_gauges_histograms_with_escaped_labels():
    reg = Registry()
    turns = reg.counter("hermes_turns_total", "Turns by path.", ("path",))
    turns.inc("rule")
    turns.inc("rule")
    turns.inc('a "quoted"\\path\n')
    reg.gauge("hermes_active_sessions", "Sessions\nopen now.", collect=lambda: 3)
    h = reg.histogram("hermes_x_duration_seconds", "X.", ("tool",), buckets=(0.1, 1.0))
    for v in (0.05, 0.1, 0.5, 2.0):
        h.observe(v, "t")
    text = reg.render()
    assert 'hermes_turns_total{path="rule"} 2\n' in text
    assert 'hermes_turns_total{path="a \\"quoted\\"\\\\path\\n"} 1\n' in text
    assert "# HELP hermes_active_sessions Sessions\\nopen now.\n# TYPE hermes_active_sessions gauge\n" in text
    assert "hermes_active_sessions 3\n" in text
    # cumulative buckets: le is inclusive (0.1 lands in le="0.1"), +Inf holds every observation
    assert 'hermes_x_duration_seconds_bucket{tool="t",le="0.1"} 2\n' in text
    assert 'hermes_x_duration_seconds_bucket{tool="t",le="1"} 3\n' in text
    assert 'hermes_x_duration_seconds_bucket{tool="t",le="+Inf"} 4\n' in text
    assert 'hermes_x_duration_seconds_sum{tool="t"} 2.65\n' in text
    assert 'hermes_x_duration_seconds_count{tool="t"} 4\n' in text
    with pytest.raises(ValueError, match="only goes up"):
        turns.inc("rule", amount=-1)
    with pytest.raises(ValueError, match="takes labels"):
        turns.inc()


def test_a_collect_that_raises_leaves_the_others_and_a_valid_header(caplog):
    reg = Registry()
    reg.gauge("hermes_broken", "Broken.", collect=lambda: 1 / 0)
    reg.gauge("hermes_fine", "Fine.", collect=lambda: 1)
    text = reg.render()
    assert "# TYPE hermes_broken gauge\n# HELP hermes_fine Fine.\n" in text and "hermes_fine 1\n" in text
    assert "metrics.collect_failed" in caplog.text


def test_labelled_collect_maps_label_values():
    reg = Registry()
    c = reg.counter("hermes_tool_invocations_total", "Calls.", ("tool", "outcome"),
                    collect=lambda: {("note", "ok"): 4, ("note", "TOOL_OOM"): 1})
    assert c.get("note", "ok") == 4
    assert 'hermes_tool_invocations_total{tool="note",outcome="TOOL_OOM"} 1\n' in reg.render()


def test_write_textfile_is_atomic_and_world_readable(tmp_path):
    path = tmp_path / "hermesd.prom"
    old_umask = os.umask(0o077)
    try:
        write_textfile(path, "# HELP hermes_a A.\n# TYPE hermes_a gauge\nhermes_a 1\n")
        write_textfile(path, "# HELP hermes_a A.\n# TYPE hermes_a gauge\nhermes_a 2\n")
    finally:
        os.umask(old_umask)
    assert path.read_text().endswith("hermes_a 2\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hermesd.prom"]  # no temporary left
    with pytest.raises(OSError):
        write_textfile(tmp_path / "missing" / "hermesd.prom", "x\n")


@pytest.mark.parametrize("value, expected", [
    ("127.0.0.1:9464", ("127.0.0.1", 9464)),
    ("[::1]:9464", ("::1", 9464)),
    ("localhost:0", ("localhost", 0)),
    ("0.0.0.0:80", ("0.0.0.0", 80)),
])
def test_split_listen(value, expected):
    assert split_listen(value) == expected


@pytest.mark.parametrize("value", ["9464", "127.0.0.1", "example.com:9464", "127.0.0.1:99999", "::1:9464"])
def test_split_listen_refuses(value):
    with pytest.raises(ValueError):
        split_listen(value)


def test_metrics_section_defaults_env_and_errors(tmp_path):
    c = load(env={}, etc=None)
    assert c.metrics.listen is None and c.metrics.textfile is None and c.metrics.textfile_interval_s == 15
    c = load(env={"HERMESD_METRICS__LISTEN": "127.0.0.1:9464", "HERMESD_METRICS__TEXTFILE": "/run/x/hermesd.prom",
                  "HERMESD_METRICS__TEXTFILE_INTERVAL_S": "5"}, etc=None)
    assert c.metrics.listen == "127.0.0.1:9464" and str(c.metrics.textfile) == "/run/x/hermesd.prom"
    assert c.metrics.textfile_interval_s == 5
    bad = tmp_path / "bad.yaml"
    bad.write_text("metrics:\n  listen: my-host:9464\n  textfile: /tmp/hermesd.txt\n  textfile_interval_s: 0\n")
    with pytest.raises(ConfigError) as err:
        load(bad, env={}, etc=None)
    text = str(err.value)
    assert "metrics.listen" in text and "not an IP address" in text
    assert "metrics.textfile" in text and ".prom" in text
    assert "metrics.textfile_interval_s" in text
