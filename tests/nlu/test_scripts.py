"""The prefilters of hermesd/nlu/scripts.py are exact: a pattern they skip has no match.

Checked on every time-expression vector (temporal_vectors.jsonl, time_classes.yaml), the pack
examples and a sample of xSID and SNIPS utterances, for every time-expression atom pattern and
id pattern: whenever a pattern has a non-empty match in a text, the scripts it is said to need
are all in the text, and the match begins with a character it is said to be able to begin with
(and with two characters, :func:`first_pairs`, it is said to be able to begin with); the atom
index (:class:`~hermesd.nlu.temporal_atoms._Index`) keeps every pattern that has a match.
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
from hermesd.nlu.scripts import first_chars, first_pairs, needed_scripts, required_strings, scripts_of
from hermesd.nlu.temporal_atoms import _INDEX, _NEEDS, _PATTERNS

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
    pairs = first_pairs(rx)
    required = required_strings(rx)
    for t in TEXTS:
        for m in rx.finditer(t):
            if m.end() > m.start():
                assert need <= scripts_of(t), (rx.pattern, t)
                assert first is None or first.possible({t[m.start()]}, scripts_of(t[m.start()])), (rx.pattern, t)
                assert pairs is None or m.group()[:2] in pairs, (rx.pattern, t)
                assert required is None or any(r in m.group() for r in required), (rx.pattern, t)


def test_the_atom_index_keeps_every_pattern_with_a_match():
    _INDEX.build()
    for t in TEXTS:
        kept = set(_INDEX.candidates(t))
        for i, (rx, _, _) in enumerate(_PATTERNS):
            if i not in kept and (_NEEDS[i] is None or _NEEDS[i].search(t)):
                assert all(m.end() <= m.start() for m in rx.finditer(t)), (rx.pattern, t)


def test_the_first_two_characters_skip_most_english_patterns():
    # the pairs index is worth having only if it skips: on English text the first characters
    # alone keep most of the English patterns (nearly every letter is in a sentence)
    _INDEX.build()
    english = [t for t in TEXTS if scripts_of(t) == {"latin"}][:300]
    by_first = sum(sum(1 for f in map(first_chars, (rx for rx, _, _ in _PATTERNS))
                       if f is not None and f.possible(set(t), scripts_of(t))) for t in english)
    by_index = sum(len(_INDEX.candidates(t)) for t in english)
    assert by_index < 0.6 * by_first


@pytest.mark.parametrize("pattern,pairs", [
    (r"(?:上|下)?周([1-7日天])", {"上周", "下周"} | {"周" + c for c in "1234567日天"}),
    (r"(?<![a-z0-9])(?:next\s+)?week", {"ne", "we"}),
    (r"x*y", {"xx", "xy", "y"}),           # x may repeat zero times: y may begin the match
    (r"a?", {"", "a"}),                    # the empty match too
    (r"(a)?(?(1)b|c)", {"ab", "ac", "b", "c"}),  # the group reference: either branch
    (r"[ab]c{2,}", {"ac", "bc"}),
])
def test_first_pairs(pattern, pairs):
    assert first_pairs(re.compile(pattern)) == pairs


@pytest.mark.parametrize("pattern", [r".x", r"[^a]b", r"(?i)week", r"\d+点", r"x\s"])
def test_first_pairs_unbounded(pattern):
    assert first_pairs(re.compile(pattern)) is None


@pytest.mark.parametrize("pattern,required", [
    (r"(?<![a-z0-9])(?:this\s+)?(monday|friday)(?![a-z])", {"monday", "friday"}),
    (r"(\d+)点", {"点"}),
    (r"x?y", {"y"}),
    (r"(?:上|下)个?月", {"月"}),
    (r"ab(?:cd|efg)", {"ab"}),           # the longest required string wins
    (r"(?:q|r)(?:stuv|wxyz)", {"stuv", "wxyz"}),
    (r"\d+|x", None),                    # a branch that needs no string
    (r"(?:next )?(?=week)", None),       # a look-ahead is not part of the match
    (r"(?i)week", None),
])
def test_required_strings(pattern, required):
    assert required_strings(re.compile(pattern)) == required


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


def test_prefilters_taken_from_a_table_equal_those_read_off_the_patterns() -> None:
    """A compiled pack carries the atoms' prefilters (scripts.export); a fresh pattern seeded from
    that table (through JSON, as in the artifact) has exactly what reading it gives."""
    from hermesd.nlu import scripts
    from hermesd.nlu.temporal_atoms import atom_patterns

    table = json.loads(json.dumps(scripts.export(atom_patterns())))
    assert len(table["patterns"]) == len({rx.pattern for rx in atom_patterns()})
    fresh = [scripts.LazyPattern(rx.pattern) for rx in atom_patterns()]
    assert scripts.seed(table) == len(table["patterns"])
    for rx, seeded in zip(atom_patterns(), fresh):
        facts = seeded.read()
        assert facts[:2] == rx.read()[:2] and facts[3:] == rx.read()[3:], rx.pattern
        want, got = rx.first, seeded.first
        assert (want is None) == (got is None) and (want is None or (want.chars, want.scripts) == (got.chars, got.scripts))
    assert scripts._SEEDED == {} or set(scripts._SEEDED) <= set(table["patterns"])


def test_a_prefilter_table_of_other_code_or_of_the_wrong_shape_is_ignored() -> None:
    from hermesd.nlu import scripts

    good = scripts.export([scripts.LazyPattern("(上|下)?周[一二三]")])
    assert scripts.seed({**good, "key": "0" * 32}) == 0
    assert scripts.seed({"key": good["key"], "patterns": {"x": ["not flags", [], None, None, None]}}) == 0
    assert scripts.seed(None) == 0
    assert scripts.seed(good) == 1
    rx = scripts.LazyPattern("(上|下)?周[一二三]")
    assert not rx.analysed
    flags, needs, first, pairs, required = good["patterns"]["(上|下)?周[一二三]"]
    got = rx.read()
    assert scripts._SEEDED == {}  # taken from the table, not read
    assert (got[0], got[1], got[3], got[4]) == (flags, frozenset(needs), frozenset(pairs), frozenset(required))
    assert got[3] == frozenset({"上周", "下周", "周一", "周二", "周三"}) and got[4] == frozenset({"周"})
    assert (got[2].chars, got[2].scripts) == (frozenset(first[0]), frozenset(first[1]))
