"""``admin.*`` methods (ping, status, metrics, reload) and the opt-in ``debug.*`` ones; admin role only."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from typing import TYPE_CHECKING, Any, Protocol

from ..metrics import CONTENT_TYPE
from ..protocol import CallContext, Method
from ..typed import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from ..server import Server

__all__ = ["AdminMethods", "DebugMethods", "Introspectable"]

log = logging.getLogger(__name__)

_ADMIN = frozenset({"admin"})


class Introspectable(Protocol):
    """What ``admin.*`` needs of the daemon (``hermesd.daemon.Daemon`` implements it)."""

    def status(self) -> dict[str, Any]:
        """Version, pid, uptime, RSS bytes, connections, config digest, subsystem health."""

    def memory_roots(self) -> dict[str, list[Any]]:
        """Part name → the objects that hold its memory, every subsystem's in start order."""

    def metrics_text(self) -> str:
        """The Prometheus text exposition of every registered family."""

    async def reload(self, reason: str) -> dict[str, Any]:
        """Re-read config and packs (SIGHUP's path): ``{"ok", "config", "problems"}``."""


class AdminMethods:
    """Binds the daemon's introspection to JSON-RPC methods."""

    def __init__(self, daemon: Introspectable) -> None:
        self.daemon = daemon

    def register(self, server: "Server") -> None:
        server.add_method(Method("admin.ping", self.ping, _ADMIN))
        server.add_method(Method("admin.status", self.status, _ADMIN))
        server.add_method(Method("admin.metrics", self.metrics, _ADMIN))
        server.add_method(Method("admin.reload", self.reload, _ADMIN))
        server.add_method(Method("admin.memory", self.memory, _ADMIN))

    @staticmethod
    def ping(params: Any, ctx: CallContext) -> dict[str, Any]:
        """``{"pong": true, "time": unix seconds}``; runs inline (no task) — the protocol floor."""
        return {"pong": True, "time": time.time()}

    def status(self, params: Any, ctx: CallContext) -> dict[str, Any]:
        """Version, pid, uptime, RSS bytes, connections, config digest, each subsystem's health."""
        return self.daemon.status()

    async def memory(self, params: Any, ctx: CallContext) -> dict[str, Any]:
        """Where the resident memory goes (:func:`.footprint.report`): mappings (interpreter,
        libraries, heap) and the heap by part. Walks the parts' objects: tens of ms on the loop."""
        from .footprint import report

        return report(self.daemon.memory_roots())

    def metrics(self, params: Any, ctx: CallContext) -> dict[str, Any]:
        """``{"content_type": ..., "text": Prometheus exposition}``."""
        return {"content_type": CONTENT_TYPE, "text": self.daemon.metrics_text()}

    async def reload(self, params: Any, ctx: CallContext) -> dict[str, Any]:
        """Same as SIGHUP: ``{"ok", "config", "problems"}``."""
        return await self.daemon.reload("admin.reload")


class EchoParams(BaseModel):
    """``debug.echo`` params: what to send back, after how long."""

    model_config = ConfigDict(extra="allow")
    text: str = Field("", max_length=65536)
    delay_ms: int = Field(0, ge=0, le=60_000)


class BlockParams(BaseModel):
    """``debug.block`` params: how long to block the event loop."""

    model_config = ConfigDict(extra="forbid")
    ms: int = Field(ge=0, le=30_000)


class DebugMethods:
    """Diagnostic methods, registered only when ``server.debug_methods`` is true (admin only).

    ``debug.echo`` returns its params after ``delay_ms`` (a slow request on demand);
    ``debug.block`` blocks the event loop for ``ms`` — what a stuck handler would
    do — so a technician can watch systemd's watchdog fire.
    """

    def register(self, server: "Server") -> None:
        server.add_method(Method("debug.echo", self.echo, _ADMIN, EchoParams))
        server.add_method(Method("debug.block", self.block, _ADMIN, BlockParams))

    @staticmethod
    async def echo(params: EchoParams, ctx: CallContext) -> dict[str, Any]:
        """``{"text", "extra", "pid"}`` after ``delay_ms``; extra params are logged (secrets redacted)."""
        extra = dict(params.model_extra or {})
        log.info("debug.echo", extra={"kv": {"chars": len(params.text), "delay_ms": params.delay_ms, "params": extra}})
        if params.delay_ms:
            await asyncio.sleep(params.delay_ms / 1000)
        return {"text": params.text, "extra": extra, "pid": os.getpid()}

    @staticmethod
    def block(params: BlockParams, ctx: CallContext) -> dict[str, Any]:
        """Block the loop for ``ms`` milliseconds (runs inline on purpose)."""
        log.warning("debug.block", extra={"kv": {"ms": params.ms}})
        time.sleep(params.ms / 1000)
        return {"blocked_ms": params.ms}
