"""Normaliser: width, case, punctuation, Chinese numerals, and the offset map back to the original."""

import pytest

from hermesd.nlu.normalize import cn_to_int, normalize

CASES = [
    ("一月二十三", "1月23"),
    ("三十一号", "31号"),
    ("两点半", "2点半"),
    ("一个半小时", "1个半小时"),
    ("十五", "15"),
    ("五月三十一日", "5月31日"),
    ("二〇二四年", "2024年"),
    ("两千零二十四年", "2024年"),
    ("一百零五", "105"),
    ("十二月三十一日", "12月31日"),
    ("下午 七 点", "下午7点"),
    ("星期一", "星期1"),
    ("周一下午", "周1下午"),
    ("第一", "第1"),
    ("十分钟", "10分钟"),
    ("下午一点", "下午1点"),
    ("ＡＢＣ１２３，你好。", "abc123,你好."),
    ("Hello   World", "hello world"),
    ("“报价单”", '"报价单"'),
    ('at 5 o"clock in the evening', "at 5 o'clock in the evening"),  # SGD users type " for '
    ("3 O”clock", "3 o'clock"),
    ('the "o" clock', 'the "o" clock'),
    ("我们一起去", "我们一起去"),
    ("快一点", "快一点"),
    ("统一", "统一"),
    ("万一", "万一"),
    ("十分感谢", "十分感谢"),
    ("一下", "一下"),
    ("一共三个", "一共3个"),
    ("說話", "说话"),
    ("個人", "个人"),
    # 几十 / 几百: their lower bound and 多; 十几 stays 10几 (its own reading)
    ("几十年之后", "20多年之后"),
    ("等了几百秒", "等了200多秒"),
    ("十几年前", "10几年前"),
    # the traditional characters of the holidays' Chinese names
    ("贖罪日", "赎罪日"),
    ("灑紅節", "洒红节"),
]


@pytest.mark.parametrize("text,expected", CASES)
def test_normalize_text(text, expected):
    assert normalize(text).text == expected


@pytest.mark.parametrize("text,_", CASES)
def test_whole_span_maps_back_to_whole_text(text, _):
    n = normalize(text)
    s, e = n.span(0, len(n.text))
    assert n.original[s:e] == text.strip()


def test_offsets_of_a_numeral_cover_the_whole_run():
    n = normalize("五月三十一日")  # → 5月31日
    assert n.text == "5月31日"
    assert n.span(2, 4) == (2, 5)  # "31" came from 三十一
    assert n.original[slice(*n.span(0, 1))] == "五"


def test_nspan_is_the_inverse_of_span():
    n = normalize("发给 张工 的 一月二十三 报价单")
    for a in range(len(n.text)):
        for b in range(a + 1, len(n.text) + 1):
            s, e = n.span(a, b)
            a2, b2 = n.nspan(s, e)
            assert n.span(a2, b2) == (s, e)


@pytest.mark.parametrize("s,v", [("二十三", 23), ("十五", 15), ("两千零二十四", 2024), ("二〇二四", 2024),
                                 ("一万二千", 12000), ("三", 3), ("十", 10), ("零", 0), ("一百", 100)])
def test_cn_to_int(s, v):
    assert cn_to_int(s) == v


def test_cn_to_int_rejects_non_numbers():
    assert cn_to_int("") is None
    assert cn_to_int("二三十") is None


def test_empty_and_whitespace():
    assert normalize("").text == ""
    assert normalize("   ").text == ""


def test_a_double_quote_typed_for_the_apostrophe_reads_as_a_clock_time():
    """SGD users type 5 o"clock; the time reader sees 5 o'clock (17:00), not only "evening" (18:00)."""
    from datetime import datetime

    from hermesd.nlu.temporal import parse_times

    (t,) = parse_times('5 o"clock in the evening please.', datetime(2019, 3, 1, 9), "UTC")
    assert (t.start.hour, t.start.minute) == (17, 0)
    assert t.text == '5 o"clock in the evening'
