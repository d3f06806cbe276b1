"""Typed models validated from their annotations: the small subset of pydantic v2 hermesd uses.

Why: importing pydantic costs ~9 MB RSS in the daemon (``scripts/bench/footprint.py``); hermesd's
models (config sections, rule packs, tool descriptors, JSON-RPC params) need only plain
annotation-driven checks. This module keeps pydantic's spelling (``BaseModel``, ``Field``,
``field_validator``, ``model_validator``, ``ValidationError.errors()``) and its *lax-mode* rules and
English messages (https://docs.pydantic.dev/2.x/concepts/conversion_table/, ``pydantic_core``
error messages), so error texts that tests and people read do not change.

Supported annotations: ``int``, ``float``, ``str``, ``bool``, ``Path``, ``datetime``, ``Any``,
``None``, ``Literal[...]``, ``X | Y`` (smart mode: an exact type match wins, else the first lax
match), ``list[X]``, ``tuple[X, ...]``, ``set[X]``, ``dict[K, V]``, nested models, and
``Annotated[X, Field(...)/AfterValidator/BeforeValidator/Strict()/Tag/Discriminator]``.

Every error is collected (never stop at the first); each is a dict with ``loc`` (tuple of field
names / list indices / dict keys, by alias), ``msg``, ``type`` and ``input``, as pydantic's.
"""

from __future__ import annotations

import copy
import datetime as _dt
import inspect
import re
import sys
import types
import typing
from pathlib import Path
from typing import Annotated, Any, Callable, ClassVar, Literal, Union

from . import lazyre

__all__ = [
    "AfterValidator",
    "BaseModel",
    "BeforeValidator",
    "ConfigDict",
    "Discriminator",
    "Field",
    "PrivateAttr",
    "StrictBool",
    "Tag",
    "ValidationError",
    "ValidationInfo",
    "error_sentence",
    "errors_sentence",
    "field_name",
    "field_validator",
    "model_validator",
]

_MISSING: Any = object()
_BAD: Any = object()  # a value that failed; its errors are already recorded


def ConfigDict(**kw: Any) -> dict[str, Any]:  # noqa: N802 - pydantic's spelling
    """A model's settings: ``extra`` ("forbid" | "allow" | "ignore"), ``frozen``, ``populate_by_name``."""
    return kw


class ValidationError(ValueError):
    """Every problem found in one validation. ``errors()`` → list of {loc, msg, type, input}."""

    def __init__(self, title: str, errors: list[dict[str, Any]]) -> None:
        self.title = title
        self._errors = errors
        super().__init__(self._text())

    def errors(self, *, include_url: bool = False, include_context: bool = True, include_input: bool = True) -> list[dict[str, Any]]:
        """The problems, in the order found (field order, then list order); keywords as pydantic's."""
        out = []
        for e in self._errors:
            e = dict(e)
            if not include_context:
                e.pop("ctx", None)
            if not include_input:
                e.pop("input", None)
            out.append(e)
        return out

    def error_count(self) -> int:
        return len(self._errors)

    def _text(self) -> str:
        n = len(self._errors)
        lines = [f"{n} validation error{'s' if n != 1 else ''} for {self.title}"]
        for e in self._errors:
            if e["loc"]:
                lines.append(".".join(str(p) for p in e["loc"]))
            lines.append(f"  {e['msg']} [type={e['type']}, input_value={e['input']!r:.60}]")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self._text()


# -- the errors as a person reads them -----------------------------------------------------------

#: the noun pydantic's messages open with ("Input should be …", "String should have …"): the field's name
#: takes its place
_SUBJECT = lazyre.compile(r"^(?:Input|String|List|Tuple|Set|Dictionary|Value|Data)(?= (?:should|is) )")
#: a message's trailing detail after a comma ("…, invalid character", "…, got a number with a fractional part")
_DETAIL = lazyre.compile(r", ([^,']+)$")
#: our own validators' messages that are a predicate (the field's name is their subject)
_PREDICATE = lazyre.compile(r"^(?:must|should|may|needs?|is|are|has|have|cannot|can't)\b")


