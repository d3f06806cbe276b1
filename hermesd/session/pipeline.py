"""One utterance through the dialogue manager: parse → ground → read → decide → carry out.

:class:`Pipeline` is the controller's turn body. It asks the NLU, grounds the
entities (:mod:`.grounding`), reads the utterance against the session's open
question (:func:`hermesd.dialogue.reader.read_answer`), lets the pure policy
decide (:func:`hermesd.dialogue.policy.decide`) and carries the decision out —
routing and running a plan (:mod:`.planrun`), binding a chosen person, cancelling,
asking again, answering small talk. Several requests in one utterance run in
order (:func:`hermesd.dialogue.split.split_requests`); one that stops at a
question holds the ones after it until it is answered.
"""

from __future__ import annotations

import logging
import re
import time
import unicodedata
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from .. import lazyre
from ..dialogue import catalogue, distress, emergency, handoff, policy as dp
from ..dialogue.heard import Heard, Reading
from ..dialogue.howto import asks_how, request_of
from ..dialogue.lastaction import asks_about_last, asks_if_done, last_done, offered_list
from ..dialogue.negated import negated_request
from ..dialogue.otherdevice import asks_what_to_do, other_device
from ..dialogue.questions import Ask, Candidate, Choice, Confirm, Offer, OpenQuestion, Pick, reasked
from ..dialogue.reader import read_answer
from ..dialogue.reminders import asks_change, moves_unnamed, revises, said_shift, stops_reminding, time_repair
from ..dialogue.repair import repaired
from ..dialogue.smalltalk import capabilities, smalltalk_reply
from ..dialogue.sendobject import not_a_document
from ..dialogue.statement import statement
from ..dialogue.typos import near_name
from ..dialogue.unknown import closest, name_around, name_placed, name_said, spelled_like
from ..dialogue.whenjoin import clock_left_open, clock_on_day, join_when, names_clock, time_alone
from ..dialogue.split import capped, one_each, reminding_request, split_requests
from ..anchors.directory import unmarked
from ..nlu.entities import Entity
from ..nlu.clock import BadClock, impossible_clock_text, impossible_clocks
from ..nlu.normalize import normalize
from ..nlu.parser import detect_lang
from ..nlu.task import leading_trigger
from ..rules.filters import english_name
from ..nlu.temporal import impossible_date_text
from .machine import Event, State
from .planrun import answers_asked
from .record import Session
from .references import note_people, resolve_pronouns, resolve_references

if TYPE_CHECKING:
    from .controller import Controller

__all__ = ["Part", "Pipeline"]

log = logging.getLogger(__name__)

_CJK = lazyre.compile(r"[\u4e00-\u9fff]")
_LETTER = lazyre.compile(r"[^\W\d_]")
#: "cancel + its object" is one short clause: at most this many characters (zh) or words (en)
OBJECT_NAMED_CHARS = 14
OBJECT_NAMED_WORDS = 7
_CLAUSE_BREAK = lazyre.compile(r"[,，;；。!！?？、]")
#: a word that may join two people (:data:`hermesd.dialogue.split._COORD`): only then is a coordination looked for
_MAY_COORDINATE = lazyre.compile(r"[和跟与與及、,，&]|还有|還有|\band\b|\bplus\b", re.IGNORECASE)
_EN_WORD = lazyre.compile(r"[A-Za-z]{2,}")


#: the entity types of an intent that takes a task and its time, and nothing else (a reminder)
_TASK_AND_TIMES = frozenset({"task", "datetime", "recurrence"})


def _tentative(q: OpenQuestion | None) -> bool:
    """``q`` was asked of a time said alone (:class:`~hermesd.dialogue.questions.Ask` ``tentative``): moving past it
    drops it — it is not asked again after a digression, nor kept as a pending task."""
    return isinstance(q, Ask) and q.tentative


@dataclass(slots=True)
class Part:
    """What one request of a turn produced (a turn is one part, or several when split)."""

    lang: str
    r0: float
    trace: dict[str, Any]
    timings: dict[str, float]
    slots_before: dict[str, Any]
    texts: list[str] = field(default_factory=list)
    card: Any = None
    intent: str | None = None
    parsed: Any = None
    actions: list[dict[str, Any]] = field(default_factory=list)
    path: str = "rule"
    rule_id: str | None = None
    result: Any = None
    then: tuple[str, ...] = ()
    repairs: list[str] = field(default_factory=list)
    #: ``time.perf_counter()`` when ROUTING began (its ``session.routing_ms`` budget runs from here)
    routing_t0: float = 0.0
    #: what to say of references that found nothing ("这个会话里还没有提到过订单。")
    ref_missing: list[str] = field(default_factory=list)
    #: a pronoun with several people in play: the sentence asking which ("你说的“他”是张伟还是李娜？")
    pronoun_ask: str | None = None
    #: values the caller's role may not see (``memory.hidden_fields``): never in the stored trace
    scrub: list[str] = field(default_factory=list)
    #: one of the requests made once for each of several people (:func:`~hermesd.dialogue.split.one_each`):
    #: the people of the earlier ones stay in play beside this one's
    together: bool = False
    #: the part is one of several of one line: its language is the line's, not its own words'
    line_lang: bool = False
    #: set when the LLM executor took the request (:mod:`.llmturn`): ``generated``, ``model``, tokens, ``ms``
    llm: dict[str, Any] | None = None

    def degrade(self, why: str) -> None:
        """Note a degradation in the trace (``parse_budget``, ``routing_budget``, ``load:cpu`` …, comma-joined)."""
        old = self.trace.get("degraded")
        if not old:
            self.trace["degraded"] = why
        elif why not in old.split(","):
            self.trace["degraded"] = f"{old},{why}"

    def end(self, s: Session, c: "Controller", text: str, path: str, reason: str) -> None:
        """End the part with one sentence; nothing runs."""
        c._move(s, Event.ROUTED, reason)
        c._move(s, Event.DONE, reason)
        self.texts.append(text)
        self.path = path


def _choice_line(cands: tuple[Candidate, ...], lang: str) -> str:
    """``1) 张伟（销售部） 2) 张强（研发部）`` / ``1) 张伟 (Zhang Wei, Sales) 2) 张强 (Zhang Qiang, R&D)``."""
    def label(c: Candidate) -> str:
        a = c.attrs
        if lang == "zh":
            dept = a.get("dept_name") or a.get("dept")
            return f"{c.display}（{dept}）" if dept else c.display
        dept = a.get("dept_name_en") or a.get("dept_name") or a.get("dept")
        extra = [x for x in (a.get("display_en"), dept) if x and x != c.display]
        return f"{c.display} ({', '.join(extra)})" if extra else c.display
    if len(cands) == 1:  # "did you mean 张伟（销售部）?": one name offered is no numbered list
        return label(cands[0])
    return " ".join(f"{i + 1}) {label(c)}" for i, c in enumerate(cands))


#: most names offered when a name said is one edit from several known ones
MAX_TYPO_CANDIDATES = 3


def _same_request(a: Any, b: Any) -> bool:
    """Two parses are one request: one intent, the same entities — naming the device spoken to (``this_device``)
    adds nothing to a request about it ("what's the cpu usage" and "how long has the device been up")."""
    def key(p: Any) -> tuple[Any, ...]:
        return (p.intent, tuple(sorted((e.type, str(e.value)) for e in p.entities if e.type != "this_device")))
    return key(a) == key(b)


def _person_entity(name: str, a: int, b: int) -> Any:
    return Entity("person", name, name, (a, b))


