"""service_status: ``systemctl show`` properties of one unit (read-only)."""

import shutil
import subprocess

PROPS = "Id,LoadState,ActiveState,SubState,Description,ActiveEnterTimestamp,MainPID"


class Failure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def handle(input: dict) -> dict:
    unit = input["unit"]
    if shutil.which("systemctl") is None:
        raise Failure("SYSTEMD_UNAVAILABLE", "systemctl is not installed")
    proc = subprocess.run(["systemctl", "show", "--no-pager", "-p", PROPS, "--", unit],
                          capture_output=True, text=True, timeout=2.5)
    if proc.returncode != 0:
        raise Failure("SYSTEMD_UNAVAILABLE", (proc.stderr.strip() or "systemctl failed").splitlines()[0])
    props = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    return {"unit": props.get("Id") or unit, "load_state": props.get("LoadState", ""),
            "active_state": props.get("ActiveState", ""), "sub_state": props.get("SubState", ""),
            "description": props.get("Description", ""), "since": props.get("ActiveEnterTimestamp", ""),
            "main_pid": int(props.get("MainPID") or 0)}
