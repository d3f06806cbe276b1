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
