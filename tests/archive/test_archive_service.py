"""ArchiveService without a network: disk budget, the 1970 clock, crash leftovers, leases, admin.archive."""

from __future__ import annotations

import os
from pathlib import Path

import hermesd.typed as pydantic
import pytest
from archive_helpers import audit, turns

from hermesd.errors import InputInvalid
from hermesd.memory import l3, l3_schema
from hermesd.protocol import CallContext, Caller

NOW_MS = 1_764_400_000_000  # 2025-11-29 UTC
BUDGET = 64 * 1024


class Wall:
    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


def noise(n_kb: int) -> list[dict[str, str]]:
    return [{"blob": os.urandom(512).hex()} for _ in range(n_kb)]  # 1 KiB of hex per record, incompressible-ish


async def _rows(svc):
    return await svc.l2.aread(l3_schema.rows)


async def test_budget_drops_oldest_pending_loudly(harness, raw_logs) -> None:
    svc = await harness.open(now_ms=Wall(NOW_MS), archive={"max_bytes": BUDGET})
    for i in range(6):
        await svc.archive_session(f"s{i}", noise(30), [])  # ~15 KiB compressed each
    rows = await _rows(svc)
    local = sum(r["bytes"] for r in rows if r["local"])
    assert local <= BUDGET
    dropped = [r for r in rows if r["state"] == "dropped"]
    kept = [r for r in rows if r["state"] == "pending"]
    assert dropped and kept and max(r["id"] for r in dropped) < min(r["id"] for r in kept)  # oldest first
    assert all(not (svc.root / r["path"]).exists() for r in dropped)
    errors = [r for r in raw_logs.records if r.getMessage() == "archive.dropped"]
    assert len(errors) == len(dropped) and all(r.levelname == "ERROR" for r in errors)
    assert f'hermes_archive_dropped_total{{state="pending"}} {len(dropped)}' in svc.metrics_text()
    assert svc.health()["status"] == "degraded"


async def test_budget_evicts_uploaded_before_pending(harness, server) -> None:
    svc = await harness.open(url=server.url, now_ms=Wall(NOW_MS),
                             archive={"max_bytes": BUDGET, "retention_s": 86400})
    for i in range(3):
        await svc.archive_session(f"up{i}", noise(30), [])
    assert await svc.run_pass() == {"ok": 3}
    assert all((svc.root / r["path"]).exists() for r in await _rows(svc))  # kept by retention
    server.down()
    for i in range(2):
        await svc.archive_session(f"p{i}", noise(30), [])
    rows = {r["session_id"]: r for r in await _rows(svc)}
    assert rows["up0"]["local"] == 0 and rows["up0"]["state"] == "uploaded"
    assert all(rows[f"p{i}"]["state"] == "pending" and rows[f"p{i}"]["local"] == 1 for i in range(2))
    assert svc.dropped.values == {}
    assert sum(r["bytes"] for r in rows.values() if r["local"]) <= BUDGET


async def test_retention_deletes_uploaded_copies_when_due(harness, server) -> None:
    wall = Wall(NOW_MS)
    svc = await harness.open(url=server.url, now_ms=wall, archive={"retention_s": 3600})
    path = await svc.archive_session("s1", turns("s1"), audit("s1"))
    assert await svc.run_pass() == {"ok": 1}
    assert path.exists()
    wall.ms += 3601 * 1000
    await svc.run_pass()
    assert not path.exists() and (await _rows(svc))[0]["local"] == 0


async def test_1970_clock_goes_to_unsynced_then_dated(harness, server) -> None:
    wall = Wall(5_000)  # booted without an RTC
    svc = await harness.open(url=server.url, now_ms=wall)
    path = await svc.archive_session("s1", turns("s1"), audit("s1"))
    assert path == svc.root / "unsynced/s1.zst" and path.exists()
    assert await svc.run_pass() == {}  # no upload under a 1970 name
    assert server.requests == []
    wall.ms = NOW_MS  # NTP arrived
    assert await svc.run_pass() == {"ok": 1}
    assert not path.exists()
    assert list(server.objects) == ["/fleet/dev1/2025/11/29/s1.zst"]
    row = (await _rows(svc))[0]
    assert row["path"] == "2025/11/29/s1.zst" and row["created_ms"] == NOW_MS


async def test_same_session_twice_never_collides_remotely(harness, server) -> None:
    svc = await harness.open(url=server.url, now_ms=Wall(NOW_MS))
    await svc.archive_session("s1", turns("s1"), audit("s1"))
    assert await svc.run_pass() == {"ok": 1}  # uploaded and deleted locally
    p2 = await svc.archive_session("s1", turns("s1", 2), [])
    assert p2.name == "s1.1.zst"
    assert await svc.run_pass() == {"ok": 1}
    assert sorted(server.objects) == ["/fleet/dev1/2025/11/29/s1.1.zst", "/fleet/dev1/2025/11/29/s1.zst"]


async def test_bad_input_is_refused(harness) -> None:
    svc = await harness.open(now_ms=Wall(NOW_MS))
    with pytest.raises(InputInvalid):
        await svc.archive_session("../x", [], [])
    with pytest.raises(InputInvalid):
        await svc.archive_session("s1", [{"x": object()}], [])
    assert await _rows(svc) == [] and list(svc.root.rglob("*.zst")) == []


