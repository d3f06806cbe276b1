"""A name in a person's place of a request (:func:`hermesd.dialogue.unknown.name_placed`) and the known
names one edit from it (:func:`hermesd.dialogue.unknown.spelled_like`: a typo, "did you mean 张伟?")."""

from __future__ import annotations

import pytest

from hermesd.dialogue.unknown import name_around, name_placed, spelled_like

PEOPLE = {"张伟": "person:sales/zhang", "zhang wei": "person:sales/zhang", "zhang": "person:sales/zhang",
          "张强": "person:rd/zhang", "zhang qiang": "person:rd/zhang", "李娜": "person:sales/li",
          "li na": "person:sales/li", "li": "person:sales/li", "王芳": "person:finance/wang",
          "wang fang": "person:finance/wang", "john smith": "person:ops/smith", "smith": "person:ops/smith"}


@pytest.mark.parametrize("text, name", [
    ("把报告发给赵六", "赵六"), ("给刘洋发一下报告", "刘洋"), ("把报价单发给张维吧", "张维"), ("王方的电话是多少", "王方"),
    ("把合同转给欧阳娜娜", "欧阳娜娜"), ("send the report to Bob", "Bob"), ("send the report to Bob tomorrow", "Bob"),
    ("send the contract to Li Nan", "Li Nan"), ("who is Liu Yang", "Liu Yang"), ("send it to Mr. Chen", "Mr. Chen"),
    ("forward the invoice to liu yang", "liu yang"), ("Liu Yang's email", "Liu Yang"),
    ("send it to Li Na too", "Li Na"), ("now send the invoice to Mr. Zhang too", "Mr. Zhang"),
])
def test_the_name_in_a_persons_place(text, name):
    got = name_placed(text)
    assert got is not None and got[0] == name and text[got[1]:got[2]] == name


@pytest.mark.parametrize("text", [
    "把报告发给我", "send it to the team", "send the report to my boss", "发给他", "send it to her", "把报告发一下",
    "send the quote", "今天好累",
])
def test_no_name_there(text):
    assert name_placed(text) is None


@pytest.mark.parametrize("name, ids", [
    ("张维", ["person:rd/zhang", "person:sales/zhang"]),   # one character off: both 张 are one edit away
    ("王方", ["person:finance/wang"]), ("李那", ["person:sales/li"]),
    ("Li Nan", ["person:sales/li"]), ("Zhang Wie", ["person:sales/zhang"]), ("Jon Smith", ["person:ops/smith"]),
    ("Wang Fan", ["person:finance/wang"]),
    ("赵六", []), ("Bob", []), ("刘洋", []), ("Liu Yang", []), ("Olga Petrova", []),
])
def test_names_one_edit_away(name, ids):
    assert spelled_like(name, PEOPLE) == ids


def test_a_yes_to_the_one_name_offered_chooses_it_a_yes_to_several_does_not():
    from hermesd.dialogue import policy as dp
    from hermesd.dialogue.heard import Heard, Reading
    from hermesd.dialogue.questions import Candidate, Choice

    one = Choice(mention="Li Nan", candidates=(Candidate("person:sales/li", "李娜"),), text="send it to Li Nan",
                 asks="person_did_you_mean")
    two = Choice(mention="张维", candidates=(Candidate("person:rd/zhang", "张强"), Candidate("person:sales/zhang", "张伟")),
                 text="把报价单发给张维", asks="person_did_you_mean")
    heard = Heard(text="yes", lang="en")
    assert dp.decide(one, heard, Reading("affirm")) == dp.Choose(one.candidates[0])
    assert not isinstance(dp.decide(two, heard, Reading("affirm")), dp.Choose)


def test_a_word_one_edit_from_a_document_kind_is_a_choice_of_it_a_no_drops_the_request():
    from hermesd.dialogue import policy as dp
    from hermesd.dialogue.heard import Heard, Reading
    from hermesd.dialogue.questions import Candidate, Choice

    typo = Choice(mention="qoute", candidates=(Candidate("doc_type:quote", "quote"),), text="send the quote to Li Na",
                  asks="did_you_mean")
    assert dp.decide(typo, Heard(text="yes", lang="en"), Reading("affirm")) == dp.Choose(typo.candidates[0])
    assert isinstance(dp.decide(typo, Heard(text="no", lang="en"), Reading("deny")), dp.Cancel)
    person = Choice(mention="Li Nan", candidates=(Candidate("person:sales/li", "李娜"),), text="send it to Li Nan",
                    asks="person_did_you_mean")  # a no to a name keeps asking who
    assert isinstance(dp.decide(person, Heard(text="no", lang="en"), Reading("deny")), dp.AskAgain)


# a Latin surname the NLU found alone opens the longer name said, wherever it stands ("Zhang" of "Zhang Wie")
@pytest.mark.parametrize("text, mention, name", [
    ("give Zhang Wie the invoice", "Zhang", "Zhang Wie"), ("what is Zhang Wie's email", "Zhang", "Zhang Wie"),
    ("把合同发给Zhang Wie", "Zhang", "Zhang Wie"), ("Li Nan needs the contract", "Li", "Li Nan"),
    ("tell zhang wie hi", "zhang", "zhang wie"), ("ask Wang Fang Ming about it", "Wang", "Wang Fang Ming"),
])
def test_a_surname_mention_opens_the_name_said(text, mention, name):
    a = text.index(mention)
    got = name_around(text, a, a + len(mention))
    assert got == (name, a, a + len(name))


@pytest.mark.parametrize("text, mention", [
    ("send Zhang the report", "Zhang"), ("send it to Zhang", "Zhang"), ("email Zhang, Li and Wang", "Zhang"),
    ("给张伟发报告", "张伟"), ("send Zhang  Wie", "Zhang"), ("ask Li about it", "Li"),
])
def test_a_surname_mention_alone(text, mention):
    a = text.index(mention)
    assert name_around(text, a, a + len(mention)) is None
