"""A rule's ``choose`` step: several things found are asked about (who, when), one is taken without asking,
none is the fallback's; the answer (a position, a word of a line, a time) picks one and the plan goes on
with it (executor, :class:`~hermesd.dialogue.questions.Pick`, reader and policy; no daemon)."""

from __future__ import annotations

import pytest

from hermesd.dialogue import policy as dp
from hermesd.dialogue.heard import Heard
from hermesd.dialogue.questions import Pick, choices_of, from_dict, to_dict
from hermesd.dialogue.reader import read_answer
from hermesd.nlu.normalize import normalize
from hermesd.rules.model import RulePack
from hermesd.session.executor import Executor, Failure, Finished, Suspend

SENT = [
    {"object": "报价单Q-2024-075.pdf", "at": "2030-06-17T10:00:00+08:00", "params": {"recipient": "李娜"}},
    {"object": "报价单Q-2024-061.pdf", "at": "2030-06-12T10:00:00+08:00", "params": {"recipient": "王芳"}},
    {"object": "报价单Q-2024-061.pdf", "at": "2030-06-11T10:00:00+08:00", "params": {"recipient": "王芳"}},
]
PACK = {"pack": "t", "rules": [{"rule_id": "r", "trigger": {"intent": "doc.resend"}, "actions": [
    {"tool": "find", "id": "sent"},
    {"choose": {"zh": "要重发哪一份？", "en": "Which one?"}, "among": "{{steps.sent.items}}",
     "label": {"zh": "{object}（{at | datetime}发给{params.recipient}）", "en": "{object} (to {params.recipient})"},
     "distinct": ["object", "params.recipient"], "id": "pick"},
    {"reply": {"zh": "发给{{steps.pick.params.recipient}}", "en": "to {{steps.pick.params.recipient}}"}},
]}]}


async def _run(items, lang="zh", **kw):
    async def call(name, params):
        return {"ok": True, "output": {"items": items}}

    ex = Executor(call, lambda name: (False, True), lang)
    ctx = {"role": "user", "slots": {}, "entities": {}, "memory": {},
           "session": {"tz": "Asia/Shanghai", "now": "2030-06-19T10:00:00+08:00"}}
    return await ex.run(tuple(RulePack.model_validate(PACK).rules[0].actions), ctx, **kw)


async def test_several_are_asked_about_one_line_each_the_same_thing_once():
    res = await _run(SENT)
    assert isinstance(res, Suspend) and res.kind == "choose" and res.index == 1 and res.slot == "pick"
    assert res.prompt.splitlines() == ["要重发哪一份？", "1) 报价单Q-2024-075.pdf（前天 10:00发给李娜）",
                                       "2) 报价单Q-2024-061.pdf（6月12日 10:00发给王芳）"]  # the 11 Jun send is the same one
    assert len(res.items) == 2 and [c["index"] for c in res.card["choices"]] == [1, 2]


async def test_one_is_taken_without_asking_and_none_is_no_fault():
    res = await _run(SENT[:1], "en")
    assert isinstance(res, Finished) and res.texts == ["to 李娜"]
    res = await _run([])
    assert isinstance(res, Failure) and res.code == "NOT_FOUND" and res.counts is False


async def test_the_answer_resumes_after_the_step_with_the_item():
    res = await _run(SENT, start=1, confirmed=1, steps={"sent": {"items": SENT}, "pick": SENT[1]})
    assert isinstance(res, Finished) and res.texts == ["发给王芳"]


def _pick() -> Pick:
    items = tuple(SENT[:2])
    return Pick(intent="doc.resend", rule_id="r", index=1, prompt="要重发哪一份？", items=items, save="pick",
                choices=choices_of(items, ["报价单Q-2024-075.pdf（发给李娜）", "报价单Q-2024-061.pdf（发给王芳）"]))


@pytest.mark.parametrize("said, people, index", [
    ("第二个", {}, 1), ("the second one", {}, 1), ("1", {}, 0), ("发给王芳的那个", {}, 1),
    ("the one to Li Na", {"li na": "李娜"}, 0),
])
def test_an_answer_picks_one(said, people, index):
    heard = Heard(text=normalize(said).text, lang="zh", people=people)
    reading = read_answer(_pick(), heard)
    d = dp.decide(_pick(), heard, reading)
    assert d == dp.Picked(index)


@pytest.mark.parametrize("said, decision", [("不用了", dp.Cancel("choice")), ("取消", dp.Cancel("choice")),
                                            ("第五个", dp.AskAgain("choice"))])
def test_a_no_cancels_and_a_position_out_of_range_asks_again(said, decision):
    heard = Heard(text=normalize(said).text, lang="zh")
    assert dp.decide(_pick(), heard, read_answer(_pick(), heard)) == decision


def test_a_pick_survives_a_restart():
    q = _pick()
    back = from_dict(to_dict(q))
    assert back == q and to_dict(q)["card"]["choices"][0]["display"].startswith("报价单Q-2024-075")
    assert q.choices[0].attrs["at"] == SENT[0]["at"] and q.choices[0].attrs["params.recipient"] == "李娜"


# --- a place said with the request itself ("第二个再发一遍" right after a list): that item, no question ----------

PICK_PACK = {"pack": "t", "rules": [{"rule_id": "r", "trigger": {"intent": "doc.resend"}, "actions": [
    {"choose": {"zh": "要重发哪一份？", "en": "Which one?"}, "among": "{{memory.listed}}", "pick": "{{entities.nth}}",
     "label": {"zh": "{object}", "en": "{object}"}, "distinct": ["object", "params.recipient"], "id": "pick"},
    {"reply": {"zh": "{{steps.pick.object}}发给{{steps.pick.params.recipient}}",
               "en": "{{steps.pick.object}} to {{steps.pick.params.recipient}}"}},
]}]}


async def _picked(nth, lang="zh"):
    ex = Executor(lambda name, params: None, lambda name: (False, True), lang)
    ctx = {"role": "user", "slots": {}, "entities": {"nth": nth}, "memory": {"listed": SENT},
           "session": {"tz": "Asia/Shanghai", "now": "2030-06-19T10:00:00+08:00"}}
    return await ex.run(tuple(RulePack.model_validate(PICK_PACK).rules[0].actions), ctx)


@pytest.mark.parametrize("nth, lang, said", [
    ("1", "zh", "报价单Q-2024-075.pdf发给李娜"), ("2", "en", "报价单Q-2024-061.pdf to 王芳"),
    # the places are those of the list as shown: the same send twice is one line (``distinct``)
    ("last", "zh", "报价单Q-2024-061.pdf发给王芳"), ("last", "en", "报价单Q-2024-061.pdf to 王芳"),
])
async def test_a_place_said_takes_that_item_without_asking(nth, lang, said):
    res = await _picked(nth, lang)
    assert isinstance(res, Finished) and res.texts == [said]
    assert [x.outcome for x in res.log][:1] == ["picked"]


@pytest.mark.parametrize("nth", ["3", "9"])
async def test_a_place_past_the_end_is_nothing_to_choose_from(nth):
    res = await _picked(nth)
    assert isinstance(res, Failure) and res.code == "NOT_FOUND" and res.counts is False


@pytest.mark.parametrize("nth", ["", None, "x"])
async def test_no_place_said_asks_as_before(nth):
    res = await _picked(nth)
    assert isinstance(res, Suspend) and res.kind == "choose" and len(res.items) == 2
