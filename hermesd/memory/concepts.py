"""The words of a fact's subject as language-free concepts (pure): one fact, whatever language it was said in.

A subject is a possession phrase — an owner, then what of theirs: 我老婆的名字, "my wife's name",
"the name of my wife", 我妈电话. Chinese marks possession with 的 (or nothing between a pronoun and a
kin term: 我妈, 我老婆 — Li & Thompson 1981 §5.1), English with 's or "of"; the order of the parts
carries no meaning for a fact, so a subject is the *set* of its concepts. The lexicon has three kinds
of word, each word to one concept, so synonyms and translations meet:

- :data:`BEINGS`: kin, the people of a household, pets — whoever has a name (老婆/妻子/太太/爱人/媳妇/
  wife/spouse are one concept: a person has one spouse; 哥哥 and 弟弟 are not, nor brother, which
  says neither);
- attributes of a being or a thing (名字/name, 生日/birthday, 电话/phone …);
- everyday things (车/car, wifi …).

Two rules of the language on top: a being *is called* its name (我老婆叫小芳 ≡ 我老婆的名字是小芳, "my son is
called Tom"), and asking *who* a being is asks its name or what it is ("我老婆是谁", "who is my
dentist"): :func:`answers`.
"""

from __future__ import annotations

import re

from .. import lazyre

__all__ = ["BEINGS", "KIN", "NAME", "answers", "concepts", "is_being", "named", "of_kin", "render"]

#: the name concept: what 叫 / "called" / "named" give a being
NAME = "name"

#: concept → words (Chinese, then English); the first word of each language is the one said back
_BEING_WORDS: dict[str, tuple[str, ...]] = {
    "spouse": ("爱人", "老婆", "妻子", "太太", "媳妇", "夫人", "内人", "老公", "丈夫", "先生", "配偶",
               "spouse", "wife", "husband", "partner"),
    "son": ("儿子", "儿子们", "son"), "daughter": ("女儿", "闺女", "daughter"),
    "child": ("孩子", "小孩", "child", "kid"),
    "mother": ("妈妈", "母亲", "老妈", "妈", "娘", "mother", "mom", "mum", "mommy", "mummy"),
    "father": ("爸爸", "父亲", "老爸", "爸", "father", "dad", "daddy"),
    "elder_brother": ("哥哥", "哥", "elder brother", "older brother", "big brother"),
    "younger_brother": ("弟弟", "弟", "younger brother", "little brother"),
    "brother": ("兄弟", "brother"),
    "elder_sister": ("姐姐", "姐", "elder sister", "older sister", "big sister"),
    "younger_sister": ("妹妹", "妹", "younger sister", "little sister"),
    "sister": ("姐妹", "sister"),
    "grandfather": ("爷爷", "祖父", "外公", "姥爷", "grandfather", "grandpa"),
    "grandmother": ("奶奶", "祖母", "外婆", "姥姥", "grandmother", "grandma"),
    "grandson": ("孙子", "外孙", "grandson"), "granddaughter": ("孙女", "外孙女", "granddaughter"),
    "nephew": ("侄子", "外甥", "nephew"), "niece": ("侄女", "外甥女", "niece"),
    "uncle": ("叔叔", "伯伯", "舅舅", "uncle"), "aunt": ("阿姨", "姑姑", "姨妈", "舅妈", "婶婶", "aunt", "auntie"),
    "boyfriend": ("男朋友", "男友", "boyfriend"), "girlfriend": ("女朋友", "女友", "girlfriend"),
    "friend": ("朋友", "friend"), "neighbour": ("邻居", "neighbour", "neighbor"),
    "boss": ("老板", "领导", "上司", "boss", "manager"), "colleague": ("同事", "colleague", "coworker"),
    "doctor": ("医生", "大夫", "doctor"), "dentist": ("牙医", "dentist"), "teacher": ("老师", "teacher"),
    "dog": ("狗狗", "小狗", "狗", "dog", "puppy"), "cat": ("猫咪", "小猫", "猫", "cat", "kitty"),
}
_OTHER_WORDS: dict[str, tuple[str, ...]] = {
    NAME: ("名字", "姓名", "name"),
    "birthday": ("生日", "birthday", "bday", "date of birth", "birth date"),
    "phone": ("电话号码", "手机号码", "电话", "手机号", "手机", "号码", "phone number", "phone", "mobile number", "mobile",
              "cell number", "cell", "number"),
    "address": ("地址", "住址", "家庭住址", "address", "home address"),
    "email": ("邮箱", "电子邮箱", "邮件地址", "email", "email address", "e-mail"),
    "password": ("密码", "口令", "password", "passcode", "pin"),
    "plate": ("车牌号", "车牌", "licence plate", "license plate", "plate number", "plate"),
    "anniversary": ("结婚纪念日", "纪念日", "wedding anniversary", "anniversary"),
    "age": ("年龄", "岁数", "age"), "job": ("工作", "职业", "job", "occupation"),
    "school": ("学校", "school"), "blood_type": ("血型", "blood type"),
    "car": ("车子", "汽车", "车", "car"), "wifi": ("无线网", "wifi", "wi-fi"), "office": ("办公室", "office"),
}
#: the concepts that are beings: they have a name, and are asked about with 谁 / "who"
BEINGS = frozenset(_BEING_WORDS)
#: the beings of a working life, whom a directory may know; every other being is the speaker's own
#: (family, friends, pets), known only from what the speaker told
_ROLES = frozenset({"boss", "colleague", "doctor", "dentist", "teacher"})
KIN = BEINGS - _ROLES