class Pipeline:
    """The dialogue manager's I/O shell over the controller ``c``."""

    def __init__(self, c: "Controller") -> None:
        self.c = c
        self._says_no_cache: dict[tuple[str, int], bool] = {}

    # -- the turn ------------------------------------------------------------------------

    def language(self, s: Session, text: str) -> str:
        """The session's locale, else the text's script; an answer without letters keeps the conversation's."""
        last = s.history[-1].get("lang") if s.history else None
        if s.locale:
            return "zh" if s.locale.lower().startswith("zh") else "en"
        if text and _CJK.search(text):  # a Chinese name or date in an English sentence leaves it English
            return detect_lang(text)
        # a Latin name, id or code answered in a Chinese conversation ("nginx", "SO20240615") keeps
        # it Chinese; English takes over with English words (two or more)
        if text and (last is None or len(_EN_WORD.findall(text)) >= 2):
            return "en" if _LETTER.search(text) else (last or "zh")
        return last or "zh"

    def split(self, s: Session, text: str, ref: datetime) -> tuple[list[tuple[str, Any]], list[str], str | None, list[str]]:
        """``text``'s requests with their parses, when the first part and maybe others are requests on
        their own (a later part that is none has ``False`` for its parse: the turn says it was not
        done, never drops it silently); else ``[(text, None)]``;
        the people (or things) the request was made once for each of (else empty), and their entity type.

        Several people joined in the one place of a request that takes one ("把报价单发给王芳和李娜",
        "send the quote to Wang Fang and Li Na") are that request once for each, in the order said
        (:meth:`_one_each`) — never the first alone with the others silently dropped; so are several
        documents ("把报价单和合同发给王芳": the quote, then the contract) and services ("重启nginx和mysql").
        Two parts that are the same request (one intent, the same entities: "CPU占用高吗，内存还剩多少", both
        the status report) run once: one answer answers both.

        The last item is what to say of the parts that do not run (:func:`~hermesd.dialogue.split.capped`):
        a request said again runs once; past ``max_requests`` distinct ones the rest is not done."""
        parts = split_requests(text, self.c.lexicon) if self.c.settings.split_requests else [text]
        notes: list[str] = []
        if len(parts) > 1:
            cap = capped(parts, self.c.settings.max_requests)
            lang = self.language(s, text)
            if cap.over:
                notes.append(catalogue.say("requests_over", lang, n=len(cap.parts), rest=len(cap.over)))
            if cap.repeated:
                notes.append(catalogue.say("requests_repeated", lang))
            parts = cap.parts
            if len(parts) == 1:
                text = parts[0]  # the one request said over and over: that request, once
        if len(parts) < 2:
            each, etype, parsed = self._one_each(s, text, ref)
            if each:
                return [(t, None) for t, _ in each], [n for _, n in each], etype, notes
            # the parse made to look for people stands for the request's own (one parse per utterance),
            # unless the request is a reminder's core that :meth:`one` parses on its own ("别忘了提醒我…")
            return [(text, parsed if reminding_request(text, self.c.lexicon) is None else None)], [], None, notes
        out: list[tuple[str, Any]] = []
        oos_label = getattr(self.c.nlu.engine.model, "oos_label", None)
        for part in parts:
            parsed = self.c.nlu.parse(part, ref, s.tz, s.locale, budget_ms=self.c.settings.parsing_ms)
            if parsed.kind in ("affirm", "deny", "cancel"):
                return [(text, None)], [], None, []
            # a split is a guess: a part is a request of its own only when the scorer's best class is
            # an intent, not the out-of-scope class a request in everyday words may still beat
            if parsed.intent is None or parsed.out_of_scope or (
                    oos_label and parsed.intents and parsed.intents[0].source == "scorer"
                    and parsed.intents[0].intent == oos_label):
                out.append((part, False))  # not a request of ours: said so after the others ran
                continue
            # two questions one request answers ("CPU占用高吗，内存还剩多少": the one status report): run once
            if any(x is not False and _same_request(x, parsed) for _, x in out):
                continue
            out.append((part, parsed))
        if not any(x is not False for _, x in out) or (out and out[0][1] is False):
            # no part, or not the first, is a request: the utterance is read whole (a first part that is
            # no request of its own is often what the rest is about: "关于报价单，发给王芳")
            return [(text, None)], [], None, []
        return out, [], None, notes

    #: the entity types a request is said once for each of, when several are joined in its one slot
    ONE_EACH_TYPES = ("person", "doc_type", "service")

    def _one_each(self, s: Session, text: str, ref: datetime) -> tuple[list[tuple[str, str]] | None, str | None, Any]:
        """The request said once per person (or document) — (utterance, its words) in the order said —
        when they are coordinated (A和B, A、B和C, A and B) where its intent has one slot of their type;
        else None; the type (people first); and the parse of ``text`` it made to tell, for the request's
        own use (None when it found the request once for each, or no joining word asked for a parse)."""
        if not _MAY_COORDINATE.search(text):
            return None, None, None  # no joining word: no parse here
        parsed = self.c.nlu.parse(text, ref, s.tz, s.locale, budget_ms=self.c.settings.parsing_ms)
        if parsed.intent is None or parsed.out_of_scope:
            return None, None, parsed
        slots = list(self.c.grounding.spec_slots(parsed.intent).values())
        for etype in self.ONE_EACH_TYPES:
            if slots.count(etype) == 1:
                each = one_each(text, [e.span for e in parsed.entities if e.type == etype])
                if each:
                    return each, etype, None
        return None, None, parsed

    def interrupted(self, s: Session, lang: str) -> Part:
        """The first turn after a crash interrupted a tool: say so and offer to run it again (the card)."""
        q = s.pending
        p = Part(lang=lang, r0=time.perf_counter(), trace={"decision": "interrupted"}, timings={},
                 slots_before=dict(s.slots), repairs=["interrupted"])
        self.c._move(s, Event.TEXT, "after an interruption")
        self.c._move(s, Event.PARSED, "after an interruption")
        assert isinstance(q, Confirm)
        p.intent = q.intent
        self._keep_or_end(s, p, q, q.prompt, "interrupted step offered again")
        return p

    async def run(self, s: Session, text: str, ref: datetime | None, trace_id: str,
                  answer: dict[str, Any] | None, lang: str, t0: float) -> list[Part]:
        """Every part of the turn, in order (a question stops the rest; they wait on it)."""
        queue: list[tuple[str, Any]] = [(text, None)]
        each: list[str] = []
        etype: str | None = None
        notes: list[str] = []
        if text and answer is None and (s.pending is None or isinstance(s.pending, Offer)):
            # an offer is a soft question: several requests said instead of an answer still run
            ref = ref or datetime.now(timezone.utc)  # the parts of one utterance share its moment
            queue, each, etype, notes = self.split(s, text, ref)
        parts: list[Part] = []
        # one request for several people (or documents): when the first asks something, said plainly that
        # the others come after it
        pre = catalogue.say({"person": "one_by_one", "doc_type": "one_by_one_thing"}.get(etype or "", "one_by_one_each"),
                            lang, first=each[0], rest=("、" if lang == "zh" else ", ").join(each[1:])) if each else None
        # the parts of one line are answered in one language, the line's lead's (its first part's): a
        # follow-up in the middle of a Chinese line ("把合同发给李娜，然后…") is never said in English
        line_lang = self.language(s, queue[0][0]) if len(queue) > 1 else None
        if line_lang is not None:
            lang = line_lang
        # a part of the utterance that is no request of its own: said, never dropped silently
        unread = [t for t, parsed in queue if parsed is False]
        queue = [(t, parsed) for t, parsed in queue if parsed is not False]
        while queue:
            utterance, parsed = queue.pop(0)
            p = Part(lang=lang, r0=time.perf_counter(), trace={}, timings={}, slots_before=dict(s.slots),
                     together=bool(each) and bool(parts), line_lang=line_lang is not None)
            if len(parts) or queue:
                p.repairs.append("several_requests")
            await self.one(s, p, utterance, ref, trace_id, answer, parsed)
            answer = None
            if pre is not None and s.pending is not None and queue:  # the first asks; the others wait on it
                p.texts.insert(0, pre)
                p.repairs.append("one_by_one")
            pre = None
            parts.append(p)
            queue = [(t, None) for t in p.then] + queue
            if p.then:  # the parts an answer lets run speak the conversation's language, the answer's
                lang, line_lang = p.lang, p.lang
            if s.pending is not None and queue and not isinstance(s.pending, Offer):  # an offer waits on nothing
                s.pending = replace(s.pending, then=tuple(t for t, _ in queue))
                break
            if s.state is State.IDLE:  # handed off: nothing more runs
                break
        if unread and parts:
            parts[-1].texts.extend(catalogue.say("part_not_done", lang, part=t) for t in unread)
            parts[-1].repairs.append("part_not_done")
        if notes and parts:  # requests past the cap, or said again: said plainly, never dropped silently
            parts[-1].texts.extend(notes)
            parts[-1].repairs.append("requests_capped")
        q = s.pending
        if isinstance(q, Offer) and not q.reasked and parts and s.state is State.LISTENING \
                and not any(x.trace.get("decision") == "distress" for x in parts):  # a caring sentence stands alone
            # an offer not yet said in a reply (made when the session opened): after the turn's answer,
            # never before or instead of it
            last = parts[-1]
            last.texts.append(self.c.offer_prompt(q.intent, dict(q.slots), last.lang, after=True))
            last.repairs.append("offer_after")
            s.pending = await self._said(last, q)
        return parts

    async def _said(self, p: Part, q: Offer) -> Offer:
        """``q`` as said in this turn: worded in the turn's language, marked said (``reasked``), listed as
        waiting among the turn's actions (a client keeps the session for the answer), and its task marked
        ``offered`` — no other session offers it, and moving past it here withdraws it
        (:func:`hermesd.dialogue.policy.decide`)."""
        p.actions.append({"kind": "offer", "task_id": q.task_id, "intent": q.intent, "outcome": "waiting"})
        await self.c.memory.set_task_status(q.task_id, "offered")
        return replace(q, prompt=self.c.offer_prompt(q.intent, dict(q.slots), p.lang), reasked=True)

    async def one(self, s: Session, p: Part, text: str, ref: datetime | None, trace_id: str,
                  answer: dict[str, Any] | None, parsed: Any = None) -> None:
        """One request: parse (unless ``parsed`` is its parse already, from :meth:`split`), read
        against the open question, decide, carry out."""
        c = self.c
        if s.state is State.ERROR_HANDLING and s.machine.failures >= c.limits.handoff_after:
            # too many failures in a row: a person takes over before anything else runs
            c._hand_off(s, "too many failures", "failures", trace_id)
        c._move(s, Event.TEXT, "utterance")
        q = s.pending
        chosen: dict[str, Any] | None = None
        while True:
            q_ref = getattr(q, "ref", None)
            if ref is None and q_ref:
                ref = datetime.fromisoformat(q_ref)  # an answer continues its plan's moment
            ref_at = ref or datetime.now(timezone.utc)
            s.ref_ms = int(ref_at.timestamp() * 1000)
            spoken = text  # the language is the person's words, not the name put in for a pronoun
            if text and "pronoun" not in p.trace:  # 他 / her: read as the person's name (once per request)
                named, note, p.pronoun_ask = resolve_pronouns(c.grounding, s, text, q, lexicon=c.lexicon, lang=p.lang)
                if note is not None and note.get("source") not in ("none", None):
                    # a person named outright beside the pronoun wins over its antecedent ("send it to him
                    # too: Zhang Qiang"): the names the utterance itself says, from its own parse
                    own = parsed or c.nlu.parse(text, ref_at, s.tz, s.locale, budget_ms=c.settings.parsing_ms)
                    people = [tuple(e.span) for e in own.entities if e.type == "person"]
                    if people:
                        named, note, p.pronoun_ask = resolve_pronouns(c.grounding, s, text, q, lexicon=c.lexicon,
                                                                      lang=p.lang, named=people)
                        if note is not None and note.get("source") == "named":
                            parsed = own
                if note is not None:
                    p.trace["pronoun"] = note
                    if named != text:
                        text, parsed = named, None
            if parsed is None and text:
                p0 = time.perf_counter()
                parsed = c.nlu.parse(text, ref_at, s.tz, s.locale, budget_ms=c.settings.parsing_ms)
                core = reminding_request(text, c.lexicon)
                if core is not None:  # "别忘了提醒我开会", "don't forget to remind me": that request itself
                    inner = c.nlu.parse(core, ref_at, s.tz, s.locale, budget_ms=c.settings.parsing_ms)
                    if inner.intent is not None and not inner.out_of_scope:
                        text, parsed = core, inner
                        p.trace["reminding"] = core
                parsed = self._reminded(s, parsed, ref_at, p)
                parsed = self._stops_reminding(parsed, p)
                p.timings["parse"] = p.timings.get("parse", 0.0) + (time.perf_counter() - p0) * 1000
            parsed = self._changed(s, parsed, p, ref_at)  # idempotent: a choice's re-run reads it again
            parsed = self._time_alone(s, q, parsed, p)  # 十点 / "at 6pm" alone: never an action
            if parsed is not None and text and "self_repair" not in p.trace:
                # "把报价单发给王芳，不对，是李娜": the request the speaker meant once they corrected themselves
                fixed = repaired(text, [(e.type, e.span) for e in parsed.entities])
                if fixed is not None:
                    p.trace["self_repair"] = fixed
                    p.repairs.append("self_repair")
                    text = fixed
                    parsed = c.nlu.parse(text, ref_at, s.tz, s.locale, budget_ms=c.settings.parsing_ms)
            if spoken and not s.locale and not p.line_lang and _LETTER.search(spoken):
                p.lang = self.language(s, spoken)
            if s.state is State.PARSING:
                p.routing_t0 = time.perf_counter()  # the ROUTING budget runs from the PARSED event on
                c._move(s, Event.PARSED, "parsed")
            parsed = self._name_placed(parsed)
            p.parsed = parsed
            if text and distress.said(text):  # no action, nothing parked: one caring sentence
                p.trace.update({"intent": None, "decision": "distress"})
                self._keep_or_end(s, p, q, catalogue.say("distress", p.lang), "distress")
                return
            if text and emergency.said(normalize(text).text):  # "设备着火了" / "the device is on fire": safety, a person
                self._hand_over(s, p, trace_id, "emergency", "fire reported", "emergency")
                return
            if text and handoff.asked(text):  # "转人工" / "talk to a human": a person takes over, nothing runs
                self._hand_over(s, p, trace_id, "handoff_asked", "asked for a person", "asked")
                return
            if parsed is not None and parsed.degraded:
                p.degrade("parse_budget")
            entities, ambiguous = await self._ground(s, p, parsed, q)
            if chosen is not None:  # kept with the plan, for "no, the other one" at its card
                s.refs["chosen"] = chosen
            heard = c.grounding.heard(parsed, q, entities, p.lang)
            reading = self._read(q, heard, answer)
            if isinstance(q, Pick) and reading.act != "choose":
                at = self._picked_by_time(s, q, entities)  # "上周三那个", "the one from Monday"
                if at is not None:
                    reading = Reading("choose", choice=at, cue="choose:time")
                elif ambiguous is not None:
                    # "发给张工的那个": of the people 张工 may be, the one a line of the card names
                    shown = {str(x.get("display")) for x in ambiguous[1]}
                    hits = [k for k, cand in enumerate(q.choices) if shown & {str(v) for v in cand.attrs.values()}]
                    if len(hits) == 1:
                        reading = Reading("choose", choice=hits[0], cue=f"choose:person:{ambiguous[0]}")
                        ambiguous = None
            decision = dp.decide(q, heard, reading)
            p.trace.update({"intent": parsed.intent if parsed else None, "kind": parsed.kind if parsed else None,
                            "entities": entities})
            p.trace.setdefault("reading", reading.to_trace())  # a choice's re-run keeps the answer's reading
            named = self._undo_last(s, q, parsed, self._object_named(q, parsed, decision))
            # "no, 10 not 9" right after a reminder was set: its time, repaired — to an offer of old work too
            named = dp.repair_of_last(q, named, p.trace.get("change") == "repair")
            if isinstance(q, Ask) and (isinstance(named, dp.AskAgain) or (
                    isinstance(named, dp.Digress) and not named.cancel_first and not heard.people)):
                # "找谁？" — "刘洋": a name nobody in the directory has; asking "who?" again would loop
                wants = (q.entity or c.grounding.spec_slots(q.intent).get(q.slot)) == "person"
                named = dp.not_known(q, named, name_said(spoken) if wants and spoken else None, wants)
            listed = offered_list(s.history) if q is None and isinstance(named, dp.NothingOpen) \
                and named.act == "choose" and parsed is not None else None
            if listed and any(e.type == t for e in parsed.entities
                              for t in set(c.grounding.spec_slots(listed).values()) & {"ordinal"}):
                # "第二个" / "the second one" right after a list was offered with "which one?": the answer to it
                parsed = p.parsed = replace(parsed, intent=listed, out_of_scope=False)
                heard = c.grounding.heard(parsed, q, entities, p.lang)
                named = dp.NewTurn()
                p.trace.update({"intent": listed, "listed": listed})
            if named is not decision:
                decision = named
                p.trace["decision"] = decision.name
                p.trace["reading"] = {**p.trace["reading"], "cue": "object_named"}
            p.trace.setdefault("decision", decision.name)
            if isinstance(q, Confirm) and isinstance(decision, (dp.Cancel, dp.AskAgain, dp.Correct, dp.Digress, dp.Wait)):
                again = self._rechoose(s, q, heard, decision)
                if again is not decision:
                    decision = again
                    p.trace["decision"] = decision.name
                    p.trace["reading"] = {**p.trace["reading"], "act": "correct", "cue": "rechoose"}
            if isinstance(decision, dp.Choose) and isinstance(q, Choice):
                # bind the mention for this session, then run the original utterance again (a word's typo,
                # "did you mean quote?": no person to bind — its text is the request as corrected)
                if q.asks != "did_you_mean":
                    c.grounding.remember_anchor(s, q.mention, decision.candidate.anchor_id)
                    chosen = {"mention": q.mention, "anchor_id": decision.candidate.anchor_id,
                              "candidates": [x.to_dict() for x in q.candidates]}
                p.trace["chosen"] = decision.candidate.anchor_id
                p.repairs.append("choose")
                text, ref, answer, parsed = q.text, datetime.fromisoformat(q.ref) if q.ref else ref, None, None
                s.pending = q = q.outer
                p.then = q.then if q is not None else ()
                continue
            if isinstance(decision, dp.Correct) and isinstance(q, Choice) and decision.values.get("person"):
                # "不对，是李工": the person is named anew — the utterance runs again with the new name
                # (grounded like any mention: anchored, asked about when several fit, marked when unknown)
                said = _said(parsed, str(decision.values["person"]))
                p.repairs.append("correction")
                p.trace["renamed"] = {"from": q.mention, "to": said}
                text = _renamed(q.text, q.mention, said)
                ref, answer, parsed = datetime.fromisoformat(q.ref) if q.ref else ref, None, None
                s.pending = q = q.outer
                p.then = q.then if q is not None else ()
                continue
            break
        await self._carry(s, p, q, heard, decision, entities, ambiguous, text, trace_id)

    def _reminded(self, s: Session, parsed: Any, ref: datetime, p: Part) -> Any:
        """"提醒我明天把报价单发给王芳" / "remind me tomorrow to send the quote to Wang Fang": request words
        that open the utterance (:func:`~hermesd.nlu.task.leading_trigger`) make it a request to be
        reminded — of the request after them, which the classifier heard instead (the words after the
        trigger, parsed alone, have the same intent). The intent becomes the pack's reminder: the one
        whose slots hold a ``task`` (the session fills it with the words after the trigger) and whose
        keywords name the trigger (提醒, remind); the request itself is not carried out now."""
        if parsed is None or parsed.intent is None or parsed.out_of_scope:
            return parsed
        lead = leading_trigger(parsed.text, [sp for t in parsed.times for sp in t.spans])
        if lead is None:
            return parsed
        said = lead.lower()
        reminders = [x.name for x in self.c.nlu.engine.specs if "task" in (x.slots or {}).values()
                     and any(k and k.lower() in said for k in x.keywords)]
        if not reminders or parsed.intent in reminders:
            return parsed
        reminder = reminders[0]
        norm = normalize(parsed.text).text
        rest = norm[norm.find(lead) + len(lead):]
        inner = self.c.nlu.parse(rest, ref, s.tz, s.locale, budget_ms=self.c.settings.parsing_ms)
        if inner.intent != parsed.intent:
            return parsed
        p.trace["reminded"] = parsed.intent
        return replace(parsed, intent=reminder)

    def _reminder_intent(self) -> str | None:
        """The pack's reminder: the intent whose slots are a task and its times, nothing else (reminder.set)."""
        return next((x.name for x in self.c.nlu.engine.specs if {"task", "datetime"} <= set((x.slots or {}).values())
                     <= _TASK_AND_TIMES), None)

    def _sibling(self, intent: str | None, action: str) -> str | None:
        """The pack's intent that does ``action`` in ``intent``'s domain (intents are named ``domain.action``:
        ``reminder.set`` → ``reminder.cancel``), or None when the pack has none."""
        if not intent or "." not in intent:
            return None
        name = f"{intent.rsplit('.', 1)[0]}.{action}"
        return name if any(x.name == name for x in self.c.nlu.engine.specs) else None

    def _stops_reminding(self, parsed: Any, p: Part) -> Any:
        """"别再提醒我吃药了" / "stop reminding me to take my pills" (:func:`~hermesd.dialogue.reminders.stops_reminding`):
        a request to take back the reminder about what follows — the reminder domain's ``cancel`` intent (its
        rules find the reminder by its topic and ask before they cancel), never a new reminder nor a bare "don't"
        (:meth:`_negated`), whatever the classifier read from 提醒 / "remind"."""
        if parsed is None or not parsed.text or not stops_reminding(normalize(parsed.text).text):
            return parsed
        cancel = self._sibling(self._reminder_intent(), "cancel")
        if cancel is None or parsed.intent == cancel:
            return parsed
        p.trace["stops_reminding"] = parsed.intent
        return replace(parsed, intent=cancel, out_of_scope=False, kind="command", clause=None)

    def _change_intent(self, intent: str | None) -> str | None:
        """The pack's intent that moves what ``intent``'s domain keeps (``reminder.set`` → ``reminder.change``:
        intents are named ``domain.action``), or None when the pack has none."""
        if not intent or "." not in intent:
            return None
        name = f"{intent.rsplit('.', 1)[0]}.change"
        return name if any(x.name == name for x in self.c.nlu.engine.specs) else None

    def _after_reminders(self, s: Session) -> bool:
        """The turn before this one was about reminders (its intent is the reminder domain's): what "挪到周五" /
        "move it to friday" moves is the reminder just talked about."""
        rem = self._reminder_intent()
        last = s.history[-1] if s.history else None
        domain = rem.rsplit(".", 1)[0] if rem else None
        return domain is not None and last is not None and str(last.get("intent") or "").rsplit(".", 1)[0] == domain

    def _changed(self, s: Session, parsed: Any, p: Part, ref: datetime | None = None) -> Any:
        """"把开会的提醒改到明天下午3点" / "move the meeting reminder to 4pm" (:func:`~hermesd.dialogue.reminders.asks_change`)
        and, right after a reminder was set, a repair of only its time ("不是9点，是10点", "不对，是十点", "no, 10
        not 9", "make that 10", "actually 10 o'clock", :func:`~hermesd.dialogue.reminders.time_repair`):
        a request to move it — its domain's ``change`` intent (:meth:`_change_intent`) — never a second
        one set beside it. A repair's time is the one it names (not the reparandum); a bare hour ("make that
        10") is read as that clock hour."""
        if parsed is None or not parsed.text:
            return parsed
        t = normalize(parsed.text).text
        shift = said_shift(parsed.text, parsed.times)
        rem = self._reminder_intent() if shift is not None else None
        if shift is not None and not any(getattr(x, "kind", None) == "duration" for x in parsed.times):
            # "make it 10 minutes earlier" / "an hour later" names no verb of moving, "推迟一会儿" / "snooze it" no
            # amount: a move only in a talk about reminders (heard as one, or right after one)
            last = s.history[-1] if s.history else None
            domains = {str(i).rsplit(".", 1)[0] for i in (None if parsed.out_of_scope else parsed.intent,
                                                           last.get("intent") if last else None) if i}
            if rem is None or rem.rsplit(".", 1)[0] not in domains:
                shift = None
        if shift is not None:
            # "推迟半小时", "snooze it for 10 minutes", "把开会的提醒提前10分钟": a move by that much — of what the
            # domain heard keeps, else of a reminder (the one thing a shift by a duration moves here)
            change = self._change_intent(parsed.intent) if parsed.intent and not parsed.out_of_scope else None
            change = change or self._change_intent(rem)
            if change is not None:
                p.trace["change"] = f"shift:{shift}"
                return replace(parsed, intent=change, out_of_scope=False, kind="command")
        if parsed.times and moves_unnamed(t) and self._after_reminders(s):
            # "挪到周五", "postpone it to the weekend" right after a reminder was talked about: that reminder moves,
            # whatever the scorer made of a verb and a time alone (order.status for 推迟到周五, out of scope)
            change = self._change_intent(self._reminder_intent())
            if change is not None:
                p.trace["change"] = "unnamed"
                return replace(parsed, intent=change, out_of_scope=False, kind="command")
        if parsed.intent and not parsed.out_of_scope and asks_change(t):
            change = self._change_intent(parsed.intent)
            if change and change != parsed.intent:
                p.trace["change"] = parsed.intent
                return replace(parsed, intent=change)
            return parsed
        last = s.history[-1] if s.history else None
        rep = time_repair(parsed.text, [x.text for x in parsed.times]) \
            if last is not None and last_done([last]) is not None else None
        change = self._change_intent(last.get("intent")) if rep is not None and last is not None else None
        if rep is not None and change is not None and rep.hour:
            # "make that 10": the hour of the time just set, read as a clock time ("make that at 10")
            spelled = self.c.nlu.parse(rep.spelled(parsed.text), ref or datetime.now(timezone.utc), s.tz, s.locale,
                                       budget_ms=self.c.settings.parsing_ms)
            rep = time_repair(spelled.text, [x.text for x in spelled.times])
            parsed = spelled if rep is not None and not rep.hour else parsed
            rep = rep if rep is not None and not rep.hour else None
        if rep is not None and change is None:
            return parsed
        if rep is None:
            if parsed.intent and parsed.intent == self._change_intent(parsed.intent):
                # a change needs a change verb (or a repair of the time just set): "把明天的提醒全部取消"
                # is the next reading of the scorer, never a move
                rest = [m.intent for m in parsed.intents if m.intent != parsed.intent]
                p.trace["change"] = f"not:{parsed.intent}"
                if rest and any(x.name == rest[0] for x in self.c.nlu.engine.specs):
                    return replace(parsed, intent=rest[0])
                return replace(parsed, intent=None, out_of_scope=True)  # next best is out of scope
            return parsed
        p.trace["change"] = "repair"
        to = next((x for x in parsed.times if x.span[0] < rep.end and rep.start < x.span[1]), parsed.times[-1])
        ent = next((e for e in parsed.entities if e.type == "datetime" and tuple(e.span) == tuple(to.span)), None)
        if ent is None:
            return parsed
        # the request is the repair's time alone: the reparandum ("9") and the editing words ("我是说", "make
        # that") name no reminder — the one just set is moved
        a, b = to.span
        value = {**ent.value, "span": [0, b - a]} if isinstance(ent.value, dict) and "span" in ent.value else ent.value
        said = parsed.text[a:b]
        return replace(parsed, text=said, normalized=normalize(said).text, intent=change, kind="command", clause=None,
                       entities=(replace(ent, span=(0, b - a), value=value),), times=(replace(to, span=(0, b - a)),))

    def _time_alone(self, s: Session, q: OpenQuestion | None, parsed: Any, p: Part) -> Any:
        """An utterance that says only a time (:func:`~hermesd.dialogue.whenjoin.time_alone`: 十点, 上午十点吧, "at
        6pm") with nothing open asks for no action, whatever the classifier guessed from a bare number (十点 as
        device.shutdown):

        - right after a reminder was set (or moved) with a day but no clock time (后天 → the default time,
          :func:`~hermesd.dialogue.whenjoin.clock_left_open`), a clock time is the one it left open: the reminder
          domain's ``change`` intent moves what was just set (trace ``change`` = ``repair``, as a time repair); a
          list or a cancel just done set nothing, and leaves no clock open;
        - else it is the time of something not yet said: the pack's reminder intent (its slots a task and its
          times, nothing else) asks what (trace ``time_alone`` = ``ask``; the question is tentative, :class:`~hermesd.dialogue.
          questions.Ask` ``tentative``: no pending task is kept of it unless it is answered);
        - "now" (现在, "now": the instant itself, grain second) asks for no later time and keeps its reading;
        - a pack with no reminder intent (the SGD pack: its form asks "What time would you like?" in its own
          state, not as a session question) has no action a time alone could want: the classifier's reading
          stands (sgd.inform fills the asked time).

        With a question open the time is an answer to it (:mod:`hermesd.dialogue.reader`); ``parsed`` is returned
        unchanged then, and when a change was read already (:meth:`_changed`)."""
        change = str(p.trace.get("change") or "")
        if q is not None or parsed is None or not parsed.times or (change and not change.startswith("not:")):
            return parsed
        if any(x.grain == "second" for x in parsed.times) or \
                not time_alone(parsed.text, [sp for x in parsed.times for sp in x.spans]):
            return parsed
        setter = self._reminder_intent()
        if setter is None:
            return parsed
        last = s.history[-1] if s.history else None
        # what was just done set (or moved) something at a default time: a list or a cancel left no clock open
        just_set = last is not None and last_done([last]) is not None \
            and last.get("intent") in (setter, self._change_intent(setter))
        moved = self._change_intent(setter) if just_set and clock_left_open(last.get("entities")) else None
        if just_set and moved is None and revises(parsed.normalized):
            # "那就周五吧", "ok then friday", "friday instead" right after a reminder was set: it moves (as
            # "改到周五" does), never a second reminder for a task asked again
            p.trace.update({"change": "revise", "time_alone": "repair"})
            return replace(parsed, intent=self._change_intent(setter), out_of_scope=False, kind="command", clause=None)
        to = next((x for x in parsed.times if names_clock(x.to_dict())), None)
        ent = next((e for e in parsed.entities if to is not None and e.type == "datetime"
                    and tuple(e.span) == tuple(to.span)), None)
        if moved is not None and ent is not None:
            p.trace.update({"change": "repair", "time_alone": "repair"})
            # the request is the time alone (its particles and leads name no reminder: "那就下午两点吧" is about
            # none called 那就), on the day the reminder was set for (后天 + 3点半 → 后天15:30, as said together)
            a, b = to.span
            said = parsed.text[a:b]
            days = [v for v in (last.get("entities") or {}).get("datetime") or () if isinstance(v, dict)]
            ref = datetime.fromtimestamp(s.ref_ms / 1000, timezone.utc)
            joined = clock_on_day(days[0], to.to_dict(), ref, self.c.grounding.zone(s)) if len(days) == 1 else None
            if joined is not None and str(joined.get("start") or "")[:10] != str(days[0].get("start") or "")[:10]:
                joined = None  # the day words read another day now (midnight passed): the reminder's own day keeps
            value = {**(joined or ent.value), "span": [0, b - a]} if isinstance(ent.value, dict) else ent.value
            return replace(parsed, text=said, normalized=normalize(said).text, intent=moved, out_of_scope=False,
                           kind="command", clause=None, entities=(replace(ent, span=(0, b - a), value=value),),
                           times=(replace(to, span=(0, b - a)),))
        p.trace["time_alone"] = "ask"  # a time wants what is to be done then
        return replace(parsed, intent=setter, out_of_scope=False, kind="command", clause=None)

    def _object_named(self, q: OpenQuestion | None, parsed: Any, d: Any) -> Any:
        """"取消第二个" / "cancel all my reminders": a cancel word (or a bare position) that names what to
        act on — an entity filling a slot of the utterance's own intent — is that request, not the bare
        word: with nothing open it runs; at a question of the same intent it replaces the question."""
        if parsed is None or parsed.intent is None or parsed.out_of_scope:
            return d
        if not (isinstance(d, dp.NothingOpen) and d.act in ("cancel", "choose")) and \
                not (isinstance(d, dp.Cancel) and isinstance(q, (Ask, Confirm)) and q.intent == parsed.intent):
            return d
        t = parsed.normalized.strip()
        if _CLAUSE_BREAK.search(t.rstrip("。.!！?？")) or (len(_EN_WORD.findall(t)) > OBJECT_NAMED_WORDS if not _CJK.search(t)
                                                       else len(t) > OBJECT_NAMED_CHARS):
            return d  # an explanation around a no ("不用了，她这周出差…") stays the no it opens with
        types = set(self.c.grounding.spec_slots(parsed.intent).values())
        if not any(e.type in types for e in parsed.entities):
            return d
        return dp.NewTurn() if q is None else dp.Replace()

    def _undo_last(self, s: Session, q: OpenQuestion | None, parsed: Any, d: Any) -> Any:
        """"actually cancel that" / "取消吧" said with nothing open, right after something was done: "that" is
        what was just done — when the utterance's own intent is of the same domain (``reminder.cancel``
        after ``reminder.set``; intents are named ``domain.action``), that request runs (its rule asks
        before it cancels) instead of "nothing to cancel"."""
        if q is not None or not (isinstance(d, dp.NothingOpen) and d.act == "cancel") or parsed is None \
                or not parsed.intent or parsed.out_of_scope or not s.history:
            return d
        done = last_done(s.history[-1:])
        last = str(done.get("intent") or "") if done is not None else ""
        if "." not in last or last.rsplit(".", 1)[0] != parsed.intent.rsplit(".", 1)[0] or last == parsed.intent:
            return d
        return dp.NewTurn()

    def _rechoose(self, s: Session, q: Confirm, heard: Heard, d: Any) -> Any:
        """"no, the one in R&D" at a card whose person was chosen from several: the answer is read
        against that earlier choice; naming another of its candidates corrects the person."""
        chosen = s.refs.get("chosen")
        if not chosen:
            return d
        cands = tuple(Candidate.from_dict({**x, "previous": x["anchor_id"] == chosen["anchor_id"]})
                      for x in chosen["candidates"])
        reading = read_answer(Choice(mention=chosen["mention"], candidates=cands, text=""), heard, self.c.lexicon)
        if reading.act != "choose" and len(cands) == 2 and _names_other(heard.text, self.c.lexicon):
            # "等等，发给另一个张工" / "wait, send it to the other one": "the other" anywhere in the answer,
            # not only as the whole of a clause, is the candidate not chosen before
            reading = Reading("choose", choice=next(i for i, x in enumerate(cands) if not x.attrs["previous"]))
        if reading.act != "choose" or reading.choice is None or not 0 <= reading.choice < len(cands):
            return d
        new = cands[reading.choice]
        old = next((x for x in cands if x.anchor_id == chosen["anchor_id"]), None)
        slot = next((k for k, v in q.entities.items() if old is not None and v == old.display), None)
        if new.anchor_id == chosen["anchor_id"] or slot is None:
            return d
        self.c.grounding.remember_anchor(s, chosen["mention"], new.anchor_id)
        s.refs.setdefault("anchors", {})[new.display] = new.anchor_id
        latin = new.attrs.get("display_en")
        if latin and latin != new.display:  # an English card names the new person as it named the first
            s.refs.setdefault("names_en", {})[new.display] = english_name(new.display, latin)
        s.refs["chosen"] = {**chosen, "anchor_id": new.anchor_id}
        return dp.Correct({slot: new.display})

    async def _ground(self, s: Session, p: Part, parsed: Any, q: OpenQuestion | None) -> tuple[dict, Any]:
        c = self.c
        a0 = time.perf_counter()
        load = c.load.overloaded()
        if load:
            p.degrade(f"load:{load}")
        if not isinstance(q, (Ask, Confirm, Choice, Pick)):
            # a new request's references start afresh; the words of the document kinds named in this
            # session stay, as a turn's several requests are committed together (capture_turn.document_kind)
            s.refs = {"kind_words": s.refs["kind_words"]} if "kind_words" in s.refs else {}
        s.refs.pop("session_anchor", None)
        entities, ambiguous = await c.grounding.entities(s, parsed, fuzzy=load is None, q=q)
        if s.refs.pop("session_anchor", None):
            p.repairs.append("session_anchor")
        if ambiguous and await c.grounding.disambiguate_by_memory(s, ambiguous, entities):
            p.trace["disambiguated_by"] = "memory"
            entities, ambiguous = await c.grounding.entities(s, parsed, fuzzy=load is None, q=q)
        intent = q.intent if isinstance(q, (Ask, Confirm)) else getattr(parsed, "intent", None)
        notes, p.ref_missing = await resolve_references(c.grounding, s, parsed, entities, lexicon=c.lexicon,
                                                        intent=intent, lang=p.lang)
        if notes:
            p.trace["references"] = notes
        if p.pronoun_ask:
            p.ref_missing.insert(0, p.pronoun_ask)
        elif ambiguous is None:
            note_people(s, entities, keep_turn=p.together)
        p.timings["anchor"] = p.timings.get("anchor", 0.0) + (time.perf_counter() - a0) * 1000
        return entities, ambiguous

    def _picked_by_time(self, s: Session, q: Pick, entities: dict[str, list[Any]]) -> int | None:
        """The one thing of ``q`` whose time (its card's ``at``) falls in the time the answer names, or None."""
        for t in entities.get("datetime") or []:
            if not isinstance(t, dict):
                continue
            since, until = self.c.grounding.ms_range(s, t)
            if since is None or until is None:
                continue
            hits = []
            for k, cand in enumerate(q.choices):
                try:
                    at = datetime.fromisoformat(str(cand.attrs.get("at")))
                except ValueError:
                    continue
                if at.tzinfo is None:
                    at = at.replace(tzinfo=self.c.grounding.zone(s))
                if since <= at.timestamp() * 1000 < until:
                    hits.append(k)
            if len(hits) == 1:
                return hits[0]
        return None

    def _join_times(self, s: Session, p: Part, q: Ask | Confirm, values: dict[str, Any]) -> None:
        """A day said in one answer and a clock time in a later one (明天, then 下午三点; "at 3pm", then
        "tomorrow") are one time: each time slot of ``values`` whose new value complements the form's
        is the two read together (:func:`hermesd.dialogue.whenjoin.join_when`), in place."""
        if not isinstance(q, Ask):
            return
        ref = datetime.fromtimestamp(s.ref_ms / 1000, timezone.utc) if s.ref_ms else datetime.now(timezone.utc)
        reminder = q.intent is not None and q.intent == self._reminder_intent()
        for slot, etype in self.c.grounding.spec_slots(q.intent).items():
            had, new = q.entities.get(slot), values.get(slot)
            if reminder and etype == "datetime" and isinstance(new, dict) and new.get("kind") == "duration" \
                    and new.get("text") and q.slot == slot:
                # 什么时候提醒你？ — "半小时" / "20 minutes": that long from now, as "半小时后" / "in 20 minutes" reads
                said = str(new["text"])
                later = f"{said}后" if re.search(r"[\u4e00-\u9fff]", said) else f"in {said}"
                got = self.c.nlu.parse(later, ref, s.tz, s.locale, budget_ms=self.c.settings.parsing_ms)
                when = next((e for e in got.entities if e.type == "datetime" and isinstance(e.value, dict)
                             and e.value.get("kind") != "duration"), None)
                if when is not None:
                    values[slot] = new = self.c.grounding.time_value(when.value, later)
                    p.repairs.append("duration_from_now")
                    p.trace["duration_from_now"] = later
            if etype != "datetime" or had is None or new is None or new == had:
                continue
            joined = join_when(had, new, ref, self.c.grounding.zone(s))
            if joined is not None:
                values[slot] = self.c.grounding.time_value(joined)
                p.repairs.append("time_joined")
                p.trace["time_joined"] = joined["text"]

    def _read(self, q: OpenQuestion | None, heard: Heard, answer: dict[str, Any] | None) -> Reading:
        if answer is not None and "accept" in answer:
            return Reading("affirm" if answer["accept"] else "deny", cue="session.confirm")
        if answer is not None and isinstance(answer.get("choice"), int):
            return Reading("choose", choice=answer["choice"], cue="session.confirm")
        return read_answer(q, heard, self.c.lexicon)

    # -- carrying a decision out ---------------------------------------------------------

    async def _carry(self, s: Session, p: Part, q: OpenQuestion | None, heard: Heard, d: Any,
                     entities: dict[str, list[Any]], ambiguous: Any, text: str, trace_id: str) -> None:
        if isinstance(d, dp.Digress) and isinstance(q, Offer):
            # something else said to an offer not yet said: handled exactly as with nothing open (no
            # repair reads it against the old task), then the offer comes back, to be said after the
            # answer (:meth:`run`) — unless the request asked a question of its own: the task then stays
            # pending for a later session
            s.pending = None
            await self._carry(s, p, None, heard, dp.NewTurn(), entities, ambiguous, text, trace_id)
            if s.pending is None and s.state is State.LISTENING:
                s.pending = q
            return
        c, lang = self.c, p.lang
        if isinstance(d, dp.DropTask) and isinstance(q, Offer) and d.route:
            # the user moved on: the offer is withdrawn (not offered again) and the utterance is handled
            # as a request like any other — one that asks its own question has no offer behind it
            await c.memory.set_task_status(q.task_id, "dropped")
            s.pending, q, d = None, None, dp.NewTurn()
        if await self._memory(s, p, q, d, text):
            return
        if self._about_last(s, p, q, d, text):
            return
        if self._negated(s, p, q, d, heard, text):
            return
        if self._stated(s, p, q, d, heard, text):
            return
        if self._not_this_device(s, p, q, d, heard, entities, text):
            return
        if await self._asked(s, p, q, d, heard, entities, text, trace_id):
            return
        if self._mistyped(s, p, q, d, heard, entities, text):
            return
        if self._not_a_document(s, p, q, d, heard, entities, text):
            return
        if p.ref_missing:  # said first; the request goes on without the slot (its rule asks for it)
            p.texts.extend(p.ref_missing)
            p.repairs.append("reference_missing")
        invalid = _invalid_date(p.parsed, lang)
        routes = isinstance(d, (dp.NewTurn, dp.Digress, dp.Replace, dp.Fill, dp.Correct)) or \
            (isinstance(d, dp.DropTask) and d.route)
        if invalid is not None and routes:
            # an impossible date is answered in words; nothing runs, nothing is widened
            p.repairs.append("impossible_date")
            p.intent = heard.intent
            self._keep_or_end(s, p, q, invalid, "impossible date")
            return
        bad = _impossible_clock(p.parsed)
        if bad is not None and (routes or isinstance(q, Ask)):
            # "明天25点提醒我开会": said back, and the time asked again — never a default hour, never
            # glued to the task. The request goes on without its time, so its rule asks for one.
            p.repairs.append("impossible_time")
            said = impossible_clock_text(bad, lang)
            if not routes or heard.intent is None or "datetime" not in c.grounding.spec_slots(heard.intent).values():
                self._keep_or_end(s, p, q, said if not isinstance(q, Ask) else f"{said}{self._prompt(q, lang)}",
                                  "impossible time")
                return
            p.texts.append(said)
            entities = {k: v for k, v in entities.items() if k != "datetime"}
        if routes and ambiguous is None and await self._person_unknown(s, p, q, heard, entities, text):
            return
        if ambiguous is not None and routes:
            self._ask_choice(s, p, q, ambiguous, text)
            return
        if isinstance(d, dp.Resume) and isinstance(q, Confirm) and q.intent == "memory.forget":
            s.pending = None
            await c.memturns.forget_confirmed(s, p, q)
        elif isinstance(d, dp.Picked) and isinstance(q, Pick):
            # one of the things found: the plan goes on from the choose step with it as steps.<save>
            s.pending = None
            p.path = "choice"
            p.repairs.append("choose")
            p.then = q.then
            p.trace["picked"] = d.index + 1
            await c.plans.run(s, p, intent=q.intent, entities=dict(q.entities), text=text, trace_id=trace_id,
                              resume=replace(q, steps={**q.steps, q.save: q.items[d.index]}), utterance=q.utterance)
        elif isinstance(d, dp.Resume) and isinstance(q, Confirm):
            s.pending = None
            p.path = "confirm"
            p.then = q.then
            await c.plans.run(s, p, intent=q.intent, entities=dict(q.entities), text=text, trace_id=trace_id,
                              resume=q, utterance=q.utterance)
        elif isinstance(d, (dp.Fill, dp.Correct)) and isinstance(q, (Ask, Confirm)):
            values = {**q.entities, **c.grounding.slot_values(q.intent, entities), **d.values}
            self._join_times(s, p, q, values)
            for slot, etype in c.grounding.spec_slots(q.intent).items():
                if etype == "person" and slot in q.entities and values.get(slot) != q.entities[slot]:
                    c.grounding.rebind(s, q.entities[slot], values.get(slot))
            s.pending = None
            p.path = "form" if isinstance(d, dp.Fill) else "correction"
            p.repairs.append("fill" if isinstance(d, dp.Fill) else "correction")
            p.then = q.then
            await c.plans.run(s, p, intent=q.intent, entities=values, text=text, trace_id=trace_id,
                              utterance=q.utterance)
        elif isinstance(d, dp.ResumeTask) and isinstance(q, Offer):
            s.pending = None
            await c.memory.set_task_status(q.task_id, "resumed")
            p.path = "pending_task"
            slots = {**{k: v for k, v in q.slots.items() if k != "_utterance"}, **d.values}
            await c.plans.run(s, p, intent=q.intent, entities=slots, text=text, trace_id=trace_id)
        elif isinstance(d, dp.DropTask) and isinstance(q, Offer):
            s.pending = None
            if d.later:  # "not now": the task stays pending for a later session
                await c.memory.set_task_status(q.task_id, "open")
                p.end(s, c, catalogue.say("offer_later", lang), "cancel", "offer put off")
            else:
                await c.memory.set_task_status(q.task_id, "dropped")
                p.end(s, c, catalogue.say("cancelled", lang), "cancel", "offer declined")
        elif isinstance(d, dp.Cancel):
            s.pending, s.slots = None, {}
            p.repairs.append("cancel")
            p.then = q.then if q is not None else ()
            # a no to a card does nothing, says so; a form not understood twice is dropped, said so
            said = {"confirm": "declined", "unread": "ask_dropped"}.get(d.what, "cancelled")
            p.end(s, c, catalogue.say(said, lang), "cancel", f"{d.what} cancelled")
            p.intent = getattr(q, "intent", None)
        elif isinstance(d, dp.NotKnown):
            s.pending, s.slots = None, {}
            p.repairs.append("not_known")
            p.then = q.then if q is not None else ()
            p.trace["not_known"] = d.who
            p.end(s, c, await self._not_known(d.who, lang), "clarify", "person not known")
            p.intent = getattr(q, "intent", None)
        elif isinstance(d, dp.AskAgain) and q is not None and c.llm_turns.takes_unreadable(s, p):
            # an answer the reader cannot take, that the pack lets the LLM executor try (llm.while_open):
            # a digression, the open question asked again after it
            s.pending = None
            p.repairs.append("digression")
            await c.plans.run(s, p, intent=None, entities={}, text=text, trace_id=trace_id)
            if s.pending is None and s.state is State.LISTENING:
                self._reask(s, p, q)
        elif isinstance(d, (dp.Repeat, dp.Help, dp.AskAgain, dp.Wait)) and q is not None:
            p.repairs.append(d.name)
            if isinstance(d, dp.AskAgain) and isinstance(q, Ask):
                q = replace(q, missed=q.missed + 1)  # the next answer not understood drops the form
            if isinstance(q, Offer):  # "what?" to an offer: said again, in this turn's language
                q = await self._said(p, q)
            self._keep_or_end(s, p, q, self._again_text(q, d, lang), d.name)
        elif isinstance(d, dp.SmallTalk):
            p.repairs.append("smalltalk")
            p.path = "smalltalk"
            text_ = smalltalk_reply(d.kind, lang, capabilities(
                c.nlu.engine.specs, getattr(c.nlu, "pack_titles", {}) or {}, lang, does=self._does, memory=True))
            if q is None:
                p.end(s, c, text_, "smalltalk", d.kind)
            else:
                p.texts.append(text_)
                self._reask(s, p, q)
        elif isinstance(d, dp.NothingOpen):
            if not await self._cancel_which(s, p, d, heard, entities, text, trace_id):
                self._nothing_open(s, p, d)
        else:  # NewTurn, Digress, Replace
            digression = isinstance(d, dp.Digress) and q is not None and not d.cancel_first
            s.pending = None
            if isinstance(d, dp.Digress) and d.cancel_first:  # a no to the card, then the new request
                s.slots = {}
                p.texts.append(catalogue.say("cancelled", lang))
                p.repairs.append("cancel")
            if digression:
                p.repairs.append("digression")
            await c.plans.run(s, p, intent=heard.intent, entities=c.grounding.slot_values(heard.intent, entities),
                              text=text, trace_id=trace_id)
            if digression and s.pending is None and s.state is State.LISTENING and not _tentative(q):
                self._reask(s, p, q)  # a question asked of a time said alone is not asked again: it is dropped
            elif digression and isinstance(q, Confirm) and q.utterance and isinstance(s.pending, (Ask, Confirm)) \
                    and s.pending is not q:
                # the digression asks a question of its own ("把合同发给李娜" to a card for the quote): the card
                # it set aside is held as the request said after it, asked again once this one is answered
                s.pending = replace(s.pending, then=tuple(s.pending.then) + (q.utterance,))
                p.repairs.append("card_held")

    async def _memory(self, s: Session, p: Part, q: OpenQuestion | None, d: Any, text: str) -> bool:
        """An explicit memory request (remember / recall / forget, :mod:`.memoryturn`) said as a new
        request or a digression: carried out here, the open question asked again after it."""
        change = p.trace.get("change")
        if not isinstance(d, (dp.NewTurn, dp.Digress, dp.Replace, dp.AskAgain)) \
                or (change and not str(change).startswith("not:")) or asks_change(normalize(text).text):
            return False  # "把开会的提醒改到3点" moves a reminder (:meth:`_changed`); it is no fact to keep
        req = await self.c.memturns.read(s, text, p.parsed)
        if req is None:
            return False
        # said while a question is open, it is a digression however the reader took it
        digression = q is not None and not getattr(d, "cancel_first", False)
        s.pending = None
        if digression:
            p.repairs.append("digression")
        await self.c.memturns.carry(s, p, req, text)
        if digression and s.pending is None and s.state is State.LISTENING and not _tentative(q):
            self._reask(s, p, q)  # type: ignore[arg-type]
        return True

    def _about_last(self, s: Session, p: Part, q: OpenQuestion | None, d: Any, text: str) -> bool:
        """"是不是发错了" / "did that go to the wrong person?": answered from the session — what was
        last done, in its own reply's words, and how to put it right — never a tool run on its words."""
        if not isinstance(d, (dp.NewTurn, dp.Digress, dp.Replace, dp.AskAgain)) or not text \
                or not asks_about_last(normalize(text).text):
            return False
        done = last_done(s.history)
        if done is None:
            said = catalogue.say("nothing_done", p.lang)
        else:
            at = datetime.fromtimestamp(int(done.get("at_ms") or s.ref_ms) / 1000, timezone.utc) \
                .astimezone(self.c.grounding.zone(s))
            what = str(done.get("reply") or "").strip().replace("\n", " ")
            said = catalogue.say("last_done", p.lang, at=f"{at:%H:%M}", what=what if what[-1:] in "。.!！?？" else what + "。")
        p.repairs.append("about_last")
        p.trace["about_last"] = done.get("trace_id") if done is not None else None
        if q is None or getattr(d, "cancel_first", False):
            p.end(s, self.c, said, "clarify", "about the last action")
            return True
        s.pending = None
        p.repairs.append("digression")
        self.c._move(s, Event.ROUTED, "about the last action")
        self.c._move(s, Event.DONE, "about the last action")
        p.texts.append(said)
        p.path = "clarify"
        self._reask(s, p, q)
        return True

    def _negated(self, s: Session, p: Part, q: OpenQuestion | None, d: Any, heard: Heard, text: str) -> bool:
        """"不要重启nginx" / "don't send the quote to Li Na": a request said in the negative is not
        that request — nothing runs, no card (a yes to one used to run it); an open question stays open."""
        if not isinstance(d, (dp.NewTurn, dp.Digress, dp.Replace)) or heard.intent is None or not text \
                or not negated_request(unicodedata.normalize("NFKC", text)) \
                or self._says_no(heard.intent):  # 千万 before normalize() reads it as a number
            return False
        p.repairs.append("negated")
        p.intent = heard.intent
        p.trace["negated"] = heard.intent
        self._keep_or_end(s, p, q, catalogue.say("not_doing", p.lang), "negated request")
        return True

    def _stated(self, s: Session, p: Part, q: OpenQuestion | None, d: Any, heard: Heard, text: str) -> bool:
        """"我昨天已经把报价单发给李娜了" / "I sent the quote to Li Na yesterday" / "this printer is dead again":
        a statement (:func:`~hermesd.dialogue.statement.statement`) heard as a request that acts (a card,
        a hand-off) is answered as a statement — noted, nothing runs, no card; an open question stays open."""
        if not isinstance(d, (dp.NewTurn, dp.Digress, dp.Replace)) or heard.intent is None or not text \
                or not self._acts(heard.intent):
            return False
        kind = statement(normalize(text).text)
        if kind is None:
            return False
        p.repairs.append("statement")
        p.intent = heard.intent
        p.trace["statement"] = kind
        self._keep_or_end(s, p, q, catalogue.say(f"statement_{kind}", p.lang), "statement")
        return True

    #: the entity types whose names a typo is looked for in (a gazetteer each): a document kind
    TYPO_TYPES = ("doc_type",)

    def _mistyped(self, s: Session, p: Part, q: OpenQuestion | None, d: Any, heard: Heard,
                  entities: dict[str, list[Any]], text: str) -> bool:
        """"把报家单发给王芳": a request whose intent takes a document kind and names none, whose words hold a
        kind's name one edit away (:func:`~hermesd.dialogue.typos.near_name`: 3+ characters, one kind only),
        is asked about — "是说报价单吗？", a choice of that one name — never run on a guess; nothing runs until
        a yes, which runs the request as corrected (the choice's text); a no drops it."""
        if not isinstance(d, (dp.NewTurn, dp.Digress, dp.Replace)) or heard.intent is None or not text:
            return False
        slots = self.c.grounding.spec_slots(heard.intent)
        gazetteers = getattr(self.c.nlu.engine, "gazetteers", {}) or {}
        for etype in self.TYPO_TYPES:
            if etype not in slots.values() or entities.get(etype) or entities.get("doc_id"):
                continue
            near = near_name(normalize(text).text, gazetteers.get(etype) or {})
            if near is None:
                continue
            said, name = near
            p.repairs.append("typo")
            p.intent = heard.intent
            p.trace["typo"] = {"said": said, "name": name}
            fixed = _renamed(text, said, name)
            kind = (gazetteers.get(etype) or {}).get(name, name)
            self._ask_choice(s, p, q, (said, [{"anchor_id": f"{etype}:{kind}", "display": name}]), fixed,
                             key="did_you_mean")
            return True
        return False

    def _not_a_document(self, s: Session, p: Part, q: OpenQuestion | None, d: Any, heard: Heard,
                        entities: dict[str, list[Any]], text: str) -> bool:
        """"send my regards to Li Na": a request whose intent takes a document kind, naming none, whose object
        is no document (:func:`~hermesd.dialogue.sendobject.not_a_document`: no kind name of the gazetteer, no
        document noun) is told that only documents are sent — never asked "Which document?"; nothing runs."""
        if not isinstance(d, (dp.NewTurn, dp.Digress, dp.Replace)) or heard.intent is None or not text:
            return False
        if "doc_type" not in self.c.grounding.spec_slots(heard.intent).values() \
                or entities.get("doc_type") or entities.get("doc_id"):
            return False
        gazetteers = getattr(self.c.nlu.engine, "gazetteers", {}) or {}
        words = [*(gazetteers.get("doc_type") or {}), *self.c.lexicon.lists.get("references.types.doc_type", ())]
        obj = not_a_document(normalize(text).text, words)
        if obj is None:
            return False
        p.repairs.append("not_a_document")
        p.intent = heard.intent
        p.trace["not_a_document"] = obj
        self._keep_or_end(s, p, q, catalogue.say("not_a_document", p.lang, what=obj), "not a document")
        return True

    def _not_this_device(self, s: Session, p: Part, q: OpenQuestion | None, d: Any, heard: Heard,
                         entities: dict[str, list[Any]], text: str) -> bool:
        """"my phone's storage is full" / "内存不够用了怎么办": a sentence heard as a request to read this
        device's state (an intent with a ``this_device`` slot whose rules change nothing, :meth:`_acts`) that
        talks of another device (:func:`~hermesd.dialogue.otherdevice.other_device`; none when it names this
        one) or asks what to do (:func:`~hermesd.dialogue.otherdevice.asks_what_to_do`) is told what hermesd
        can show and how to ask for it — this device's report is never given in its place; nothing runs."""
        if not isinstance(d, (dp.NewTurn, dp.Digress, dp.Replace)) or heard.intent is None or not text:
            return False
        if "this_device" not in self.c.grounding.spec_slots(heard.intent).values() or self._acts(heard.intent):
            return False
        t = normalize(text).text
        other = None if entities.get("this_device") else other_device(t)
        if other is None and not asks_what_to_do(t):
            return False
        spec = next((x for x in self.c.nlu.engine.specs if x.name == heard.intent), None)
        said = [e for e in (getattr(spec, "examples", None) or ()) if bool(_CJK.search(e)) == (p.lang == "zh")]
        req = said[0] if said else str((getattr(spec, "description", None) or {}).get(p.lang, heard.intent))
        key = "other_device" if other is not None else "device_what_to_do"
        p.repairs.append(key)
        p.intent = heard.intent
        p.trace["not_this_device"] = other or "what_to_do"
        self._keep_or_end(s, p, q, catalogue.say(key, p.lang, what=other or "", req=req), key.replace("_", " "))
        return True

    def _says_no(self, intent: str) -> bool:
        """``intent`` is itself a taking back: one of its keywords opens with a cancel word of the lexicon
        (``answers.cancel``: 取消提醒, "cancel reminder") — then a negative said for it ("不用提醒我开会了",
        "I don't need the dentist reminder anymore", which the classifier reads as reminder.cancel) is
        that request, not a "don't"."""
        spec = next((x for x in self.c.nlu.engine.specs if x.name == intent), None)
        key = (intent, id(spec))  # a reloaded pack has new specs
        if key not in self._says_no_cache:
            cancel = [w for w in self.c.lexicon.lists.get("answers.cancel", ()) if len(w) >= 2]
            self._says_no_cache[key] = any(normalize(k).text.startswith(w) for k in (getattr(spec, "keywords", None) or ())
                                           for w in cancel)
        return self._says_no_cache[key]

    def _does(self, intent: str) -> bool:
        """``intent`` is something the packs do, for "what can you do": one of its rules calls a tool, asks,
        confirms, remembers, hands off or says something filled in — not only a fixed sentence (device.shutdown
        says there is no shutdown here). An intent no rule routes is listed (the LLM executor may take it)."""
        rules = self.c.rules().rules_for(intent)
        return not rules or any(a.kind != "reply" or a.paths for r in rules for a in r.actions)

    def _acts(self, intent: str) -> bool:
        """``intent`` changes something: one of its rules puts a card first or hands off to a person."""
        return any(a.kind in ("confirm", "handoff") for r in self.c.rules().rules_for(intent) for a in r.actions)

    async def _asked(self, s: Session, p: Part, q: OpenQuestion | None, d: Any, heard: Heard,
                     entities: dict[str, list[Any]], text: str, trace_id: str) -> bool:
        """A question about an action is not the action: "报价单发给王芳了吗" / "did you send the quote
        to Wang Fang?" asks whether it was done (:func:`~hermesd.dialogue.lastaction.asks_if_done`), "how do I
        restart nginx" / "怎么重启nginx" how it is done (:mod:`hermesd.dialogue.howto`). For an intent that acts
        (:meth:`_acts`) nothing runs and no card opens: either question is answered by the pack's rule that
        reads ``session.asked`` (office.yaml answers a done-question from what memory says was sent; the
        CrossWOZ pack answers "从A到B怎么坐地铁" from its database), else a done-question from this
        session's record of that intent, else "no record"; a how-to question is told how to ask for it."""
        if not isinstance(d, (dp.NewTurn, dp.Digress, dp.Replace)) or heard.intent is None or not text:
            return False
        t = normalize(text).text
        kind = "done" if asks_if_done(t) else "how" if asks_how(t) else None
        if kind is None or not self._acts(heard.intent):
            return False
        p.repairs.append(f"asked_{kind}")
        p.intent = heard.intent
        p.trace["asked"] = kind
        spec = next((x for x in self.c.nlu.engine.specs if x.name == heard.intent), None)
        what = re.sub(r"[（(][^）)]*[）)]", "", (getattr(spec, "description", None) or {}).get(p.lang, "")).strip()
        if kind == "how":
            said = catalogue.say("asked_how", p.lang, req=request_of(text))
        else:
            done = last_done([t_ for t_ in s.history if t_.get("intent") == heard.intent])
            if done is not None:
                at = datetime.fromtimestamp(int(done.get("at_ms") or s.ref_ms) / 1000, timezone.utc) \
                    .astimezone(self.c.grounding.zone(s))
                said = catalogue.say("asked_done_last", p.lang, at=f"{at:%H:%M}", what=str(done.get("reply")).strip())
            else:
                said = catalogue.say("asked_done_none", p.lang, what=what or heard.intent)
        if any(answers_asked(r) for r in self.c.rules().rules_for(heard.intent)):
            # a rule written for the question (its conditions read session.asked) may answer it:
            # "报价单发给王芳了吗" from memory, "从A到B怎么坐地铁" from a travel database
            s.pending = None
            await self.c.plans.run(s, p, intent=heard.intent, entities=self.c.grounding.slot_values(heard.intent, entities),
                                   text=text, trace_id=trace_id, asked=(kind, said))
            if q is not None and s.pending is None and s.state is State.LISTENING:
                self._reask(s, p, q)
            return True
        self._keep_or_end(s, p, q, said, f"asked {kind}")
        return True

    def _prompt(self, q: OpenQuestion, lang: str) -> str:
        """``q`` worded in ``lang``: a re-ask is said whole in the turn's language, never a prefix in one
        language before a question in another (a choice is worded anew; a plan's question as its rule
        rendered it in each language; else as first said)."""
        if isinstance(q, Choice):
            return catalogue.say(q.asks, lang, m=q.mention, opts=_choice_line(q.candidates, lang))
        if isinstance(q, (Ask, Confirm)):
            return q.prompts.get(lang) or q.prompt
        return q.prompt

    def _card(self, q: OpenQuestion, lang: str) -> Any:
        """The card of ``q`` (a confirmation or a choice) with its question in ``lang``; None for others."""
        if not isinstance(q, (Confirm, Choice, Pick)):
            return None
        return {**q.card, "question": self._prompt(q, lang)} if q.card else q.card

    async def _not_known(self, who: str, lang: str) -> str:
        """"我不认识“刘洋”…" and the closest names of the directory (:func:`~hermesd.dialogue.unknown.closest`),
        each as a reply in ``lang`` shows a person (李娜 / Li Na (李娜))."""
        people = getattr(self.c.nlu.engine, "people", None) or {}
        surfaces: dict[str, str] = {}
        for surface, anchor in people.items():
            surfaces.setdefault(anchor, surface)
        names: list[str] = []
        for anchor in closest(who, people):
            res = await self.c.memory.resolve(surfaces[anchor], type="person", fuzzy=False)
            shown = (getattr(res, "text_en", "") or res.text) if lang != "zh" else res.text
            if getattr(res, "status", "") == "resolved" and shown and shown not in names:
                names.append(shown)
        said = catalogue.say("person_not_known", lang, who=who)
        if not names:
            return said
        joined = "、".join(names) if lang == "zh" else ", ".join(names)
        return f"{said}{'' if lang == 'zh' else ' '}{catalogue.say('person_closest', lang, names=joined)}"

    def _again_text(self, q: OpenQuestion, d: Any, lang: str) -> str:
        prompt = self._prompt(q, lang)
        if isinstance(d, dp.Repeat):
            return catalogue.say("repeat", lang, q=prompt)
        if isinstance(d, dp.Wait):
            return catalogue.say("wait", lang, q=prompt)
        expected = "choice" if isinstance(q, (Choice, Pick)) else "slot" if isinstance(q, Ask) else "yes_no"
        if isinstance(d, dp.Help):
            if isinstance(q, (Choice, Pick)):
                cands = q.candidates if isinstance(q, Choice) else q.choices
                return catalogue.say("help_choice", lang, opts=_choice_line(cands, lang))
            return catalogue.say("help_slot" if expected == "slot" else "help_yes_no", lang, q=prompt)
        if isinstance(d, dp.AskAgain) and d.after_no and expected == "choice":
            return catalogue.say("choose_not_that", lang, q=prompt)
        return catalogue.say({"choice": "expect_choice", "slot": "expect_slot"}.get(expected, "expect_yes_no"),
                             lang, q=prompt)

    def _keep_or_end(self, s: Session, p: Part, q: OpenQuestion | None, text: str, reason: str) -> None:
        """Say ``text``; an open question stays open in its own state (its timer still runs)."""
        c = self.c
        if q is None:
            p.end(s, c, text, "clarify", reason)
            return
        p.texts.append(text)
        s.pending = q
        p.path = "clarify"
        p.card = self._card(q, p.lang)
        c._move(s, Event.ROUTED, reason)
        self._reopen(s, q, reason)

    def _reopen(self, s: Session, q: OpenQuestion, reason: str) -> None:
        """From EXECUTING back to the state that waits for ``q``'s answer, with its form's slots."""
        if isinstance(q, (Ask, Confirm)):
            s.slots = {k: v for k, v in q.entities.items() if v is not None}
        if isinstance(q, Offer):
            self.c._move(s, Event.DONE, reason)
        else:
            self.c._move(s, Event.ASK if isinstance(q, Ask) else Event.CONFIRM, reason)

    def _reask(self, s: Session, p: Part, q: OpenQuestion) -> None:
        """After a digression or small talk the open question comes back, asked again exactly once."""
        c = self.c
        if s.state is State.LISTENING:  # the digression's plan finished: a new round for the question
            c._move(s, Event.TEXT, "digression done")
            c._move(s, Event.PARSED, "digression done")
        c._move(s, Event.ROUTED, "digression done")
        if not q.reasked and not isinstance(q, Offer):  # an offer is said at the turn's end (:meth:`_say_offer`)
            key = {Confirm: "confirm_again", Ask: "ask_again"}.get(type(q), "choose_again")
            p.texts.append(catalogue.say(key, p.lang, q=self._prompt(q, p.lang)))
            if isinstance(q, (Confirm, Choice, Pick)):
                p.card = self._card(q, p.lang)
            q = reasked(q)
        s.pending = q
        self._reopen(s, q, "asked again")

    def _hand_over(self, s: Session, p: Part, trace_id: str, say: str, why: str, reason: str) -> None:
        """Hand the session to a person before anything runs: nothing pending, the ``handoff`` event
        (``reason``), and the catalogue sentence ``say`` (also the trace's decision); ``why`` is the
        state machine's note and the handoff's text."""
        c = self.c
        p.trace.update({"intent": None, "decision": say})
        s.pending, s.slots = None, {}
        c._move(s, Event.ROUTED, why)
        c._hand_off(s, why, reason, trace_id)
        p.texts.append(catalogue.say(say, p.lang))
        p.path = "handoff"

    def _name_placed(self, parsed: Any) -> Any:
        """``parsed`` with the name said in a person's place as a person mention, when the intent takes a
        person and the NLU found none there: "把报告发给赵六", "send the report to Bob", "send it to Li Nan" (the
        NLU read only the surname "Li") — so the name is grounded like any mention: marked unknown, or
        asked about (:meth:`_person_unknown`); or the longer name a Latin surname mention opens, wherever it stands
        (:func:`~hermesd.dialogue.unknown.name_around`). Entities inside the name (六 read as a number) are dropped."""
        if parsed is None or not parsed.intent or "person" not in self.c.grounding.spec_slots(parsed.intent).values():
            return parsed
        placed = name_placed(parsed.text)
        if placed is None:  # a Latin surname alone, said with a given name nobody has ("give Zhang Wie the invoice")
            placed = next((x for e in parsed.entities if e.type == "person"
                           and (x := name_around(parsed.text, *e.span)) is not None), None)
        if placed is None:
            return parsed
        name, a, b = placed
        directory = getattr(getattr(self.c.memory, "graph", None), "directory", None)
        if directory is not None and directory.department(name) is not None:
            return parsed  # "send it to Finance": a department, no person's name
        inside = [e for e in parsed.entities if a <= e.span[0] and e.span[1] <= b]
        if any(e.type == "person" and tuple(e.span) == (a, b) for e in inside) \
                or any(e.span[0] < b and a < e.span[1] for e in parsed.entities if e not in inside) \
                or any(e.type not in ("person", "number") for e in inside) \
                or any(e.type == "person" and (not name.isascii() or " " in e.text.strip()) for e in inside):
            # the NLU knows the name, or its words are something else (a document kind); a Chinese name it
            # found inside is the name (发给张伟经理: 张伟, not 张伟经) — only a Latin surname alone is part of
            # a longer name said ("Li" of "Li Nan")
            return parsed
        kept = [e for e in parsed.entities if e not in inside]
        mention = _person_entity(name, a, b)
        return replace(parsed, entities=tuple(sorted([*kept, mention], key=lambda e: e.span[0])))

    async def _person_unknown(self, s: Session, p: Part, q: OpenQuestion | None, heard: Heard,
                              entities: dict[str, list[Any]], text: str) -> bool:
        """A request whose person nobody in the directory is (【赵六】): on its first mention, a name one edit
        from a known one (张维 for 张伟, "Li Nan" for "Li Na": :func:`~hermesd.dialogue.unknown.spelled_like`)
        is asked about as a choice ("did you mean 张伟?"); any other is said plainly, with the closest names
        known (:meth:`_not_known`), and nothing runs — never "who should get it?" after the name was said."""
        intent = heard.intent
        if intent is None or "person" not in self.c.grounding.spec_slots(intent).values():
            return False
        said = [e for e in getattr(p.parsed, "entities", ()) if e.type == "person"]
        # the name as written (赵六, not the 赵6 the normaliser reads), of the first mention nobody is
        who = next((e.text if len(said) == len(entities.get("person") or []) else w
                    for e, v in zip(said or [None] * len(entities.get("person") or []), entities.get("person") or [])
                    if isinstance(v, str) and (w := unmarked(v))), None)
        if who is None:
            return False
        people = getattr(self.c.nlu.engine, "people", None) or {}
        cands: list[dict[str, Any]] = []
        surfaces: dict[str, str] = {}
        for surface, anchor in people.items():
            surfaces.setdefault(anchor, surface)
        for anchor in spelled_like(who, people)[:MAX_TYPO_CANDIDATES]:
            res = await self.c.memory.resolve(surfaces[anchor], type="person", fuzzy=False)
            if getattr(res, "status", "") == "resolved":
                latin = str(getattr(res, "text_en", "") or res.text).split(" (")[0]
                cands.append({"anchor_id": res.anchor_id, "display": res.text, "display_en": latin})
        p.trace["not_known"] = who
        if cands:
            p.repairs.append("person_typo")
            self._ask_choice(s, p, q, (who, cands), text, key="person_did_you_mean")
            return True
        s.pending, s.slots = None, {}
        p.repairs.append("not_known")
        p.intent = intent
        p.end(s, self.c, await self._not_known(who, p.lang), "clarify", "person not known")
        return True

    def _ask_choice(self, s: Session, p: Part, q: OpenQuestion | None, ambiguous: Any, text: str,
                    key: str = "choose") -> None:
        """Ask which person a mention means before anything runs; the answer resumes the turn. ``key``: the
        catalogue's question (``choose``: which of several; ``person_did_you_mean``: a name not known, typed
        like these)."""
        c = self.c
        mention, cands = ambiguous
        cands_t = tuple(Candidate.from_dict(x) for x in cands)
        prompt = catalogue.say(key, p.lang, m=mention, opts=_choice_line(cands_t, p.lang))
        ref = datetime.fromtimestamp(s.ref_ms / 1000, timezone.utc).isoformat()
        s.pending = Choice(mention=mention, candidates=cands_t, text=text, ref=ref, prompt=prompt, outer=q, asks=key)
        c._move(s, Event.ROUTED, "ambiguous mention")
        c._move(s, Event.CONFIRM, "choice")
        p.texts.append(prompt)
        p.card = s.pending.card
        p.path = "clarify"
        p.intent = p.parsed.intent if p.parsed is not None else None
        p.repairs.append("ask_choice")

    async def _cancel_which(self, s: Session, p: Part, d: dp.NothingOpen, heard: Heard, entities: dict[str, list[Any]],
                            text: str, trace_id: str) -> bool:
        """"取消吧" / "cancel it" with nothing open and nothing done in this conversation (a new session): "it" is
        none of this conversation's, yet the person may well have something of the heard intent's kind to cancel
        (reminders set in an earlier session). A rule of that intent written for the question (its conditions
        read ``session.asked == 'which'``: office.yaml's reminder.cancel.which lists the pending reminders, confirms
        the only one, or says there are none) answers it; without one, "nothing to cancel" as before. False when
        it did not apply (the caller says nothing is open)."""
        if d.act != "cancel" or heard.intent is None or last_done(s.history) is not None:
            return False
        if not any(answers_asked(r) for r in self.c.rules().rules_for(heard.intent)):
            return False
        p.repairs.append("cancel_which")
        p.intent = heard.intent
        p.trace["asked"] = "which"
        await self.c.plans.run(s, p, intent=heard.intent, entities=self.c.grounding.slot_values(heard.intent, entities),
                               text=text, trace_id=trace_id, asked=("which", catalogue.say("nothing_to_cancel", p.lang)))
        return True

    def _nothing_open(self, s: Session, p: Part, d: dp.NothingOpen) -> None:
        c, lang = self.c, p.lang
        p.repairs.append("nothing_open")
        expired = s.expired
        if expired and d.act != "cancel" and c.now_ms() - int(expired.get("at_ms", 0)) < c.expired_memory_ms:
            s.expired = None
            p.trace["decision"] = "expired"
            p.repairs.append("expired")
            p.end(s, c, catalogue.say("expired", lang, q=expired.get("prompt", "")), "clarify", "card expired")
            return
        key = "nothing_to_cancel" if d.act == "cancel" else "nothing_open"
        p.end(s, c, catalogue.say(key, lang), "clarify", "nothing open")


