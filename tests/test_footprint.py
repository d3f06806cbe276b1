"""``admin.memory`` and ``hermesctl status --memory``: where the resident memory goes, by part."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from hermesd.subsystems.footprint import deep_size, mappings, release_free_heap
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


def _rss_anon_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    raise AssertionError("no RssAnon in /proc/self/status")


def test_release_free_heap_returns_freed_c_heap_pages() -> None:
    # 40 MB in 4 KiB blocks comes from the C heap (above pymalloc's 512 B, below malloc's mmap
    # threshold); freeing all but the last leaves the pages free inside the heap, where glibc
    # keeps them until malloc_trim hands them back
    blocks = [bytearray(4096) for _ in range(10_000)]
    keep = blocks[-1]
    del blocks
    before = _rss_anon_kb()
    assert release_free_heap() is True
    assert before - _rss_anon_kb() > 20_000, "at least 20 MB of the 40 MB freed goes back"
    assert len(keep) == 4096


def test_the_daemon_with_shipped_defaults_never_imports_pydantic(daemon) -> None:
    """pydantic costs ~9 MB of RSS; hermesd's models are :mod:`hermesd.typed` (issue 15). Checked
    in the running daemon after READY and a parse, a memory write and a turn."""
    daemon.call("nlu.parse", {"text": "明天早上八点提醒我开会"})
    out = hermesctl(daemon.socket, "say", "what time is it")
    assert out.returncode == 0, out.stderr
    packages = daemon.call("admin.memory")["packages"]
    assert "hermesd" in packages and "orjson" in packages  # the list is real
    assert "pydantic" not in packages and "pydantic_core" not in packages, packages
    shown = hermesctl(daemon.socket, "status", "--memory")
    line = next(x for x in shown.stdout.splitlines() if "packages imported" in x)
    assert "orjson" in line and "pydantic" not in line


def test_the_daemon_as_the_unit_runs_it_without_docstrings_and_asserts(start_daemon) -> None:
    """The unit sets PYTHONOPTIMIZE=2 (~1.7 MB less RSS, issue 15): with docstrings and asserts out
    of the bytecode, every tool still passes its self-test in its forked worker, and a tool turn,
    a memory write and a rule-routed turn still answer."""
    d = start_daemon(env={"PYTHONOPTIMIZE": "2"})
    tools = d.call("admin.status")["subsystems"]["tools"]
    unhealthy = {name: t for name, t in tools["tools"].items() if t["health"] != "healthy"}
    assert not tools["starting"] and tools["tools"] and not unhealthy, unhealthy
    answers = [hermesctl(d.socket, "say", text) for text in ("提醒我明天早上八点开会", "记住我喜欢喝茶", "what time is it")]
    assert all(a.returncode == 0 for a in answers), [a.stderr for a in answers]
    assert "08:00" in answers[0].stdout and "喜欢喝茶" in answers[1].stdout and "It is" in answers[2].stdout
    assert "PYTHONOPTIMIZE=2" in (Path(__file__).parents[1] / "systemd" / "hermesd.service").read_text()


_ARENAS = textwrap.dedent("""
    import ctypes, os, sys, tempfile, threading
    from hermesd.subsystems.footprint import one_malloc_arena
    if sys.argv[1] == "one":
        assert one_malloc_arena()
    keep = []
    threads = [threading.Thread(target=lambda: keep.append([bytearray(4096) for _ in range(256)])) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    libc = ctypes.CDLL(None)
    libc.fopen.restype, libc.fopen.argtypes = ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_char_p]
    libc.malloc_info.argtypes, libc.fclose.argtypes = [ctypes.c_int, ctypes.c_void_p], [ctypes.c_void_p]
    fd, path = tempfile.mkstemp()
    os.close(fd)
    f = libc.fopen(path.encode(), b"w")
    libc.malloc_info(0, f)
    libc.fclose(f)
    print(open(path).read().count("<heap nr="))
    os.unlink(path)
""")


def test_one_malloc_arena_keeps_threads_in_the_main_arena() -> None:
    # glibc gives each new thread that allocates an arena of its own; after one_malloc_arena all
    # share the main one (malloc_info(3) lists one <heap> per arena)
    root = str(Path(__file__).resolve().parents[1])

    def heaps(mode: str) -> int:
        out = subprocess.run([sys.executable, "-c", _ARENAS, mode], capture_output=True, text=True, cwd=root,
                             check=True, timeout=60)
        return int(out.stdout)

    assert heaps("many") > 1
    assert heaps("one") == 1
