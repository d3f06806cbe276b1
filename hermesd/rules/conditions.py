"""Rule conditions: a small, safe expression language (hand-written tokenizer and parser, no ``eval``).

Grammar (precedence low → high)::

    expr     := or
    or       := and ("or" and)*
    and      := not ("and" not)*
    not      := "not" not | compare
    compare  := operand [op operand]        op: == != < <= > >= in "not in"
    operand  := literal | list | path | "has" "(" path ")" | "(" expr ")"
    list     := "[" [literal ("," literal)*] "]"
    literal  := 'text' | "text" | number | -number | true | false | null
    path     := root ("." (name | digits))*      root: role slots entities memory session

Examples: ``role == 'admin'``, ``entities.doc in ['quote', 'contract']``,
``has(slots.person) and not session.auth == 'PRE_AUTH'``, ``memory.sent_count >= 3``.

Evaluation is total (never raises): a missing path is ``null``; ``< <= > >=`` between
values that are not both numbers or both strings are false; ``in`` against a value that
is not a list, string or mapping is false; ``has(p)`` is true when ``p`` exists and is
not ``null``. A path only ever indexes mappings (by key) and lists (by digits), so no
attribute of any Python object is reachable; names starting with ``__`` are rejected.
Parsing is bounded: at most :data:`MAX_SOURCE_CHARS` characters and :data:`MAX_DEPTH`
levels of nesting, so hostile input fails with a :class:`ConditionError`, never a
``RecursionError``.
"""

from __future__ import annotations

import operator
import re
from collections import abc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .. import lazyre

__all__ = [
    "CONDITION_ROOTS",
    "MAX_DEPTH",
    "MAX_SOURCE_CHARS",
    "MISSING",
    "And",
    "Compare",
    "Condition",
    "ConditionError",
    "Has",
    "ListLiteral",
    "Literal",
    "Not",
    "Or",
    "Path",
    "parse",
    "resolve_path",
]

#: names a condition may start a path with (``hidden``: the field names the role may not see, memory.hidden_fields).
CONDITION_ROOTS: tuple[str, ...] = ("role", "slots", "entities", "memory", "session", "hidden")
MAX_SOURCE_CHARS = 2000
MAX_DEPTH = 32
_FUNCTIONS = ("has",)
_KEYWORDS = {"and", "or", "not", "in", "true", "false", "null"}
_CONSTANTS = {"true": True, "false": False, "null": None}
_PY_CONSTANTS = {"True": "true", "False": "false", "None": "null"}
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"'}


class ConditionError(ValueError):
    """A condition does not parse.

    :param message: what is wrong. :param column: 1-based column in ``source``.
    ``str()`` gives ``"<message> at column N"``; :meth:`pointer` draws a caret line.
    """

    def __init__(self, message: str, column: int, source: str) -> None:
        self.message, self.column, self.source = message, column, source
        super().__init__(f"{message} at column {column}")

    def pointer(self) -> str:
        """The source and a caret under the column, two lines."""
        return f"{self.source}\n{' ' * (self.column - 1)}^"


# ---- tokens ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Tok:
    kind: str  # name num str op ( ) [ ] , . end
    text: str
    col: int  # 1-based
    value: Any = None


_TOKEN = lazyre.compile(r"""
    (?P<ws>\s+)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>[0-9]+(?:\.[0-9]+)?)
  | (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<op>==|!=|<=|>=|<|>)
  | (?P<punct>[()\[\],.\-])
""", re.VERBOSE | re.DOTALL)
_ESCAPE = lazyre.compile(r"\\(.)", re.DOTALL)


def _unescape(body: str, col: int, src: str) -> str:
    def sub(m: re.Match[str]) -> str:
        if m.group(1) not in _ESCAPES:
            raise ConditionError("unknown escape in string (allowed: \\n \\t \\\\ \\' \\\")", col + m.start(), src)
        return _ESCAPES[m.group(1)]
    return _ESCAPE.sub(sub, body) if "\\" in body else body


