"""Clock times that do not exist (hermesd.nlu.clock): found in the normalised text, said back in
words; a clock that exists, an amount of points or a ratio is never one."""

import pytest

from hermesd.nlu.clock import impossible_clock_text, impossible_clocks
from hermesd.nlu.normalize import normalize

BAD = [
    ("明天25点开会", "25点", "没有25点"),
    ("明天二十五点提醒我开会", "25点", "没有25点"),
    ("後天26點開會", "26点", "没有26点"),
    ("下午3点75分交报告", "3点75分", "没有75分"),
    ("明天24点30分", "24点30分", "没有24点"),
    ("tomorrow at 25 o'clock remind me", "25 o'clock", "There is no 25 o'clock"),
    ("remind me at 13pm", "13pm", "There is no 13pm"),
    ("remind me at 0 am", "0 am", "There is no 0 am"),
    ("at 25:30 tomorrow", "25:30", "There is no 25 o'clock"),
    ("at 9:75", "9:75", "There is no minute 75"),
]
GOOD = ["明天下午3点提醒我开会", "24点", "晚上12点", "今天0点", "3点59分", "股市涨了25点", "打了25点",
        "at 12:30", "at 24:00", "tomorrow at 9pm", "at 12 am", "the score was 3:2", "version 2.25点", "1025点"]


@pytest.mark.parametrize("text,said,sentence", BAD)
def test_an_impossible_clock_is_found_and_said(text, said, sentence):
    got = impossible_clocks(normalize(text).text)
    assert [c.said for c in got] == [said]
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"
    assert impossible_clock_text(got[0], lang).startswith(sentence)


@pytest.mark.parametrize("text", GOOD)
def test_a_clock_that_exists_or_an_amount_is_not_one(text):
    assert impossible_clocks(normalize(text).text) == []