_WORDS = sorted(((w, c) for table in (_BEING_WORDS, _OTHER_WORDS) for c, ws in table.items() for w in ws),
                key=lambda x: -len(x[0]))
_RE = lazyre.compile("|".join(rf"(?<![a-z]){re.escape(w)}(?![a-z])" if w.isascii() else re.escape(w) for w, _ in _WORDS))
_OF = dict(_WORDS)
#: what may stand between the words of a subject: owners (我 / 我们 / 我家 / my / our), the possessive
#: marks (的 / 之 / 's / of), articles
_GLUE = lazyre.compile(r"^(?:[\s的之家'’]|我们|咱们|我|my|our|the|a|of|s)*$")
_TRIM = " ,，。.!！?？:：;；"


def concepts(subject: str) -> frozenset[str] | None:
    """The subject as language-free concepts when it is made only of known words and glue: "我女儿的生日"
    and "my daughter's birthday" → ``{"daughter", "birthday"}``, 我老婆 / "my wife" / 我爱人 → ``{"spouse"}``;
    None when any other word is in it ("我家的门禁密码" holds 门禁: only its own words find it).

    >>> concepts("我女儿的生日") == concepts("my daughter's birthday") == frozenset({"daughter", "birthday"})
    True
    >>> concepts("the name of my wife") == concepts("我老婆的名字")
    True
    >>> concepts("张伟的电话") is None
    True
    """
    t = subject.strip().lower().strip(_TRIM)
    found: list[str] = []
    pos = 0
    for m in _RE.finditer(t):
        if not _GLUE.match(t[pos:m.start()]):
            return None
        found.append(_OF[m.group()])
        pos = m.end()
    if not found or not _GLUE.match(t[pos:]):
        return None
    return frozenset(found)


def is_being(subject: str) -> bool:
    """The subject names only a being (我老婆, "my son", 狗狗): it has a name, and 谁 / "who" asks about it."""
    c = concepts(subject)
    return c is not None and c <= BEINGS


def of_kin(subject: str) -> bool:
    """The subject is all known words and names one of the speaker's own (我妈的电话, "my father's phone
    number", 我老婆): no directory or tool knows it — only what the speaker told."""
    c = concepts(subject)
    return c is not None and bool(c & KIN)


def named(subject: str, lang: str) -> str:
    """The subject of "<subject> 叫 X" / "<subject> is called X": its name (我老婆 → 我老婆的名字, "my son" →
    "my son's name"); a subject that already is a name is kept (我的名字, "my wife's name")."""
    s = subject.strip(_TRIM)
    c = concepts(s)
    if c is not None and NAME in c or re.search(r"(?:名字|姓名|\bname)$", s):
        return s
    if lang == "zh":
        return f"{s}的名字" if s else "名字"
    return f"{s}'s name" if s else "name"


def answers(asked: frozenset[str] | None, told: frozenset[str] | None) -> float:
    """How well a told fact answers an asked one, both as concepts (0..1; None: not both made of known words).

    The same concepts are the same fact in either language (1.0). A being asked alone ("who is my
    wife", 我老婆是谁) is answered by its name (1.0); a being's name asked ("what's my wife's name") is
    answered, less surely (0.6), by what the being was told to be ("my wife is a teacher" is said back
    as told, never as a name). Any other difference is another fact (son's name is not wife's name)."""
    if asked is None or told is None:
        return 0.0
    if asked == told:
        return 1.0
    if asked <= BEINGS and told == asked | {NAME}:
        return 1.0
    if told <= BEINGS and asked == told | {NAME}:
        return 0.6
    return 0.0


def render(found: frozenset[str], lang: str) -> str:
    """The concepts said as a possession phrase of the listener's: {"spouse", "name"} → 你爱人的名字 / "your spouse's name"
    (beings first, each by the first word of its language)."""
    def word(c: str) -> str:
        table = _BEING_WORDS if c in BEINGS else _OTHER_WORDS
        return next(w for w in table[c] if (w.isascii() == (lang == "en")))
    parts = [word(c) for c in sorted(found, key=lambda c: (c not in BEINGS, c))]
    if lang == "zh":
        return "你" + "的".join(parts) if parts[0] and found & BEINGS else "你的" + "的".join(parts)
    return "your " + "'s ".join(parts)
