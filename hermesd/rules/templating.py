"""``{{path}}`` templates in action params and reply texts (parsed at load, rendered per step).

``{{entities.date.start}}``, ``{{memory.last_report_filter}}``, ``{{steps.find.doc_id}}``:
a path is a root name then ``.``-separated keys (digits index a list), resolved through
mappings and lists only, exactly as in conditions (no attribute access, no expressions).

Filters turn a value into words a person reads, in the reply's language
(:mod:`.filters` lists them)::

    {{steps.net.online | yesno(在线, 离线)}}     {{steps.st.uptime_s | duration}}
    {{steps.disk.free_mb | size_mb}}            {{steps.r.reminders.0.due | datetime}}
    {{steps.list.reminders | lines('{due | datetime} {text}', 10)}}

A filter is a name, optionally with arguments in parentheses, separated by commas: bare words
(``yesno(在线, 离线)``) or quoted strings (``'…'`` or ``"…"``, backslash escapes) when an
argument holds a comma, a parenthesis, a quote or a ``|``. ``lines`` takes an *item template*
whose fields name the keys of each record in single braces (``{due | datetime}``). Filters
chain left to right. An unknown filter, a wrong number of arguments or a bad item template
is a :class:`TemplateSyntaxError` when the pack loads. ``default(X)`` also stands in for a
*missing* path, so optional fields can be written without failing the step.

Typed substitution: a string that is exactly one placeholder without filters
(``"{{steps.find.matches}}"``, spaces inside the braces allowed) renders to the value itself —
a list stays a list, a number a number. Anywhere else the value is inserted as text (``null``
→ ``""``, booleans as ``true``/``false``, lists and mappings as compact JSON, anything else
with ``str``) — which is why every value a person reads goes through a filter. A missing value
raises :class:`MissingValue` naming the path and the first key that was absent.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .. import lazyre
from ..errors import InputInvalid
from .conditions import MISSING, resolve_path
from .filters import FILTERS, FilterSpec, Style, as_text

__all__ = [
    "TEMPLATE_ROOTS",
    "MissingValue",
    "Slot",
    "Style",
    "Template",
    "TemplateSyntaxError",
    "compile_value",
    "paths_in",
    "render",
]

#: names a template path may start with.
TEMPLATE_ROOTS: tuple[str, ...] = ("role", "slots", "entities", "memory", "session", "hidden", "steps")
_PATH = lazyre.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+))*$")
_FILTER = lazyre.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?$", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"'}
_DEFAULT_STYLE = Style()


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
class _Applied:
    """One filter with its (prepared) arguments."""

    name: str
    spec: FilterSpec
    args: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Slot:
    """One placeholder: the path it reads and the filters applied to the value, in order."""

    path: tuple[str, ...]
    filters: tuple[_Applied, ...] = ()

    @property
    def lenient(self) -> bool:
        """A ``default`` filter also stands in for a missing path."""
        return any(f.name == "default" for f in self.filters)

    def value(self, ctx: Mapping[str, Any], style: Style) -> Any:
        v = resolve_path(ctx, self.path)
        if v is MISSING:
            if not self.lenient:
                _raise_missing(ctx, self.path)
            v = None
        for f in self.filters:
            v = f.spec.fn(v, f.args, style)
        return v


@dataclass(frozen=True, slots=True)
class Template:
    """A parsed template string: literal text and placeholders, alternating.

    :param parts: ``str`` for literal text, :class:`Slot` for a placeholder.
    :param whole: the template is exactly one placeholder without filters (typed substitution).
    """

    source: str
    parts: tuple[str | Slot, ...]
    whole: bool

    @classmethod
    def parse(cls, source: str, roots: Sequence[str] | None = TEMPLATE_ROOTS, *, item: bool = False) -> Template:
        """Parse ``source``.

        :param roots: allowed first names of paths (None: any name, as in item templates).
        :param item: an item template (``{field}`` in single braces) rather than ``{{path}}``.
        :raises TemplateSyntaxError: bad path, unknown root or filter, stray braces.
        """
        return _parse_cached(source, None if roots is None else tuple(roots), item)

    @classmethod
    def _parse(cls, source: str, roots: tuple[str, ...] | None, item: bool) -> Template:
        opener, closer = ("{", "}") if item else ("{{", "}}")
        parts: list[str | Slot] = []
        for kind, text, col in _scan(source, opener, closer):
            if kind == "text":
                if opener in text or closer in text:
                    at = source.find(opener if opener in text else closer) + 1
                    raise TemplateSyntaxError(f"unbalanced '{opener}' or '{closer}'", at, source)
                if text:
                    parts.append(text)
            else:
                parts.append(_slot(text, col, source, roots, opener, closer))
        whole = len(parts) == 1 and isinstance(parts[0], Slot) and not parts[0].filters
        return cls(source, tuple(parts), whole)

    @property
    def paths(self) -> tuple[tuple[str, ...], ...]:
        """The paths this template reads."""
        return tuple(p.path for p in self.parts if isinstance(p, Slot))

    def render(self, ctx: Mapping[str, Any], style: Style | None = None) -> Any:
        """Substitute; typed when :attr:`whole`.

        :param style: language, zone and reference instant for filters (English, no zone by default).
        :raises MissingValue: a path is absent (and has no ``default``).
        """
        st = style or _DEFAULT_STYLE
        if self.whole:
            return self.parts[0].value(ctx, st)  # type: ignore[union-attr]
        if len(self.parts) == 1 and isinstance(self.parts[0], Slot):
            return self.parts[0].value(ctx, st)  # one placeholder with filters: the filter's value
        out = []
        for p in self.parts:
            out.append(p if isinstance(p, str) else as_text(p.value(ctx, st)))
        return "".join(out)


def _scan(source: str, opener: str, closer: str) -> list[tuple[str, str, int]]:
    """``("text", literal, col)`` and ``("slot", inner, col)`` pieces; quotes inside a placeholder
    may hold the closing braces (item templates of ``lines``)."""
    out: list[tuple[str, str, int]] = []
    pos, n = 0, len(source)
    while True:
        start = source.find(opener, pos)
        if start < 0:
            out.append(("text", source[pos:], pos + 1))
            return out
        out.append(("text", source[pos:start], pos + 1))
        i, quote = start + len(opener), None
        while i < n:
            ch = source[i]
            if quote is not None:
                if ch == "\\":
                    i += 2
                    continue
                if ch == quote:
                    quote = None
            elif ch in "'\"":
                quote = ch
            elif source.startswith(closer, i):
                break
            i += 1
        else:
            raise TemplateSyntaxError(f"unbalanced '{opener}' or '{closer}'", start + 1, source)
        out.append(("slot", source[start + len(opener):i], start + 1))
        pos = i + len(closer)


def _split(text: str, sep: str) -> list[str]:
    """Split at ``sep`` outside quotes and parentheses."""
    parts, depth, quote, cur, i = [], 0, None, [], 0
    while i < len(text):
        ch = text[i]
        if quote is not None:
            cur.append(ch)
            if ch == "\\" and i + 1 < len(text):
                cur.append(text[i + 1])
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            cur.append(ch)
        elif ch == "(":
            depth += 1
            cur.append(ch)
        elif ch == ")":
            depth -= 1
            cur.append(ch)
        elif ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    parts.append("".join(cur))
    return parts


def _argument(raw: str, col: int, source: str) -> str:
    text = raw.strip()
    if len(text) >= 2 and text[0] in "'\"" and text[-1] == text[0]:
        body, out, i = text[1:-1], [], 0
        while i < len(body):
            if body[i] == "\\" and i + 1 < len(body):
                out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
                i += 2
            else:
                out.append(body[i])
                i += 1
        return "".join(out)
    if any(c in text for c in "'\"()|"):
        raise TemplateSyntaxError(f"argument {text!r}: quote an argument that holds quotes, parentheses or '|'",
                                  col, source)
    return text


def _filter(text: str, col: int, source: str) -> _Applied:
    m = _FILTER.match(text.strip())
    if not m:
        raise TemplateSyntaxError(f"{text.strip()!r} is not a filter (name or name(arg, …))", col, source)
    name, inner = m.group(1), m.group(2)
    spec = FILTERS.get(name)
    if spec is None:
        close = difflib.get_close_matches(name, FILTERS, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(sorted(FILTERS))})"
        raise TemplateSyntaxError(f"unknown filter {name!r}{hint}", col, source)
    args: list[Any] = [] if inner is None or not inner.strip() else [_argument(a, col, source)
                                                                      for a in _split(inner, ",")]
    if not spec.min_args <= len(args) <= spec.max_args:
        want = (f"{spec.min_args}" if spec.min_args == spec.max_args
                else f"{spec.min_args} to {spec.max_args}")
        raise TemplateSyntaxError(f"filter {name!r} takes {want} argument(s), not {len(args)}", col, source)
    if spec.choices is not None and args and args[0] not in spec.choices:
        raise TemplateSyntaxError(f"filter {name!r}: {args[0]!r} is not one of {', '.join(spec.choices)}",
                                  col, source)
    if spec.int_arg is not None and len(args) > spec.int_arg:
        if not str(args[spec.int_arg]).isdigit():
            raise TemplateSyntaxError(f"filter {name!r}: {args[spec.int_arg]!r} is not a whole number", col, source)
        args[spec.int_arg] = int(args[spec.int_arg])
    if spec.template_arg is not None and len(args) > spec.template_arg:
        try:
            args[spec.template_arg] = Template.parse(args[spec.template_arg], None, item=True)
        except TemplateSyntaxError as exc:
            raise TemplateSyntaxError(f"item template of {name!r} ({args[spec.template_arg]!r}): {exc.message}",
                                      col, source) from None
    return _Applied(name, spec, tuple(args))


def _slot(inner: str, col: int, source: str, roots: tuple[str, ...] | None, opener: str, closer: str) -> Slot:
    pieces = _split(inner, "|")
    path_text = pieces[0].strip()
    if not _PATH.match(path_text):
        raise TemplateSyntaxError(f"{opener}{path_text}{closer} is not a path (root.key.key…)", col, source)
    path = tuple(path_text.split("."))
    if any(p.startswith("__") for p in path):
        raise TemplateSyntaxError(f"names starting with '__' are not allowed: {path_text!r}", col, source)
    if roots is not None and path[0] not in roots:
        raise TemplateSyntaxError(f"unknown root {path[0]!r} (allowed: {', '.join(roots)})", col, source)
    return Slot(path, tuple(_filter(f, col, source) for f in pieces[1:]))


@lru_cache(maxsize=8192)
def _parse_cached(source: str, roots: tuple[str, ...] | None, item: bool) -> Template:
    # templates are immutable and packs repeat them: a reload re-parses only new text
    return Template._parse(source, roots, item)


def _raise_missing(ctx: Mapping[str, Any], path: tuple[str, ...]) -> None:
    for i in range(1, len(path) + 1):
        if resolve_path(ctx, path[:i]) is MISSING:
            raise MissingValue(".".join(path), path[i - 1])


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


def render(value: Any, ctx: Mapping[str, Any], style: Style | None = None) -> Any:
    """Render a compiled value (from :func:`compile_value`) against ``ctx``.

    :param ctx: ``{"role", "slots", "entities", "memory", "session", "steps"}`` mappings.
    :param style: the reply's language, zone and reference instant, for filters.
    :return: a fresh structure of plain values. :raises MissingValue: naming the path.
    """
    if isinstance(value, Template):
        return value.render(ctx, style)
    if isinstance(value, Mapping):
        return {k: render(v, ctx, style) for k, v in value.items()}
    if isinstance(value, list):
        return [render(v, ctx, style) for v in value]
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
