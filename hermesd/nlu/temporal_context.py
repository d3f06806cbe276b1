"""Where a time word found in an utterance is not a time there: names, titles, meals as things, house numbers (pure).

:mod:`.temporal` asks these after it has grouped atoms into an expression ``g`` (its ``start``/``end``
in normalised text, frame ``f`` and categories ``cats``); each says why the group is not a time, and
the rules come from the error analysis on xSID, SNIPS and SGD (docs in each function).
"""

from __future__ import annotations

import re
from typing import Any

from .. import lazyre
from .normalize import Normalized
from .temporal_atoms import MEALS

__all__ = ["inside_name", "looks_like_address", "looks_like_title", "meal_as_object"]


_COMMON_WORDS = lazyre.compile(r"[A-Z][a-z]+")


def looks_like_title(norm: Normalized, g: Any) -> bool:
    """A capitalised English common noun inside a sentence (Good Morning Sunshine, Jazzy Dinner,
    20 Hours in America) is part of a title, not a time; weekday and month names, which are
    capitalised anyway, are never judged by this."""
    if not ({"pod", "now", "duration"} & g.cats or g.f.get("period") in ("season", "decade")) or "clock" in g.cats:
        return False
    s, e = norm.span(g.start, g.end)
    words = norm.original[s:e].split()
    if not words or not _COMMON_WORDS.fullmatch(words[-1]):
        return False
    before = norm.original[:s].rstrip()
    return bool(before) and before[-1] not in ".!?。！？"


_CJK = lazyre.compile(r"[\u4e00-\u9fff]")
#: a Latin word of two letters or more (what an English sentence is counted in)
_EN_WORD = lazyre.compile(r"[A-Za-z]{2,}")
_LATIN_WORD = lazyre.compile(r"[A-Za-z0-9][A-Za-z0-9'’&.-]*")
_EN_FUNCTION = frozenset("a an the at on in by of for to from this next last and or every each my".split())
# head nouns of names (a playlist, an album, a show): the words before them in the same noun phrase name it
_NAME_HEAD = lazyre.compile(r"^[A-Za-z0-9'’&., -]{0,40}?(?<![A-Za-z])(?:playlist|play list|mix|mixtape)(?![A-Za-z])|"
                            r"^[^，。！？,.!?;]{0,24}?(?:播放\s*列表|播放\s*清单|歌单)", re.I)
_NAME_OWNER = lazyre.compile(r"(?:(?<![A-Za-z])(?:my|our|your)|(?:我|我们|你)\s*的)[^，。！？,.!?;]{0,40}$", re.I)
_NAME_NOUN_BEFORE = lazyre.compile(r"(?<![A-Za-z])(?:track|song|tune|album|saga|film|movie|show|series|playlist|episode|"
                                   r"called|named|titled)\s+(?:[\"'“]\s*)?$|"
                                   r"(?:歌曲|曲目|专辑|传奇|电影|节目)\s*$", re.I)


def inside_name(norm: Normalized, g: Any) -> bool:
    """A time inside a name is part of the name, not a time:

    - in a Chinese utterance, a time written in Latin script inside a run of Latin words with at least
      two other content words ("将 70s smash hits 添加", "my evening acoustic 播放列表"): embedded
      foreign text in a zh sentence is a title or a name (code-switched times are one or two words).
      An utterance is Chinese here when its ideographs are at least as many as its Latin words: an
      English sentence with a Chinese name in it ("remind me tomorrow at 9 to call 王芳") is English,
      and its time a time;
    - in the noun phrase of a named thing: between "my/我的" and a naming head noun ("my Jazzy Dinner
      playlist", "我的 2016 年 国家 集锦 播放 列表"), or right after a naming noun or verb ("add track 70s
      smash hits", "the saga 12 Soulful Nights", "a show called Last Night On Earth");
    - in English, inside a Title Case run with two or more other capitalised words ("12 Soulful Nights
      of Christmas", "90s Pop Rock Essentials"), not at the start of the sentence.
    """
    s, e = norm.span(g.start, g.end)
    o = norm.original
    before, after = o[:s], o[e:]
    if _NAME_HEAD.match(after) and _NAME_OWNER.search(before):
        return True
    nb = _NAME_NOUN_BEFORE.search(before)
    if nb and (re.search(r"(?:called|named|titled)", nb[0]) or _title_word(g)):
        return True  # "add track 70s smash hits"; "a movie last night" and "the show on Friday" stay times
    own = o[s:e]
    left = re.search(r"[A-Za-z0-9'’&., -]*$", before)[0]
    right = re.match(r"[A-Za-z0-9'’&., -]*", after)[0]
    if _CJK.search(own):  # 90年代 Pop Rock Essentials: a decade or a season that begins a Latin title
        if g.f.get("period") not in ("decade", "century", "season") and g.cats != {"pod"}:
            return False
        return _caps_run(re.findall(r"[A-Za-z0-9'’-]+", right)[:4]) >= 2 and not right.startswith(",")
    if _CJK.search(o) and len(_CJK.findall(o)) >= len(_EN_WORD.findall(o)):
        others = [w for w in _LATIN_WORD.findall(left + " " + right) if w.lower() not in _EN_FUNCTION and not w.isdigit()]
        if len(others) >= 2:
            return True
    # only the kinds of time that are words of titles (holidays, decades, seasons, parts of day); a date, a
    # clock time or an offset next to a capitalised place name is a time there ("in Powersville Guam 23
    # hours from now", "at Fox Theatres 1 minute from now")
    if not _title_word(g):
        return False
    if not own[:1].isupper() and not own[:1].isdigit():
        return False
    if not before.strip() or before.rstrip()[-1] in ".!?。！？":
        return False  # a capital at the start of a sentence says nothing
    lw = re.findall(r"[A-Za-z0-9'’-]+", left)[-4:]
    rw = re.findall(r"[A-Za-z0-9'’-]+", right)[:4]
    return _caps_run(list(reversed(lw))) + _caps_run(rw) >= 2


