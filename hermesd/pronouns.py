"""A user's own words said back to them: first and second person swapped (pure, zh and en).

Every echo of what the user said — a fact or a note kept by memory, the task of a reminder in a rule's
reply (the ``said`` template filter, :mod:`hermesd.rules.filters`), the values an offer of unfinished work
names (:mod:`hermesd.dialogue.offer`) — goes through :func:`said_back`, so "remind me to take my pills" is
answered "I will remind you to take your pills", 提醒我吃我的药 with 提醒你吃你的药. A direct quote of the
user ("I did not understand \"…\"") stays in their words.
"""

from __future__ import annotations

from . import lazyre

__all__ = ["said_back", "second_person"]

_ZH_SWAP = {"我们": "你们", "咱们": "你们", "我": "你", "你们": "我们", "你": "我", "您": "我"}
_ZH_PRONOUN = lazyre.compile(r"我们|咱们|你们|(?<!自)我|你|您")
_EN_SWAP = {"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself", "i'm": "you're",
            "i've": "you've", "i'll": "you'll", "i'd": "you'd", "we": "you", "us": "you", "our": "your",
            "ours": "yours", "ourselves": "yourselves", "we're": "you're", "we've": "you've", "we'll": "you'll",
            "your": "my", "yours": "mine", "yourself": "myself", "you're": "I'm", "you've": "I've",
            "you'll": "I'll", "you'd": "I'd"}
_EN_WORD = lazyre.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
#: after a first-person subject the verb agrees with "you" ("I am" → "you are", "I was" → "you were")
_EN_AGREE = {"am": "are", "was": "were"}
_EN_CLAUSE_START = {"", "and", "but", "or", "so", "that", "because", "when", "if", "then"}


def second_person(text: str, lang: str) -> str:
    """A user's own words said back to them: first and second person swapped, the rest unchanged.

    Pronoun reflection as in ELIZA (Weizenbaum 1966): 我→你, 我们→你们, 你→我 (自我 stays);
    English I/me/my/mine/myself/we/us/our → you/your…, "I am"/"I was" → "you are"/"you were", and
    the user's "you" (the assistant) → "I" at the start of a clause, else "me". Names and values
    keep their case ("my name is Bob" → "your name is Bob").

    >>> second_person("i'm allergic to nuts", "en")
    "you're allergic to nuts"
    >>> second_person("我下周三去上海出差", "zh")
    '你下周三去上海出差'
    """
    if lang == "zh":
        return _ZH_PRONOUN.sub(lambda m: _ZH_SWAP[m.group(0)], text)
    out: list[str] = []
    pos = 0
    prev = ""  # the previous word, lower case ("" at a clause start)
    for m in _EN_WORD.finditer(text):
        w = m.group(0)
        low = w.lower()
        gap = text[pos:m.start()]
        if any(c in gap for c in ",;:.!?"):
            prev = ""
        if low in _EN_SWAP:
            rep = _EN_SWAP[low]
        elif low == "you":
            rep = "I" if prev in _EN_CLAUSE_START else "me"
        elif low in _EN_AGREE and prev in ("i", "we"):
            rep = _EN_AGREE[low]
        elif low in ("are", "were") and prev == "you":
            rep = {"are": "am", "were": "was"}[low]
        else:
            rep = w
        if rep != w and w[0].isupper() and rep != "I" and m.start() == 0:
            rep = rep[0].upper() + rep[1:]
        out.append(gap + rep)
        pos = m.end()
        prev = low
    out.append(text[pos:])
    return "".join(out)


def said_back(text: str) -> str:
    """``text`` (a user's words, either language or both mixed: 我的wifi密码是my secret) said back to them:
    :func:`second_person` in Chinese and in English.

    >>> said_back("take my pills"), said_back("吃我的药")
    ('take your pills', '吃你的药')
    """
    return second_person(second_person(text, "zh"), "en")
