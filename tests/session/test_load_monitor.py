"""The load monitor reads /proc with psutil's arithmetic, without psutil in the daemon."""

from __future__ import annotations

import psutil

from hermesd.session.policy import LoadMonitor, _cpu_times, memory_percent
from hermesd.session.settings import SessionSettings


def test_memory_percent_is_psutils() -> None:
    assert abs(memory_percent() - psutil.virtual_memory().percent) < 1.0


def test_cpu_times_are_psutils_busy_and_total() -> None:
    busy, total = _cpu_times()
    t = psutil.cpu_times()
    ticks = psutil.cpu_count() * 100  # /proc/stat counts USER_HZ (100) ticks per CPU-second
    p_total = sum(getattr(t, f) for f in ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"))
    p_busy = p_total - t.idle - t.iowait
    # read a moment apart: within a second of CPU time
    assert abs(total / 100 - p_total) < ticks / 100 and abs(busy / 100 - p_busy) < ticks / 100


def test_a_busy_cpu_reads_busy_and_the_threshold_applies() -> None:
    settings = SessionSettings(load_cpu_percent=0.001, load_sample_interval_ms=100)
    now = [0.0]
    monitor = LoadMonitor(settings, clock=lambda: now[0])
    x = 0
    for i in range(2_000_000):  # this process alone keeps one CPU busy meanwhile
        x += i
    assert 0.0 < monitor.cpu_percent() <= 100.0
    for i in range(2_000_000):
        x += i
    now[0] = 1.0  # past the sample interval: a fresh sample
    assert monitor.overloaded() == "cpu"
