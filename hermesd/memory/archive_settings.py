"""The ``archive:`` (L3 cold tier) and ``upstream:`` (fleet sync) config sections."""

from __future__ import annotations

import os
import socket
import stat
from datetime import date
from pathlib import Path
from typing import Literal

from .. import lazyre
from ..section import Section
from ..typed import Field, field_validator, model_validator

__all__ = ["ArchiveSettings", "UpstreamSettings", "check_secret_file", "default_device_id"]

_MACHINE_ID = Path("/etc/machine-id")


def default_device_id() -> str:
    """``/etc/machine-id`` (systemd's stable host id, machine-id(5)) if readable, else the host name."""
    try:
        mid = _MACHINE_ID.read_text().strip()
    except OSError:
        mid = ""
    return mid or socket.gethostname() or "unknown-device"


def check_secret_file(path: str) -> None:
    """Refuse a secret file that is missing, not a regular file, or open to group or others.

    The same rule OpenSSH applies to a private key ("permissions are too open"):
    any group/other permission bit (``mode & 0o077``) refuses it.

    :raises ValueError: with a sentence naming the file, its mode and the fix.
    """
    try:
        st = os.stat(path)
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{path} is not a regular file")
    if st.st_mode & 0o077:
        raise ValueError(f"{path} is readable by group or others (mode {stat.S_IMODE(st.st_mode):04o}); "
                         f"it holds a secret key: chmod 600 {path}")


_BUCKET = lazyre.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")  # S3 bucket naming rules (general purpose buckets)
_PREFIX = lazyre.compile(r"^(?:[A-Za-z0-9._-]+/)*[A-Za-z0-9._-]*$")


class ArchiveSettings(Section):
    """``archive:`` — zstd volumes of closed sessions under ``<state_dir>/archive``.

    :param level: zstd compression level (1 fastest … 19; 3 is zstd's own default).
    :param max_bytes: disk budget of the archive folder; over it the oldest uploaded
        files go first, then (ERROR log, ``hermes_archive_dropped_total``) the oldest
        files not yet uploaded.
    :param retention_s: how long a local copy is kept after a 2xx upload (0 = delete
        at once); the disk budget may delete it sooner.
    :param dictionary: path of a trained zstd dictionary (``scripts/bench/archive.py
        --write-dictionary PATH`` trains one on recorded turns, or
        :func:`hermesd.memory.l3.train_dictionary` on a device's own volumes); empty =
        none. Every reader of the archive needs the same dictionary (its id is in
        each frame and in the manifest row).
    :param clock_floor: the wall clock is trusted only after this date; before it
        (an RTC-less device booting in 1970) volumes go to ``archive/unsynced/``.
    :param lease_s: how long an "uploading" claim holds before another pass may
        take the file again (a crashed upload never leaves it stuck).
    """

    level: int = Field(3, ge=1, le=22)
    max_bytes: int = Field(256 * 1024 * 1024, ge=64 * 1024)
    retention_s: float = Field(0.0, ge=0)
    dictionary: str = ""
    clock_floor: date = date(2025, 1, 1)
    lease_s: float = Field(300.0, gt=0)


