"""hermesd.typed: annotation-driven models with pydantic v2's lax rules and messages, every error listed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import pytest

from hermesd.typed import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    StrictBool,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    n: int = Field(1, ge=1, le=10)


class Outer(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    name: str = Field(pattern=r"^[a-z]+$")
    level: Literal["debug", "info", "warning", "error"] = "info"
    ratio: float = Field(0.5, gt=0)
    path: Path | None = None
    tags: list[str] = Field(default_factory=list, max_length=3)
    inner: Inner = Inner()
    kind: str = Field("a", alias="class")
    flag: StrictBool = False


def _errors(cls: type[BaseModel], data: Any) -> list[tuple[tuple, str]]:
    with pytest.raises(ValidationError) as ei:
        cls.model_validate(data)
    return [(e["loc"], e["msg"]) for e in ei.value.errors()]


def test_defaults_and_lax_coercions() -> None:
    m = Outer.model_validate({"name": "abc", "ratio": 2, "path": "/x", "inner": {"n": "3"}, "class": "k"})
    assert (m.ratio, m.path, m.inner.n, m.kind, m.level, m.tags) == (2.0, Path("/x"), 3, "k", "info", [])
    assert Outer.model_validate({"name": "abc", "kind": "by-name"}).kind == "by-name"
    assert m.model_dump(mode="json")["path"] == "/x"
    assert Outer(name="abc") == Outer.model_validate({"name": "abc"})


@pytest.mark.parametrize(("data", "expected"), [
    ({}, [(("name",), "Field required")]),
    ({"name": "ABC"}, [(("name",), "String should match pattern '^[a-z]+$'")]),
    ({"name": "a", "level": "loud"}, [(("level",), "Input should be 'debug', 'info', 'warning' or 'error'")]),
    ({"name": "a", "ratio": 0}, [(("ratio",), "Input should be greater than 0")]),
    ({"name": "a", "inner": {"n": 11}}, [(("inner", "n"), "Input should be less than or equal to 10")]),
    ({"name": "a", "inner": {"n": 1.5}}, [(("inner", "n"), "Input should be a valid integer, got a number with a fractional part")]),
    ({"name": "a", "inner": {"n": "x"}}, [(("inner", "n"), "Input should be a valid integer, unable to parse string as an integer")]),
    ({"name": "a", "tags": ["a", 1]}, [(("tags", 1), "Input should be a valid string")]),
    ({"name": "a", "tags": ["a"] * 4}, [(("tags",), "List should have at most 3 items after validation, not 4")]),
    ({"name": "a", "flag": 1}, [(("flag",), "Input should be a valid boolean")]),
    ({"name": "a", "bogus": 1}, [(("bogus",), "Extra inputs are not permitted")]),
    ("text", [((), "Input should be a valid dictionary or instance of Outer")]),
])
def test_messages_are_pydantics(data: Any, expected: list) -> None:
    assert _errors(Outer, data) == expected


def test_every_error_is_listed_not_only_the_first() -> None:
    errs = _errors(Outer, {"name": 5, "ratio": -1, "inner": {"n": 0, "x": 1}, "zz": 0})
    assert [loc for loc, _ in errs] == [("name",), ("ratio",), ("inner", "n"), ("inner", "x"), ("zz",)]


def test_frozen_models_refuse_assignment() -> None:
    m = Inner()
    with pytest.raises(ValidationError, match="Instance is frozen"):
        m.n = 2


def _kind(v: Any) -> str | None:
    if isinstance(v, dict):
        return next((k for k in ("tool", "reply") if k in v), None)
    return getattr(v, "kind", None)


class ToolStep(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tool: str
    _compiled: str = PrivateAttr(default="")

    def model_post_init(self, context: Any, /) -> None:
        self._compiled = self.tool.upper()


class ReplyStep(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reply: Annotated[str, AfterValidator(lambda s: s.strip())]

    @field_validator("reply")
    @classmethod
    def _not_empty(cls, v: str) -> str:
        if not v:
            raise ValueError("a reply says something")
        return v


Step = Annotated[Annotated[ToolStep, Tag("tool")] | Annotated[ReplyStep, Tag("reply")], Discriminator(_kind)]


class Plan(BaseModel):
    steps: list[Step]
    limit: int | str | None = None

    @model_validator(mode="after")
    def _some(self) -> Plan:
        if not self.steps:
            raise ValueError("a plan has a step")
        return self


def test_discriminated_unions_validators_and_private_attributes() -> None:
    p = Plan.model_validate({"steps": [{"tool": "clock"}, {"reply": " hi "}], "limit": "5"})
    assert isinstance(p.steps[0], ToolStep) and p.steps[0]._compiled == "CLOCK"
    assert p.steps[1].reply == "hi" and p.limit == "5"  # smart union: the exact type wins
    assert Plan.model_validate({"steps": [{"tool": "x"}], "limit": 5}).limit == 5
    assert _errors(Plan, {"steps": [{"reply": "  "}, {"tool": 1}, {"other": 1}]}) == [
        (("steps", 0, "reply", "reply"), "Value error, a reply says something"),
        (("steps", 1, "tool", "tool"), "Input should be a valid string"),
        (("steps", 2), "Unable to extract tag using discriminator _kind()"),
    ]
    assert _errors(Plan, {"steps": []}) == [((), "Value error, a plan has a step")]


def _positive(cls: type, v: int) -> int:
    if v < 0:
        raise ValueError("not below zero")
    return v


class Reused(BaseModel):
    """A validator taken from elsewhere as a plain function is bound to the class (pydantic's rule)."""

    n: int = 0
    _n = field_validator("n")(_positive)


def test_a_plain_function_validator_is_a_classmethod() -> None:
    assert Reused.model_validate({"n": 2}).n == 2
    assert _errors(Reused, {"n": -1}) == [(("n",), "Value error, not below zero")]
