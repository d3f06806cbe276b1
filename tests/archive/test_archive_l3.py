"""Volumes: layout, verification (truncated, trailing junk, count, checksum), atomic writes, budget plan, clock."""

from __future__ import annotations

import hashlib
from datetime import date
from pathlib import Path

import orjson
import pytest
import zstandard
from archive_helpers import audit, turns

from hermesd.memory import l3

FLOOR = date(2025, 1, 1)
NOW_MS = 1_764_400_000_000  # 2025-11-29 UTC


def _vol(codec: l3.Codec | None = None, sid: str = "s1") -> l3.Volume:
    return l3.encode_volume(codec or l3.Codec(3), sid, turns(sid), audit(sid), NOW_MS)


def test_volume_round_trip_and_layout() -> None:
    codec = l3.Codec(3)
    vol = _vol(codec)
    assert vol.records == 9 and vol.sha256 == hashlib.sha256(vol.data).hexdigest()
    header = l3.verify(codec, vol.data, records=9, sha256=vol.sha256)
    assert header["session_id"] == "s1" and header["turns"] == 6 and header["audit"] == 3
    lines = zstandard.ZstdDecompressor().decompress(vol.data).splitlines()
    assert [orjson.loads(x)["type"] for x in lines[1:]] == ["turn"] * 6 + ["audit"] * 3
    assert orjson.loads(lines[1])["data"]["text"] == "把报价单发给张工 #0"


@pytest.mark.parametrize("mangle, reason", [
    (lambda d: d[:-3], "truncated"),
    (lambda d: d[: len(d) // 2], "truncated"),
    (lambda d: d + b"junk", "trailing_junk"),
    (lambda d: d + d, "trailing_junk"),
    (lambda d: d[:20] + bytes([d[20] ^ 0xFF]) + d[21:], "corrupt"),
    (lambda d: b"", "truncated"),
])
def test_damaged_volume_is_rejected(mangle, reason) -> None:
    codec = l3.Codec(3)
    vol = _vol(codec)
    with pytest.raises(l3.VolumeCorrupt) as ei:
        l3.verify(codec, mangle(vol.data), records=vol.records, sha256=vol.sha256)
    assert ei.value.reason == reason


def test_count_and_checksum_mismatch() -> None:
    codec = l3.Codec(3)
    vol = _vol(codec)
    with pytest.raises(l3.VolumeCorrupt) as ei:
        l3.verify(codec, vol.data, records=vol.records + 1, sha256=vol.sha256)
    assert ei.value.reason == "count_mismatch"
    # a well-formed volume whose header lies about its count
    raw = zstandard.ZstdDecompressor().decompress(vol.data)
    lines = raw.split(b"\n")
    forged = codec.compress(b"\n".join([lines[0]] + lines[2:]))
    with pytest.raises(l3.VolumeCorrupt) as ei:
        l3.verify(codec, forged)
    assert ei.value.reason == "count_mismatch"
    # another valid volume in its place: everything parses, only the sha256 tells
    other = l3.encode_volume(codec, "s1", turns("s1", 6), audit("zz", 3), NOW_MS + 1)
    with pytest.raises(l3.VolumeCorrupt) as ei:
        l3.verify(codec, other.data, records=vol.records, sha256=vol.sha256)
    assert ei.value.reason == "checksum_mismatch"


def test_dictionary_volumes_need_their_dictionary() -> None:
    samples = [b"\n".join(orjson.dumps({"type": "turn", "data": t}) for t in turns(f"s{i}", 8)) for i in range(200)]
    dictionary = l3.train_dictionary(samples, 4096)
    with_dict = l3.Codec(3, dictionary)
    assert with_dict.dict_id != 0
    vol = _vol(with_dict)
    assert l3.verify(with_dict, vol.data, records=9)["turns"] == 6
    assert len(vol.data) < len(_vol(l3.Codec(3)).data)
    with pytest.raises(l3.VolumeCorrupt):
        l3.verify(l3.Codec(3), vol.data, records=9)


def test_bad_session_id_refused() -> None:
    for bad in ("", "../etc/passwd", "a/b", "x" * 129, "空"):
        with pytest.raises(ValueError):
            l3.encode_volume(l3.Codec(3), bad, [], [], NOW_MS)


def test_write_atomic_never_overwrites_and_leaves_no_temp(tmp_path: Path) -> None:
    vol = _vol()
    rel = l3.relative_path("s1", NOW_MS, FLOOR)
    assert rel == "2025/11/29/s1.zst"
    p = l3.write_atomic(tmp_path, rel, vol.data)
    assert p.read_bytes() == vol.data
    with pytest.raises(FileExistsError):
        l3.write_atomic(tmp_path, rel, b"other")
    assert p.read_bytes() == vol.data
    assert list(l3.temp_files(tmp_path)) == []
    assert l3.relative_path("s1", NOW_MS, FLOOR, 2) == "2025/11/29/s1.2.zst"


def test_implausible_clock_goes_to_unsynced() -> None:
    assert not l3.clock_plausible(5_000, FLOOR)
    assert l3.relative_path("s1", 5_000, FLOOR) == "unsynced/s1.zst"
    assert l3.clock_plausible(NOW_MS, FLOOR)


def test_plan_budget_uploaded_first_then_oldest_never_uploading() -> None:
    rows = [{"id": 1, "state": "pending", "bytes": 100}, {"id": 2, "state": "uploaded", "bytes": 100},
            {"id": 3, "state": "uploading", "bytes": 100}, {"id": 4, "state": "uploaded", "bytes": 100},
            {"id": 5, "state": "pending", "bytes": 100}]
    assert l3.plan_budget(rows, 500) == []
    assert [r["id"] for r in l3.plan_budget(rows, 300)] == [2, 4]
    assert [r["id"] for r in l3.plan_budget(rows, 150)] == [2, 4, 1, 5]
    assert [r["id"] for r in l3.plan_budget(rows, 0)] == [2, 4, 1, 5]  # never the one being uploaded
