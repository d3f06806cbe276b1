"""A told clause changed, forgotten or kept (pure: :mod:`hermesd.memory.facts`, :mod:`hermesd.memory.clauses`).

- a correction (不对，… / "no, …", "…, not coffee", "I like tea better now", 我现在更喜欢…了) is a note of change
  ``correct``; a negated clause said as no longer true (我现在不喜欢喝绿茶了, "I don't like coffee anymore") is a
  negative preference that contradicts the positive one, and a place no longer true ("I no longer live in Leeds",
  我不住在杭州了) a forget of change ``retract``;
- "forget that I like coffee", 忘掉我喜欢喝咖啡, 别记着我喜欢咖啡了 forget the told clause, not a subject named
  "that i like coffee";
- an age (我儿子今年八岁, "my son is eight") is the being's age, asked back with 几岁 / "how old"; where one lives
  (我住在杭州, "I live in Leeds") is kept said without a memory verb;
- an opinion of a circumstance or a person ("I hate Mondays", 我讨厌下雨天, "I love my job") is no preference,
  while a food or drink disliked ("I hate coriander", 我讨厌香菜) or anything else liked ("I love jazz") is one.
"""

from __future__ import annotations

import pytest

from hermesd.memory.clauses import contradicts, opinion, same_clause, same_topic, told_clause
from hermesd.memory.facts import read_request
from hermesd.nlu.normalize import normalize


def _read(text: str):
    return read_request(normalize(text).text)


@pytest.mark.parametrize("text, value, old", [
    ("不对，我喜欢喝红茶", "我喜欢喝红茶", ""),
    ("错了，我喜欢吃饺子", "我喜欢吃饺子", ""),
    ("不对，我住在杭州", "我住在杭州", ""),
    ("我现在更喜欢喝红茶了", "我喜欢喝红茶", ""),
    ("我喜欢喝红茶，不是绿茶", "我喜欢喝红茶", "绿茶"),
    ("no, I like tea", "I like tea", ""),
    ("I like tea better now, not coffee", "I like tea", "coffee"),
    ("I like tea now, not coffee", "I like tea", "coffee"),
    ("I prefer tea these days", "I prefer tea", ""),
    ("I meant I like jazz", "I like jazz", ""),
    ("I live in York now", "I live in York", ""),
])
def test_a_correction_is_a_note_that_replaces_one_of_its_topic(text, value, old):
    req = _read(text)
    assert req is not None and (req.intent, req.relation, req.change) == ("memory.remember", "note", "correct")
    assert req.value.lower() == value.lower() and req.old == old and req.clause is not None


@pytest.mark.parametrize("text, value, positive", [
    ("我现在不喜欢喝绿茶了", "我不喜欢喝绿茶", "我喜欢喝绿茶"),
    ("我不再喜欢喝绿茶", "我不喜欢喝绿茶", "我喜欢喝绿茶"),
    ("我已经不吃猪肉了", "我不吃猪肉", "我吃猪肉"),
    ("I don't like coffee anymore", "i don't like coffee", "i like coffee"),
    ("I no longer like coffee", "i don't like coffee", "i like coffee"),
    ("I don't eat pork any more", "i don't eat pork", "i eat pork"),
])
def test_a_preference_no_longer_held_is_its_negative_which_contradicts_the_positive(text, value, positive):
    req = _read(text)
    assert req is not None and (req.intent, req.relation, req.stated) == ("memory.remember", "note", True)
    assert req.value.lower() == value
    assert contradicts(req.clause, told_clause(positive))


@pytest.mark.parametrize("text, withdrawn", [
    ("我不住在杭州了", "我住在杭州"), ("我现在不在国贸上班了", "我在国贸上班"),
    ("I no longer live in Leeds", "i live in leeds"), ("I don't live in Leeds anymore", "i live in leeds"),
    ("I don't work at Acme any longer", "i work at acme"), ("I'm not allergic to nuts anymore", "i am allergic to nuts"),
])
def test_a_place_no_longer_true_is_withdrawn(text, withdrawn):
    req = _read(text)
    assert req is not None and (req.intent, req.change) == ("memory.forget", "retract")
    assert req.subject == withdrawn and same_clause(req.clause, told_clause(withdrawn))


@pytest.mark.parametrize("text", ["我不喜欢吃香菜", "I don't like coffee", "I do not eat pork"])
def test_a_negation_without_a_word_of_change_is_a_plain_dislike(text):
    req = _read(text)
    assert req is not None and (req.intent, req.relation, req.change) == ("memory.remember", "note", "")
    assert req.value.lower() == text.lower()  # "do not eat pork" names no old value: the whole clause is kept


@pytest.mark.parametrize("text, clause", [
    ("forget that I like coffee", "i like coffee"), ("forget I like coffee", "i like coffee"),
    ("please forget that my wife loves roses", "my wife loves roses"), ("stop remembering that I live in Leeds", "i live in leeds"),
    ("忘掉我喜欢喝咖啡", "我喜欢喝咖啡"), ("别记着我喜欢咖啡了", "我喜欢咖啡"), ("不用再记着我住在杭州了", "我住在杭州"),
    ("不要记住我讨厌香菜", "我讨厌香菜"),
])
def test_forget_a_told_clause(text, clause):
    req = _read(text)
    assert req is not None and (req.intent, req.subject, req.change) == ("memory.forget", clause, "")
    assert req.clause is not None and same_clause(req.clause, told_clause(clause))


