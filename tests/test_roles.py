"""Who is calling: SO_PEERCRED → role → method permissions, with a real process of another uid."""

from __future__ import annotations

import os
import pwd
import socket

import orjson
import pytest

NOBODY = None
try:
    NOBODY = pwd.getpwnam("nobody")
except KeyError:
    pass

needs_root = pytest.mark.skipif(os.geteuid() != 0 or NOBODY is None,
                                reason="needs root (to setuid to nobody) and a 'nobody' user")


def _as_nobody(path: str, lines: list[bytes]) -> list[dict]:
    """Fork, drop to nobody, connect, send ``lines``, return the replies (until EOF or one per line)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(NOBODY.pw_gid)
            os.setuid(NOBODY.pw_uid)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(5)
            s.connect(path)
            try:
                for line in lines:
                    s.sendall(line)
            except (BrokenPipeError, ConnectionResetError):
                pass  # refused peers are told why and closed at once; read the reason below
            buf = b""
            while buf.count(b"\n") < max(1, len(lines)):
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
            os.write(w, buf)
        except BaseException as exc:  # report, never return into pytest
            os.write(w, orjson.dumps({"child_error": repr(exc)}) + b"\n")
        finally:
            os._exit(0)
    os.close(w)
    out = b""
    while chunk := os.read(r, 65536):
        out += chunk
    os.close(r)
    os.waitpid(pid, 0)
    return [orjson.loads(x) for x in out.splitlines() if x.strip()]


def _open_up(d) -> None:
    # let nobody reach the socket file so the daemon's own check is what decides
    os.chmod(d.root, 0o755)
    os.chmod(d.root.parent, 0o755)


@needs_root
def test_peer_without_a_role_is_refused(start_daemon):
    d = start_daemon({"server": {"socket_mode": "0666"}})
    _open_up(d)
    replies = _as_nobody(str(d.socket), [b'{"jsonrpc":"2.0","id":1,"method":"admin.ping"}\n'])
    assert "error" in replies[0], replies
    assert replies[0]["error"]["data"]["code"] == "PERMISSION_DENIED", replies
    assert f"uid {NOBODY.pw_uid}" in replies[0]["error"]["message"]
    assert "conn.refused" in d.log()
    assert d.call("admin.ping")["pong"]  # root (admin) still fine


@needs_root
def test_user_role_may_not_call_admin_methods(start_daemon):
    d = start_daemon({"server": {"socket_mode": "0666"}, "roles": {"user": {"uids": [NOBODY.pw_uid]}}})
    _open_up(d)
    replies = _as_nobody(str(d.socket), [b'{"jsonrpc":"2.0","id":1,"method":"admin.status"}\n',
                                         b'{"jsonrpc":"2.0","id":2,"method":"no.such"}\n'])
    assert replies[0]["id"] == 1 and replies[0]["error"]["data"]["code"] == "PERMISSION_DENIED"
    assert replies[0]["error"]["data"]["role"] == "user"
    assert replies[1]["error"]["data"]["code"] == "INVALID_REQUEST"  # connection stayed open


@needs_root
def test_group_membership_grants_the_user_role(start_daemon):
    d = start_daemon({"server": {"socket_mode": "0666"}, "roles": {"user": {"groups": [NOBODY.pw_gid]}}})
    _open_up(d)
    replies = _as_nobody(str(d.socket), [b'{"jsonrpc":"2.0","id":1,"method":"admin.ping"}\n'])
    assert replies[0]["error"]["data"]["code"] == "PERMISSION_DENIED"
    assert replies[0]["error"]["data"].get("role") == "user"


def test_own_uid_is_admin(daemon):
    assert daemon.call("admin.status")["status"] == "ok"
