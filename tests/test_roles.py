"""Who is calling: SO_PEERCRED → role → method permissions, with a real process of another uid."""

from __future__ import annotations

import os

import pytest

from hermesd_testing import NOBODY, as_nobody


needs_root = pytest.mark.skipif(os.geteuid() != 0 or NOBODY is None,
                                reason="needs root (to setuid to nobody) and a 'nobody' user")


def _open_up(d) -> None:
    # let nobody reach the socket file so the daemon's own check is what decides
    os.chmod(d.root, 0o755)
    os.chmod(d.root.parent, 0o755)


@needs_root
def test_peer_without_a_role_is_refused(start_daemon):
    d = start_daemon({"server": {"socket_mode": "0666"}})
    _open_up(d)
    replies = as_nobody(str(d.socket), [b'{"jsonrpc":"2.0","id":1,"method":"admin.ping"}\n'])
    assert "error" in replies[0], replies
    assert replies[0]["error"]["data"]["code"] == "PERMISSION_DENIED", replies
    assert f"uid {NOBODY.pw_uid}" in replies[0]["error"]["message"]
    assert "conn.refused" in d.log()
    assert d.call("admin.ping")["pong"]  # root (admin) still fine


@needs_root
def test_user_role_may_not_call_admin_methods(start_daemon):
    d = start_daemon({"server": {"socket_mode": "0666"}, "roles": {"user": {"uids": [NOBODY.pw_uid]}}})
    _open_up(d)
    replies = as_nobody(str(d.socket), [b'{"jsonrpc":"2.0","id":1,"method":"admin.status"}\n',
                                         b'{"jsonrpc":"2.0","id":2,"method":"no.such"}\n'])
    assert replies[0]["id"] == 1 and replies[0]["error"]["data"]["code"] == "PERMISSION_DENIED"
    assert replies[0]["error"]["data"]["role"] == "user"
    assert replies[1]["error"]["data"]["code"] == "INVALID_REQUEST"  # connection stayed open


@needs_root
def test_group_membership_grants_the_user_role(start_daemon):
    d = start_daemon({"server": {"socket_mode": "0666"}, "roles": {"user": {"groups": [NOBODY.pw_gid]}}})
    _open_up(d)
    replies = as_nobody(str(d.socket), [b'{"jsonrpc":"2.0","id":1,"method":"admin.ping"}\n'])
    assert replies[0]["error"]["data"]["code"] == "PERMISSION_DENIED"
    assert replies[0]["error"]["data"].get("role") == "user"


def test_own_uid_is_admin(daemon):
    daemon.wait_settled()
    assert daemon.call("admin.status")["status"] == "ok"