@pytest.mark.parametrize("text, subject, value", [
    ("我儿子今年八岁", "我儿子的年龄", "8岁"), ("我儿子八岁了", "我儿子的年龄", "8岁"), ("我女儿3岁半", "我女儿的年龄", "3岁半"),
    ("我今年35岁", "我的年龄", "35岁"), ("记住我儿子今年八岁", "我儿子的年龄", "8岁"),
    ("my son is eight", "son's age", "eight"), ("my daughter is 3 years old", "daughter's age", "3"),
    ("my son just turned twenty-one", "son's age", "twenty-one"), ("I'm 35", "age", "35"),
    ("remember my son is eight", "son's age", "eight"),
])
def test_an_age_is_the_beings_age(text, subject, value):
    req = _read(text)
    assert req is not None and (req.intent, req.subject, req.value, req.relation) == ("memory.remember", subject, value, "is")


@pytest.mark.parametrize("text, subject", [
    ("我儿子几岁", "我儿子的年龄"), ("我儿子今年几岁了", "我儿子的年龄"), ("我女儿多大了", "我女儿的年龄"), ("我多大", "我的年龄"),
    ("how old is my son", "son's age"), ("how old is my son now?", "son's age"), ("how old am I", "age"),
])
def test_an_age_is_asked_back(text, subject):
    req = _read(text)
    assert req is not None and (req.intent, req.subject) == ("memory.recall", subject)


@pytest.mark.parametrize("text", ["我住在杭州", "我在国贸上班", "我是上海人", "I live in Leeds", "I work at Acme", "I'm from Leeds",
                                  "my wife works at the hospital"])
def test_where_one_lives_or_works_is_kept_said_plainly(text):
    req = _read(text)
    assert req is not None and (req.intent, req.relation, req.stated) == ("memory.remember", "note", True)


@pytest.mark.parametrize("text", ["我儿子的狗", "我是谁", "I live", "my son is a teacher? no", "我的车是白色的"])
def test_no_age_or_place_where_none_is_told(text):
    req = _read(text)
    assert req is None or (req.relation != "note" and "age" not in req.subject and "年龄" not in req.subject)


OPINIONS = ["I hate Mondays", "I hate rainy days", "I love my job", "I hate my boss", "I can't stand traffic",
            "I don't like winter", "我讨厌周一", "我讨厌下雨天", "我不喜欢冬天", "我爱我老婆", "我讨厌堵车", "I hate waiting",
            "my boss hates me", "my wife hates Mondays"]
PREFERENCES = ["I hate coriander", "I hate onions", "I love jazz", "I don't like spicy food", "I like coffee in the morning",
               "我讨厌香菜", "我不喜欢吃辣", "我喜欢喝茶", "我讨厌吃香菜", "my wife loves roses", "我老婆不吃辣", "我女儿喜欢画画"]


@pytest.mark.parametrize("text", OPINIONS)
def test_an_opinion_of_a_circumstance_or_a_person_is_not_kept(text):
    assert opinion(told_clause(normalize(text).text))
    assert _read(text) is None


@pytest.mark.parametrize("text", PREFERENCES)
def test_a_preference_is_kept(text):
    assert not opinion(told_clause(normalize(text).text))
    req = _read(text)
    assert req is not None and (req.intent, req.relation) == ("memory.remember", "note")


def test_remember_keeps_even_an_opinion_when_asked_to():
    req = _read("remember I hate Mondays")
    assert req is not None and (req.intent, req.value.lower()) == ("memory.remember", "i hate mondays")


@pytest.mark.parametrize("new, old, named, replaces", [
    ("我喜欢喝红茶", "我喜欢喝绿茶", "", True),     # a drink liked replaces a drink liked
    ("我喜欢喝红茶", "我喜欢吃饺子", "", False),    # not a food
    ("i like tea", "i like coffee", "coffee", True),
    ("i like tea", "i like jazz", "coffee", False),  # the old one named is coffee
    ("i live in york", "i live in leeds", "", True),
    ("i live in york", "i work at acme", "", False),
    ("my wife likes tea", "i like coffee", "", False),  # somebody else's
])
def test_what_a_correction_replaces(new, old, named, replaces):
    assert same_topic(told_clause(new), told_clause(old), named) is replaces


@pytest.mark.parametrize("new, old, contradicts_", [
    ("i don't like coffee", "i like coffee", True), ("我不吃猪肉", "我吃猪肉", True), ("我不喜欢喝绿茶", "我喜欢喝绿茶", True),
    ("i don't like coffee", "i like tea", False), ("i like coffee", "i like coffee", False),
    ("my wife doesn't like coffee", "i like coffee", False),
])
def test_a_contradiction_is_the_same_thing_negated(new, old, contradicts_):
    assert contradicts(told_clause(new), told_clause(old)) is contradicts_
