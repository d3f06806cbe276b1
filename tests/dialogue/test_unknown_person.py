"""A name nobody in the directory has, said in answer to "who?": told plainly, the closest names offered,
never asked again (:mod:`hermesd.dialogue.unknown`, :func:`hermesd.dialogue.policy.not_known`)."""

from __future__ import annotations

import pytest

from hermesd.dialogue import policy as dp
from hermesd.dialogue.questions import Ask, Confirm
from hermesd.dialogue.unknown import closest, name_said

PEOPLE = {"张伟": "person:sales/zhang", "zhang wei": "person:sales/zhang", "张强": "person:rd/zhang",
          "李娜": "person:sales/li", "li na": "person:sales/li", "王芳": "person:finance/wang",
          "wang fang": "person:finance/wang", "john smith": "person:ops/smith", "smith": "person:ops/smith"}


@pytest.mark.parametrize("text, name", [
    ("刘洋", "刘洋"), ("是刘洋吧", "刘洋"), ("找刘洋", "刘洋"), ("欧阳娜娜", "欧阳娜娜"), ("Liu Yang", "Liu Yang"),
    ("liu yang", "liu yang"), ("it's Mr. Chen", "Mr. Chen"), ("I mean Liu Yang.", "Liu Yang"), ("Greta", "Greta"),
])
def test_a_name_is_told_from_other_answers(text, name):
    assert name_said(text) == name


@pytest.mark.parametrize("text", [
    "不知道", "算了", "明天下午", "第二个", "never mind", "the second one", "nobody", "cancel", "nginx", "yes",
    "my boss", "把报价单发给王芳", "send it to someone in sales", "谢谢", "hmm banana", "no idea", "whatever man",
])
def test_not_a_name(text):
    assert name_said(text) is None


@pytest.mark.parametrize("name, ids", [
    ("Liu Yang", ["person:sales/li"]),           # spelled alike
    ("王方", ["person:finance/wang"]),             # the same surname
    ("张三", ["person:rd/zhang", "person:sales/zhang"]),
    ("Zhang Wie", ["person:sales/zhang"]),
    ("刘洋", []), ("Olga Petrova", []),            # nobody close: none offered
])
def test_the_closest_names(name, ids):
    assert closest(name, PEOPLE)[:len(ids)] == ids and (ids or not closest(name, PEOPLE))


ASK = Ask(intent="people.lookup", rule_id="people.lookup.ask", index=0, slot="person", entity="person", prompt="找谁？")


@pytest.mark.parametrize("q, d, said, wants, expected", [
    (ASK, dp.AskAgain("slot"), "刘洋", True, dp.NotKnown("刘洋")),
    (ASK, dp.Digress(), "Liu Yang", True, dp.NotKnown("Liu Yang")),
    (ASK, dp.Digress(cancel_first=True), "Liu Yang", True, dp.Digress(cancel_first=True)),
    (ASK, dp.AskAgain("slot"), None, True, dp.AskAgain("slot")),        # not a name: asked again
    (ASK, dp.AskAgain("slot"), "刘洋", False, dp.AskAgain("slot")),     # the question is not about a person
    (ASK, dp.Fill({"person": "李娜"}), "李娜", True, dp.Fill({"person": "李娜"})),  # a known name fills it
    (Confirm(intent="doc.send", rule_id="r", index=1), dp.AskAgain("yes_no"), "刘洋", True, dp.AskAgain("yes_no")),
    (None, dp.NewTurn(), "刘洋", True, dp.NewTurn()),
])
def test_not_known_replaces_asking_again(q, d, said, wants, expected):
    assert dp.not_known(q, d, said, wants) == expected
