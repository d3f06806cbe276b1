"""A clause told (a preference, a habit, where one lives or works) asked back (:mod:`hermesd.memory.clauses`,
pure), and a stored date said in the reply's language (:func:`hermesd.session.memoryturn.value_in_language`).

Both kinds of question are in the tables: a first-person question about what was told is a recall of
relation ``clause``; a question about the world (a modal, a time of now, a verb nobody told) is none."""

from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from hermesd.memory.clauses import answers_clause, asked_clause, told_clause
from hermesd.memory.facts import CLAUSE, read_request
from hermesd.session.memoryturn import said_back, value_in_language


@pytest.mark.parametrize("text, embedded", [
    ("我喜欢喝什么", "我喜欢喝什么"),
    ("我喜欢什么", "我喜欢什么"),
    ("我最喜欢吃什么", "我最喜欢吃什么"),
    ("你记得我喜欢喝什么吗", "我喜欢喝什么"),
    ("你知道我讨厌什么吗", "我讨厌什么"),
    ("我喜欢喝茶吗", "我是否喜欢喝茶"),
    ("我对什么过敏", "我对什么过敏"),
    ("我不吃什么", "我不吃什么"),
    ("我住在哪", "我住在哪"),
    ("我住在哪里", "我住在哪里"),
    ("我在哪上班", "我在哪上班"),
    ("我是哪里人", "我是哪里人"),
    ("我老婆喜欢什么", "我老婆喜欢什么"),
    ("我女儿在哪上学", "我女儿在哪上学"),
    ("我每天几点起床", "我每天几点起床"),
    ("我平时吃什么", "我平时吃什么"),
    ("你记得我养什么吗", "我养什么"),       # the frame asks what was told, whatever the verb
    ("what do i like to drink", "what i like to drink"),
    ("what do i like", "what i like"),
    ("what do i like to eat?", "what i like to eat"),
    ("what don't i like", "what i don't like"),
    ("do i like green tea", "whether i like green tea"),
    ("do i like tea?", "whether i like tea"),
    ("am i allergic to peanuts", "whether i am allergic to peanuts"),
    ("what am i allergic to", "what i am allergic to"),
    ("where do i live", "where i live"),
    ("where do i work", "where i work"),
    ("who do i work for", "who i work for"),
    ("where am i from", "where i am from"),
    ("what does my wife like", "what my wife likes"),
    ("what is my aunt allergic to", "what my aunt is allergic to"),
    ("do you remember what i like to drink", "what i like to drink"),
    ("when do i usually get up", "when i usually get up"),
])
def test_a_question_about_what_was_told_is_a_clause_recall(text: str, embedded: str) -> None:
    req = read_request(text)
    assert req is not None and req.intent == "memory.recall" and req.relation == CLAUSE, (text, req)
    assert req.subject == embedded and req.clause is not None


@pytest.mark.parametrize("text", [
    "我该怎么办", "我现在该做什么", "我在哪里能买到咖啡", "我想吃什么", "我吃什么", "我是谁", "我明天几点开会",
    "我能喝咖啡吗", "我们去哪吃饭", "我今天喝什么",
    "what do i do now", "what time is it", "what do i eat", "where can i buy coffee", "where am i",
    "do i need an umbrella", "do i have any reminders", "what do i need", "what should i do",
    "do i like it", "where do i live now", "我喜欢这个吗", "我喜欢你吗",
])
def test_a_question_about_the_world_is_no_clause_recall(text: str) -> None:
    req = read_request(text)
    assert req is None or req.relation != CLAUSE, (text, req)


@pytest.mark.parametrize("text, kept", [
    # the existing grammar keeps its readings
    ("你记得我什么", ("about", "")),
    ("你记得我老婆什么", ("about", "老婆")),
    ("我的生日是什么时候", ("is", "生日")),
    ("我喜欢的颜色是什么", ("is", "我喜欢的颜色")),
    ("what do you remember about me", ("about", "")),
    ("where is my car", ("at", "car")),
])
def test_the_older_recalls_are_unchanged(text: str, kept: tuple[str, str]) -> None:
    req = read_request(text)
    assert req is not None and (req.relation, req.subject) == kept


def _asked(text: str):
    got = asked_clause(text)
    assert got is not None, text
    return got[0]