def field_name(loc: tuple[Any, ...] | list[Any]) -> str:
    """``("steps", 0, "reply")`` → ``steps[0].reply``; ``()`` → ``""``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def error_sentence(e: dict[str, Any], where: str | None = None, *, detail: bool = True) -> str:
    """One validation error as a clause a person reads, no library words: "text is required",
    "session_id should have at least 8 characters", "tz is not valid: unknown IANA time zone 'X'".

    :param e: an item of :meth:`ValidationError.errors` (``loc``, ``msg``, ``type``, ``ctx``?).
    :param where: the name to give the field (default: its ``loc`` as :func:`field_name` spells it).
    :param detail: keep a message's trailing detail ("(invalid character)"); a caller that shows the
        value itself may leave it out.
    :return: the clause, without a final full stop.
    """
    name = field_name(e.get("loc") or ()) if where is None else where
    typ, msg = str(e.get("type") or ""), str(e.get("msg") or "")
    if typ == "missing":
        return f"{name} is required" if name else "a value is required"
    if typ == "extra_forbidden":
        return f"{name} is not a known field" if name else "an unknown field was given"
    if typ in ("value_error", "assertion_error"):
        # our own validator's words, without pydantic's "Value error, " / "Assertion failed, "
        text = str((e.get("ctx") or {}).get("error") or (msg.split(", ", 1)[1] if ", " in msg else msg)).rstrip(".")
        if not name:
            return text
        return f"{name} {text}" if _PREDICATE.match(text) else f"{name} is not valid: {text}"
    m = _SUBJECT.match(msg)
    if m is not None:
        msg = _DETAIL.sub(r" (\1)" if detail else "", msg[m.end():].lstrip(), count=1)
        return f"{name or 'the value'} {msg}"
    return f"{name}: {msg}" if name else msg


def errors_sentence(errors: list[dict[str, Any]], limit: int = 5) -> str:
    """Every error of one validation in one sentence, missing fields named together: "session_id and
    text are required; locale is not valid: …". At most ``limit`` clauses, then "(and N more)"; no final
    full stop."""
    missing = [field_name(e.get("loc") or ()) for e in errors if e.get("type") == "missing" and e.get("loc")]
    clauses: list[str] = []
    if len(missing) > 1:
        names = f"{', '.join(missing[:-1])} and {missing[-1]}"
        clauses.append(f"{names} are required")
    clauses += [error_sentence(e) for e in errors if not (len(missing) > 1 and e.get("type") == "missing" and e.get("loc"))]
    more = len(clauses) - limit
    text = "; ".join(clauses[:limit])
    return f"{text} (and {more} more)" if more > 0 else text


class ValidationInfo:
    """What a ``(cls, value, info)`` field validator sees: ``data`` (fields validated so far), ``field_name``."""

    __slots__ = ("context", "data", "field_name")

    def __init__(self, data: dict[str, Any], field_name: str | None, context: Any = None) -> None:
        self.data = data
        self.field_name = field_name
        self.context = context


class FieldInfo:
    """One field: default, constraints (gt/ge/lt/le, min/max_length, pattern) and alias."""

    __slots__ = ("alias", "annotation", "default", "default_factory", "description", "constraints", "validator")

    def __init__(self, default: Any = _MISSING, *, default_factory: Callable[[], Any] | None = None,
                 alias: str | None = None, description: str | None = None, **constraints: Any) -> None:
        self.default = default
        self.default_factory = default_factory
        self.alias = alias
        self.description = description
        self.constraints = {k: v for k, v in constraints.items() if v is not None}
        self.annotation: Any = None
        self.validator: Callable[..., Any] | None = None

    def is_required(self) -> bool:
        return self.default is _MISSING and self.default_factory is None

    def make_default(self) -> Any:
        if self.default_factory is not None:
            return self.default_factory()
        d = self.default
        return copy.deepcopy(d) if isinstance(d, (list, dict, set)) else d


def Field(default: Any = _MISSING, **kw: Any) -> Any:  # noqa: N802 - pydantic's spelling
    """A field's default and constraints, pydantic's keywords (``ge``, ``max_length``, ``pattern``, ``alias`` …)."""
    if default is ...:
        default = _MISSING
    return FieldInfo(default, **kw)


class _Private:
    __slots__ = ("default", "default_factory")

    def __init__(self, default: Any = None, default_factory: Callable[[], Any] | None = None) -> None:
        self.default = default
        self.default_factory = default_factory


def PrivateAttr(default: Any = None, *, default_factory: Callable[[], Any] | None = None) -> Any:  # noqa: N802
    """An attribute set by the model itself (never from input), writable even on a frozen model."""
    return _Private(default, default_factory)


class AfterValidator:
    """``Annotated[X, AfterValidator(f)]``: ``f(value) -> value`` after X is checked; ValueError = error."""

    def __init__(self, func: Callable[[Any], Any]) -> None:
        self.func = func


class BeforeValidator:
    """``Annotated[X, BeforeValidator(f)]``: ``f(raw) -> raw`` before X is checked; ValueError = error."""

    def __init__(self, func: Callable[[Any], Any]) -> None:
        self.func = func


class Strict:
    """``Annotated[X, Strict()]``: no lax coercion (e.g. ``StrictBool`` takes only True/False)."""


class Tag:
    """Names one member of a discriminated union (``Annotated[M, Tag("tool")]``)."""

    def __init__(self, tag: str) -> None:
        self.tag = tag


class Discriminator:
    """``Annotated[A | B, Discriminator(f)]``: ``f(raw)`` names the member's :class:`Tag`."""

    def __init__(self, func: Callable[[Any], Any]) -> None:
        self.func = func


