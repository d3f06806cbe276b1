"""Grounding: a parse's entities → anchors, slot values, aliases, the rule context, recall.

The I/O of understanding, apart from the decisions: people are resolved through
the memory port (session-local choices first), document kinds through the intent
pack's gazetteers, time ranges in the session's zone, and a rule's ``recall`` step
searches this user's memories. The controller calls it; nothing here routes.

Session-local anchors (DESIGN.md, "Dialogue manager"): a person chosen from a
card, settled by memory, or named in a correction is kept in ``Session.anchors``
(mention form → anchor id, saved with the session row, so it survives a
restart). A later ambiguous mention whose candidates include exactly one of those
anchors is that person, for the rest of the session.
"""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from typing import Any, Mapping
from zoneinfo import ZoneInfo

from .. import lazyre
from ..anchors.directory import cn_address_form, marked, normalize_mention, unmarked
from ..dialogue.clauses import request_times
from ..dialogue.heard import Heard
from ..dialogue.questions import Ask, Confirm, OpenQuestion
from ..dialogue.reminders import bare_shift, names_half_day, relative_shift, said_shift, topic_of
from ..dialogue.split import names_day
from ..memory.hiding import hide
from ..nlu.normalize import normalize
from ..nlu.task import task_text
from ..nlu.temporal import parse_times
from ..rules.filters import english_name
from .ports import MemoryPort, NluPort, RuleEnginePort
from .record import Session

__all__ = ["Ambiguity", "Grounding", "rest_chars"]

log = logging.getLogger(__name__)
#: an English possessive closing a time phrase ("tomorrow's", "Monday's"): not part of the time said alone
_POSSESSIVE = lazyre.compile(r"(?<=[A-Za-z])['’]s$")
#: the first word of a time phrase, capitalised as said ("Yesterday, what did I send?"): a capital that only
#: opened the person's sentence says nothing in a reply's middle ("Nothing was sent yesterday.")
_LEAD_WORD = lazyre.compile(r"^([A-Z])([a-z]+)\b")
#: English words that open time phrases and are never proper nouns (weekdays, months and holidays are, and
#: keep their capital: "Monday", "Christmas")
_COMMON_TIME_LEADS = frozenset("""yesterday today tonight tomorrow last next this these coming past previous
in on at since from the a an every each before after until till by early late mid end beginning start noon
midnight morning afternoon evening night now earlier later within around about half one two three four five six
seven eight nine ten eleven twelve twenty thirty few couple day days week weeks month months year years weekend
fortnight""".split())

_MEMORY_KEY = lazyre.compile(r"\bmemory\.([A-Za-z0-9_]+)")
_FILLER = lazyre.compile(r"[\s\W_]+")
_CJK = lazyre.compile(r"[\u4e00-\u9fff]")

#: ``(mention as said, candidate dicts)`` of the first person mention that names several people
Ambiguity = tuple[str, list[dict[str, Any]]]


def rest_chars(parsed: Any, types: frozenset[str] | None = None) -> int:
    """Letters of ``parsed.text`` outside the spans of its entities (of ``types``, or all), once spaces
    and punctuation are dropped: 0 for "李娜", 1 for "给李娜", many for a whole new sentence."""
    if parsed is None:
        return 0
    text = parsed.text
    spans = sorted(e.span for e in parsed.entities if types is None or e.type in types)
    out, pos = [], 0
    for a, b in spans:
        if a >= pos:
            out.append(text[pos:a])
        pos = max(pos, b)
    out.append(text[pos:])
    return len(_FILLER.sub("", "".join(out)))


#: grains of a time expression (:class:`hermesd.nlu.temporal.TimeExpr`) of a day or longer
_DAY_OR_LONGER = frozenset({"day", "week", "weekend", "month", "season", "quarter", "half", "year", "decade",
                            "century"})


