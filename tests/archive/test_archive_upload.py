"""Uploads against a real HTTP server on 127.0.0.1: headers, retries, failures, outages, quarantine, token."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import time

from archive_helpers import TOKEN, UpstreamServer, audit, turns

from hermesd.memory import l3_schema

NOW_MS = 1_764_400_000_000  # 2025-11-29 UTC


def now() -> int:
    return NOW_MS


async def _rows(svc):
    return await svc.l2.aread(l3_schema.rows)


async def test_upload_headers_body_and_local_delete(harness, server, token_file, raw_logs) -> None:
    svc = await harness.open(url=server.url, now_ms=now, upstream={"token_file": str(token_file)})
    paths = [await svc.archive_session(f"s{i}", turns(f"s{i}"), audit(f"s{i}")) for i in range(3)]
    assert paths[0] == svc.root / "2025/11/29/s0.zst"
    rows = await _rows(svc)
    outcomes = await svc.run_pass()
    assert outcomes == {"ok": 3}
    assert sorted(server.objects) == [f"/fleet/dev1/2025/11/29/s{i}.zst" for i in range(3)]
    for row in rows:
        body = server.objects[f"/fleet/dev1/{row['path']}"]
        assert hashlib.sha256(body).hexdigest() == row["sha256"]
        req = server.puts(row["path"])[0]["headers"]
        assert req["idempotency-key"] == f'"{row["sha256"]}"'
        assert req["content-digest"] == "sha-256=:" + base64.b64encode(hashlib.sha256(body).digest()).decode() + ":"
        assert req["authorization"] == f"Bearer {TOKEN}"
        assert req["content-type"] == "application/zstd"
    after = await _rows(svc)
    assert {r["state"] for r in after} == {"uploaded"} and {r["local"] for r in after} == {0}
    assert not any(p.exists() for p in paths)
    st = svc.status()
    assert st["pending"] == 0 and st["uploaded"] == 3 and st["local_bytes"] == 0 and st["last_success_ms"] == NOW_MS
    assert svc.health()["status"] == "ok"
    assert not any(TOKEN in line for line in raw_logs.lines)


async def test_retryable_failures_end_in_one_copy(harness, server) -> None:
    svc = await harness.open(url=server.url, now_ms=now, upstream={"timeout_s": 0.5})
    await svc.archive_session("s1", turns("s1"), audit("s1"))
    server.script(500, 503, 429, 408, "close_mid_body", "drop", ("slow", 1.0))
    outcomes: dict[str, int] = {}
    for _ in range(8):
        for k, v in (await svc.sync())["outcomes"].items():
            outcomes[k] = outcomes.get(k, 0) + v
    assert outcomes == {"retry": 7, "ok": 1}
    statuses = [r["status"] for r in server.puts("s1.zst")]
    assert statuses[:4] == [500, 503, 429, 408]
    assert list(server.objects) == ["/fleet/dev1/2025/11/29/s1.zst"]
    # the slow reply timed out on our side after the server stored it: the retry was a replay, not a copy
    assert server.writes["/fleet/dev1/2025/11/29/s1.zst"] == 1
    row = (await _rows(svc))[0]
    assert row["state"] == "uploaded" and row["attempts"] == 8


async def test_backoff_delays_the_next_attempt(harness, server) -> None:
    svc = await harness.open(url=server.url, now_ms=now, upstream={"backoff_base_s": 30, "backoff_max_s": 60})
    await svc.archive_session("s1", turns("s1"), audit("s1"))
    server.script(500)
    assert await svc.run_pass() == {"retry": 1}
    assert await svc.run_pass() == {}  # not due yet (0..30 s of full jitter; rng seeded to a non-zero draw)
    assert len(server.puts()) == 1
    assert (await svc.sync())["outcomes"] == {"ok": 1}  # sync ignores the backoff


async def test_4xx_marks_failed_and_keeps_the_file(harness, server, token_file, raw_logs) -> None:
    svc = await harness.open(url=server.url, now_ms=now, upstream={"token_file": str(token_file)})
    path = await svc.archive_session("s1", turns("s1"), audit("s1"))
    server.script(401)
    assert await svc.run_pass() == {"failed": 1}
    assert await svc.run_pass() == {}
    assert len(server.puts()) == 1 and server.objects == {}
    row = (await _rows(svc))[0]
    assert row["state"] == "failed" and row["last_error"].startswith("HTTP 401") and path.exists()
    h = svc.health()
    assert h["status"] == "degraded" and h["failed"] == 1
    assert not any(TOKEN in line for line in raw_logs.lines)
    # the operator fixed the credentials: sync requeues failed volumes
    res = await svc.sync()
    assert res["requeued"] == 1 and res["outcomes"] == {"ok": 1} and res["failed"] == 0
    assert svc.health()["status"] == "ok" and not path.exists()


async def test_redirect_is_not_followed_so_the_token_stays_home(harness, server, token_file) -> None:
    other = UpstreamServer()
    try:
        svc = await harness.open(url=server.url, now_ms=now, upstream={"token_file": str(token_file)})
        await svc.archive_session("s1", turns("s1"), audit("s1"))
        server.script(("status", 307, {"Location": other.url + "/dev1/x.zst"}))
        assert await svc.run_pass() == {"failed": 1}
        assert other.requests == [] and server.objects == {}
        assert (await _rows(svc))[0]["last_error"].startswith("HTTP 307")
    finally:
        other.down()


async def test_outage_then_recovery(harness, server, raw_logs) -> None:
    svc = await harness.open(url=server.url, now_ms=now)
    await svc.archive_session("s1", turns("s1"), audit("s1"))
    server.down()
    assert await svc.run_pass() == {}
    assert svc.status()["network"].startswith("down: probe failed")
    row = (await _rows(svc))[0]
    assert row["state"] == "pending" and row["attempts"] == 0  # an outage costs no attempt
    server.up()
    assert await svc.run_pass() == {"ok": 1}
    assert svc.status()["network"] == "up"
    assert len(raw_logs.events("archive.offline")) == 1


async def test_damaged_files_are_quarantined_never_uploaded(harness, server, raw_logs) -> None:
    svc = await harness.open(url=server.url, now_ms=now)
    good = await svc.archive_session("ok", turns("ok"), audit("ok"))
    trunc = await svc.archive_session("trunc", turns("trunc"), audit("trunc"))
    junk = await svc.archive_session("junk", turns("junk"), audit("junk"))
    swapped = await svc.archive_session("swap", turns("swap"), audit("swap"))
    other = await svc.archive_session("other", turns("other", 9), audit("other"))
    trunc.write_bytes(trunc.read_bytes()[:-10])
    with junk.open("ab") as f:
        f.write(b"\x00garbage")
    swapped.write_bytes(other.read_bytes())  # valid zstd, wrong content
    assert await svc.run_pass() == {"ok": 2, "quarantined": 3}
    assert sorted(server.objects) == ["/fleet/dev1/2025/11/29/ok.zst", "/fleet/dev1/2025/11/29/other.zst"]
    assert not any(p.exists() for p in (trunc, junk, swapped))
    q = svc.root / "quarantine/2025/11/29"
    assert sorted(p.name for p in q.iterdir()) == ["junk.zst", "swap.zst", "trunc.zst"]
    reasons = {e["path"].split("/")[-1]: e["reason"] for e in raw_logs.events("archive.quarantined")}
    assert reasons == {"trunc.zst": "truncated", "junk.zst": "trailing_junk", "swap.zst": "count_mismatch"}
    assert svc.health()["status"] == "degraded" and svc.status()["quarantined"] == 3
    assert 'hermes_archive_quarantined_total{reason="truncated"} 1' in svc.metrics_text()
    assert await svc.run_pass() == {}  # never retried
    assert good.exists() is False


async def test_throttle_caps_the_rate(harness, server) -> None:
    svc = await harness.open(url=server.url, now_ms=now, upstream={"max_bytes_per_s": 100_000})
    noise = [{"blob": os.urandom(2000).hex()} for _ in range(10)]  # ~40 KB, incompressible
    await svc.archive_session("big", noise, [])
    size = (await _rows(svc))[0]["bytes"]
    t0 = time.monotonic()
    assert await svc.run_pass() == {"ok": 1}
    assert time.monotonic() - t0 >= 0.9 * size / 100_000


async def test_url_template_for_presigned_style_targets(harness, server) -> None:
    svc = await harness.open(url=server.url + "/{device_id}/v/{path}?sig=abc", now_ms=now)
    await svc.archive_session("s1", turns("s1"), audit("s1"))
    assert await svc.run_pass() == {"ok": 1}
    assert list(server.objects) == ["/fleet/dev1/v/2025/11/29/s1.zst?sig=abc"]


async def test_background_loop_uploads_after_archive(harness, server) -> None:
    svc = await harness.open(url=server.url, now_ms=now, run_loop=True, upstream={"interval_s": 30})
    await svc.archive_session("s1", turns("s1"), audit("s1"))
    for _ in range(200):  # archive_session wakes the loop; no 30 s wait
        if server.objects:
            break
        await asyncio.sleep(0.02)
    assert list(server.objects) == ["/fleet/dev1/2025/11/29/s1.zst"]



async def test_one_connection_per_pass_and_stale_connection_resent(harness, server) -> None:
    svc = await harness.open(url=server.url, now_ms=now)
    for i in range(3):
        await svc.archive_session(f"s{i}", turns(f"s{i}"), audit(f"s{i}"))
    assert await svc.run_pass() == {"ok": 3}
    assert len({r["client_port"] for r in server.puts()}) == 1  # kept alive across the pass
    for i in range(3, 5):
        await svc.archive_session(f"s{i}", turns(f"s{i}"), audit(f"s{i}"))
    server.script("ok_then_close")
    assert await svc.run_pass() == {"ok": 2}
    later = server.puts()[3:]
    assert len(later) == 2 and later[0]["client_port"] != later[1]["client_port"]
    assert len(server.objects) == 5
