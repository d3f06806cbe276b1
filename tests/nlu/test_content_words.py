"""Courtesy and hesitation words ask for nothing: alone they are no request, and they are no
evidence for an intent (``hermesd.nlu.intents.content_of``), in either language."""

import pytest

from hermesd.nlu.intents import content_of
from hermesd.nlu.normalize import normalize


@pytest.mark.parametrize("text", ["please", "Please.", "pls", "kindly", "um, thanks", "thank you", "uh please",
                                  "请", "麻烦了", "那个", "那个吧", "嗯嗯", "呃……谢谢"])
def test_only_courtesy_is_empty(text: str) -> None:
    assert content_of(normalize(text).text) == ""


@pytest.mark.parametrize("text,content", [
    ("please be slow", "be slow"),
    ("zebra stripes please", "zebra stripes"),
    ("check the disk space please", "check the disk space"),
    ("could you please restart nginx", "could you restart nginx"),
])
def test_english_courtesy_is_cut_wherever_it_stands(text: str, content: str) -> None:
    assert content_of(normalize(text).text) == content


@pytest.mark.parametrize("text", ["请假条发给李娜吧", "请帮我把报价单发给李娜", "那个文件发给李娜", "remind me at 5",
                                  "okay google", "pleasant weather"])
def test_words_with_content_are_kept_as_they_are(text: str) -> None:
    norm = normalize(text).text
    assert content_of(norm) == norm


# ---- on the shipped packs ---------------------------------------------------------------------

@pytest.mark.parametrize("text", ["please", "please be slow", "zebra stripes please", "please help", "thanks please",
                                  "kindly", "请", "那个", "麻烦了"])
def test_a_courtesy_word_wins_no_intent(nlu, text: str) -> None:
    r = nlu.parse(text)
    assert r.out_of_scope and r.intent is None, (text, [m.to_dict() for m in r.intents[:3]])


@pytest.mark.parametrize("text,intent", [("check the disk space please", "device.disk_space"),
                                         ("please restart nginx", "device.service_restart"),
                                         ("请查一下磁盘空间", "device.disk_space")])
def test_a_request_with_courtesy_still_routes(nlu, text: str, intent: str) -> None:
    assert nlu.parse(text).intent == intent