async def test_crash_leftovers_are_cleaned_adopted_or_quarantined(harness, server, raw_logs) -> None:
    svc = await harness.open(url=server.url, now_ms=Wall(NOW_MS))
    root = svc.root
    gone = await svc.archive_session("gone", turns("g"), audit("g"))
    assert await svc.run_pass() == {"ok": 1} and not gone.exists()
    await harness.close(svc)
    codec = l3.Codec(3)
    # renamed into place but the manifest insert never committed
    l3.write_atomic(root, "2025/11/28/orphan.zst", l3.encode_volume(codec, "orphan", turns("o"), audit("o"), NOW_MS).data)
    # a write interrupted before its rename
    tmp = root / "2025/11/28/.half.zst.123.tmp"
    tmp.write_bytes(b"partial")
    # something that is not a whole volume
    bad = l3.encode_volume(codec, "bad", turns("b"), [], NOW_MS).data[:-5]
    (root / "2025/11/28/bad.zst").write_bytes(bad)
    # an unlink after upload that the crash undid
    gone.write_bytes(b"resurrected")
    svc = await harness.open(now_ms=Wall(NOW_MS))
    rows = {r["path"]: r for r in await _rows(svc)}
    assert rows["2025/11/28/orphan.zst"]["state"] == "pending" and rows["2025/11/28/orphan.zst"]["records"] == 9
    assert rows["2025/11/28/bad.zst"]["state"] == "quarantined" and rows["2025/11/28/bad.zst"]["bytes"] == len(bad)
    assert not tmp.exists() and not gone.exists()
    assert (root / "quarantine/2025/11/28/bad.zst").exists() and not (root / "2025/11/28/bad.zst").exists()
    assert len(raw_logs.events("archive.adopted")) == 1
    assert svc.status()["local_bytes"] == rows["2025/11/28/orphan.zst"]["bytes"] + len(bad)


async def test_stale_lease_released_at_start_and_on_expiry(harness, server) -> None:
    svc = await harness.open(now_ms=Wall(NOW_MS))
    await svc.archive_session("s1", turns("s1"), audit("s1"))
    row = (await _rows(svc))[0]
    assert await svc.l2.awrite(l3_schema.claim, [row["id"]], "deadboot:1:dead#1", svc.clock() + 3600) == [row["id"]]
    await harness.close(svc)
    svc = await harness.open(url=server.url, now_ms=Wall(NOW_MS))
    assert (await _rows(svc))[0]["state"] == "pending"  # foreign lease released at start
    # our own lease past its deadline (an upload thread that never came back)
    assert await svc.l2.awrite(l3_schema.claim, [row["id"]], svc._owner + "#99", svc.clock() - 1) == [row["id"]]
    assert await svc.run_pass() == {"ok": 1}
    assert (await _rows(svc))[0]["state"] == "uploaded"


async def test_admin_archive_method(harness, server) -> None:
    svc = await harness.open(url=server.url, now_ms=Wall(NOW_MS))
    (method,) = svc.methods()
    assert method.name == "admin.archive" and method.roles == frozenset({"admin"})
    ctx = CallContext(Caller(0, 0, 1, "admin"), "0" * 16, notify=None)  # type: ignore[arg-type]
    path = await svc.archive_session("s1", turns("s1"), audit("s1"))
    await svc.archive_session("s2", turns("s2"), audit("s2"))
    st = await method.handler(method.params_model(action="status"), ctx)
    assert st["pending"] == 2 and st["upstream"] is True
    with path.open("ab") as f:
        f.write(b"junk")
    v = await method.handler(method.params_model(action="verify"), ctx)
    assert v == {"checked": 2, "ok": 1, "quarantined": [{"path": "2025/11/29/s1.zst", "reason": "trailing_junk"}]}
    s = await method.handler(method.params_model(action="sync"), ctx)
    assert s["outcomes"] == {"ok": 1} and s["pending"] == 0 and s["uploaded"] == 1 and s["quarantined"] == 1
    text = svc.metrics_text()
    for line in ('hermes_archive_files{state="uploaded"} 1', 'hermes_archive_uploads_total{outcome="ok"} 1',
                 "hermes_archive_last_success_timestamp_seconds 1764400000"):
        assert line in text
    with pytest.raises(pydantic.ValidationError):
        method.params_model(action="delete")


async def test_dictionary_from_config(harness, server, tmp_path: Path) -> None:
    import orjson
    samples = [b"\n".join(orjson.dumps({"type": "turn", "data": t}) for t in turns(f"s{i}", 8)) for i in range(200)]
    dpath = tmp_path / "dict.zstd"
    dpath.write_bytes(l3.train_dictionary(samples, 4096))
    svc = await harness.open(url=server.url, now_ms=Wall(NOW_MS), archive={"dictionary": str(dpath)})
    await svc.archive_session("s1", turns("s1"), audit("s1"))
    row = (await _rows(svc))[0]
    assert row["dict_id"] == l3.Codec(3, dpath.read_bytes()).dict_id != 0
    assert await svc.run_pass() == {"ok": 1}
