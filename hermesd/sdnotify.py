"""systemd notify protocol: one datagram per message to ``$NOTIFY_SOCKET``.

The protocol (sd_notify(3)) is a newline-separated ``KEY=VALUE`` datagram on
an ``AF_UNIX``/``SOCK_DGRAM`` socket; a leading ``@`` in the path means the
abstract namespace. It is ten lines, so no library is pulled in for it
(python-systemd needs libsystemd headers to build; sdnotify adds nothing over
this). The watchdog follows sd_watchdog_enabled(3): ``WATCHDOG_USEC`` gives the
interval, ``WATCHDOG_PID`` (when set) must be our pid, and pings go out a little
more often than every half interval (0.45×), so timer jitter on a busy device
never stretches the gap past the recommended half.
"""

from __future__ import annotations

import logging
import os
import socket
import time

__all__ = ["Notifier", "WATCHDOG_FRACTION", "watchdog_interval_s"]

#: share of WATCHDOG_USEC between pings; sd_watchdog_enabled(3) recommends half.
WATCHDOG_FRACTION = 0.45

log = logging.getLogger(__name__)


class Notifier:
    """Sends sd_notify messages; silently does nothing when not under systemd.

    :param env: environment to read ``NOTIFY_SOCKET`` from (default ``os.environ``).
    """

    def __init__(self, env: dict[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        addr = env.get("NOTIFY_SOCKET", "")
        self.address: str | None = None
        self._sock: socket.socket | None = None
        if addr:
            self.address = "\0" + addr[1:] if addr.startswith("@") else addr
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.setblocking(False)

    @property
    def enabled(self) -> bool:
        return self._sock is not None

    def send(self, *fields: str) -> bool:
        """Send ``KEY=VALUE`` fields as one datagram; False when not sent (never raises)."""
        if self._sock is None or self.address is None:
            return False
        try:
            self._sock.sendto("\n".join(fields).encode("utf-8"), self.address)
            return True
        except OSError as exc:
            log.debug("notify.failed", extra={"kv": {"error": exc.strerror}})
            return False

    def ready(self, status: str) -> bool:
        return self.send("READY=1", f"STATUS={status}", f"MAINPID={os.getpid()}")

    def reloading(self) -> bool:
        # MONOTONIC_USEC lets Type=notify-reload (systemd ≥ 253) match the reload to this message
        return self.send("RELOADING=1", f"MONOTONIC_USEC={time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000}")

    def stopping(self, status: str = "stopping") -> bool:
        return self.send("STOPPING=1", f"STATUS={status}")

    def status(self, status: str) -> bool:
        return self.send(f"STATUS={status}")

    def watchdog(self) -> bool:
        return self.send("WATCHDOG=1")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def watchdog_interval_s(env: dict[str, str] | None = None) -> float | None:
    """Seconds between ``WATCHDOG=1`` pings (0.45 × ``WATCHDOG_USEC``), or None when off."""
    env = os.environ if env is None else env
    try:
        usec = int(env.get("WATCHDOG_USEC", "0"))
    except ValueError:
        return None
    if usec <= 0:
        return None
    pid = env.get("WATCHDOG_PID")
    if pid and pid != str(os.getpid()):
        return None
    return usec * WATCHDOG_FRACTION / 1e6
