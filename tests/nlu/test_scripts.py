"""The prefilters of hermesd/nlu/scripts.py are exact: a pattern they skip has no match.

Checked on every time-expression vector (temporal_vectors.jsonl, time_classes.yaml), the pack
examples and a sample of xSID and SNIPS utterances, for every time-expression atom pattern and
id pattern: whenever a pattern has a non-empty match in a text, the scripts it is said to need
are all in the text, and the match begins with a character it is said to be able to begin with.
"""

import json
import re
from pathlib import Path

import pytest
import yaml

from hermesd.nlu import temporal  # noqa: F401 - registers every atom pattern
from hermesd.nlu.entities import DEFAULT_ID_PATTERNS
from hermesd.nlu.normalize import normalize
from hermesd.nlu.packs import load_packs
from hermesd.nlu.scripts import first_chars, needed_scripts, scripts_of
from hermesd.nlu.temporal_atoms import _PATTERNS

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
DATA = ROOT.parent / "shared" / "data"


def _lines(f: Path) -> list[str]:
    return [line for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]


def _texts() -> list[str]:
    out = [json.loads(line)["text"] for line in _lines(HERE / "temporal_vectors.jsonl")]
    classes = yaml.safe_load((HERE / "time_classes.yaml").read_text(encoding="utf-8"))["classes"]
    out += [case[0] for cases in classes.values() for case in cases]
    packs = load_packs([ROOT / "config" / "intents"])
    out += [e for s in packs.intents for e in s.examples] + list(packs.out_of_scope)
    for f in (DATA / "xsid" / "xsid_zh.jsonl", DATA / "snips" / "snips.jsonl"):
        if f.exists():  # the shared data is there on the development machine, not in a fresh clone
            out += [json.loads(line)["text"] for line in _lines(f)[:1500]]
    return out


TEXTS = [normalize(t).text for t in _texts()]
PATTERNS = [rx for rx, _, _ in _PATTERNS] + [re.compile(p.regex) for p in DEFAULT_ID_PATTERNS]


def test_most_patterns_need_a_script():
    # the prefilter is worth having only if it can skip: nearly every atom pattern is one script's
    needs = [needed_scripts(rx) for rx, _, _ in _PATTERNS]
    assert sum(1 for n in needs if n) >= 0.9 * len(needs)


@pytest.mark.parametrize("i", range(len(PATTERNS)), ids=[rx.pattern[:40] for rx in PATTERNS])
def test_no_pattern_matches_a_text_it_would_skip(i):
    rx = PATTERNS[i]
    need = needed_scripts(rx)
    first = first_chars(rx)
    for t in TEXTS:
        for m in rx.finditer(t):
            if m.end() > m.start():
                assert need <= scripts_of(t), (rx.pattern, t)
                assert first is None or first.possible({t[m.start()]}, scripts_of(t[m.start()])), (rx.pattern, t)


def test_every_time_pattern_has_bounded_first_characters():
    assert all(first_chars(rx) is not None for rx, _, _ in _PATTERNS)


@pytest.mark.parametrize("pattern,chars,scripts", [
    (r"(?:上|下)?周([1-7日天])", "上下周", set()),
    (r"(\d+)点", "", {"digit"}),
    (r"(?<![a-z0-9])(?:this\s+)?week", "tw", set()),
    (r"x*y", "xy", set()),                  # x may repeat zero times: y may begin the match
    (r"[\u4e00-\u9fff]年", "", {"cjk"}),
    (r"(a)?(?(1)b|c)", "abc", set()),
])
def test_first_chars(pattern, chars, scripts):
    first = first_chars(re.compile(pattern))
    assert (first.chars, first.scripts) == (set(chars), scripts)


@pytest.mark.parametrize("pattern", [r".x", r"[^a]b", r"(?i)week", r"(?:a|.)b"])
def test_first_chars_unbounded(pattern):
    assert first_chars(re.compile(pattern)) is None


@pytest.mark.parametrize("pattern,need", [
    (r"(\d+)点", {"cjk", "digit"}),
    (r"(?<![a-z0-9])(?:next|last)\s+week", {"latin"}),
    (r"(?:上|下)?周([1-7日天])", {"cjk"}),
    (r"(?:\d+)?天", {"cjk"}),            # the digits are optional
    (r"\d+|[a-z]+", set()),              # either script: neither is needed
    (r"[^a-z]+", set()),                 # a negated class may match anything
    (r"(?i)week", set()),                # case-insensitive: not analysed
    (r"(a)(?(1)b|c)", {"latin"}),
    (r"(?=\d)\w+", set()),               # a look-ahead consumes nothing of the match
    (r"x*", set()),
])
def test_needed_scripts(pattern, need):
    assert needed_scripts(re.compile(pattern)) == need


def test_scripts_of():
    assert scripts_of("把上周3发给张伟") == {"cjk", "digit"}
    assert scripts_of("cancel") == {"latin"}
    assert scripts_of("，。！") == set()
    assert scripts_of("３号") == {"cjk", "digit"}  # a full-width digit is a \d
