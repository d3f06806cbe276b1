"""The memory grammar (:func:`hermesd.memory.facts.read_request`, pure): a Chinese 记下了 / 记好了
said without 请 / 帮我 before it is the speaker's acknowledgement ("got it"), never a request to
remember the rest of the utterance; the command forms still are."""

from __future__ import annotations

import pytest

from hermesd.memory.facts import read_request


@pytest.mark.parametrize("text", [
    "记下了，谢谢。最后推荐一家评分4.5分以上的餐馆吧",
    "记好了，麻烦你再帮我们找个免费的景点",
    "记住了，那它的地址在哪？",
])
def test_an_acknowledgement_is_no_request_to_remember(text: str) -> None:
    assert read_request(text) is None


@pytest.mark.parametrize("text, subject, value", [
    ("记住：我的车停在B2", "我的车", "停在B2"),
    ("帮我记下了：车停在B2", "车", "停在B2"),
    ("请记住了，钥匙在抽屉里", "钥匙", "在抽屉里"),
    ("记住我家门禁密码是1234", "我家门禁密码", "1234"),
])
def test_a_request_to_remember_is_read(text: str, subject: str, value: str) -> None:
    req = read_request(text)
    assert req is not None and req.intent == "memory.remember"
    assert (req.subject, req.value) == (subject, value)


# -- a fact said without a memory verb, and the shapes of a question about one ----------------

@pytest.mark.parametrize("text, subject, value", [
    ("我女儿的生日是5月3号", "我女儿的生日", "5月3号"),
    ("王会计的生日是3月5号", "王会计的生日", "3月5号"),
    ("我的车位号是B2-117", "我的车位号", "B2-117"),
    ("我儿子的学号是2024015", "我儿子的学号", "2024015"),
    ("my daughter's birthday is May 3", "daughter's birthday", "May 3"),
    ("my wifi password is tiger77", "wifi password", "tiger77"),
    ("the gate code is 4721", "gate code", "4721"),
    ("our locker number is 17.", "locker number", "17"),
])
def test_a_statement_is_a_fact_to_remember(text: str, subject: str, value: str) -> None:
    req = read_request(text)
    assert req is not None and (req.intent, req.subject, req.value, req.stated) == ("memory.remember", subject, value, True)


@pytest.mark.parametrize("text", [
    "是不是发错了", "我的电脑是不是坏了", "我是张三", "今天是几号", "is the network down", "is my order late",
    "what is my order", "我的订单是什么",
    "我的意思是王芳", "我的问题是网络很慢", "my point is that it failed", "my question is about the disk",
])
def test_a_question_is_no_statement(text: str) -> None:
    req = read_request(text)
    assert req is None or req.intent != "memory.remember"


@pytest.mark.parametrize("text", [
    "我手机老是自己重启", "我电脑总是自动关机", "我的打印机还是卡纸", "我女儿可是很聪明", "我的车要是坏了怎么办",
    "我的网络不是很稳定",
])
def test_an_adverb_with_shi_is_no_copula(text: str) -> None:
    # 老是/总是/还是/可是/要是/不是: 是 bound into an adverb or a conjunction says how or whether, no fact
    req = read_request(text)
    assert req is None or req.intent != "memory.remember"


@pytest.mark.parametrize("text, subject", [
    ("我女儿的生日是哪天", "我女儿的生日"),
    ("我女儿的生日是多少", "我女儿的生日"),
    ("我女儿生日几号", "女儿生日"),
    ("我女儿的生日是什么时候", "我女儿的生日"),
    ("我的结婚纪念日是几月几号", "结婚纪念日"),
    ("when is my daughter's birthday", "daughter's birthday"),
    ("when's my anniversary?", "anniversary"),
    ("what day is my dentist appointment", "dentist appointment"),
    ("what is my wifi password", "wifi password"),
])
def test_a_question_about_a_fact_is_a_recall(text: str, subject: str) -> None:
    req = read_request(text)
    assert req is not None and (req.intent, req.subject, req.stated) == ("memory.recall", subject, False)


def test_what_is_the_x_is_a_recall_only_from_a_stored_fact() -> None:
    req = read_request("what is the gate code")
    assert req is not None and (req.intent, req.subject, req.stated) == ("memory.recall", "gate code", True)


@pytest.mark.parametrize("text, subject", [
    ("王会计的生日是哪天", "王会计的生日"),
    ("李娜的爱好是什么", "李娜的爱好"),
])
def test_someone_elses_thing_is_a_recall_a_pack_may_own(text: str, subject: str) -> None:
    req = read_request(text)
    assert req is not None and (req.intent, req.subject, req.stated) == ("memory.recall", subject, True)


@pytest.mark.parametrize("text", ["这家酒店的地址是什么？", "请问这家餐馆的电话是多少？", "那个景点的门票价格是多少"])
def test_a_thing_of_the_conversation_is_no_recall(text: str) -> None:
    """这/那/该 before the owner points at the dialogue (CrossWOZ's "这家酒店"), not at a remembered fact."""
    assert read_request(text) is None


@pytest.mark.parametrize("text", ["删除取快递的提醒", "删掉那个吃药的提醒", "清除所有闹钟", "delete the dentist reminder",
                                  "erase my alarms"])
def test_deleting_a_reminder_is_no_memory_request(text):
    """Cancelling a reminder is the reminders' business (reminder.cancel), never forgetting a memory."""
    assert read_request(text) is None


@pytest.mark.parametrize("text, subject", [("删除我的地址", "地址"), ("forget my address", "address")])
def test_deleting_a_fact_still_forgets_it(text, subject):
    req = read_request(text)
    assert req is not None and req.intent == "memory.forget" and req.subject == subject


@pytest.mark.parametrize("text, subject", [("保险箱密码是多少", "保险箱密码"), ("wifi密码是什么", "wifi密码"), ("门禁密码", "门禁密码")])
def test_a_secret_asked_with_no_owner_is_a_recall_of_the_speakers_own(text, subject):
    """Not the contact lookup (保险箱密码是多少 was "你想查谁？") nor the network status: answered only from a
    stored fact, which says it was not kept in the clear."""
    req = read_request(text)
    assert req is not None and req.intent == "memory.recall" and req.subject == subject and req.stated


@pytest.mark.parametrize("text", ["密码是778899", "把密码发给张工", "密码管理器坏了"])
def test_a_secret_word_that_asks_nothing_is_no_recall(text):
    req = read_request(text)
    assert req is None or req.intent != "memory.recall"