StrictBool = Annotated[bool, Strict()]


def field_validator(*fields: str, mode: str = "after") -> Callable[[Any], Any]:
    """Mark ``(cls, v[, info]) -> v`` as a validator of ``fields`` ("before": gets the raw value)."""

    def mark(func: Any) -> Any:
        f = func.__func__ if isinstance(func, classmethod) else func
        f.__typed_field__ = (fields, mode)
        return func

    return mark


def model_validator(*, mode: str) -> Callable[[Any], Any]:
    """Mark a whole-model validator: "before" → ``(cls, data) -> data``; "after" → ``(self) -> self``."""

    def mark(func: Any) -> Any:
        f = func.__func__ if isinstance(func, classmethod) else func
        f.__typed_model__ = mode
        return func

    return mark


# -- messages, as pydantic_core words them ------------------------------------------------------


def _err(errors: list[dict[str, Any]], loc: tuple[Any, ...], typ: str, msg: str, value: Any, **ctx: Any) -> Any:
    e: dict[str, Any] = {"type": typ, "loc": loc, "msg": msg, "input": value}
    if ctx:
        e["ctx"] = ctx
    errors.append(e)
    return _BAD


def _repr_lit(v: Any) -> str:
    return repr(v)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _call_validator(func: Callable[..., Any], value: Any, errors: list[dict[str, Any]], loc: tuple[Any, ...], *extra: Any) -> Any:
    try:
        return func(value, *extra)
    except ValidationError as exc:
        for e in exc.errors():
            errors.append({**e, "loc": loc + tuple(e["loc"])})
        return _BAD
    except AssertionError as exc:
        return _err(errors, loc, "assertion_error", f"Assertion failed, {exc}", value)
    except ValueError as exc:
        return _err(errors, loc, "value_error", f"Value error, {exc}", value, error=str(exc))


# -- checkers: fn(value, loc, errors, strict) -> value | _BAD -----------------------------------

_Checker = Callable[[Any, tuple, list, bool], Any]
_TRUE = {"1", "on", "t", "true", "y", "yes"}
_FALSE = {"0", "off", "f", "false", "n", "no"}


def _int(v: Any, loc: tuple, errors: list, strict: bool) -> Any:
    if type(v) is int:
        return v
    if strict:
        return _err(errors, loc, "int_type", "Input should be a valid integer", v)
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        if v.is_integer():
            return int(v)
        return _err(errors, loc, "int_from_float", "Input should be a valid integer, got a number with a fractional part", v)
    if isinstance(v, str):
        try:
            return int(v.strip())
        except ValueError:
            return _err(errors, loc, "int_parsing", "Input should be a valid integer, unable to parse string as an integer", v)
    return _err(errors, loc, "int_type", "Input should be a valid integer", v)


def _float(v: Any, loc: tuple, errors: list, strict: bool) -> Any:
    if type(v) is float:
        return v
    if isinstance(v, int) and not (strict and isinstance(v, bool)):
        return float(v)
    if not strict and isinstance(v, str):
        try:
            return float(v.strip())
        except ValueError:
            return _err(errors, loc, "float_parsing", "Input should be a valid number, unable to parse string as a number", v)
    return _err(errors, loc, "float_type", "Input should be a valid number", v)


def _str(v: Any, loc: tuple, errors: list, strict: bool) -> Any:
    if isinstance(v, str):
        return str(v)
    return _err(errors, loc, "string_type", "Input should be a valid string", v)


def _bool(v: Any, loc: tuple, errors: list, strict: bool) -> Any:
    if isinstance(v, bool):
        return v
    if not strict:
        if isinstance(v, int) and v in (0, 1):
            return bool(v)
        if isinstance(v, str) and v.strip().lower() in _TRUE | _FALSE:
            return v.strip().lower() in _TRUE
    return _err(errors, loc, "bool_type" if strict else "bool_parsing",
                "Input should be a valid boolean" + ("" if strict or not isinstance(v, str) else ", unable to interpret input"), v)


