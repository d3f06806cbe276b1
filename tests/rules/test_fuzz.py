"""Hostile input, generated: the parsers either accept or raise their own error, nothing else."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hermesd.rules.conditions import ConditionError, parse
from hermesd.rules.templating import MissingValue, Template, TemplateSyntaxError

ALPHABET = st.sampled_from(list("()[]'\"\\.,-_=!<>&| \t\nabcdeghinorstu0123456789张") +
                           ["and", "or", "not", "in", "has(", "role", "slots.", "entities.", "__", "{{", "}}", "null"])
VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                      max_leaves=8)
CTX = st.fixed_dictionaries({"role": VALUES, "slots": VALUES, "entities": VALUES, "memory": VALUES,
                             "session": VALUES, "steps": VALUES})


@settings(max_examples=400, deadline=None)
@given(st.lists(ALPHABET, max_size=40).map("".join), CTX)
def test_condition_parse_is_total(src, ctx):
    try:
        cond = parse(src)
    except ConditionError as exc:
        assert 1 <= exc.column <= len(src) + 1
        return
    assert cond(ctx) in (True, False)


@settings(max_examples=300, deadline=None)
@given(st.lists(ALPHABET, max_size=30).map("".join), CTX)
def test_template_parse_is_total(src, ctx):
    try:
        tpl = Template.parse(src)
    except TemplateSyntaxError as exc:
        assert 1 <= exc.column <= len(src) + 1
        return
    try:
        tpl.render(ctx)
    except MissingValue as exc:
        path = tuple(exc.data["path"].split("."))
        assert path in tpl.paths and exc.data["missing"] in path