def _tokenize(src: str) -> list[_Tok]:
    toks: list[_Tok] = []
    pos, n = 0, len(src)
    match = _TOKEN.match
    while pos < n:
        m = match(src, pos)
        col = pos + 1
        if m is None:
            c = src[pos]
            if c in "'\"":
                raise ConditionError("unterminated string", col, src)
            if c == "=":
                raise ConditionError("'=' is not an operator; use '=='", col, src)
            if c in "&|!":
                word = {"&": "and", "|": "or", "!": "not"}[c]
                raise ConditionError(f"unexpected {c!r}; use '{word}'", col, src)
            raise ConditionError(f"unexpected character {c!r}", col, src)
        kind, text = m.lastgroup, m.group()
        pos = m.end()
        if kind == "ws":
            continue
        if kind == "name":
            if text.startswith("__"):
                raise ConditionError(f"names starting with '__' are not allowed: {text!r}", col, src)
            toks.append(_Tok("name", text, col))
        elif kind == "num":
            if "." in text and toks and toks[-1].kind == ".":
                # a path segment such as matches.0.1 is two digit parts, not the float 0.1
                head = text.split(".")[0]
                toks.append(_Tok("num", head, col, int(head)))
                pos = m.start() + len(head)
                continue
            toks.append(_Tok("num", text, col, float(text) if "." in text else int(text)))
        elif kind == "str":
            toks.append(_Tok("str", text, col, _unescape(text[1:-1], col + 1, src)))
        elif kind == "op":
            toks.append(_Tok("op", text, col))
        else:
            toks.append(_Tok(text, text, col))
    toks.append(_Tok("end", "", n + 1))
    return toks


# ---- AST ---------------------------------------------------------------------------------------
#: what :func:`resolve_path` returns for an absent path (distinct from a stored ``None``).
MISSING = object()


def resolve_path(ctx: Mapping[str, Any], parts: Sequence[str]) -> Any:
    """Follow ``parts`` through mappings (keys) and lists (digit parts); :data:`MISSING` when absent.

    Only ``Mapping`` and ``list``/``tuple`` values are entered, never attributes.
    """
    cur: Any = ctx
    for part in parts:
        kind = type(cur)
        if kind is dict or (kind is not list and kind is not tuple and isinstance(cur, abc.Mapping)):
            cur = cur.get(part, MISSING)
            if cur is MISSING:
                return MISSING
        elif (kind is list or kind is tuple) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return MISSING
    return cur


class Node:
    """Base of AST nodes; :meth:`value` evaluates against a context mapping."""

    __slots__ = ()

    def value(self, ctx: Mapping[str, Any]) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Literal(Node):
    """A string, number, boolean or null."""

    v: Any

    def value(self, ctx: Mapping[str, Any]) -> Any:
        return self.v


@dataclass(frozen=True, slots=True)
class ListLiteral(Node):
    """``[a, b, c]`` of literals."""

    items: tuple[Any, ...]

    def value(self, ctx: Mapping[str, Any]) -> Any:
        return self.items


@dataclass(frozen=True, slots=True)
class Path(Node):
    """``root.a.b``: a missing step gives ``None``."""

    parts: tuple[str, ...]

    def value(self, ctx: Mapping[str, Any]) -> Any:
        v = resolve_path(ctx, self.parts)
        return None if v is MISSING else v


@dataclass(frozen=True, slots=True)
class Has(Node):
    """``has(path)``: the path exists and is not null."""

    path: Path

    def value(self, ctx: Mapping[str, Any]) -> Any:
        v = resolve_path(ctx, self.path.parts)
        return v is not MISSING and v is not None


def _ordered(op: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    def cmp(a: Any, b: Any) -> bool:
        num = (int, float)
        if isinstance(a, num) and isinstance(b, num) and not isinstance(a, bool) and not isinstance(b, bool):
            return op(a, b)
        if isinstance(a, str) and isinstance(b, str):
            return op(a, b)
        return False
    return cmp


def _contains(a: Any, b: Any) -> bool:
    if isinstance(b, str):
        return isinstance(a, str) and a in b
    if isinstance(b, (list, tuple, abc.Mapping)):
        try:
            return a in b
        except TypeError:  # unhashable key against a mapping
            return False
    return False


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne,
    "<": _ordered(operator.lt), "<=": _ordered(operator.le), ">": _ordered(operator.gt), ">=": _ordered(operator.ge),
    "in": _contains, "not in": lambda a, b: not _contains(a, b),
}


@dataclass(frozen=True, slots=True)
class Compare(Node):
    """``left op right`` with op one of ``== != < <= > >= in``, ``not in``."""

    op: str
    left: Node
    right: Node
    fn: Callable[[Any, Any], bool] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fn", _OPS[self.op])

    def value(self, ctx: Mapping[str, Any]) -> Any:
        return self.fn(self.left.value(ctx), self.right.value(ctx))


@dataclass(frozen=True, slots=True)
class Not(Node):
    """``not x``."""

    item: Node

    def value(self, ctx: Mapping[str, Any]) -> Any:
        return not self.item.value(ctx)


