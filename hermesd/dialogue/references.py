"""References to what just happened: "刚才那个订单", "那份文件", "that order", "the same one" (pure).

A reference is a *marker* (a demonstrative or recency word: 那个, 刚才, 上次, that, the last …)
followed, within :data:`MAX_GAP_CHARS` Chinese characters or :data:`MAX_GAP_WORDS` English
words and no punctuation, by a *type noun* that names an entity type (订单 → ``order_id``,
document → ``doc_type``). A weak marker (an *article*: the, my, 的) makes a reference only
when the utterance also names a time ("the order from Monday", "昨天的订单"). A *same* word
("the same one", "同一个") is a reference with no noun. Every word list is the lexicon's
``references`` section (``config/dialogue/references.yaml``; packs add to it), none is here.

A *pronoun* ("他", "她", "TA", "him", "her", "the same person") is a person said without a name
(:func:`find_pronouns`); :func:`with_name` reads the utterance as if the name had been said. English
"his" / "her" / "their" before a noun is a possessive ("her phone number" → "Li Na's phone number");
before an article or an adverb, or last, the object ("send her the quote"). A plural (他们) is a
group and never stands for one person.

What a reference resolves to (the session's newest captured entity of the type, or the
memory's in the named time) is the session's business (:mod:`hermesd.session.references`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import lazyre
from .lexicon import Lexicon

__all__ = ["MAX_GAP_CHARS", "MAX_GAP_WORDS", "Pronoun", "Reference", "find_pronouns", "find_references", "with_name"]

#: most Chinese characters between a marker and its noun (刚才[那个]订单, 那个[我说的]订单)
MAX_GAP_CHARS = 4
#: most English words between a marker and its noun (that [last] order, the [support] ticket)
MAX_GAP_WORDS = 2

_STOP = lazyre.compile(r"[,.!?;:，。！？；：、\n]")
_CJK = lazyre.compile(r"[\u3400-\u9fff]")
_WORD = lazyre.compile(r"[a-z0-9']+")


@dataclass(frozen=True, slots=True)
class Reference:
    """One reference in a normalised utterance.

    :param etype: the entity type the noun names (``order_id``), or None for a *same* word.
    :param noun: the type noun as found ("订单", "order"); "" for a *same* word.
    :param start, end: its span in the normalised text (marker through noun), characters.
    :param weak: only an article points back: a reference only with a time phrase.
    """

    etype: str | None
    noun: str
    start: int
    end: int
    weak: bool = False

    def said(self, text: str) -> str:
        """The words of the reference in ``text`` (the normalised utterance it was found in)."""
        return text[self.start:self.end]


def _gap_ok(gap: str) -> bool:
    if _STOP.search(gap):
        return False
    return len(_CJK.findall(gap)) <= MAX_GAP_CHARS and len(_WORD.findall(gap)) <= MAX_GAP_WORDS


def find_references(text: str, lexicon: Lexicon) -> list[Reference]:
    """Every reference in ``text`` (normalised, :func:`hermesd.nlu.normalize.normalize`), left to right.

    A noun takes the nearest marker before it whose gap passes (a strong marker over an article
    when both do); a *same* word inside or right before a typed reference is part of it.
    """
    markers = list(lexicon.ref_markers.finditer(text))
    out: list[Reference] = []
    for pos, noun in lexicon.ref_types.finditer(text):
        best: tuple[int, bool] | None = None
        for mpos, word in reversed(markers):
            mend = mpos + len(word)
            if mend > pos:
                continue
            if not _gap_ok(text[mend:pos]):
                break
            weak = "marker" not in lexicon.ref_markers.kinds[word]
            if best is None or (best[1] and not weak):
                best = (mpos, weak)
            if not weak:
                break
        if best is not None:
            etype = lexicon.ref_types.kinds[noun][0]
            out.append(Reference(etype, noun, best[0], pos + len(noun), best[1]))
    for pos, word in lexicon.ref_same.finditer(text):
        end = pos + len(word)
        if any(r.start <= pos < r.end or pos <= r.start <= end + MAX_GAP_CHARS for r in out):
            continue
        out.append(Reference(None, "", pos, end))
    return sorted(out, key=lambda r: r.start)


@dataclass(frozen=True, slots=True)
class Pronoun:
    """A person said as a pronoun in a normalised utterance.

    :param word: the pronoun as found ("他", "her", "the same person").
    :param start, end: its span in the normalised text, characters.
    :param possessive: it means "<person>'s" (English "her phone number"), not the person.
    """

    word: str
    start: int
    end: int
    possessive: bool = False


def find_pronouns(text: str, lexicon: Lexicon) -> list[Pronoun]:
    """Every pronoun standing for one person in ``text`` (normalised), left to right; plurals
    (他们, kind ``plural``) are skipped. A ``possessive`` word is one when a word follows it that is
    not one of the lexicon's ``not_nouns`` (articles, adverbs, prepositions)."""
    out: list[Pronoun] = []
    for pos, word in lexicon.ref_pronouns.finditer(text):
        kinds = lexicon.ref_pronouns.kinds[word]
        if kinds[0] == "plural":
            continue
        end = pos + len(word)
        possessive = False
        if "possessive" in kinds:
            nxt = _WORD.search(text, end)
            gap = text[end:nxt.start()] if nxt else ""
            follows = nxt is not None and not gap.strip(" ") and lexicon.ref_not_nouns.match(text, nxt.start()) is None
            possessive = follows or "pronoun" not in kinds  # "his" is never the object
        out.append(Pronoun(word, pos, end, possessive))
    return out


def with_name(text: str, pronouns: list[Pronoun], name: str, span: "object | None" = None) -> str:
    """``text`` with each pronoun replaced by ``name`` ("再给他发一份合同" → "再给张伟发一份合同"); an
    English possessive becomes ``name's``. ``span``: the :class:`~hermesd.nlu.normalize.Normalized` the
    pronouns were found in, to map their spans back onto ``text`` (its ``original``); None: same text."""
    out, last = [], 0
    for p in pronouns:
        start, end = span.span(p.start, p.end) if span is not None else (p.start, p.end)  # type: ignore[attr-defined]
        out.append(text[last:start])
        out.append(f"{name}'s" if p.possessive else name)
        last = end
    out.append(text[last:])
    return "".join(out)
