"""The concept lexicon of a fact's subject and the grammar around it (pure): one fact whatever the
language and the words (老婆 / 妻子 / wife), 叫 / "called" give a name, "who is my X" asks it, and
"what do you remember about me" asks for a list."""

from __future__ import annotations

import pytest

from hermesd.memory.concepts import BEINGS, NAME, answers, concepts, is_being, named, of_kin, render
from hermesd.memory.facts import ABOUT, read_request
from hermesd.session.memoryturn import _owner, _said


@pytest.mark.parametrize("a, b", [
    ("我老婆的名字", "wife's name"), ("我妻子的名字", "my spouse's name"), ("我太太的名字", "the name of my wife"),
    ("我爱人的名字", "老婆的名字"), ("我媳妇的名字", "husband's name"), ("儿子的名字", "son's name"),
    ("我妈的电话", "my mom's phone number"), ("我母亲的手机号", "mother's number"), ("我家狗狗的名字", "dog's name"),
    ("我姐姐的名字", "older sister's name"), ("我女儿的生日", "daughter's birthday"), ("我爷爷的名字", "grandpa's name"),
])
def test_one_fact_in_other_words_or_the_other_language(a: str, b: str) -> None:
    assert concepts(a) is not None and concepts(a) == concepts(b)


@pytest.mark.parametrize("a, b", [
    ("儿子的名字", "女儿的名字"), ("哥哥的名字", "弟弟的名字"), ("姐姐的名字", "妹妹的名字"), ("wife's name", "wife's birthday"),
    ("名字", "wife's name"), ("妈妈的电话", "爸爸的电话"), ("son's name", "grandson's name"),
])
def test_other_words_are_another_fact(a: str, b: str) -> None:
    assert concepts(a) != concepts(b)


@pytest.mark.parametrize("subject", ["我家的门禁密码", "张伟的电话", "locker number", "王会计的生日", "老婆饼"])
def test_a_word_the_lexicon_lacks_leaves_the_subject_to_its_own_words(subject: str) -> None:
    assert concepts(subject) is None


@pytest.mark.parametrize("subject, being", [
    ("我老婆", True), ("my son", True), ("狗狗", True), ("dentist", True), ("我老婆的名字", False), ("车", False),
    ("门禁密码", False),
])
def test_a_being(subject: str, being: bool) -> None:
    assert is_being(subject) is being


@pytest.mark.parametrize("subject, kin", [
    ("我妈的电话", True), ("father's phone number", True), ("我老婆", True), ("dog's name", True),
    ("boss's phone", False), ("我的电话", False), ("张伟的电话", False), ("wife's order", False),
])
def test_a_thing_of_the_speakers_own_people(subject: str, kin: bool) -> None:
    assert of_kin(subject) is kin


@pytest.mark.parametrize("text", ["我车几号", "我是谁", "我的车在哪里"])
def test_one_character_is_a_subject_only_when_it_is_kin(text: str) -> None:
    req = read_request(text)
    assert req is None or req.subject == "车" and text == "我的车在哪里"


@pytest.mark.parametrize("subject, lang, name", [
    ("我老婆", "zh", "我老婆的名字"), ("我的狗", "zh", "我的狗的名字"), ("我的名字", "zh", "我的名字"), ("", "zh", "名字"),
    ("son", "en", "son's name"), ("wife's name", "en", "wife's name"), ("dog", "en", "dog's name"),
])
def test_what_a_subject_is_called_is_its_name(subject: str, lang: str, name: str) -> None:
    assert named(subject, lang) == name


@pytest.mark.parametrize("asked, told, score", [
    ({"spouse", NAME}, {"spouse", NAME}, 1.0),   # the same fact
    ({"spouse"}, {"spouse", NAME}, 1.0),         # "who is my wife": her name
    ({"spouse", NAME}, {"spouse"}, 0.6),         # her name asked, what she was told to be said back as told
    ({"son", NAME}, {"spouse", NAME}, 0.0),      # another person's name
    ({"spouse", "birthday"}, {"spouse", NAME}, 0.0),
    ({"phone"}, {"spouse", "phone"}, 0.0),       # my phone is not my wife's
])
def test_how_a_told_fact_answers_an_asked_one(asked: set[str], told: set[str], score: float) -> None:
    assert answers(frozenset(asked), frozenset(told)) == score


def test_unknown_words_answer_nothing() -> None:
    assert answers(None, frozenset({"spouse"})) == answers(frozenset({"spouse"}), None) == 0.0


@pytest.mark.parametrize("found, lang, said", [
    ({"spouse", NAME}, "en", "your spouse's name"), ({"spouse", NAME}, "zh", "你爱人的名字"),
    ({"mother", "phone"}, "zh", "你妈妈的电话号码"), ({"phone"}, "zh", "你的电话号码"), ({"phone"}, "en", "your phone number"),
])
def test_concepts_said_back_in_either_language(found: set[str], lang: str, said: str) -> None:
    assert render(frozenset(found), lang) == said


