"""Explicit memory requests — remember, recall, forget — read from an utterance (pure).

Every pack gets these intents: they are a small grammar of the language, not
pack templates. The text is read after :func:`hermesd.nlu.normalize.normalize`
(Traditional → Simplified, full width → half width), lower-cased.

- ``memory.remember``: 记住/记一下/帮我记着 … , "remember (that) …", "note that …".
  The body splits at its first relation word into subject and value: 是/叫/为
  ("is": the value *is* the thing — a secret subject then has its value redacted)
  or 在/放在/存在 ("is in": a place — never a secret). "我的"/"my" is the owner,
  not part of the subject; a body with no relation is a note (subject = body).
- a *statement* said without a memory verb — "我女儿的生日是5月3号", "王会计的生日是3月5号", "my wifi
  password is tiger77", "the gate code is 4721" — is a remember too, marked ``stated``: a possessed
  subject (我的X / 我X / <someone>的X, "my X") or "the X", the copula 是 / is, and a
  value that is not a question. Whether it is kept is the caller's judgement
  (:meth:`hermesd.session.memoryturn.MemoryTurns.read`: a value that is a value — a date, a code — or
  nothing else the packs understand), since "my disk is full" is a request for a tool.
- ``memory.recall``: 我的X是什么/是多少/叫什么/在哪/是哪天/几号/什么时候, 我X几号, X放哪了, "what's my X",
  "when is my X", "what day is my X", "where is my X", "where did I put X", "do you remember my X";
  <someone>的X是什么 (王会计的生日是哪天) and "what is the X" (no owner) are marked ``stated`` too — a
  question any pack may own ("这家酒店的地址是什么", "what is the address"), memory's when a fact
  about it is stored or no word of the pack's intent is in it.
  叫什么 / "what's my X called" / "the name of my X" ask X's name (:func:`~.concepts.named`), as 叫 /
  "is called" / a proper name ("my wife is Anna") tell it; 是谁 / "who is my X" ask who X is.
- a list (relation :data:`ABOUT`): 你记得我什么, 关于我老婆你记得什么, "what do you remember about
  me", "what did I tell you about my wife" — what the caller told, all or about one of theirs.
- a clause told (a preference, a habit, where one lives or works), asked back (relation :data:`CLAUSE`):
  我喜欢喝什么, 我住在哪, 我喜欢喝茶吗, "what do I like to drink", "where do I work", "do I like tea"
  (:mod:`.clauses`); a question about the world (我该怎么办, "what do I do now") is none.
- a told clause said without a memory verb (:func:`_told`): a preference, an age, where one lives or works — and
  its change: a correction (不对，… / "…, not coffee"), a preference no longer held (我现在不喜欢…了), a place no
  longer true (a forget, ``change="retract"``); an opinion of a circumstance ("I hate Mondays") is none.
- ``memory.forget``: 忘掉/忘记/删掉/清空 X, 别记着X了, "forget (about / that) X" (X a told clause: the note of it); 所有/全部/一切 and
  "everything"/"all" mean every memory of the caller (:data:`ALL`: facts, notes, other slots and
  the history); the send history alone — 发送记录, 发过的文件, "what I sent", "send history" — is
  :data:`SENT`, and the whole history of what was done — 操作记录, 历史记录, "my history", "what I
  did" — is :data:`HISTORY`: the record of actions, not the facts. Each is the caller's own,
  confirmed first.

:func:`match_subject` ranks stored subjects against a question by character
bigram Dice overlap (Chinese has no spaces; bigrams are the usual unit for
unsegmented CJK retrieval, e.g. Lucene's CJKBigramFilter).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .. import lazyre, pronouns
from .clauses import PLACE_VERBS, POSITIVE, Clause, asked_clause, opinion, told_clause
from .concepts import concepts, is_being, named

__all__ = ["ABOUT", "ALL", "CLAUSE", "HISTORY", "SENT", "SEND_ACTION", "MemoryRequest", "MAX_VALUE_CHARS", "concepts", "dice", "normal_subject",
           "read_request", "second_person", "transient", "with_name", "without_discourse"]

#: longest value kept, in characters; a longer one is cut and the reply says so
MAX_VALUE_CHARS = 200
#: the subject of "forget everything"
ALL = "*"
#: the relation of a recall that lists what was told ("what do you remember about me"): its subject is
#: "" (everything about the caller) or one of theirs ("wife")
ABOUT = "about"
#: the relation of a recall that asks back what the caller told of what they (or one of theirs) do — a
#: preference, a habit, where they live or work: 我喜欢喝什么, "what do I like to drink", "do I like tea"
#: (:mod:`.clauses`); its subject is the question said as an embedded clause (我喜欢喝什么, "what i like to
#: drink", "whether i like tea"), its ``clause`` what is asked
CLAUSE = "clause"
#: the subject of "forget what I sent" (the send history: events of :data:`SEND_ACTION`)
SENT = "history:send"
#: the subject of "forget my history" (every event of the caller: what was done)
HISTORY = "history:*"
#: the action whose events are the send history (the tool ``doc.list_sent`` recalls)
SEND_ACTION = "send_document"

_ZH_REMEMBER = lazyre.compile(r"^(?P<ask>(?:请|麻烦)?(?:帮我|给我)?)(?:记住|记一下|记下|记着|记好)(?P<done>了)?[:,，：\s]*(?P<body>.+)$")
_EN_REMEMBER = lazyre.compile(r"^(?:please\s+)?(?:remember|note|don't forget|do not forget)(?:\s+that)?[:,\s]+(?P<body>.+)$")
_ZH_REL = lazyre.compile(r"(放在|存在|藏在|停在|在|是|叫|为)")
#: "我老婆叫王芳", "我儿子叫小明": a being of the speaker's and the name it is called (the subject must be a being,
#: :func:`~.concepts.is_being`: 我叫什么 asks, 我们叫车 is no name)
_ZH_CALLED = lazyre.compile(r"^(?P<s>(?:我家的|我的|我家|我)[^\s是的叫，,。?？]{1,6}?)叫(?P<v>[^？?]+?)[。!！]*$")
_EN_IS = lazyre.compile(r"^(?:my|the|our)\s+(?P<s>.+?)\s+(?:is|are|was|=)\s+(?P<v>.+)$")
_EN_PUT = lazyre.compile(r"^i\s+(?:put|left|keep|parked|stored|hid)\s+(?:my\s+|the\s+)?(?P<s>.+?)\s+"
                         r"(?P<v>(?:in|on|under|at|behind|inside|next to)\s+.+)$")
#: where a thing is asked: a placing verb (停/放/存/藏/搁/丢/落) and 在哪 belong to the question, not to
#: the subject ("我的车停在哪" asks about 车)
_ZH_WHERE = r"(?:(?:停|放|存|藏|搁|丢|落|忘)(?:在|到)?|在)(?:哪里|哪儿|哪)(?:了|啦)?"
#: what a question asks for at its end: a thing (是什么 …), a name (叫什么, 是谁) or a day (是哪天, 几号, 什么时候 —
#: a birthday); 是 may be left out before 多少 (我妈电话多少)
_ZH_ASKED = (r"(?:是什么|是多少|是啥|是哪个|是谁|叫什么名字|叫啥名字|叫什么|叫啥|是几号|是多少号|是哪天|是哪一天|是几月几号|是几月几日|是什么时候|"
             r"在什么时候|哪天|哪一天|几月几号|几月几日|几号|什么时候|多少)")
_ZH_RECALL = (
    lazyre.compile(r"^(?:你还?记得)?(?:我家?的|我们的)(?P<s>.+?)(?:(?P<at>" + _ZH_WHERE + r")|" + _ZH_ASKED[3:-1] + r")"
               r"(?:来着)?[?？吗呢。!]*$"),
    # "我女儿生日几号": the owner 我 without 的, a subject of two characters or more, or a kin term of one
    # (我爸叫什么, 我妈电话多少)
    lazyre.compile(r"^(?:你还?记得)?我(?P<s>[^\s是的在把]{1,12}?)" + _ZH_ASKED + r"(?:来着)?[?？吗呢。!]*$"),
    lazyre.compile(r"^(?:你还?记得)?我(?P<s>叫)什么(?:名字)?(?:来着)?[?？吗呢。!]*$"),
    lazyre.compile(r"^(?:我把)?(?:我的)?(?P<s>.+?)(?P<at>(?:放|停|存|藏|搁|丢|落)(?:在|到)?(?:哪里|哪儿|哪)了?)[?？吗呢。]*$"),
    lazyre.compile(r"^你还?记得(?:我家?的)(?P<s>.+?)吗[?？]*$"),
)
#: "王会计的生日是哪天": someone else's thing — an owner said by name (not 这/那/该/此: a thing of the
#: conversation, "这家酒店的地址"); marked ``stated``: answered from a stored fact, else a pack's
_ZH_RECALL_THEIRS = lazyre.compile(r"^(?:你还?记得)?(?P<s>(?:(?![这那该此哪])[^\s是的，,。.?？!！:：]){1,8}的[^\s是，,。.?？]{1,10}?)"
                                   + _ZH_ASKED + r"(?:来着)?[?？吗呢。!]*$")
_EN_RECALL = (
    lazyre.compile(r"^(?:what(?:'s| is| was| are| were)|tell me|when(?:'s| is| was)|what day is|what date is)\s+my\s+(?P<s>.+?)\??$"),
    lazyre.compile(r"^where(?:'s| is| are| was| were)\s+my\s+(?P<s>.+?)\??$"),
    # "where did I park (it)?": parking with no object is the car's
    lazyre.compile(r"^where\s+(?:did|do|can|should)\s+i\s+(?P<s>park)(?:\s+it)?(?:\s+the\s+car)?\??$"),
    lazyre.compile(r"^where\s+(?:did|do)\s+i\s+(?:put|leave|keep|park|store|hide)\s+(?:my\s+|the\s+)?(?P<s>.+?)\??$"),
    lazyre.compile(r"^do\s+you\s+remember\s+(?:my|where my)\s+(?P<s>.+?)(?:\s+is)?\??$"),
    # "who is my wife": a being asked after is its name, or what it was told to be
    lazyre.compile(r"^(?:who(?:'s| is| was| are| were)|do\s+you\s+know\s+who)\s+my\s+(?P<s>.+?)(?:\s+is)?\??$"),
    # "my wife's name?": the thing alone, asked (the question mark is what makes it a question)
    lazyre.compile(r"^(?:and\s+)?my\s+(?P<s>[^?]+?)\s*\?+$"),
)
#: what the caller told about themselves, or about one of theirs: "what do you remember about me",
#: "what did I tell you about my wife", "你记得我什么", "关于我老婆你记得什么" — a list (:data:`ABOUT`)
_EN_ABOUT = (
    lazyre.compile(r"^what\s+(?:else\s+)?(?:do|did|can)\s+you\s+(?:remember|recall)(?:\s+about\s+(?:me|myself|my\s+(?P<s>[^?]+?)))?\s*\??$"),
    lazyre.compile(r"^what\s+(?:do|did)\s+you\s+know\s+about\s+(?:me|myself|my\s+(?P<s>[^?]+?))\s*\??$"),
    lazyre.compile(r"^what\s+(?:did|have)\s+i\s+(?:tell|told)\s+you(?:\s+about\s+(?:me|myself|my\s+(?P<s>[^?]+?)))?\s*\??$"),
)
_ZH_ABOUT_END = r"(?:的)?(?:什么|哪些|些什么|啥)(?:事|事情|东西)?(?:吗|呢|啊)?[?？。]*$"
_ZH_ABOUT = (
    lazyre.compile(r"^你(?:还|都)?(?:记得|知道|记着)(?:关于)?我(?:的)?(?P<s>[^\s什么哪些啥叫是在]{0,8}?)" + _ZH_ABOUT_END),
    lazyre.compile(r"^关于我(?:的)?(?P<s>[^\s你]{0,8}?)(?:的事|的事情)?[,，]?你(?:都|还)?(?:记得|知道|记着)(?:些)?"
               r"(?:什么|哪些|啥)(?:事|事情)?(?:吗|呢|啊)?[?？。]*$"),
    lazyre.compile(r"^我(?:都)?(?:跟|和|对|给)你(?:说|讲)过(?:关于)?我(?:的)?(?P<s>[^\s什么哪些啥叫是在]{0,8}?)" + _ZH_ABOUT_END),
)
_ZH_FORGET = lazyre.compile(r"^(?:请|麻烦)?(?:帮我)?(?:忘掉|忘记|忘了|删掉|删除|清除|清空|抹掉|抹去)(?:关于)?(?:我的|我家的)?(?P<s>.+?)(?:吧|的事|这件事|的记忆)?[。!！]*$")
#: 别记着我喜欢咖啡了, 不用再记着…, 不要记住…: keeping it is stopped — a forget of what follows
_ZH_STOP_KEEPING = lazyre.compile(r"^(?:你)?(?:别|不要|不用|不必|甭)(?:再)?(?:记着|记住|记得|记)(?:了)?[,，:：\s]*(?P<s>我.+?)(?:了|啦|吧)*[。!！]*$")
#: 保险箱密码是多少, wifi密码是什么, 门禁密码: a secret asked with no owner said — the speaker's own, answered only
#: from a stored fact (stated), never a contact lookup or a device's status
_ZH_SECRET_RECALL = lazyre.compile(r"^(?:你还?记得)?(?P<s>[^，。？?\s]{0,12}?(?:密码|口令|密钥|门禁码))(?:是多少|是什么|是啥|多少|呢|是)?[?？。]*$")
#: "what is the gate code": no owner — marked stated, answered only from a stored fact
_EN_RECALL_THE = lazyre.compile(r"^(?:what(?:'s| is| was)|tell me|when(?:'s| is| was))\s+the\s+(?P<s>.+?)\??$")
#: a statement of a fact, no memory verb: "我女儿的生日是5月3号", "我的车位号是B2-117", "王会计的生日是3月5号";
#: or of its change — the copula replaced by a verb of change (改成 / 改为 / 换成 / 变成 / 更新为 / 现在是: "我女儿的
#: 生日改成5月4号", "把门禁密码改成9999"): the new value, kept like a statement (the old one is replaced)
#: 是 bound into an adverb or a conjunction — 老是/总是 (always: a complaint, "我手机老是自己重启"),
#: 还是/或是 (or), 可是/但是/只是/而是 (but), 于是 (so), 要是/若是 (if), 不是, 像是, 硬是, 倒是, 凡是 —
#: is no copula: the sentence states no fact of the form 我的X是Y
_BOUND_SHI = r"(?<![老总还或可但只而于要若不像硬倒凡])"
_ZH_STATED = lazyre.compile(r"^(?:把)?(?P<s>(?:我家的|我们的|我的|我(?=[^\s是的])|[^\s是的，,。?？把]{1,8}的)[^\s是，,。?？]{1,12}?)"
                            r"(?:现在是|现在改成了?|已经改成了?|已经改为|改成了?|改为|改到|换成了?|变成了?|更新为|更新成|"
                            + _BOUND_SHI + r"是)"
                            r"(?P<v>[^？?]+?)[。!！]*$")
#: "my daughter's birthday is May 3", "the gate code is 4721"; a change said as one — "the gate code is
#: now 9999", "my locker code has changed to 5512", "the gate code changed to 9999"
_EN_STATED = lazyre.compile(r"^(?P<s>(?:my|our|the)\s+[^,?]+?)\s+(?:is\s+now|are\s+now|has\s+changed\s+to|have\s+changed\s+to|"
                            r"changed\s+to|is\s+changed\s+to|has\s+become|is|are|=)\s+(?P<v>[^?]+?)[.!]*$")
#: "change my locker code to 5512", "update the gate code to 9999", "set my PIN to 1234"
_EN_CHANGE = lazyre.compile(r"^(?:please\s+)?(?:change|update|set|switch)\s+(?P<s>(?:my|our|the)\s+[^,?]+?)\s+to\s+(?P<v>[^?]+?)[.!]*$")
#: a subject that frames what the speaker says next ("我的意思是…", "my question is …"): a way of
#: speaking (a discourse marker), never a fact to keep
_FRAMING = lazyre.compile(r"(?:意思|问题|想法|看法|建议|要求|需求|目的|意见|理解|打算|计划)$"
                          r"|\b(?:point|question|idea|guess|concern|problem|request|issue|thinking|plan|worry|answer)$")
#: a value that asks instead of telling (是不是, 是什么, "is what") is no statement
_ASKS = lazyre.compile(r"什么|多少|哪|几|谁|吗|么|不是|是否|怎么|\bwhat\b|\bwhen\b|\bwhere\b|\bwho\b|\bwhich\b|\bhow\b|\?|？")
_EN_QUESTION_START = lazyre.compile(r"^(?:is|are|was|were|do|does|did|can|could|will|would|should|what|when|where|who|which|how|why)\b")
_EN_FORGET = lazyre.compile(r"^(?:please\s+)?(?:forget|erase|delete|clear|wipe|stop\s+remembering|don't\s+remember)\s+(?:about\s+)?(?:my\s+|the\s+)?(?P<s>.+?)[.!]*$")
_ALL_WORDS = {"所有", "全部", "一切", "所有记忆", "全部记忆", "所有的记忆", "所有东西", "所有事", "所有的事", "你记得的一切",
              "everything", "all", "all memories", "all my memories", "everything you know", "everything about me"}
_TRIM = " ,，。.!！?？:：;；"
#: the send history named as a thing: (所有)发送/发件/发过的(文件)(记录) — a record word or 发过 is needed
_ZH_SENT = lazyre.compile(r"^(?:所有|全部)?的?(?:我)?(?:(?:发送|发件|发出|已发送|发过|发出去)(?:过)?的?(?:文件|文档|东西|邮件)?的?"
                          r"(?:记录|历史|历史记录|列表)|发过的(?:文件|文档|东西|邮件)|(?:文件|文档)的?发送(?:记录|历史))$")
_EN_SENT = lazyre.compile(r"^(?:all\s+)?(?:(?:what|everything|(?:the\s+)?(?:documents|files|things|stuff))\s+(?:that\s+)?i(?:'ve| have)?\s+sent"
                          r"(?:\s+out)?|(?:my\s+|the\s+)?(?:send|sent|sending)\s+(?:history|log|records?|list)"
                          r"|(?:my\s+|the\s+)?sent\s+(?:documents|files|items))$")
_ZH_HISTORY = lazyre.compile(r"^(?:所有|全部)?的?(?:我的)?(?:操作记录|历史记录|使用记录|活动记录|做过的事(?:情)?(?:的记录)?|我做过的事(?:情)?)$")
_EN_HISTORY = lazyre.compile(r"^(?:my\s+|the\s+|all\s+(?:of\s+)?(?:my\s+)?)?(?:history|activity(?:\s+log)?|action\s+history)$"
                             r"|^(?:what|everything)\s+i(?:'ve| have)?\s+(?:did|done)$")


@dataclass(frozen=True, slots=True)
class MemoryRequest:
    """An explicit memory request.

    :param intent: ``memory.remember`` | ``memory.recall`` | ``memory.forget``.
    :param subject: what it is about, as said without the owner (门禁密码, "locker code");
        :data:`ALL` for "forget everything".
    :param value: what to remember (remember only).
    :param relation: ``is`` (the value is the thing) | ``at`` (a place) | ``note`` (no relation);
        for a recall, ``at`` when the question asks where (在哪, "where is my …").
    :param lang: ``zh`` | ``en`` (the grammar that matched).
    :param truncated: the value was longer than :data:`MAX_VALUE_CHARS` and was cut.
    :param stated: said without a memory verb — a bare statement ("我女儿的生日是5月3号") or a recall
        of "the X" — so the caller decides whether it is memory's or a pack request's.
    :param clause: for a recall of relation :data:`CLAUSE`, the clause asked (:func:`.clauses.asked_clause`); for
        a note told or a forget of one, the clause told (:func:`.clauses.told_clause`: "I like coffee").
    :param change: ``correct`` — a told clause that replaces one of its topic ("不对，我喜欢喝红茶", "I like tea
        better now, not coffee"); ``retract`` — a forget said as a change ("I don't live in Leeds anymore", 我不住在杭州了:
        the told clause goes, unasked); ``""`` else.
    :param old: the old object a correction names ("coffee" of "…, not coffee"), or ``""``.
    """

    intent: str
    subject: str
    value: str = ""
    relation: str = "is"
    lang: str = "zh"
    truncated: bool = False
    stated: bool = False
    clause: Clause | None = None
    change: str = ""
    old: str = ""


def normal_subject(subject: str) -> str:
    """The key a subject is filed under: lower case, no owner words, no spaces or punctuation."""
    s = subject.lower().strip(_TRIM)
    s = re.sub(r"^(?:我家的|我的|我们的|我家|我|my |the |our )", "", s)
    return re.sub(r"[\s\W_]+", "", s)


#: discourse words that say how the speaker goes on, never what the value is ("my wife's name is actually Anna",
#: "actually, my son's name is Leo", "其实我的车停在B2"): dropped before a value and at the start of a statement
_DISCOURSE = lazyre.compile(r"^(?:(?:actually|in fact|so|well|oh|um|uh)\b[\s,]*|其实|其實)+")


def without_discourse(text: str) -> str:
    """``text`` (normalised, lower case) without the discourse words that open it ("actually, my son's
    name is leo" → "my son's name is leo", "其实我…" → "我…")."""
    return _DISCOURSE.sub("", text).strip()


#: the old value a correction names after the new one: "Anne, not Anna", "安娜，不是安妮", "安娜而不是安妮" —
#: the value is what comes before it (the stored one it replaces is the fact's, not the sentence's)
#: (a "not" after a verb or an auxiliary — "I do not eat pork", 我不是素食者 — negates the clause: it names no old value)
_NOT_OLD = lazyre.compile(r"\s*[,，;；]\s*(?:and\s+|but\s+)?(?:not|rather\s+than|instead\s+of)\s+(?P<o>[^,，]+)$"
                          r"|\s+(?:and\s+not|rather\s+than|instead\s+of)\s+(?P<o2>[^,，]+)$"
                          r"|(?:\s*[,，;；]\s*(?:而|并)?|而|并)(?:不是|不叫)(?P<o3>[^,，。]+)$")

def _old_named(value: str) -> str:
    """The old value a correction names after the new one ("I like tea, not coffee" → "coffee"), or ``""``."""
    m = _NOT_OLD.search(value.strip(_TRIM))
    return next((g.strip(_TRIM) for g in (m.groups() if m else ()) if g), "")


#: a told clause corrected: a word that says the last thing told was wrong (不对，… / 错了，… / "no, …", "I meant …"),
#: then the clause right; what it replaces is the told clause of its topic (:func:`.clauses.same_topic`)
_ZH_CORRECTING = lazyre.compile(r"^(?:不对|不是的|不是|错了|说错了|我说错了|搞错了|更正一下|更正|纠正一下)(?:吧|啊|呀)?[,，:：\s]+")
_EN_CORRECTING = lazyre.compile(r"^(?:no|nope|not quite|wrong|correction|sorry,?\s+i\s+meant?|i\s+meant?|no\s+wait)[,:;\s]+")
#: words of change after a liked thing ("I like tea better now", "I prefer tea these days"): the preference told
#: before, of the same topic, is replaced (a comparative says it is preferred to what was)
_EN_CHANGE_TAIL = lazyre.compile(r"(?:\s+(?:much\s+|a\s+lot\s+)?(?:better|more)|\s+instead|\s+now|\s+these\s+days|\s+nowadays)+$")
#: 现在 / 如今 before the verb, 更 (more), a final 了 of a new state: 我现在更喜欢喝红茶了 — a change of what is liked
_ZH_CHANGE = lazyre.compile(r"^(?P<who>我(?:的|家的)?[^\s现如更]{0,4}?)(?P<now>现在|如今|最近)?(?P<more>更)?(?P<rest>[^？?吗呢]+?)(?P<le>了|啦)?[。!！]*$")
#: a told clause withdrawn: negated with a word of change — zh 不再 / 再也不, or 不…了 (no longer: the 了 of a
#: changed state, Li & Thompson 1981 §6), 现在 / 已经 不…; en "not … anymore / any longer", "no longer"
_ZH_NO_LONGER = lazyre.compile(r"^(?P<who>我(?:的|家的)?[^\s不再已现如早]{0,5}?)(?P<adv>(?:现在|已经|早就|如今|目前|也|都)*)"
                               r"(?P<neg>再也不|不再|不)(?P<rest>[^？?吗呢不]+?)(?P<le>了|啦)?[。!！]*$")
_EN_NO_LONGER = lazyre.compile(r"^(?P<who>i|my\s+[a-z]+(?:\s+[a-z]+)?)\s+(?:no\s+longer\s+(?P<v1>.+?)|"
                               r"(?P<aux>don't|do\s+not|doesn't|does\s+not|am\s+not|is\s+not|isn't)\s+(?P<v2>.+?)\s+"
                               r"(?:any\s?more|any\s+longer))[.!]*$")


def _no_longer(t: str, zh: bool) -> tuple[str, str] | None:
    """(the clause negated, the clause it withdraws) of a told clause said as no longer true: 我现在不喜欢喝绿茶了 →
    (我不喜欢喝绿茶, 我喜欢喝绿茶), "i don't like coffee anymore" → ("i don't like coffee", "i like coffee"), "i no
    longer live in leeds" → ("i don't live in leeds", "i live in leeds"); None for any other text (我不吃香菜: a
    dislike, no change)."""
    if zh:
        m = _ZH_NO_LONGER.match(t)
        if m is None or not (m.group("neg") != "不" or m.group("le") or re.search(r"现在|已经|早就|如今", m.group("adv"))):
            return None
        return m.group("who") + "不" + m.group("rest"), m.group("who") + m.group("rest")
    m = _EN_NO_LONGER.match(re.sub(r"^i'm\s+", "i am ", t))
    if m is None:
        return None
    who = m.group("who")
    if m.group("v1"):
        return f"{who} {'do' if who == 'i' else 'does'}n't {m.group('v1')}", f"{who} {m.group('v1')}"
    aux = m.group("aux")
    be = re.match(r"^(am|is)", aux)
    return f"{who} {aux} {m.group('v2')}", f"{who} {be.group(1) + ' ' if be else ''}{m.group('v2')}"


#: an age told: 我儿子今年八岁(了), 我今年35岁, "my son is eight (years old)", "I'm 35" — a fact of the being's age
#: (:data:`~.concepts` ``age``), asked back with 几岁 / 多大 / "how old"
_NUM_EN = (r"(?:\d{1,3}|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-](?:one|two|three|four|five|six|seven|"
           r"eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
           r"sixteen|seventeen|eighteen|nineteen|a\s+hundred)")
_ZH_AGE = lazyre.compile(r"^我(?:的|家的)?(?P<b>[^\s的今现已\d]{0,4}?)(?:的)?(?:今年|现在|已经)*(?P<v>\d{1,3}(?:周)?岁(?:半)?)(?:了|啦)?[。!！]*$")
_EN_AGE = lazyre.compile(r"^(?:my\s+(?P<b>[a-z]+(?:\s+[a-z]+)??)\s+(?:is|'s|turned|has\s+turned|just\s+turned)|i\s+am|i'm|i\s+turned)\s+(?:now\s+)?"
                         r"(?P<v>" + _NUM_EN + r"(?:\s+years?\s+old|\s+years?\s+of\s+age|\s+and\s+a\s+half)?)(?:\s+now)?[.!]*$")
_ZH_AGE_Q = lazyre.compile(r"^(?:你还?记得)?我(?:的|家的)?(?P<b>[^\s的今现]{0,4}?)(?:的)?(?:今年|现在)?(?:几岁|多大|多少岁|多大年纪|年龄多大|岁数多大)"
                           r"(?:了|啦)?(?:来着)?[?？吗呢。]*$")
_EN_AGE_Q = lazyre.compile(r"^(?:do\s+you\s+(?:remember|know)\s+)?how\s+old\s+(?:(?:is|'s)\s+my\s+(?P<b>[a-z]+(?:\s+[a-z]+)??)|am\s+i|i\s+am|my\s+(?P<b2>[a-z]+(?:\s+[a-z]+)??)\s+is)"
                           r"(?:\s+now)?\s*\??$")


def _age(t: str, zh: bool, *, asked: bool = False) -> tuple[str, str] | None:
    """(the age subject — 我儿子的年龄 / "son's age" / 我的年龄 / "age" —, the age as said) of an age told (or,
    ``asked``, asked: 我儿子几岁, "how old is my son": the value ``""``), None when ``t`` is none or the owner is no
    being of the speaker's."""
    m = (_ZH_AGE_Q if asked else _ZH_AGE).match(t) if zh else (_EN_AGE_Q if asked else _EN_AGE).match(t)
    if m is None:
        return None
    being = (m.group("b") or (m.groupdict().get("b2") or "")).strip()
    if being and not is_being(being):
        return None
    # "6 years old": the age is the number (said back "your daughter's age is 6")
    value = "" if asked else re.sub(r"\s+years?\s+(?:old|of\s+age)$", "", m.group("v"))
    if zh:
        return (f"我{being}的年龄" if being else "我的年龄"), value
    return (f"{being}'s age" if being else "age"), value


def _note(text: str, lang: str, stated: bool) -> MemoryRequest:
    """A note in the speaker's words, with its told clause; a correction when it names the old object ("…, not
    coffee") or says a change after a liked thing ("I like tea better now": the change words are not kept)."""
    old = _old_named(text)
    value, cut = _cut(text)
    change = "correct" if old else ""
    if lang == "en" and (m := _EN_CHANGE_TAIL.search(value)) and m.start() > 0 \
            and (c := told_clause(value[:m.start()])) is not None and (c.verb in ("like", "dislike") or c.verb in PLACE_VERBS):
        value, change = value[:m.start()].strip(_TRIM), "correct"
    return MemoryRequest("memory.remember", value[:40], value, "note", lang, cut, stated=stated, clause=told_clause(value),
                         change=change, old=old)


#: a passing state, not a fact about the person (DESIGN.md, MCP: what is kept is durable — names,
#: preferences, relations, dates): a time of now (今天, 刚才, today, right now), a change of state (the
#: perfective 了: 网断了, 坏了 — Li & Thompson 1981 §6), a degree word before a feeling (好累, 太忙), a state
#: word of a thing or a body (坏, 断, 卡, 累, 困; down, broken, tired, sick)
#: (not 现在 before a copula or a verb of change: "门禁密码现在是9999" states the fact's new value)
_ZH_NOW = r"(?:今天|今晚|今早|今儿|现在(?!是|改|换|变|为|已经改)|刚才|刚刚|这会儿|此刻|眼下|最近|这两天|这几天|一早)"
_ZH_STATE_WORDS = (r"(?:坏|断|卡|慢|累|困|饿|渴|冷|热|烦|忙|闷|晕|病|疼|痛|难受|不舒服|不行|不好使|不能用|用不了|连不上|上不了|"
                   r"没电|没网|没信号|掉线|死机|停电|停水|堵车|迟到|生气|开心|高兴|无聊|郁闷|紧张|着急)")
_ZH_TRANSIENT = lazyre.compile(_ZH_NOW + r"|(?:了|啦|着呢)[。!！~～]*$"
                               r"|(?:好|很|太|真|有点|有些|特别|非常|超|挺|好像)" + _ZH_STATE_WORDS
                               + r"|(?:^|[我他她它网机车是])(?:又|还)?" + _ZH_STATE_WORDS + r"(?:的|掉)?[。!！]*$")
#: (not "now" alone: "the gate code is now 9999" states the fact's new value)
_EN_NOW = r"(?:today|tonight|this\s+(?:morning|afternoon|evening|week)|right\s+now|at\s+the\s+moment|again|anymore)"
_EN_STATE_WORD = (r"(?:down|broken|dead|off|out|slow|stuck|busy|tired|sleepy|sick|ill|hungry|thirsty|bored|angry|upset|"
                  r"sad|happy|late|cold|hot|full|empty|lost|missing|gone|crashed|frozen|offline|not\s+working|"
                  r"acting\s+up|playing\s+up|on\s+the\s+blink|damaged|disconnected|jammed|blocked|flooded|locked\s+out|"
                  r"exhausted|stressed|worried|annoyed|running\s+late|freezing|dying|failing|leaking|overheating|"
                  r"crashing|freezing|rebooting|restarting|beeping)")
_EN_TRANSIENT = lazyre.compile(r"\b" + _EN_NOW + r"\b"
                               r"|^(?:i'?m|i\s+am|i\s+feel|i'?m\s+feeling|i\s+was|i\s+got|feeling)\s+(?:so\s+|very\s+|really\s+|a\s+bit\s+|kind\s+of\s+|too\s+)*"
                               + _EN_STATE_WORD + r"\b"
                               r"|\b(?:is|are|was|were|'s|keeps?|went|has\s+gone|have\s+gone)\s+(?:not\s+|so\s+|very\s+|really\s+|all\s+|completely\s+)*"
                               + _EN_STATE_WORD + r"(?:\s+(?:at|in|on|since|for|from|all|again|today|now)\b.*)?[.!]*$")
#: what a person says they like or not: a durable preference ("我喜欢喝茶", "I like green tea", "I don't eat
#: pork"), kept as a note in their words; a feeling of the moment (今天好累) is not one (:func:`transient`)
_ZH_LIKES = lazyre.compile(r"^我(?:最|很|特别|比较|非常|挺|一直|从来)?(?:不|不太|从不)?(?:喜欢|爱|讨厌|偏爱|习惯|吃素|过敏|爱吃|爱喝|爱看|爱听)"
                           r"(?![你您他她它这那])[^？?吗呢]{0,20}$|^我对[^？?]{1,10}过敏[。!！]*$|^我(?:不吃|不喝|吃素|不能吃|不能喝)[^？?吗呢]{0,12}$")
_EN_LIKES = lazyre.compile(r"^i\s+(?:really\s+|do\s+not\s+|don'?t\s+|never\s+|always\s+|usually\s+)?"
                           r"(?:like|love|prefer|hate|dislike|enjoy|eat|drink)\s+(?!you\b|it\b|that\b|this\b|to\s+(?:know|ask|go))[^?]{1,60}$"
                           r"|^i'?m\s+(?:a\s+)?(?:vegetarian|vegan|allergic\s+to\s+[^?]+|lactose\s+intolerant)[.!]*$")


def transient(text: str) -> bool:
    """``text`` (normalised or as typed) tells a passing state — of the moment, of a thing now broken, of
    a feeling — not a durable fact about the person: 我家网断了, 今天好累, 电脑又卡了, "my wifi is down at home",
    "I'm tired", "the printer is broken today" are not kept; 我老婆叫王芳, 我喜欢喝茶, "my wife's name is
    Anna", "my birthday is May 3" are.

    >>> transient("今天好累"), transient("my wifi is down at home"), transient("我喜欢喝茶")
    (True, True, False)
    """
    t = without_discourse(" ".join(text.strip().lower().split()))
    if not t:
        return False
    if re.search(r"[\u4e00-\u9fff]", t):
        return bool(_ZH_TRANSIENT.search(t.rstrip("。.!！~～")))
    return bool(_EN_TRANSIENT.search(t.rstrip(".!")))


def _cut(value: str) -> tuple[str, bool]:
    value = _DISCOURSE.sub("", value.strip(_TRIM)).strip(_TRIM)
    value = _NOT_OLD.sub("", value).strip(_TRIM) or value  # "Anne, not Anna": the new value
    if len(value) > MAX_VALUE_CHARS:
        return value[:MAX_VALUE_CHARS], True
    return value, False


def _remember_zh(body: str) -> MemoryRequest:
    body = body.strip(_TRIM)
    if age := _age(body, True):  # 我儿子今年八岁: his age
        return MemoryRequest("memory.remember", age[0], _cut(age[1])[0], "is", "zh")
    if m := re.match(r"^我(?:的名字)?叫(?P<v>.+)$", body):  # 我叫X: X is my name
        value, cut = _cut(m.group("v"))
        return MemoryRequest("memory.remember", "名字", value, "is", "zh", cut)
    m = _ZH_REL.search(body)
    if m is not None and (c := told_clause(body)) is not None and c.whose == "me":
        m = None  # 我住在鼓楼区, 我在国贸上班: what the speaker does, kept in their words (a note), not "我住" at a place
    if m is None or m.start() == 0:
        return _note(body, "zh", False)
    subject = body[:m.start()]
    if m.group(1) == "叫":  # 我老婆叫小芳: what a being or a thing is called is its name (我老婆的名字是小芳)
        subject = named(subject.strip(_TRIM), "zh")
    relation = "is" if m.group(1) in ("是", "叫", "为") else "at"
    value, cut = _cut(body[m.start():] if relation == "at" else body[m.end():])
    subject = re.sub(r"(?:其实|其實)$", "", subject.strip(_TRIM))  # 我的车牌号其实是…: 其实 says how, not what
    return MemoryRequest("memory.remember", subject.strip(_TRIM), value, relation, "zh", cut)


def _remember_en(body: str) -> MemoryRequest:
    body = body.strip(_TRIM)
    if age := _age(body, False):  # "my son is eight": his age
        return MemoryRequest("memory.remember", age[0], _cut(age[1])[0], "is", "en")
    if m := re.match(r"^(?:i'm called|i am called|call me|my name's)\s+(?P<v>.+)$", body):
        value, cut = _cut(m.group("v"))
        return MemoryRequest("memory.remember", "name", value, "is", "en", cut)
    if m := re.match(r"^i\s+parked\s+(?:my car\s+|the car\s+|it\s+)?(?P<v>(?:in|on|at|under|behind|near|next to|outside)\s+.+)$", body):
        value, cut = _cut(m.group("v"))
        return MemoryRequest("memory.remember", "car", value, "at", "en", cut)
    for pat, relation in ((_EN_PUT, "at"), (_EN_IS, "is")):
        m = pat.match(body)
        if m:
            value, cut = _cut(m.group("v"))
            if relation == "is" and re.match(r"^(?:in|on|under|at|behind|inside)\s", value):
                relation = "at"
            subject = m.group("s").strip(_TRIM)
            if relation == "is" and (c := re.match(r"^(?:called|named)\s+(?P<v>.+)$", value)):
                subject, value = named(subject, "en"), c.group("v")  # "my son is called Tom": his name
            return MemoryRequest("memory.remember", subject, value, relation, "en", cut)
    return _note(body, "en", False)


def read_request(text: str) -> MemoryRequest | None:
    """The explicit memory request in ``text`` (already normalised), or None.

    >>> read_request("记住我的车牌号是京A12345").subject
    '我的车牌号'
    """
    req = _read(text.strip().lower())
    if req is not None and req.value:
        # the grammar reads lower case; the value is kept as it was written (京A12345, not 京a12345)
        orig = text.strip()
        i = orig.lower().find(req.value)
        if i >= 0 and len(orig.lower()) == len(orig):
            req = with_name(replace(req, value=orig[i:i + len(req.value)]))
    return req


#: an English proper name as written: capitalised words, an optional title ("Anna", "Dr Lin", "Mary Ann")
_PROPER_NAME = lazyre.compile(r"^(?:(?:Dr|Mr|Mrs|Ms|Miss|Prof)\.?\s+)?[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+){0,2}$")


def with_name(req: MemoryRequest) -> MemoryRequest:
    """A being said to *be* a proper name is that name ("my wife is Anna" → wife's name is Anna; "my
    dentist is Dr Lin"): English capitalises proper nouns, so the value as written tells a name from a
    description ("my wife is a teacher" stays what she is). ``req.value`` must be as written."""
    if req.intent == "memory.remember" and req.relation == "is" and req.lang == "en" and is_being(req.subject) \
            and _PROPER_NAME.match(req.value.strip(_TRIM)):
        return replace(req, subject=named(req.subject, "en"))
    return req


def _read(t: str) -> MemoryRequest | None:
    t = without_discourse(t)
    if not t:
        return None
    zh = re.search(r"[\u4e00-\u9fff]", t) is not None
    if m := (_ZH_CORRECTING if zh else _EN_CORRECTING).match(t):
        # 不对，我喜欢喝红茶 / "no, I like tea": a told clause corrected — memory's only when what follows is one
        # (不对，是李工 corrects the last action, :mod:`hermesd.dialogue.lastaction`)
        inner = _read(t[m.end():])
        return replace(inner, change="correct") if inner is not None and inner.intent == "memory.remember" else None
    if zh:
        # "记下了，谢谢" / "记好了，再帮我找…" (no 请/帮我 before it) says the speaker noted what was
        # said — an acknowledgement, not a request to remember the rest
        if (m := _ZH_REMEMBER.match(t)) and not (m.group("done") and not m.group("ask")):
            return _remember_zh(m.group("body"))
        if m := _ZH_FORGET.match(t) or _ZH_STOP_KEEPING.match(t):
            return _forget(m.group("s"), "zh")
        if (m := _ZH_SECRET_RECALL.match(t)) and not m.group("s").startswith(("我", "你")):
            return MemoryRequest("memory.recall", m.group("s"), lang="zh", stated=True)
        if age := _age(t, True, asked=True):  # 我儿子几岁, 我多大了
            return MemoryRequest("memory.recall", age[0], lang="zh")
        for pat in _ZH_RECALL:
            if (m := pat.match(t)) and (pat is not _ZH_RECALL[1] or len(m.group("s")) > 1 or is_being(m.group("s"))):
                subject = "名字" if m.group("s") == "叫" else m.group("s").strip(_TRIM)
                if t[m.end("s"):].startswith("叫"):  # 我老婆叫什么: asks her name
                    subject = named(subject, "zh")
                at = "at" in pat.groupindex and m.group("at") is not None
                return MemoryRequest("memory.recall", subject, relation="at" if at else "is", lang="zh")
        if m := _ZH_RECALL_THEIRS.match(t):  # 我女儿的生日 is the speaker's own: a recall like 我的X
            subject = m.group("s").strip(_TRIM)
            if t[m.end("s"):].startswith("叫"):
                subject = named(subject, "zh")
            return MemoryRequest("memory.recall", subject, lang="zh", stated=not subject.startswith("我"))
        if asked := asked_clause(t):  # 我喜欢喝什么, 你记得我喜欢什么吗: a clause told, asked back
            return MemoryRequest("memory.recall", asked[1], relation=CLAUSE, lang="zh", clause=asked[0])
        for pat in _ZH_ABOUT:
            if m := pat.match(t):
                return MemoryRequest("memory.recall", (m.group("s") or "").strip(_TRIM), relation=ABOUT, lang="zh")
        if said := _told(t, True):
            return said
        if (m := _ZH_CALLED.match(t)) and is_being(m.group("s")) and not _ASKS.search(_cut(m.group("v"))[0]):
            # 我老婆叫王芳 / 其实我老婆叫安娜，不是安妮: a being is called its name (a correction names the old one after)
            value, cut = _cut(m.group("v"))
            return MemoryRequest("memory.remember", named(m.group("s").strip(_TRIM), "zh"), value, "is", "zh", cut,
                                 stated=True)
        if (m := _ZH_STATED.match(t)) and not _ASKS.search(_cut(m.group("v"))[0]) and not _FRAMING.search(m.group("s")) \
                and not transient(t):  # 我的网是坏的: a state of the moment, no fact
            value, cut = _cut(m.group("v"))
            if value:
                return MemoryRequest("memory.remember", m.group("s").strip(_TRIM), value, "is", "zh", cut, stated=True)
        return None
    if m := _EN_REMEMBER.match(t):
        return _remember_en(m.group("body"))
    if m := _EN_FORGET.match(t):
        return _forget(m.group("s"), "en")
    if age := _age(t, False, asked=True):  # "how old is my son"
        return MemoryRequest("memory.recall", age[0], lang="en")
    for pat in _EN_ABOUT:
        if m := pat.match(t):
            return MemoryRequest("memory.recall", (m.group("s") or "").strip(_TRIM), relation=ABOUT, lang="en")
    # "what do I like to drink", "do I like tea": a clause told, asked back (before "what is my X": "what is my
    # aunt allergic to")
    if asked := asked_clause(t):
        return MemoryRequest("memory.recall", asked[1], relation=CLAUSE, lang="en", clause=asked[0])
    for pat in _EN_RECALL:
        if m := pat.match(t):
            subject = "car" if m.group("s") == "park" else re.sub(r"\s+again$", "", m.group("s").strip(_TRIM))
            if c := re.match(r"^(?P<s>.+?)\s+(?:called|named)$", subject):  # "what's my son called": his name
                subject = named(c.group("s"), "en")
            at = t.startswith("where") or " where " in t
            return MemoryRequest("memory.recall", subject, relation="at" if at else "is", lang="en")
    if m := _EN_RECALL_THE.match(t):
        subject = re.sub(r"\s+again$", "", m.group("s").strip(_TRIM))
        if c := re.match(r"^name\s+of\s+(?:my\s+)?(?P<s>.+)$", subject):  # "the name of my wife": her name
            return MemoryRequest("memory.recall", named(c.group("s"), "en"), lang="en")
        return MemoryRequest("memory.recall", subject, lang="en", stated=True)
    if said := _told(t, False):
        return said
    if not _EN_QUESTION_START.match(t) and (m := _EN_STATED.match(t) or _EN_CHANGE.match(t)) \
            and not _ASKS.search(_cut(m.group("v"))[0]) and not _FRAMING.search(m.group("s")) and not transient(t):
        value, cut = _cut(m.group("v"))
        subject = re.sub(r"^(?:my|our|the)\s+", "", m.group("s")).strip(_TRIM)
        if (c := re.match(r"^(?:called|named)\s+(?P<v>.+)$", value)) and is_being(subject):
            subject, value = named(subject, "en"), c.group("v")  # "my son is called Leo": his name
        relation = "at" if re.match(r"^(?:in|on|under|at|behind|inside)\s", value) else "is"
        if value and subject:
            return MemoryRequest("memory.remember", subject, value, relation, "en", cut, stated=True)
    return None


def _told(t: str, zh: bool) -> MemoryRequest | None:
    """What the speaker tells of themselves (or of one of theirs) without a memory verb, kept as a fact:

    - an age (我儿子今年八岁, "my son is eight"): the being's age, a fact like any other;
    - a told clause no longer true (我现在不喜欢喝绿茶了, "I don't like coffee anymore", "I no longer live in Leeds"):
      a negative preference is kept as one (it replaces the positive, :func:`.clauses.contradicts`), any other is
      withdrawn (a forget, ``change="retract"``);
    - a preference (我喜欢喝茶, "I hate coriander", "I don't eat pork") — not an opinion of a circumstance or a
      person ("I hate Mondays", 我讨厌下雨天, "I love my job": :func:`.clauses.opinion`) — or where one lives, works,
      studies or is from (我住在杭州, "I live in Leeds", 我在国贸上班): a note in the speaker's words; said with a word
      of change (我现在更喜欢喝红茶了, "I like tea better now, not coffee") it corrects the one of its topic.

    A passing state (:func:`transient`: 今天好累) is none of these."""
    lang = "zh" if zh else "en"
    if age := _age(t, zh):
        value, cut = _cut(age[1])
        return MemoryRequest("memory.remember", age[0], value, "is", lang, cut)
    if changed := _no_longer(t, zh):
        neg, pos = told_clause(changed[0]), told_clause(changed[1])
        if pos is not None and pos.verb not in POSITIVE:
            if neg is not None and neg.verb in POSITIVE:
                if opinion(neg):
                    return None
                return replace(_note(changed[0], lang, True), change="correct")
            return MemoryRequest("memory.forget", changed[1], lang=lang, stated=True, clause=pos, change="retract")
    if zh and (m := _ZH_CHANGE.match(t)) and (m.group("now") or m.group("more")):
        plain = m.group("who") + m.group("rest")
        c = told_clause(plain)
        if c is not None and (c.verb in ("like", "dislike") or c.verb in PLACE_VERBS) and not opinion(c) \
                and not _ASKS.search(plain):
            return replace(_note(plain, lang, True), change="correct")
    if transient(t):
        return None
    likes = (_ZH_LIKES if zh else _EN_LIKES).match(t)
    c = told_clause(_cut(t)[0])
    if c is not None and c.verb in ("like", "dislike") and opinion(c):
        return None  # "I hate Mondays": an opinion, not a preference
    # a preference of the speaker's, or of a being of theirs ("my wife loves roses", 我老婆不吃辣); where one lives or works
    of_theirs = c is not None and c.whose != "me" and (c.verb in ("like", "dislike", "not_eat", "not_drink", "allergic"))
    if likes or ((of_theirs or c is not None and c.verb in PLACE_VERBS) and c.obj.strip() and not _ASKS.search(t)):
        return _note(t, lang, True)
    return None


#: the object of a delete that is a reminder or an alarm ("删除取快递的提醒", "delete the dentist reminder"):
#: cancelling it is the reminders' business, never forgetting a memory
_A_REMINDER = lazyre.compile(r"(?:提醒|闹钟|鬧鐘)(?:事项|事項)?$|\b(?:reminders?|alarms?)$", re.IGNORECASE)


def _forget(subject: str, lang: str) -> MemoryRequest | None:
    s = subject.strip(_TRIM)
    if _A_REMINDER.search(s):
        return None
    if lang == "en":
        s = re.sub(r"^(?:that|how|about\s+how)\s+", "", s)  # "forget that I like coffee": the clause
    if not s:
        return None
    if s in _ALL_WORDS or s.removesuffix(" of it") in _ALL_WORDS:
        return MemoryRequest("memory.forget", ALL, lang=lang)
    if (_ZH_SENT if lang == "zh" else _EN_SENT).match(s):
        return MemoryRequest("memory.forget", SENT, lang=lang)
    if (_ZH_HISTORY if lang == "zh" else _EN_HISTORY).match(s):
        return MemoryRequest("memory.forget", HISTORY, lang=lang)
    if (c := told_clause(s)) is not None and c.obj.strip():  # 忘掉我喜欢喝咖啡, "forget that I like coffee"
        return MemoryRequest("memory.forget", s, lang=lang, clause=c)
    return MemoryRequest("memory.forget", s, lang=lang)


def _bigrams(s: str) -> set[str]:
    return {s[i:i + 2] for i in range(len(s) - 1)} if len(s) > 1 else {s}


def dice(a: str, b: str) -> float:
    """Dice coefficient of the character bigrams of two normal subjects (0..1); containment counts 1."""
    if not a or not b:
        return 0.0
    if a in b or b in a:
        return 1.0
    x, y = _bigrams(a), _bigrams(b)
    return 2 * len(x & y) / (len(x) + len(y))


# -- said back: first person → second person: one function for every echo (:mod:`hermesd.pronouns`)
second_person = pronouns.second_person