class UpstreamSettings(Section):
    """``upstream:`` — where archive volumes are PUT when the network is up.

    :param kind: ``http`` (a plain PUT to ``url``) or ``s3`` (any S3-compatible object
        store — AWS S3, MinIO, Ceph RGW, Garage — with SigV4-signed PUTs to ``endpoint``).
    :param endpoint: ``s3``: the store's base URL, e.g. ``https://s3.eu-west-1.amazonaws.com``
        or ``http://10.0.0.5:9000``.
    :param region: ``s3``: the signing region (MinIO and Ceph accept ``us-east-1``; Garage's
        default is ``garage``).
    :param bucket: ``s3``: the bucket (S3 naming rules: 3–63 of ``a-z 0-9 . -``).
    :param prefix: ``s3``: key prefix; objects are ``<prefix>/<device_id>/YYYY/MM/DD/<volume>``.
    :param addressing: ``s3``: ``path`` (``endpoint/bucket/key``, what MinIO, Ceph and Garage
        serve by default) or ``virtual`` (``bucket.endpoint-host/key``).
    :param conditional_put: ``s3``: send ``If-None-Match: *`` so a second PUT of a volume
        (after a crash before its mark) cannot overwrite or duplicate it (a 412 then means
        "already there"). False, or a store answering 501 to it: a HEAD before each PUT instead.
    :param credentials_file: ``s3``: an AWS shared-credentials file (``[profile]`` with
        ``aws_access_key_id``, ``aws_secret_access_key``, optional ``aws_session_token``);
        it must be mode 0600 or stricter (a group/world-readable file is a config error).
        Empty = the daemon's environment (``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``,
        ``AWS_SESSION_TOKEN``). Re-read at every pass, so a rotated key needs no restart;
        never logged.
    :param credentials_profile: ``s3``: the section of ``credentials_file`` to use.
    :param url: base URL (``http``/``https``); files go to ``url/<device_id>/<path>``,
        or, when the URL holds ``{device_id}`` / ``{path}``, to the URL with those
        filled in (a presigned object-store template). None = upload disabled.
    :param token_file: file holding a bearer token (sent as ``Authorization`` to the
        upstream only, never logged); empty = no token.
    :param interval_s: how often the upload loop looks for work when idle.
    :param timeout_s: socket timeout of one request (connect, each send, the reply).
    :param max_bytes_per_s: upload rate cap (0 = unlimited).
    :param backoff_base_s: first retry delay; doubles per attempt, full jitter
        (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015).
    :param backoff_max_s: cap of one retry delay.
    :param device_id: path component naming this device; default ``/etc/machine-id``
        or the host name.
    """

    kind: Literal["http", "s3"] = "http"
    endpoint: str | None = None
    region: str = Field("us-east-1", pattern=r"^[A-Za-z0-9-]{1,64}$")
    bucket: str = ""
    prefix: str = ""
    addressing: Literal["path", "virtual"] = "path"
    conditional_put: bool = True
    credentials_file: str = ""
    credentials_profile: str = Field("default", pattern=r"^[A-Za-z0-9._-]{1,64}$")
    url: str | None = None
    token_file: str = ""
    interval_s: float = Field(60.0, gt=0)
    timeout_s: float = Field(30.0, gt=0)
    max_bytes_per_s: int = Field(0, ge=0)
    backoff_base_s: float = Field(2.0, gt=0)
    backoff_max_s: float = Field(600.0, gt=0)
    device_id: str = Field(default_factory=default_device_id, pattern=r"^[A-Za-z0-9._-]{1,128}$")

    @field_validator("url", "endpoint")
    @classmethod
    def _http_url(cls, v: str | None) -> str | None:
        if v is not None and not v.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL (or null to disable uploads)")
        return v

    @field_validator("prefix")
    @classmethod
    def _prefix(cls, v: str) -> str:
        v = v.strip("/")
        if not _PREFIX.match(v) or ".." in v.split("/") or "//" in v:
            raise ValueError("must be path segments of A-Z a-z 0-9 . _ - separated by '/'")
        return v

    @model_validator(mode="after")
    def _s3(self) -> UpstreamSettings:
        if self.kind != "s3":
            return self
        if self.url is not None:
            raise ValueError("url is the plain HTTP target; with kind: s3 set endpoint and bucket instead")
        if not self.endpoint:
            raise ValueError("kind: s3 needs endpoint (the object store's base URL)")
        if not _BUCKET.match(self.bucket):
            raise ValueError("kind: s3 needs bucket: 3-63 characters of a-z 0-9 . - (S3 bucket naming rules)")
        if self.credentials_file:
            check_secret_file(self.credentials_file)
        return self

    @property
    def enabled(self) -> bool:
        """True when volumes are uploaded at all (``url`` for http, ``endpoint`` for s3)."""
        return bool(self.endpoint if self.kind == "s3" else self.url)
