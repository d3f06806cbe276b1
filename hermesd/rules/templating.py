"""``{{path}}`` templates in action params and reply texts (parsed at load, rendered per step).

``{{entities.date.start}}``, ``{{memory.last_report_filter}}``, ``{{steps.find.doc_id}}``:
a path is a root name then ``.``-separated keys (digits index a list), resolved through
mappings and lists only, exactly as in conditions (no attribute access, no expressions).

Typed substitution: a string that is exactly one placeholder (``"{{steps.find.matches}}"``,
spaces inside the braces allowed) renders to the value itself — a list stays a list, a
number a number. Anywhere else the value is inserted as text (``null`` → ``""``, booleans as
``true``/``false``, lists and mappings as compact JSON, anything else with ``str``). A missing
value raises :class:`MissingValue` naming the path and the first key that was absent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson

from ..errors import InputInvalid
from .conditions import MISSING, resolve_path

__all__ = [
    "TEMPLATE_ROOTS",
    "MissingValue",
    "Template",
    "TemplateSyntaxError",
    "compile_value",
    "paths_in",
    "render",
]

#: names a template path may start with.
TEMPLATE_ROOTS: tuple[str, ...] = ("role", "slots", "entities", "memory", "session", "steps")
_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+))*$")


class TemplateSyntaxError(ValueError):
    """A template does not parse (found at load time).

    :param column: 1-based column of the offending placeholder in the template text.
    """

    def __init__(self, message: str, column: int, source: str) -> None:
        self.message, self.column, self.source = message, column, source
        super().__init__(f"{message} at column {column}")


class MissingValue(InputInvalid):
    """A placeholder's path has no value in this turn's context (``INPUT_INVALID``).

    ``data``: ``{"path": "entities.date.start", "missing": "date"}`` (the first absent key).
    """

    def __init__(self, path: str, missing: str) -> None:
        super().__init__(f"no value for {{{{{path}}}}}: {missing!r} is missing",
                         data={"path": path, "missing": missing})
        self.path, self.missing = path, missing


@dataclass(frozen=True, slots=True)
class Template:
    """A parsed template string: literal text and path parts, alternating.

    :param parts: ``str`` for literal text, ``tuple[str, ...]`` for a path.
    :param whole: the template is exactly one placeholder (typed substitution).
    """

    source: str
    parts: tuple[str | tuple[str, ...], ...]
    whole: bool

    @classmethod
    def parse(cls, source: str, roots: Sequence[str] = TEMPLATE_ROOTS) -> Template:
        """Parse ``source``; :raises TemplateSyntaxError: bad path, unknown root, stray braces."""
        return _parse_cached(source, tuple(roots))

    @classmethod
    def _parse(cls, source: str, roots: tuple[str, ...]) -> Template:
        parts: list[str | tuple[str, ...]] = []
        pos = 0
        for m in _PLACEHOLDER.finditer(source):
            if m.start() > pos:
                parts.append(source[pos:m.start()])
            inner = m.group(1).strip()
            col = m.start() + 1
            if not _PATH.match(inner):
                raise TemplateSyntaxError(f"{{{{{inner}}}}} is not a path (root.key.key…)", col, source)
            path = tuple(inner.split("."))
            if any(p.startswith("__") for p in path):
                raise TemplateSyntaxError(f"names starting with '__' are not allowed: {inner!r}", col, source)
            if path[0] not in roots:
                raise TemplateSyntaxError(f"unknown root {path[0]!r} (allowed: {', '.join(roots)})", col, source)
            parts.append(path)
            pos = m.end()
        if pos < len(source):
            parts.append(source[pos:])
        for piece in parts:
            if isinstance(piece, str) and ("{{" in piece or "}}" in piece):
                col = source.find("{{" if "{{" in piece else "}}") + 1
                raise TemplateSyntaxError("unbalanced '{{' or '}}'", col, source)
        whole = len(parts) == 1 and isinstance(parts[0], tuple)
        return cls(source, tuple(parts), whole)

    @property
    def paths(self) -> tuple[tuple[str, ...], ...]:
        """The paths this template reads."""
        return tuple(p for p in self.parts if isinstance(p, tuple))

    def render(self, ctx: Mapping[str, Any]) -> Any:
        """Substitute; typed when :attr:`whole`. :raises MissingValue: a path is absent."""
        if self.whole:
            return _lookup(ctx, self.parts[0])  # type: ignore[arg-type]
        if not self.paths:
            return self.source
        out = []
        for p in self.parts:
            out.append(p if isinstance(p, str) else _text(_lookup(ctx, p)))
        return "".join(out)


@lru_cache(maxsize=8192)
def _parse_cached(source: str, roots: tuple[str, ...]) -> Template:
    # templates are immutable and packs repeat them: a reload re-parses only new text
    return Template._parse(source, roots)


def _lookup(ctx: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    v = resolve_path(ctx, path)
    if v is MISSING:
        for i in range(1, len(path) + 1):
            if resolve_path(ctx, path[:i]) is MISSING:
                raise MissingValue(".".join(path), path[i - 1])
    return v


def _text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (dict, list, tuple)):
        return orjson.dumps(v, default=str).decode()
    return str(v)  # numbers, and values such as datetime that the controller may pass in


def compile_value(value: Any, roots: Sequence[str] = TEMPLATE_ROOTS) -> Any:
    """Parse every string inside ``value`` (dicts and lists walked) into :class:`Template`.

    Strings without ``{{`` stay plain strings. :raises TemplateSyntaxError: from any string.
    """
    if isinstance(value, str):
        return Template.parse(value, roots) if ("{{" in value or "}}" in value) else value
    if isinstance(value, Mapping):
        return {k: compile_value(v, roots) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [compile_value(v, roots) for v in value]
    return value


def render(value: Any, ctx: Mapping[str, Any]) -> Any:
    """Render a compiled value (from :func:`compile_value`) against ``ctx``.

    :param ctx: ``{"role", "slots", "entities", "memory", "session", "steps"}`` mappings.
    :return: a fresh structure of plain values. :raises MissingValue: naming the path.
    """
    if isinstance(value, Template):
        return value.render(ctx)
    if isinstance(value, Mapping):
        return {k: render(v, ctx) for k, v in value.items()}
    if isinstance(value, list):
        return [render(v, ctx) for v in value]
    return value


def paths_in(value: Any) -> list[tuple[str, ...]]:
    """Every path read by the templates inside a compiled value, in order."""
    if isinstance(value, Template):
        return list(value.paths)
    if isinstance(value, Mapping):
        return [p for v in value.values() for p in paths_in(v)]
    if isinstance(value, list):
        return [p for v in value for p in paths_in(v)]
    return []