def _path(v: Any, loc: tuple, errors: list, strict: bool) -> Any:
    if isinstance(v, Path):
        return v
    if isinstance(v, str):
        return Path(v)
    return _err(errors, loc, "path_type", "Input is not a valid path", v)


def _datetime(v: Any, loc: tuple, errors: list, strict: bool) -> Any:
    if isinstance(v, _dt.datetime):
        return v
    if isinstance(v, str) and not strict:
        s = v.strip()
        if s.endswith(("Z", "z")):
            s = s[:-1] + "+00:00"
        try:
            return _dt.datetime.fromisoformat(s)
        except ValueError:
            return _err(errors, loc, "datetime_from_date_parsing", "Input should be a valid datetime or date, invalid character", v)
    if isinstance(v, (int, float)) and not isinstance(v, bool) and not strict:
        return _dt.datetime.fromtimestamp(v, _dt.timezone.utc)
    return _err(errors, loc, "datetime_type", "Input should be a valid datetime", v)


def _date(v: Any, loc: tuple, errors: list, strict: bool) -> Any:
    if isinstance(v, _dt.date) and not isinstance(v, _dt.datetime):
        return v
    if isinstance(v, str) and not strict:
        try:
            return _dt.date.fromisoformat(v.strip())
        except ValueError:
            return _err(errors, loc, "date_from_datetime_parsing", "Input should be a valid date or datetime, invalid character", v)
    return _err(errors, loc, "date_type", "Input should be a valid date", v)


def _any(v: Any, loc: tuple, errors: list, strict: bool) -> Any:
    return v


def _none(v: Any, loc: tuple, errors: list, strict: bool) -> Any:
    if v is None:
        return None
    return _err(errors, loc, "none_required", "Input should be None", v)


_SIMPLE: dict[Any, _Checker] = {
    int: _int, float: _float, str: _str, bool: _bool, Path: _path, _dt.datetime: _datetime, _dt.date: _date,
    Any: _any, object: _any, type(None): _none, None: _none,
}
_EXACT: dict[Any, Callable[[Any], bool]] = {
    int: lambda v: type(v) is int, float: lambda v: type(v) is float, str: lambda v: type(v) is str,
    bool: lambda v: type(v) is bool, Path: lambda v: isinstance(v, Path), type(None): lambda v: v is None,
    None: lambda v: v is None, _dt.datetime: lambda v: isinstance(v, _dt.datetime),
    _dt.date: lambda v: type(v) is _dt.date,
}


_BOUNDS = (("gt", "greater_than", "greater than"), ("ge", "greater_than_equal", "greater than or equal to"),
           ("lt", "less_than", "less than"), ("le", "less_than_equal", "less than or equal to"))
_HOLDS = {"gt": lambda a, b: a > b, "ge": lambda a, b: a >= b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b}


def _constrained(inner: _Checker, c: dict[str, Any]) -> _Checker:
    pattern = re.compile(c["pattern"]) if "pattern" in c else None
    bounds = [(key, c[key], _HOLDS[key], typ, f"Input should be {words} {c[key]}") for key, typ, words in _BOUNDS if key in c]
    lo, hi = c.get("min_length"), c.get("max_length")

    def check(v: Any, loc: tuple, errors: list, strict: bool) -> Any:
        v = inner(v, loc, errors, strict)
        if v is _BAD:
            return v
        if bounds and isinstance(v, (int, float)) and not isinstance(v, bool):
            for key, bound, holds, typ, msg in bounds:
                if not holds(v, bound):
                    return _err(errors, loc, typ, msg, v, **{key: bound})
        if (lo is not None or hi is not None) and hasattr(v, "__len__"):
            n = len(v)
            if (lo is not None and n < lo) or (hi is not None and n > hi):
                return _length_error(v, n, lo, hi, loc, errors)
        if pattern is not None and isinstance(v, str) and not pattern.search(v):
            return _err(errors, loc, "string_pattern_mismatch", f"String should match pattern '{c['pattern']}'", v, pattern=c["pattern"])
        return v

    return check


