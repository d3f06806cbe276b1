"""A person said as a pronoun (他, her, the same person): the finder and the rewrite on the shipped
words, table-tested; which people a pronoun may stand for, on a real session record."""

from __future__ import annotations

import pytest

from hermesd.dialogue.lexicon import default_lexicon
from hermesd.dialogue.references import find_pronouns, with_name
from hermesd.nlu.normalize import normalize
from hermesd.session.machine import Machine
from hermesd.session.record import Session
from hermesd.session.references import note_people, people_in_play


def _found(text: str) -> list[tuple[str, bool]]:
    return [(p.word, p.possessive) for p in find_pronouns(normalize(text).text, default_lexicon())]


def _named(text: str, name: str) -> str:
    n = normalize(text)
    return with_name(text, find_pronouns(n.text, default_lexicon()), name, n)


@pytest.mark.parametrize("text, want", [
    ("再给他发一份合同", [("他", False)]),
    ("她的邮箱呢", [("她", False)]),
    ("给TA发个文件", [("ta", False)]),
    ("这个人是哪个部门的", [("这个人", False)]),
    ("同一个人的电话", [("同1个人", False)]),        # numerals are normalised to digits
    ("這個人是誰", [("这个人", False)]),            # Traditional, normalised
    ("他们的电话", []),                             # a group is never one person
    ("她們在哪", []),
    ("send her the quote too", [("her", False)]),   # object: an article follows
    ("email her", [("her", False)]),                # object: nothing follows
    ("what is her phone number", [("her", True)]),  # possessive: a noun follows
    ("his email address please", [("his", True)]),
    ("What is HER email?", [("her", True)]),
    ("send them the contract", [("them", False)]),
    ("call him back", [("him", False)]),
    ("the same person's phone number", [("the same person", False)]),
    ("where is the order", []),
    ("there is a problem", []),                     # "her" inside a word is no pronoun
])
def test_pronouns_found(text, want):
    assert _found(text) == want


@pytest.mark.parametrize("text, name, want", [
    ("再给他发一份合同", "张伟", "再给张伟发一份合同"),
    ("他的电话是多少", "张强", "张强的电话是多少"),
    ("send her the quote too", "李娜", "send 李娜 the quote too"),
    ("what is her phone number", "Li Na", "what is Li Na's phone number"),
    ("What is HER email?", "Li Na", "What is Li Na's email?"),
    ("his email address please", "Zhang Wei", "Zhang Wei's email address please"),
    ("他们的电话", "张伟", "他们的电话"),
])
def test_read_with_the_name(text, name, want):
    assert _named(text, name) == want


def _session() -> Session:
    return Session(session_id="s1", uid=1000, role="user", machine=Machine("s1"), created_ms=0, updated_ms=0,
                   expires_ms=86_400_000)


def test_people_in_play_are_those_of_the_last_turn_with_people():
    s = _session()
    assert people_in_play(None, s, None) == []
    s.refs = {"anchors": {"张伟": "person:sales/zhang"}}
    note_people(s, {"person": ["张伟"]})
    assert people_in_play(None, s, None) == ["张伟"]
    s.turns += 1
    s.refs = {"anchors": {"张伟": "person:sales/zhang", "李娜": "person:sales/li"}}
    note_people(s, {"person": ["张伟", "李娜"]})
    assert sorted(people_in_play(None, s, None)) == ["张伟", "李娜"]  # two in play: the caller asks
    s.turns += 1
    s.refs = {"anchors": {}}
    note_people(s, {"person": ["【某人】"]})  # not anchored: not a referent
    assert sorted(people_in_play(None, s, None)) == ["张伟", "李娜"]
    s.turns += 1
    s.refs = {"anchors": {"李娜": "person:sales/li"}}
    note_people(s, {"person": ["李娜"]})
    assert people_in_play(None, s, None) == ["李娜"]


def test_a_later_part_of_the_same_turn_replaces_the_earlier_one():
    s = _session()
    s.refs = {"anchors": {"李娜": "person:sales/li"}}
    note_people(s, {"person": ["李娜"]})
    s.refs = {"anchors": {"张伟": "person:sales/zhang"}}
    note_people(s, {"person": ["张伟"]})
    assert people_in_play(None, s, None) == ["张伟"]