def _said(parsed: Any, mention: str) -> str:
    """The words of the person mention ``mention`` (normalised) as the user wrote them ("Li", not "li")."""
    for e in getattr(parsed, "entities", ()) or ():
        if e.type == "person" and normalize(e.text).text.strip() == mention:
            return e.text
    return mention


def _names_other(text: str, lexicon: Any) -> bool:
    """``text`` (normalised) says "the other one" (the lexicon's ``ordinals.other``) outside a negation
    ("不是另一个" keeps the card's person)."""
    found = [i for i in (text.find(w) for w in lexicon.lists.get("ordinals.other", ()) if w) if i >= 0]
    if not found:
        return False
    i = min(found)  # where "the other" begins, so "not the other one" is read as one phrase
    return not re.search(r"(?:不是|不要|别|not|n't)\s*$", text[max(0, i - 6):i])


def _renamed(text: str, old: str, new: str) -> str:
    """``text`` with the first ``old`` (case-insensitive) replaced by ``new``; ``text`` unchanged when absent."""
    m = re.search(re.escape(old), text, flags=re.IGNORECASE)
    return f"{text[:m.start()]}{new}{text[m.end():]}" if m else text


def _impossible_clock(parsed: Any) -> BadClock | None:
    """The first clock time of the utterance that does not exist ("25点", "13pm"), or None."""
    if parsed is None or not getattr(parsed, "normalized", None):
        return None
    bad = impossible_clocks(parsed.normalized)
    return bad[0] if bad else None


def _invalid_date(parsed: Any, lang: str) -> str | None:
    """The sentence for an impossible date in the utterance ("6月没有31号。"), or None."""
    if parsed is None:
        return None
    for t in parsed.times:
        if t.kind == "invalid":
            return impossible_date_text(t, lang)
    return None
