"""The archive: and upstream: config sections."""

from __future__ import annotations

import hermesd.typed as pydantic
import pytest

from hermesd.memory.archive_settings import (
    ArchiveSettings,
    UpstreamSettings,
    default_device_id,
)


def test_defaults_run_with_no_config() -> None:
    a, u = ArchiveSettings(), UpstreamSettings()
    assert a.level == 3 and a.max_bytes == 256 * 1024 * 1024 and a.retention_s == 0 and a.dictionary == ""
    assert u.url is None and u.token_file == "" and u.device_id == default_device_id() != ""


@pytest.mark.parametrize("kw", [{"url": "ftp://x/"}, {"url": "example.com/up"}, {"device_id": "a/b"},
                                {"interval_s": 0}, {"bogus": 1}])
def test_bad_upstream_values_rejected(kw) -> None:
    with pytest.raises(pydantic.ValidationError):
        UpstreamSettings(**kw)


@pytest.mark.parametrize("kw", [{"level": 0}, {"level": 23}, {"max_bytes": 1000}, {"retention_s": -1}])
def test_bad_archive_values_rejected(kw) -> None:
    with pytest.raises(pydantic.ValidationError):
        ArchiveSettings(**kw)