def _length_error(v: Any, n: int, lo: int | None, hi: int | None, loc: tuple, errors: list) -> Any:
    if isinstance(v, str):
        kind, unit, tail = "String", "character", ""
    else:
        kind = "List" if isinstance(v, (list, tuple)) else "Dictionary" if isinstance(v, dict) else "Set" if isinstance(v, (set, frozenset)) else "Value"
        unit, tail = "item", f" after validation, not {n}"
    if lo is not None and n < lo:
        t = "string_too_short" if kind == "String" else "too_short"
        return _err(errors, loc, t, f"{kind} should have at least {_plural(lo, unit)}{tail}", v, min_length=lo)
    t = "string_too_long" if kind == "String" else "too_long"
    return _err(errors, loc, t, f"{kind} should have at most {_plural(hi, unit)}{tail}", v, max_length=hi)


def _literal(values: tuple[Any, ...]) -> _Checker:
    shown = [_repr_lit(x) for x in values]
    expected = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"

    def check(v: Any, loc: tuple, errors: list, strict: bool) -> Any:
        for x in values:
            if v == x and type(v) is type(x):
                return x
        return _err(errors, loc, "literal_error", f"Input should be {expected}", v, expected=expected)

    return check


def _sequence(item: _Checker, kind: type, name: str) -> _Checker:
    def check(v: Any, loc: tuple, errors: list, strict: bool) -> Any:
        if isinstance(v, (str, bytes, dict)) or not isinstance(v, (list, tuple, set, frozenset)) or (strict and not isinstance(v, kind)):
            return _err(errors, loc, f"{name}_type", f"Input should be a valid {name}", v)
        out, bad = [], False
        for i, x in enumerate(v):
            y = item(x, (*loc, i), errors, strict)
            bad = bad or y is _BAD
            out.append(y)
        return _BAD if bad else kind(out)

    return check


def _mapping(key: _Checker, value: _Checker) -> _Checker:
    def check(v: Any, loc: tuple, errors: list, strict: bool) -> Any:
        if not isinstance(v, dict):
            return _err(errors, loc, "dict_type", "Input should be a valid dictionary", v)
        out, bad = {}, False
        for k, x in v.items():
            kk = key(k, (*loc, k, "[key]"), errors, strict)
            y = value(x, (*loc, k), errors, strict)
            if kk is _BAD or y is _BAD:
                bad = True
            else:
                out[kk] = y
        return _BAD if bad else out

    return check


def _union(members: list[tuple[Any, _Checker]]) -> _Checker:
    non_none = [(t, c) for t, c in members if t not in (type(None), None)]

    def check(v: Any, loc: tuple, errors: list, strict: bool) -> Any:
        for t, c in members:  # smart mode: an exact match first
            exact = _EXACT.get(t)
            if (exact is not None and exact(v)) or (isinstance(t, type) and issubclass(t, BaseModel) and isinstance(v, t)):
                trial: list = []
                out = c(v, loc, trial, True)
                if out is not _BAD:
                    return out
        if v is None and len(non_none) < len(members):
            return None
        first: list | None = None
        for _t, c in non_none:
            trial = []
            out = c(v, loc, trial, strict)
            if out is not _BAD:
                return out
            if first is None:
                first = trial
        if len(non_none) == 1 or first is None:
            errors.extend(first or [])
            return _BAD
        errors.extend(first)
        return _BAD

    return check


def _tagged(func: Callable[[Any], Any], members: dict[str, _Checker]) -> _Checker:
    tags = ", ".join(repr(t) for t in members)

    def check(v: Any, loc: tuple, errors: list, strict: bool) -> Any:
        tag = func(v)
        if tag is None:
            return _err(errors, loc, "union_tag_not_found", f"Unable to extract tag using discriminator {func.__name__}()", v)
        c = members.get(tag)
        if c is None:
            return _err(errors, loc, "union_tag_invalid", f"Input tag '{tag}' found using {func.__name__}() does not match any of the expected tags: {tags}", v)
        return c(v, (*loc, tag), errors, strict)

    return check


def _model(cls: type[BaseModel]) -> _Checker:
    def check(v: Any, loc: tuple, errors: list, strict: bool) -> Any:
        if isinstance(v, cls):
            return v
        return cls._validate(v, loc, errors)

    return check


