"""The ``archive:`` (L3 cold tier) and ``upstream:`` (fleet sync) config sections."""

from __future__ import annotations

import socket
from datetime import date
from pathlib import Path

from pydantic import Field, field_validator

from ..section import Section

__all__ = ["ArchiveSettings", "UpstreamSettings", "default_device_id"]

_MACHINE_ID = Path("/etc/machine-id")


def default_device_id() -> str:
    """``/etc/machine-id`` (systemd's stable host id, machine-id(5)) if readable, else the host name."""
    try:
        mid = _MACHINE_ID.read_text().strip()
    except OSError:
        mid = ""
    return mid or socket.gethostname() or "unknown-device"


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

    url: str | None = None
    token_file: str = ""
    interval_s: float = Field(60.0, gt=0)
    timeout_s: float = Field(30.0, gt=0)
    max_bytes_per_s: int = Field(0, ge=0)
    backoff_base_s: float = Field(2.0, gt=0)
    backoff_max_s: float = Field(600.0, gt=0)
    device_id: str = Field(default_factory=default_device_id, pattern=r"^[A-Za-z0-9._-]{1,128}$")

    @field_validator("url")
    @classmethod
    def _http_url(cls, v: str | None) -> str | None:
        if v is not None and not v.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL (or null to disable uploads)")
        return v
