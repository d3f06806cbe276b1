"""The shipped systemd units verify and carry the hardening the issue asks for."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from hermesd_testing import REPO

UNITS = REPO / "systemd"


def test_service_unit_settings():
    text = (UNITS / "hermesd.service").read_text()
    for needed in ("Type=notify", "User=hermesd", "StateDirectory=hermesd", "RuntimeDirectory=hermesd",
                   "ConfigurationDirectory=hermesd", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
                   "NoNewPrivileges=yes", "RestrictAddressFamilies=", "MemoryMax=", "WatchdogSec=",
                   "Restart=on-failure", "ExecReload=/bin/kill -HUP $MAINPID"):
        assert needed in text, needed
    sock = (UNITS / "hermesd.socket").read_text()
    assert "ListenStream=/run/hermesd/hermesd.sock" in sock and "SocketMode=0660" in sock


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_units_pass_systemd_analyze_verify(tmp_path):
    hermesd_bin = shutil.which("hermesd") or "/bin/true"
    for name in ("hermesd.service", "hermesd.socket"):
        text = (UNITS / name).read_text().replace("/opt/hermesd/venv/bin/hermesd", hermesd_bin)
        (tmp_path / name).write_text(text)
    p = subprocess.run(["systemd-analyze", "verify", "--man=no", str(tmp_path / "hermesd.socket"),
                        str(tmp_path / "hermesd.service")], capture_output=True, text=True, timeout=60)
    problems = [line for line in (p.stdout + p.stderr).splitlines() if "hermesd." in line]
    assert p.returncode == 0 and not problems, p.stdout + p.stderr


def test_sysusers_and_tmpfiles_snippets():
    assert "u hermesd" in (UNITS / "hermesd.sysusers.conf").read_text()
    # the tool workers' own user (tools.worker_user's default), never a shared one like nobody
    assert "u hermesd-tool -:hermesd-tool" in (UNITS / "hermesd.sysusers.conf").read_text()
    assert "/var/lib/hermesd" in (UNITS / "hermesd.tmpfiles.conf").read_text()
