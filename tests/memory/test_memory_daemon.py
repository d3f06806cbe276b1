"""memory.* through a real hermesd process and socket, and L2 surviving a daemon restart."""

from __future__ import annotations

import pytest

ZHANG = "person:sales/zhang"


def _need_memory(daemon) -> None:
    status = daemon.call("admin.status")
    if "memory" not in status.get("subsystems", {}):
        pytest.skip("this daemon build does not wire the memory subsystem")


def test_memory_methods_over_the_socket_survive_restart(start_daemon) -> None:
    d = start_daemon()
    _need_memory(d)
    assert d.call("admin.status")["subsystems"]["memory"]["status"] == "ok"
    put = d.call("memory.put", {"session_id": "s1", "anchor": ZHANG, "data": {"phone": "+86-139-0000-0001"}})
    assert put["durable"] is True
    got = d.call("memory.get", {"session_id": "s1", "anchor": ZHANG})
    assert got["found"] and got["slot"]["data"]["phone"] == "+86-139-0000-0001"
    assert d.call("memory.get", {"session_id": "s2", "anchor": ZHANG}) == {"found": False, "slot": None}
    metrics = d.call("admin.metrics")["text"]
    assert "hermes_memory_l1_hit_ratio 0.5\n" in metrics  # s1 hit, s2 miss
    assert "hermes_memory_decay_last_run_timestamp_seconds" in metrics
    root = d.root
    assert d.stop() == 0
    assert (d.state_dir / "l2.sqlite3").is_file()
    d2 = start_daemon(root=root)
    got = d2.call("memory.get", {"session_id": "s1", "anchor": ZHANG})
    assert got["found"] and got["slot"]["tier"] == "l2"
    hits = d2.call("memory.search", {"query": "0000-0001"})["items"]
    assert [h["anchor"] for h in hits] == [ZHANG]
    assert d2.call("memory.forget", {"anchor": ZHANG})["summaries"] == 1
    assert d2.call("memory.get", {"session_id": "s1", "anchor": ZHANG})["found"] is False
