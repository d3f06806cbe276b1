"""The ``tools:`` config section."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from ..section import Section, shipped_path
from ..typed import Field

__all__ = ["BreakerSettings", "ToolsSettings", "resolve_tools_dir"]



class BreakerSettings(Section):
    """Circuit-breaker defaults (a tool's ``breaker:`` block overrides them).

    Thresholds by the tool's ``kind``: a local program fails for local reasons
    and gets more rope than a database or a network peer.
    """

    failure_threshold_local: int = Field(5, ge=1)
    failure_threshold_database: int = Field(3, ge=1)
    failure_threshold_network: int = Field(2, ge=1)
    cooldown_ms: int = Field(5000, ge=10)
    cooldown_max_ms: int = Field(60000, ge=10)
    probe_every: int = Field(5, ge=1)

    def thresholds(self) -> dict[str, int]:
        """``kind`` → consecutive failures that open the breaker."""
        return {"local": self.failure_threshold_local, "database": self.failure_threshold_database,
                "network": self.failure_threshold_network}


class ToolsSettings(Section):
    """The tool runtime.

    ``tools_dir`` ``None`` means the shipped ``tools/`` folder
    (:func:`hermesd.section.shipped_path`: ``$HERMESD_SHARE_DIR``, the checkout, the
    wheel's package data, ``/usr/share/hermesd``). ``documents_dir``/``outbox_dir`` ``None`` mean
    ``<state_dir>/documents`` and ``<state_dir>/outbox`` (``send_document``);
    ``data_dir`` is a folder of reference data a pack's tools read (a travel database, say):
    a tool with ``needs: [data_dir]`` gets it as ``HERMESD_DATA_DIR`` and reads it through a
    ``{data_dir}`` grant; ``None`` means ``<state_dir>/data``.
    ``directory_file`` ``None`` means the shipped people directory the anchors
    use too, ``config/directory.yaml`` (``contacts``).
    ``worker_user`` is the account workers switch to when the daemon runs as
    root (``hermesd-tool``, made by ``systemd/hermesd.sysusers.conf``), with no
    capabilities at all; when it does not exist, is root, the daemon's own user or
    ``nobody``, the daemon says so at start (WARNING) and the workers get an
    unallocated uid instead (:mod:`hermesd.tools.forkserver`). A daemon that is not
    root cannot switch: its workers keep its uid and are confined by
    ``filesystem_isolation`` alone (``admin.status`` says so).

    ``filesystem_isolation``: ``auto`` takes Landlock where the kernel has it, else a
    private mount namespace, else none (WARNING at start, ``filesystem_isolation:
    none`` in ``admin.status``); ``landlock``/``mountns`` insist on one (falling back to
    none with the WARNING when it cannot be had); ``none`` is for debugging only.
    """

    tools_dir: Path | None = None
    pool_size: int = Field(2, ge=1, le=64)
    network_pool_size: int = Field(1, ge=0, le=64)
    worker_max_calls: int = Field(1000, ge=1)
    worker_max_rss_growth_mb: int = Field(32, ge=1)
    worker_user: str = "hermesd-tool"
    filesystem_isolation: Literal["auto", "landlock", "mountns", "none"] = "auto"
    documents_dir: Path | None = None
    outbox_dir: Path | None = None
    directory_file: Path | None = None
    data_dir: Path | None = None
    self_test: bool = True
    breaker: BreakerSettings = BreakerSettings()


def resolve_tools_dir(settings: ToolsSettings) -> Path:
    """The tool folder to load (see :class:`ToolsSettings`); a relative path is taken from the
    daemon's working directory (the fork server runs elsewhere, so it gets an absolute one)."""
    if settings.tools_dir is not None:
        return settings.tools_dir.absolute()
    return shipped_path("tools").absolute()