class Grounding:
    """Entities of one turn, grounded for the rules.

    :param nlu: the NLU port (intent specs, gazetteers, the zone). :param memory: the memory port.
    """

    def __init__(self, nlu: NluPort, memory: MemoryPort, *, reminders: Mapping[str, Any] | None = None) -> None:
        self.nlu, self.memory = nlu, memory
        #: ``session.reminders`` in the rule context (``default_time``, from the ``reminders:`` section)
        self.reminders = dict(reminders or {"default_time": "09:00"})
        self._keys_engine: Any = None
        self._keys: dict[str | None, tuple[str, ...]] = {}

    # -- people and kinds ---------------------------------------------------------------

    def remember_anchor(self, s: Session, mention: str, anchor_id: str) -> None:
        """Keep ``mention`` → ``anchor_id`` for the rest of the session (also in the graph's cache)."""
        s.anchors[normalize_mention(mention)] = anchor_id
        self.memory.bind_mention(s.session_id, mention, anchor_id)

    def rebind(self, s: Session, old: Any, new: Any) -> None:
        """A correction replaced person ``old`` by ``new`` (shown names): every mention of the session
        that meant ``old`` now means ``new`` ("不对，是张伟" after 张工 was taken as 张强)."""
        names = s.refs.get("anchors", {})
        old_id = names.get(old) if isinstance(old, str) else None
        new_id = names.get(new) if isinstance(new, str) else None
        if not old_id or not new_id or old_id == new_id:
            return
        for mention, anchor in list(s.anchors.items()):
            if anchor == old_id:
                self.remember_anchor(s, mention, new_id)
                log.info("anchor.corrected", extra={"kv": {"mention": mention, "from": old_id, "to": new_id}})

    async def person(self, s: Session, mention: str, fuzzy: bool = True) -> tuple[Any, Ambiguity | None]:
        """A person mention grounded as if said this turn: (shown value, ambiguity or None)."""
        return await self._person(s, mention, fuzzy)

    async def _person(self, s: Session, mention: str, fuzzy: bool) -> tuple[Any, Ambiguity | None]:
        """The shown value of a person mention, and its ambiguity when it names several people."""
        mention = normalize(mention).text if _CJK.search(mention) else mention  # 張工 → 张工 for the directory
        bound = s.anchors.get(normalize_mention(mention))
        if bound is not None:
            self.memory.bind_mention(s.session_id, mention, bound)  # refresh the graph's cache (after a restart)
            s.refs["session_anchor"] = True
        res = await self.memory.resolve(mention, session_id=s.session_id, type="person", fuzzy=fuzzy)
        if res.status == "resolved" and getattr(res, "via", "") == "fuzzy" \
                and cn_address_form(normalize_mention(mention)) is None:
            # a close spelling ("Li Nan" for Li Na) is a guess: left unresolved, so the turn asks "did you
            # mean Li Na?" (the pipeline's typo step) instead of taking the guess silently — the same
            # reply whether or not the load has switched the fuzzy step off
            return marked(mention), None
        if res.status == "resolved":
            s.refs.setdefault("anchors", {})[res.text] = res.anchor_id
            if getattr(res, "text_en", "") and res.text_en != res.text:
                s.refs.setdefault("names_en", {})[res.text] = res.text_en
            return res.text, None
        if res.status == "ambiguous":
            chosen = [c for c in res.candidates if c["anchor_id"] in set(s.anchors.values())]
            if len(chosen) == 1:  # the one this session already chose or corrected to
                self.remember_anchor(s, mention, chosen[0]["anchor_id"])
                s.refs["session_anchor"] = True
                s.refs.setdefault("anchors", {})[chosen[0]["display"]] = chosen[0]["anchor_id"]
                latin = chosen[0].get("display_en") or chosen[0]["display"]
                if latin != chosen[0]["display"]:
                    s.refs.setdefault("names_en", {})[chosen[0]["display"]] = english_name(chosen[0]["display"], latin)
                log.info("anchor.session", extra={"kv": {"mention": mention, "anchor": chosen[0]["anchor_id"]}})
                return chosen[0]["display"], None
            return res.text, (mention, res.candidates)
        return res.text or mention, None

    def _wants_task(self, parsed: Any, q: OpenQuestion | None) -> bool:
        """The utterance is a request whose intent has a ``task`` slot, or it answers a question of such
        an intent whose task is not known yet. An answer to a card or a question of the utterance's own
        intent ("ok send it" at a send card, "不对，发给李娜") restates no task: the request's words were
        the task, said when it was asked for. To a question of its own intent, though, a task said is read
        (the reader tells "明天早上八点提醒我开会" to 几点提醒你吃药？ — a request of its own — from the time
        alone, "下午五点提醒我吧", which names none)."""
        if isinstance(q, Ask) and q.intent and parsed.intent and parsed.intent != q.intent and not parsed.out_of_scope \
                and parsed.intent.split(".", 1)[0] == q.intent.split(".", 1)[0]:
            return False  # another action of the same domain ("改到下周一中午", "取消提醒" to 要提醒你做什么？) is that request
        if isinstance(q, Ask) and q.intent and "task" in self.spec_slots(q.intent).values() \
                and (q.entity == "task" or q.entities.get("task") is None or q.intent == parsed.intent):
            return True
        if isinstance(q, (Ask, Confirm)) and q.intent == parsed.intent:
            return False
        return bool(parsed.intent) and "task" in self.spec_slots(parsed.intent).values()

    async def entities(self, s: Session, parsed: Any, *, fuzzy: bool = True,
                       q: OpenQuestion | None = None) -> tuple[dict[str, list[Any]], Ambiguity | None]:
        """Entity values by type (first mention first), person mentions anchored.

        Also fills ``s.refs``: ``anchors`` (shown name → anchor id) and ``kinds`` (document kind as
        said → canonical kind), which recall steps and captured events use.

        :return: (type → [value, ...], the first ambiguous person mention or None).
        """
        out: dict[str, list[Any]] = {}
        ambiguous: Ambiguity | None = None
        if parsed is None:
            return out, None
        kinds = s.refs.setdefault("kinds", {})
        s.refs.setdefault("anchors", {})
        shifts = bool(parsed.intent) and "shift" in self.spec_slots(parsed.intent).values()
        for e in parsed.entities:
            d = e.to_dict()
            value: Any = d.get("value")
            if e.type == "person":
                value, amb = await self._person(s, d["text"], fuzzy)
                if amb is not None and ambiguous is None:
                    ambiguous = amb
            elif e.type == "datetime" and isinstance(value, dict):
                value = self.time_value(value, str(d.get("text") or ""))
                if shifts:
                    value = self._as_shift(s, parsed.text, value) or value
            elif e.type == "doc_type":
                value = d["text"]
                kinds[value] = d.get("value")
                self._kind_words(s, d.get("value"))
            out.setdefault(e.type, []).append(value)
        context = self._request_times(parsed, out)
        if self._wants_task(parsed, q):
            # the task of a reminder: the words without trigger and time phrase (hermesd.nlu.task)
            task = task_text(parsed, context)
            if task is None and isinstance(q, Ask) and q.entity == "task" and parsed.text.strip() \
                    and not parsed.times:
                # the answer to "提醒你什么？" is the task itself; one that is only a time ("下午三点") is the
                # time of the reminder, not its task
                task = parsed.text.strip()
            if task:
                out["task"] = [task]
        slots = self.spec_slots(parsed.intent).values() if parsed.intent else ()
        shift = said_shift(parsed.text, parsed.times) if "topic" in slots or "shift" in slots else None
        if "topic" in slots:
            # the words naming a reminder ("取消喝水的提醒" → 喝水; none for "取消那个提醒": the last one set)
            norm = normalize(parsed.text)
            topic = topic_of(norm.text, [norm.nspan(*sp) for x in parsed.times for sp in x.spans],
                             shifted=shift is not None or bool(parsed.times) and bare_shift(norm.text) is not None)
            if topic:
                out["topic"] = [topic]
        if shift and "shift" in slots:
            # "推迟半小时" → later, "提前10分钟" → earlier: a move by the duration said, not to a time
            out["shift"] = [shift]
        return out, ambiguous

    def _as_shift(self, s: Session, text: str, value: Mapping[str, Any]) -> dict[str, Any] | None:
        """"make it 10 minutes earlier": a time read as that long before / after now, said as a move of the
        reminder (:func:`~hermesd.dialogue.reminders.relative_shift`), is the duration itself — the move is
        by that much from the reminder's own time (reminder.change.by.*), never to 10 minutes before now.
        None when the time is no such move or its amount reads as no duration."""
        span = value.get("span")
        if not isinstance(span, (list, tuple)) or len(span) != 2:
            return None
        rel = relative_shift(text, str(value.get("text") or ""), (int(span[0]), int(span[1])))
        if rel is None:
            return None
        ref = datetime.fromtimestamp(s.ref_ms / 1000, timezone.utc) if s.ref_ms else datetime.now(timezone.utc)
        amount = next((x for x in parse_times(rel[1], ref, self.zone(s)) if x.kind == "duration" and x.seconds), None)
        if amount is None:
            return None
        return {**value, "kind": "duration", "seconds": amount.seconds, "point": None, "start": None, "end": None,
                "grain": "second", "text": rel[1]}

    @staticmethod
    def time_value(value: Mapping[str, Any], said: str = "") -> dict[str, Any]:
        """A time expression dict as a ``datetime`` slot holds it: with whether the phrase names its day
        (明天, Friday) or only a clock time ("10点": a moved reminder keeps its day, reminder.change.*), and
        the half of the day ("10点" does not); ``window_end``: the end of a part of the day (下周一上午 ends at
        12:00: a reminder moved there goes to that part's default time, as one set there does), else the point
        itself (the reminder tool reads an ``until`` equal to ``due`` as no window); ``text`` without a
        possessive ("tomorrow's" → "tomorrow")."""
        said = str(value.get("text") or said or "")
        # a time whose own unit is a day or longer (下周, 下个月, "the weekend", "march 20") names its day whatever
        # its words: only a clock time or a part of the day said alone keeps the reminder's day
        coarse = value.get("kind") == "date" or value.get("grain") in _DAY_OR_LONGER
        out = {**value, "day_named": coarse or names_day(said), "half_named": names_half_day(said),
               "window_end": value.get("end") if value.get("grain") == "part_of_day" and value.get("end")
               else value.get("point")}
        if out.get("text"):  # "tomorrow's reminders": the time as said alone is "tomorrow"
            out["text"] = _sentence_case(_POSSESSIVE.sub("", str(out["text"])))
        return out

    def _request_times(self, parsed: Any, out: dict[str, list[Any]]) -> tuple[tuple[int, int], ...]:
        """Of several times said, the request clause's first in ``out["datetime"]`` ("昨天开会的时候老板说了，
        明天下午三点提醒我交报告": 明天下午三点 is the reminder's; 昨天 is context,
        :func:`~hermesd.dialogue.clauses.request_times`); returns the context clauses' spans."""
        times = [e for e in parsed.entities if e.type == "datetime"]
        if len(times) < 2 or not parsed.intent or len(out.get("datetime") or []) != len(times):
            return ()
        spec = next((x for x in self.nlu.engine.specs if x.name == parsed.intent), None)
        got = request_times(parsed.text, [tuple(e.span) for e in times], getattr(spec, "keywords", None) or ())
        if got.clause is None:
            return ()
        values = out["datetime"]
        out["datetime"] = [values[i] for i in got.order]
        return got.context

    async def disambiguate_by_memory(self, s: Session, ambiguous: Ambiguity, entities: dict[str, list[Any]]) -> bool:
        """"上周三发给张工的…": of the people a mention could be, keep the one this user dealt with in the
        time range the utterance names. Binds the mention for the session and returns True when
        exactly one candidate has memories there; otherwise the user is asked."""
        times = [t for t in entities.get("datetime", []) if isinstance(t, dict) and t.get("start") and t.get("end")]
        if not times:
            return False
        since, until = self.ms_range(s, times[0])
        if since is None:
            return False
        mention, cands = ambiguous
        hits = []
        for cand in cands:
            if await self.memory.search(s.uid, anchors=[cand["anchor_id"]], since=since, until=until, k=1):
                hits.append(cand)
        if len(hits) != 1:
            return False
        self.remember_anchor(s, mention, hits[0]["anchor_id"])
        log.info("anchor.disambiguated", extra={"kv": {"mention": mention, "anchor": hits[0]["anchor_id"],
                                                       "via": "memory", "candidates": len(cands)}})
        return True

    # -- time ----------------------------------------------------------------------------

    def zone(self, s: Session) -> ZoneInfo:
        """The session's zone (its ``tz``, else the NLU's configured zone)."""
        return ZoneInfo(s.tz or self.nlu.settings.timezone)

    def ms_range(self, s: Session, when: Mapping[str, Any]) -> tuple[int | None, int | None]:
        """A time expression's half-open [start, end) in epoch ms (naive times are local to the session)."""
        def ms(v: Any) -> int | None:
            if not v:
                return None
            try:
                dt = datetime.fromisoformat(str(v))
            except ValueError:
                return None
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=self.zone(s))
            return int(dt.timestamp() * 1000)
        return ms(when.get("start")), ms(when.get("end"))

    def _kind_words(self, s: Session, canonical: Any) -> None:
        """``s.refs["kind_words"][canonical]``: every surface form of a document kind the session has
        named (报价单, quote, 报价), by which a sent file's name tells its kind (:func:`.capture_turn.document_kind`)."""
        if not isinstance(canonical, str):
            return
        words = s.refs.setdefault("kind_words", {})
        if canonical not in words:
            gaz = (getattr(self.nlu.engine, "gazetteers", {}) or {}).get("doc_type") or {}
            words[canonical] = sorted({surface for surface, c in gaz.items() if c == canonical} | {canonical})

    async def recall(self, s: Session, params: Mapping[str, Any]) -> dict[str, Any]:
        """The memory search behind a rule's ``recall`` step (this user's memories only).

        With no day named, what this conversation did comes first: "send it again" / "再发一次" means the
        send made here, even when the same user sent a newer one of that kind in another session (a
        second app window, another device) — the user's whole memory is searched only when this
        session has no match. A day named searches the user's memory as it is.

        :return: ``{"items": [{type, action, object, kind, anchor, at_ms, at, params, output}], "count"}``.
        """
        person = params.get("person")
        anchors = s.refs.get("anchors", {})
        anchor = anchors.get(person) if isinstance(person, str) else None
        if anchor is None and isinstance(person, str) and ":" in person:
            anchor = person
        if person and anchor is None:
            return {"items": [], "count": 0}  # an unresolved person matches nobody's memories
        kind = params.get("kind")
        kind = s.refs.get("kinds", {}).get(kind, kind) if isinstance(kind, str) else None
        since, until = self.ms_range(s, {"start": params.get("since"), "end": params.get("until")})
        query = dict(anchors=[anchor] if anchor else None, action=params.get("action"), kind=kind, since=since,
                     until=until, query=params.get("query"), k=int(params.get("k") or 3))
        items = await self.memory.search(s.uid, session_id=s.session_id, **query) \
            if since is None and until is None else []
        if not items:
            items = await self.memory.search(s.uid, **query)
        # fields the role may not see never reach a rule's reply (memory.hidden_fields)
        items = hide(items, (getattr(self.memory.settings, "hidden_fields", None) or {}).get(s.role, []))
        zone = self.zone(s)
        out = []
        for it in items:
            payload = it.get("payload") or {}
            out.append({"type": it.get("type"), "action": it.get("action"), "object": it.get("object"),
                        "kind": it.get("object_kind"), "anchor": it.get("target_anchor"), "at_ms": it.get("at_ms"),
                        "at": datetime.fromtimestamp((it.get("at_ms") or 0) / 1000, zone).strftime("%Y-%m-%d %H:%M"),
                        "params": payload.get("params"), "output": payload.get("output")})
        return {"items": out, "count": len(out)}

    # -- slots ---------------------------------------------------------------------------

    def spec_slots(self, intent: str | None) -> dict[str, str]:
        """The intent's slot name → entity type (empty for None or an unknown intent)."""
        if intent is None:
            return {}
        for spec in self.nlu.engine.specs:
            if spec.name == intent:
                return dict(spec.slots)
        return {}

    def slot_values(self, intent: str | None, entities: Mapping[str, list[Any]]) -> dict[str, Any]:
        """This turn's entities by the intent's slot names (slot → entity type in the intent pack)."""
        out: dict[str, Any] = {}
        used: dict[str, int] = {}
        for slot, etype in self.spec_slots(intent).items():
            values = entities.get(etype) or []
            i = used.get(etype, 0)
            if i < len(values):
                out[slot] = values[i]
                used[etype] = i + 1
        return out

    def aliases(self, s: Session, intent: str | None, entities: Mapping[str, Any]) -> dict[str, Any]:
        """``<slot>_kind``: the slot's canonical value (合同, Contract, CONTRACT → ``contract``), for conditions;
        ``<slot>_aliases``: every name the gazetteer knows for it (报价单, 报价, quote, quotation), so a rule
        can match files or records named in any language; ``<slot>_en`` for a person slot: the name as an
        English reply shows it ("Li Na (李娜)", the directory's Latin alias beside the name; else the name);
        ``<slot>_unknown`` for a person slot the directory has no one for: the name as said, without
        the 【】 that mark it (:mod:`hermesd.anchors.graph`), so a rule can ask instead of sending;
        ``<slot>_again``: the slot was not said but taken as the one last done ("再发一次": :mod:`.references`),
        so a rule acts on that one instead of asking which."""
        out: dict[str, Any] = {}
        gazetteers = getattr(self.nlu.engine, "gazetteers", {}) or {}
        names_en = s.refs.get("names_en") or {}
        again = s.refs.get("again") or ()
        for slot, etype in self.spec_slots(intent).items():
            if etype in again and entities.get(slot) is not None:
                out[f"{slot}_again"] = True  # unsaid, taken as the one last done ("再发一次", "send it again")
            if etype == "person" and isinstance(entities.get(slot), str):
                out[f"{slot}_en"] = names_en.get(entities[slot], entities[slot])
                unknown = unmarked(entities[slot])
                if unknown is not None:
                    out[f"{slot}_unknown"] = unknown
            gaz, value = gazetteers.get(etype), entities.get(slot)
            if not gaz or not isinstance(value, str):
                continue
            canonical = s.refs.get("kinds", {}).get(value) or gaz.get(value) or gaz.get(value.casefold())
            if canonical:
                out[f"{slot}_kind"] = canonical
                out[f"{slot}_aliases"] = sorted({surface for surface, c in gaz.items() if c == canonical} | {value})
        return out

    def heard(self, parsed: Any, q: OpenQuestion | None, entities: Mapping[str, list[Any]], lang: str) -> Heard:
        """The utterance as the dialogue manager sees it, against the open question ``q``.

        With a plan open (``Ask``/``Confirm``), a slot said twice takes the value the plan does not
        have yet ("不是合同，是发票" → 发票), and a value the plan has under another name (报价 for
        报价单) is the plan's own. ``mentions`` are the entities' words, ``people`` each person
        mention's shown name (强哥 → 张强)."""
        if parsed is None:
            return Heard(text="", lang=lang)
        plan_intent = q.intent if isinstance(q, (Ask, Confirm)) else None
        asked = None
        if isinstance(q, Ask):
            etype = q.entity or self.spec_slots(q.intent).get(q.slot) or q.slot
            values = entities.get(etype) or []
            asked = values[0] if values else None
        slots = self.slot_values(plan_intent or parsed.intent, entities)
        if isinstance(q, (Ask, Confirm)):
            slots = self._against_plan(q, entities, slots)
        people = {normalize(e.text).text: v for e, v in zip([e for e in parsed.entities if e.type == "person"],
                                                             entities.get("person") or []) if isinstance(v, str)}
        return Heard(text=parsed.normalized, lang=lang, intent=parsed.intent, out_of_scope=parsed.out_of_scope,
                     kind=parsed.kind, entity_types=frozenset(e.type for e in parsed.entities),
                     slot_values=slots, asked_value=asked, rest_chars=rest_chars(parsed),
                     mentions=tuple(m for e in parsed.entities if (m := normalize(e.text).text.strip())),
                     people=people)

    def _same(self, etype: str, a: Any, b: Any) -> bool:
        """Two values of ``etype`` name the same thing (报价 and 报价单 are one document kind)."""
        if a == b:
            return True
        gaz = (getattr(self.nlu.engine, "gazetteers", {}) or {}).get(etype)
        if not gaz or not isinstance(a, str) or not isinstance(b, str):
            return False
        ca, cb = gaz.get(a) or gaz.get(a.casefold()), gaz.get(b) or gaz.get(b.casefold())
        return ca is not None and ca == cb

    def _against_plan(self, q: Ask | Confirm, entities: Mapping[str, list[Any]],
                      slots: dict[str, Any]) -> dict[str, Any]:
        """``slots`` read against the open plan: of a slot's type said several times, the value the
        plan lacks; a value the plan has under another name is the plan's own."""
        spec = self.spec_slots(q.intent)
        per_type: dict[str, int] = {}
        for etype in spec.values():
            per_type[etype] = per_type.get(etype, 0) + 1
        out = dict(slots)
        for slot, etype in spec.items():
            if slot not in out or per_type[etype] != 1 or slot not in q.entities:
                continue
            had, said = q.entities[slot], entities.get(etype) or []
            new = [v for v in said if not self._same(etype, v, had)]
            out[slot] = new[-1] if new else had  # the new value when there is one, else the plan's own
        return out

    # -- the rule context ----------------------------------------------------------------

    async def context(self, s: Session, intent: str | None, entities: Mapping[str, Any], text: str,
                      engine: RuleEnginePort) -> dict[str, Any]:
        """What conditions and templates see: ``role``, ``slots``, ``entities`` (with aliases),
        ``memory`` (the keys the intent's rules read, this user's), ``session`` (its vars, and
        ``utterance``: the request's text, one part of an utterance holding several; ``turn``: the
        number of the user turn, 0 first, the same for every part of one utterance — a pack's
        tracker reading each part tells a later part of the turn from a new turn by it; ``ranked``: the
        NLU's intent names best first, at most five, set by the plan runner; ``now``: the reference
        instant in the session's zone, RFC 3339; ``today`` its local ``YYYY-MM-DD``, ``clock`` its ``HH:MM``:
        a condition compares them as strings, "session.clock >= session.reminders.default_time"); ``hidden``:
        the field names (last part of each path) of ``memory.hidden_fields[role]``, so a rule can refuse
        to show a field the role may not see (``'phone' in hidden``)."""
        memory: dict[str, Any] = {}
        if engine is not self._keys_engine:  # a (re)loaded rule set: its own cache, not one keyed by id()
            self._keys_engine, self._keys = engine, {}
        keys = self._keys.get(intent)
        if keys is None:
            keys = self._keys[intent] = memory_keys(engine, intent)
        for key in keys:
            slot = await self.memory.get(s.uid, f"user:{s.uid}", key)
            if slot is not None:
                memory[key] = (slot.get("data") or {}).get("value")
        entities = {**entities, **self.aliases(s, intent, entities)}
        zone = self.zone(s)
        now = datetime.fromtimestamp(s.ref_ms / 1000, zone).isoformat(timespec="seconds")
        hidden = (getattr(self.memory.settings, "hidden_fields", None) or {}).get(s.role, [])
        return {"role": s.role, "slots": dict(s.slots), "entities": entities, "memory": memory,
                "hidden": sorted({str(f).rsplit(".", 1)[-1] for f in hidden}),
                "session": {**s.vars, "state": s.state.value, "channel": s.channel, "user": s.user,
                            "utterance": text, "turn": s.turns, "locale": s.locale, "tz": zone.key, "now": now,
                            "today": now[:10], "clock": now[11:16], "reminders": self.reminders}}


def memory_keys(engine: RuleEnginePort, intent: str | None) -> tuple[str, ...]:
    """``memory.<key>`` names the rules of ``intent`` read (conditions and templates)."""
    if intent is None:
        return ()
    keys: set[str] = set()
    for rule in engine.rules_for(intent):
        for cond in rule.conditions:
            keys.update(_MEMORY_KEY.findall(cond))
        for action in (*rule.actions, *rule.fallback):
            keys.update(p[1] for p in action.paths if len(p) > 1 and p[0] == "memory")
    return tuple(sorted(keys))


def _sentence_case(said: str) -> str:
    """A time phrase as it reads inside a sentence: its first word in lower case when that is a common word
    capitalised only because it opened the person's sentence ("Last week" → "last week", "Next Monday" →
    "next Monday"); a proper noun ("Monday", "Christmas") and anything else as said. A reply that opens
    with it capitalises it again (the ``capitalize`` filter)."""
    m = _LEAD_WORD.match(said)
    if m and (m.group(1) + m.group(2)).lower() in _COMMON_TIME_LEADS:
        return m.group(1).lower() + said[1:]
    return said