def test_every_being_can_be_said_in_both_languages() -> None:
    for b in BEINGS:
        assert render(frozenset({b}), "zh").startswith("你") and render(frozenset({b}), "en").startswith("your ")


# -- the grammar: what is read from an utterance ------------------------------------------------

@pytest.mark.parametrize("text, subject, value", [
    ("记住我老婆叫小芳", "我老婆的名字", "小芳"),
    ("帮我记一下我太太叫小芳", "我太太的名字", "小芳"),
    ("记住我的狗叫旺财", "我的狗的名字", "旺财"),
    ("记住我叫张三", "名字", "张三"),
    ("记住我老婆是老师", "我老婆", "老师"),                   # 是 says what she is, not what she is called
    ("remember my son is called Tom", "son's name", "Tom"),
    ("remember my dog is named Max", "dog's name", "Max"),
    ("remember my wife is Anna", "wife's name", "Anna"),        # a proper name, as written
    ("remember my dentist is Dr Lin", "dentist's name", "Dr Lin"),
    ("remember my wife is a teacher", "wife", "a teacher"),     # a description stays what she is
    ("remember my car is Blue", "car", "Blue"),                 # a thing is no being: a capital is no name
])
def test_a_name_told(text: str, subject: str, value: str) -> None:
    req = read_request(text)
    assert req is not None and (req.intent, req.subject, req.value) == ("memory.remember", subject, value)


@pytest.mark.parametrize("text, subject", [
    ("我妻子叫什么", "妻子的名字"), ("我老婆叫什么名字", "老婆的名字"), ("我爱人叫啥", "爱人的名字"),
    ("你还记得我老婆叫什么吗", "老婆的名字"), ("我老婆的名字叫什么", "我老婆的名字"), ("我的狗叫什么", "狗的名字"),
    ("我老婆是谁", "老婆"), ("我叫什么", "名字"),
    ("who is my wife", "wife"), ("who's my dentist?", "dentist"), ("my wife's name?", "wife's name"),
    ("what's my son called", "son's name"), ("what is the name of my wife", "wife's name"),
    ("what was my wife's name again?", "wife's name"),
    ("我爸叫什么", "爸的名字"), ("你还记得我爸叫啥吗", "爸的名字"),        # a kin term of one character
    ("我妈电话多少", "妈电话"), ("我哥的电话多少", "我哥的电话"),           # 是 left out before 多少
])
def test_a_name_asked(text: str, subject: str) -> None:
    req = read_request(text)
    assert req is not None and (req.intent, req.subject, req.relation) == ("memory.recall", subject, "is")


@pytest.mark.parametrize("text, about", [
    ("你记得我什么", ""), ("你都记得我什么", ""), ("关于我你记得什么", ""), ("你记得关于我的什么", ""),
    ("what do you remember about me", ""), ("what do you know about me?", ""), ("what have I told you", ""),
    ("what do you remember", ""),
    ("what did I tell you about my wife", "wife"), ("what do you remember about my wife", "wife"),
    ("你记得我老婆什么", "老婆"), ("关于我老婆你记得什么", "老婆"), ("我跟你说过我老婆什么", "老婆"),
])
def test_a_list_asked(text: str, about: str) -> None:
    req = read_request(text)
    assert req is not None and (req.intent, req.subject, req.relation) == ("memory.recall", about, ABOUT)


@pytest.mark.parametrize("text", [
    "你知道我什么时候开会吗", "what do you know", "my wife's name", "who is Wang Fang", "你记得我叫什么吗",
    "what did I send to Li Na", "remind me what I told you to buy",
])
def test_no_list_where_none_is_asked(text: str) -> None:
    req = read_request(text)
    assert req is None or req.relation != ABOUT


@pytest.mark.parametrize("subject, lang, said", [
    ("姐姐", "zh", "你姐姐"), ("女儿的名字", "zh", "你女儿的名字"), ("王会计的生日", "zh", "王会计的生日"),
    ("门禁密码", "zh", "你的门禁密码"), ("我老婆的名字", "zh", "你老婆的名字"),
])
def test_the_owner_said_back(subject: str, lang: str, said: str) -> None:
    assert _owner(subject, lang) == said


@pytest.mark.parametrize("lang, subjects, said", [
    ("en", ("我老婆的名字", "wife's name"), "your wife's name"),   # the words told before, in the reply's language
    ("en", ("我老婆的名字",), "your spouse's name"),               # else the concepts in it
    ("zh", ("wife's name",), "你爱人的名字"),
    ("zh", ("locker number",), "你的locker number"),              # a word the lexicon lacks is not translated
])
def test_a_subject_said_in_the_reply_language(lang: str, subjects: tuple[str, ...], said: str) -> None:
    assert _said(lang, *subjects) == said