@pytest.mark.parametrize("question, told, answers", [
    ("我喜欢喝什么", "我喜欢喝茶", True),
    ("我喜欢喝什么", "我最喜欢喝普洱茶", True),
    ("我喜欢喝什么", "我喜欢茶", True),              # 茶 is a drink
    ("我喜欢喝什么", "我喜欢爬山", False),           # not a drink: not what was asked
    ("我喜欢什么", "我喜欢喝茶", True),
    ("我喜欢什么", "我不喜欢香菜", False),           # a dislike is no liking
    ("我讨厌什么", "我不喜欢香菜", True),
    ("我喜欢喝茶吗", "我喜欢喝普洱茶", True),
    ("我喜欢吃香菜吗", "我不喜欢吃香菜", True),       # said back as told
    ("我喜欢喝咖啡吗", "我喜欢喝茶", False),
    ("我对什么过敏", "我对花生过敏", True),
    ("我住在哪", "我住在北京", True),
    ("我在哪上班", "我在国贸上班", True),
    ("我是哪里人", "我是上海人", True),
    ("我老婆喜欢什么", "我老婆喜欢百合花", True),
    ("我老婆喜欢什么", "我喜欢喝茶", False),         # whose: the speaker's, not the wife's
    ("我喜欢什么", "我老婆喜欢百合花", False),
    ("我每天几点起床", "我每天七点起床", True),
    ("我每天几点起床", "我每天七点睡觉", False),
    ("what do i like to drink", "I like green tea", True),
    ("what do i like to drink", "我喜欢喝茶", True),  # the concepts are the same in either language
    ("what do i like to drink", "I like hiking", False),
    ("what do i like", "I like hiking", True),
    ("what do i like", "I don't like pork", False),
    ("what don't i like", "I hate coriander", True),
    ("do i like coriander", "I hate coriander", True),
    ("do i like green tea", "I love green tea", True),
    ("do i like coffee", "I like green tea", False),
    ("what am i allergic to", "I'm allergic to peanuts", True),
    ("where do i live", "I live in Boston", True),
    ("where do i live", "我住在北京", True),
    ("where do i work", "I work at Acme", True),
    ("where do i work", "I live in Boston", False),
    ("what does my wife like", "my wife loves roses", True),
    ("what does my wife like", "I like roses", False),
    ("when do i usually get up", "I usually get up at 7", True),
])
def test_a_told_clause_answers_the_question_it_fits(question: str, told: str, answers: bool) -> None:
    assert answers_clause(_asked(question), told) is answers, (question, told)


def test_a_told_clause_is_read_into_language_free_parts() -> None:
    zh, en = told_clause("我最喜欢喝茶"), told_clause("I like green tea")
    assert zh is not None and en is not None
    assert (zh.whose, zh.verb, zh.kind) == (en.whose, en.verb, en.kind) == ("me", "like", "drink")
    assert told_clause("我的生日是五月三号") is None and told_clause("my car is white") is None


def test_an_unanswered_question_is_said_back_as_not_told() -> None:
    assert said_back(read_request("我喜欢喝什么").subject) == "你喜欢喝什么"
    assert said_back(read_request("what do i like to drink").subject) == "what you like to drink"
    assert said_back(read_request("do i like tea").subject) == "whether you like tea"


_REF, _ZONE = datetime(2026, 12, 3, 6, 0, tzinfo=timezone.utc), ZoneInfo("Asia/Shanghai")


@pytest.mark.parametrize("value, lang, said", [
    ("五月三号", "en", "3 May"),
    ("5月3号", "en", "3 May"),
    ("1990年5月3日", "en", "3 May 1990"),
    ("May 3", "zh", "5月3日"),
    ("the 3rd of May", "zh", "5月3日"),
    ("3 May 1990", "zh", "1990年5月3日"),
    ("五月三号", "zh", "五月三号"),      # the reply's language: as told
    ("May 3", "en", "May 3"),
    ("明天", "en", "明天"),              # relative: no calendar date of its own
    ("星期三", "en", "星期三"),
    ("二月三十号", "en", "二月三十号"),  # no such day: as told
    ("B2-117", "en", "B2-117"),
    ("五月三号下午三点", "en", "五月三号下午三点"),  # a time, not a day
])
def test_a_stored_date_is_said_in_the_reply_language(value: str, lang: str, said: str) -> None:
    assert value_in_language(value, lang, _REF, _ZONE) == said


@pytest.mark.parametrize("question, told, answers", [
    ("what drinks do i like", "I like green tea", True),
    ("what kind of food do i like", "I love dumplings", True),
    ("what kind of food do i like", "I like green tea", False),
    ("which tea do i like", "I like green tea", True),
    ("which tea do i like", "I like coffee", False),
    ("what music do i like", "I like green tea", False),   # a noun asked that nothing told holds: not told
    ("what music do i like", "I like jazz music", True),
    ("我喜欢什么茶", "我喜欢喝普洱茶", True),
    ("我喜欢哪种茶", "我喜欢喝咖啡", False),
    ("我家住在哪", "我住在北京", True),
    ("我爱喝啥", "我喜欢喝茶", True),
    ("你记得我养什么吗", "我养了一只猫", True),
    ("你记得我养什么吗", "我喜欢喝茶", False),
])
def test_the_noun_of_a_wh_phrase_narrows_what_is_asked(question: str, told: str, answers: bool) -> None:
    assert answers_clause(_asked(question), told) is answers, (question, told)


@pytest.mark.parametrize("text, kept", [
    ("记住我住在鼓楼区", ("note", "我住在鼓楼区")),       # what the speaker does: their words, not "我住" at a place
    ("记住我在国贸上班", ("note", "我在国贸上班")),
    ("记住我的车停在B2", ("at", "我的车")),               # a thing and its place stays a fact
    ("记住我老婆在银行上班", ("at", "我老婆")),
])
def test_a_clause_told_with_a_memory_verb_is_kept_in_the_speakers_words(text: str, kept: tuple[str, str]) -> None:
    req = read_request(text)
    assert req is not None and (req.relation, req.subject) == kept