@dataclass(frozen=True, slots=True)
class And(Node):
    """``a and b and …`` (short-circuit)."""

    items: tuple[Node, ...]

    def value(self, ctx: Mapping[str, Any]) -> Any:
        return all(i.value(ctx) for i in self.items)


@dataclass(frozen=True, slots=True)
class Or(Node):
    """``a or b or …`` (short-circuit)."""

    items: tuple[Node, ...]

    def value(self, ctx: Mapping[str, Any]) -> Any:
        return any(i.value(ctx) for i in self.items)


# ---- parser ------------------------------------------------------------------------------------
class _Parser:
    def __init__(self, src: str, roots: Sequence[str]) -> None:
        self.src, self.roots = src, tuple(roots)
        self.toks = _tokenize(src)
        self.i = 0
        self.depth = 0

    def peek(self) -> _Tok:
        return self.toks[self.i]

    def take(self) -> _Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def error(self, msg: str, tok: _Tok | None = None) -> ConditionError:
        return ConditionError(msg, (tok or self.peek()).col, self.src)

    def is_word(self, word: str) -> bool:
        t = self.peek()
        return t.kind == "name" and t.text == word

    def expect(self, kind: str, what: str) -> _Tok:
        t = self.peek()
        if t.kind != kind:
            raise self.error(f"expected {what}, got {_describe(t)}")
        return self.take()

    def nest(self, tok: _Tok) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"nested deeper than {MAX_DEPTH} levels", tok)

    def parse(self) -> Node:
        if not self.src.strip():
            raise ConditionError("empty condition", 1, self.src)
        node = self.or_()
        t = self.peek()
        if t.kind != "end":
            raise self.error(f"expected 'and', 'or' or the end, got {_describe(t)}")
        return node

    def or_(self) -> Node:
        items = [self.and_()]
        while self.is_word("or"):
            self.take()
            items.append(self.and_())
        return items[0] if len(items) == 1 else Or(tuple(items))

    def and_(self) -> Node:
        items = [self.not_()]
        while self.is_word("and"):
            self.take()
            items.append(self.not_())
        return items[0] if len(items) == 1 else And(tuple(items))

    def not_(self) -> Node:
        if self.is_word("not"):
            tok = self.take()
            self.nest(tok)
            node = Not(self.not_())
            self.depth -= 1
            return node
        return self.compare()

    def compare(self) -> Node:
        left = self.operand()
        t = self.peek()
        if t.kind == "op" or (t.kind == "name" and t.text == "in"):
            op = self.take().text
        elif t.kind == "name" and t.text == "not" and self.toks[self.i + 1].text == "in":
            self.i += 2
            op = "not in"
        else:
            return left
        right = self.operand()
        nxt = self.peek()
        if nxt.kind == "op" or (nxt.kind == "name" and nxt.text == "in"):
            raise self.error("chained comparisons are not supported; join them with 'and'", nxt)
        return Compare(op, left, right)

    def operand(self) -> Node:
        t = self.peek()
        if t.kind == "(":
            self.take()
            self.nest(t)
            node = self.or_()
            self.depth -= 1
            self.expect(")", "')'")
            return node
        if t.kind == "[":
            return self.list_()
        if t.kind in ("str", "num", "-") or (t.kind == "name" and t.text in _CONSTANTS):
            return Literal(self.literal())
        if t.kind == "name":
            if self.toks[self.i + 1].kind == "(":
                return self.call()
            return self.path()
        raise self.error(f"expected a value, a path or '(', got {_describe(t)}")

    def literal(self) -> Any:
        t = self.take()
        if t.kind in ("str", "num"):
            return t.value
        if t.kind == "-":
            num = self.peek()
            if num.kind != "num":
                raise self.error(f"expected a number after '-', got {_describe(num)}")
            self.take()
            return -num.value
        if t.kind == "name" and t.text in _CONSTANTS:
            return _CONSTANTS[t.text]
        raise self.error(f"expected a literal, got {_describe(t)}", t)

    def list_(self) -> Node:
        start = self.take()
        items: list[Any] = []
        if self.peek().kind != "]":
            while True:
                t = self.peek()
                if t.kind not in ("str", "num", "-") and not (t.kind == "name" and t.text in _CONSTANTS):
                    raise self.error(f"list items must be literals, got {_describe(t)}")
                items.append(self.literal())
                if self.peek().kind == ",":
                    self.take()
                    continue
                break
        if self.peek().kind != "]":
            raise self.error(f"expected ',' or ']' to close the list opened at column {start.col}, "
                             f"got {_describe(self.peek())}")
        self.take()
        return ListLiteral(tuple(items))

    def call(self) -> Node:
        name = self.take()
        if name.text not in _FUNCTIONS:
            raise self.error(f"unknown function {name.text!r} (allowed: {', '.join(_FUNCTIONS)})", name)
        self.take()  # (
        if self.peek().kind != "name":
            raise self.error(f"has() takes a path, got {_describe(self.peek())}")
        path = self.path()
        self.expect(")", "')' to close has(")
        return Has(path)

    def path(self) -> Path:
        root = self.take()
        if root.text in _PY_CONSTANTS:
            raise self.error(f"unknown name {root.text!r}; did you mean {_PY_CONSTANTS[root.text]!r}?", root)
        if root.text in _KEYWORDS or root.text in _FUNCTIONS:
            raise self.error(f"unexpected keyword {root.text!r}", root)
        if root.text not in self.roots:
            raise self.error(f"unknown name {root.text!r} (paths start with: {', '.join(self.roots)})", root)
        parts = [root.text]
        while self.peek().kind == ".":
            self.take()
            seg = self.peek()
            if seg.kind == "name" or (seg.kind == "num" and isinstance(seg.value, int)):
                parts.append(self.take().text)
            else:
                raise self.error(f"expected a name after '.', got {_describe(seg)}")
        if self.peek().kind == "(":
            raise self.error("calls are not allowed (only has(path))")
        return Path(tuple(parts))


