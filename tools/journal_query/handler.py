"""journal_query: ``journalctl --output=json`` filtered by unit, priority, since/until; bounded count and bytes.

``since``/``until`` arrive as ISO 8601 (the rules pass ``entities.when.start``, e.g.
``2026-11-30T14:00:00+08:00``) or in journalctl's own words (``yesterday``, ``-2h``). journalctl
before systemd 255 rejects the ``T`` separator and a ``+08:00`` suffix (systemd.time(7); both came
with v255), so an ISO 8601 instant is rewritten to ``YYYY-MM-DD HH:MM:SS UTC`` (a zone after a space,
which v252 accepts) and a naive one to ``YYYY-MM-DD HH:MM:SS`` in the journal's local time. Anything
else goes to journalctl unchanged.

No entry found is an answer ("no errors since …") only when the journal can be read at all: with no
journal files (a container without journald, a volatile journal not yet written) or no permission to
read them, journalctl prints nothing and exits 0 — the same as a quiet system. So an empty result is
checked once more with the newest entry of the whole journal (``-n 1``, no filter); when there is
none, the call fails with ``JOURNAL_UNAVAILABLE`` instead of reporting a quiet system.
"""

import json
import shutil
import subprocess
from datetime import datetime, timezone

MAX_MESSAGE_CHARS = 1000
MAX_TOTAL_CHARS = 200_000


class Failure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def journal_time(value: str) -> str:
    """``value`` in a form journalctl of systemd 252 and newer parses (see the module docstring)."""
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        return value  # relative ("yesterday", "-2h", "1h ago") or already journalctl's syntax
    if t.tzinfo is None:
        return t.strftime("%Y-%m-%d %H:%M:%S")
    return t.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def handle(input: dict) -> dict:
    if shutil.which("journalctl") is None:
        raise Failure("JOURNAL_UNAVAILABLE", "journalctl is not installed")
    cmd = ["journalctl", "--no-pager", "--output=json", "-n", str(input["limit"]), "-p", input["priority"]]
    if input.get("unit"):
        cmd += ["-u", input["unit"]]
    for opt in ("since", "until"):
        if input.get(opt):
            cmd += [f"--{opt}={journal_time(input[opt])}"]
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
    if not entries and not _readable():
        raise Failure("JOURNAL_UNAVAILABLE", "no journal entry can be read (no journal files, or no permission)")
    return {"entries": entries, "truncated": truncated}


def _readable() -> bool:
    """The journal holds at least one entry this process may read (see the module docstring)."""
    proc = subprocess.run(["journalctl", "--no-pager", "--output=json", "-n", "1"],
                          capture_output=True, text=True, timeout=2.0)
    return proc.returncode == 0 and bool(proc.stdout.strip())
