"""The hostile tool's attacks against a real ToolsService, shared by the root and the unprivileged runs.

Imported by ``test_least_privilege.py`` (a root daemon: this test process) and run as a script
by it under another uid (``python tests/tools/hostile.py STATE_DIR`` prints one JSON object),
so both daemons face the same list. The state folder is laid out like a daemon's: L2, an
upstream token, an archive volume, another caller's data; the "daemon" whose pid the tool
attacks is the process running the service.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: the other caller, whose data the attacker (uid 1000) must not reach
OTHER_UID = 1001


def lay_out_state(state: Path) -> None:
    """Files a daemon keeps in its state folder, each 0600 as the daemon writes them."""
    (state / "archive").mkdir(parents=True, exist_ok=True)
    for rel, text in (("l2.sqlite3", "SQLite format 3\0 turn log: token=s3cret"),
                      ("upstream.token", "upstream-bearer-token"), ("archive/1.zst", "archived turns")):
        path = state / rel
        path.write_text(text)
        path.chmod(0o600)


def attacks(state: Path, daemon_pid: int, socket_path: str | None = None) -> list[tuple[str, dict]]:
    out = [
        ("read L2", {"attack": "read", "path": str(state / "l2.sqlite3")}),
        ("read the upstream token", {"attack": "read", "path": str(state / "upstream.token")}),
        ("read the archive", {"attack": "read", "path": str(state / "archive" / "1.zst")}),
        ("read /etc/shadow", {"attack": "read", "path": "/etc/shadow"}),
        ("read another caller's data",
         {"attack": "read", "path": str(state / "tools" / "hostile" / "users" / str(OTHER_UID) / "secret.txt")}),
        ("list the state folder", {"attack": "listdir", "path": str(state)}),
        ("write into the state folder", {"attack": "write", "path": str(state / "planted.txt")}),
        ("overwrite L2", {"attack": "write", "path": str(state / "l2.sqlite3")}),
        ("chmod L2", {"attack": "chmod", "path": str(state / "l2.sqlite3")}),
        ("run a setuid binary", {"attack": "setuid"}),
        ("ptrace the daemon", {"attack": "ptrace", "pid": daemon_pid}),
        ("signal the daemon", {"attack": "signal", "pid": daemon_pid}),
        ("open a raw socket", {"attack": "raw_socket"}),
        ("fork bomb", {"attack": "fork_bomb"}),
    ]
    if socket_path:
        out.append(("talk to the daemon's socket", {"attack": "connect_unix", "path": socket_path}))
    return out


async def run(state: Path, tools_dir: Path, **settings) -> dict:
    """Start a service on ``tools_dir``, run every attack as uid 1000, each followed by a harmless call."""
    from hermesd.errors import HermesError
    from hermesd.subsystems.subsystem import DaemonContext
    from hermesd.subsystems.tools import ToolsService
    from hermesd.tools.settings import ToolsSettings

    lay_out_state(state)
    svc = ToolsService(ToolsSettings(tools_dir=tools_dir, pool_size=2, network_pool_size=0, **settings))
    await svc.start(DaemonContext(config=None, state_dir=state, subsystems={}))
    await svc.settled()  # every tool's self-test verdict, as before READY used to wait for it
    try:
        theirs = await svc.call("hostile", {"attack": "write_own", "text": "their secret"}, role="user",
                                uid=OTHER_UID)
        mine = await svc.call("hostile", {"attack": "write_own", "text": "mine"}, role="user", uid=1000)
        read_back = await svc.call("hostile", {"attack": "read_own"}, role="user", uid=1000)
        temp = await svc.call("hostile", {"attack": "temp"}, role="user", uid=1000)
        results: dict[str, dict] = {}
        for name, args in attacks(state, os.getpid()):
            try:
                res = await svc.call("hostile", args, role="user", uid=1000)
                entry = {"ok": res["ok"], "code": None if res["ok"] else res["error"]["code"],
                         "message": None if res["ok"] else res["error"]["message"], "output": res.get("output")}
            except HermesError as exc:
                entry = {"ok": False, "code": exc.code, "message": exc.message, "output": None}
            after = await svc.call("hostile", {"attack": "none"}, role="user", uid=1000)
            entry["after_ok"] = bool(after["ok"])
            entry["server_pid"] = svc.pool.server_pid
            results[name] = entry
        await svc.pool.wait_full_strength(5.0)
        return {"results": results, "sandbox": svc.health()["sandbox"], "health": svc.health()["status"],
                "own": [theirs["ok"], mine["ok"], read_back.get("output", {}).get("text")],
                "temp": temp.get("output"), "daemon_uid": os.getuid(),
                "planted": (state / "planted.txt").exists(), "l2_mode": oct((state / "l2.sqlite3").stat().st_mode),
                }
    finally:
        await svc.stop()


def hostile_tools_dir(root: Path) -> Path:
    """A tools folder holding only the hostile fixture (a symlink to it)."""
    folder = root / "hostile-tools"
    folder.mkdir(exist_ok=True)
    link = folder / "hostile"
    if not link.exists():
        link.symlink_to(FIXTURES / "hostile")
    return folder


if __name__ == "__main__":
    state_dir = Path(sys.argv[1])
    tools = hostile_tools_dir(state_dir.parent)
    extra = {"filesystem_isolation": sys.argv[2]} if len(sys.argv) > 2 else {}
    print(json.dumps(asyncio.run(run(state_dir, tools, **extra))))
