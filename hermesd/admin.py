"""``admin.*`` methods: ping, status, metrics, reload (admin role only)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from .protocol import CallContext, Method

if TYPE_CHECKING:
    from .daemon import Daemon
    from .server import Server

__all__ = ["AdminMethods"]

_ADMIN = frozenset({"admin"})


class AdminMethods:
    """Binds the daemon's introspection to JSON-RPC methods."""

    def __init__(self, daemon: "Daemon") -> None:
        self.daemon = daemon

    def register(self, server: "Server") -> None:
        server.add_method(Method("admin.ping", self.ping, _ADMIN))
        server.add_method(Method("admin.status", self.status, _ADMIN))
        server.add_method(Method("admin.metrics", self.metrics, _ADMIN))
        server.add_method(Method("admin.reload", self.reload, _ADMIN))

    @staticmethod
    def ping(params: Any, ctx: CallContext) -> dict[str, Any]:
        """``{"pong": true, "time": unix seconds}``; runs inline (no task) — the protocol floor."""
        return {"pong": True, "time": time.time()}

    def status(self, params: Any, ctx: CallContext) -> dict[str, Any]:
        """Version, pid, uptime, RSS bytes, connections, config digest, each subsystem's health."""
        return self.daemon.status()

    def metrics(self, params: Any, ctx: CallContext) -> dict[str, Any]:
        """``{"content_type": ..., "text": Prometheus exposition}``."""
        return {"content_type": "text/plain; version=0.0.4", "text": self.daemon.metrics_text()}

    async def reload(self, params: Any, ctx: CallContext) -> dict[str, Any]:
        """Same as SIGHUP: ``{"ok", "config", "problems"}``."""
        return await self.daemon.reload("admin.reload")
