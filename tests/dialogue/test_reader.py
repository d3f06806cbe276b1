"""The answer reader (hermesd.dialogue.reader.read_answer), in-process: every pattern × zh × zh-Hant × en.

Each table row is what a person says (raw), what the NLU would have added to the
:class:`Heard` (intent, slot values …), and the act the reader must give. ``Heard.text``
is built the way the controller builds it: ``normalize(raw).text``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from hermesd.dialogue.heard import ACTS, SMALLTALK, Heard
from hermesd.dialogue.questions import Ask, Candidate, Choice, Confirm, Offer
from hermesd.dialogue.reader import read_answer
from hermesd.nlu.normalize import normalize

CONFIRM = Confirm(intent="doc.send", rule_id="doc.send.confirmed", index=1,
                  entities={"doc": "quote", "person": "person:sales/li"}, prompt="把报价单发给李娜吗？")
OFFER = Offer(task_id=7, intent="doc.send", slots={"doc": "quote"}, prompt="上次的“发报价单”还没完成，要继续吗？")
ASK = Ask(intent="reminder.create", rule_id="reminder.ask_time", index=0, slot="when", entity="datetime",
          prompt="什么时候提醒你？")
ZHANG_WEI = Candidate("person:sales/zhang", "张伟", {
    "dept": "sales", "dept_name": "销售部", "title": "工程师", "email": "zhang.wei@example.com",
    "aliases": ["Zhang Wei", "小张"]})
ZHANG_QIANG = Candidate("person:rd/zhang", "张强", {
    "dept": "rd", "dept_name": "研发部", "title": "工程师", "email": "zhang.qiang@example.com",
    "aliases": ["Zhang Qiang", "强哥"]})
ZHANG_MIN = Candidate("person:finance/zhang", "张敏", {
    "dept": "finance", "dept_names": ["财务部", "Finance"], "title": "会计", "email": "zhang.min@example.com"})
CHOICE2 = Choice("张工", (ZHANG_WEI, ZHANG_QIANG), "把报价单发给张工", prompt="你说的张工是哪一位？")
CHOICE3 = Choice("张", (ZHANG_WEI, ZHANG_QIANG, ZHANG_MIN), "把报价单发给小张", prompt="哪一位？")

DISK = {"intent": "device.disk", "out_of_scope": False, "rest_chars": 5}   # "查一下磁盘" / "check the disk"
REMIND_CANCEL = {"intent": "reminder.cancel", "out_of_scope": False, "rest_chars": 6}


def heard(raw: str, **kw: Any) -> Heard:
    """As the controller builds it; ``mentions`` (the entities' words) default to the string values
    said in the text ("李工" in "不对，是李工"), as the NLU would have found them."""
    text = normalize(raw).text
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"
    if "mentions" not in kw:
        said = [*kw.get("slot_values", {}).values(), kw.get("asked_value")]
        kw["mentions"] = tuple(v for v in said if isinstance(v, str) and normalize(v).text in text)
    kw["mentions"] = tuple(normalize(m).text for m in kw["mentions"])
    return Heard(text=text, lang=lang, **kw)


def _ids(rows: list[tuple]) -> list[str]:
    return [f"{i}:{r[0][:24]}" for i, r in enumerate(rows)]


# --- Confirm / Offer: yes, no, not yet, cancel, repeat, help ------------------------------------

YES_NO = [
    # affirm, zh
    ("好的", "affirm"), ("好", "affirm"), ("是的", "affirm"), ("是", "affirm"), ("对", "affirm"), ("行", "affirm"),
    ("可以", "affirm"), ("没问题", "affirm"), ("确认", "affirm"), ("发吧", "affirm"), ("嗯", "affirm"),
    ("嗯嗯", "affirm"), ("好嘞", "affirm"), ("妥", "affirm"), ("好的吧", "affirm"), ("可以的，发吧！", "affirm"),
    ("那就这样吧", "affirm"), ("不错", "affirm"), ("谢谢，发吧", "affirm"), ("好的谢谢", "affirm"),
    # affirm, zh-Hant and full-width
    ("對", "affirm"), ("沒問題", "affirm"), ("確認", "affirm"), ("發吧", "affirm"), ("好的，發吧", "affirm"),
    ("可以，麻煩了", "affirm"), ("ＯＫ", "affirm"),
    # affirm, en, mixed, emoji
    ("yes", "affirm"), ("Yes please", "affirm"), ("yes, please", "affirm"), ("sure", "affirm"), ("yep", "affirm"),
    ("go ahead", "affirm"), ("please do", "affirm"), ("that's right", "affirm"), ("sounds good", "affirm"),
    ("OK", "affirm"), ("okay, thanks", "affirm"), ("Sure thing!", "affirm"), ("ok 发吧", "affirm"),
    ("OK 發吧", "affirm"), ("yes 好的", "affirm"), ("I guess so", "affirm"), ("行行行，发吧", "affirm"),
    ("對，沒錯", "affirm"), ("sure, why not", "affirm"), ("yeah go for it", "affirm"), ("no problem", "affirm"),
    ("No worries, go ahead", "affirm"), ("请发吧", "affirm"), ("please cancel", "cancel"), ("請取消", "cancel"), ("👍", "affirm"), ("好的👍", "affirm"), ("yes 🙂", "affirm"),
    # deny
    ("不", "deny"), ("不要", "deny"), ("不用", "deny"), ("不用了", "deny"), ("不行", "deny"), ("别", "deny"),
    ("算了吧", "deny"), ("不是", "deny"), ("不要发", "deny"), ("别发给她", "deny"), ("不用了，谢谢", "deny"),
    ("不要了啊", "deny"), ("不對", "deny"), ("不需要", "deny"), ("別發", "deny"), ("no", "deny"), ("No.", "deny"),
    ("nope", "deny"), ("no thanks", "deny"), ("No, thank you", "deny"), ("don't", "deny"), ("not really", "deny"),
    ("don't send it", "deny"), ("👎", "deny"), ("不不不", "deny"), ("no no no", "deny"), ("I don't think so", "deny"),
    ("nah", "deny"), ("不好意思，不用了", "deny"),
    # negation after a polite opener or a contrast marker wins
    ("好的，不过先别发", "deny"), ("好的，不過先別發", "deny"), ("ok, actually no", "deny"),
    ("ok but no", "deny"), ("嗯…不用了", "deny"), ("那个，不要了", "deny"), ("谢谢，不过不用了", "deny"),
    ("謝謝，不過不用了", "deny"), ("好的，但是我不想发了", "deny"), ("好的，但是我还没想好", "hedge"),
    ("well, no", "deny"), ("Thanks, but no thanks", "deny"), ("yes, but not now", "hedge"),
    ("我觉得还是不要了", "deny"), ("sorry, no", "deny"), ("好的，不用了", "deny"), ("等等，好的", "affirm"),
    # hedge
    ("等等", "hedge"), ("等一下", "hedge"), ("我再想想", "hedge"), ("让我想想", "hedge"), ("讓我想想", "hedge"),
    ("先不要", "hedge"), ("稍等", "hedge"), ("稍等一下哈", "hedge"), ("先别发", "deny"), ("以後再說", "hedge"),
    ("晚点再说吧", "hedge"), ("不急", "hedge"), ("现在不要", "hedge"), ("暫時不用", "hedge"), ("hmm, maybe", "hedge"),
    ("hold on", "hedge"), ("wait", "hedge"), ("not now", "hedge"), ("let me think", "hedge"),
    ("maybe later", "hedge"), ("Hang on a sec", "hedge"), ("no, not now", "hedge"), ("wait, let me think about it", "hedge"),
    # cancel
    ("取消", "cancel"), ("算了", "cancel"), ("不办了", "cancel"), ("不辦了", "cancel"), ("取消吧", "cancel"),
    ("cancel", "cancel"), ("never mind", "cancel"), ("forget it", "cancel"), ("stop", "cancel"), ("Cancel that.", "cancel"),
    # repeat
    ("再说一遍", "repeat"), ("再說一遍", "repeat"), ("你说什么", "repeat"), ("什么？", "repeat"), ("什麼？", "repeat"),
    ("没听清", "repeat"), ("沒聽清", "repeat"), ("重复一下", "repeat"), ("嗯？", "repeat"), ("what?", "repeat"),
    ("say that again", "repeat"), ("pardon", "repeat"), ("sorry?", "repeat"), ("come again?", "repeat"),
    # help
    ("有哪些选项", "help"), ("有什么选择", "help"), ("怎么回答", "help"), ("我该说什么", "help"), ("有哪些選項", "help"),
    ("我該說什麼", "help"), ("options?", "help"), ("what are my options", "help"), ("help", "help"),
    # not a yes
    ("好的？", "unrelated"), ("yes?", "unrelated"), ("对吗", "unrelated"), ("可以吗？", "unrelated"), ("是吗", "unrelated"),
    ("好吗", "unrelated"), ("對嗎", "unrelated"), ("行么", "unrelated"), ("对啊", "affirm"), ("好吧", "affirm"), ("好的，不过要快点", "unrelated"), ("ok but hurry", "unrelated"),
    ("天气不错的样子啊哈哈哈", "unrelated"), ("🎉🎉", "unrelated"), ("", "unrelated"), ("什么时候", "unrelated"),
    # a yes that changes how the action runs is no yes to the card as shown (no value was heard)
    ("Actually, send it from my saving account.", "unrelated"), ("send it to Bob instead", "unrelated"),
    ("do it via my other card", "unrelated"),
    # … but a yes to the card, or one that says who is pleased, is a yes
    ("Sounds good to me!", "affirm"), ("yes to that", "affirm"), ("yes, send it", "affirm"),
]


@pytest.mark.parametrize("raw,act", YES_NO, ids=_ids(YES_NO))
def test_confirm_words(raw: str, act: str) -> None:
    assert read_answer(CONFIRM, heard(raw)).act == act


@pytest.mark.parametrize("raw,act", [r for r in YES_NO if r[1] != "unrelated"][::3])
def test_offer_reads_like_confirm(raw: str, act: str) -> None:
    assert read_answer(OFFER, heard(raw)).act == act


SPECIFIC = [
    # (raw, heard fields, act, values)
    ("不对，是李工", {"slot_values": {"person": "李工"}}, "correct", {"person": "李工"}),
    ("不對，是李工", {"slot_values": {"person": "李工"}}, "correct", {"person": "李工"}),
    ("不是张伟，是李娜", {"slot_values": {"person": "李娜"}}, "correct", {"person": "李娜"}),
    ("是李娜不是张伟", {"slot_values": {"person": "李娜"}, "kind": "correction"}, "correct", {"person": "李娜"}),
    ("改成明天", {"slot_values": {"when": "2024-05-02"}, "mentions": ("明天",)}, "correct", {"when": "2024-05-02"}),
    ("换成合同", {"slot_values": {"doc": "contract"}, "mentions": ("合同",)}, "correct", {"doc": "contract"}),
    ("好的，不过改成明天发", {"slot_values": {"when": "2024-05-02"}, "mentions": ("明天",)}, "correct", {"when": "2024-05-02"}),
    ("make it Friday", {"slot_values": {"when": "fri"}, "mentions": ("friday",)}, "correct", {"when": "fri"}),
    ("no, to 李娜", {"slot_values": {"person": "李娜"}}, "correct", {"person": "李娜"}),
    # a hedge opening a correction is a discourse marker: the value said after it is the answer
    ("等一下，发给王芳", {"slot_values": {"person": "person:finance/wang"}, "mentions": ("王芳",)}, "correct", {"person": "person:finance/wang"}),
    ("wait, Li Na", {"slot_values": {"person": "person:sales/li2"}, "mentions": ("li na",)}, "correct", {"person": "person:sales/li2"}),
    ("no wait, to Wang Fang", {"slot_values": {"person": "wang"}, "mentions": ("wang fang",)}, "correct", {"person": "wang"}),
    ("No, to Wang Fang", {"slot_values": {"person": "wang"}}, "correct", {"person": "wang"}),
    ("I meant the contract", {"slot_values": {"doc": "contract"}}, "correct", {"doc": "contract"}),
    ("no, it's Li", {"slot_values": {"person": "li"}, "kind": "correction"}, "correct", {"person": "li"}),
    ("好的，发给王芳", {"slot_values": {"person": "person:finance/wang"}, "mentions": ("王芳",)}, "correct", {"person": "person:finance/wang"}),
    ("王芳", {"slot_values": {"person": "person:finance/wang"}, "mentions": ("王芳",)}, "correct", {"person": "person:finance/wang"}),
    # the same value as the card's is a yes, not a change
    ("好的，发给李娜", {"slot_values": {"person": "person:sales/li"}}, "affirm", {}),
    # no value heard: a correction word alone changes nothing
    ("改成别的", {}, "unrelated", {}),
    ("不要发给李娜", {"slot_values": {"person": "person:sales/li"}, "intent": "doc.send", "out_of_scope": False},
     "deny", {}),
    # a new request while the card is open
    ("查一下磁盘", DISK, "request", {}),
    ("check the disk", {**DISK, "rest_chars": 12}, "request", {}),
    ("不要，先查一下磁盘", DISK, "request", {}),
    ("取消那个提醒", REMIND_CANCEL, "request", {}),
    ("把合同发给王芳，抄送张伟", {"intent": "doc.send", "out_of_scope": False, "rest_chars": 7}, "request", {}),
    # answer words are never a request, whatever the NLU thought of them
    ("谢谢，不过不用了", REMIND_CANCEL, "deny", {}),
    ("不用了", REMIND_CANCEL, "deny", {}),
    ("好的", {"intent": "device.disk", "out_of_scope": False}, "affirm", {}),
    ("取消", REMIND_CANCEL, "cancel", {}),
    ("好的，帮我查一下磁盘", DISK, "request", {}),
    ("no, check the disk instead", {**DISK, "rest_chars": 17}, "request", {}),
    ("对了，查一下磁盘", DISK, "request", {}),
    ("对不起，我说错了，是李娜", {"slot_values": {"person": "李娜"}}, "correct", {"person": "李娜"}),
    # very long: only the start is read for answer words
    ("不要" + "，" + "然后" * 150, {}, "deny", {}),
    ("今天天气" * 80, {}, "unrelated", {}),
    ("查一下磁盘" + "还有网络" * 60, DISK, "request", {}),
]


@pytest.mark.parametrize("raw,kw,act,values", SPECIFIC, ids=_ids(SPECIFIC))
def test_confirm_corrections_and_requests(raw: str, kw: dict, act: str, values: dict) -> None:
    r = read_answer(CONFIRM, heard(raw, **kw))
    assert (r.act, dict(r.values)) == (act, values)


# --- Choice -----------------------------------------------------------------------------------

CHOOSE2 = [
    # by number
    ("1", 0), ("2", 1), ("２", 1), ("二", 1), ("两", 1), ("兩", 1), ("一", 0), ("2号", 1), ("选2", 1),
    ("option 2", 1), ("number two", 1), ("#1", 0), ("two", 1),
    # by ordinal
    ("第一个", 0), ("第1个", 0), ("第２个", 1), ("第二个", 1), ("第二個", 1), ("头一个", 0), ("頭一個", 0),
    ("第一位", 0), ("最后一个", 1), ("最后那个", 1), ("最後那個", 1), ("上面那个", 0), ("上面那個", 0),
    ("下面那个", 1), ("前一个", 0), ("后一个", 1), ("後面那個", 1), ("我选第二个吧", 1), ("就第一个", 0),
    ("要第二个", 1), ("是第一个", 0), ("对，第二个", 1), ("first", 0), ("the first one", 0), ("second", 1),
    ("the second one", 1), ("The second one, please", 1), ("2nd", 1), ("1st", 0), ("last", 1), ("the last one", 1),
    ("the top one", 0), ("the bottom one", 1), ("the latter", 1), ("第一个，不对，第二个", 1),
    # by name, alias, attribute on the card
    ("张伟", 0), ("张强", 1), ("張伟", 0), ("小张", 0), ("强哥", 1), ("Zhang Wei", 0), ("zhang qiang", 1),
    ("销售部", 0), ("销售部的那个", 0), ("销售部的那個", 0), ("研发部的", 1), ("研发", 1), ("sales", 0),
    ("the one in sales", 0), ("the rd one", 1), ("RD", 1), ("zhang.qiang@example.com", 1),
    ("发给销售部的张伟", 0), ("是研发部那位", 1), ("销售部的张伟吧", 0),
    # a deny naming one of two chooses the other
    ("不是第一个", 1), ("不是张伟", 1), ("not the first one", 1),
    # "no, I meant X": a correction cue names the choice, a no before it notwithstanding
    ("不对，是第一个", 0), ("不对，是第二个", 1), ("不對，是第一個", 0), ("no, I meant the first one", 0),
    ("no I meant the first one", 0), ("no, I meant the second one", 1), ("I meant the second one", 1),
    ("no, I mean the first", 0), ("不对，我是说第二个", 1), ("我的意思是第一个", 0), ("不对，应该是第一个", 0),
    ("错了，第一个", 0), ("wrong, the second one", 1), ("no, I meant Zhang Qiang", 1), ("不对，我说的是张强", 1),
    ("不对 是第一个", 0), ("no, I meant the one in sales", 0),
]


@pytest.mark.parametrize("raw", ["yes", "Yes please", "好的", "对", "是的", "對", "ok"])
def test_a_yes_to_the_one_name_offered_is_affirm(raw: str) -> None:
    one = Choice("张维", (ZHANG_WEI,), "把报价单发给张维", prompt="你是说张伟吗？", asks="person_did_you_mean")
    assert read_answer(one, heard(raw)).act == "affirm"
    assert read_answer(CHOICE2, heard(raw)).act == "unrelated"  # of two, a yes says neither


@pytest.mark.parametrize("raw, intent", [("yeah", "report.export"), ("没错", "device.errors_since"), ("yes", "doc.send")])
def test_a_yes_to_the_one_name_offered_is_affirm_whatever_the_nlu_guessed_of_it(raw: str, intent: str) -> None:
    one = Choice("qoute", (Candidate("doc_type:quote", "quote"),), "send the quote to Li Na", asks="did_you_mean")
    assert read_answer(one, heard(raw, intent=intent, out_of_scope=False)).act == "affirm"
    assert read_answer(one, heard("对吗", intent=intent, out_of_scope=False)).act == "unrelated"  # asks back
    # a request of its own beside the yes is still one
    assert read_answer(one, heard("好的，帮我查一下磁盘还剩多少", intent="device.disk_space", out_of_scope=False)).act == "request"


@pytest.mark.parametrize("raw,index", CHOOSE2, ids=_ids(CHOOSE2))
def test_choice_of_two(raw: str, index: int) -> None:
    r = read_answer(CHOICE2, heard(raw))
    assert (r.act, r.choice) == ("choose", index), r


CHOOSE3 = [
    ("3", 2), ("三", 2), ("第三个", 2), ("third", 2), ("the 3rd one", 2), ("最后一个", 2), ("last one", 2),
    ("中间那个", 1), ("the middle one", 1), ("上面那个", 0), ("财务部", 2), ("Finance", 2), ("会计", 2),
    ("张敏", 2), ("the one from finance", 2),
]


@pytest.mark.parametrize("raw,index", CHOOSE3, ids=_ids(CHOOSE3))
def test_choice_of_three(raw: str, index: int) -> None:
    r = read_answer(CHOICE3, heard(raw))
    assert (r.act, r.choice) == ("choose", index), r


NOT_CHOSEN = [
    # (question, raw, heard fields, act)
    (CHOICE2, "3", {}, "unrelated"), (CHOICE2, "第五个", {}, "unrelated"), (CHOICE2, "0", {}, "unrelated"),
    (CHOICE2, "the third one", {}, "unrelated"),
    (CHOICE2, "工程师", {}, "unrelated"),            # both are engineers: a shared attribute chooses nothing
    (CHOICE2, "example.com", {}, "unrelated"), (CHOICE2, "张", {}, "unrelated"),
    (CHOICE2, "张伟还是张强", {}, "unrelated"),
    (CHOICE2, "另一个", {}, "unrelated"),             # nobody marked as chosen before
    (CHOICE2, "the other one", {}, "unrelated"),
    (CHOICE3, "下面那个", {}, "unrelated"),           # "the one below" of three is not settled
    (CHOICE3, "另一个", {}, "unrelated"), (CHOICE3, "不是第一个", {}, "unrelated"),
    (CHOICE2, "好的", {}, "unrelated"), (CHOICE2, "yes", {}, "unrelated"),
    (CHOICE2, "取消", {}, "cancel"), (CHOICE2, "算了", {}, "cancel"), (CHOICE2, "都不是", {}, "cancel"),
    (CHOICE2, "不要了", {}, "cancel"), (CHOICE2, "cancel", {}, "cancel"), (CHOICE2, "neither", {}, "cancel"),
    (CHOICE2, "never mind", {}, "cancel"), (CHOICE2, "都不對", {}, "cancel"),
    # a bare "not right" names nothing and refuses nothing: deny (the policy asks the choice again)
    (CHOICE2, "no", {}, "deny"), (CHOICE2, "不对", {}, "deny"), (CHOICE2, "不對", {}, "deny"),
    (CHOICE2, "nope", {}, "deny"), (CHOICE2, "wrong", {}, "deny"), (CHOICE2, "错了", {}, "deny"),
    (CHOICE2, "不是", {}, "deny"), (CHOICE2, "no, no", {}, "deny"), (CHOICE2, "不对不对", {}, "deny"),
    (CHOICE2, "第一个，不对", {}, "deny"), (CHOICE3, "不对", {}, "deny"),
    # a deny that refuses, or rejects every option, still drops the choice
    (CHOICE2, "不用了", {}, "cancel"), (CHOICE2, "no thanks", {}, "cancel"), (CHOICE2, "none of them", {}, "cancel"),
    (CHOICE2, "第一个，算了", {}, "cancel"),
    (CHOICE2, "再说一遍", {}, "repeat"), (CHOICE2, "what?", {}, "repeat"), (CHOICE2, "有哪些选项", {}, "help"),
    (CHOICE2, "what are my options", {}, "help"), (CHOICE2, "等一下", {}, "hedge"),
    (CHOICE2, "查一下磁盘", DISK, "request"), (CHOICE2, "check the disk", {**DISK, "rest_chars": 12}, "request"),
    (CHOICE2, "把合同也发给张伟吧", {"intent": "doc.send", "out_of_scope": False, "rest_chars": 6}, "request"),
    (CHOICE2, "算了，先查一下磁盘", DISK, "request"),
    (CHOICE2, "谢谢", {}, "smalltalk"), (CHOICE2, "你好", {}, "smalltalk"),
]


@pytest.mark.parametrize("q,raw,kw,act", NOT_CHOSEN, ids=[f"{i}:{r[1]}" for i, r in enumerate(NOT_CHOSEN)])
def test_choice_other_readings(q: Choice, raw: str, kw: dict, act: str) -> None:
    r = read_answer(q, heard(raw, **kw))
    assert r.act == act and r.choice is None, r


@pytest.mark.parametrize("raw", ["另一个", "另外那个", "另一個", "the other one", "the other"])
def test_the_other_one_is_the_one_not_chosen_before(raw: str) -> None:
    marked = Choice("张工", (ZHANG_WEI, Candidate(ZHANG_QIANG.anchor_id, ZHANG_QIANG.display,
                                                {**ZHANG_QIANG.attrs, "previous": True})), "x")
    assert read_answer(marked, heard(raw)).choice == 0
    marked_first = Choice("张工", (Candidate(ZHANG_WEI.anchor_id, "张伟", {"previous": True}), ZHANG_QIANG), "x")
    assert read_answer(marked_first, heard(raw)).choice == 1


# --- Ask --------------------------------------------------------------------------------------

ASKED = [
    # (raw, heard fields, act, values)
    ("明天上午9点", {"asked_value": "t1", "rest_chars": 0}, "fill", {"when": "t1"}),
    ("明天吧", {"asked_value": "t1", "rest_chars": 1}, "fill", {"when": "t1"}),
    ("tomorrow at 9", {"asked_value": "t1", "rest_chars": 2}, "fill", {"when": "t1"}),
    ("就明天上午吧", {"asked_value": "t1", "rest_chars": 2}, "fill", {"when": "t1"}),
    ("提醒我明天上午九点开会", {"asked_value": "t1", "rest_chars": 7, "intent": "reminder.create",
                        "out_of_scope": False}, "fill", {"when": "t1"}),
    ("嗯，明天下午三点吧", {"asked_value": "t1", "rest_chars": 2}, "fill", {"when": "t1"}),
    ("算了，明天吧", {"asked_value": "t1", "rest_chars": 3}, "fill", {"when": "t1"}),
    ("不对，是后天", {"asked_value": "t2", "rest_chars": 3, "mentions": ("后天",)}, "correct", {"when": "t2"}),
    ("no, make it Friday", {"asked_value": "t2", "rest_chars": 6, "mentions": ("friday",)}, "correct", {"when": "t2"}),
    ("改成下周一", {"asked_value": "t2", "rest_chars": 2, "mentions": ("下周一",)}, "correct", {"when": "t2"}),
    ("查一下磁盘", DISK, "request", {}),
    ("查一下明天的磁盘", {**DISK, "asked_value": "t1", "rest_chars": 6}, "request", {}),
    ("取消", {}, "cancel", {}), ("算了", {}, "cancel", {}), ("cancel", {}, "cancel", {}),
    ("never mind", {}, "cancel", {}), ("不用了", {}, "cancel", {}), ("no", {}, "cancel", {}),
    ("明天，算了，不用了", {"asked_value": "t1", "rest_chars": 5}, "cancel", {}),
    ("再说一遍", {}, "repeat", {}), ("你說什麼", {}, "repeat", {}), ("what?", {}, "repeat", {}),
    ("怎么回答", {}, "help", {}), ("what should i say", {}, "help", {}),
    ("等一下", {}, "hedge", {}), ("let me think", {}, "hedge", {}),
    ("好的", {}, "unrelated", {}), ("yes", {}, "unrelated", {}), ("天气真好", {"rest_chars": 4}, "unrelated", {}),
    ("谢谢", {}, "smalltalk", {}),
    # a question of its own that holds a value is a new request, not the value ("since when?" → "今天星期几")
    ("今天星期几", {"asked_value": "t1", "rest_chars": 3, "mentions": ("今天",), "intent": "device.clock",
                "out_of_scope": False}, "request", {}),
    ("明天几号", {"asked_value": "t1", "rest_chars": 2, "mentions": ("明天",), "intent": "device.clock",
              "out_of_scope": False}, "request", {}),
    ("what day is it tomorrow", {"asked_value": "t1", "rest_chars": 4, "mentions": ("tomorrow",),
                                 "intent": "device.clock", "out_of_scope": False}, "request", {}),
    # a question with the question's own intent, or none, still answers it
    ("明天几点？", {"asked_value": "t1", "rest_chars": 2, "mentions": ("明天",)}, "fill", {"when": "t1"}),
    ("今天星期几开始的", {"asked_value": "t1", "rest_chars": 5, "mentions": ("今天",), "intent": "reminder.create",
                   "out_of_scope": False}, "fill", {"when": "t1"}),
]


@pytest.mark.parametrize("raw,kw,act,values", ASKED, ids=_ids(ASKED))
def test_ask(raw: str, kw: dict, act: str, values: dict) -> None:
    r = read_answer(ASK, heard(raw, **kw))
    assert (r.act, dict(r.values)) == (act, values), r


# --- nothing open -----------------------------------------------------------------------------

NOTHING = [
    # (raw, heard fields, act, choice or small-talk kind)
    ("不是", {"intent": "network.status", "out_of_scope": False}, "deny", None),
    ("不是的", {}, "deny", None), ("no", {}, "deny", None), ("不對", {}, "deny", None),
    ("好的", {}, "affirm", None), ("yes please", {}, "affirm", None), ("發吧", {}, "affirm", None),
    ("👍", {}, "affirm", None), ("取消", {}, "cancel", None), ("算了", {}, "cancel", None),
    ("2", {"intent": "device.disk", "out_of_scope": False}, "choose", 1), ("２", {}, "choose", 1),
    ("第二个", {}, "choose", 1), ("第２個", {}, "choose", 1), ("the first one", {}, "choose", 0),
    ("最后那个", {}, "choose", None), ("the other one", {}, "choose", None),
    ("你好", {}, "smalltalk", "greeting"), ("您好！", {}, "smalltalk", "greeting"), ("嗨", {}, "smalltalk", "greeting"),
    ("早上好", {}, "smalltalk", "greeting"), ("hi", {}, "smalltalk", "greeting"), ("Hello there 👋", {}, "smalltalk", "greeting"),
    ("good morning", {}, "smalltalk", "greeting"), ("谢谢", {}, "smalltalk", "thanks"), ("謝謝", {}, "smalltalk", "thanks"),
    ("多谢", {}, "smalltalk", "thanks"), ("thank you", {}, "smalltalk", "thanks"), ("Thanks!", {}, "smalltalk", "thanks"),
    ("cheers", {}, "smalltalk", "thanks"), ("好的，谢谢", {}, "smalltalk", "thanks"),
    ("ok thanks", {}, "smalltalk", "thanks"), ("再见", {}, "smalltalk", "goodbye"), ("再見", {}, "smalltalk", "goodbye"),
    ("拜拜", {}, "smalltalk", "goodbye"), ("bye", {}, "smalltalk", "goodbye"), ("see you", {}, "smalltalk", "goodbye"),
    ("thanks, bye", {}, "smalltalk", "goodbye"), ("你是谁", {}, "smalltalk", "identity"),
    ("你是誰？", {}, "smalltalk", "identity"), ("你叫什么", {}, "smalltalk", "identity"),
    ("who are you?", {}, "smalltalk", "identity"), ("what are you", {}, "smalltalk", "identity"),
    ("who made you?", {}, "smalltalk", "identity"), ("谁开发了你", {}, "smalltalk", "identity"),
    ("你是哪家公司做的", {}, "smalltalk", "identity"), ("Who built you", {}, "smalltalk", "identity"),
    ("how are you", {}, "smalltalk", "wellbeing"), ("How's it going?", {}, "smalltalk", "wellbeing"),
    ("hi, how are you doing", {}, "smalltalk", "wellbeing"), ("你好吗", {}, "smalltalk", "wellbeing"),
    ("最近怎么样？", {}, "smalltalk", "wellbeing"), ("你還好嗎", {}, "smalltalk", "wellbeing"),
    ("你能做什么", {}, "smalltalk", "capabilities"), ("你會什麼", {}, "smalltalk", "capabilities"),
    ("你有什么功能", {}, "smalltalk", "capabilities"), ("what can you do?", {}, "smalltalk", "capabilities"),
    ("help me", {}, "smalltalk", "capabilities"), ("What do you do", {}, "smalltalk", "capabilities"),
    ("help", {}, "smalltalk", "capabilities"), ("你好，你能做什么？", {}, "smalltalk", "capabilities"),
    ("谢谢你帮我发报价", {"intent": "doc.send", "out_of_scope": False, "rest_chars": 6}, "smalltalk", "thanks"),
    ("thanks for sending the quote", {"intent": "doc.send", "out_of_scope": False, "rest_chars": 18},
     "smalltalk", "thanks"),
    ("谢谢，帮我发报价", {"intent": "doc.send", "out_of_scope": False, "rest_chars": 4}, "request", None),
    ("你好，我想问一下", {}, "smalltalk", "greeting"),
    ("查一下磁盘", DISK, "request", None), ("你好，帮我查一下磁盘", DISK, "request", None),
    ("check the disk please", DISK, "request", None),
    ("天气不错的样子啊哈哈哈", {}, "unrelated", None), ("🎉", {}, "unrelated", None), ("asdf qwer", {}, "unrelated", None),
    # a sum in symbols is a question of its own (out of scope at parse), never a pick of a list not shown
    ("2+2", {}, "unrelated", None), ("12*7", {}, "unrelated", None), ("3×4=12", {}, "unrelated", None),
    ("2", {}, "choose", 1),
]


@pytest.mark.parametrize("raw,kw,act,extra", NOTHING, ids=_ids(NOTHING))
def test_nothing_open(raw: str, kw: dict, act: str, extra: Any) -> None:
    r = read_answer(None, heard(raw, **kw))
    assert r.act == act, r
    if act == "choose":
        assert r.choice == extra
    if act == "smalltalk":
        assert r.smalltalk == extra


SMALLTALK_OPEN = [
    ("你好", "greeting"), ("谢谢", "thanks"), ("謝謝你", "thanks"), ("thank you!", "thanks"), ("再见", "goodbye"),
    ("你是谁", "identity"), ("who are you", "identity"), ("你能做什么", "capabilities"), ("what can you do", "capabilities"),
    ("how are you?", "wellbeing"), ("你好吗", "wellbeing"),
]


@pytest.mark.parametrize("q", [CONFIRM, OFFER, ASK, CHOICE2], ids=["confirm", "offer", "ask", "choice"])
@pytest.mark.parametrize("raw,kind", SMALLTALK_OPEN)
def test_smalltalk_while_a_question_is_open(q: Any, raw: str, kind: str) -> None:
    r = read_answer(q, heard(raw))
    assert (r.act, r.smalltalk) == ("smalltalk", kind)


@pytest.mark.parametrize("raw,act", [("谢谢，发吧", "affirm"), ("thanks, go ahead", "affirm"),
                                     ("你好，不用了", "deny"), ("hi, cancel", "cancel")])
def test_smalltalk_beside_an_answer_is_the_answer(raw: str, act: str) -> None:
    assert read_answer(CONFIRM, heard(raw)).act == act


# --- long answers at a card: the opening no, a refusal anywhere, values met in passing ---------------

_ZH_LONG_NO = ("不用了，我刚刚想起来李经理这周在外地出差，而且她上周已经收到过一份类似的报价单了，我得先跟销售部确认一下"
               "价格有没有调整，再跟王会计核对一下税率，等这些都弄清楚了以后，我会重新整理一份最新的版本，到时候我再找你"
               "发给她，现在就先不要发了，免得她看到两份不一样的报价单搞混了，谢谢你啊，辛苦了")
_ZH_LONG_NO_LATE = "我想了一下" + "，她那边的事情还挺多的" * 20 + "，所以这个合同先别发了，谢谢"   # the refusal past the scan
_EN_LONG_YES = ("yes, please go ahead and send it, I checked the numbers with the sales team this morning and everything "
                "is in order, Li Na has been waiting for this quote since Monday and she needs it before the meeting with "
                "the customer this afternoon, so the sooner it goes out the better, thank you")
_EN_LONG_NO = ("no, wait, I just remembered that Wang Fang asked for the revised version with the new payment terms, and "
               "legal has not signed off on that yet, so please do not send this one, I will come back to you once the new "
               "version is ready and approved, and there is no need to remind me about it")
_NARRATED = {"slot_values": {"when": "this-week", "person": "person:finance/wang"}, "mentions": ("这周", "王会计", "李经理")}

LONG = [
    # (raw, heard fields, act)
    (_ZH_LONG_NO, {**_NARRATED, "intent": "doc.send", "out_of_scope": False, "kind": "question", "rest_chars": 150},
     "deny"),
    (_ZH_LONG_NO_LATE, {"intent": "doc.send", "out_of_scope": False, "rest_chars": 200}, "deny"),
    (_EN_LONG_YES, {"slot_values": {"when": "this-morning"}, "mentions": ("this morning", "li na", "quote"),
                    "intent": "doc.send", "out_of_scope": False, "rest_chars": 220}, "affirm"),
    (_EN_LONG_NO, {"slot_values": {"person": "person:sales/li"}, "mentions": ("wang fang",), "intent": "doc.send",
                   "out_of_scope": False, "rest_chars": 230}, "deny"),
    # a no that opens a long answer is not overturned by a later 好吧 / right in the explanation
    ("不用了，我想起来她这周在外地出差，回来以后还要先开会，好吧，下次再说", {"mentions": ("这周",)}, "deny"),
    ("no, I just remembered she is travelling all week and will not read it, right, let us do it later", {}, "deny"),
    ("no, wait, she is out until Friday and nobody else can sign it, ok", {"mentions": ("friday",)}, "deny"),
    # a long yes that says no anywhere is not a yes
    ("好的，我看了一下价格都没问题，她也一直在等这份报价单，算了，还是等她回来再说吧", {}, "cancel"),
    ("yes, the numbers are fine and she has been waiting for it, but actually do not send it today", {}, "deny"),
    ("行，我跟销售部确认过了价格没问题，她一直在等，不过先别发了，等我通知", {}, "deny"),
    # values met in passing are no correction, whatever the length
    ("不用了，她这周出差", {"slot_values": {"when": "this-week"}, "mentions": ("这周",)}, "deny"),
    ("不行，王会计说还要再核对一遍", {"slot_values": {"person": "person:finance/wang"}, "mentions": ("王会计",)}, "deny"),
    ("yes, I checked it with her this morning", {"slot_values": {"when": "this-morning"}, "mentions": ("this morning",)},
     "affirm"),
    ("sure, she asked me for it on Monday", {"slot_values": {"when": "monday"}, "mentions": ("monday",)}, "affirm"),
    ("好的，她昨天就问我要了", {"slot_values": {"when": "yesterday"}, "mentions": ("昨天",)}, "affirm"),
    # a yes that contradicts a value the card shows, even in passing, is no yes to that card
    ("yes, I'd like to send it to Wang Fang", {"slot_values": {"person": "person:finance/wang"},
                                               "mentions": ("wang fang",)}, "correct"),
    # …but a clause that is the value still corrects
    ("不对，发给王会计", {"slot_values": {"person": "person:finance/wang"}, "mentions": ("王会计",)}, "correct"),
    ("no, send it to Wang Fang instead", {"slot_values": {"person": "person:finance/wang"}, "mentions": ("wang fang",)},
     "correct"),
    ("wrong person, send it to Mr. Smith instead", {"slot_values": {"person": "person:x/smith"},
                                                     "mentions": ("mr. smith",)}, "correct"),
    ("好的，不过改到周五吧", {"slot_values": {"when": "fri"}, "mentions": ("周五",)}, "correct"),
    ("不是合同，是发票", {"slot_values": {"doc": "发票"}, "mentions": ("合同", "发票"), "kind": "correction"}, "correct"),
    ("not the contract but the invoice", {"slot_values": {"doc": "invoice"}, "mentions": ("contract", "invoice")},
     "correct"),
    ("不是報價單，是發票", {"slot_values": {"doc": "发票"}, "mentions": ("报价单", "发票")}, "correct"),
]


#: a no to the card, then a clause that wants another value: a repair of the card, never a cancel
DENY_THEN_WANT = [
    # (raw, heard fields, act, cue)
    ("No, I'd like it on Friday.", {"slot_values": {"when": "fri"}, "mentions": ("friday",)}, "correct",
     "correct:deny+new-value"),
    ("No, time change to twelve in the afternoon for one people",
     {"slot_values": {"when": "12:00"}, "mentions": ("twelve in the afternoon",)}, "correct", "correct:deny+new-value"),
    ("No, I want it to be for next tuesday, and only for one person.",
     {"slot_values": {"when": "tue"}, "mentions": ("next tuesday",)}, "correct", "correct:deny+new-value"),
    ("No. Please make it at 6:30 pm at the office", {"slot_values": {"when": "18:30"}, "mentions": ("6:30 pm",)},
     "correct", None),
    ("No, I actually want to go on Friday.", {"slot_values": {"when": "fri"}, "mentions": ("friday",)}, "correct",
     "correct:deny+new-value"),
    ("不对，我想改到明天下午", {"slot_values": {"when": "tomorrow-pm"}, "mentions": ("明天下午",)}, "correct", None),
    # a no whose value is refused, or only explained, asks for nothing
    ("No, not on Friday", {"slot_values": {"when": "fri"}, "mentions": ("friday",)}, "deny", None),
    ("No, I don't want it on Friday", {"slot_values": {"when": "fri"}, "mentions": ("friday",)}, "deny", None),
    ("No, she is away this week", {"slot_values": {"when": "this-week"}, "mentions": ("this week",)}, "deny", None),
    ("no, she can't make it on Friday", {"slot_values": {"when": "fri"}, "mentions": ("friday",)}, "deny", None),
    ("不用了，她明天要出差", {"slot_values": {"when": "tomorrow"}, "mentions": ("明天",)}, "deny", None),
    # a value the card already has is no change: the no stands
    ("No, I'd like it to Li Na", {"slot_values": {"person": "person:sales/li"}, "mentions": ("li na",)}, "deny", None),
]


@pytest.mark.parametrize("raw,kw,act,cue", DENY_THEN_WANT, ids=_ids(DENY_THEN_WANT))
def test_a_no_then_the_value_wanted_instead_repairs_the_card(raw: str, kw: dict, act: str, cue: str | None) -> None:
    r = read_answer(CONFIRM, heard(raw, **kw))
    assert r.act == act, r
    if cue:
        assert r.cue == cue, r
    if act == "correct":
        assert dict(r.values) == kw["slot_values"]


@pytest.mark.parametrize("raw,kw,act", LONG, ids=_ids(LONG))
def test_long_answers_and_values_in_passing(raw: str, kw: dict, act: str) -> None:
    r = read_answer(CONFIRM, heard(raw, **kw))
    assert r.act == act, r


def test_a_correction_carries_only_the_new_values() -> None:
    r = read_answer(CONFIRM, heard("不是合同，是发票，发给李娜", slot_values={"doc": "发票", "person": "person:sales/li"},
                                   mentions=("合同", "发票", "李娜")))
    assert (r.act, dict(r.values)) == ("correct", {"doc": "发票"})


# --- where a hedge ends and a refusal begins ----------------------------------------------------------

REFUSE_OR_HEDGE = [
    # a negation before the card's action refuses it, softened or not: deny (the card is cancelled)
    ("好的，不过先别发了", "deny"), ("好的，不過先別發了", "deny"), ("先别发了", "deny"), ("先不发了", "deny"),
    ("发票先不发了", "deny"), ("那个报价单先别发", "deny"), ("暂时不用发", "deny"), ("暫時不用發", "deny"),
    ("先别急着发", "deny"), ("不用再发了", "deny"), ("还是别发了吧", "cancel"), ("嗯，那就先不寄了", "deny"),
    ("今天先不重启了", "deny"), ("好的好的，但是先不要提交", "deny"), ("先别動", "deny"),
    ("ok, but actually don't send it yet", "deny"), ("don't send it yet", "deny"), ("please do not send this one", "deny"),
    ("let's not send it", "deny"), ("I'd rather not send it", "deny"), ("no need to send it", "deny"),
    ("sure, but don't restart it yet", "deny"), ("Please don't send it for now", "deny"),
    ("OK 先别发", "deny"), ("好的, but don't send it", "deny"),
    # a deferral closed by 了 is a decision
    ("先不用了", "deny"), ("先不要了", "deny"), ("暂时不用了", "deny"), ("暫時不用了", "deny"), ("还是不要了", "deny"),
    # a hedge asks for time and names no action: the card stays open
    ("等等", "hedge"), ("我再想想", "hedge"), ("让我再想想", "hedge"), ("先不要", "hedge"), ("以后再说", "hedge"),
    ("稍等一下", "hedge"), ("hold on", "hedge"), ("let me think", "hedge"), ("not now", "hedge"), ("not yet", "hedge"),
    ("no rush", "hedge"), ("not for now", "hedge"), ("好的，不过我再想想", "hedge"), ("ok, but hold on", "hedge"),
    # a negated action inside somebody's request, or a question, refuses nothing
    ("要不要发？", "unrelated"), ("发不发呢", "unrelated"), ("好不好", "unrelated"), ("可以不可以", "unrelated"),
    ("tell her not to send it", "unrelated"),
]


@pytest.mark.parametrize("raw,act", REFUSE_OR_HEDGE, ids=_ids(REFUSE_OR_HEDGE))
def test_refusal_or_hedge(raw: str, act: str) -> None:
    r = read_answer(CONFIRM, heard(raw))
    assert r.act == act, r


@pytest.mark.parametrize("raw,kw,act", [
    # the NLU's guess of another intent does not make a refusal a request
    ("发票先不发了", {"intent": "doc.list_sent", "out_of_scope": False, "rest_chars": 4, "mentions": ("发票",)}, "deny"),
    ("ok, but actually don't send it yet", {"intent": "doc.resend", "out_of_scope": False, "rest_chars": 20}, "deny"),
    # …but a new request beside it is that request
    ("别发了，帮我查一下磁盘", DISK, "request"),
    ("don't send it, check the disk instead", {**DISK, "rest_chars": 20}, "request"),
    ("提醒我明天别发报价单", {"intent": "reminder.create", "out_of_scope": False, "rest_chars": 8}, "request"),
    ("remind me not to send it tomorrow", {"intent": "reminder.create", "out_of_scope": False, "rest_chars": 20},
     "request"),
    # after a no, only a part that asks for something is a request
    ("no, the one in R&D", {"intent": "reminder.create", "out_of_scope": False, "rest_chars": 10}, "deny"),
    ("不对，研发部那位", {"intent": "doc.send", "out_of_scope": False, "rest_chars": 5}, "deny"),
    ("不行，磁盘怎么样了", {"intent": "device.disk", "out_of_scope": False, "rest_chars": 6}, "request"),
    ("no, how much disk is left?", {**DISK, "rest_chars": 15}, "request"),
])
def test_refusal_against_a_new_request(raw: str, kw: dict, act: str) -> None:
    assert read_answer(CONFIRM, heard(raw, **kw)).act == act


@pytest.mark.parametrize("q,raw,act", [
    (OFFER, "先别发了", "deny"), (OFFER, "don't send it yet", "deny"), (OFFER, "我再想想", "hedge"),
    (ASK, "先别发了", "cancel"), (ASK, "不用提醒了", "cancel"), (ASK, "don't remind me", "cancel"),
    (ASK, "等一下", "hedge"), (CHOICE2, "先别发了", "cancel"), (CHOICE2, "先不發了", "cancel"),
    (CHOICE2, "don't send it yet", "cancel"), (CHOICE2, "hold on", "hedge"),
])
def test_refusal_at_every_question(q: Any, raw: str, act: str) -> None:
    assert read_answer(q, heard(raw)).act == act


# --- a number is no yes and no no --------------------------------------------------------------

ORDER = {"intent": "order.status", "out_of_scope": False}


@pytest.mark.parametrize("q", [CONFIRM, OFFER], ids=["confirm", "offer"])
@pytest.mark.parametrize("raw,kw", [
    ("1234", ORDER), ("２", {}), ("8888", ORDER), ("１２３４", ORDER), ("3", {}), ("two", {}), ("#3", {}),
    ("第二个", {}), ("the second one", {}), ("一", {}), ("number 5", {}), ("2号", {}),
])
def test_a_bare_number_at_a_yes_no_card_asks_again(q: Any, raw: str, kw: dict) -> None:
    r = read_answer(q, heard(raw, **kw))
    assert (r.act, r.cue) == ("unrelated", "number:expects-yes-no"), r


@pytest.mark.parametrize("raw,kw,act", [
    ("订单1234到哪了", {**ORDER, "rest_chars": 4}, "request"),        # a number in a request is that request
    ("where is order 1234", {**ORDER, "rest_chars": 12}, "request"),
    ("好的，2份", {}, "affirm"),                                        # a number beside a yes is still a yes
    ("1234", {**ORDER, "slot_values": {"copies": 1234}, "mentions": ("1234",)}, "correct"),  # a slot the card has
])
def test_numbers_beside_other_words(raw: str, kw: dict, act: str) -> None:
    assert read_answer(CONFIRM, heard(raw, **kw)).act == act


def test_a_bare_number_at_a_slot_question_without_a_value_asks_again() -> None:
    assert read_answer(ASK, heard("1234", **ORDER)).act == "unrelated"
    assert read_answer(ASK, heard("1234", asked_value="t", **ORDER)).act == "fill"


# --- small talk with nothing open ------------------------------------------------------------------

@pytest.mark.parametrize("raw,kw,kind", [
    ("ok bye for now", {}, "goodbye"), ("OK, bye for now!", {}, "goodbye"), ("bye for now", {}, "goodbye"),
    ("ok, see you later", {}, "goodbye"), ("好的，再见", {}, "goodbye"), ("好的，拜拜啦", {}, "goodbye"),
    ("好，回头见", {}, "goodbye"), ("thanks, bye for now", {}, "goodbye"), ("好的謝謝，再見", {}, "goodbye"),
    ("你都会些什么呀", {}, "capabilities"), ("你都会什么", {}, "capabilities"), ("你还能干点啥", {}, "capabilities"),
    ("你都能帮我做些什么", {}, "capabilities"), ("你可以做哪些事情", {}, "capabilities"), ("你會些什麼呢", {}, "capabilities"),
    ("你都能幹些什麼", {}, "capabilities"), ("what else can you do", {}, "capabilities"),
    ("what kind of things can you help me with?", {}, "capabilities"), ("what are you good at", {}, "capabilities"),
    ("what could I ask you", {}, "capabilities"), ("how can you help me", {}, "capabilities"),
    # a weak intent guess does not beat small talk that is the whole utterance
    ("你都会些什么呀", {"intent": "device.system_status", "out_of_scope": False}, "capabilities"),
    ("what else can you do", {"intent": "reminder.list", "out_of_scope": False}, "capabilities"),
    ("ok bye for now", {"intent": "session.end", "out_of_scope": False}, "goodbye"),
])
def test_smalltalk_with_nothing_open(raw: str, kw: dict, kind: str) -> None:
    r = read_answer(None, heard(raw, **kw))
    assert (r.act, r.smalltalk) == ("smalltalk", kind), r


@pytest.mark.parametrize("raw", ["你能帮我查一下磁盘吗", "can you check the disk for me", "你都会些什么，帮我查一下磁盘"])
def test_a_clear_request_beats_smalltalk(raw: str) -> None:
    assert read_answer(None, heard(raw, **{**DISK, "rest_chars": 8})).act == "request"


# --- choices named by an alias the card does not show, or by a description ----------------------------

_BARE_WEI = Candidate("person:sales/zhang", "张伟", {"display_en": "Zhang Wei", "dept": "sales", "dept_name": "销售部",
                                                    "dept_name_en": "Sales", "dept_aliases": ["销售", "sales team"],
                                                    "title": "工程师", "email": "zhang.wei@example.com"})
_BARE_QIANG = Candidate("person:rd/zhang", "张强", {"display_en": "Zhang Qiang", "dept": "rd", "dept_name": "研发部",
                                                   "dept_name_en": "R&D", "dept_aliases": ["研发", "engineering"],
                                                   "title": "工程师", "email": "zhang.qiang@example.com"})
CARD = Choice("张工", (_BARE_QIANG, _BARE_WEI), "把报价单发给张工", prompt="你说的张工是哪一位？")
SEND = {"intent": "doc.send", "out_of_scope": False}

NAMED = [
    # (raw, heard fields, index)
    ("是强哥", {"people": {"强哥": "张强"}, "rest_chars": 1}, 0), ("强哥", {"people": {"强哥": "张强"}}, 0),
    ("就小张吧", {"people": {"小张": "张伟"}, "rest_chars": 2}, 1), ("不是强哥", {"people": {"强哥": "张强"}}, 1),
    ("是強哥", {"people": {"强哥": "张强"}}, 0), ("Zhang Qiang", {"people": {"zhang qiang": "张强"}}, 0),
    ("mr. zhang wei", {"people": {"mr. zhang wei": "张伟"}}, 1),
    # a description is an answer, whatever the NLU guessed
    ("the engineer from rd", {**SEND, "rest_chars": 14}, 0), ("the guy in sales", {**SEND, "rest_chars": 10}, 1),
    ("研发部那位工程师", {**SEND, "rest_chars": 8}, 0), ("销售部的那个张工", {**SEND, "rest_chars": 7}, 1),
    ("the one from the sales team", {**SEND, "rest_chars": 18}, 1), ("no, the one in R&D", {**SEND, "rest_chars": 10}, 0),
    ("engineering", {**SEND, "rest_chars": 11}, 0),
]


@pytest.mark.parametrize("raw,kw,index", NAMED, ids=_ids(NAMED))
def test_choice_by_alias_or_description(raw: str, kw: dict, index: int) -> None:
    r = read_answer(CARD, heard(raw, **kw))
    assert (r.act, r.choice) == ("choose", index), r


@pytest.mark.parametrize("raw,kw,act", [
    ("把合同也发给张伟吧", {**SEND, "rest_chars": 6, "people": {"张伟": "张伟"}}, "request"),
    ("also send the contract to Zhang Wei", {**SEND, "rest_chars": 20, "people": {"zhang wei": "张伟"}}, "request"),
    ("查一下研发部的服务器", {"intent": "device.system_status", "out_of_scope": False, "rest_chars": 7}, "request"),
    ("李娜", {"people": {"李娜": "李娜"}}, "unrelated"),          # somebody not on the card
])
def test_a_request_while_choosing_asks_for_something(raw: str, kw: dict, act: str) -> None:
    assert read_answer(CARD, heard(raw, **kw)).act == act


# --- cues, shapes, speed ----------------------------------------------------------------------

@pytest.mark.parametrize("q,raw,cue", [
    (CONFIRM, "好的", "affirm:好的"), (CONFIRM, "不用了", "deny:不用了"), (CONFIRM, "not now", "hedge:not now"),
    (CONFIRM, "好的，但是我还没想好", "contrast+hedge:还没想好"), (CONFIRM, "好的，不过要快点", "contrast.unread"),
    (CHOICE2, "最后那个", "choose:ordinal.last:最后那个"), (CHOICE2, "销售部的", "choose:dept_name:销售部"),
    (CHOICE2, "3", "number:out-of-range"), (None, "谢谢", "smalltalk.thanks"),
])
def test_cue_names_what_decided(q: Any, raw: str, cue: str) -> None:
    assert read_answer(q, heard(raw)).cue == cue


def test_every_reading_is_a_known_act() -> None:
    rows = [(CONFIRM, r[0]) for r in YES_NO] + [(CHOICE2, r[0]) for r in CHOOSE2] + [(ASK, r[0]) for r in ASKED]
    for q, raw in rows:
        r = read_answer(q, heard(raw))
        assert r.act in ACTS and (r.smalltalk is None or r.smalltalk in SMALLTALK) and r.cue


@pytest.mark.parametrize("q", [None, CONFIRM, OFFER, ASK, CHOICE2, CHOICE3], ids=["none", "confirm", "offer", "ask",
                                                                                "choice2", "choice3"])
def test_any_text_reads_as_a_known_act(q: Any) -> None:
    from hypothesis import given, settings, strategies as st

    alphabet = st.sampled_from(list("好的不是对取消第二个最后那个但是,.?!？ 🙂👍２二两一abc nopyes") + ["yes", "no", "but", "the"])

    @settings(max_examples=150, deadline=None, database=None)
    @given(st.lists(alphabet, max_size=40).map("".join), st.integers(0, 8))
    def check(raw: str, rest: int) -> None:
        r = read_answer(q, heard(raw, rest_chars=rest, slot_values={"person": "x"} if rest % 2 else {}))
        assert r.act in ACTS and r.cue
        if r.act == "choose" and q is not None:
            assert r.choice is not None and 0 <= r.choice < len(q.candidates)

    check()


# --- a choice corrected: another person named in place of the mention -------------------------------

def _person(raw: str, mention: str, shown: str | None = None, kind: str = "correction", **kw: Any) -> Heard:
    m = normalize(mention).text
    return heard(raw, kind=kind, people={m: shown or mention}, mentions=(mention,), **kw)


RENAMED = [
    # (raw, the person mention, its grounded name, NLU kind) -> correct {person: mention}
    ("不对，是李工", "李工", None, "correction"),
    ("不是，是王芳", "王芳", "王芳", "correction"),
    ("不对不对，我说的是李经理", "李经理", "李娜", "command"),
    ("都不是，是王工", "王工", None, "command"),
    ("不對，是李工", "李工", None, "correction"),
    ("no, I meant Li", "Li", "李娜", "correction"),
    ("No, Wang Fang", "Wang Fang", "王芳", "command"),
    ("neither, I meant Smith", "Smith", "John Smith", "correction"),
    ("I meant Li Na", "Li Na", "李娜", "command"),
]


@pytest.mark.parametrize("raw,mention,shown,kind", RENAMED, ids=_ids(RENAMED))
def test_naming_another_person_at_a_choice_is_a_correction(raw: str, mention: str, shown: str | None,
                                                           kind: str) -> None:
    r = read_answer(CHOICE2, _person(raw, mention, shown, kind))
    assert (r.act, dict(r.values)) == ("correct", {"person": normalize(mention).text}), r


NOT_RENAMED = [
    # a candidate named is a choice; the card's own mention, a request or no correction signal is not a renaming
    ("不对，是张强", "张强", "张强", "choose"),
    ("不对，是张工", "张工", "张工", "deny"),                  # the card's own mention: still open, asked again
    ("李工", "李工", None, "unrelated"),                       # no deny, no cue, kind command: not a correction
    ("不对，把合同发给李工吧", "李工", None, "request"),
]


@pytest.mark.parametrize("raw,mention,shown,act", NOT_RENAMED, ids=_ids(NOT_RENAMED))
def test_what_is_not_a_renaming(raw: str, mention: str, shown: str | None, act: str) -> None:
    kw: dict[str, Any] = {"kind": "command"}
    if act == "request":
        kw.update(intent="doc.send", out_of_scope=False, rest_chars=6)
    r = read_answer(CHOICE2, _person(raw, mention, shown, **kw))
    assert r.act == act, r


# --- reminding imperatives and "true" / "false" ---------------------------------------------------

@pytest.mark.parametrize("raw", ["别忘了提醒我明天开会", "不要忘了提醒我开会", "記得提醒我開會",
                                 "don't forget to remind me about the meeting", "remember to remind me at 5pm"])
def test_a_reminding_imperative_at_a_card_is_a_request_not_a_no(raw: str) -> None:
    r = read_answer(CONFIRM, heard(raw, intent="reminder.set", out_of_scope=False, rest_chars=8))
    assert r.act == "request" and not r.cue.startswith("deny+"), r


@pytest.mark.parametrize("raw,act", [("true", "affirm"), ("True", "affirm"), ("that's true", "affirm"),
                                     ("false", "deny"), ("not true", "deny"), ("that's false", "deny"),
                                     ("true, send it", "affirm")])
def test_true_and_false_answer_a_yes_no_question(raw: str, act: str) -> None:
    assert read_answer(CONFIRM, heard(raw)).act == act
    assert read_answer(OFFER, heard(raw)).act == act


# --- "不是X，是Y" with no value the card can use: the no stands, never a yes (a send once went to the
# person the user had just said was wrong) ----------------------------------------------------------

@pytest.mark.parametrize("raw", ["不是他，是研发部的", "不对，是财务部的", "不对，是研发部的张工", "不是这份，是070那份",
                                 "不是，是另外一个", "no, it is the other one"])
def test_a_no_then_what_is_wanted_is_never_a_yes(raw: str) -> None:
    assert read_answer(CONFIRM, heard(raw)).act in ("deny", "cancel", "correct")


def test_a_no_then_a_named_person_corrects_the_card() -> None:
    r = read_answer(CONFIRM, heard("不是他，是李娜", slot_values={"person": "李娜"}))
    assert r.act == "correct" and r.values == {"person": "李娜"}


LOOKUP = {"intent": "people.lookup", "out_of_scope": False, "rest_chars": 6}


@pytest.mark.parametrize("raw,kw,cue", [
    # a hedge holds the card: the question after it is a digression (the card asked again), never a no
    ("等一下，她邮箱是多少", LOOKUP, "request:people.lookup"),
    ("hold on, what is her email", {**LOOKUP, "rest_chars": 14}, "request:people.lookup"),
    # a no, then a request: the card is dropped first
    ("不用了，她邮箱是多少", LOOKUP, "deny+request:people.lookup"),
    ("别发了，帮我查一下磁盘", {**DISK, "rest_chars": 7}, "deny+request:device.disk"),
])
def test_a_hedge_then_a_question_keeps_the_card(raw: str, kw: dict, cue: str) -> None:
    r = read_answer(CONFIRM, heard(raw, **kw))
    assert (r.act, r.cue) == ("request", cue), r


def test_a_request_of_the_forms_intent_with_another_task_is_a_request_of_its_own():
    """几点提醒你吃药？ answered "明天早上八点提醒我开会": 开会 is its own reminder (it set 吃药 at 08:00)."""
    q = replace(ASK, intent="reminder.set", entities={"task": "吃药"})
    when = {"kind": "datetime", "point": "2031-03-13T08:00:00+08:00"}
    said = dict(intent="reminder.set", out_of_scope=False, rest_chars=9, asked_value=when)
    assert read_answer(q, heard("明天早上八点提醒我开会", slot_values={"when": when, "task": "开会"}, **said)).act == "request"
    # the same task said again, or none, is the answer
    assert read_answer(q, heard("明天早上八点提醒我吃药", slot_values={"when": when, "task": "吃药"}, **said)).act == "fill"
    assert read_answer(q, heard("那就明天早上八点提醒我吧", slot_values={"when": when}, **said)).act == "fill"
