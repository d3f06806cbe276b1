"""``admin.memory`` and ``hermesctl status --memory``: where the resident memory goes, by part."""

from __future__ import annotations


from hermesd.subsystems.footprint import deep_size, mappings
from hermesd_testing import hermesctl


def test_deep_size_counts_each_object_once_and_not_code() -> None:
    shared = ["x" * 1000]
    seen: set[int] = set()
    a = deep_size([{"k": shared}], seen)
    b = deep_size([shared], seen)  # already counted with the first root
    assert a > 1000 and b == 0
    assert deep_size([deep_size], set()) == 0  # functions belong to the interpreter


def test_mappings_of_this_process_add_up() -> None:
    m = mappings()
    assert m["interpreter"] > 0 and m["heap"] > 0 and m["libraries"]
    assert m["total"] == m["interpreter"] + m["heap"] + m["other"] + sum(m["libraries"].values())


def test_status_memory_names_every_part(daemon) -> None:
    mem = daemon.call("admin.memory")
    assert {"NLU model", "L1", "rule engine", "tool pool and registry", "sessions"} <= set(mem["parts"])
    assert mem["parts"]["NLU model"] > 100_000 and mem["rss_bytes"] > mem["mappings"]["heap"]
    out = hermesctl(daemon.socket, "status", "--memory")
    assert out.returncode == 0, out.stderr
    for words in ("interpreter (python, libpython)", "libraries", "Python heap", "NLU model", "L1", "rule engine"):
        assert words in out.stdout, words
