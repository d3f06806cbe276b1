"""A fire or smoke reported: "设备着火了", "the device is on fire", "机器在冒烟", "I smell burning" (pure).

Such a sentence is no request to the device (the classifier read "the device is on fire" as a shutdown
and refused it). Whatever the NLU makes of it, no action runs and nothing is kept as a task: hermesd
says one safety sentence (catalogue ``emergency``) — get away from it, call the fire service, cut the
power only if that is safe — and hands the session to a person (the ``handoff`` event a rule's
``handoff:`` step raises), so that someone on site hears of it. A false alarm costs one sentence and
one page; a missed fire far more, so the patterns lean wide where the words are literal.

The shapes, Chinese (Simplified and Traditional, read after :func:`hermesd.nlu.normalize.normalize`)
and English:

- zh: 着火 / 著火 / 起火 / 失火 / 火灾 / 烧起来 / 冒烟 / 冒火(花) / 打火花 / 焦味 / 浓烟 / 烟雾 (a smell of
  food burnt, 饭烧焦了, is no fire);
- en: on fire, caught / catching fire, (is / are) burning, in flames, smoke (coming out / everywhere),
  smoking (a thing), sparks, smell(s) (of) burning / something burning / a burning smell, fire! alone.

Not a fire, by the grammar of the figure:

- a person or a team "on fire" is doing well ("I'm on fire today", "our team is on fire"), a mouth or a
  tongue is on fire from spice; zh 火了 / 火起来 / 很火 / 火爆 is "became popular", 上火 / 发火 / 火大 /
  恼火 are a body or a temper, 急得冒烟 / 嗓子冒烟 / 气得冒烟 a figure of haste, thirst or anger;
- fire as a verb of dismissal or of starting ("fire him", "fire up the server", 炒鱿鱼), a fireplace, a
  campfire, a fire drill, fireworks, "no smoking", "I quit smoking";
- a question about the words or a drill ("what do I do if the device catches fire?", "着火了怎么办" asks
  how to act: it still gets the safety sentence — a question about a fire now is answered the same);
- a negation ("没有着火", "nothing is on fire", "it's not smoking").
"""

from __future__ import annotations

from .. import lazyre

__all__ = ["said"]

_ZH = lazyre.compile(r"着火|著火|起火|失火|火灾|火災|烧起来|燒起來|烧着了|燒著了|冒烟|冒煙|冒火|打火花|火花|"
                     r"焦味|焦糊味|浓烟|濃煙|烟雾|煙霧")
#: figures of speech built on the same characters: haste, thirst, anger; a drill; a wish for a spark
_ZH_NOT = lazyre.compile(r"(?:急|气|氣|渴|馋|饞)得(?:直|都)?冒(?:烟|煙|火)|嗓子(?:都|直)?冒(?:烟|煙)|喉咙(?:都|直)?冒(?:烟|煙)|"
                         r"眼睛(?:都|直)?冒火|火花四溅的(?:讨论|辯論|辩论)|碰撞出.{0,4}火花|擦出.{0,4}火花|灵感的火花|"
                         r"演习|演習|防火|消防演练|"
                         r"(?:没|沒|不会|不會|没有|沒有|不是|别|別)(?:有)?(?:着火|著火|起火|冒烟|冒煙|烧起来|燒起來)")
#: a thing (not a person) on fire; "fire!" alone
_EN = lazyre.compile(
    r"(?i)\b(?:is|are|was|were|'s|’s|it's|it’s)\s+(?:on\s+fire|in\s+flames|burning(?!\s+(?:up\s+)?(?:the\s+)?(?:cpu|money|cash|time|daylight|calories)))"
    r"|\b(?:caught|catching|catch|catches|set)\s+(?:on\s+)?fire\b"
    r"|\bburst\s+into\s+flames\b|\bflames\s+(?:coming|are|everywhere)\b"
    r"|\bsmoke\s+(?:is\s+)?(?:coming|pouring|everywhere|in\s+the|from)\b|\b(?:there'?s|there\s+is)\s+smoke\b"
    r"|\b(?:is|it's|it’s)\s+smoking\b(?!\s+(?:a|weed|again|too))"
    r"|\b(?:sparks?|sparking)\s+(?:(?:are|is)\s+)?(?:coming|flying|from|out)\b|\bis\s+sparking\b|\bthrowing\s+sparks\b"
    r"|\bsmells?\s+(?:of\s+|like\s+)?(?:something\s+)?burn(?:ing|t)\b|\bburning\s+smell\b|\bsmell\s+(?:of\s+)?smoke\b"
    r"|^\s*(?:fire|there'?s\s+a\s+fire|a\s+fire)\s*[!.]*\s*$|\bthere'?s\s+a\s+fire\b|\bthere\s+is\s+a\s+fire\b")
#: a person, a team or a body part "on fire" is a figure (doing well, spicy food, a temper), never a fire
_EN_NOT = lazyre.compile(
    r"(?i)\b(?:i'?m|i\s+am|you'?re|you\s+are|we'?re|we\s+are|they'?re|they\s+are|he'?s|he\s+is|she'?s|she\s+is|"
    r"(?:our|the|my|your|their|his|her)\s+(?:team|side|players?|striker|guys|band|career|business|sales|stock|portfolio|shares)"
    r"\s+(?:is|are|was|were|'s))\s+"
    r"(?:(?:so|really|totally|absolutely|just|completely|literally)\s+)?(?:on\s+fire|burning\s+up|smoking)\b"
    r"|\b(?:mouth|tongue|throat|lips|stomach|belly|skin|legs|muscles|lungs|eyes|feet|heart)\s+(?:is|are|was|were|'s)\s+"
    r"(?:(?:so|really|totally|absolutely|just|completely|literally)\s+)?(?:on\s+fire|burning)\b"
    r"|(?:\bnot|n't|\bnever|\bno)\s+(?:\w+\s+)?(?:on\s+fire|burning|smoking|caught\s+fire)\b|\bnothing\s+(?:is\s+)?(?:on\s+fire|burning)\b"
    r"|\bfire\s+drill\b|\bfireplace\b|\bcampfire\b|\bfireworks?\b|\bno\s+smoking\b|\bquit\s+smoking\b"
    r"|\b(?:smoke|smoking)\s+(?:a\s+)?(?:cigarette|cigar|pipe|weed)\b")


def said(text: str) -> bool:
    """True when ``text`` (one utterance, normalised by :func:`hermesd.nlu.normalize.normalize` or raw)
    reports a fire, smoke, sparks or a smell of burning as a fact now, not as a figure of speech.

    >>> said("设备着火了"), said("the device is on fire"), said("機器在冒煙"), said("I smell something burning")
    (True, True, True, True)
    >>> said("our team is on fire this season"), said("这个视频火了"), said("急得冒烟"), said("fire him")
    (False, False, False, False)
    """
    t = text.strip()
    if not t:
        return False
    if _ZH.search(t) and not _ZH_NOT.search(t):
        return True
    return bool(_EN.search(t)) and not _EN_NOT.search(t)
