"""``scripts/_pack_cache.py``, the test suite's cache of built packs: a hit gives the bytes a build
gave, any changed input is a new key (never a stale copy), a failed build is never cached, and
parallel builders of one key build once. In-process, with a toy build (the real builders are covered
by tests/test_install.py and tests/replay, which build through it)."""

from __future__ import annotations

import importlib.util
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("_pack_cache", REPO / "scripts" / "_pack_cache.py")
pc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pc)


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


class Toy:
    """A build that writes its sources' bytes and its argument into the pack, counting its runs."""

    def __init__(self, src: Path, fail: bool = False) -> None:
        self.src, self.fail, self.runs = src, fail, 0

    def __call__(self, out: Path) -> int:
        self.runs += 1
        time.sleep(0.05)  # long enough for a racing builder to arrive
        (out / "sub").mkdir(parents=True, exist_ok=True)
        (out / "sub" / "copy.txt").write_bytes(b"".join(p.read_bytes() for p in sorted(self.src.rglob("*.txt"))))
        return 1 if self.fail else 0


@pytest.fixture
def src(tmp_path: Path) -> Path:
    d = tmp_path / "src"
    d.mkdir()
    (d / "a.txt").write_text("one\n")
    return d


def test_without_a_cache_it_just_builds_into_out(src, tmp_path, monkeypatch) -> None:
    monkeypatch.delenv(pc.ENV, raising=False)
    toy = Toy(src)
    assert pc.build_or_copy("toy", tmp_path / "out", [src], {}, toy) == 0
    assert toy.runs == 1 and files(tmp_path / "out") == {"sub/copy.txt": b"one\n"}


def test_a_hit_copies_the_bytes_the_build_gave(src, tmp_path, capsys) -> None:
    cache, toy = tmp_path / "cache", Toy(src)
    assert pc.build_or_copy("toy", tmp_path / "o1", [src], {"n": 2}, toy, cache=str(cache)) == 0
    assert pc.build_or_copy("toy", tmp_path / "o2", [src], {"n": 2}, toy, cache=str(cache)) == 0
    assert toy.runs == 1
    assert files(tmp_path / "o1") == files(tmp_path / "o2") == {"sub/copy.txt": b"one\n"}
    assert [p.name.split("-")[0] for p in cache.iterdir() if p.is_dir()] == ["toy"]  # no scratch left
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("pack cache hit=no entry=") and out[1].startswith("pack cache hit=yes entry=")


@pytest.mark.parametrize("change", ["edit", "add", "remove", "arg", "name"])
def test_any_changed_input_is_a_new_key(src, tmp_path, change) -> None:
    cache, toy = tmp_path / "cache", Toy(src)
    pc.build_or_copy("toy", tmp_path / "o1", [src], {"n": 2}, toy, cache=str(cache))
    name, args = "toy", {"n": 2}
    if change == "edit":
        (src / "a.txt").write_text("two\n")  # same size, other bytes
    elif change == "add":
        (src / "b.txt").write_text("")
    elif change == "remove":
        (src / "a.txt").unlink()
    elif change == "arg":
        args = {"n": 3}
    else:
        name = "toy2"
    pc.build_or_copy(name, tmp_path / "o2", [src], args, toy, cache=str(cache))
    assert toy.runs == 2
    assert files(tmp_path / "o2")["sub/copy.txt"] == b"".join(p.read_bytes() for p in sorted(src.rglob("*.txt")))


def test_bytecode_is_not_an_input_and_a_missing_source_is(src, tmp_path) -> None:
    k = pc.key("toy", [src], {})
    (src / "__pycache__").mkdir()
    (src / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    assert pc.key("toy", [src], {}) == k
    assert pc.key("toy", [src, tmp_path / "absent"], {}) != k


def test_a_failed_build_is_never_cached(src, tmp_path) -> None:
    cache, bad = tmp_path / "cache", Toy(src, fail=True)
    assert pc.build_or_copy("toy", tmp_path / "o1", [src], {}, bad, cache=str(cache)) == 1
    assert not (tmp_path / "o1").exists() and not [p for p in cache.iterdir() if p.is_dir()]
    good = Toy(src)
    assert pc.build_or_copy("toy", tmp_path / "o2", [src], {}, good, cache=str(cache)) == 0
    assert good.runs == 1


def test_parallel_builders_of_one_key_build_once(src, tmp_path) -> None:
    cache, toy = tmp_path / "cache", Toy(src)
    threads = [threading.Thread(target=pc.build_or_copy, args=("toy", tmp_path / f"o{i}", [src], {}, toy),
                                kwargs={"cache": str(cache)}) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert toy.runs == 1
    assert all(files(tmp_path / f"o{i}") == {"sub/copy.txt": b"one\n"} for i in range(3))


def test_the_builders_key_covers_hermesd_the_pack_sources_and_the_data(tmp_path) -> None:
    srcs = pc.builder_sources("sgd", REPO / "scripts" / "build_sgd_pack.py", [tmp_path])
    assert {REPO / "hermesd", REPO / "config" / "packs" / "sgd", REPO / "scripts" / "build_sgd_pack.py",
            REPO / "scripts" / "_compile_intents.py", REPO / "scripts" / "_pack_cache.py", tmp_path} <= set(srcs)
