"""A generic noun (文件, 文档, document, file) never inherits a kind from an earlier turn: a resend's unsaid
document is the one last *sent* (to the person the request names), never a kind merely said in a request
that failed ("把周报发给王芳": no 周报 was found), zh × en (:mod:`hermesd.session.references`; a fake
memory port and grounding, no daemon).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from hermesd.dialogue.lexicon import default_lexicon
from hermesd.session.capture_turn import _remember_recent
from hermesd.session.machine import Machine
from hermesd.session.record import Session
from hermesd.session.references import _from_session, resolve_references

NOW = 1_900_000_000_000
DAY = 86_400_000
GAZ = {"周报": "weekly_report", "weekly report": "weekly_report", "报价单": "quote", "quote": "quote",
       "合同": "contract", "contract": "contract", "发票": "invoice", "invoice": "invoice"}
ANCHORS = {"王芳": "person:finance/wang", "李娜": "person:sales/li"}
SLOTS = {"doc.resend": {"doc": "doc_type", "docid": "doc_id", "person": "person", "when": "datetime", "nth": "ordinal"},
         "doc.send": {"doc": "doc_type", "person": "person"},
         "doc.list_sent": {"doc": "doc_type", "person": "person", "when": "datetime"}}


def _send(kind: str, to: str, at_ms: int, session_id: str = "old") -> dict[str, Any]:
    return {"type": "event", "object": f"{kind}.pdf", "object_kind": kind, "target_anchor": ANCHORS[to],
            "at_ms": at_ms, "session_id": session_id, "data": {"entities": {"doc_type": [kind]}}, "updated_ms": at_ms}


@dataclass
class FakeMemory:
    items: list[dict[str, Any]] = field(default_factory=list)
    settings: Any = field(default_factory=lambda: SimpleNamespace(hidden_fields={}))

    async def search(self, uid, *, since=None, until=None, k=3, session_id=None, anchors=None, entity=None, **kw):
        out = [it for it in self.items if (since is None or it["at_ms"] >= since) and (until is None or it["at_ms"] < until)
               and (session_id is None or it.get("session_id") == session_id)
               and (not anchors or it.get("target_anchor") in anchors)
               and (entity is None or entity in (it.get("data") or {}).get("entities", {}))]
        return sorted(out, key=lambda it: -it["at_ms"])[:k]


class FakeGrounding:
    def __init__(self, memory: FakeMemory) -> None:
        self.memory = memory
        self.nlu = SimpleNamespace(engine=SimpleNamespace(gazetteers={"doc_type": GAZ}))

    def spec_slots(self, intent):
        return dict(SLOTS.get(intent) or {})

    def ms_range(self, s, when):
        return when.get("since_ms"), when.get("until_ms")

    async def person(self, s, value):
        return value, None


def _session() -> Session:
    s = Session("now", 0, "admin", Machine("now"), created_ms=NOW, updated_ms=NOW, expires_ms=NOW + DAY, ref_ms=NOW)
    s.refs["anchors"] = dict(ANCHORS)
    return s


def _failed_request(s: Session, kind: str) -> None:
    """What a request for ``kind`` that failed leaves in the session (its entities, marked failed)."""
    s.last_trace = {"failure": {"code": "NOT_FOUND"}}
    _remember_recent(s, {"entities": [{"type": "doc_type", "value": kind}, {"type": "person", "value": "王芳"}]})
    s.last_trace = None


async def _resolve(s: Session, memory: FakeMemory, text: str, entities: dict[str, list[Any]], lang: str,
                   intent: str = "doc.resend") -> tuple[dict[str, list[Any]], list[str]]:
    parsed = SimpleNamespace(text=text)
    notes, missing = await resolve_references(FakeGrounding(memory), s, parsed, entities, lexicon=default_lexicon(),
                                              intent=intent, lang=lang)
    return entities, missing


@pytest.mark.parametrize("text, lang", [("把发给王芳的文件再发一遍", "zh"), ("把发给王芳的文档重新发一下", "zh"),
                                        ("resend the document I sent to Wang Fang", "en"),
                                        ("send the file I sent to Wang Fang again", "en")])
async def test_the_document_sent_to_the_person_named_not_the_failed_kind(text, lang):
    # the contract went to 王芳 yesterday; a quote went to 李娜 since (the last send of all); 周报 just failed
    memory = FakeMemory([_send("contract", "王芳", NOW - DAY), _send("quote", "李娜", NOW - 3_600_000)])
    s = _session()
    _failed_request(s, "周报" if lang == "zh" else "weekly report")
    entities, _ = await _resolve(s, memory, text, {"person": ["王芳"]}, lang)
    assert entities.get("doc_type") == ["合同" if lang == "zh" else "contract"]


@pytest.mark.parametrize("text, lang", [("把发给王芳的文件再发一遍", "zh"), ("resend the document I sent to Wang Fang", "en")])
async def test_nothing_sent_to_them_leaves_the_document_unsaid(text, lang):
    memory = FakeMemory([_send("quote", "李娜", NOW - 3_600_000)])  # nothing ever went to 王芳
    s = _session()
    _failed_request(s, "周报" if lang == "zh" else "weekly report")
    entities, _ = await _resolve(s, memory, text, {"person": ["王芳"]}, lang)
    assert not entities.get("doc_type")  # never 周报 (it failed), never the quote (it went to 李娜)


@pytest.mark.parametrize("text, lang", [("把上周三发给王芳的文件再发一遍", "zh"),
                                        ("resend the document I sent to Wang Fang last Wednesday", "en")])
async def test_with_a_day_named_the_document_sent_then_to_them(text, lang):
    wed = NOW - 8 * DAY
    memory = FakeMemory([_send("invoice", "王芳", wed + 3_600_000), _send("quote", "李娜", wed + 7_200_000),
                         # a memory merely mentioning 周报 that day (a request, no send) is no document
                         {"type": "summary", "at_ms": wed + 9_000_000, "updated_ms": wed + 9_000_000,
                          "data": {"entities": {"doc_type": ["weekly_report"]}}}])
    s = _session()
    when = {"start": "x", "end": "y", "since_ms": wed, "until_ms": wed + DAY, "text": "上周三" if lang == "zh" else "last Wednesday"}
    entities, missing = await _resolve(s, memory, text, {"person": ["王芳"], "datetime": [when]}, lang)
    assert entities.get("doc_type") == ["发票" if lang == "zh" else "invoice"] and not missing


@pytest.mark.parametrize("text, lang", [("把那个文件发给李娜", "zh"), ("send that document to Li Na", "en")])
async def test_a_kind_said_in_a_failed_request_is_no_referent(text, lang):
    s = _session()
    _failed_request(s, "周报" if lang == "zh" else "weekly report")
    entities, missing = await _resolve(s, FakeMemory(), text, {"person": ["李娜"]}, lang, intent="doc.send")
    assert not entities.get("doc_type") and missing  # said plainly: nothing to refer to


@pytest.mark.parametrize("text, lang", [("把那个文件发给李娜", "zh"), ("send that document to Li Na", "en")])
async def test_a_kind_said_in_a_request_that_worked_still_is(text, lang):
    s = _session()
    _remember_recent(s, {"entities": [{"type": "doc_type", "value": "报价单" if lang == "zh" else "quote"}]})
    entities, missing = await _resolve(s, FakeMemory(), text, {"person": ["李娜"]}, lang, intent="doc.send")
    assert entities.get("doc_type") == ["报价单" if lang == "zh" else "quote"] and not missing


@pytest.mark.parametrize("text, lang", [("第二个再发一遍", "zh"), ("resend the second one", "en")])
async def test_a_place_said_leaves_nothing_unsaid(text, lang):
    memory = FakeMemory([_send("contract", "王芳", NOW - 60_000, session_id="now")])
    entities, _ = await _resolve(_session(), memory, text, {"ordinal": ["2"]}, lang)
    assert not entities.get("doc_type")  # the place names the document (the list's), not the last one sent


@pytest.mark.parametrize("text, lang", [("也发给李娜", "zh"), ("send it to Li Na too", "en")])
async def test_also_is_the_document_last_sent_to_anyone(text, lang):
    # "也发给李娜": the person is the new one; the document is the one just sent (to 王芳)
    memory = FakeMemory([_send("quote", "王芳", NOW - 60_000, session_id="now"), _send("contract", "李娜", NOW - DAY)])
    entities, _ = await _resolve(_session(), memory, text, {"person": ["李娜"]}, lang, intent="doc.send")
    assert entities.get("doc_type") == ["报价单" if lang == "zh" else "quote"]


@pytest.mark.parametrize("text, lang", [("今天发给李娜的文件有哪些", "zh"), ("which documents did I send to Li Na today?", "en")])
async def test_a_generic_noun_in_a_question_is_the_set_asked_about(text, lang):
    memory = FakeMemory([_send("invoice", "李娜", NOW - 60_000)])
    today = {"start": "x", "end": "y", "since_ms": NOW - 3_600_000, "until_ms": NOW + 1, "text": "今天" if lang == "zh" else "today"}
    parsed = SimpleNamespace(text=text, kind="question")
    entities = {"person": ["李娜"], "datetime": [today]}
    await resolve_references(FakeGrounding(memory), _session(), parsed, entities, lexicon=default_lexicon(),
                             intent="doc.list_sent", lang=lang)
    assert not entities.get("doc_type")  # every document sent to her today, not the invoice alone


@pytest.mark.parametrize("text, lang", [("send the last file again", "en"), ("把最后那个文件再发一遍", "zh")])
async def test_a_place_said_with_a_noun_is_no_reference_to_look_up(text, lang):
    entities, missing = await _resolve(_session(), FakeMemory(), text, {"ordinal": ["last"]}, lang)
    assert not entities.get("doc_type") and not missing  # never "no file has come up in this conversation"


async def test_an_order_id_of_a_failed_lookup_is_still_the_one_tried_again():
    s = _session()
    s.last_trace = {"failure": {"code": "NOT_FOUND"}}
    _remember_recent(s, {"entities": [{"type": "order_id", "value": "SO-20240612"}]})
    assert _from_session(s, ["order_id"]) == ("order_id", "SO-20240612")
