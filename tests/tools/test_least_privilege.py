"""Tools get least privilege (issue 12 §1): a hostile tool is refused everything, the pool serves on.

The hostile fixture (``fixtures/hostile``) tries each attack of :mod:`tests.tools.hostile`; every
one must end with the tool's own ``REFUSED`` error, and a harmless call right after must work.
Run under a root daemon (this process, when the suite runs as root) and under an
unprivileged daemon (the same runner as ``nobody``: there the workers share the daemon's uid,
so Landlock and seccomp are all that keep the daemon's files out of reach).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from hermesd.tools import sandbox
from hermesd.tools.descriptor import DescriptorError, load_descriptor

from . import hostile
from .conftest import FIXTURES, PACK, start_service

NOBODY = 65534
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="needs a root daemon (the suite runs as root here)")
LANDLOCK = pytest.mark.skipif(sandbox.landlock_abi() < 1, reason="the kernel has no Landlock")


def _check(report: dict, *, fork_limit: int, skeleton: bool = False) -> None:
    results = report["results"]
    assert set(results) == {name for name, _ in hostile.attacks(Path("/x"), 1)}
    if skeleton:  # a private root shows the state folder as the mount points on the way to the caller's
        listing = results.pop("list the state folder")
        assert listing["code"] == "REFUSED" or listing["output"]["leaked"] == ["tools"], listing
    leaked = {name: r for name, r in results.items() if r["code"] != "REFUSED"}
    assert leaked == {}, json.dumps(leaked, indent=1)
    assert all(r["after_ok"] for r in results.values()), "a harmless call failed after an attack"
    assert len({r["server_pid"] for r in results.values()}) == 1, "the fork server was replaced"
    assert report["health"] == "ok"
    fork = results["fork bomb"]["message"]
    assert "EAGAIN" in fork and int(fork.split("#")[1].split(":")[0]) <= fork_limit, fork
    assert "euid 0" not in results["run a setuid binary"]["message"]
    assert report["own"] == [True, True, "mine"]  # its caller's folder is read-write
    assert report["temp"]["private"].startswith("/tmp/hermesd-sandbox-")
    assert report["temp"]["shared_tmp"].rsplit(": ", 1)[1] in ("EACCES", "EROFS")  # the shared /tmp is not its
    assert not report["planted"] and report["l2_mode"] == "0o100600"


@ROOT_ONLY
@LANDLOCK
async def test_hostile_tool_under_a_root_daemon(state_dir, tmp_path):
    report = await hostile.run(state_dir, hostile.hostile_tools_dir(tmp_path))
    sb = report["sandbox"]
    assert sb["filesystem_isolation"] == "landlock" and sb["landlock_abi"] >= 1
    assert sb["capabilities"] == "none" and sb["bounding_set"] == "dropped" and sb["no_new_privs"]
    assert sb["securebits"] == sandbox.SECUREBITS_LOCKED
    assert sb["worker_uid"] not in (0, NOBODY) and sb["identity"] in ("dedicated", "fallback")
    # max_processes 16 plus the pool's other processes under the worker uid
    _check(report, fork_limit=16 + 4 * 2 + 4 + 1)


@pytest.mark.parametrize("isolation", [pytest.param("auto", marks=LANDLOCK), "mountns"])
def test_hostile_tool_under_an_unprivileged_daemon(isolation):
    """The daemon runs as nobody: it cannot setuid, its workers keep its uid (said in the status).
    With ``mountns`` (no Landlock) a seccomp filter keeps them from signalling the daemon."""
    root = Path(tempfile.mkdtemp(prefix="hermesd-unpriv-", dir="/tmp"))
    root.chmod(0o755)
    state = root / "state"
    state.mkdir(mode=0o755)
    if os.geteuid() == 0:
        os.chown(root, NOBODY, NOBODY)
        os.chown(state, NOBODY, NOBODY)
        # the venv's interpreter may live under a folder nobody cannot enter (pyenv in /root): show
        # it through a private mount namespace, then become nobody for good before the daemon starts
        wrapper = (
            "import os, sys; from hermesd.tools import sandbox as s;"
            "s.unveil_paths(s.unreachable_roots([p for p, k in s.system_rules() if k == 'rx'], 65534, {65534}));"
            "os.setgroups([]); os.setresgid(65534, 65534, 65534); os.setresuid(65534, 65534, 65534);"
            "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])")
        cmd = [sys.executable, "-c", wrapper, hostile.__file__, str(state), isolation]
    else:
        cmd = [sys.executable, hostile.__file__, str(state), isolation]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=180, cwd="/")
        assert p.returncode == 0, p.stderr[-3000:]
        report = json.loads(p.stdout)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    sb = report["sandbox"]
    assert report["daemon_uid"] != 0 and sb["identity"] == "daemon" and sb["worker_uid"] == report["daemon_uid"]
    if isolation == "mountns" and sb["filesystem_isolation"] == "none":
        pytest.skip(f"no private mount namespace for an unprivileged daemon here: {sb['isolation_reason']}")
    assert "not root" in sb["user_warning"]
    assert sb["filesystem_isolation"] == ("landlock" if isolation == "auto" else "mountns")
    assert sb["capabilities"] == "none" and sb["no_new_privs"]
    limit = 16 + 1 if sb["nproc_scope"].startswith("worker") else 4096
    _check(report, fork_limit=limit, skeleton=isolation == "mountns")


@ROOT_ONLY
async def test_hostile_tool_in_a_private_mount_namespace(state_dir, tmp_path):
    """The fallback where Landlock is missing: a pivot_root into bind mounts of the allowed paths."""
    report = await hostile.run(state_dir, hostile.hostile_tools_dir(tmp_path), filesystem_isolation="mountns")
    assert report["sandbox"]["filesystem_isolation"] == "mountns"
    _check(report, fork_limit=16 + 4 * 2 + 4 + 1, skeleton=True)


async def test_no_isolation_is_said_at_start_and_in_the_status(state_dir, tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="hermesd")
    svc = await start_service(hostile.hostile_tools_dir(tmp_path), state_dir, filesystem_isolation="none")
    try:
        assert svc.health()["filesystem_isolation"] == "none"
        assert svc.health()["sandbox"]["filesystem_isolation"] == "none"
        assert any("filesystem isolation: none" in r.getMessage() for r in caplog.records)
        grants = {t["name"]: t["_meta"]["hermesd/grants"] for t in svc.describe()}
        assert "fs: no filesystem isolation on this machine" in grants["hostile"]["not_enforced"]
        assert (await svc.call("hostile", {"attack": "none"}, role="user"))["ok"]
    finally:
        await svc.stop()


@LANDLOCK
async def test_landlock_rules_as_probed(pack_service):
    sb = pack_service.health()["sandbox"]
    abi = sandbox.landlock_abi()
    assert sb["landlock_abi"] == abi and sb["filesystem_isolation"] == "landlock"
    assert sb["network_rules"] == ("landlock" if abi >= 4 else "not enforced")
    assert sb["landlock_scopes"] == (["abstract_unix_socket", "signal"] if abi >= 6 else [])


async def test_shipped_tools_declare_their_grants(pack_service):
    grants = {t["name"]: t["_meta"]["hermesd/grants"] for t in pack_service.describe()}
    assert grants["send_document"]["fs"] == {"read": ["{documents}"], "write": ["{outbox}"]}
    assert grants["find_document"]["fs"] == {"read": ["{documents}"], "write": []}
    assert grants["export_report"]["fs"] == {"read": [], "write": ["{outbox}/reports"]}
    assert grants["contacts"]["fs"]["read"] == ["{directory_file}"]
    assert grants["journal_query"]["groups"] == ["systemd-journal"]
    assert grants["network_check"]["network"]["connect"] == ["*:53"]
    assert grants["note"]["data"].startswith("{state}/tools/note/users/")
    assert grants["disk_usage"] == {**grants["disk_usage"], "fs": {"read": [], "write": []}, "groups": [],
                                    "network": {"connect": []}, "data": None, "network_class": "isolated"}
    for name in ("system_status", "disk_usage", "service_status", "service_restart", "order_status"):
        assert not grants[name]["fs"]["write"], name  # none of them writes anything


@pytest.mark.parametrize("grants,message", [
    ({"fs": {"read": ["/etc/shadow"]}}, "never granted"),
    ({"fs": {"read": ["/"]}}, "never granted"),
    ({"fs": {"write": ["/usr/local/lib"]}}, "never writable"),
    ({"fs": {"read": ["relative/path"]}}, "absolute path or a placeholder"),
    ({"fs": {"read": ["/var/../etc/shadow"]}}, "no . or .."),
    ({"fs": {"read": ["{state}"]}}, "{state} alone"),
    ({"fs": {"write": ["{state}/tools/note"]}}, "{state}/tools"),
    ({"fs": {"read": ["{nowhere}/x"]}}, "unknown placeholder"),
    ({"fs": {"read": ["{documents}"]}}, "needs: [documents_dir]"),
    ({"fs": {"write": ["{tool_data}/x"]}}, "state: true"),
    ({"groups": ["shadow"]}, "never granted"),
    ({"network": {"connect": ["127.0.0.1:99999"]}}, "HOST:PORT"),
    ({"network": {"connect": ["127.0.0.1:8080"]}}, "sandbox.network: true"),
])
def test_grants_are_validated_at_load(tmp_path, grants, message):
    folder = tmp_path / "t"
    folder.mkdir()
    import yaml

    (folder / "tool.yaml").write_text(yaml.safe_dump({"name": "t", "description": "x", "grants": grants}))
    (folder / "handler.py").write_text("def handle(i):\n    return {}\n")
    (folder / "test_cases.json").write_text('[{"name": "a", "input": {}, "expect": {"keys": []}}]')
    with pytest.raises(DescriptorError) as info:
        load_descriptor(folder)
    assert message in str(info.value)


def test_needs_without_a_grant_is_a_load_error(tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "tool.yaml").write_text("name: t\ndescription: x\nneeds: [outbox_dir]\n")
    (folder / "handler.py").write_text("def handle(i):\n    return {}\n")
    (folder / "test_cases.json").write_text('[{"name": "a", "input": {}, "expect": {"keys": []}}]')
    with pytest.raises(DescriptorError, match="without a grant on {outbox}"):
        load_descriptor(folder)


@ROOT_ONLY
async def test_a_grant_covering_the_state_folder_makes_the_tool_unhealthy(tmp_path):
    state = Path(tempfile.mkdtemp(prefix="hermesd-tools-", dir="/tmp"))
    state.chmod(0o755)
    tools = tmp_path / "tools"
    shutil.copytree(FIXTURES / "echo", tools / "echo")
    text = (tools / "echo" / "tool.yaml").read_text()
    (tools / "echo" / "tool.yaml").write_text(text + f"\ngrants: {{fs: {{read: [{state.parent}]}}}}\n")
    svc = await start_service(tools, state)
    try:
        tool = svc.health()["tools"]["echo"]
        assert tool["health"] == "unhealthy" and "covers the state folder" in tool["failing_case"]
    finally:
        await svc.stop()
        shutil.rmtree(state, ignore_errors=True)


@ROOT_ONLY
async def test_daemon_umask_077_still_gives_workers_their_interpreter_and_folders(state_dir):
    old = os.umask(0o077)  # the daemon's (systemd UMask=0077)
    try:
        svc = await start_service(PACK, state_dir)
    finally:
        os.umask(old)
    try:
        bad = {n: t["failing_case"] for n, t in svc.health()["tools"].items() if t["health"] != "healthy"}
        assert bad == {}
        res = await svc.call("note", {"action": "remember", "key": "k", "text": "v"}, role="user", uid=1000)
        assert res["ok"]
    finally:
        await svc.stop()


@ROOT_ONLY
@LANDLOCK
def test_hostile_tool_in_a_real_daemon(start_daemon, tmp_path):
    """A real daemon (root): its L2, config and socket. The worker's uid is even given the admin
    role: the server still refuses a connection from below the tool fork server, as it must when a
    daemon that is not root shares its uid with its workers."""
    import pwd

    uids = list(range(65520, 65534))
    try:
        uids.append(pwd.getpwnam("hermesd-tool").pw_uid)
    except KeyError:
        pass
    d = start_daemon({"server": {"socket_mode": "0666"}, "roles": {"admin": {"uids": [0, *uids]}},
                      "tools": {"tools_dir": str(hostile.hostile_tools_dir(tmp_path))}})
    with d.client() as c:
        status = c.call("admin.status")
        daemon_pid = status["pid"]
        assert status["subsystems"]["tools"]["filesystem_isolation"] == "landlock"

        def attack(args):
            res = c.call("tools.call", {"name": "hostile", "arguments": args})
            assert res["isError"], res
            return res["structuredContent"]["error"]

        for args in ({"attack": "read", "path": str(d.state_dir / "l2.sqlite3")},
                     {"attack": "read", "path": str(d.config_path)},
                     {"attack": "listdir", "path": str(d.state_dir)},
                     {"attack": "ptrace", "pid": daemon_pid}, {"attack": "signal", "pid": daemon_pid}):
            assert attack(args)["code"] == "REFUSED", args
        refused = attack({"attack": "connect_unix", "path": str(d.socket)})
        assert refused["code"] == "REFUSED" and "a tool's process may not call hermesd" in refused["message"]
        assert not c.call("tools.call", {"name": "hostile", "arguments": {"attack": "none"}})["isError"]
        assert c.call("admin.status")["pid"] == daemon_pid


async def test_tool_processes_are_told_from_the_daemons(fixture_service):
    svc = fixture_service
    assert sandbox.tool_process(os.getpid()) is False
    assert all(sandbox.tool_process(pid) for pid in svc.pool.worker_pids())
    assert sandbox.tool_process(2 ** 22 + 12345) is None  # no such process: cannot be told


@ROOT_ONLY
async def test_a_group_grant_is_the_workers_only_group(state_dir, tmp_path):
    import grp

    try:
        gid = grp.getgrnam("systemd-journal").gr_gid
    except KeyError:
        pytest.skip("no systemd-journal group here")
    tools = tmp_path / "tools"
    shutil.copytree(FIXTURES / "envdump", tools / "envdump")
    with open(tools / "envdump" / "tool.yaml", "a") as fh:
        fh.write("grants: {groups: [systemd-journal]}\n")
    shutil.copytree(FIXTURES / "echo", tools / "echo")
    svc = await start_service(tools, state_dir)
    try:
        out = (await svc.call("envdump", {"mode": "run"}, role="user"))["output"]
        assert out["groups"] == [gid] and out["caps"]["CapEff"] == 0 and out["caps"]["CapBnd"] == 0
        # a tool without the grant has no supplementary group at all
        assert (await svc.call("echo", {"mode": "run"}, role="user"))["ok"]
    finally:
        await svc.stop()


@ROOT_ONLY
async def test_a_state_folder_behind_a_closed_folder_is_a_warning(tmp_path, caplog):
    """pytest's tmp_path is under a 0700 folder: a root daemon's workers cannot pass it."""
    caplog.set_level(logging.WARNING, logger="hermesd")
    state = tmp_path / "state"
    state.mkdir()
    svc = await start_service(PACK, state, self_test=False)
    try:
        assert any("cannot reach the state folder" in r.getMessage() for r in caplog.records)
    finally:
        await svc.stop()


async def test_a_sandbox_that_cannot_be_entered_ends_the_call_unavailable(fixture_service):
    import asyncio

    from hermesd.errors import HermesError

    pool = fixture_service.pool
    limits = fixture_service.registry.get("echo").limits
    with pytest.raises(HermesError) as info:
        await pool.run("no_such_tool", {}, limits, network=False, deadline=asyncio.get_running_loop().time() + 2)
    assert info.value.code == "TOOL_UNAVAILABLE" and "sandbox could not be set up" in info.value.message
    await pool.wait_full_strength(2.0)
    assert (await fixture_service.call("echo", {"mode": "run"}, role="user"))["ok"]
