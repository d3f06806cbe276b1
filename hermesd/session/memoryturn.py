"""Explicit memory on the turn path: remember, recall and forget a fact about the caller.

The grammar is :mod:`hermesd.memory.facts` (every pack gets it). A fact is a
memory slot of the caller — key ``(uid, "user:<uid>", "fact:<subject>")``, class
``person`` — so it outlives the session and the daemon: it is staged in L1 at
once and written to L2 in the turn's own transaction, which is then durable
(:func:`.commit.commit_turn`). A second fact on the same subject replaces the
first; its revision and the value it replaced are in the audit line. A value
that is itself a secret (the subject names a password, PIN, token …, and the
relation is "is") is redacted by :func:`hermesd.logging.redact` before it is
stored. "Forget" asks once (a :class:`~hermesd.dialogue.questions.Confirm` card).

What a user may erase is their own, and the question says exactly what goes, counted when it is
asked (:func:`erasure_list`); the erasure then takes those rows and nothing stored after the
question, with its audit row in the same transaction:

- one fact ("忘掉我的车位号");
- their send history ("删除我的发送记录", "forget what I sent": the events of ``send_document``)
  or their whole history ("删除我的操作记录", "clear my history": every event, the record of what
  was done) — the facts stay;
- everything ("忘掉所有", "forget everything"): facts and notes, the other slots kept from their
  conversations, and the whole history.

One fact has one subject whatever the words and the language it was said in: a subject made of
known words is a set of concepts (:mod:`hermesd.memory.concepts`: 我老婆的名字 = "wife's name"), and a
statement with the concepts of a stored fact updates that fact (its old value said in the reply).

A note told with its clause (a preference, where one lives) replaces the told notes it contradicts ("I don't like
coffee anymore" ← "I like coffee") and, said as a correction (不对，我喜欢喝红茶, "I like tea better now, not coffee"),
the newest of its topic — this session's first (:func:`~hermesd.memory.clauses.same_topic`); the reply says what it
replaced. A place said to be no longer true ("I don't live in Leeds anymore") is erased unasked; "forget that I like
coffee" / 别记着…了 asks, then erases the note of that clause.

Recall ranks the caller's facts by ``match(subject, asked) · e^(−λ·hours)`` (the Memory Control
Protocol's time decay) — the match is :func:`~hermesd.memory.concepts.answers` when both are made of
known words, bigram Dice else — and answers with the best one, saying when it was changed if it was,
or says plainly that nothing was said. A clause asked back (我喜欢喝什么, "what do I like to drink", "do I
like tea": :mod:`hermesd.memory.clauses`) is answered with every told note or fact that fits it, in the
caller's words said back ("你告诉过我：你喜欢喝茶。"), or that it was not told. A stored date told in the other
language is said in the reply's (五月三号 → "3 May": :func:`value_in_language`). "What do you remember about me" / "what did I tell you about my
wife" lists the facts, newest first. Fields in ``memory.hidden_fields[role]`` (``data.value``) are
never said to that role.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING, Any

from .. import lazyre, pronouns
from ..dialogue import catalogue
from ..dialogue.questions import Confirm
from ..logging import redact
from ..memory.concepts import answers, is_being, of_kin, render
from ..memory.clauses import Clause, answers_clause, contradicts, same_clause, same_topic, told_clause
from ..memory.facts import (ABOUT, ALL, CLAUSE, HISTORY, MAX_VALUE_CHARS, SEND_ACTION, SENT, MemoryRequest, concepts, dice,
                           normal_subject, read_request, transient, with_name, without_discourse)
from ..memory.hiding import hide
from ..nlu.normalize import normalize
from ..nlu.temporal import parse_times
from .machine import Event
from .record import Session

if TYPE_CHECKING:
    from .controller import Controller
    from .pipeline import Part

__all__ = ["MemoryTurns", "erasure_list", "fact_anchor", "said_back", "value_in_language", "where_clause"]

#: a stored subject must overlap the asked one at least this much (bigram Dice) to answer with it
MIN_MATCH = 0.5
FACT_PREFIX = "fact:"
#: most facts said in one list ("what do you remember about me"); the rest are counted
LIST_MAX = 5


def fact_anchor(subject: str) -> str:
    """The slot anchor of a subject: ``fact:<normal subject>``."""
    return FACT_PREFIX + normal_subject(subject)


def _as_written(n: Any, value: str) -> str:
    """``value`` (found in the normalised, lower-cased text) as the user wrote it (京A12345, not 京a12345)."""
    i = n.text.rfind(value)
    if i < 0 or not value:
        return value
    return n.original[n.starts[i]:n.ends[i + len(value) - 1]]


def _n(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def erasure_list(counts: dict[str, int], scope: str, lang: str) -> str:
    """What an erasure takes, in words, from the counts taken when the user is asked.

    :param counts: ``facts`` (facts and notes), ``other`` (other slots), ``events`` (history rows).
    :param scope: :data:`ALL`, :data:`SENT` or :data:`HISTORY` (how the history is named).
    :return: e.g. "你让我记住的2件事、5条做过的事的记录（比如发过的文件）和1条对话中记下的其他内容" /
        "the 2 things you asked me to remember, the record of 5 things done (such as documents sent)
        and 1 other note from our conversations"; empty parts are left out.
    """
    f, o, e = counts.get("facts", 0), counts.get("other", 0), counts.get("events", 0)
    parts: list[str] = []
    if lang == "zh":
        if f:
            parts.append(f"你让我记住的{f}件事")
        if e:
            parts.append(f"{e}条发送记录（发过哪些文件、发给了谁）" if scope == SENT else f"{e}条做过的事的记录（比如发过的文件）")
        if o:
            parts.append(f"{o}条对话中记下的其他内容")
        return parts[0] if len(parts) == 1 else "、".join(parts[:-1]) + "和" + parts[-1] if parts else ""
    if f:
        parts.append(f"the {_n(f, 'thing', 'things')} you asked me to remember")
    if e:
        parts.append(f"the record of {_n(e, 'document', 'documents')} sent" if scope == SENT
                     else f"the record of {_n(e, 'thing', 'things')} done (such as documents sent)")
    if o:
        parts.append(f"{_n(o, 'other note', 'other notes')} from our conversations")
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1] if parts else ""


_VALUE_TOKEN = lazyre.compile(r"^[\w#@.+:/-]*\d[\w#@.+:/-]*$")


#: entity types whose value is a literal (never a name looked up): said as a fact's value, they are the value
_LITERAL_TYPES = frozenset({"datetime", "email", "phone", "money", "number"})


def _covering(value: str, parsed: Any) -> list[Any]:
    """The entities of ``parsed`` said as ``value`` (one holds the other, and is at least half of it)."""
    v = normalize(value).text.strip(" .。!！")
    out = []
    for e in getattr(parsed, "entities", ()) or ():
        said = normalize(e.text).text.strip()
        if v and said and (said in v or v in said) and 2 * min(len(v), len(said)) >= max(len(v), len(said)):
            out.append(e)
    return out


def _a_value(value: str, parsed: Any) -> bool:
    """``value`` is a value to keep, not a state: one token with a digit (4721, tiger77, B2-117,
    京A12345) or a literal the NLU read covering it — a date or time (5月3号, May 3), an email
    address, a phone number, an amount."""
    if _VALUE_TOKEN.match(normalize(value).text.strip(" .。!！")):
        return True
    return any(e.type in _LITERAL_TYPES for e in _covering(value, parsed))


def _owned(subject: str) -> tuple[str, str, str]:
    """(owner, mark, thing) of a subject: 王会计的生日 → (王会计, 的, 生日), "wife's name" → (wife, 's, name);
    ("", "", subject) when it names no owner."""
    zh = subject.rpartition("的")
    if zh[1]:
        return zh
    en = re.split(r"(?:'s|’s|s')\s+", subject, maxsplit=1)
    if len(en) == 2 and en[0] and en[1]:
        return en[0], "'s", en[1]
    return "", "", subject


def _subject_match(asked: str, stored: str) -> float:
    """How well a stored subject answers an asked one (0..1): bigram Dice, and when both name an
    owner and a thing of theirs (王会计的生日, 王会计的电话), the smaller of the two Dice values —
    the same owner's other attribute is not the one asked for; an owner named on one side only
    must be in the other (张伟的电话 is not the speaker's 电话)."""
    if asked == stored:
        return 1.0
    a, b = _owned(asked), _owned(stored)
    if a[1] and b[1] and a[0] and b[0]:
        return min(dice(a[0], b[0]), dice(a[2], b[2]))
    # one names an owner, the other not: the owner must be in the other too (女儿的生日 ~ 女儿生日),
    # else it is somebody else's (张伟的电话 is not the speaker's own 电话)
    for x, y in ((a, stored), (b, asked)):
        if x[1] and x[0] and x[0] not in y:
            return 0.0
    return dice(asked, stored)


#: a state said of a thing, not a fact about it: English participles and state words ("my card is
#: damaged", "my phone is lost", "the light is on", "my card is not working")
_EN_STATE = lazyre.compile(r"^(?:not\s+|no\s+longer\s+|too\s+|so\s+|very\s+|still\s+|all\s+|currently\s+|now\s+|really\s+|"
                           r"just\s+|always\s+|getting\s+|being\s+|to\s+be\s+\w+\s+)*(?:\w+(?:ed|en|ing)|lost|on|off|down|up|"
                           r"full|empty|slow|wrong|due|late|gone|stuck|dead|missing|broken|low|high|out|over|done|yes|no|"
                           r"ok|okay|fine|good|bad|away|back|open|closed|busy|free|sick|ill|here|there)$")
#: a judgement of quality or a feeling, or an idiom of one ("on fire", "under the weather"), opening the value
#: ("my memory is terrible", "my car is great these days", "our team is on fire this season",
#: "my boss is the worst"), alone or with a word of time after it — not before a noun ("the great wall" is kept)
_EN_JUDGED = lazyre.compile(r"^(?:not\s+|so\s+|very\s+|really\s+|just\s+|pretty\s+|quite\s+|too\s+|absolutely\s+|"
                            r"totally\s+|kind\s+of\s+|a\s+bit\s+|the\s+)*"
                            r"(?:terrible|awful|horrible|horrendous|dreadful|atrocious|appalling|lousy|rubbish|useless|hopeless|"
                            r"pathetic|poor|weak|worse|worst|great|amazing|awesome|excellent|fantastic|wonderful|brilliant|"
                            r"terrific|superb|perfect|better|best|nice|lovely|cool|incredible|unbelievable|insane|crazy|weird|"
                            r"strange|annoying|boring|scary|sad|happy|angry|upset|tired|exhausted|shocking|embarrassing|"
                            r"failing|fading|slipping|on\s+fire|on\s+a\s+roll|in\s+trouble|over\s+the\s+moon|under\s+the\s+weather)"
                            r"(?:\s+(?:these\s+days|lately|now|today|tonight|again|recently|at\s+the\s+moment|right\s+now|already|"
                            r"as\s+always|as\s+usual|ever|of\s+all|in\s+the\s+world|this\s+(?:season|year|month|week|morning|evening)))*$")
#: longest value kept from a statement that is not a value (a date, a code): a short noun phrase
STATED_MAX_WORDS = 4
STATED_MAX_CHARS = 10


def _a_state(value: str) -> bool:
    """``value`` says how a thing is, or tells more than a noun phrase: not a fact to keep.

    A Chinese value ending in 了 is a change of state (坏了, 丢了, 满了: the aspect particle, Li &
    Thompson 1981 §6); a clause (a comma, "because", "so", "please") is a request or a story; an
    English participle or state word ("damaged", "lost", "on") is a state, and a judgement or a feeling
    ("terrible", "so great", "the worst": "my memory is terrible") an opinion. What is left is a short
    noun phrase ("白色的", "the blue one", "Brad")."""
    v = normalize(value).text.strip(" .。!！")
    if re.search(r"[,，;；、]|\b(?:because|so|and|but|please|can|could|help|need|want|i|it)\b", v):
        return True
    if re.search(r"[\u4e00-\u9fff]", v):
        return v.endswith(("了", "啦", "着")) or len(v) > STATED_MAX_CHARS
    return len(v.split()) > STATED_MAX_WORDS or bool(_EN_STATE.match(v) or _EN_JUDGED.match(v))


def _user_key(uid: int) -> str:
    return f"user:{uid}"


def _owner(subject: str, lang: str) -> str:
    """The subject as the user's, said back: 我家的门禁密码 → 你家的门禁密码, locker code → your locker code."""
    s = subject.strip()
    if lang == "zh":
        if s.startswith("我"):
            return "你" + s[1:]
        if is_being(s):  # kin take the pronoun without 的 (你姐姐, 你老婆)
            return "你" + s
        if "的" in s[1:]:  # someone else's (王会计的生日): said as it was; one of the user's (女儿的名字): 你女儿的名字
            return "你" + s if is_being(s.partition("的")[0]) else s
        return s if s.startswith("你") else "你的" + s
    for mine in ("my ", "the ", "our "):
        if s.lower().startswith(mine):
            s = s[len(mine):]
    return "your " + s


def _said(lang: str, *subjects: str) -> str:
    """A subject said back in the reply's language: the first of ``subjects`` said in that language (the
    one asked, the one told before), else the first's concepts in that language (老婆的名字 → "your
    spouse's name"), else the first as it was said (a word the lexicon lacks is not translated)."""
    subjects = tuple(x for x in subjects if x) or ("",)
    for x in subjects:
        if bool(re.search(r"[\u4e00-\u9fff]", x)) == (lang == "zh"):
            return _owner(x, lang)
    c = concepts(subjects[0])
    return render(c, lang) if c else _owner(subjects[0], lang)


def _inside(said: str) -> str:
    """Words said back inside a sentence: "You like coffee" → "you like coffee" (a note opens with the user's "I")."""
    return said[0].lower() + said[1:] if said.startswith(("You ", "Your ", "You're ")) else said


def where_clause(who: str) -> str:
    """"where your car is" / "where your keys are": a plural noun (ends in s, not ss) takes "are"."""
    return f"where {who} {'are' if re.search(r'[^s]s$', who) else 'is'}"


def said_back(value: str) -> str:
    """A stored value or note in the user's words, said back to them (:func:`hermesd.pronouns.said_back`,
    Chinese and English pronouns both: a value may mix the languages)."""
    return pronouns.said_back(value)


_EN_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
              "November", "December")
#: a value that names a month (五月, 5月, May, Dec): a calendar date, whatever day it is said on (明天 is not one)
_NAMES_MONTH = lazyre.compile(r"月|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b", re.I)
_SAYS_YEAR = lazyre.compile(r"年|\b\d{4}\b")


def value_in_language(value: str, lang: str, ref: datetime, zone: Any) -> str:
    """A stored value said in the reply's language: a calendar date told in the other language (五月三号 in an
    English reply, "May 3" in a Chinese one) is said as the reply's ("3 May", 5月3日; its year when one was
    said), read by the time NLU (:func:`hermesd.nlu.temporal.parse_times`) — only when one day-grain date
    covers the whole value and it names its month (明天, 下周三 are relative: said as told). Any other value,
    and the stored text itself, stays as it was told.

    :param ref: the reference instant (aware) and ``zone`` the IANA zone of the session: a yearless date is
        read in ``ref``'s year, which is not said.

    >>> from zoneinfo import ZoneInfo
    >>> value_in_language("五月三号", "en", datetime(2026, 12, 3, tzinfo=timezone.utc), ZoneInfo("UTC"))
    '3 May'
    """
    v = re.sub(r"^the\s+", "", value.strip().rstrip("。.!！"), flags=re.I)
    if not v or bool(re.search(r"[\u4e00-\u9fff]", v)) == (lang == "zh") or not _NAMES_MONTH.search(v):
        return value
    try:
        found = parse_times(v, ref, zone)
    except Exception:  # a value the time NLU cannot read is said as told
        return value
    if len(found) != 1 or found[0].kind != "date" or found[0].grain != "day" or not isinstance(found[0].start, date) \
            or len(found[0].text.strip()) < len(v) - 1:
        return value
    d, year = found[0].start, _SAYS_YEAR.search(v) is not None
    if lang == "zh":
        return f"{d.year}年{d.month}月{d.day}日" if year else f"{d.month}月{d.day}日"
    return f"{d.day} {_EN_MONTHS[d.month - 1]}" + (f" {d.year}" if year else "")


def _rel(relation: str, lang: str) -> str:
    if lang == "zh":
        return "是" if relation == "is" else ""
    return " is "


class MemoryTurns:
    """Carries out explicit memory requests for the controller ``c``."""

    def __init__(self, c: "Controller") -> None:
        self.c = c

    async def read(self, s: Session, text: str, parsed: Any) -> MemoryRequest | None:
        """The memory request of an utterance, or None. Remember and forget verbs are always memory;
        a recall question is memory when a stored fact answers it or no pack intent claims it
        ("what's my balance" stays the bank pack's unless the user told me a balance)."""
        if not text:
            return None
        n = normalize(text)
        req = read_request(n.text)
        if req is not None and req.value:
            req = with_name(replace(req, value=_as_written(n, req.value)))
        if req is not None and req.relation == ABOUT:
            return req  # "what do you remember about me": only memory knows
        if req is not None and req.stated:
            return await self._stated(s, req, n.text, parsed)
        if req is None or req.intent != "memory.recall" or parsed is None:
            return req
        if req.relation == CLAUSE:
            # 我喜欢喝什么, "where do I work": memory's unless a pack's intent claims it and nothing told answers it
            if parsed.out_of_scope or parsed.intent is None or not self._pack_claims(parsed.intent, req.subject):
                return req
            return req if await self._told_clauses(s, req) else None
        if parsed.out_of_scope or parsed.intent is None or not self._pack_claims(parsed.intent, req.subject) \
                or of_kin(req.subject):  # "my father's phone number": no directory knows the speaker's family
            return req
        return req if await self._best(s, req.subject) is not None else None

    async def _stated(self, s: Session, req: MemoryRequest, text: str, parsed: Any) -> MemoryRequest | None:
        """A fact said without a memory verb, or "what is the X": memory's, or a pack's request.

        - "what is the gate code" is answered from memory only when a fact about it is stored;
        - a statement is kept when its value is a value — a date ("5月3号", "May 3") or a code, a
          number, a name said as one token with a digit ("4721", "tiger77", "B2-117") — or, said of
          the speaker's own things ("我的车是白色的", "my car is the blue one"), when no pack intent
          understands it. "My disk is full" and "the network is down" stay the device pack's."""
        if req.intent == "memory.recall":
            if await self._best(s, req.subject) is not None:
                return req
            # nothing stored: "what is the X" is any pack's question ("what is the address"); someone's
            # thing (王会计的生日) is memory's when nothing else understands it, or when the pack's
            # intent lists its words and none is in the question (生日 is not the directory's) — a
            # pack that lists none (a generated one) owns what it parsed ("人民大会堂的电话")
            # — the same in English: "what is the gate code" is no network check (no word of it is the
            # network's); said out of scope ("what is the weather") it stays out of scope in English
            if parsed is None or parsed.out_of_scope or parsed.intent is None:
                return req if req.lang == "zh" else None
            spec = next((x for x in self.c.nlu.engine.specs if x.name == parsed.intent), None)
            words = [k for k in (spec.keywords if spec is not None else ()) if k]
            return req if words and not self._pack_claims(parsed.intent, text) else None
        if req.intent == "memory.forget":  # "I don't live in Leeds anymore": a told clause withdrawn, memory's
            return req if req.clause is not None else None
        if transient(text) and not req.change:
            return None  # "my wifi is down at home", 我的网是坏的: a passing state, not a fact to keep
        own = without_discourse(text).startswith(("我", "my ", "our "))
        if req.relation == "note":  # a preference ("我喜欢喝茶", "I like green tea"): the speaker's own, kept
            return req if parsed is None or parsed.out_of_scope or parsed.intent is None \
                or not self._pack_claims(parsed.intent, req.value) else None
        if parsed is not None and not parsed.out_of_scope and parsed.intent is not None \
                and self._pack_claims(parsed.intent, req.subject):
            # "my phone number is 138…": the speaker's own thing, with a value the pack's request has no
            # slot for (a lookup never carries its answer) — a fact about the user, not a lookup
            if own and _a_value(req.value, parsed) and not self._fills_slot(parsed, req.value):
                return req
            return None  # "把我的提醒改成明天下午3点": the subject is the pack's thing (a reminder), not a fact
        if _EN_JUDGED.match(normalize(req.value).text.strip(" .。!！")):
            return None  # "our team is on fire this season": an opinion, whatever time is said with it
        if _a_value(req.value, parsed):
            return req
        if not own or _a_state(req.value):
            return None
        return req if parsed is None or parsed.out_of_scope or parsed.intent is None else None

    def _fills_slot(self, parsed: Any, value: str) -> bool:
        """An entity said as ``value`` is of a type a slot of the parsed intent takes ("my order number is
        SO123": an order id is what order.status asks with)."""
        types = set(self.c.grounding.spec_slots(parsed.intent).values())
        return any(e.type in types for e in _covering(value, parsed))

    def _pack_claims(self, intent: str, subject: str) -> bool:
        """The pack's intent is about the asked subject: the subject holds one of the intent's
        keywords ("where is my order" → order.status; "我的潜水证编号是什么" is nobody's)."""
        if redact(f"{subject}: x") != f"{subject}: x":
            return False  # a secret (a password, a PIN) is only ever what the user told: never a tool's answer
        spec = next((x for x in self.c.nlu.engine.specs if x.name == intent), None)
        low = subject.lower()
        # a keyword said with its owner ("my reminders") claims the owner's thing ("what are my reminders")
        asked = (low, f"my {low}", f"我的{low}")
        return spec is not None and any(k.lower() in a for k in spec.keywords if k for a in asked)

    # -- the three intents ---------------------------------------------------------------

    async def carry(self, s: Session, p: "Part", req: MemoryRequest, text: str) -> None:
        """Answer ``req`` into ``p`` (one sentence, or a Confirm card for a forget)."""
        p.intent = req.intent
        p.path = "memory"
        p.trace["memory"] = {"intent": req.intent, "subject": redact(req.subject)}
        self.c._move(s, Event.ROUTED, req.intent)
        if req.intent == "memory.remember":
            p.texts.append(await self._remember(s, req, p.lang))
            if req.value and self._value_hidden(s):  # the role may not see it: not in its trace either
                p.scrub.append(req.value)
        elif req.intent == "memory.recall":
            p.texts.append(await self._recall(s, req, p.lang))
        elif req.change == "retract":  # "I don't live in Leeds anymore": said as a change, withdrawn unasked
            p.texts.append(await self._retract(s, req, p.lang))
        else:
            await self._forget_ask(s, p, req, text)
            return
        self.c._move(s, Event.DONE, req.intent)

    async def _remember(self, s: Session, req: MemoryRequest, lang: str) -> str:
        # a note's key is its words with a secret in them masked ("门禁密码 8642" → note:门禁密码***): no secret is
        # ever a key on disk
        anchor = fact_anchor(req.subject) if req.relation != "note" else "note:" + normal_subject(redact(req.value))[:40]
        old = await self.c.memory.get(s.uid, _user_key(s.uid), anchor)
        if old is None and req.relation != "note" and (same := await self._same_fact(s, req.subject)) is not None:
            anchor, old = same["anchor"], same  # said before in other words or the other language: the one fact
        old_data = old["data"] if old is not None else None
        secret = req.relation == "is" and redact(f"{req.subject}: {req.value}") != f"{req.subject}: {req.value}"
        value = "***" if secret else redact(req.value)
        said_ms = s.ref_ms or self.c.now_ms()
        revision = int((old_data or {}).get("revision", 0)) + 1
        data = {"subject": redact(req.subject), "value": value, "relation": req.relation, "secret": secret,
                "said_ms": said_ms, "revision": revision, "lang": req.lang, "session": s.session_id}
        who, rel = _said(lang, req.subject, str((old_data or {}).get("subject", ""))), _rel(req.relation, lang)
        if old_data and old_data.get("value") == value and not secret and not self._value_hidden(s):
            if req.relation == "note":  # a note said again: its words, not subject + relation + words
                return catalogue.say("mem_same", lang, s="", rel="", v=said_back(value))
            return catalogue.say("mem_same", lang, s=who, rel=rel, v=said_back(value))
        replaced = await self._replaced(s, req, anchor) if req.relation == "note" and not old_data else []
        detail = f"remember revision={revision}" + (f" replaced={redact(old_data.get('value'))!s}" if old_data else "")
        # 不对，我喜欢喝红茶: the told clause it corrects or contradicts goes once the new note is on disk (the
        # turn's commit): a crash in between keeps both notes, never neither
        s.staged.append({"anchor": anchor, "data": data, "detail": detail, "replaces": [r["anchor"] for r in replaced]})
        if self._value_hidden(s):
            said = catalogue.say("mem_stored_hidden", lang, s=who if req.relation != "note" else "")
        elif secret:
            said = catalogue.say("mem_secret", lang, s=who)
        elif req.relation == "note" and replaced:
            said = catalogue.say("mem_updated", lang, s="", rel="", v=_inside(said_back(value)),
                                 old=_inside(said_back(str(replaced[0]["data"].get("value", "")))))
        elif req.relation == "note":
            said = catalogue.say("mem_note", lang, v=said_back(value))
        elif old_data:
            said = catalogue.say("mem_updated", lang, s=who, rel=rel, v=said_back(value),
                                 old=said_back(str(old_data.get("value"))))
        else:
            said = catalogue.say("mem_stored", lang, s=who, rel=rel, v=said_back(value))
        if req.truncated:
            said = catalogue.say("mem_truncated", lang, n=MAX_VALUE_CHARS) + said
        return said

    async def _notes_of(self, s: Session, keep: Any) -> list[dict[str, Any]]:
        """The caller's notes whose told clause ``keep(clause)`` holds, those told in this session first (不对，… corrects
        what was just said), then newest first; secrets never."""
        out = []
        for r in await self.facts(s.uid):
            d = r["data"]
            if not r["anchor"].startswith("note:") or d.get("secret"):
                continue
            c = told_clause(str(d.get("value", "")))
            if c is not None and keep(c):
                out.append(r)
        return sorted(out, key=lambda r: (r["data"].get("session") != s.session_id, -int(r["data"].get("said_ms", 0) or 0)))

    async def _replaced(self, s: Session, req: MemoryRequest, anchor: str) -> list[dict[str, Any]]:
        """The told notes a new note replaces: those it contradicts ("I don't like coffee" ← "I like coffee", 我不吃猪肉
        ← 我吃猪肉), and, for a correction (不对，… / "…, not coffee" / "I like tea better now"), the newest of its topic
        (:func:`~hermesd.memory.clauses.same_topic`)."""
        new = req.clause
        if new is None:
            return []
        out = [r for r in await self._notes_of(s, lambda c: contradicts(new, c)) if r["anchor"] != anchor]
        if req.change == "correct" and not out:
            topic = [r for r in await self._notes_of(s, lambda c: same_topic(new, c, req.old)) if r["anchor"] != anchor]
            out = topic[:1] if not req.old else topic
        return out

    async def _retract(self, s: Session, req: MemoryRequest, lang: str) -> str:
        """A told clause said to be no longer true ("I don't live in Leeds anymore", 我不住在杭州了): the notes that tell
        it are erased (durable when it returns) and said back; nothing told of it is said as such."""
        asked: Clause = req.clause  # type: ignore[assignment]
        gone = await self._notes_of(s, lambda c: same_clause(asked, c))
        if not gone:
            return catalogue.say("mem_forget_none_that", lang, v=_inside(said_back(req.subject)))
        for r in gone:
            await self.c.memory.forget(r["anchor"], s.uid)
            self.c.on_event(s.uid, "memory.updated", {"kind": "forget", "anchor": r["anchor"], "version": self.c.memory.version})
        return catalogue.say("mem_forgot", lang, s="", rel="", v=_inside(said_back(str(gone[0]["data"].get("value", "")))))

    def _value_hidden(self, s: Session) -> bool:
        """A fact's value is a field the session's role may not see (``memory.hidden_fields``)."""
        return "data.value" in self.c.memory.settings.hidden_fields.get(s.role, [])

    async def _same_fact(self, s: Session, subject: str) -> dict[str, Any] | None:
        """The stored fact this subject names in other words or the other language (我老婆的名字 = "wife's
        name" = 我爱人的名字): the same concepts; None when the subject holds a word the lexicon lacks."""
        want = concepts(subject)
        if want is None:
            return None
        return next((r for r in await self.facts(s.uid) if r["anchor"].startswith(FACT_PREFIX)
                     and concepts(str(r["data"].get("subject", ""))) == want), None)

    async def facts(self, uid: int) -> list[dict[str, Any]]:
        """The caller's facts and notes (L2 rows merged with newer L1 copies)."""
        return [r for r in await self.c.memory.user_memories(uid, _user_key(uid))
                if (r["anchor"].startswith(FACT_PREFIX) or r["anchor"].startswith("note:"))
                and str((r.get("data") or {}).get("value", "")).strip()]  # a row with no text is nothing told

    async def _best(self, s: Session, subject: str) -> dict[str, Any] | None:
        memory = self.c.memory
        want = normal_subject(subject)
        hot = memory.get_hot(s.uid, _user_key(s.uid), FACT_PREFIX + want)  # exact key from L1 first
        if hot is not None:
            return {"anchor": hot["anchor"], "data": hot["data"]}
        lam = memory.settings.decay.retrieval_decay_per_hour
        now = self.c.now_ms()
        best, best_score = None, 0.0
        asked = concepts(subject)
        for r in await self.facts(s.uid):
            d = r["data"]
            overlap = _subject_match(want, normal_subject(d.get("subject", ""))) if r["anchor"].startswith(FACT_PREFIX) \
                else (1.0 if want and want in normal_subject(d.get("value", "")) else 0.0)
            told = concepts(str(d.get("subject", ""))) if r["anchor"].startswith(FACT_PREFIX) else None
            if asked is not None and told is not None:
                # both made of known words: the same concepts are the same fact in either language (生日 /
                # birthday, 老婆 / wife), other concepts another fact, however alike they are spelt (son's
                # name is not wife's name, my name is not my wife's); "who is my wife" asks her name
                overlap = answers(asked, told)
            score = overlap * math.exp(-lam * max(0.0, (now - int(d.get("said_ms", now))) / 3.6e6))
            if overlap >= MIN_MATCH and score > best_score:
                best, best_score = r, score
        if best is not None:
            memory.get_hot(s.uid, _user_key(s.uid), best["anchor"])  # counts the lookup
        return best

    def _in_language(self, s: Session, value: str, lang: str) -> str:
        """:func:`value_in_language` at the session's clock and zone."""
        return value_in_language(value, lang, datetime.fromtimestamp(self.c.now_ms() / 1000, timezone.utc),
                                 self.c.grounding.zone(s))

    def _when(self, s: Session, said_ms: int, lang: str) -> str:
        dt = datetime.fromtimestamp(said_ms / 1000, timezone.utc).astimezone(self.c.grounding.zone(s))
        if lang == "zh":
            return f"在{dt.month}月{dt.day}日 {dt:%H:%M}"
        return f"on {dt.day} {dt:%b} at {dt:%H:%M}"

    async def _recall(self, s: Session, req: MemoryRequest, lang: str) -> str:
        if req.relation == ABOUT:
            return await self._list(s, req.subject, lang)
        if req.relation == CLAUSE:
            return await self._recall_clause(s, req, lang)
        who = _said(lang, req.subject)
        best = await self._best(s, req.subject)
        if best is None:
            if req.relation == "at":  # "where is my car?" → "you have not told me where your car is"
                return catalogue.say("mem_unknown_at", lang, s=who if lang == "zh" else where_clause(who))
            return catalogue.say("mem_unknown", lang, s=who)
        view = hide({"data": dict(best["data"])}, self.c.memory.settings.hidden_fields.get(s.role, []))
        d = view["data"]
        told = str(d.get("subject") or req.subject)
        # told in the other language (生日 asked as "birthday"): the subject as asked, in the reply's language
        other = bool(re.search(r"[\u4e00-\u9fff]", told)) != (lang == "zh")
        who = _said(lang, req.subject) if other else _owner(told, lang)
        when = self._when(s, int(d.get("said_ms", 0)), lang)
        if "value" not in d:
            return catalogue.say("mem_restricted", lang, s=who)
        if d.get("secret"):
            return catalogue.say("mem_recall_secret", lang, when=when, s=who)
        if d.get("relation") == "note":
            return catalogue.say("mem_recall", lang, when=when, s="", rel="", v=said_back(d["value"]))
        # a value that replaced another says when it was changed (the old one is not said again)
        key = "mem_recall_changed" if int(d.get("revision", 1) or 1) > 1 else "mem_recall"
        value = self._in_language(s, str(d["value"]), lang)  # 五月三号 → "3 May" in English
        return catalogue.say(key, lang, when=when, s=who, rel=_rel(d.get("relation", "is"), lang), v=said_back(value))

    async def _told_clauses(self, s: Session, req: MemoryRequest) -> list[tuple[int, str]]:
        """(said_ms, the words as told) of the caller's notes and facts that answer a clause asked
        (:func:`~hermesd.memory.clauses.answers_clause`): a note in its words ("我喜欢喝茶"), a fact as its
        subject and value said together ("我住" + "在北京"); secrets and hidden values are never one."""
        if req.clause is None:
            return []
        hidden = self.c.memory.settings.hidden_fields.get(s.role, [])
        out: list[tuple[int, str]] = []
        for r in await self.facts(s.uid):
            d = hide({"data": dict(r["data"])}, hidden)["data"]
            if "value" not in d or d.get("secret"):
                continue
            value = str(d["value"])
            if r["anchor"].startswith(FACT_PREFIX):
                subject = str(d.get("subject", ""))
                zh = bool(re.search(r"[\u4e00-\u9fff]", subject))
                rel = ("是" if zh else " is ") if d.get("relation", "is") == "is" else ("" if zh else " ")
                value = subject + rel + value
            if answers_clause(req.clause, value):
                out.append((int(d.get("said_ms", 0) or 0), value))
        return sorted(out, key=lambda x: -x[0])

    async def _recall_clause(self, s: Session, req: MemoryRequest, lang: str) -> str:
        """A clause asked back (我喜欢喝什么, "what do I like to drink"): what was told that answers it, in
        the caller's words said back, newest first (at most :data:`LIST_MAX`), or that it was not told."""
        told = await self._told_clauses(s, req)
        if not told:
            return catalogue.say("mem_unknown", lang, s=said_back(req.subject))
        items = [said_back(v) for _, v in told[:LIST_MAX]]
        # "You like green tea" opens a note said back; inside the sentence it is "you like green tea"
        items = [x[0].lower() + x[1:] if x.startswith("You ") else x for x in items]
        said = ("；" if lang == "zh" else "; ").join(items)
        if len(told) > LIST_MAX:
            said += catalogue.say("mem_list_more", lang, n=len(told) - LIST_MAX)
        return catalogue.say("mem_list", lang, items=said)

    async def _list(self, s: Session, about: str, lang: str) -> str:
        """What the caller told about themselves ("" — "what do you remember about me") or about one of
        theirs ("wife": the facts whose subject holds that concept, or, for a word the lexicon lacks, its
        text), newest first, at most :data:`LIST_MAX` said, the rest counted."""
        want, key = (concepts(about), normal_subject(about)) if about else (None, "")
        hidden = self.c.memory.settings.hidden_fields.get(s.role, [])
        items: list[tuple[int, str]] = []
        for r in await self.facts(s.uid):
            d = hide({"data": dict(r["data"])}, hidden)["data"]
            fact = r["anchor"].startswith(FACT_PREFIX)
            subject = str(d.get("subject", ""))
            told = concepts(subject) if fact else None
            if about and not (want <= told if want is not None and told is not None
                              else bool(key) and (key in normal_subject(subject) or key in normal_subject(str(d.get("value", ""))))):
                continue
            who = _said(lang, subject) if fact else ""
            if "value" not in d:
                said = who
            elif d.get("secret"):
                said = catalogue.say("mem_list_secret", lang, s=who)
            elif not fact:
                said = said_back(str(d["value"]))
            else:
                value = self._in_language(s, str(d["value"]), lang)
                said = f"{who}{_rel(d.get('relation', 'is'), lang)}{said_back(value)}"
            if said.strip():  # never an empty item (a row with no text, a subject said as nothing)
                items.append((int(d.get("said_ms", 0) or 0), said))
        whose = _said(lang, about) if about else ""
        if not items:
            return catalogue.say("mem_list_none_about", lang, s=whose) if about else catalogue.say("mem_nothing", lang)
        items.sort(key=lambda x: -x[0])
        said = ("；" if lang == "zh" else "; ").join(x[1] for x in items[:LIST_MAX])
        if len(items) > LIST_MAX:
            said += catalogue.say("mem_list_more", lang, n=len(items) - LIST_MAX)
        return catalogue.say("mem_list_about", lang, s=whose, items=said) if about else catalogue.say("mem_list", lang, items=said)

    async def _forget_ask(self, s: Session, p: "Part", req: MemoryRequest, text: str) -> None:
        lang, c = p.lang, self.c
        if req.subject in (ALL, SENT, HISTORY):
            action = SEND_ACTION if req.subject == SENT else None
            got = await c.memory.count_user(s.uid, action)
            counts = {"facts": got["facts"] + got["notes"], "other": got["other"], "events": got["events"]}
            if req.subject != ALL:
                counts["facts"] = counts["other"] = 0
            if not any(counts.values()):
                p.texts.append(catalogue.say({ALL: "mem_nothing", SENT: "mem_no_sent", HISTORY: "mem_no_history"}[req.subject],
                                             lang))
                c._move(s, Event.DONE, "nothing to forget")
                return
            key = {ALL: "mem_forget_all_q", SENT: "mem_forget_sent_q", HISTORY: "mem_forget_history_q"}[req.subject]
            prompt = catalogue.say(key, lang, what=erasure_list(counts, req.subject, lang))
            # the rows counted now are the rows erased on yes: nothing stored after the question
            entities: dict[str, Any] = {"anchor": req.subject, "counts": counts, "action": action,
                                        "upto": [got["max_summary"], got["max_event"]]}
        else:
            asked = req.clause
            told = await self._notes_of(s, lambda c: same_clause(asked, c)) if asked is not None else []
            best = told[0] if told else await self._best(s, req.subject) if asked is None else None
            if best is None and asked is not None:  # "forget that I like coffee", nothing told of it
                p.texts.append(catalogue.say("mem_forget_none_that", lang, v=_inside(said_back(req.subject))))
                c._move(s, Event.DONE, "nothing to forget")
                return
            if best is None:
                p.texts.append(catalogue.say("mem_forget_none", lang, s=_said(lang, req.subject)))
                c._move(s, Event.DONE, "nothing to forget")
                return
            d = best["data"]
            shown = "***" if d.get("secret") else _inside(said_back(d.get("value", "")))
            who = _said(lang, str(d.get("subject", "")), req.subject) if d.get("relation") != "note" else ""
            prompt = catalogue.say("mem_forget_q", lang, s=who, rel=_rel(d.get("relation", "is"), lang) if who else "",
                                   v=shown)
            entities = {"anchor": best["anchor"], "what": f"{who}{_rel(d.get('relation', 'is'), lang) if who else ''}{shown}"}
        ref = datetime.fromtimestamp(s.ref_ms / 1000, timezone.utc).isoformat()
        card = {"question": prompt, "action": "memory.forget"}
        s.pending = Confirm(intent="memory.forget", rule_id=None, index=0, entities=entities, prompt=prompt,
                            utterance=text, ref=ref, card=card)
        p.texts.append(prompt)
        p.card = card
        c._move(s, Event.CONFIRM, "forget asks")

    async def forget_confirmed(self, s: Session, p: "Part", q: Confirm) -> None:
        """The card was accepted: erase (durable when it returns) and say what was erased."""
        c, lang = self.c, p.lang
        p.intent, p.path = "memory.forget", "memory"
        c._move(s, Event.ROUTED, "forget confirmed")
        anchor = str(q.entities.get("anchor"))
        if anchor in (ALL, SENT, HISTORY):
            asked = {k: int(v) for k, v in dict(q.entities.get("counts") or {}).items()}
            ms, me = (int(x) for x in q.entities.get("upto") or (0, 0))
            if anchor == ALL:
                got = await c.memory.forget_user(s.uid, (ms, me))
                done = asked if got == {"summaries": asked["facts"] + asked["other"], "events": asked["events"]} \
                    else {"other": got["summaries"], "events": got["events"]}  # something went meanwhile
            else:
                action = q.entities.get("action")
                n = await c.memory.forget_history(s.uid, str(action) if action else None, me)
                done = {"events": n}
            p.texts.append(catalogue.say("mem_forgot_list", lang, what=erasure_list(done, anchor, lang))
                           if any(done.values()) else catalogue.say("mem_nothing", lang))
        else:
            await c.memory.forget(anchor, s.uid)
            p.texts.append(catalogue.say("mem_forgot", lang, s=str(q.entities.get("what", "")), rel="", v=""))
        c.on_event(s.uid, "memory.updated", {"kind": "forget", "anchor": anchor, "version": c.memory.version})
        c._move(s, Event.DONE, "forgotten")
