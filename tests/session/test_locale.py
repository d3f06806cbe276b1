"""BCP 47 ``locale`` tags (RFC 5646) → the session language; ``session.open`` takes them."""

from __future__ import annotations

import pytest

from hermesd.errors import HermesError
from hermesd.session.locale import UnknownLocale, session_language
from hermesd.subsystems.session import OpenParams


@pytest.mark.parametrize("tag, lang", [
    ("zh", "zh"), ("zh-CN", "zh"), ("zh-Hans-CN", "zh"), ("zh-TW", "zh"), ("zh-Hant", "zh"),
    ("zh-Hant-HK", "zh"), ("zh-SG", "zh"), ("ZH-cn", "zh"), ("zh-cmn-Hans-CN", "zh"),
    ("en", "en"), ("en-US", "en"), ("en-GB", "en"), ("en-Latn-US", "en"), ("en-US-x-twain", "en"),
    ("en-US-u-ca-gregory", "en"), ("en-419", "en"), (" en-US ", "en"),
])
def test_tags_map_to_the_session_language(tag, lang):
    assert session_language(tag) == lang


@pytest.mark.parametrize("tag, says", [
    ("fr-FR", "unsupported locale 'fr-FR'"), ("ja", "unsupported locale"), ("de", "unsupported"),
    ("zh-Latn", "script Latn"), ("zh_CN", "separates subtags with '-'"), ("english", "unsupported"),
    ("zh--CN", "not a BCP 47"), ("12", "not a BCP 47"), ("", "BCP 47 language tag"), ("zh-CN-", "not a BCP 47"),
])
def test_unknown_tags_say_what_is_accepted(tag, says):
    with pytest.raises(UnknownLocale) as info:
        session_language(tag)
    assert says in str(info.value)
    assert "zh-CN" in str(info.value) and "en-US" in str(info.value)


def test_open_params_store_the_normalised_value():
    assert OpenParams(locale="zh-TW").locale == "zh"
    assert OpenParams(locale="en-US").locale == "en"
    assert OpenParams().locale is None
    with pytest.raises(ValueError, match="fr-FR"):
        OpenParams(locale="fr-FR")


def test_session_open_with_bcp47_tags(daemon):
    with daemon.client() as c:
        opened = c.call("session.open", {"locale": "zh-CN"})
        s = c.call("session.get", {"session_id": opened["session_id"]})
        assert s["locale"] == "zh"
        # the session speaks Chinese even when the text has no Chinese in it
        reply = c.call("session.turn", {"session_id": opened["session_id"], "text": "ok"})
        assert any("\u4e00" <= ch <= "\u9fff" for ch in reply["reply"]["text"]), reply["reply"]
        en = c.call("session.open", {"locale": "en-US"})
        assert c.call("session.get", {"session_id": en["session_id"]})["locale"] == "en"
        with pytest.raises(HermesError) as info:
            c.call("session.open", {"locale": "fr-FR"})
    assert info.value.code == "INPUT_INVALID"
    # a sentence for a person; the pointer is data.violations' (for a program)
    assert "locale is not valid: unsupported locale 'fr-FR'" in info.value.message, info.value.message
    assert info.value.data["violations"][0]["pointer"] == "/locale"
