"""Loading the dialogue lexicon (hermesd.dialogue.lexicon): the shipped lists, a pack extending them, bad files."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from hermesd.dialogue.heard import SMALLTALK, Heard
from hermesd.dialogue.lexicon import ANSWER_ACTS, ORDINAL_NAMES, default_lexicon, load_lexicon
from hermesd.dialogue.questions import Confirm
from hermesd.dialogue.reader import read_answer
from hermesd.errors import InputInvalid
from hermesd.nlu.normalize import normalize
from hermesd.section import shipped_path

SHIPPED = shipped_path("config", "dialogue", "lexicon.yaml")
CONFIRM = Confirm(intent="doc.send", rule_id="r", index=1)

EXPECTED_LISTS = (
    [f"answers.{a}" for a in ANSWER_ACTS] + [f"smalltalk.{k}" for k in SMALLTALK]
    + [f"ordinals.{k}" for k in (*map(str, range(1, 6)), *ORDINAL_NAMES)]
    + ["correct", "openers", "contrast", "particles", "fillers", "numerals", "conjunctions.then",
       "conjunctions.and", "leads", "verbs", "questions"]
    + [f"refusal.{k}" for k in ("negations", "adverbs", "actions", "reported")])


def test_shipped_lexicon_loads_once() -> None:
    lex = default_lexicon()
    assert lex is default_lexicon()
    assert str(SHIPPED) in lex.files
    assert set(EXPECTED_LISTS) <= set(lex.lists)


@pytest.mark.parametrize("name", EXPECTED_LISTS)
def test_every_list_speaks_zh_zh_hant_and_en(name: str) -> None:
    assert {"zh", "zh-Hant", "en"} <= default_lexicon().languages[name], name


def test_the_file_itself_has_every_language_under_every_list() -> None:
    doc = yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))

    def leaves(node, path):
        if isinstance(node, dict) and {"zh", "en"} & set(node):
            yield path, node
        elif isinstance(node, dict):
            for k, v in node.items():
                yield from leaves(v, f"{path}.{k}" if path else str(k))

    found = list(leaves(doc, ""))
    assert len(found) >= len(EXPECTED_LISTS)
    for path, node in found:
        assert {"zh", "zh-Hant", "en"} <= set(node), path
        assert all(node[lang] for lang in ("zh", "zh-Hant", "en")), path


@pytest.mark.parametrize("raw,name", [
    ("第一个", "ordinals.1"), ("第２个", "ordinals.2"), ("最後那個", "ordinals.last"), ("發吧", "answers.affirm"),
    ("沒問題", "answers.affirm"), ("Yes Please", "answers.affirm"), ("再說一遍", "answers.repeat"),
    ("然後", "conjunctions.then"), ("謝謝", "smalltalk.thanks"), ("讓我想想", "answers.hedge"),
])
def test_entries_are_normalised_like_utterances(raw: str, name: str) -> None:
    assert normalize(raw).text in default_lexicon().lists[name]


def test_a_word_in_two_answer_lists_reads_as_the_safer() -> None:
    lex = default_lexicon()
    overlap = {w for w in lex.lists["answers.affirm"] if w in lex.lists["answers.deny"]}
    assert not overlap, f"affirm and deny share {sorted(overlap)}"


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_a_pack_extends_lists_and_never_removes(tmp_path: Path) -> None:
    pack = _write(tmp_path, "pack.yaml", (
        "answers:\n  affirm: {zh: [中, 得嘞], en: [roger that]}\n"
        "  deny: {zh-Hant: [免啦]}\n"
        "smalltalk:\n  greeting: {en: [howdy partner]}\n"
        "ordinals:\n  6: {en: [sixth]}\n"
        "numerals:\n  en: {eleven: 11}\n"))
    base, lex = default_lexicon(), load_lexicon([pack])
    assert lex.files[-1] == str(pack)
    for name, words in base.lists.items():
        assert set(words) <= set(lex.lists[name]), name
    assert "中" not in base.lists["answers.affirm"] and read_answer(CONFIRM, Heard("中")).act == "unrelated"
    assert read_answer(CONFIRM, Heard("中"), lex).act == "affirm"
    assert read_answer(CONFIRM, Heard("roger that"), lex).act == "affirm"
    assert read_answer(CONFIRM, Heard("roger that")).act == "unrelated"
    assert read_answer(CONFIRM, Heard("免啦"), lex).act == "deny"
    assert read_answer(None, Heard("howdy partner"), lex).smalltalk == "greeting"
    assert read_answer(None, Heard("sixth"), lex).choice == 5
    assert read_answer(None, Heard("option eleven"), lex).choice == 10


def test_packs_are_read_in_order_and_may_repeat_a_numeral(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.yaml", "numerals:\n  en: {dozen: 12}\n")
    b = _write(tmp_path, "b.yaml", "numerals:\n  en: {dozen: 12}\nanswers:\n  cancel: {en: [scrap it]}\n")
    lex = load_lexicon([a, b])
    assert lex.files[-2:] == (str(a), str(b))
    assert lex.numerals["dozen"] == 12 and "scrap it" in lex.lists["answers.cancel"]


def test_an_empty_pack_changes_nothing(tmp_path: Path) -> None:
    lex = load_lexicon([_write(tmp_path, "empty.yaml", "")])
    assert lex.lists == default_lexicon().lists


BAD = [
    ("answers: [yes]\n", "answers: expected a mapping"),
    ("answer:\n  affirm: {en: [x]}\n", "answer: unknown key (did you mean 'answers'?)"),
    ("answers:\n  afirm: {en: [x]}\n", "answers.afirm: unknown list (did you mean 'affirm'?)"),
    ("answers:\n  affirm: [yes]\n", "answers.affirm: expected a mapping of language"),
    ("answers:\n  affirm: {zh-TW: [对]}\n", "answers.affirm: unknown language 'zh-TW'"),
    ("answers:\n  affirm: {en: yes}\n", "answers.affirm.en: expected a list"),
    ("answers:\n  affirm: {en: [yes]}\n", "answers.affirm.en[0]: expected a non-empty string, got True (quote yes/no/on/off)"),
    ("answers:\n  affirm: {en: ['  ']}\n", "answers.affirm.en[0]: expected a non-empty string"),
    ("answers:\n  affirm: {en: [3]}\n", "answers.affirm.en[0]: expected a non-empty string, got 3"),
    ("smalltalk:\n  greetings: {en: [hi]}\n", "smalltalk.greetings: unknown list (did you mean 'greeting'?)"),
    ("conjunctions:\n  than: {en: [then]}\n", "conjunctions.than: unknown list (did you mean 'then'?)"),
    ("ordinals:\n  fist: {en: [x]}\n", "ordinals.fist: expected a position ≥ 1 or one of"),
    ("ordinals:\n  0: {en: [zeroth]}\n", "ordinals.0: expected a position"),
    ("numerals:\n  en: {eleven: zero}\n", "numerals.en.eleven: expected a positive integer"),
    ("numerals:\n  en: {two: 3}\n", "numerals.en.two: 3 conflicts with 2"),
    ("numerals: [1, 2]\n", "numerals: expected a mapping"),
    ("verbs: {en: [check], fr: [vérifier]}\n", "verbs: unknown language 'fr'"),
    ("answers: {affirm: {en: [ok]\n", "not valid YAML"),
    ("- affirm\n- deny\n", "expected a mapping with keys"),
]


@pytest.mark.parametrize("text,message", BAD, ids=[b[1][:40] for b in BAD])
def test_a_bad_file_names_the_file_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    bad = _write(tmp_path, "bad.yaml", text)
    with pytest.raises(InputInvalid) as exc:
        load_lexicon([bad])
    assert exc.value.code == "INPUT_INVALID"
    assert f"{bad}: {message}" in exc.value.message, exc.value.message
    assert exc.value.data["violations"][0].startswith(str(bad))


def test_a_missing_pack_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputInvalid, match="nope.yaml: cannot read"):
        load_lexicon([tmp_path / "nope.yaml"])


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.yaml", "answers:\n  afirm: {en: [x]}\nverbz: {en: [x]}\n")
    b = _write(tmp_path, "b.yaml", "numerals:\n  en: {two: 5}\n")
    with pytest.raises(InputInvalid) as exc:
        load_lexicon([a, b])
    violations = exc.value.data["violations"]
    assert len(violations) == 3 and "(and 2 more)" in exc.value.message
    assert [v.split(":")[0] for v in violations] == [str(a), str(a), str(b)]


# --- optional parts, refusals ------------------------------------------------------------------

@pytest.mark.parametrize("entry,forms", [
    ("你[都]会[些]什么", ["你都会些什么", "你都会什么", "你会些什么", "你会什么"]),
    ("(能|会)做什么", ["能做什么", "会做什么"]),
    ("[都|还]能做", ["都能做", "还能做", "能做"]),
    ("what [else] can you do", ["what else can you do", "what can you do"]),
    ("plain", ["plain"]),
])
def test_an_entry_with_optional_parts_stands_for_every_form(entry: str, forms: list[str]) -> None:
    from hermesd.dialogue.lexicon import expand
    assert expand(entry) == forms


@pytest.mark.parametrize("entry,message", [
    ("你[都会什么", "unbalanced"), ("你(都|还会什么", "unbalanced"), ("a]b", "unbalanced"),
    ("(a|b|c|d)" * 6, "more than 1024"),
])
def test_a_bad_optional_part_is_a_load_error(tmp_path: Path, entry: str, message: str) -> None:
    bad = _write(tmp_path, "bad.yaml", f"smalltalk:\n  greeting: {{en: ['{entry}']}}\n")
    with pytest.raises(InputInvalid) as exc:
        load_lexicon([bad])
    assert "smalltalk.greeting.en[0]" in exc.value.message and message in exc.value.message


def test_shipped_capability_phrasings_expand() -> None:
    words = default_lexicon().lists["smalltalk.capabilities"]
    for raw in ("你都会些什么", "你还能干点啥", "你可以做哪些事情", "你會些什麼", "what else can you do", "what are you good at"):
        assert normalize(raw).text in words, raw


@pytest.mark.parametrize("raw,found", [
    ("先别发了", "先别发"), ("发票先不发了", "先不发"), ("现在就先不要发了", "先不要发"), ("不用急着发", "不用急着发"),
    ("暫時不用發", "暂时不用发"), ("不要把这件事记成待办", "不要把"), ("don't send it yet", "don't send"),
    ("please do not send this one", "please do not send"), ("we'd better not restart it", "better not restart"),
    ("要不要发", None), ("发不发", None), ("不记得了", None), ("不关我的事", None), ("i don't know", None),
    ("提醒我明天不要发报价单", None), ("tell her not to send it", None), ("不是发给李娜", None),
])
def test_refusals_are_a_negation_before_an_action(raw: str, found: str | None) -> None:
    hits = [w for _, w in default_lexicon().refusals(normalize(raw).text)]
    assert (hits[0] if hits else None) == (normalize(found).text if found else None)


def test_a_pack_adds_an_action_a_card_asks_about(tmp_path: Path) -> None:
    pack = _write(tmp_path, "pack.yaml", "refusal:\n  actions: {zh: [打款], en: [wire]}\n")
    lex = load_lexicon([pack])
    assert [w for _, w in lex.refusals("先别打款")] == ["先别打款"]
    assert [w for _, w in lex.refusals("don't wire it yet")] == ["don't wire"]
    assert not list(default_lexicon().refusals("don't wire it yet"))
