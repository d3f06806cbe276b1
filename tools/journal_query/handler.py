"""journal_query: ``journalctl --output=json`` filtered by unit, priority, since/until; bounded count and bytes."""

import json
import shutil
import subprocess

MAX_MESSAGE_CHARS = 1000
MAX_TOTAL_CHARS = 200_000


class Failure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def handle(input: dict) -> dict:
    if shutil.which("journalctl") is None:
        raise Failure("JOURNAL_UNAVAILABLE", "journalctl is not installed")
    cmd = ["journalctl", "--no-pager", "--output=json", "-n", str(input["limit"]), "-p", input["priority"]]
    if input.get("unit"):
        cmd += ["-u", input["unit"]]
    for opt in ("since", "until"):
        if input.get(opt):
            cmd += [f"--{opt}={input[opt]}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3.5)
    if proc.returncode != 0:
        raise Failure("JOURNAL_UNAVAILABLE", (proc.stderr.strip() or "journalctl failed").splitlines()[0])
    entries, total, truncated = [], 0, False
    for line in proc.stdout.splitlines():
        try:
            e = json.loads(line)
        except ValueError:
            continue
        msg = e.get("MESSAGE", "")
        if not isinstance(msg, str):
            msg = "<binary>"
        if len(msg) > MAX_MESSAGE_CHARS:
            msg, truncated = msg[:MAX_MESSAGE_CHARS], True
        total += len(msg)
        if total > MAX_TOTAL_CHARS:
            truncated = True
            break
        entries.append({"time_us": int(e.get("__REALTIME_TIMESTAMP", 0)), "unit": e.get("_SYSTEMD_UNIT", ""),
                        "priority": int(e.get("PRIORITY", 6)), "message": msg})
    return {"entries": entries, "truncated": truncated}