def _compile(tp: Any, ns: dict[str, Any]) -> _Checker:
    if isinstance(tp, str):
        tp = eval(tp, ns)  # noqa: S307 - a forward reference in our own source
    if isinstance(tp, typing.ForwardRef):
        tp = eval(tp.__forward_arg__, ns)  # noqa: S307
    origin = typing.get_origin(tp)
    if origin is Annotated:
        base, *meta = typing.get_args(tp)
        disc = next((m for m in meta if isinstance(m, Discriminator)), None)
        if disc is not None:
            members = {}
            for arg in typing.get_args(base):
                tag = next(m.tag for m in typing.get_args(arg)[1:] if isinstance(m, Tag))
                members[tag] = _compile(arg, ns)
            c: _Checker = _tagged(disc.func, members)
        else:
            c = _compile(base, ns)
        strict_here = any(isinstance(m, Strict) for m in meta)
        for m in meta:
            if isinstance(m, FieldInfo) and m.constraints:
                c = _constrained(c, m.constraints)
        after = [m.func for m in meta if isinstance(m, AfterValidator)]
        before = [m.func for m in meta if isinstance(m, BeforeValidator)]
        inner = c

        def annotated(v: Any, loc: tuple, errors: list, strict: bool) -> Any:
            for f in reversed(before):
                v = _call_validator(f, v, errors, loc)
                if v is _BAD:
                    return v
            v = inner(v, loc, errors, strict or strict_here)
            for f in after:
                if v is _BAD:
                    return v
                v = _call_validator(f, v, errors, loc)
            return v

        return annotated
    if origin in (Union, types.UnionType):
        return _union([(a, _compile(a, ns)) for a in typing.get_args(tp)])
    if origin is Literal:
        return _literal(typing.get_args(tp))
    if origin in (list, set, frozenset, tuple):
        args = typing.get_args(tp)
        item = _compile(args[0], ns) if args else _any
        if origin is tuple and len(args) != 2 or (origin is tuple and args[1] is not Ellipsis):
            raise TypeError(f"only tuple[X, ...] is supported, not {tp}")
        return _sequence(item, origin, {list: "list", tuple: "tuple", set: "set", frozenset: "frozenset"}[origin])
    if origin is dict:
        k, v = typing.get_args(tp) or (Any, Any)
        return _mapping(_compile(k, ns), _compile(v, ns))
    if tp in _SIMPLE:
        return _SIMPLE[tp]
    if tp in (list, tuple, set, dict):
        return _compile({list: list[Any], tuple: tuple[Any, ...], set: set[Any], dict: dict[Any, Any]}[tp], ns)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return _model(tp)
    raise TypeError(f"hermesd.typed cannot check {tp!r}")


# -- models ------------------------------------------------------------------------------------


class _ModelType(type):
    @property
    def model_fields(cls) -> dict[str, FieldInfo]:
        """Fields by name, annotations resolved (forward references included)."""
        cls._ready()
        return cls.__typed_fields__


