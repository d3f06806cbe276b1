"""A name said in answer to "who?" that nobody in the directory has (pure).

"找谁？" — "刘洋"; "Who would you like to look up?" — "Liu Yang": the answer is a name, not a miss of
the reader, and asking "who?" again would loop — the user can only say the same name again. After that one
failed clarification the session says plainly that it does not know the person (in the user's language),
offers the closest names it knows, and drops the question (:class:`hermesd.dialogue.policy.NotKnown`).

:func:`name_said` tells a name from other short answers: a Chinese name is a common surname
(:data:`hermesd.nlu.entities.SURNAMES`, the census's most frequent) and one or two more characters; an
English one is one to three capitalised words ("Liu Yang", "Mr. Chen"), or two or three lower-case words of
pinyin syllables (a Chinese name typed in lower case: "liu yang"; not "hmm banana"). Words that lead an answer (是, 叫, 找, it's, I
mean) are dropped first. :func:`closest` ranks the directory's names by likeness: a shared surname
first, then the spelling ratio (``difflib``, ≥ :data:`CLOSE_RATIO`).

The same holds on a name's first mention: :func:`name_placed` finds the name said in a person's place of
a request ("把报告发给赵六", "send the report to Bob"), which the NLU knows no one by, so the session says
plainly that nobody has it (:meth:`hermesd.session.pipeline.Pipeline._person_unknown`) — never "who should
get it?" after the name was said; :func:`spelled_like` finds the known names one edit from it (a typo:
张维 for 张伟, "Li Nan" for "Li Na"), offered as a choice ("did you mean 张伟?").
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping

from .. import lazyre
from ..nlu.entities import SURNAMES, SURNAMES2

__all__ = ["CLOSE_RATIO", "closest", "name_around", "name_placed", "name_said", "spelled_like"]

#: the spelling ratio (difflib) from which a directory name counts as close to the one said
CLOSE_RATIO = 0.6

_LEAD = lazyre.compile(r"^(?:就是|是|叫|找|查|查一下|(?:it'?s|it\s+is|i\s+mean|i\s+said|i\s+meant|that'?s|the\s+person\s+is|"
                   r"his\s+name\s+is|her\s+name\s+is|name'?s)\b)\s*", re.IGNORECASE)
_TAIL = lazyre.compile(r"[\s。.!！?？,，吧啊呀呢]+$")
_ZH_NAME = lazyre.compile(rf"^(?:{'|'.join(SURNAMES2)}|[{SURNAMES}])[\u4e00-\u9fff]{{1,2}}$")
_EN_HONORIFIC = r"(?i:mr|mrs|ms|miss|dr|prof)\.?\s+"
_EN_NAME = lazyre.compile(rf"^(?:{_EN_HONORIFIC})?[A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+){{0,2}}$")
_EN_LOWER = lazyre.compile(rf"^(?:{_EN_HONORIFIC})?[a-z][a-z'-]+(?:\s+[a-z][a-z'-]+){{0,2}}$", re.IGNORECASE)
#: a romanised Chinese name typed in lower case ("liu yang", "zhang xiaoming"): every word is one to three
#: pinyin syllables (initial + final, Hanyu Pinyin, GB/T 16159); "hmm banana" is not
_PINYIN = lazyre.compile(r"^(?:(?:zh|ch|sh|[bpmfdtnlgkhjqxrzcsyw])?(?:iang|iong|uang|ueng|ang|eng|ing|ong|ian|iao|uai|uan|"
                     r"ai|ei|ao|ou|an|en|er|ia|ie|iu|in|ua|uo|ui|un|ue|ve|a|o|e|i|u|v)){1,3}$")
#: everyday words that are no name, whatever their case ("Nobody", "Never mind", "someone")
_NOT_NAMES = frozenset("""a an the i you he she it we they me him her us them my your his our their this that
no yes ok okay sure fine nobody someone somebody anyone anybody everyone never mind cancel stop nothing what who
why how when where which later please thanks thank sorry help repeat again wait hold on not now forget it skip
nope yeah yep hi hello bye boss mom mum dad wife husband friend team manager colleague""".split())
_NOT_ZH = frozenset({"不知道", "算了", "不用", "没有", "随便", "再说", "等等", "取消", "你好", "谢谢"})


def name_said(text: str) -> str | None:
    """The name ``text`` (the utterance as typed) is, or None when it is anything else.

    >>> name_said("刘洋"), name_said("是刘洋吧"), name_said("Liu Yang"), name_said("it's Mr. Chen")
    ('刘洋', '刘洋', 'Liu Yang', 'Mr. Chen')
    >>> name_said("不知道"), name_said("never mind"), name_said("明天下午"), name_said("the second one")
    (None, None, None, None)
    """
    t = " ".join(text.split())
    t = _TAIL.sub("", t)
    while (m := _LEAD.match(t)) and m.end():
        t = t[m.end():]
    t = _TAIL.sub("", t)
    if not t or t in _NOT_ZH:
        return None
    if _ZH_NAME.match(t):
        return t
    if _EN_NAME.match(t) or _EN_LOWER.match(t):
        words = re.sub(rf"^{_EN_HONORIFIC}", "", t, flags=re.IGNORECASE).lower().split()
        if any(w in _NOT_NAMES for w in words):
            return None
        if _EN_NAME.match(t) or (len(words) >= 2 and all(_PINYIN.match(w) for w in words)):
            return t  # lower case: a pinyin name only (one lower-case word is too often a word)
    return None


def _surname(name: str) -> str:
    n = re.sub(rf"^{_EN_HONORIFIC}", "", name.strip(), flags=re.IGNORECASE)
    if n and "\u4e00" <= n[0] <= "\u9fff":
        return next((s for s in SURNAMES2 if n.startswith(s)), n[0])
    return n.split()[0].lower() if n.split() else ""


def closest(name: str, people: Mapping[str, str], n: int = 3) -> list[str]:
    """The anchor ids of the directory names most like ``name``, best first, at most ``n``.

    :param name: the name said (:func:`name_said`). :param people: surface → anchor id (the NLU's
        directory words: names, Latin aliases, address forms).
    :return: the ids of the people whose name shares the surname, then of those spelled alike
        (ratio ≥ :data:`CLOSE_RATIO`); empty when none is close.

    >>> closest("Liu Yang", {"li na": "person:li", "wang fang": "person:wang"})
    ['person:li']
    """
    said, sur = name.strip().lower(), _surname(name)
    scored: dict[str, float] = {}
    for surface, anchor in people.items():
        s = surface.strip().lower()
        if not s:
            continue
        same = _surname(s) == sur and (len(sur) > 1 or "\u4e00" <= sur[:1] <= "\u9fff")
        ratio = difflib.SequenceMatcher(None, said, s).ratio()
        score = 1.0 + ratio if same else ratio if ratio >= CLOSE_RATIO else 0.0
        if score > scored.get(anchor, 0.0):
            scored[anchor] = score
    ranked = sorted((a for a, v in scored.items() if v > 0), key=lambda a: (-scored[a], a))
    return ranked[:n]


#: the words before a person's place in a request: 发给/转给/交给 …, 给 (把X发给Y, 给Y发), 告诉/通知/联系/找/查;
#: "to" / "for" / "tell" / "email" / "call" / "message" / "cc", "who is", "look up"
_ZH_BEFORE = lazyre.compile(r"(?:发送给|发给|转发给|转给|交给|寄给|传给|递给|抄送给|抄送|告诉|通知|联系|找一下|找|查一下|查|问一下|问|给)")
_EN_BEFORE = lazyre.compile(r"\b(?:to|for|tell|email|e-mail|mail|message|text|call|ping|cc|who\s+is|who's|look\s+up|find)\s+",
                            re.IGNORECASE)
_ZH_GIVEN = lazyre.compile(r"[\u4e00-\u9fff]{1,2}")
#: characters that end a name in a request (a particle, a measure word, a verb after it): 给赵六发一下, 发给刘洋吧
_ZH_STOP = frozenset("的了吧吗呢啊呀一份个这那和跟与及发看说把再也都就")
_EN_WORDS = lazyre.compile(r"(?:(?i:mr|mrs|ms|miss|dr|prof)\.?\s+)?[A-Za-z][A-Za-z-]*(?:\s+[A-Za-z][A-Za-z-]*){0,2}")


def name_placed(text: str) -> tuple[str, int, int] | None:
    """The name said in a person's place of a request, as written, with its span in ``text``, or None.

    A request names its person after a word that places one (把报告发给赵六, 给刘洋发一下, 王方的电话 —
    a name opening the request before 的; "send the report to Bob", "who is Liu Yang", "Liu Yang's email");
    what stands there is a name when :func:`name_said` takes it (a common surname and one or two more
    characters; capitalised words or pinyin syllables).

    >>> name_placed("把报告发给赵六"), name_placed("send the report to Bob tomorrow")
    (('赵六', 5, 7), ('Bob', 19, 22))
    >>> name_placed("把报告发给我"), name_placed("send it to the team")
    (None, None)
    """
    starts = [m.end() for m in _ZH_BEFORE.finditer(text)] + [0]
    for i in starts:
        piece = text[i:i + 4]
        cut = len(piece)
        for k, ch in enumerate(piece):
            if k >= 2 and ch in _ZH_STOP or not ("\u4e00" <= ch <= "\u9fff"):
                cut = k
                break
        for size in range(min(cut, 4), 1, -1):  # the longest name first (欧阳娜娜, 刘洋)
            cand = piece[:size]
            if i == 0 and not text[size:].startswith("的"):
                continue  # a name opening the request is a person's only before 的 (王方的电话)
            if name_said(cand) == cand and (size < 3 or cand[-1] not in _ZH_STOP):
                return cand, i, i + size
    for m in list(_EN_BEFORE.finditer(text)) + [None]:
        at = m.end() if m is not None else 0
        w = _EN_WORDS.match(text, at)
        if w is None:
            continue
        words = w.group().split()
        if words[-1][:1].isupper() or any(x[:1].isupper() for x in words[1:]):
            # a name written with capitals is its capitalised words ("Li Na too": Li Na); lower case is
            # a pinyin name only when every word is lower case ("liu yang")
            caps = [x for x in words]
            for k, x in enumerate(words):
                if not x[:1].isupper():
                    caps = words[:k]
                    break
            words = caps
            if not words:
                continue
        if m is None and not text[w.end():w.end() + 2] in ("'s", "’s"):
            continue  # "Liu Yang's email": a name opening the request is a person's before 's
        for k in range(len(words), 0, -1):  # "Bob tomorrow": the longest run that is a name
            cand = " ".join(words[:k])
            if name_said(cand) == cand and not (k == 1 and cand[:1].islower()):
                return cand, at, at + len(cand)
    return None


_EN_WORD = lazyre.compile(r"[A-Za-z][A-Za-z-]*")


def name_around(text: str, start: int, end: int) -> tuple[str, int, int] | None:
    """The longer name that a one-word Latin mention at ``text[start:end]`` opens, with its span, or None.

    The NLU knows a directory surname alone ("Zhang", "Li"); said with a given name it does not know ("Zhang
    Wie", "give Li Nan the invoice", 发给Zhang Wie), the mention is the whole name, wherever it stands in the
    request — so it is grounded as the name said (a typo of a known one is asked about) and never as the
    surname alone. The words after the mention (one or two, one space apart) join it when the next one is
    written with a capital, or every word is lower case, and :func:`name_said` takes the run as a name
    ("Zhang the report" is none: "the" is no name).

    >>> name_around("give Zhang Wie the invoice", 5, 10), name_around("send Zhang the report", 5, 10)
    (('Zhang Wie', 5, 14), None)
    """
    word = text[start:end]
    if not (word.isascii() and word.isalpha()):
        return None
    pos, spans = end, [(start, end)]
    while len(spans) < 3:
        m = _EN_WORD.match(text, pos + 1) if text[pos:pos + 1] == " " else None
        if m is None:
            break
        spans.append(m.span())
        pos = m.end()
    if len(spans) < 2:
        return None
    second = text[slice(*spans[1])]
    for k in range(len(spans), 1, -1):
        a, b = start, spans[k - 1][1]
        cand = text[a:b]
        if (second[:1].isupper() or cand.islower()) and name_said(cand) == cand:
            return cand, a, b
    return None


def spelled_like(name: str, people: Mapping[str, str]) -> list[str]:
    """The anchor ids of the directory names one edit from ``name`` (a typo: 张维 for 张伟, "Li Nan" for
    "Li Na"), best first (fewest edits, then the id); empty when none is.

    The project has no pinyin table, so likeness is the spelling: the optimal-string-alignment distance
    (:func:`hermesd.nlu.spelling.osa_distance`: one character substituted, inserted, deleted, or two
    adjacent ones swapped) over the characters of a Chinese name, or the letters of a Latin one
    (case-folded), against every name and English alias of the directory of the same script; a surname
    alone ("Li") or a name of one character is no name to be one edit from.

    >>> spelled_like("张维", {"张伟": "person:zw", "王芳": "person:wf"}), spelled_like("Li Nan", {"li na": "person:ln"})
    (['person:zw'], ['person:ln'])
    """
    from ..nlu.spelling import osa_distance

    said = " ".join(name.lower().split())
    zh = "\u4e00" <= said[:1] <= "\u9fff"
    if len(said) < (2 if zh else 4):
        return []
    best: dict[str, int] = {}
    for surface, anchor in people.items():
        s = " ".join(surface.lower().split())
        if not s or s == said or ("\u4e00" <= s[:1] <= "\u9fff") != zh or len(s) < (2 if zh else 4) \
                or (not zh and " " not in s and " " in said):
            continue
        d = osa_distance(said, s)
        if d <= 1:
            best[anchor] = min(d, best.get(anchor, d))
    return sorted(best, key=lambda a: (best[a], a))
