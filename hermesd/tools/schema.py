"""JSON Schema for tool input and output: shorthand expansion and validation with every violation listed.

Validation uses ``fastjsonschema`` (https://github.com/horejsek/python-fastjsonschema):
it compiles a schema to a Python function once, then checks a small object in
about 1 µs (``jsonschema`` 4.x: about 18 µs), is pure Python with no
dependencies (~300 KB; ``jsonschema`` pulls ``referencing``, ``rpds-py``,
``attrs`` and ``jsonschema-specifications``, ~3 MB) and imports in a third of
the time. It stops at the first violation, so on the (cold) failure path each
top-level property is checked on its own against its sub-schema, plus
``required`` and ``additionalProperties``, to report one violation per field,
each with its JSON Pointer (RFC 6901). A missing top-level field points at the
field (``/unit``); deeper down, the first violation inside a field is reported
where fastjsonschema finds it (a missing nested property points at its object).

Shorthand (accepted in ``tool.yaml``)::

    unit: {type: string, required: true, max_length: 64}

is the object schema ``{"type": "object", "properties": {"unit": {"type":
"string", "maxLength": 64}}, "required": ["unit"], "additionalProperties": false}``.
Snake-case keywords (``max_length``, ``min_items``, ``exclusive_maximum`` …) become
their camelCase JSON Schema names.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Callable

import fastjsonschema

from .. import lazyre

__all__ = ["SchemaError", "Validator", "expand", "is_shorthand"]

_SNAKE = lazyre.compile(r"_([a-z])")
# keywords whose value is a mapping in a real schema; a shorthand cannot use them as field names
_SCHEMA_ONLY = {"properties", "patternProperties", "$schema", "$ref", "$defs", "definitions", "allOf", "anyOf",
                "oneOf", "not", "if", "then", "else"}


class SchemaError(ValueError):
    """The schema itself is invalid (reported at load with the descriptor's file and line)."""


def is_shorthand(spec: Any) -> bool:
    """True when ``spec`` is a mapping of field name → field spec rather than a JSON Schema.

    A schema's ``type`` is a string or list, so ``{type: {type: string}}`` is a
    shorthand with a field called ``type``; fields named like the keywords in
    ``_SCHEMA_ONLY`` need the full form.
    """
    return isinstance(spec, dict) and bool(spec) and not (_SCHEMA_ONLY & spec.keys()) and all(
        isinstance(v, dict) for v in spec.values())


_NAME_MAPS = {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
_LITERALS = {"default", "enum", "const", "examples", "required", "description", "title", "pattern"}


def _normalise(node: Any) -> Any:
    """Camel-case snake keywords and fold ``required: true`` on properties into the parent's list."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        name = _SNAKE.sub(lambda m: m.group(1).upper(), key) if isinstance(key, str) else key
        if name in _NAME_MAPS and isinstance(value, dict):
            out[name] = {k: _normalise(v) for k, v in value.items()}
        elif name in _LITERALS:
            out[name] = value
        elif isinstance(value, dict):
            out[name] = _normalise(value)
        elif isinstance(value, list):
            out[name] = [_normalise(v) for v in value]
        else:
            out[name] = value
    props = out.get("properties")
    if isinstance(props, dict):
        marked = [k for k, v in props.items() if isinstance(v, dict) and v.get("required") is True]
        for v in props.values():
            if isinstance(v, dict) and isinstance(v.get("required"), bool):
                del v["required"]
        if marked:
            out["required"] = list(dict.fromkeys([*(out.get("required") or []), *marked]))
    return out


def expand(spec: Any) -> dict[str, Any]:
    """A full JSON Schema for ``spec`` (a schema, or the shorthand above; ``None`` → any object).

    :raises SchemaError: ``spec`` is not a mapping.
    """
    if spec is None:
        return {"type": "object"}
    if not isinstance(spec, dict):
        raise SchemaError("a schema must be a mapping")
    if is_shorthand(spec):
        spec = {"type": "object", "properties": spec, "additionalProperties": False}
    out = _normalise(spec)
    if isinstance(out.get("required"), bool):
        del out["required"]
    return out


@functools.lru_cache(maxsize=512)
def _compile(schema_json: str) -> Callable[[Any], Any]:
    """One compiled checker per distinct schema: a descriptor's schema is compiled when the
    descriptor is checked and reused by the registry's validators (fastjsonschema generates and
    ``exec``s Python source for each compile, ~1 ms a schema on this machine)."""
    return fastjsonschema.compile(json.loads(schema_json))


def _pointer(path: list[Any]) -> str:
    # fastjsonschema paths start with the variable name "data"
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path[1:])


class Validator:
    """A compiled schema.

    :param schema: a full JSON Schema (draft 7 / 2019-09 / 2020-12 keywords that
        fastjsonschema supports; ``default`` values are filled in).
    :raises SchemaError: the schema does not compile.
    """

    __slots__ = ("_check", "_parts", "schema")

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        try:
            self._check: Callable[[Any], Any] = _compile(json.dumps(schema))
        except (fastjsonschema.JsonSchemaDefinitionException, TypeError, ValueError) as exc:
            raise SchemaError(str(exc)) from None
        self._parts: dict[str, Callable[[Any], Any]] | None = None

    def validate(self, value: Any) -> tuple[Any, list[dict[str, str]]]:
        """Check ``value``; return ``(value with defaults filled, [])`` or ``(None, violations)``.

        Each violation is ``{"pointer": "/unit", "message": "must be string", "rule": "type"}``.
        """
        try:
            return self._check(value), []
        except fastjsonschema.JsonSchemaValueException as first:
            return None, self._violations(value, first)

    def _violations(self, value: Any, first: fastjsonschema.JsonSchemaValueException) -> list[dict[str, str]]:
        props = self.schema.get("properties")
        if not isinstance(value, dict) or not isinstance(props, dict):
            return [_violation(first)]
        if self._parts is None:
            self._parts = {name: fastjsonschema.compile(sub) for name, sub in props.items() if isinstance(sub, dict)}
        out: list[dict[str, str]] = []
        for name in self.schema.get("required", []):
            if name not in value:
                out.append({"pointer": "/" + name.replace("~", "~0").replace("/", "~1"),
                            "message": f"required property {name!r} is missing", "rule": "required"})
        for name, item in value.items():
            check = self._parts.get(name)
            if check is None:
                if self.schema.get("additionalProperties") is False:
                    out.append({"pointer": "/" + str(name).replace("~", "~0").replace("/", "~1"),
                                "message": f"unexpected property {name!r}", "rule": "additionalProperties"})
                continue
            try:
                check(item)
            except fastjsonschema.JsonSchemaValueException as exc:
                v = _violation(exc)
                v["pointer"] = "/" + name.replace("~", "~0").replace("/", "~1") + v["pointer"]
                v["message"] = v["message"].replace("data", name, 1)
                out.append(v)
        return out or [_violation(first)]


def _violation(exc: fastjsonschema.JsonSchemaValueException) -> dict[str, str]:
    return {"pointer": _pointer(list(exc.path or ["data"])), "message": exc.message, "rule": str(exc.rule or "")}