def _describe(t: _Tok) -> str:
    return "the end" if t.kind == "end" else repr(t.text)


def _compile(node: Node) -> Callable[[Mapping[str, Any]], Any]:
    """The AST as nested closures (what :meth:`Node.value` computes, without method dispatch)."""
    if isinstance(node, (Literal, ListLiteral)):
        v = node.v if isinstance(node, Literal) else node.items
        return lambda ctx: v
    if isinstance(node, Path):
        parts = node.parts
        if len(parts) == 1:
            key = parts[0]
            return lambda ctx: ctx.get(key)
        def path(ctx: Mapping[str, Any]) -> Any:
            v = resolve_path(ctx, parts)
            return None if v is MISSING else v
        return path
    if isinstance(node, Has):
        parts = node.path.parts
        def has(ctx: Mapping[str, Any]) -> Any:
            v = resolve_path(ctx, parts)
            return v is not MISSING and v is not None
        return has
    if isinstance(node, Compare):
        fn, left, right = node.fn, _compile(node.left), _compile(node.right)
        return lambda ctx: fn(left(ctx), right(ctx))
    if isinstance(node, Not):
        item = _compile(node.item)
        return lambda ctx: not item(ctx)
    if isinstance(node, (And, Or)):
        items = tuple(_compile(i) for i in node.items)
        if isinstance(node, And):
            def all_of(ctx: Mapping[str, Any]) -> Any:
                for f in items:
                    if not f(ctx):
                        return False
                return True
            return all_of
        def any_of(ctx: Mapping[str, Any]) -> Any:
            for f in items:
                if f(ctx):
                    return True
            return False
        return any_of
    raise TypeError(f"not a condition node: {node!r}")  # pragma: no cover - the parser makes only these


@dataclass(frozen=True, slots=True)
class Condition:
    """A parsed condition: ``source`` text and its AST ``node``.

    :meth:`__call__` evaluates it against a context mapping (``role``, ``slots``,
    ``entities``, ``memory``, ``session``) and returns a bool; it never raises.
    """

    source: str
    node: Node
    fn: Callable[[Mapping[str, Any]], Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fn", _compile(self.node))

    def __call__(self, ctx: Mapping[str, Any]) -> bool:
        return bool(self.fn(ctx))


def parse(source: str, roots: Sequence[str] = CONDITION_ROOTS) -> Condition:
    """Parse a condition.

    :param source: the expression text (≤ :data:`MAX_SOURCE_CHARS` characters).
    :param roots: allowed first names of paths.
    :raises ConditionError: with a 1-based column, for any syntax error, unknown name or
        function, ``__`` name, over-long or over-nested input.
    """
    if not isinstance(source, str):
        raise ConditionError(f"a condition must be a string, not {type(source).__name__}", 1, str(source))
    if len(source) > MAX_SOURCE_CHARS:
        raise ConditionError(f"condition longer than {MAX_SOURCE_CHARS} characters", MAX_SOURCE_CHARS + 1, source)
    return _parse_cached(source, tuple(roots))


@lru_cache(maxsize=4096)
def _parse_cached(source: str, roots: tuple[str, ...]) -> Condition:
    # conditions are immutable and packs repeat them: a reload re-parses only new text
    return Condition(source, _Parser(source, roots).parse())
