"""The condition language: parsing, evaluation, and hostile input rejected with a column."""

from __future__ import annotations

import pytest

from hermesd.rules.conditions import (
    MAX_DEPTH,
    And,
    Compare,
    ConditionError,
    Has,
    Not,
    Or,
    Path,
    parse,
)

CTX = {
    "role": "user",
    "slots": {"person": "张工", "count": 3, "empty": None},
    "entities": {"doc": "quote", "when": {"start": "2026-11-18", "end": "2026-11-19"}, "tags": ["a", "b"],
                 "people": [{"name": "张工"}, {"name": "李工"}]},
    "memory": {"last_sent": {"doc": "quote", "n": 2.5}},
    "session": {"auth": "PRE_AUTH", "state": "ROUTING"},
}


@pytest.mark.parametrize(("src", "expected"), [
    ("role == 'user'", True),
    ('role == "admin"', False),
    ("role != 'admin'", True),
    ("role in ['admin', 'user']", True),
    ("role not in ['admin']", True),
    ("entities.doc == memory.last_sent.doc", True),
    ("slots.count < 4", True),
    ("slots.count <= 3", True),
    ("slots.count > 3", False),
    ("slots.count >= 3.0", True),
    ("memory.last_sent.n > -1", True),
    ("slots.count < 'x'", False),  # mixed types are false, not an error
    ("slots.person < 3", False),
    ("entities.when.start >= '2026-11-01'", True),
    ("has(slots.person)", True),
    ("has(slots.empty)", False),
    ("has(slots.nothing)", False),
    ("has(entities.when.start)", True),
    ("not has(slots.nothing.deeper)", True),
    ("slots.nothing == null", True),
    ("'a' in entities.tags", True),
    ("'张' in slots.person", True),
    ("3 in slots.person", False),
    ("'doc' in entities", True),
    ("'x' in slots.count", False),
    ("entities.people.1.name == '李工'", True),
    ("entities.people.7.name == null", True),
    ("role == 'user' and session.auth == 'PRE_AUTH'", True),
    ("role == 'admin' or session.auth == 'PRE_AUTH'", True),
    ("not role == 'admin' and not (slots.count > 5 or false)", True),
    ("(role == 'admin' or role == 'user') and has(entities.doc)", True),
    ("true", True),
    ("slots.person", True),
    ("slots.empty", False),
    ("session.state == 'ROUTING'", True),
    ("'it\\'s' == \"it's\"", True),
])
def test_evaluates(src, expected):
    assert parse(src)(CTX) is expected


def test_ast_shape_and_precedence():
    c = parse("not has(slots.x) or role == 'a' and slots.y in [1, 2]")
    assert isinstance(c.node, Or)
    left, right = c.node.items
    assert left == Not(Has(Path(("slots", "x"))))
    assert isinstance(right, And) and isinstance(right.items[1], Compare) and right.items[1].op == "in"


def test_evaluation_never_raises_on_odd_context():
    c = parse("slots.a.b.c == 1 or 'k' in slots.d or slots.e < 3 or has(memory.x.y)")
    for ctx in ({}, {"slots": None}, {"slots": {"a": 5, "d": {"k": 1}}}, {"slots": {"a": [1], "d": [[1]], "e": [1]}},
                {"slots": {"d": {(1,): 2}}, "memory": {"x": "str"}}):
        c(ctx)


@pytest.mark.parametrize(("src", "column", "fragment"), [
    ("__import__('os').system('id')", 1, "'__'"),
    ("role.__class__", 6, "'__'"),
    ("slots.__dict__ == 1", 7, "'__'"),
    ("eval('1')", 1, "unknown function 'eval'"),
    ("open('/etc/passwd')", 1, "unknown function"),
    ("os.system == 1", 1, "unknown name 'os'"),
    ("role.upper()", 11, "calls are not allowed"),
    ("'a'.join(['b'])", 4, "expected 'and', 'or' or the end"),
    ("lambda: 1", 7, "unexpected character ':'"), ("lambda == 1", 1, "unknown name 'lambda'"),
    ("[x for x in slots]", 2, "list items must be literals"),
    ("role = 'admin'", 6, "use '=='"),
    ("role == 'admin' && true", 17, "use 'and'"),
    ("role == 'admin' || true", 17, "use 'or'"),
    ("!has(slots.x)", 1, "use 'not'"),
    ("role == ", 9, "expected a value"),
    ("(role == 'a'", 13, "expected ')'"),
    ("role == 'a')", 12, "expected 'and', 'or' or the end"),
    ("role == 'unterminated", 9, "unterminated string"),
    ("'\\x41' == 'A'", 2, "unknown escape"),
    ("1 < slots.count < 5", 17, "chained comparisons"),
    ("has(1)", 5, "has() takes a path"),
    ("has(slots.x", 12, "')' to close has("),
    ("slots.", 7, "expected a name after '.'"),
    ("role == True", 9, "did you mean 'true'"),
    ("and", 1, "unexpected keyword 'and'"),
    ("", 1, "empty condition"),
    ("   ", 1, "empty condition"),
    ("role == 'a' ; import os", 13, "unexpected character ';'"),
    ("role == `id`", 9, "unexpected character '`'"),
    ("[1, 2", 6, "close the list"),
    ("- role", 3, "expected a number after '-'"),
    ("slots.x == 1 2", 14, "expected 'and', 'or' or the end"),
    ("角色 == 'a'", 1, "unexpected character '角'"),
])
def test_rejected_with_column(src, column, fragment):
    with pytest.raises(ConditionError) as info:
        parse(src)
    assert fragment in info.value.message, info.value.message
    assert info.value.column == column, (info.value.column, info.value.message)
    assert str(info.value).endswith(f"at column {column}")
    assert info.value.pointer().splitlines()[1] == " " * (column - 1) + "^"


def test_deep_nesting_rejected_cleanly_not_recursion_error():
    ok = "(" * MAX_DEPTH + "true" + ")" * MAX_DEPTH
    assert parse(ok)({}) is True
    for src in ("(" * (MAX_DEPTH + 1) + "true" + ")" * (MAX_DEPTH + 1), "(" * 1990, "not " * 400 + "true"):
        with pytest.raises(ConditionError) as info:
            parse(src)
        assert "nested deeper" in info.value.message or "longer than" in info.value.message


def test_long_and_non_string_input_rejected():
    with pytest.raises(ConditionError, match="longer than"):
        parse("true or " * 500 + "true")
    with pytest.raises(ConditionError, match="must be a string"):
        parse(42)  # type: ignore[arg-type]


def test_long_flat_chains_are_fine():
    src = " and ".join(f"slots.count != {i}" for i in range(4, 90))
    assert parse(src)(CTX) is True


def test_roots_are_configurable():
    assert parse("steps.a.b == 1", roots=("steps",))({"steps": {"a": {"b": 1}}})
    with pytest.raises(ConditionError, match="unknown name 'role'"):
        parse("role == 'a'", roots=("steps",))


def test_values_are_not_python_objects_reachable_by_path():
    """A path indexes mappings and lists only: an object's attributes stay out of reach."""
    class Secret:
        token = "s3cret"
        def __getitem__(self, k):
            return "leak"
    c = parse("memory.obj.token == 's3cret' or memory.obj.x == 'leak'")
    assert c({"memory": {"obj": Secret()}}) is False
