"""References to what just happened (issue 13 §3): the finder on the shipped words, table-tested."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermesd.dialogue.lexicon import default_lexicon, load_lexicon
from hermesd.dialogue.references import find_references
from hermesd.errors import InputInvalid
from hermesd.nlu.normalize import normalize


def _refs(text: str, lex=None) -> list[tuple[str | None, str, bool]]:
    n = normalize(text).text
    return [(r.etype, r.said(n), r.weak) for r in find_references(n, lex or default_lexicon())]


@pytest.mark.parametrize("text, want", [
    ("刚才那个订单到哪了", [("order_id", "那个订单", False)]),
    ("上次那个工单怎么样了", [("ticket_id", "那个工单", False)]),
    ("把那份文件再发给王会计", [("doc_type", "那份文件", False)]),
    ("还是那个订单", [("order_id", "那个订单", False)]),
    ("還是那個訂單", [("order_id", "那个订单", False)]),          # Traditional, normalised
    ("之前的订单发货了吗", [("order_id", "之前的订单", False)]),
    ("where is that order", [("order_id", "that order", False)]),
    ("has the last order shipped", [("order_id", "the last order", False)]),
    ("send that document to li na", [("doc_type", "that document", False)]),
    ("the previous support ticket", [("ticket_id", "the previous support ticket", False)]),
    ("the same one please", [(None, "the same one", False)]),
    ("同一个", [(None, "同1个", False)]),  # numerals are normalised to digits
    # weak: only an article; the session counts it only with a time phrase
    ("the order from monday", [("order_id", "the order", True)]),
    ("我的订单到哪了", [("order_id", "的订单", True)]),
])
def test_references_found(text, want):
    assert _refs(text) == want


@pytest.mark.parametrize("text", [
    "订单DD20300615001到哪了",          # an id, no marker
    "那个，帮我查订单",                  # 那个 as an opener: punctuation ends the reach
    "那个我昨天跟你说过的很重要的订单",    # too far from its noun
    "查一下磁盘空间",
    "where is my parcel",
])
def test_no_reference(text):
    assert [x for x in _refs(text) if not x[2]] == []


def test_a_pack_adds_type_nouns(tmp_path: Path):
    pack = tmp_path / "refs.yaml"
    pack.write_text("references:\n  types:\n    booking_id: {zh: [预订], en: [booking, reservation]}\n",
                    encoding="utf-8")
    lex = load_lexicon([pack])
    assert _refs("那个预订取消掉", lex) == [("booking_id", "那个预订", False)]
    assert _refs("cancel that reservation", lex) == [("booking_id", "that reservation", False)]
    assert _refs("刚才那个订单", lex) == [("order_id", "那个订单", False)]  # the shipped words stay


@pytest.mark.parametrize("body, says", [
    ("references:\n  types:\n    Order-Id: {zh: [订单]}\n", "expected an entity type name"),
    ("references:\n  types: [订单]\n", "expected a mapping of entity type"),
    ("references:\n  markes: {zh: [那个]}\n", "did you mean 'markers'"),
    ("references:\n  markers: {fr: [ce]}\n", "unknown language"),
])
def test_bad_reference_words_are_refused(tmp_path: Path, body: str, says: str):
    pack = tmp_path / "bad.yaml"
    pack.write_text(body, encoding="utf-8")
    with pytest.raises(InputInvalid) as err:
        load_lexicon([pack])
    assert says in str(err.value) + " ".join(err.value.data["violations"])
