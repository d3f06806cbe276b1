"""Answer words of the dialogue manager (zh Simplified, zh Traditional, en), extendable by packs.

Read once at start: the shipped ``config/dialogue/*.yaml`` (found like every shipped
file, :func:`hermesd.section.shipped_path`), then each extra file in order. An extra
file has the same shape and any subset of its keys; it extends lists and never
removes from them. The shape::

    answers:                      # words that are an answer act (hermesd.dialogue.heard.ACTS)
      affirm: {zh: [是的, 好的], zh-Hant: [對], en: [yes, yes please], any: [👍]}
      deny: {…}   hedge: {…}   cancel: {…}   repeat: {…}   help: {…}
    correct: {zh: [改成], …}      # correction cues, found anywhere in the utterance
    openers: {…}                  # stripped before the core of a clause (那个, well)
    contrast: {…}                 # the part after one decides (但是, 不过, but, actually)
    particles: {…}                # ignored right after a word (吧, 啊, please)
    fillers: {…}                  # words around a choice (我选, 的那个, the one)
    ordinals: {1: {…}, 2: {…}, last: {…}, former: {…}, latter: {…}, middle: {…}, other: {…}}
    numerals: {zh: {一: 1, 两: 2}, en: {two: 2}}
    smalltalk: {greeting: {…}, thanks: {…}, goodbye: {…}, identity: {…}, capabilities: {…}}
    conjunctions: {then: {…}, and: {…}}   # hermesd.dialogue.split
    refusal: {negations: {…}, adverbs: {…}, actions: {…}, reported: {…}}   # 先别发了, don't send it yet
    leads: {…}                    # dropped before the first part of a split (先, first)
    verbs: {…}                    # a split part starting with one is a request on its own
    questions: {…}                # words that ask (吗, 多少, how much): after a no, a new request
    empty: {…}                    # words that stand for no value (null, n/a, 无): no answer to "what?"
    references:                   # "刚才那个订单", "that order", "the same one" (hermesd.dialogue.references)
      markers: {…}  articles: {…}  same: {…}  again: {…}  pronouns: {…}  possessives: {…}  not_nouns: {…}  plural: {…}
      types: {order_id: {zh: [订单], en: [order]}, …}   # entity type → the nouns that name it

Every list maps a language — ``zh``, ``zh-Hant``, ``en`` or ``any`` — to strings.
An entry may have optional parts, as in hassil templates: ``[x]`` may be left out,
``(a|b)`` is one of a or b, ``[a|b]`` one of them or neither ("你[都]会[些]什么" is four
entries); at most :data:`MAX_EXPANSIONS` per entry. Entries are normalised like
utterances (:func:`hermesd.nlu.normalize.normalize`), so a Traditional or full-width
entry matches what the NLU hands the reader.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

import yaml

from .. import lazyre
from ..errors import InputInvalid
from ..nlu.normalize import normalize
from ..section import shipped_path
from .heard import SMALLTALK
from .words import Words

__all__ = ["ANSWER_ACTS", "LANGS", "MAX_EXPANSIONS", "ORDINAL_NAMES", "Lexicon", "default_lexicon", "expand",
           "load_lexicon"]

#: libyaml's parser when PyYAML has it (several times faster at start), the same safe constructors
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: languages a list may carry (``any``: emoji and other language-neutral entries).
LANGS = ("zh", "zh-Hant", "en", "any")
#: the answer acts the ``answers`` lists name, safest first (a word in two lists reads as the first).
ANSWER_ACTS = ("cancel", "deny", "hedge", "repeat", "help", "affirm")
#: named positions; integer keys are 1-based positions.
ORDINAL_NAMES = ("last", "former", "latter", "middle", "other")

#: most strings one entry with optional parts may stand for (a typo should not build a million).
MAX_EXPANSIONS = 1024

_FLAT = ("correct", "openers", "contrast", "particles", "fillers", "leads", "verbs", "questions", "empty")
_GROUPS: dict[str, tuple[str, ...]] = {
    "answers": ANSWER_ACTS, "smalltalk": SMALLTALK, "conjunctions": ("then", "and"),
    "refusal": ("negations", "adverbs", "actions", "reported"), "references": ("markers", "articles", "same", "again", "also", "pronouns", "possessives", "not_nouns", "plural", "types")}
_KEYS = (*_FLAT, *_GROUPS, "ordinals", "numerals")
_ETYPE = lazyre.compile(r"[a-z][a-z0-9_]*")
_MEASURES = "个位项条号种名個項條號"


@dataclass(frozen=True, slots=True)
class Lexicon:
    """The compiled word lists (immutable; share one).

    :param lists: list name (``answers.affirm``, ``ordinals.last``, ``smalltalk.thanks``,
        ``conjunctions.then``, ``verbs`` …) → its normalised entries, every language.
    :param languages: list name → the languages that gave it entries.
    :param phrases: what a clause may start with: answer acts, openers, fillers, particles,
        ordinals (``ordinal.<key>``) and small talk (``smalltalk.<kind>``).
    :param contrast, negative, correct, particles, trim, then, joins, leads, verbs, questions: the tables
        the reader and the splitter search (``negative``: deny/hedge/cancel words found anywhere
        after a contrast marker; ``trim``: fillers, openers and particles cut off a choice).
    :param empty: words that stand for no value ("null", "n/a", 无, a client's placeholder): with the answer
        words and the trimmed words, an answer made only of them gives a free-text question (要提醒你做什么？)
        nothing (:func:`hermesd.dialogue.reader.read_answer`).
    :param frame: what may stand around a value in an answer that is that value (fillers, openers,
        particles, correction cues, actions: "发给王芳", "make it Friday").
    :param refusal, adverbs, actions, reported: a refusal of a card's action is a ``refusal``
        negation, up to :data:`MAX_ADVERBS` ``adverbs``, then one of ``actions``
        (:meth:`refusals`); after a ``reported`` word in its clause it is part of a request.
    :param numerals: normalised number word → value. :param number: a number said as a choice.
    :param ref_markers: words that point back (kind ``marker``) and weak ones that do so only with a
        time phrase (kind ``article``). :param ref_same: a reference without a noun ("the same one").
    :param ref_again: a request said as a repetition (再发一遍, 重新, again, once more; kind ``again``): what
        it leaves unsaid is what was done last time (:mod:`hermesd.session.references`); or for someone
        else (也发给, too, as well; kind ``also``): the document it leaves unsaid is the one acted on last.
    :param ref_types: type noun → the entity type it names (``订单`` → ``order_id``).
    :param ref_pronouns: a person said as a pronoun (kind ``pronoun``; 他, her, the same person), and a group
        that is never one person (kind ``plural``: 他们); English ``possessive`` ones (his, her) mean
        "<person>'s" unless the next word is one of ``ref_not_nouns`` (``send her the quote``).
    :param files: the files read, in order.
    """

    lists: Mapping[str, tuple[str, ...]]
    languages: Mapping[str, frozenset[str]]
    phrases: Words
    contrast: Words
    negative: Words
    correct: Words
    particles: Words
    trim: Words
    then: Words
    joins: Words
    leads: Words
    verbs: Words
    questions: Words
    empty: Words
    refusal: Words
    frame: Words
    adverbs: Words
    actions: Words
    reported: Words
    numerals: Mapping[str, int]
    number: re.Pattern[str]
    ref_markers: Words
    ref_same: Words
    ref_again: Words
    ref_types: Words
    ref_pronouns: Words
    ref_not_nouns: Words
    files: tuple[str, ...]

    def refusals(self, text: str) -> Iterator[tuple[int, str]]:
        """``(position, words)`` of every refusal of an action in ``text`` (normalised), left to right:
        先别发了 → ``别发``, "please do not send this one" → ``do not send``. An A-not-A question
        (要不要发, 发不发) and a refusal after a ``reported`` word in the same clause (提醒我别发,
        "tell her not to send it") are left out."""
        for pos, neg in self.refusal.finditer(text):
            if _a_not_a(text, pos, neg):
                continue
            end = pos + len(neg)
            for _ in range(MAX_ADVERBS):
                j = _skip_spaces(text, end)
                adv = self.adverbs.match(text, j) if j < len(text) else None
                if not adv or self.actions.match(text, j) == adv:
                    break
                end = j + len(adv)
            j = _skip_spaces(text, end)
            act = self.actions.match(text, j) if j < len(text) else None
            if act is None:
                continue
            start = _CLAUSE_START.search(text[:pos][::-1])
            clause = text[pos - start.start():pos] if start else text[:pos]
            if self.reported.search(clause) is None:
                yield pos, text[pos:j + len(act)]

    def number_at(self, text: str, pos: int) -> tuple[int, int] | None:
        """``(value, end)`` of a number said as a choice at ``pos`` (2, ２, 第3个, 一, 3rd, option two)."""
        m = self.number.match(text, pos)
        if not m or not _bounded_start(text, pos):
            return None
        word = next(g for g in m.groups() if g)
        value = int(word) if word.isdigit() else self.numerals[word]
        return value, m.end()


#: softening words a refusal may carry between its negation and its verb (不用再急着发).
MAX_ADVERBS = 3
_CLAUSE_START = lazyre.compile(r"[,.!?;:~]")


def _skip_spaces(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] == " ":
        pos += 1
    return pos


def _a_not_a(text: str, pos: int, neg: str) -> bool:
    """要不要 / 发不发 / 用不用: the same character on both sides of 不 asks a question."""
    return neg.startswith("不") and 0 < pos and pos + 1 < len(text) and text[pos - 1] == text[pos + 1]


_OPTIONAL = lazyre.compile(r"\[([^\[\]()]*)\]|\(([^\[\]()]*)\)")


def expand(entry: str) -> list[str]:
    """Every string an entry with optional parts stands for (``[x]``: x or nothing; ``(a|b)``: a or b;
    ``[a|b]``: a, b or nothing), spaces collapsed, in a stable order.

    :raises ValueError: unbalanced brackets, or more than :data:`MAX_EXPANSIONS` strings.
    """
    out, todo = [], [entry]
    while todo:
        s = todo.pop(0)
        m = _OPTIONAL.search(s)
        if m is None:
            if any(ch in s for ch in "[]()"):
                raise ValueError(f"unbalanced [ ] or ( ) in {entry!r}")
            s = " ".join(s.split())
            if s and s not in out:
                out.append(s)
            continue
        choices = (m.group(1) if m.group(1) is not None else m.group(2)).split("|")
        if m.group(1) is not None:
            choices.append("")
        todo.extend(s[:m.start()] + c + s[m.end():] for c in choices)
        if len(out) + len(todo) > MAX_EXPANSIONS:
            raise ValueError(f"{entry!r} stands for more than {MAX_EXPANSIONS} strings")
    return out


def _bounded_start(text: str, pos: int) -> bool:
    return not (pos > 0 and text[pos - 1].isascii() and text[pos - 1].isalnum() and text[pos].isascii())


class _Raw:
    """What the files said so far: list name → language → normalised entries; numerals."""

    def __init__(self) -> None:
        self.lists: dict[str, dict[str, list[str]]] = {}
        self.numerals: dict[str, int] = {}


def _hint(key: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(key, [str(k) for k in known], n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _read_list(raw: _Raw, name: str, node: Any, where: str, problems: list[str]) -> None:
    if not isinstance(node, dict):
        problems.append(f"{where}: {name}: expected a mapping of language → list of words")
        return
    for lang, words in node.items():
        if lang not in LANGS:
            problems.append(f"{where}: {name}: unknown language {lang!r} (expected one of {', '.join(LANGS)})")
            continue
        if not isinstance(words, list):
            problems.append(f"{where}: {name}.{lang}: expected a list of words")
            continue
        out = raw.lists.setdefault(name, {}).setdefault(lang, [])
        for i, w in enumerate(words):
            if not isinstance(w, str) or not w.strip():
                problems.append(f"{where}: {name}.{lang}[{i}]: expected a non-empty string, got {w!r}"
                                + (" (quote yes/no/on/off)" if isinstance(w, bool) else ""))
                continue
            try:
                forms = expand(w.strip())
            except ValueError as exc:
                problems.append(f"{where}: {name}.{lang}[{i}]: {exc}")
                continue
            for form in forms:
                norm = normalize(form).text
                if not norm:
                    problems.append(f"{where}: {name}.{lang}[{i}]: {form!r} normalises to nothing")
                elif norm not in out:
                    out.append(norm)


def _read_types(raw: _Raw, node: Any, where: str, problems: list[str]) -> None:
    """``references.types``: entity type → language → nouns."""
    if not isinstance(node, dict):
        problems.append(f"{where}: references.types: expected a mapping of entity type → nouns")
        return
    for etype, lists in node.items():
        if not isinstance(etype, str) or not _ETYPE.fullmatch(etype):
            problems.append(f"{where}: references.types.{etype}: expected an entity type name (order_id, person …)")
            continue
        _read_list(raw, f"references.types.{etype}", lists, where, problems)


def _read_numerals(raw: _Raw, node: Any, where: str, problems: list[str]) -> None:
    if not isinstance(node, dict):
        problems.append(f"{where}: numerals: expected a mapping of language → {{word: number}}")
        return
    for lang, table in node.items():
        if lang not in LANGS or not isinstance(table, dict):
            problems.append(f"{where}: numerals.{lang}: expected a known language mapping words to numbers")
            continue
        for word, value in table.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                problems.append(f"{where}: numerals.{lang}.{word}: expected a positive integer, got {value!r}")
                continue
            norm = normalize(str(word).strip()).text
            if norm.isdigit():
                continue  # normalize already turns it into digits
            if raw.numerals.get(norm, value) != value:
                problems.append(f"{where}: numerals.{lang}.{word}: {value} conflicts with {raw.numerals[norm]}")
                continue
            raw.numerals[norm] = value
            raw.lists.setdefault("numerals", {}).setdefault(lang, []).append(norm)


def _read_file(path: Path, raw: _Raw, problems: list[str]) -> None:
    try:
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
    except OSError as exc:
        problems.append(f"{path}: cannot read: {exc.strerror or exc}")
        return
    except yaml.YAMLError as exc:
        problems.append(f"{path}: not valid YAML: {exc}")
        return
    if doc is None:
        return
    if not isinstance(doc, dict):
        problems.append(f"{path}: expected a mapping with keys such as answers, ordinals, smalltalk")
        return
    for key, node in doc.items():
        if key in _FLAT:
            _read_list(raw, key, node, str(path), problems)
        elif key in _GROUPS:
            if not isinstance(node, dict):
                problems.append(f"{path}: {key}: expected a mapping of {', '.join(_GROUPS[key])}")
                continue
            for sub, lists in node.items():
                if sub not in _GROUPS[key]:
                    problems.append(f"{path}: {key}.{sub}: unknown list{_hint(str(sub), _GROUPS[key])}")
                elif (key, sub) == ("references", "types"):
                    _read_types(raw, lists, str(path), problems)
                else:
                    _read_list(raw, f"{key}.{sub}", lists, str(path), problems)
        elif key == "ordinals":
            if not isinstance(node, dict):
                problems.append(f"{path}: ordinals: expected a mapping of position → lists")
                continue
            for sub, lists in node.items():
                s = str(sub)
                if not (s in ORDINAL_NAMES or (s.isdigit() and int(s) >= 1)):
                    problems.append(f"{path}: ordinals.{s}: expected a position ≥ 1 or one of "
                                    f"{', '.join(ORDINAL_NAMES)}{_hint(s, ORDINAL_NAMES)}")
                else:
                    _read_list(raw, f"ordinals.{s}", lists, str(path), problems)
        elif key == "numerals":
            _read_numerals(raw, node, str(path), problems)
        else:
            problems.append(f"{path}: {key}: unknown key{_hint(str(key), _KEYS)}")


def _entries(raw: _Raw, name: str) -> list[str]:
    return [w for words in raw.lists.get(name, {}).values() for w in words]


def _number_pattern(numerals: Mapping[str, int]) -> re.Pattern[str]:
    def alt(words: Iterable[str]) -> str:
        return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) or "(?!)"

    cjk = [w for w in numerals if not w.isascii()]
    latin = [w for w in numerals if w.isascii()]
    bare = [w for w in latin if numerals[w] != 1]  # "one" alone is a filler ("the first one")
    return re.compile(
        rf"(?:第\s*)?(\d+)(?:\s*[{_MEASURES}]|st|nd|rd|th)?(?![a-z0-9])"
        rf"|(?:第\s*)?({alt(cjk)})(?:\s*[{_MEASURES}])?"
        rf"|(?:number|option|choice|#)\s*(\d+|{alt(latin)})(?![a-z0-9])"
        rf"|({alt(bare)})(?![a-z0-9])")


def _compile(raw: _Raw, files: list[Path]) -> Lexicon:
    lists = {name: tuple(w for words in langs.values() for w in words) for name, langs in raw.lists.items()}
    languages = {name: frozenset(lang for lang, words in langs.items() if words) for name, langs in raw.lists.items()}
    pairs: list[tuple[str, str]] = []
    for act in ANSWER_ACTS:
        pairs += [(w, act) for w in _entries(raw, f"answers.{act}")]
    for name, kind in (("openers", "opener"), ("fillers", "filler"), ("particles", "particle")):
        pairs += [(w, kind) for w in _entries(raw, name)]
    for name in raw.lists:
        if name.startswith(("ordinals.", "smalltalk.")):
            pairs += [(w, name.replace("ordinals.", "ordinal.")) for w in _entries(raw, name)]
    negative = [(w, act) for act in ("cancel", "deny", "hedge") for w in _entries(raw, f"answers.{act}")
                if len(w) >= 2 or w.isascii()]
    trim = [(w, k) for k in ("fillers", "openers", "particles") for w in _entries(raw, k)]
    return Lexicon(
        lists=lists, languages=languages, phrases=Words.build(pairs),
        contrast=Words.build((w, "contrast") for w in _entries(raw, "contrast")),
        negative=Words.build(negative),
        correct=Words.build((w, "correct") for w in _entries(raw, "correct")),
        particles=Words.build((w, "particle") for w in _entries(raw, "particles")),
        trim=Words.build(trim),
        then=Words.build((w, "then") for w in _entries(raw, "conjunctions.then")),
        joins=Words.build((w, "and") for w in _entries(raw, "conjunctions.and")),
        leads=Words.build((w, "lead") for w in _entries(raw, "leads")),
        verbs=Words.build((w, "verb") for w in _entries(raw, "verbs")),
        questions=Words.build((w, "question") for w in _entries(raw, "questions")),
        empty=Words.build((w, "empty") for w in _entries(raw, "empty")),
        refusal=Words.build((w, "negation") for w in _entries(raw, "refusal.negations")),
        frame=Words.build([*trim, *((w, "correct") for w in _entries(raw, "correct")),
                           *((w, "action") for w in _entries(raw, "refusal.actions"))]),
        adverbs=Words.build((w, "adverb") for w in _entries(raw, "refusal.adverbs")),
        actions=Words.build((w, "action") for w in _entries(raw, "refusal.actions")),
        reported=Words.build((w, "reported") for w in _entries(raw, "refusal.reported")),
        numerals=dict(raw.numerals), number=_number_pattern(raw.numerals),
        ref_markers=Words.build([*((w, "marker") for w in _entries(raw, "references.markers")),
                                 *((w, "article") for w in _entries(raw, "references.articles"))]),
        ref_same=Words.build((w, "same") for w in _entries(raw, "references.same")),
        ref_again=Words.build([*((w, "again") for w in _entries(raw, "references.again")),
                               *((w, "also") for w in _entries(raw, "references.also"))]),
        ref_types=Words.build((w, name.rsplit(".", 1)[1]) for name in raw.lists
                              if name.startswith("references.types.") for w in _entries(raw, name)),
        ref_pronouns=Words.build([*((w, "plural") for w in _entries(raw, "references.plural")),
                                  *((w, "possessive") for w in _entries(raw, "references.possessives")),
                                  *((w, "pronoun") for w in _entries(raw, "references.pronouns"))]),
        ref_not_nouns=Words.build((w, "not_noun") for w in _entries(raw, "references.not_nouns")),
        files=tuple(str(p) for p in files))


def load_lexicon(extra_files: Iterable[Path | str] = ()) -> Lexicon:
    """Read the shipped lexicon, then each of ``extra_files`` in order (a pack extends the lists).

    :param extra_files: YAML files of the shape in the module docstring (any subset of its keys).
    :return: the compiled :class:`Lexicon`.
    :raises InputInvalid: a file is missing, is not YAML, has an unknown key, a list that is not
        language → strings, or a numeral that is not a positive integer (or contradicts an earlier
        file). The message names the file and the key; ``data.violations`` lists every problem.
    """
    folder = shipped_path("config", "dialogue")
    files = [*sorted(folder.glob("*.yaml")), *(Path(p) for p in extra_files)]
    problems: list[str] = [] if folder.is_dir() else [f"{folder}: the shipped dialogue lexicon is missing"]
    raw = _Raw()
    for path in files:
        _read_file(path, raw, problems)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise InputInvalid(f"dialogue lexicon is invalid: {problems[0]}{more}", data={"violations": problems})
    return _compile(raw, files)


@cache
def default_lexicon() -> Lexicon:
    """The shipped lexicon alone, loaded once per process (:func:`load_lexicon` with no extra files)."""
    return load_lexicon()
