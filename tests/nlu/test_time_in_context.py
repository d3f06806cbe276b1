"""Where a time word is, and is not, a time: names, meals, 'now' before a quantity (issue 17 part 2).

Written by hand from the rules in hermesd/nlu/temporal.py (_inside_name, _meal_as_object, the
attributive-now rule); the sentences are new phrasings of the patterns seen in xSID's error analysis,
none of them copied from it, in both languages.
"""

from datetime import datetime

import pytest

from hermesd.nlu.temporal import parse_times

REF = datetime.fromisoformat("2026-11-25T10:00:00+08:00")  # a Wednesday
ZONE = "Asia/Shanghai"


def _texts(text):
    return [x.text for x in parse_times(text, REF, ZONE)]


@pytest.mark.parametrize("text,times", [
    # Latin-script words inside a Chinese sentence are a title or a name
    ("把 summer nights classics 加到歌单", []),
    ("播放 the best of 1999 remixes 专辑", []),
    ("把这首歌加到我的 rainy morning jazz 播放列表", []),
    ("把这首歌加到我 的 2019 年 精选 播放 列表", []),
    ("明天 3 pm 开会", ["明天 3 pm"]),  # a code-switched time of one or two words stays a time
    # the noun phrase of a named playlist, a title right after a naming noun
    ("add this song to my Sunday Brunch playlist", []),
    ("put it on my late night drive playlist", []),
    ("play the album 1989 Deluxe", []),
    ("add this song to my playlist on Sunday", ["Sunday"]),
    ("find a show called Last Night On Earth", []),
    ("I watched a movie last night", ["last night"]),  # a naming noun before a date or a day word: a time
    ("play the song tomorrow", ["tomorrow"]),
    # a holiday, decade, season or part of day inside a Title Case run
    ("I want to watch A Very Merry Christmas tonight", ["tonight"]),
    ("play 80s Synth Pop Legends", []),
    ("is it cold in Gold Coast Australia on Christmas", ["Christmas"]),
    ("will it rain in Bradford Alabama on Jan. 3", ["Jan. 3"]),
    ("播放 80年代 Disco Party Hits", []),
    ("12 月 5 日 Monument Valley 的天气", ["12 月 5 日"]),
    # an English sentence with a Chinese name in it is English: its time is a time
    ("remind me tomorrow at 9 to call 王芳", ["tomorrow at 9"]),
    ("remind me at 9pm to call 欧阳娜娜", ["9pm"]),
    ("send 李娜 the quote by email tomorrow at 9", ["tomorrow at 9"]),
])
def test_a_time_inside_a_name_is_part_of_the_name(text, times):
    assert _texts(text) == times


@pytest.mark.parametrize("text,times", [
    ("remind me to cook my dinner at 6 pm", ["6 pm"]),
    ("提醒我明早给孩子做早餐", ["明早"]),
    ("set an alarm for a 7 am breakfast", ["7 am"]),
    ("明天早上8点早饭", ["明天早上8点"]),
    ("吃午饭的时候提醒我", ["午饭"]),
    ("what's the weather after lunch", ["lunch"]),
    ("book a table for dinner", ["dinner"]),
    ("晚饭时间前会下雨吗", ["晚饭"]),
])
def test_a_meal_is_a_time_unless_it_is_the_thing_made_or_timed(text, times):
    assert _texts(text) == times


def test_after_a_meal_begins_when_it_ends():
    (x,) = parse_times("午饭后提醒我", REF, ZONE)
    assert x.start.hour == 13 and x.end is None
    (y,) = parse_times("what's the weather after dinner", REF, ZONE)
    assert y.start.hour == 20 and y.end is None


@pytest.mark.parametrize("text,times", [
    ("现在的湿度是多少", ["现在"]),
    ("目前的天气怎么样", ["目前"]),
    ("what's the current humidity", ["current"]),
    ("what's the current local time", ["current"]),
    ("现在的我很开心", []),
    ("目前的位置在哪", []),
    ("what is my current location", []),
    ("what is the current weather forecast", ["current"]),
])
def test_now_before_a_quantity_that_changes_with_time_is_a_time(text, times):
    assert _texts(text) == times
