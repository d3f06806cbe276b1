"""``upstream.kind: s3`` against a real S3-compatible server process on 127.0.0.1 that checks SigV4.

The server is moto in server mode (``python -m moto.server``, the ``moto[server]``
test extra), started with ``INITIAL_NO_AUTH_ACTION_COUNT`` so that after the IAM
set-up every request must carry a valid SigV4 signature of a known access key —
see ``s3_server.py`` for why moto (MinIO is not packaged here; Debian's radosgw
needs a Ceph cluster; Garage and SeaweedFS are not in PyPI or Debian as servers). The signer
itself is checked against botocore's ``S3SigV4Auth`` on the same requests (same
canonical request, same ``Authorization`` header) in ``test_sigv4.py``.

Covered: upload (key layout, body, metadata), a 412 on a volume the store already
holds (marked done, nothing rewritten), a different object at the key (never
overwritten), the HEAD check for a store without conditional writes, a real
uploader process SIGKILLed between the store's 2xx and the manifest mark, wrong
credentials (clear error, backlog kept, retried after the file is fixed), a
missing bucket (backoff, then delivered), the endpoint down (nothing lost), an
insecure credentials file (config error), and that no secret reaches a log line.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from pathlib import Path

import hermesd.typed as pydantic
import pytest
from archive_helpers import Child, audit, turns
from s3_server import REGION, MotoS3, free_port
from test_archive_crash import manifest

from hermesd.config import ConfigError, load
from hermesd.logging import KVFormatter
from hermesd.memory import l3_schema, s3
from hermesd.memory.archive_settings import UpstreamSettings

NOW_MS = 1_764_400_000_000  # 2025-11-29 UTC


def now() -> int:
    return NOW_MS


def _bucket(moto: MotoS3, *, create: bool = True) -> str:
    name = f"fleet-{uuid.uuid4().hex[:12]}"
    if create:
        moto.s3.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": REGION})
    return name


def _s3(moto: MotoS3 | None, bucket: str, creds: Path, **kw) -> dict:
    return {"kind": "s3", "endpoint": moto.endpoint if moto else kw.pop("endpoint"), "region": REGION,
            "bucket": bucket, "prefix": "archives/v1", "credentials_file": str(creds), **kw}


def _no_secret(moto: MotoS3, raw_logs) -> None:
    assert raw_logs.records, "expected log records"
    fmt = KVFormatter(journal=False)
    rendered = [fmt.format(r) for r in raw_logs.records]
    for text in raw_logs.lines + rendered:
        assert moto.secret_access_key not in text
        assert "Signature=" not in text


async def test_upload_puts_one_signed_object_per_volume(harness, moto, tmp_path, raw_logs) -> None:
    bucket = _bucket(moto)
    creds = moto.credentials_file(tmp_path / "aws-credentials")
    svc = await harness.open(now_ms=now, upstream=_s3(moto, bucket, creds))
    for i in range(3):
        await svc.archive_session(f"s{i}", turns(f"s{i}"), audit(f"s{i}"))
    rows = await svc.l2.aread(l3_schema.rows)
    assert await svc.run_pass() == {"ok": 3}
    objects = moto.objects(bucket)
    assert sorted(objects) == [f"archives/v1/dev1/2025/11/29/s{i}.zst" for i in range(3)]
    for row in rows:
        obj = objects[f"archives/v1/dev1/{row['path']}"]
        assert hashlib.sha256(obj["body"]).hexdigest() == row["sha256"] == obj["metadata"]["sha256"]
    after = await svc.l2.aread(l3_schema.rows)
    assert {r["state"] for r in after} == {"uploaded"} and {r["local"] for r in after} == {0}
    st = svc.status()
    assert st["backlog"] == 0 and st["uploaded"] == 3 and st["upstream_kind"] == f"s3:{bucket}"
    assert [e.get("already") for e in raw_logs.events("archive.uploaded")] == [None] * 3
    _no_secret(moto, raw_logs)


async def test_412_means_already_uploaded_and_nothing_is_rewritten(harness, moto, tmp_path, raw_logs) -> None:
    bucket = _bucket(moto)
    creds = moto.credentials_file(tmp_path / "aws-credentials")
    svc = await harness.open(now_ms=now, upstream=_s3(moto, bucket, creds))
    path = await svc.archive_session("s1", turns("s1"), audit("s1"))
    data = path.read_bytes()
    key = "archives/v1/dev1/2025/11/29/s1.zst"
    # what a crash between the store's 2xx and the manifest mark leaves: the object, with our metadata
    moto.s3.put_object(Bucket=bucket, Key=key, Body=data, Metadata={"sha256": hashlib.sha256(data).hexdigest()})
    before = moto.objects(bucket)[key]
    assert await svc.run_pass() == {"ok": 1}
    assert moto.objects(bucket)[key]["last_modified"] == before["last_modified"]  # not written again
    assert raw_logs.events("archive.uploaded")[0]["already"] is True
    row = (await svc.l2.aread(l3_schema.rows))[0]
    assert row["state"] == "uploaded" and not path.exists()


async def test_412_on_a_different_object_fails_without_overwriting(harness, moto, tmp_path) -> None:
    bucket = _bucket(moto)
    creds = moto.credentials_file(tmp_path / "aws-credentials")
    svc = await harness.open(now_ms=now, upstream=_s3(moto, bucket, creds))
    path = await svc.archive_session("s1", turns("s1"), audit("s1"))
    key = "archives/v1/dev1/2025/11/29/s1.zst"
    moto.s3.put_object(Bucket=bucket, Key=key, Body=b"somebody else's bytes")
    assert await svc.run_pass() == {"failed": 1}
    assert moto.objects(bucket)[key]["body"] == b"somebody else's bytes"
    row = (await svc.l2.aread(l3_schema.rows))[0]
    assert row["state"] == "failed" and "different object already exists" in row["last_error"] and path.exists()


async def test_head_check_for_a_store_without_conditional_writes(harness, moto, tmp_path, raw_logs) -> None:
    bucket = _bucket(moto)
    creds = moto.credentials_file(tmp_path / "aws-credentials")
    svc = await harness.open(now_ms=now, upstream=_s3(moto, bucket, creds, conditional_put=False))
    p1 = await svc.archive_session("s1", turns("s1"), audit("s1"))
    await svc.archive_session("s2", turns("s2"), audit("s2"))
    k1 = "archives/v1/dev1/2025/11/29/s1.zst"
    data = p1.read_bytes()
    # an object without our metadata: the single-part ETag (MD5 of the body) proves it is this volume
    moto.s3.put_object(Bucket=bucket, Key=k1, Body=data)
    before = moto.objects(bucket)[k1]["last_modified"]
    assert await svc.run_pass() == {"ok": 2}
    objects = moto.objects(bucket)
    assert sorted(objects) == [k1, "archives/v1/dev1/2025/11/29/s2.zst"]
    assert objects[k1]["last_modified"] == before
    assert [e.get("already") for e in raw_logs.events("archive.uploaded")] == [True, None]


def test_sigkill_between_put_and_mark_leaves_exactly_one_object(moto, tmp_path) -> None:
    """A real uploader process dies by SIGKILL after the store's 2xx, before the mark; the next run
    gets 412, checks the object with a HEAD and marks it uploaded: one object, all delivered."""
    bucket = _bucket(moto)
    creds = moto.credentials_file(tmp_path / "aws-credentials")
    state = tmp_path / "state"
    state.mkdir()
    env_extra = json.dumps({"kind": "s3", "endpoint": moto.endpoint, "region": REGION, "bucket": bucket,
                            "prefix": "archives/v1", "credentials_file": str(creds)})
    os.environ["UPLOADER_UPSTREAM"] = env_extra
    try:
        first = Child(state, "-", 3, "kill-after-put", Path(""), prefix="k")
        assert first.wait(60) == -9, "".join(first.err)
        assert any("PUT_DONE" in x for x in first.out)
        stored = moto.objects(bucket)
        assert len(stored) == 1
        assert "uploading" in [r[2] for r in manifest(state)]  # the store has it; the manifest does not know
        again = Child(state, "-", 0, "until-idle", Path(""))
        assert again.wait() == 0, "".join(again.err)
    finally:
        del os.environ["UPLOADER_UPSTREAM"]
    rows = manifest(state)
    assert len(rows) == 3 and {r[2] for r in rows} == {"uploaded"}
    objects = moto.objects(bucket)
    assert sorted(objects) == sorted(f"archives/v1/dev1/{r[0]}" for r in rows)
    for path, sha, _, _ in rows:
        assert hashlib.sha256(objects[f"archives/v1/dev1/{path}"]["body"]).hexdigest() == sha
    (key,) = stored
    assert objects[key]["last_modified"] == stored[key]["last_modified"]  # the survivor was not rewritten
    already = [x for x in again.err if "archive.uploaded" in x and "'already': True" in x]
    assert len(already) == 1 and key.split("/dev1/")[1] in already[0]
    assert moto.secret_access_key not in "".join(first.err + again.err)


async def test_wrong_credentials_keep_the_backlog_and_retry_later(harness, moto, tmp_path, raw_logs) -> None:
    bucket = _bucket(moto)
    creds = moto.credentials_file(tmp_path / "aws-credentials", secret="not-the-secret-key-0123456789")
    svc = await harness.open(now_ms=now, upstream=_s3(moto, bucket, creds))
    path = await svc.archive_session("s1", turns("s1"), audit("s1"))
    assert await svc.run_pass() == {"retry": 1}
    row = (await svc.l2.aread(l3_schema.rows))[0]
    assert row["state"] == "pending" and path.exists() and moto.objects(bucket) == {}
    assert "SignatureDoesNotMatch" in row["last_error"] and "refused the credentials" in row["last_error"]
    assert svc.status()["backlog"] == 1 and "credentials_file" in svc.status()["last_error"]
    # an unknown key id is told apart
    creds.write_text("[default]\naws_access_key_id = AKIANOTKNOWN000000\naws_secret_access_key = x\n")
    assert (await svc.sync())["outcomes"] == {"retry": 1}
    assert "InvalidAccessKeyId" in (await svc.l2.aread(l3_schema.rows))[0]["last_error"]
    # the operator fixes the file: re-read at the next pass, no restart
    moto.credentials_file(creds)
    res = await svc.sync()
    assert res["outcomes"] == {"ok": 1} and res["backlog"] == 0 and not path.exists()
    assert len(moto.objects(bucket)) == 1
    _no_secret(moto, raw_logs)
    assert "not-the-secret-key-0123456789" not in "".join(raw_logs.lines)


async def test_missing_bucket_backs_off_then_delivers(harness, moto, tmp_path) -> None:
    bucket = _bucket(moto, create=False)
    creds = moto.credentials_file(tmp_path / "aws-credentials")
    svc = await harness.open(now_ms=now, upstream=_s3(moto, bucket, creds, backoff_base_s=30, backoff_max_s=60))
    await svc.archive_session("s1", turns("s1"), audit("s1"))
    assert await svc.run_pass() == {"retry": 1}
    assert "does not exist" in (await svc.l2.aread(l3_schema.rows))[0]["last_error"]
    assert await svc.run_pass() == {}  # backing off
    moto.s3.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": REGION})
    assert (await svc.sync())["outcomes"] == {"ok": 1}
    assert len(moto.objects(bucket)) == 1


async def test_endpoint_down_loses_nothing(harness, tmp_path) -> None:
    port = free_port()
    creds = tmp_path / "aws-credentials"
    creds.write_text("[default]\naws_access_key_id = AKIAPLACEHOLDER\naws_secret_access_key = later\n")
    creds.chmod(0o600)
    svc = await harness.open(now_ms=now, upstream=_s3(None, "fleet-down", creds,
                                                      endpoint=f"http://127.0.0.1:{port}"))
    paths = [await svc.archive_session(f"s{i}", turns(f"s{i}"), audit(f"s{i}")) for i in range(2)]
    for _ in range(3):
        assert await svc.run_pass() == {}
    assert svc.status()["network"].startswith("down: probe failed") and svc.status()["backlog"] == 2
    assert all(p.exists() for p in paths)
    srv = MotoS3(port)  # the store comes up where it was configured
    try:
        srv.s3.create_bucket(Bucket="fleet-down", CreateBucketConfiguration={"LocationConstraint": REGION})
        srv.credentials_file(creds)
        assert (await svc.sync())["outcomes"] == {"ok": 2}
        assert len(srv.objects("fleet-down")) == 2 and not any(p.exists() for p in paths)
    finally:
        srv.stop()


def test_group_readable_credentials_file_is_a_config_error(tmp_path) -> None:
    creds = tmp_path / "aws-credentials"
    creds.write_text("[default]\naws_access_key_id = AKIAX\naws_secret_access_key = y\n")
    creds.chmod(0o640)
    base = {"kind": "s3", "endpoint": "http://127.0.0.1:9", "bucket": "fleet", "credentials_file": str(creds)}
    with pytest.raises(pydantic.ValidationError, match="readable by group or others .*chmod 600"):
        UpstreamSettings(**base)
    cfg = tmp_path / "hermesd.yaml"
    cfg.write_text("upstream:\n  kind: s3\n  endpoint: http://127.0.0.1:9\n  bucket: fleet\n"
                   f"  credentials_file: {creds}\n")
    with pytest.raises(ConfigError) as exc:
        load(cfg, env={}, etc=None)
    assert "upstream" in str(exc.value) and "chmod 600" in str(exc.value) and "AKIAX" not in str(exc.value)
    creds.chmod(0o600)
    assert UpstreamSettings(**base).credentials_file == str(creds)


@pytest.mark.parametrize("kw, match", [
    ({"endpoint": None}, "needs endpoint"), ({"bucket": "A_B"}, "bucket"), ({"url": "http://x/"}, "url is the plain"),
    ({"prefix": "a/../b"}, "path segments"),
])
def test_bad_s3_settings_are_rejected(kw, match) -> None:
    with pytest.raises(pydantic.ValidationError, match=match):
        UpstreamSettings(**{"kind": "s3", "endpoint": "http://127.0.0.1:9", "bucket": "fleet", **kw})


def test_credentials_from_the_environment_and_their_absence() -> None:
    u = UpstreamSettings(kind="s3", endpoint="http://127.0.0.1:9", bucket="fleet")
    c = s3.load_credentials(u, {"AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "sek", "AWS_SESSION_TOKEN": "t"})
    assert (c.access_key_id, c.secret_access_key, c.session_token) == ("AKIAENV", "sek", "t")
    assert "sek" not in repr(c)
    with pytest.raises(s3.CredentialsError, match="AWS_ACCESS_KEY_ID"):
        s3.load_credentials(u, {})


async def test_no_credentials_at_all_stops_the_start(harness, monkeypatch) -> None:
    for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(k, raising=False)
    with pytest.raises(s3.CredentialsError, match="no S3 credentials"):
        await harness.open(upstream={"kind": "s3", "endpoint": "http://127.0.0.1:9", "bucket": "fleet"})

