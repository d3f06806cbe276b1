"""kill -9 of a real uploader process at each step of an upload, then a restart:
exactly one remote object per archive, all delivered, none left "uploading", token never logged."""

from __future__ import annotations

import hashlib
import os
import random
import sqlite3
import time
from pathlib import Path

import pytest
from archive_helpers import TOKEN, Child, UpstreamServer, wait_for

N = 3


def manifest(state: Path) -> list[tuple[str, str, str, int]]:
    conn = sqlite3.connect(state / "l2.sqlite3")
    try:
        return conn.execute("SELECT path, sha256, state, local FROM l3_manifest ORDER BY id").fetchall()
    finally:
        conn.close()


def finish_and_check(state: Path, server: UpstreamServer, token_file: Path, logs: list[str],
                     n: int | None = N) -> list[tuple]:
    server.release()
    server.script()  # from now on every PUT succeeds
    again = Child(state, server.url, 0, "until-idle", token_file)
    assert again.wait() == 0, "".join(again.err)
    rows = manifest(state)
    assert n is None or len(rows) == n
    assert {r[2] for r in rows} == {"uploaded"}, rows  # none left uploading or pending
    assert sorted(server.objects) == sorted(f"/fleet/dev1/{r[0]}" for r in rows)  # exactly one object each
    for path, sha, _, local in rows:
        assert hashlib.sha256(server.objects[f"/fleet/dev1/{path}"]).hexdigest() == sha
        assert local == 0 and not (state / "archive" / path).exists()
    assert all(r["headers"]["authorization"] == f"Bearer {TOKEN}" for r in server.requests)
    text = "".join(logs) + "".join(again.err)
    assert "archive.uploaded" in text and TOKEN not in text
    return rows


@pytest.mark.parametrize("idempotency", [True, False], ids=["idempotent-server", "plain-server"])
def test_kill_after_server_stored_before_marked(tmp_path: Path, token_file: Path, idempotency: bool) -> None:
    server = UpstreamServer(idempotency=idempotency)
    try:
        server.script("store_then_hang")
        child = Child(tmp_path, server.url, N, "loop", token_file)
        wait_for(server.hung.is_set, 20)
        stored = list(server.objects)
        assert len(stored) == 1
        child.kill9()
        finish_and_check(tmp_path, server, token_file, child.err)
        # the first volume was PUT again after the restart (it was never marked) to the SAME path
        assert len(server.puts(stored[0])) == 2
        assert server.writes[stored[0]] == (1 if idempotency else 2)
    finally:
        server.down()


def test_kill_mid_upload_before_anything_stored(tmp_path: Path, token_file: Path) -> None:
    server = UpstreamServer()
    try:
        server.script("hang_before_body")
        child = Child(tmp_path, server.url, N, "loop", token_file)
        wait_for(server.hung.is_set, 20)
        assert server.objects == {}
        child.kill9()
        assert "uploading" in [r[2] for r in manifest(tmp_path)]  # the lease the crash left behind
        finish_and_check(tmp_path, server, token_file, child.err)
        assert all(n == 1 for n in server.writes.values())
    finally:
        server.down()


def test_kill_after_marked_uploaded(tmp_path: Path, token_file: Path) -> None:
    server = UpstreamServer()
    try:
        child = Child(tmp_path, server.url, N, "loop", token_file)
        wait_for(lambda: any("archive.uploaded" in line for line in child.err), 20)
        child.kill9()
        first = [line for line in child.err if "archive.uploaded" in line]
        finish_and_check(tmp_path, server, token_file, child.err)
        # whatever was marked before the kill is never sent again
        for line in first:
            path = line.split("'path': '")[1].split("'")[0]
            assert len(server.puts(path)) == 1
    finally:
        server.down()


def test_random_kills_while_archiving_and_uploading(tmp_path: Path, token_file: Path) -> None:
    """Five kill -9 at random moments (mid-archive, mid-PUT, mid-commit) against a flaky plain server."""
    rng = random.Random(2026)
    server = UpstreamServer(idempotency=False)
    logs: list[str] = []
    try:
        for run in range(5):
            server.script(*rng.choices(["ok", "ok", 500, "drop", ("slow", 0.05)], k=12))
            child = Child(tmp_path, server.url, 8, "archive-while-uploading", token_file, prefix=f"r{run}-")
            wait_for(lambda child=child: any("archive.written" in x for x in child.err), 20)
            time.sleep(rng.uniform(0.0, 0.4))
            child.kill9()
            logs += child.err
        before = len(manifest(tmp_path))
        assert before >= 5
        # every volume that reached the disk whole must arrive: rows, plus orphans a kill left between
        # the rename and the manifest insert (adopted by the final run); cut-short writes never count
        rows = finish_and_check(tmp_path, server, token_file, logs, n=None)
        assert len(rows) >= before
        acknowledged = {x.split("'path': '")[1].split("'")[0] for x in logs if "archive.written" in x}
        assert acknowledged <= {r[0] for r in rows}  # no archive_session that returned was lost
        assert not list((tmp_path / "archive").rglob("*.tmp")) and not list((tmp_path / "archive").rglob("*.zst"))
    finally:
        server.down()
