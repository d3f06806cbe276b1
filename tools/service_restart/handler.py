"""service_restart: ``systemctl restart UNIT`` then report its ActiveState."""

import shutil
import subprocess


class Failure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def handle(input: dict) -> dict:
    unit = input["unit"]
    if shutil.which("systemctl") is None:
        raise Failure("SYSTEMD_UNAVAILABLE", "systemctl is not installed")
    probe = subprocess.run(["systemctl", "show", "-p", "LoadState", "--", unit], capture_output=True, text=True,
                           timeout=3)
    if probe.returncode != 0:
        raise Failure("SYSTEMD_UNAVAILABLE", (probe.stderr.strip() or "systemctl failed").splitlines()[0])
    proc = subprocess.run(["systemctl", "restart", "--", unit], capture_output=True, text=True, timeout=8)
    if proc.returncode != 0:
        raise Failure("RESTART_FAILED", (proc.stderr.strip() or f"exit {proc.returncode}").splitlines()[0])
    state = subprocess.run(["systemctl", "show", "-p", "ActiveState", "--value", "--", unit], capture_output=True,
                           text=True, timeout=3).stdout.strip()
    return {"unit": unit, "active_state": state}
