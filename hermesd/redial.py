"""Reconnecting a long-running ``hermesctl`` command (``chat``, ``events``) whose daemon went away.

A restart (an upgrade, ``systemctl restart``, a crash and systemd's ``Restart=``) closes every
connection; the person at ``hermesctl chat`` should read one sentence and go on talking once the
socket is back, never a ``Broken pipe``. :func:`delays` is the pure backoff schedule (doubling from
``first_s`` to ``cap_s``, the waits summing to at most ``budget_s``: bounded, so a daemon that stays
down ends the command with a clear final message); :func:`redial` is the thin shell that sleeps and
connects. Imports only the standard library and the client.
"""

from __future__ import annotations

import time
from typing import Callable, Iterator

from .client import Client

__all__ = ["GONE", "RECONNECT_BUDGET_S", "delays", "gone_text", "redial"]

#: what a connection the daemon dropped raises (BrokenPipeError, ConnectionResetError and
#: DaemonNotRunning are ConnectionErrors)
GONE: tuple[type[BaseException], ...] = (ConnectionError,)
#: how long a command waits for the daemon to come back, seconds: longer than a restart that retrains
#: the intent packs on a loaded 2-core device (tens of seconds), short enough that a daemon that
#: stays down is told as such
RECONNECT_BUDGET_S = 120.0


def delays(first_s: float = 0.1, cap_s: float = 2.0, budget_s: float = RECONNECT_BUDGET_S) -> Iterator[float]:
    """The waits before each reconnect attempt, seconds: ``first_s``, doubling up to ``cap_s``,
    while their sum stays within ``budget_s`` (the last one shortened to meet it exactly).

    >>> list(delays(0.1, 0.4, 1.5))
    [0.1, 0.2, 0.4, 0.4, 0.4]
    """
    spent, d = 0.0, first_s
    while spent < budget_s - 1e-9:
        step = min(d, budget_s - spent)
        yield round(step, 6)
        spent += step
        d = min(d * 2, cap_s)


def gone_text(zh: bool) -> str:
    """The one sentence said when the daemon went away."""
    return "hermesd 断开了，正在重新连接…" if zh else "hermesd went away; reconnecting…"


def redial(client: Client, *, budget_s: float = RECONNECT_BUDGET_S,
           sleep: Callable[[float], None] = time.sleep) -> bool:
    """Connect ``client`` again, waiting by :func:`delays` between attempts.

    :return: True once connected, False when ``budget_s`` passed with no daemon at the socket.
    """
    client.close()
    for d in delays(budget_s=budget_s):
        sleep(d)
        try:
            client.connect()
            return True
        except GONE:
            continue
    return False
