"""The language a sentence is written in (hermesd.nlu.parser.detect_lang): a Chinese name, date or
document title inside an English sentence leaves it English; an English word, id or address inside a
Chinese sentence leaves it Chinese."""

import pytest

from hermesd.nlu.parser import detect_lang

CASES = [
    ("send the report to 张伟", "en"),               # a Chinese name in an English request
    ("send the quote to 张工 and 李经理", "en"),
    ("remind me 5月3号 to call mom", "en"),          # a date written the Chinese way
    ("what is 张伟's phone number", "en"),
    ("把report发给张伟", "zh"),                      # an English word in a Chinese frame
    ("提醒我May 3给妈妈打电话", "zh"),
    ("请重启nginx服务", "zh"),
    ("Zhang Wei 的电话是多少", "zh"),
    ("我的email是abc@x.com", "zh"),                  # an address is not English words
    ("帮我查一下order SO20240615", "zh"),            # nor is an id
    ("查一下/var/log/nginx/error.log", "zh"),        # nor a path
    ("張偉", "zh"),                                   # a name alone, Traditional
    ("ok 好的", "zh"),
    ("hello", "en"),
    ("", "en"),
    ("12:30", "en"),
]


@pytest.mark.parametrize(("text", "lang"), CASES)
def test_detect_lang(text: str, lang: str) -> None:
    assert detect_lang(text) == lang
