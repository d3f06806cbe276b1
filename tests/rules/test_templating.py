"""Templates: typed substitution, text substitution, missing values naming the path, syntax errors."""

from __future__ import annotations

import pytest

from hermesd.errors import InputInvalid
from hermesd.rules.templating import (
    MissingValue,
    Template,
    TemplateSyntaxError,
    compile_value,
    paths_in,
    render,
)

CTX = {
    "role": "user",
    "entities": {"date": {"start": "2026-11-18", "end": "2026-11-19"}, "person": "张工", "n": 3, "none": None},
    "memory": {"last_report_filter": {"dept": "sales", "month": "2026-10"}},
    "steps": {"find": {"doc_id": "d-42", "matches": [{"name": "张伟"}, {"name": "张工"}], "ok": True, "score": 0.5}},
    "slots": {}, "session": {},
}


@pytest.mark.parametrize(("src", "expected"), [
    ("{{entities.date.start}}", "2026-11-18"),
    ("{{ steps.find.doc_id }}", "d-42"),
    ("{{entities.n}}", 3),
    ("{{steps.find.ok}}", True),
    ("{{steps.find.matches}}", [{"name": "张伟"}, {"name": "张工"}]),
    ("{{memory.last_report_filter}}", {"dept": "sales", "month": "2026-10"}),
    ("{{entities.none}}", None),
    ("{{steps.find.matches.1.name}}", "张工"),
    ("send to {{entities.person}}", "send to 张工"),
    ("{{entities.date.start}}..{{entities.date.end}}", "2026-11-18..2026-11-19"),
    ("n={{entities.n}} ok={{steps.find.ok}} s={{steps.find.score}} x={{entities.none}}", "n=3 ok=true s=0.5 x="),
    ("filter {{memory.last_report_filter}}", 'filter {"dept":"sales","month":"2026-10"}'),
    ("no placeholders", "no placeholders"),
])
def test_render(src, expected):
    out = Template.parse(src).render(CTX)
    assert out == expected and type(out) is type(expected)


def test_render_walks_params_and_copies():
    params = {"document": "{{steps.find.doc_id}}", "to": ["{{entities.person}}", "fixed"], "limit": 5,
              "nested": {"when": "{{entities.date}}"}}
    compiled = compile_value(params)
    out = render(compiled, CTX)
    assert out == {"document": "d-42", "to": ["张工", "fixed"], "limit": 5,
                   "nested": {"when": {"start": "2026-11-18", "end": "2026-11-19"}}}
    out["nested"]["when"]["start"] = "changed"  # typed substitution hands out the value, not a template
    assert paths_in(compiled) == [("steps", "find", "doc_id"), ("entities", "person"), ("entities", "date")]


@pytest.mark.parametrize(("src", "path", "missing"), [
    ("{{entities.date.start}}", "entities.date.start", "date"),
    ("x {{memory.last_report_filter.year}}", "memory.last_report_filter.year", "year"),
    ("{{steps.find.matches.5.name}}", "steps.find.matches.5.name", "5"),
    ("{{steps.send.message_id}}", "steps.send.message_id", "send"),
    ("{{entities.person.name}}", "entities.person.name", "name"),
])
def test_missing_value_names_the_path(src, path, missing):
    ctx = {**CTX, "entities": {"person": "张工"}} if "date" in src else CTX
    with pytest.raises(MissingValue) as info:
        Template.parse(src).render(ctx)
    err = info.value
    assert isinstance(err, InputInvalid) and err.code == "INPUT_INVALID"
    assert err.data == {"path": path, "missing": missing}
    assert "{{" + path + "}}" in err.message


@pytest.mark.parametrize(("src", "fragment"), [
    ("{{}}", "not a path"),
    ("{{ entities..x }}", "not a path"),
    ("{{entities.x | upper}}", "unknown filter"),
    ("{{__import__('os')}}", "not a path"),
    ("{{entities.__class__}}", "'__'"),
    ("{{os.environ}}", "unknown root 'os'"),
    ("{{entities.x", "unbalanced"),
    ("x }} y", "unbalanced"),
    ("{{1 + 1}}", "not a path"),
])
def test_syntax_errors(src, fragment):
    with pytest.raises(TemplateSyntaxError) as info:
        Template.parse(src)
    assert fragment in info.value.message


def test_column_of_the_bad_placeholder():
    with pytest.raises(TemplateSyntaxError) as info:
        Template.parse("ok {{entities.a}} then {{bad root}}")
    assert info.value.column == 24
