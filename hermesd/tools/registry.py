"""The tool registry: descriptors loaded from a folder, their validators, breakers and health.

A tool is routed to only when ``health == "healthy"``: its descriptor loaded,
its handler imported in the fork server, and every case of its
``test_cases.json`` passed in the sandbox (the self-test gate, run by the
service on start and reload). Until its cases have run it is ``starting`` (a
call waits for the verdict, within the tool's own timeout); a tool that failed
is ``unhealthy`` with the reason in ``failing_case``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .breaker import Breaker
from .descriptor import Descriptor, DescriptorError, TestCase, load_descriptor
from .schema import Validator
from .settings import BreakerSettings

__all__ = ["Registry", "Tool"]

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Tool:
    """A loaded tool: descriptor, test cases, compiled validators, breaker, health."""

    descriptor: Descriptor
    cases: list[TestCase]
    input_validator: Validator
    output_validator: Validator
    breaker: Breaker
    health: Literal["starting", "healthy", "unhealthy"] = "starting"
    failing_case: str | None = None
    limits: dict[str, int] = field(default_factory=dict)  # the worker's per-call limits, built once
    calls: int = 0
    failures: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.descriptor.name


class Registry:
    """Tools by name, plus folders that failed to load (name → problems)."""

    def __init__(self, tools: dict[str, Tool], broken: dict[str, list[str]], folder: Path) -> None:
        self.tools = tools
        self.broken = broken
        self.folder = folder

    @classmethod
    def load(cls, folder: Path, breaker: BreakerSettings) -> "Registry":
        """Load every ``folder/*/tool.yaml``; a bad folder is logged and kept in ``broken``, never fatal."""
        tools: dict[str, Tool] = {}
        broken: dict[str, list[str]] = {}
        for sub in sorted(p for p in folder.iterdir() if p.is_dir() and (p / "tool.yaml").exists()) \
                if folder.is_dir() else []:
            try:
                desc, cases = load_descriptor(sub)
            except DescriptorError as exc:
                broken[sub.name] = exc.problems
                log.error("tool descriptor invalid", extra={"kv": {"tool": sub.name, "problems": exc.problems}})
                continue
            name = desc.name

            def on_transition(old: str, new: str, reason: str, _name: str = name) -> None:
                log.warning("tool breaker", extra={"kv": {"tool": _name, "from": old, "to": new, "reason": reason}})

            tools[name] = Tool(
                descriptor=desc, cases=cases,
                input_validator=Validator(desc.input), output_validator=Validator(desc.output),
                breaker=Breaker(threshold=desc.failure_threshold(breaker.thresholds()),
                                cooldown_ms=desc.breaker.cooldown_ms or breaker.cooldown_ms,
                                cooldown_max_ms=desc.breaker.cooldown_max_ms or breaker.cooldown_max_ms,
                                probe_every=breaker.probe_every, on_transition=on_transition),
                limits=desc.sandbox.limits())
        if not folder.is_dir():
            log.warning("tools folder missing", extra={"kv": {"path": str(folder)}})
        return cls(tools, broken, folder)

    def get(self, name: str) -> Tool | None:
        return self.tools.get(name)

    def reply_templates(self) -> dict[str, Any]:
        """Tool name → its ``reply`` template (or None): what rule packs bind to ``{{steps.<id>.reply}}``."""
        return {n: t.descriptor.reply_template for n, t in self.tools.items()}
