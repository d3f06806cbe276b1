"""What a person told about what they do — a preference, a habit, where they live or work — read as a
clause, and the questions that ask it back (pure).

A preference is kept in the speaker's words ("我喜欢喝茶", "I like green tea": a note, :mod:`.facts`), so
it is asked back as a clause with a gap, not as a thing: 我喜欢喝什么, "what do I like to drink", 我住在哪,
"where do I work", or as a yes/no question: 我喜欢喝茶吗, "do I like tea", "am I allergic to nuts". A
clause is read into language-free parts (:class:`Clause`): whose (the speaker, or a being of theirs:
我老婆, "my wife" — :func:`~.concepts.concepts`), the verb's concept (喜欢 / like / love → ``like``; 不喜欢 /
讨厌 / "don't like" → ``dislike``; 住 / live → ``live`` …), the kind of thing (喝 / drink, or a drink
named: 茶 / tea → ``drink``), and the object as said. A question answers from a told clause of the same
whose and verb (and kind, when the question names one: "what do I like to drink" is answered by "I
like green tea", not by "I like hiking"); a yes/no question from one of the same verb family whose
object holds the asked one ("do I like coriander" ← "I hate coriander": said back as told).

Only a question whose verb is in the lexicon — or that asks a habit (每天 / 平时 / usually …) — is a
recall: 我该怎么办, "what do I do now", 我在哪里能买到…, "what time is it" ask about the world (a modal, a
time of now, or no told verb), never memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import lazyre
from .concepts import BEINGS, concepts

__all__ = ["Clause", "answers_clause", "asked_clause", "told_clause"]

#: verb concept → words (Chinese, then English, base forms; a negation is part of the word)
_VERBS: dict[str, tuple[str, ...]] = {
    "dislike": ("不喜欢", "不太喜欢", "不爱", "讨厌", "恨", "受不了",
                "don't like", "do not like", "doesn't like", "does not like", "hate", "dislike", "can't stand"),
    "like": ("喜欢", "喜爱", "偏爱", "钟爱", "爱", "like", "love", "enjoy", "prefer", "adore"),
    "not_eat": ("不吃", "不能吃", "不太吃", "don't eat", "do not eat", "doesn't eat", "never eat", "can't eat"),
    "not_drink": ("不喝", "不能喝", "不太喝", "don't drink", "do not drink", "doesn't drink", "never drink", "can't drink"),
    "allergic": ("过敏", "allergic"),
    "eat": ("吃", "eat"), "drink": ("喝", "drink"),
    "from": ("来自", "from"), "live": ("住", "live"), "work": ("上班", "工作", "work"), "study": ("上学", "读书", "study"),
}
#: the families a yes/no question is answered from: "do I like X" ← "I hate X"
_FAMILY = {"dislike": "like", "not_eat": "eat", "not_drink": "drink"}
#: the kind a consumption verb names (喜欢喝, "like to drink"), and the things of each kind
_KIND_VERB = {"喝": "drink", "drink": "drink", "drinking": "drink", "吃": "food", "eat": "food", "eating": "food",
              "看": "watch", "watch": "watch", "watching": "watch", "听": "listen", "listen to": "listen",
              "listening to": "listen"}
_KIND_OF_VERB = {"drink": "drink", "not_drink": "drink", "eat": "food", "not_eat": "food"}
_THINGS: dict[str, tuple[str, ...]] = {
    "drink": ("茶", "咖啡", "牛奶", "奶茶", "果汁", "啤酒", "红酒", "白酒", "酒", "可乐", "豆浆", "酸奶", "汽水", "水",
              "tea", "coffee", "milk", "juice", "beer", "wine", "cola", "coke", "soda", "lemonade", "latte",
              "cappuccino", "espresso", "cocoa", "smoothie", "whisky", "whiskey", "water", "soy milk"),
    "food": ("火锅", "饺子", "面条", "面", "米饭", "包子", "馒头", "水果", "蛋糕", "巧克力", "肉", "鱼", "海鲜", "辣",
             "菜", "鸡蛋", "苹果", "香菜", "猪肉", "牛肉", "羊肉", "鸡肉", "花生", "披萨", "寿司",
             "pizza", "pasta", "noodles", "rice", "sushi", "chocolate", "cake", "fruit", "meat", "fish", "seafood",
             "spicy food", "pork", "beef", "chicken", "eggs", "apples", "coriander", "cilantro", "peanuts", "nuts",
             "bread", "cheese", "salad", "dumplings", "curry", "burgers", "steak"),
}
_VERB_OF = {w: c for c, ws in _VERBS.items() for w in ws}
_ZH_VERB = "|".join(sorted((re.escape(w) for w in _VERB_OF if not w.isascii()), key=len, reverse=True))
_EN_VERB = "|".join(sorted((re.escape(w) for w in _VERB_OF if w.isascii()), key=len, reverse=True))
#: words that say how much or how often, dropped before the verb (最喜欢 = 喜欢); a habit adverb also makes a
#: question with any verb a recall (我每天几点起床, "when do I usually get up")
_ZH_HABIT = r"(?:每天|每周|每晚|每早|平时|平常|通常|一般|经常|常常|总是|周末)"
_ZH_ADVERB = r"(?:最|很|特别|比较|非常|挺|真的|真|一直|都|还|也|从来|" + _ZH_HABIT[3:-1] + r")*"
_EN_HABIT = r"(?:usually|always|normally|often|generally|typically)"
_EN_ADVERB = r"(?:(?:really|usually|always|normally|often|generally|typically|still|also|especially|most)\s+)*"
#: a question about the world, not about what was told: a modal (能 / 可以 / 该 / 想 …), a time of now or later
_ZH_WORLD = lazyre.compile(r"能|可以|该|应该|要|想|得|需要|会|怎么|为什么|现在|今天|明天|昨天|今晚|马上|刚才")
_EN_WORLD = lazyre.compile(r"\b(?:now|today|tomorrow|tonight|yesterday|need|should|can|could|have\s+to|want|buy|get\s+to)\b")
#: an object that points into the conversation ("do I like it", 我喜欢这个吗): about what is at hand, not what was told
_DEICTIC = lazyre.compile(r"^(?:it|this|that|these|those|them|you|him|her|这个|那个|这|那|它|你|您|他|她|这些|那些)$")
_ZH_WH = lazyre.compile(r"什么东西|什么地方|什么|啥|哪里|哪儿|哪个|哪|谁|几点|几|多少")
#: the owner of a clause: the speaker (我), or a being of theirs (我老婆, 我的女儿)
_ZH_OWNER = lazyre.compile(r"^我(?:的|家的|家)?(?P<b>[^\s我你的]{1,4}?)(?=" + _ZH_ADVERB + r"(?:" + _ZH_VERB + r"|对|在|是))")


@dataclass(frozen=True, slots=True)
class Clause:
    """A clause read from a statement or a question.

    :param whose: ``me`` or a being's concept (``spouse``, ``daughter`` …).
    :param verb: the verb's concept (``like``, ``dislike``, ``live`` …); ``""`` for a habit read as text.
    :param kind: ``drink`` | ``food`` | ``watch`` | ``listen`` | ``""`` (not said).
    :param obj: the object as said (lower case); of a wh-question, the noun it asks about (我喜欢什么茶, "which tea
        do I like" → 茶 / tea) or ``""``; for a habit, the clause around its gap.
    :param gap: a question that asks for a part (a wh-question); False for a yes/no question or a statement.
    """

    whose: str
    verb: str
    kind: str = ""
    obj: str = ""
    gap: bool = False


def _whose(being: str | None) -> str | None:
    if not being:
        return "me"
    c = concepts(being)
    return next(iter(c)) if c is not None and len(c) == 1 and c <= BEINGS else None


def _kind_of(obj: str) -> str:
    for kind, words in _THINGS.items():
        for w in words:
            if (w in obj) if not w.isascii() else re.search(rf"\b{re.escape(w)}\b", obj):
                return kind
    return ""


def _read_zh(t: str, gap: bool) -> Clause | None:
    if not t.startswith("我") or t.startswith("我们"):
        return None
    m = _ZH_OWNER.match(t)  # 我老婆喜欢…: a being of the speaker's; else the speaker (我喜欢…, 我爱吃…)
    whose = _whose(m.group("b")) if m else None
    rest = t[m.end():] if m and whose else t[1:]
    whose = whose or "me"
    rest = re.sub("^" + _ZH_ADVERB, "", re.sub(r"^家(?=" + _ZH_ADVERB + "住)", "", rest))  # 我家住在…: where I live
    if a := re.match(r"^对(?P<o>.+?)过敏$", rest):  # 我对花生过敏
        return Clause(whose, "allergic", obj=a.group("o"), gap=gap)
    if a := re.match(r"^(?:在|到)(?P<o>.+?)(?P<v>上班|工作|上学|读书|住)$", rest):  # 我在国贸上班
        return Clause(whose, _VERB_OF[a.group("v")], obj=a.group("o"), gap=gap)
    if a := re.match(r"^是(?P<o>.+?)人$", rest):  # 我是哪里人 / 我是上海人
        return Clause(whose, "from", obj=a.group("o"), gap=gap)
    v = re.match("^(?:" + _ZH_VERB + ")", rest)
    if v is None:
        return None
    verb, obj = _VERB_OF[v.group()], rest[v.end():]
    kind = _KIND_OF_VERB.get(verb, "")
    if k := re.match(r"^(?:" + "|".join(w for w in _KIND_VERB if not w.isascii()) + ")", obj):
        kind, obj = _KIND_VERB[k.group()], obj[k.end():]
    obj = re.sub(r"^(?:在|到)", "", obj) if verb == "live" else obj
    return Clause(whose, verb, kind or ("" if gap else _kind_of(obj)), obj, gap)


def _read_en(t: str, gap: bool) -> Clause | None:
    if m := re.match(r"^(?:i|i'm)\s+", t):
        whose, rest = "me", t[m.end():]
    elif m := re.match(r"^my\s+([a-z]+)(?:\s+([a-z]+))?\s+", t):  # "my wife likes …", "my little sister loves …"
        two, one = _whose(f"{m.group(1)} {m.group(2)}") if m.group(2) else None, _whose(m.group(1))
        if two is None and one is None:
            return None
        whose, rest = (two, t[m.end():]) if two else (one, t[len(f"my {m.group(1)} "):])
    else:
        return None
    rest = re.sub(r"^(?:am|'m|is|are)\s+", "", rest)
    rest = re.sub("^" + _EN_ADVERB, "", rest)
    v = re.match(r"^(?:" + _EN_VERB + r")(?:s|d|ed)?\b", rest)
    if v is None:
        return None
    word = re.sub(r"(?<=[a-z])(?:s|d)$", "", v.group()) if v.group() not in _VERB_OF else v.group()
    verb = _VERB_OF.get(word) or _VERB_OF.get(v.group().rstrip("s"))
    if verb is None:
        return None
    obj = rest[v.end():].strip()
    kind = _KIND_OF_VERB.get(verb, "")
    if k := re.match(r"^(?:to\s+)?(drinking|drink|eating|eat|watching|watch|listening to|listen to)\b", obj):
        kind, obj = _KIND_VERB[k.group(1)], obj[k.end():].strip()
    obj = re.sub(r"^(?:to|in|at|for|from|on)\s+", "", obj)
    if verb == "live" or verb == "work":
        obj = re.sub(r"^(?:in|at|for)\s+", "", obj)
    return Clause(whose, verb, kind or ("" if gap else _kind_of(obj)), obj, gap)


def told_clause(text: str) -> Clause | None:
    """The clause of a told statement (a note's words, or a fact's subject and value said together):
    "我最喜欢喝茶" → ``Clause("me", "like", "drink", "茶")``, "I like green tea" → ``Clause("me", "like",
    "drink", "green tea")``, "my wife loves roses" → ``Clause("spouse", "like", "", "roses")``; None when it
    is no clause of the lexicon (a habit is matched as text by :func:`answers_clause`).

    :param text: normalised (Simplified Chinese, half width) or as typed; any case.
    """
    t = " ".join(text.strip().lower().split()).strip(" ,，。.!！")
    if re.search(r"[\u4e00-\u9fff]", t):
        return _read_zh(t, False)
    return _read_en(t, False)


#: a Chinese question: an optional 你记得 / 你知道 frame, the clause (its owner first), an optional 吗 / 呢
_ZH_Q = lazyre.compile(r"^(?P<frame>你(?:还|可)?(?:记得|知道|记不记得))?(?P<c>我(?!们)[^，,。?？!！]{1,24}?)(?P<q>吗|呢|没有)?(?:来着)?[?？。]*$")
_EN_WH_Q = lazyre.compile(r"^(?:do\s+you\s+(?:remember|know)\s+)?(?P<wh>what\s+(?:kinds?|sorts?|types?)\s+of\s+[a-z]+|what\s+time|"
                          r"what\s+(?!do\b|does\b|am\b|is\b)[a-z]+|what|where|who|when|which\s+[a-z]+|how\s+often)"
                          r"\s+(?P<aux>do|does|am|is|don't|doesn't)\s+(?P<who>i|my\s+[a-z]+(?:\s+[a-z]+)?)\s+(?P<rest>[^?]+?)\s*\??$")
_EN_EMBEDDED_Q = lazyre.compile(r"^do\s+you\s+(?:remember|know)\s+(?P<wh>what|where|who|when|whether|if)\s+"
                                r"(?P<who>i|my\s+[a-z]+(?:\s+[a-z]+)?)\s+(?P<rest>[^?]+?)\s*\??$")
_EN_YN_Q = lazyre.compile(r"^(?P<aux>do|does|am|is|don't|doesn't)\s+(?P<who>i|my\s+[a-z]+(?:\s+[a-z]+)?)\s+(?P<rest>[^?]+?)\s*\??$")


def asked_clause(text: str) -> tuple[Clause, str] | None:
    """A question about what the speaker told of what they (or one of theirs) do, and the question said
    as an embedded clause in the first person (for "you have not told me …"):

    - 我喜欢喝什么 → (``Clause("me", "like", "drink", gap=True)``, "我喜欢喝什么"); 我喜欢喝茶吗 → (…,
      "我是否喜欢喝茶"); 你记得我喜欢什么吗 → (…, "我喜欢什么");
    - "what do I like to drink" → (…, "what i like to drink"); "do I like tea" → (…, "whether i like tea");
      "what am I allergic to" → (…, "what i am allergic to");
    - a habit (每天 / 平时 / usually …) with any verb: 我每天几点起床 → (``Clause("me", "", obj="我每天…起床")``, …).

    None for a question about the world: a modal or a time of now (我该怎么办, 我在哪里能买到…, "what do I
    do now", "what time is it"), or a verb the lexicon lacks with no habit adverb.

    :param text: normalised, lower case.
    """
    t = " ".join(text.strip().lower().split())
    if re.search(r"[\u4e00-\u9fff]", t):
        m = _ZH_Q.match(t)
        if m is None or _ZH_WORLD.search(m.group("c")):
            return None
        c = m.group("c")
        wh = list(_ZH_WH.finditer(c))
        if len(wh) > 1 or (not wh and m.group("q") not in ("吗", "没有")) or (wh and m.group("q") == "没有"):
            return None
        if wh:
            w = wh[0]
            told = _read_zh(c[:w.start()] + "\0" + c[w.end():], True)
            if told is not None and told.verb in ("eat", "drink") and not re.search(_ZH_HABIT, c):
                return None  # 我吃什么: a wish for a suggestion, unless a habit is asked (我平时吃什么)
            if told is not None and "\0" in told.obj:
                # 我喜欢什么茶, 我喜欢哪种茶: the noun after the gap is what is asked (a kind, or words the told
                # object must hold); 我喜欢喝什么, 我平时喜欢干什么: anything of the verb
                noun = re.sub(r"^(?:种|类|样|款|个)", "", told.obj[1:]) if told.obj.startswith("\0") else ""
                return Clause(told.whose, told.verb, told.kind or _kind_of(noun), noun, True), c
            if told is not None:
                return None
            if re.search(_ZH_HABIT, c[:w.start()]):  # 我每天几点起床: a habit, matched as text
                return Clause("me", "", obj=c[:w.start()] + "…" + c[w.end():], gap=True), c
            # 你记得我养什么吗: the frame asks what was told, whatever the verb — matched as text; 你记得我什么,
            # 你记得我老婆什么 (a person or a thing of theirs, no verb) list what was told about it (:data:`.facts.ABOUT`)
            said = c[1:w.start()]
            if m.group("frame") and said and not said.startswith(("的", "家的")) and concepts(said) is None \
                    and not re.search(r"[的是叫在]", said):
                return Clause("me", "", obj=c[:w.start()] + "…" + c[w.end():], gap=True), c
            return None
        told = _read_zh(c, False)
        if told is not None and _DEICTIC.match(told.obj.strip()):
            return None
        return (Clause(told.whose, told.verb, told.kind, told.obj), "我是否" + c[1:] if c.startswith("我") else c) \
            if told is not None else None
    for pat in (_EN_WH_Q, _EN_EMBEDDED_Q, _EN_YN_Q):
        m = pat.match(t)
        if m is None:
            continue
        rest, who = m.group("rest"), m.group("who")
        if len(who.split()) == 3 and _whose(who[3:]) is None:  # "my aunt allergic to": one word is the being
            who, rest = who.rsplit(" ", 1)[0], who.rsplit(" ", 1)[1] + " " + rest
        if _EN_WORLD.search(rest):
            return None
        aux = m.groupdict().get("aux") or ""
        neg = "don't " if aux in ("don't", "doesn't") else ""
        be = "am " if aux == "am" else "is " if aux == "is" and who != "i" else ""
        told = _read_en(f"{who} {be}{neg}{rest}", "wh" in m.groupdict() and m.group("wh") not in ("whether", "if"))
        if told is not None and told.gap:  # the object is the gap; a noun of the wh-phrase says what is asked
            told = Clause(told.whose, told.verb, told.kind or _wh_kind(m.group("wh")), _wh_noun(m.group("wh")), True)
        wh = m.groupdict().get("wh") or "whether"
        if wh == "if":
            wh = "whether"
        embedded = f"{wh} {who} {be}{neg}{rest}" if who == "i" else f"{wh} {who} {be}{neg}{_third(rest) if not be and not neg else rest}"
        if told is not None and told.gap and told.verb in ("eat", "drink") and not re.search(_EN_HABIT, rest):
            return None  # "what do I eat": a wish for a suggestion, unless a habit is asked ("what do I usually eat")
        if told is not None and not told.gap and _DEICTIC.match(told.obj.strip()):
            return None  # "do I like it": the thing at hand
        if told is not None:
            return told, embedded
        if wh != "whether" and re.match(_EN_HABIT + r"\s", rest):  # "when do I usually get up": a habit
            return Clause("me" if who == "i" else (_whose(who[3:]) or ""), "", obj=f"{who} {rest}", gap=True), embedded
        return None
    return None


#: what a wh-phrase's noun says of the kind asked ("what drinks", "what kind of food"), beyond the things of each kind
_KIND_NOUNS = {"drink": ("drink", "drinks", "beverage", "beverages"), "food": ("food", "foods", "dish", "dishes", "meal", "meals")}


def _wh_kind(wh: str) -> str:
    words = wh.split()[1:]
    if not words:
        return ""
    noun = words[-1]
    return next((k for k, ws in _KIND_NOUNS.items() if noun in ws), "") or _kind_of(noun)


def _wh_noun(wh: str) -> str:
    """The noun a wh-phrase asks about, when it is no kind ("which tea" → tea, "what music" → music; "what
    drinks", "what" → "")."""
    words = wh.split()[1:]
    if not words or words[0] in ("time", "else", "often") or any(words[-1] in ws for ws in _KIND_NOUNS.values()):
        return ""
    return words[-1]


def _third(rest: str) -> str:
    """The verb of a third-person clause agreed ("what my wife like" → "what my wife likes")."""
    first, _, tail = rest.partition(" ")
    return (first + ("es" if first.endswith(("s", "sh", "ch", "o")) else "s") + (" " + tail if tail else "")).strip()


def _overlap(a: str, b: str) -> bool:
    """The asked object is in the told one: a word of it (English) or half its character bigrams (Chinese)."""
    a, b = a.strip(), b.strip()
    if not a or not b:
        return False
    if a in b:
        return True
    if re.search(r"[\u4e00-\u9fff]", a):
        x = {a[i:i + 2] for i in range(len(a) - 1)} or {a}
        y = {b[i:i + 2] for i in range(len(b) - 1)} or {b}
        return 2 * len(x & y) >= len(x)
    words = {w for w in re.findall(r"[a-z]+", a) if w not in ("a", "an", "the", "some", "any")}
    return bool(words) and words <= set(re.findall(r"[a-z]+", b))


def answers_clause(asked: Clause, told_text: str) -> bool:
    """A told statement (a note's words, a fact said whole) answers the asked clause.

    - a wh-question: the same whose and verb, and the same kind when the question names one ("what do I
      like to drink" ← "I like green tea", "我喜欢喝茶"; not ← "I like hiking");
    - a yes/no question: the same whose and verb family, and the asked object in the told one ("do I
      like coriander" ← "I hate coriander");
    - a habit (no verb concept): the told text holds the question's words either side of its gap.
    """
    if not asked.verb:
        t = " ".join(told_text.strip().lower().split())
        head, _, tail = asked.obj.partition("…")
        if asked.whose == "me" and re.search(r"[\u4e00-\u9fff]", head):
            return bool(head) and t.startswith(head) and (not tail or tail in t[len(head):]) and len(t) > len(head + tail)
        words = [w for w in re.findall(r"[a-z]+", asked.obj) if w not in ("i", "usually", "always", "normally", "often",
                                                                           "generally", "typically")]
        return bool(words) and all(w in t.split() or w + "s" in t.split() for w in words) and t.startswith(asked.obj.split()[0])
    told = told_clause(told_text)
    if told is None or told.whose != asked.whose:
        return False
    if asked.gap:  # "which tea do I like": the told object holds the noun asked
        return told.verb == asked.verb and (not asked.kind or told.kind == asked.kind) and bool(told.obj) \
            and (not asked.obj or _overlap(asked.obj, told.obj))
    return _FAMILY.get(told.verb, told.verb) == _FAMILY.get(asked.verb, asked.verb) and _overlap(asked.obj, told.obj)
