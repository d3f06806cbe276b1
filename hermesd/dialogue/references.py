"""References to what just happened: "刚才那个订单", "那份文件", "that order", "the same one" (pure).

A reference is a *marker* (a demonstrative or recency word: 那个, 刚才, 上次, that, the last …)
followed, within :data:`MAX_GAP_CHARS` Chinese characters or :data:`MAX_GAP_WORDS` English
words and no punctuation, by a *type noun* that names an entity type (订单 → ``order_id``,
document → ``doc_type``). A weak marker (an *article*: the, my, 的) makes a reference only
when the utterance also names a time ("the order from Monday", "昨天的订单"). A *same* word
("the same one", "同一个") is a reference with no noun. Every word list is the lexicon's
``references`` section (``config/dialogue/references.yaml``; packs add to it), none is here.

What a reference resolves to (the session's newest captured entity of the type, or the
memory's in the named time) is the session's business (:mod:`hermesd.session.references`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .lexicon import Lexicon

__all__ = ["MAX_GAP_CHARS", "MAX_GAP_WORDS", "Reference", "find_references"]

#: most Chinese characters between a marker and its noun (刚才[那个]订单, 那个[我说的]订单)
MAX_GAP_CHARS = 4
#: most English words between a marker and its noun (that [last] order, the [support] ticket)
MAX_GAP_WORDS = 2

_STOP = re.compile(r"[,.!?;:，。！？；：、\n]")
_CJK = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"[a-z0-9']+")


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
