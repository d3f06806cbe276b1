"""failure(): every stable code and tool fault reads as a sentence with a next step, never the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import hermesd.errors as errors
from hermesd.dialogue.catalogue import TEXTS, failure
from hermesd.tools.descriptor import load_descriptor

PACK = Path(__file__).parents[2] / "tools"
STABLE = sorted({cls.code for cls in vars(errors).values()
                 if isinstance(cls, type) and issubclass(cls, errors.HermesError)})
TOOL_FAULTS = ["INPUT_INVALID", "OUTPUT_INVALID", "TOOL_TIMEOUT", "TOOL_OOM", "TOOL_CRASHED", "TOOL_UNAVAILABLE",
               "TOOL_UNHEALTHY", "TOOL_NOT_FOUND", "PERMISSION_DENIED", "RATE_LIMITED", "INTERNAL"]
DESCRIPTORS = {d.name: load_descriptor(d)[0] for d in sorted(PACK.iterdir()) if (d / "tool.yaml").is_file()}
BUSINESS = sorted({(name, code) for name, d in DESCRIPTORS.items() for code in d.errors})
#: a next step: try again, check, tell/ask someone, say more …
NEXT = {"zh": re.compile(r"请|可以|再试|联系|检查|核对"), "en": re.compile(r"(?i)please|try|ask|tell|check|say")}
CODE = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")


def _plain(text: str, lang: str) -> None:
    assert text and not CODE.search(text), text
    assert NEXT[lang].search(text), f"no next step in {text!r}"
    if lang == "zh":
        assert re.search(r"[\u4e00-\u9fff]", text), text
    else:
        assert not re.search(r"[\u4e00-\u9fff]", text), text
    assert "{" not in text and "}" not in text, text


def test_the_fault_codes_are_stable_codes():
    assert set(TOOL_FAULTS) <= set(STABLE) and "SESSION_BUSY" in STABLE and "FRAME_TOO_LARGE" in STABLE


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("code", [*STABLE, "TOOL_ERROR", "NOT_FOUND", "MISSING_FIELD", "AMBIGUOUS", "NEVER_HEARD_OF"])
def test_every_code_reads_as_a_sentence(code, lang):
    _plain(failure(code, lang), lang)
    for d in DESCRIPTORS.values():
        _plain(failure(code, lang, tool=d), lang)
    _plain(failure(code, lang, tool="network_check"), lang)  # a bare name: this step


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(("tool", "code"), BUSINESS)
def test_every_business_code_of_every_shipped_tool(tool, code, lang):
    _plain(failure(code, lang, tool=DESCRIPTORS[tool]), lang)


def test_the_tool_is_named_and_its_own_sentences_win():
    net = DESCRIPTORS["network_check"]
    assert failure("TOOL_TIMEOUT", "zh", tool=net) == "网络检查超时了，请稍后再试。"
    assert failure("TOOL_TIMEOUT", "en", tool=net) == "The network check took too long to answer; please try again in a minute."
    assert failure("TOOL_TIMEOUT", "zh") == "这一步超时了，请稍后再试。"
    assert failure("TOOL_TIMEOUT", "fr") == "This step took too long to answer; please try again in a minute."
    orders = DESCRIPTORS["order_status"]
    assert failure("NOT_FOUND", "zh", tool=orders) == "本机订单簿里没有这个订单号，请核对订单号。"
    assert failure("NOT_FOUND", "zh") == TEXTS["fail.NOT_FOUND"]["zh"]


def test_every_failure_key_has_both_languages_and_only_known_placeholders():
    for key, texts in TEXTS.items():
        if key.startswith("fail."):
            assert set(texts) == {"zh", "en"}, key
            assert set(re.findall(r"\{(\w+)\}", texts["zh"] + texts["en"])) <= {"what", "What"}, key
