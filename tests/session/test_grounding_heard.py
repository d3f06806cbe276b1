"""Grounding.heard (hermesd.session.grounding): the Heard the reader gets from a parse, in-process.

A slot said twice at an open card takes the value the card does not have yet ("不是合同，是发票");
a value the card has under another name is the card's own; every entity's words are passed on
(``mentions``) and each person mention's shown name (``people``).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from hermesd.dialogue.questions import Ask, Confirm
from hermesd.nlu.entities import Entity
from hermesd.nlu.normalize import normalize
from hermesd.session.grounding import Grounding

SPEC = SimpleNamespace(name="doc.send", slots={"doc": "doc_type", "person": "person", "when": "datetime"})
GAZ = {"doc_type": {"合同": "contract", "contract": "contract", "发票": "invoice", "invoice": "invoice",
                    "报价单": "quote", "报价": "quote", "quote": "quote"}}
NLU = SimpleNamespace(engine=SimpleNamespace(specs=[SPEC], gazetteers=GAZ), settings=SimpleNamespace(timezone="UTC"))
CARD = Confirm(intent="doc.send", rule_id="r", index=1, entities={"doc": "合同", "person": "李娜"})


def parsed(text: str, *entities: tuple[str, str, Any], intent: str | None = "doc.send") -> Any:
    ents = []
    for etype, said, value in entities:
        start = text.index(said)
        ents.append(Entity(etype, value, said, (start, start + len(said))))
    return SimpleNamespace(text=text, normalized=normalize(text).text, intent=intent, out_of_scope=intent is None,
                           kind="command", entities=tuple(ents))


def grounded(p: Any) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for e in p.entities:
        out.setdefault(e.type, []).append(e.value if e.type != "doc_type" else e.text)
    return out


@pytest.mark.parametrize("text,entities,slot,value", [
    ("不是合同，是发票", [("doc_type", "合同", "contract"), ("doc_type", "发票", "invoice")], "doc", "发票"),
    ("是发票，不是合同", [("doc_type", "发票", "invoice"), ("doc_type", "合同", "contract")], "doc", "发票"),
    ("not the contract but the invoice", [("doc_type", "contract", "contract"), ("doc_type", "invoice", "invoice")],
     "doc", "invoice"),
    ("好的，发合同吧", [("doc_type", "合同", "contract")], "doc", "合同"),
    ("好的，contract", [("doc_type", "contract", "contract")], "doc", "合同"),     # the card's own, by another name
    ("不是李娜，是王芳", [("person", "李娜", "李娜"), ("person", "王芳", "王芳")], "person", "王芳"),
])
def test_a_slot_said_twice_at_a_card_takes_the_new_value(text: str, entities: list, slot: str, value: str) -> None:
    g = Grounding(NLU, memory=None)  # type: ignore[arg-type]
    p = parsed(text, *entities)
    assert g.heard(p, CARD, grounded(p), "zh").slot_values[slot] == value


def test_with_nothing_open_the_first_value_is_kept() -> None:
    g = Grounding(NLU, memory=None)  # type: ignore[arg-type]
    p = parsed("把合同和发票发给李娜", ("doc_type", "合同", "contract"), ("doc_type", "发票", "invoice"), ("person", "李娜", "李娜"))
    assert g.heard(p, None, grounded(p), "zh").slot_values["doc"] == "合同"


def test_mentions_and_people_are_passed_on() -> None:
    g = Grounding(NLU, memory=None)  # type: ignore[arg-type]
    p = parsed("是強哥，这周发", ("person", "強哥", "张强"), ("datetime", "这周", {"kind": "range"}), intent=None)
    h = g.heard(p, Ask(intent="doc.send", rule_id="r", index=0, slot="person", entity="person"), grounded(p), "zh")
    assert h.mentions == ("强哥", "这周")
    assert dict(h.people) == {"强哥": "张强"}
    assert h.asked_value == "张强"


# a time phrase inserted in a reply's middle: a capital that only opened the person's sentence is dropped
@pytest.mark.parametrize("said,text", [
    ("Yesterday", "yesterday"), ("Last week", "last week"), ("Next Monday", "next Monday"), ("Tomorrow's", "tomorrow"),
    ("This afternoon", "this afternoon"), ("In two weeks", "in two weeks"), ("Since Friday", "since Friday"),
    ("Monday", "Monday"), ("Christmas", "Christmas"), ("December 5", "December 5"), ("yesterday", "yesterday"),
    ("ET noon", "ET noon"), ("明天", "明天"),
])
def test_a_time_said_is_kept_as_it_reads_inside_a_sentence(said, text):
    assert Grounding.time_value({"text": said, "kind": "date"})["text"] == text


@pytest.mark.parametrize("value, named", [
    ({"text": "下周", "kind": "range", "grain": "week"}, True), ({"text": "下个月", "kind": "range", "grain": "month"}, True),
    ({"text": "the weekend", "kind": "range", "grain": "weekend"}, True), ({"text": "march 20", "kind": "date", "grain": "day"}, True),
    ({"text": "10点", "kind": "datetime", "grain": "hour"}, False), ({"text": "下午", "kind": "range", "grain": "part_of_day"}, False),
    ({"text": "明天下午3点", "kind": "datetime", "grain": "hour"}, True),
])
def test_a_time_of_a_day_or_longer_names_its_day(value, named):
    """A reminder moved there keeps its clock time (day_named); "move it to next week" went to tomorrow 21:00."""
    assert Grounding.time_value(value)["day_named"] is named


def test_the_window_of_a_part_of_the_day_is_its_end_else_the_point():
    part = {"text": "下周一上午", "kind": "range", "grain": "part_of_day", "point": "2031-03-17T06:00:00+08:00",
            "start": "2031-03-17T06:00:00+08:00", "end": "2031-03-17T12:00:00+08:00"}
    assert Grounding.time_value(part)["window_end"] == "2031-03-17T12:00:00+08:00"
    hour = {**part, "text": "下周一上午10点", "kind": "datetime", "grain": "hour", "end": "2031-03-17T11:00:00+08:00"}
    assert Grounding.time_value(hour)["window_end"] == part["point"]
