"""English words mistyped by one letter are read as the pack's own word before scoring
(:mod:`hermesd.nlu.spelling`): a table of the rule, then the shipped pack through parse()."""

import pytest

from hermesd.nlu.parser import parse
from hermesd.nlu.spelling import Speller, osa_distance

from .conftest import REF

WORDS = ["remind", "tomorrow", "restart", "restore", "call", "can", "car", "report", "send"]


@pytest.mark.parametrize("word, read", [
    ("remnd", "remind"),        # a letter dropped
    ("tomorow", "tomorrow"),
    ("reprot", "report"),       # two letters swapped
    ("remindd", "remind"),      # a letter added
    ("restbrt", "restart"),     # a letter substituted
    ("remind", None),           # a word of the vocabulary is kept
    ("restxre", "restore"),
    ("restxr", None),           # restart and restore: two at distance 1 — no guess
    ("cal", None),              # under MIN_CHARS: call, can, car are all one letter away
    ("sendd", None),            # under MIN_CHARS once more: send is four letters
    ("banana", None),           # no word near
])
def test_one_letter_off_is_the_one_near_word(word, read):
    assert Speller(WORDS).word(word) == read


def test_a_text_is_corrected_word_by_word_and_kept_otherwise():
    sp = Speller(WORDS)
    assert sp.correct("remnd me tomorow at 4pm to cal the bank") == "remind me tomorrow at 4pm to cal the bank"
    assert sp.correct("请在明天提醒我") == "请在明天提醒我"
    assert Speller([]).correct("remnd me") == "remnd me"


def test_osa_distance_counts_a_swap_as_one():
    assert osa_distance("reprot", "report") == 1
    assert osa_distance("abc", "cba") == 2


@pytest.mark.parametrize("text, intent", [
    ("remnd me tomorow at 4pm to call the bank", "reminder.set"),
    ("restrat the nginx service", "device.service_restart"),
])
def test_a_typo_in_the_request_words_still_routes(nlu_engine, text, intent):
    r = parse(text, ref=REF, tz=REF.tzinfo, engine=nlu_engine)
    assert r.intent == intent, [(m.intent, m.score) for m in r.intents]


def test_a_known_word_is_never_corrected():
    # "waiter" is one letter from "water": a word the vocabulary knows stays itself
    assert Speller(["water"]).word("waiter") == "water"
    assert Speller(["water"], known=["waiter"]).word("waiter") is None