class BaseModel(metaclass=_ModelType):
    """A model whose annotated fields are checked by :meth:`model_validate` (pydantic v2's subset).

    Subclass, annotate fields (``x: int = Field(3, ge=1)``), set ``model_config`` with
    :func:`ConfigDict`. ``model_validate(data)`` → instance, or raises :class:`ValidationError`
    listing every problem. ``Model(**kw)`` is the same with keywords.
    """

    model_config: ClassVar[dict[str, Any]] = {}
    __typed_fields__: ClassVar[dict[str, FieldInfo]] = {}
    __typed_ready__: ClassVar[bool] = False

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        cfg: dict[str, Any] = {}
        for base in reversed(cls.__mro__[1:]):
            cfg.update(base.__dict__.get("model_config", {}))
        cfg.update(cls.__dict__.get("model_config", {}))
        cls.model_config = cfg
        cls.__typed_ready__ = False
        privates: dict[str, _Private] = {}
        for base in reversed(cls.__mro__):
            for name, value in list(base.__dict__.items()):
                if isinstance(value, _Private):
                    privates[name] = value
        for name in privates:
            if name in cls.__dict__:
                delattr(cls, name)
        cls.__typed_private__ = privates
        fvals: dict[str, list[tuple[Callable[..., Any], str]]] = {}
        mvals: list[tuple[Callable[..., Any], str]] = []
        for base in reversed(cls.__mro__):
            for name, value in base.__dict__.items():
                f = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
                spec = getattr(f, "__typed_field__", None)
                if spec is not None:
                    # a plain function is taken as a classmethod, as pydantic does
                    bound = types.MethodType(f, cls) if isinstance(value, types.FunctionType) else getattr(cls, name)
                    takes_info = len(inspect.signature(bound).parameters) >= 2
                    for field in spec[0]:
                        fvals.setdefault(field, []).append((bound, spec[1], takes_info))
                mode = getattr(f, "__typed_model__", None)
                if mode is not None:
                    mvals.append((name, mode))
        cls.__typed_fvals__ = fvals
        cls.__typed_mvals__ = mvals
        # field defaults are read now (class attributes), types when first validated
        fields: dict[str, FieldInfo] = {}
        for base in reversed(cls.__mro__[1:]):
            if issubclass(base, BaseModel) and base is not BaseModel:
                fields.update({n: copy.copy(f) for n, f in base.__typed_fields__.items()})
        for name, ann in cls.__dict__.get("__annotations__", {}).items():
            if name.startswith("_") or (isinstance(ann, str) and ann.startswith(("ClassVar", "typing.ClassVar"))) or typing.get_origin(ann) is ClassVar:
                continue
            raw = cls.__dict__.get(name, _MISSING)
            info = raw if isinstance(raw, FieldInfo) else FieldInfo(raw)
            info.annotation = ann
            fields[name] = info
            if isinstance(raw, FieldInfo):
                delattr(cls, name)
        cls.__typed_fields__ = fields

    @classmethod
    def model_rebuild(cls) -> None:
        """Resolve forward references now (pydantic's name; hermesd resolves lazily anyway)."""
        cls.__typed_ready__ = False
        cls._ready()

    @classmethod
    def _ready(cls) -> None:
        if cls.__dict__.get("__typed_ready__") or cls is BaseModel:
            return
        cls.__typed_ready__ = True
        try:
            hints = typing.get_type_hints(cls, include_extras=True)
        except NameError:
            cls.__typed_ready__ = False
            ns = dict(vars(sys.modules[cls.__module__]))
            hints = typing.get_type_hints(cls, globalns=ns, include_extras=True)
        ns = dict(vars(sys.modules[cls.__module__]))
        checks: dict[str, _Checker] = {}
        for name, info in cls.__typed_fields__.items():
            info.annotation = hints.get(name, info.annotation)
            c = _compile(info.annotation, ns)
            if info.constraints:
                c = _constrained(c, info.constraints)
            checks[name] = c
        cls.__typed_checks__ = checks
        fvals = cls.__typed_fvals__
        cls.__typed_plan__ = tuple((name, info.alias or name, info, checks[name], tuple(fvals.get(name, ())))
                                   for name, info in cls.__typed_fields__.items())
        cls.__typed_keys__ = frozenset(key for _n, key, *_rest in cls.__typed_plan__)
        cls.__typed_by_name__ = bool(cls.model_config.get("populate_by_name"))
        cls.__typed_extra_mode__ = cls.model_config.get("extra", "ignore")
        cls.__typed_before__ = tuple(n for n, m in cls.__typed_mvals__ if m == "before")
        cls.__typed_after__ = tuple(n for n, m in cls.__typed_mvals__ if m == "after")
        cls.__typed_post__ = "model_post_init" in dir(cls)
        cls.__typed_ready__ = True

    @classmethod
    def model_validate(cls, data: Any) -> Any:
        """``data`` (a mapping or an instance) checked into an instance. :raises ValidationError: every problem."""
        errors: list[dict[str, Any]] = []
        out = cls._validate(data, (), errors)
        if errors or out is _BAD:
            raise ValidationError(cls.__name__, errors)
        return out

    @classmethod
    def _validate(cls, data: Any, loc: tuple, errors: list) -> Any:
        if not cls.__dict__.get("__typed_ready__"):
            cls._ready()
        if isinstance(data, cls):
            return data
        for name in cls.__typed_before__:
            data = _call_validator(getattr(cls, name), data, errors, loc)
            if data is _BAD:
                return _BAD
        if not isinstance(data, dict):
            return _err(errors, loc, "model_type", f"Input should be a valid dictionary or instance of {cls.__name__}", data,
                        class_name=cls.__name__)
        values: dict[str, Any] = {}
        bad = False
        found = 0
        by_name = cls.__typed_by_name__
        for name, key, info, check, validators in cls.__typed_plan__:
            raw = data.get(key, _MISSING)
            if raw is _MISSING and by_name and key != name:
                raw = data.get(name, _MISSING)
            if raw is _MISSING:
                if info.is_required():
                    _err(errors, (*loc, key), "missing", "Field required", data)
                    bad = True
                else:
                    values[name] = info.make_default()
                continue
            found += 1
            floc = (*loc, key)
            v = raw
            if validators:
                for f, mode, takes_info in validators:
                    if mode == "before" and v is not _BAD:
                        v = _call_validator(f, v, errors, floc, *((ValidationInfo(values, name),) if takes_info else ()))
            if v is not _BAD:
                v = check(v, floc, errors, False)
            if validators:
                for f, mode, takes_info in validators:
                    if mode == "after" and v is not _BAD:
                        v = _call_validator(f, v, errors, floc, *((ValidationInfo(values, name),) if takes_info else ()))
            if v is _BAD:
                bad = True
            else:
                values[name] = v
        extras: dict[str, Any] = {}
        extra = cls.__typed_extra_mode__
        if found < len(data):
            known = cls.__typed_keys__
            extras = {k: v for k, v in data.items() if k not in known}
            if by_name:  # a field given by both its name and its alias counts once
                extras = {k: v for k, v in extras.items() if k not in cls.__typed_fields__}
            if extras and extra == "forbid":
                for k, v in extras.items():
                    _err(errors, (*loc, k), "extra_forbidden", "Extra inputs are not permitted", v)
                bad = True
        if bad:
            return _BAD
        self = cls._make(values, extras if extra == "allow" else {})
        for name in cls.__typed_after__:
            out = cls._after(self, name, errors, loc)
            if out is _BAD:
                return _BAD
            self = out
        return self

    @staticmethod
    def _after(self: Any, name: str, errors: list, loc: tuple) -> Any:
        out = _call_validator(lambda model: getattr(model, name)(), self, errors, loc)
        if out is _BAD:
            return _BAD
        return self if out is None else out

    @classmethod
    def _make(cls, values: dict[str, Any], extras: dict[str, Any]) -> Any:
        self = object.__new__(cls)
        d = self.__dict__
        d.update(values)
        if extras:
            d.update(extras)
            object.__setattr__(self, "__typed_extra__", tuple(extras))
        for name, p in cls.__typed_private__.items():
            d[name] = p.default_factory() if p.default_factory else copy.copy(p.default)
        if cls.__typed_post__:
            self.model_post_init(None)
        return self

    def __init__(self, **data: Any) -> None:
        made = type(self).model_validate(data)
        object.__setattr__(self, "__dict__", made.__dict__)

    def __setattr__(self, name: str, value: Any) -> None:
        if not name.startswith("_") and type(self).model_config.get("frozen"):
            raise ValidationError(type(self).__name__, [{"type": "frozen_instance", "loc": (name,), "msg": "Instance is frozen", "input": value}])
        object.__setattr__(self, name, value)

    def _field_items(self) -> list[tuple[str, Any]]:
        names = [*type(self).model_fields, *self.__dict__.get("__typed_extra__", ())]
        return [(n, self.__dict__[n]) for n in names if n in self.__dict__]

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._field_items() == other._field_items()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), tuple(v for _n, v in self._field_items())))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={v!r}' for n, v in self._field_items())})"

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def model_extra(self) -> dict[str, Any] | None:
        """Keys kept by ``extra="allow"`` (None otherwise)."""
        if type(self).model_config.get("extra") != "allow":
            return None
        return {k: self.__dict__[k] for k in self.__dict__.get("__typed_extra__", ())}

    def model_dump(self, *, mode: str = "python", by_alias: bool = False) -> dict[str, Any]:
        """Fields as a dict; ``mode="json"`` turns paths, datetimes, tuples and sets into JSON types."""
        fields = type(self).model_fields
        out = {}
        for n, v in self._field_items():
            key = fields[n].alias if by_alias and n in fields and fields[n].alias else n
            out[key] = _dump(v, mode, by_alias)
        return out

    def model_copy(self, *, update: dict[str, Any] | None = None) -> Any:
        """A shallow copy with ``update`` applied (not validated, as pydantic's)."""
        new = object.__new__(type(self))
        object.__setattr__(new, "__dict__", {**self.__dict__, **(update or {})})
        return new


def _dump(v: Any, mode: str, by_alias: bool) -> Any:
    if isinstance(v, BaseModel):
        return v.model_dump(mode=mode, by_alias=by_alias)
    if isinstance(v, dict):
        return {(_dump(k, mode, by_alias) if mode == "json" and not isinstance(k, str) else k): _dump(x, mode, by_alias) for k, x in v.items()}
    if isinstance(v, (list, tuple, set, frozenset)):
        items = [_dump(x, mode, by_alias) for x in v]
        return items if mode == "json" or isinstance(v, list) else type(v)(items)
    if mode == "json":
        if isinstance(v, Path):
            return str(v)
        if isinstance(v, (_dt.datetime, _dt.date, _dt.time)):
            return v.isoformat()
    return v
