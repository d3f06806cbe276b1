"""Where one utterance holds several requests (hermesd.dialogue.split.split_requests), zh × zh-Hant × en."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermesd.dialogue.lexicon import load_lexicon
from hermesd.dialogue.split import reminding_request, split_requests

SPLITS = [
    # a comma or semicolon between two parts that each start with a verb
    ("查一下磁盘，把发票发给李经理", ["查一下磁盘", "把发票发给李经理"]),
    ("看看网络通不通；提醒我明天开会", ["看看网络通不通", "提醒我明天开会"]),
    ("查一下磁盤，把發票發給李經理", ["查一下磁盤", "把發票發給李經理"]),
    ("check the disk, send the invoice to Li Na", ["check the disk", "send the invoice to Li Na"]),
    ("restart nginx; check the network", ["restart nginx", "check the network"]),
    # zh: then-conjunctions anywhere, and-conjunctions after a comma before a verb; a leading 先 dropped
    ("先查一下磁盘，然后看看服务状态", ["查一下磁盘", "看看服务状态"]),
    ("先查一下磁盘然后看看服务状态", ["查一下磁盘", "看看服务状态"]),
    ("查一下磁盘，接着重启nginx", ["查一下磁盘", "重启nginx"]),
    ("查一下磁盘，再看看网络", ["查一下磁盘", "看看网络"]),
    ("查一下磁盘，顺便看看网络", ["查一下磁盘", "看看网络"]),
    ("查一下磁盘，另外提醒我明天开会", ["查一下磁盘", "提醒我明天开会"]),
    ("查一下磁盘，并且发报价单给李娜", ["查一下磁盘", "发报价单给李娜"]),
    ("首先重启nginx，然后检查网络", ["重启nginx", "检查网络"]),
    ("先查磁盘，之后看服务", ["查磁盘", "看服务"]),
    ("重启nginx，之后再查一下网络", ["重启nginx", "查一下网络"]),
    ("查一下磁盘；然后看看服务状态", ["查一下磁盘", "看看服务状态"]),
    ("查一下磁盘。然后看看服务状态", ["查一下磁盘", "看看服务状态"]),
    ("发给李娜，也发给王芳", ["发给李娜", "发给王芳"]),
    ("把报价单发给张工然后抄送李娜", ["把报价单发给张工", "抄送李娜"]),
    ("提醒我明天上午十点开会，然后查一下磁盘", ["提醒我明天上午十点开会", "查一下磁盘"]),
    ("帮我查一下磁盘，然后看看网络", ["帮我查一下磁盘", "看看网络"]),
    ("查一下磁盘，然后看看网络，再重启nginx", ["查一下磁盘", "看看网络", "重启nginx"]),
    # a part without a verb borrows the first part's
    ("查一下磁盘，然后服务状态", ["查一下磁盘", "查一下服务状态"]),
    ("帮我查一下磁盘然后服务状态", ["帮我查一下磁盘", "帮我查一下服务状态"]),
    # zh-Hant and full-width
    ("先檢查磁盤，然後看看網絡", ["檢查磁盤", "看看網絡"]),
    ("查一下磁盤，接著重啟nginx", ["查一下磁盤", "重啟nginx"]),
    ("查一下磁盘，還有看看網絡", ["查一下磁盘", "看看網絡"]),
    ("check the ＤＩＳＫ and then restart nginx", ["check the ＤＩＳＫ", "restart nginx"]),
    # en
    ("check the network and then the disk", ["check the network", "check the disk"]),
    ("Check the network, then check the disk", ["Check the network", "check the disk"]),
    ("check the disk and restart nginx", ["check the disk", "restart nginx"]),
    ("check the disk, and also the network", ["check the disk", "check the network"]),
    ("check the disk. After that, restart nginx", ["check the disk", "restart nginx"]),
    ("first check the disk and then remind me to call Li", ["check the disk", "remind me to call Li"]),
    ("First check the disk, then the network", ["check the disk", "check the network"]),
    ("check the disk then the network", ["check the disk", "check the network"]),
    ("show me the uptime and what's the disk usage", ["show me the uptime", "what's the disk usage"]),
    ("Please check the disk and then please restart nginx", ["Please check the disk", "please restart nginx"]),
    ("first of all, check the disk and then show me the uptime", ["check the disk", "show me the uptime"]),
    # parallel time clauses: a time before the verb, the verb and the day carried into a clock-only part
    ("明天八点提醒我开会，九点提醒我打电话", ["明天八点提醒我开会", "明天九点提醒我打电话"]),
    ("明天八点提醒我开会，九点提醒我打电话，十点提醒我吃药", ["明天八点提醒我开会", "明天九点提醒我打电话", "明天十点提醒我吃药"]),
    ("提醒我明天八点开会，九点打电话", ["提醒我明天八点开会", "提醒我明天九点打电话"]),
    ("周五上午提醒我交报告，下午提醒我开会", ["周五上午提醒我交报告", "周五下午提醒我开会"]),
    ("提醒我后天上午十点交报告，十一点取快递", ["提醒我后天上午十点交报告", "提醒我后天上午十一点取快递"]),
    ("明天下午三点提醒我开会，四点提醒我打电话", ["明天下午三点提醒我开会", "明天下午四点提醒我打电话"]),
    ("明天八點提醒我開會，九點提醒我打電話", ["明天八點提醒我開會", "明天九點提醒我打電話"]),
    ("后天10:30提醒我取快递；11:00提醒我买菜", ["后天10:30提醒我取快递", "后天11:00提醒我买菜"]),
    ("remind me at 8 to call mum and at 9 to take the pills", ["remind me at 8 to call mum", "remind me at 9 to take the pills"]),
    ("Remind me tomorrow at 7am to water the plants, and at 6pm to feed the cat",
     ["Remind me tomorrow at 7am to water the plants", "Remind me tomorrow at 6pm to feed the cat"]),
    ("remind me on friday at 8:30 to call Li and at 9:15 to book a room",
     ["remind me on friday at 8:30 to call Li", "remind me on friday at 9:15 to book a room"]),
    # two questions one after the other, whatever joins them (no verb needed, no comma before 和 / 还有)
    ("磁盘还剩多少，网络通不通", ["磁盘还剩多少", "网络通不通"]),
    ("磁盘还剩多少、网络通不通", ["磁盘还剩多少", "网络通不通"]),
    ("磁盘还剩多少和网络通不通", ["磁盘还剩多少", "网络通不通"]),
    ("磁盘还剩多少还有网络通不通", ["磁盘还剩多少", "网络通不通"]),
    ("磁盘还剩多少，还有网络通不通", ["磁盘还剩多少", "网络通不通"]),
    ("内存用了多少，磁盘满了吗", ["内存用了多少", "磁盘满了吗"]),
    ("磁盘满了吗？网络通吗？", ["磁盘满了吗", "网络通吗？"]),
    ("现在几点，明天天气怎么样", ["现在几点", "明天天气怎么样"]),
    ("磁盤還剩多少，網絡通不通", ["磁盤還剩多少", "網絡通不通"]),
    ("how much disk is left and is the network up", ["how much disk is left", "is the network up"]),
    ("how much disk is left, also is the network up", ["how much disk is left", "is the network up"]),
    ("is the disk full? is the network up?", ["is the disk full", "is the network up?"]),
    ("what time is it and what's the weather tomorrow", ["what time is it", "what's the weather tomorrow"]),
    # a part led by a time after an untimed first part keeps its own verb (never "把明天九点提醒我…")
    ("把合同发给李娜，然后明天九点提醒我给她打电话", ["把合同发给李娜", "明天九点提醒我给她打电话"]),
    ("send the contract to Li Na and then tomorrow at 9 remind me to call her",
     ["send the contract to Li Na", "tomorrow at 9 remind me to call her"]),
    ("send the contract to Li Na and remind me tomorrow at 9 to call her",
     ["send the contract to Li Na", "remind me tomorrow at 9 to call her"]),
]


@pytest.mark.parametrize("text,parts", SPLITS, ids=[s[0][:30] for s in SPLITS])
def test_splits(text: str, parts: list[str]) -> None:
    assert split_requests(text) == parts


WHOLE = [
    # a comma after a vocative, an opener, a time or before thanks is no second request
    "李经理，帮我查一下磁盘",
    "好的，查一下磁盘",
    "把报价单发给李经理，谢谢",
    "明天上午，提醒我开会",
    "Li Na, please check the disk",
    "ok, check the disk",
    "send the quote to Li and Wang",           # a part without a verb: never proposed
    "send the quote to Li, and Wang",
    "remind me at 3 and 5",
    "remind me at 8 to call mum and to take the pills",   # one time: one reminder of two things
    "send the quote to Li and to Wang",
    "明天八点，九点都提醒我",
    "remind me tomorrow at 3pm and then at 5pm",  # never between two times
    "3点和5点提醒我",
    "明天上午然后下午都提醒我",
    "把报价单和合同发给李娜",
    "查一下磁盘和网络",
    "发给李娜，还有王芳",
    "看看网络状态，还有磁盘",
    "查磁盘再看服务",                            # 再 without a comma is "again", not "and"
    "查一下磁盘，再说一遍",
    "我想先看看",
    "然后呢",
    "and then?",
    "先生，帮我查磁盘",
    "磁盘和网络怎么样",                          # one question about two things: its first part asks nothing
    "磁盘满了吗？",
    "网络通不通和磁盘",
    "how much disk and memory is left",
    "查一下磁盘",
    "把报价单发给张工",
    "ok",
    "",
]


@pytest.mark.parametrize("text", WHOLE)
def test_stays_whole(text: str) -> None:
    assert split_requests(text) == [text]


def test_parts_are_taken_from_the_text_as_given() -> None:
    text = "先檢查磁盤，然後看看網絡"
    parts = split_requests(text)
    assert all(p in text for p in parts) and parts[0] == "檢查磁盤"


def test_a_pack_adds_a_conjunction(tmp_path: Path) -> None:
    extra = tmp_path / "joins.yaml"
    extra.write_text("conjunctions:\n  then:\n    zh: [完了]\n    en: [once done]\n", encoding="utf-8")
    lex = load_lexicon([extra])
    assert split_requests("查一下磁盘完了看看网络") == ["查一下磁盘完了看看网络"]
    assert split_requests("查一下磁盘完了看看网络", lex) == ["查一下磁盘", "看看网络"]
    assert split_requests("check the disk once done restart nginx", lex) == ["check the disk", "restart nginx"]


REMINDING = [
    ("别忘了提醒我明天开会", "提醒我明天开会"),
    ("不要忘了把报价单发给李经理", "把报价单发给李经理"),
    ("記得提醒我交報告", "提醒我交報告"),
    ("don't forget to remind me about the meeting at 5pm", "remind me about the meeting at 5pm"),
    ("Please remember to send the invoice to Li Na", "send the invoice to Li Na"),
    ("别忘了我明天要开会", None),                     # something to remember, not a request
    ("don't forget that my locker code is 1234", None),
    ("don't forget", None),
    ("提醒我明天开会", None),
]


@pytest.mark.parametrize("text,core", REMINDING, ids=[r[0][:30] for r in REMINDING])
def test_a_reminding_imperative_is_its_request(text: str, core: str | None) -> None:
    assert reminding_request(text) == core


CAPPED = [
    # (parts, limit, kept, repeated, over)
    (["查一下磁盘", "查一下磁盘", "查一下磁盘"], 5, ["查一下磁盘"], 2, []),
    (["查一下磁盘", "查一下磁盘。", " 查一下磁盘 "], 5, ["查一下磁盘"], 2, []),
    (["check the disk", "Check the disk", "check the network"], 5, ["check the disk", "check the network"], 1, []),
    (["a1", "b2", "c3", "d4", "e5", "f6", "g7"], 5, ["a1", "b2", "c3", "d4", "e5"], 0, ["f6", "g7"]),
    (["a1", "a1", "b2", "c3"], 2, ["a1", "b2"], 1, ["c3"]),
    (["查一下磁盘"], 5, ["查一下磁盘"], 0, []),
]


@pytest.mark.parametrize("parts,limit,kept,repeated,over", CAPPED)
def test_capped_runs_a_repeated_request_once_and_bounds_the_rest(parts, limit, kept, repeated, over):
    from hermesd.dialogue.split import capped

    c = capped(parts, limit)
    assert (c.parts, c.repeated, c.over) == (kept, repeated, over)


def test_capped_400_times_the_same_request_is_one():
    from hermesd.dialogue.split import capped

    parts = split_requests("请帮我看一下磁盘，" * 400)
    assert len(parts) == 400
    c = capped(parts)
    assert c.parts == ["请帮我看一下磁盘"] and c.repeated == 399 and c.over == []


def test_capped_limit_must_be_positive():
    from hermesd.dialogue.split import capped

    with pytest.raises(ValueError):
        capped(["a"], 0)