def _title_word(g: Any) -> bool:
    """A holiday, decade, season or part of day alone: the kinds of time that are words of titles ("Christmas
    tonight" is a time joined to a name's last word, a date or a clock time is a time)."""
    return ("holiday" in g.f or g.f.get("period") in ("decade", "century", "season") or g.cats == {"pod"}) \
        and not any(k in g.f for k in ("rel_day", "hour", "weekday", "day"))


_TIME_NAMES = frozenset("monday tuesday wednesday thursday friday saturday sunday january february march april may june "
                        "july august september october november december".split())


def _caps_run(words: list[str]) -> int:
    """How many capitalised words (not weekday or month names) run from the first of ``words``;
    of/the/and may stand between two of them ("Nights of Christmas"), never first."""
    n = 0
    for k, w in enumerate(words):
        if w[0].isupper() and w.lower() not in _TIME_NAMES:
            n += 1
        elif not (k and w.lower() in ("of", "the", "and")):
            break
    return n


_MEAL_OBJECT_BEFORE = lazyre.compile(
    r"(?:(?<![a-z])(?:make|makes|making|made|cook|cooks|cooking|cooked|prepare|prepares|preparing|fix|pack|packing|buy|"
    r"order|ordering|have|eat|eats|eating|grab|get)\s+(?:(?:a|an|the|my|his|her|our|their|some|[a-z]+'s)\s+)?|"
    r"(?:做|煮|烧|准备|弄|带|买|点|吃|去吃|请|約|约)(?:个|份|一份|一顿|顿)?\s*)$", re.I)
#: an eating verb after a time word is the time ("after I have lunch", "when we eat dinner")
_MEAL_EATEN_WHEN = lazyre.compile(r"(?<![a-z])(?:after|before|when|until|till|while|once)\s+(?:[a-z]+\s+)?(?:have|eat|get|grab)\s+"
                                  r"(?:(?:a|an|the|my|our|some)\s+)?$", re.I)
_MEAL_AS_TIME_AFTER = lazyre.compile(r"^\s*(?:的?时候|时|前|后|之前|之后|以前|以后|时间|(?<![a-z])time(?![a-z]))", re.I)


def meal_made_or_eaten(before: str) -> bool:
    """The text ``before`` a meal word makes it the thing made, bought or eaten ("make", "have", 吃, 做个), not a
    time; "after I have" keeps it a time (see :func:`meal_as_object`)."""
    return bool(_MEAL_OBJECT_BEFORE.search(before)) and not _MEAL_EATEN_WHEN.search(before)


def meal_as_object(norm: Normalized, g: Any, out: list[Any]) -> bool:
    """A meal is a time ("after lunch", 晚饭时间前, 晚饭时, "book a lunch at Boreas") except where it is the thing
    made, bought or eaten (做午餐, 吃晚饭, "make Dan's lunch", "have lunch" — "明天提醒我吃晚饭" is about
    dinner, not at it; "after I have lunch" stays a time), or the event a clock time just before it places ("a 9 am
    breakfast", 上午9点早餐); 吃午饭的时候 / "lunch time" stay times."""
    if g.cats != {"pod"} or g.f.get("pod") not in MEALS:
        return False
    s, e = norm.span(g.start, g.end)
    if _MEAL_AS_TIME_AFTER.match(norm.original[e:]):
        return False
    if out and out[-1].kind == "datetime" and not norm.original[out[-1].span[1]:s].strip():
        return True
    return meal_made_or_eaten(norm.original[:s])


def looks_like_address(norm: Normalized, g: Any) -> bool:
    """A bare number (at 24, 1919) followed by a capitalised word is a house number or a name
    ("at 24 Willie Mays Plaza", "1919 Mount Diablo Boulevard"), not an hour or a year."""
    bare_hour = g.cats == {"clock"} and g.f.get("minute") is None and "ampm" not in g.f
    bare_year = g.cats == {"date"} and g.f.get("period") == "year" and set(g.f) == {"period", "year"}
    if not (bare_hour or bare_year):
        return False
    e = norm.span(g.start, g.end)[1]
    return bool(re.match(r"\s+[A-Z][a-z]", norm.original[e:]))
