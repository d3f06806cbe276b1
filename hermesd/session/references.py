"""References on the turn path: "刚才那个订单" becomes the order id, as if the user had said it.

:func:`hermesd.dialogue.references.find_references` finds the references of an utterance (the
lexicon's words). Each one whose entity type the utterance does not already carry is resolved:

- with a time phrase that looks back ("昨天那个订单", "the order from Monday"): the newest memory
  of the caller holding an entity of that type in the phrase's range, through the memory port
  (``search(entity=…, since=…, until=…)``). A weekday named alone that the NLU placed ahead of
  now means the last one (a reference points at what happened), so it is moved a week back;
- otherwise: the newest entity of that type captured in this session (``Session.recent``, kept
  with the session row, so a reference works across a restart).

A document kind comes back as the kind's name in the turn's language (the pack's gazetteer:
``invoice`` → 发票 / invoice), a person through the same grounding as a person said outright.
Nothing to refer to: a plain sentence for the reply (``ref_none`` / ``ref_none_when``), and the
request goes on without the slot (its rule asks for it, or says what it lacks).

A generic document noun (文件, 文档, document, file) never inherits a specific kind from an earlier turn:
with a time it is a document *acted on* then (a send, to the person the utterance names), never a kind a
memory merely mentions; without one, this session's newest kind, except one said only in a request that
failed ("把周报发给王芳": no 周报 was found). In a question with only an article ("今天发给李娜的文件有哪些")
it is the set asked about and stands for nothing. A repetition's unsaid document ("resend the document I
sent to Wang Fang") is the one last sent — to the person named, when one is. A place said ("第二个再发一遍",
"the last file") names the object itself (a rule's ``choose`` step with ``pick`` takes it from the list
just shown): nothing is then taken as unsaid or looked up as a reference.

A person said as a pronoun (他, her, the same person: :func:`hermesd.dialogue.references.find_pronouns`)
is resolved before the utterance is understood (:func:`resolve_pronouns`): the person of the question
being answered, else the people the session's last turn with people anchored (:func:`note_people`).
One person: the utterance is read with the name in the pronoun's place ("再给他发一份合同" →
"再给张伟发一份合同"), so intent and slots come out as if the name had been said. Two or more: the
pronoun stays, a sentence asks which of them (``ref_which_person``) and the request's rule asks for
the person; none: the pronoun stays, and the rule asks who. A person named outright in the same
utterance wins over the antecedent of a pronoun in a person's place ("now send it to him too: Zhang
Qiang" is for 张强, not the person of the last turn): the pronoun stays and the name fills the slot.
A possessive ("her number") still stands for its antecedent beside a name.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from .. import lazyre
from ..dialogue import catalogue
from ..dialogue.lexicon import Lexicon
from ..dialogue.questions import Ask, Confirm
from ..dialogue.references import Reference, find_pronouns, find_references, with_name
from ..memory.hiding import hide
from ..nlu.normalize import normalize
from .record import Session

if TYPE_CHECKING:
    from .grounding import Grounding

__all__ = ["note_people", "people_in_play", "resolve_pronouns", "resolve_references"]

log = logging.getLogger(__name__)

_WEEK_MS = 7 * 86_400_000
_DAY_MS = 86_400_000
_CJK = lazyre.compile(r"[\u3400-\u9fff]")


async def resolve_references(g: "Grounding", s: Session, parsed: Any, entities: dict[str, list[Any]], *,
                             lexicon: Lexicon, intent: str | None, lang: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Resolve the references of ``parsed`` into ``entities`` (in place: type → [value, ...]).

    :param intent: the request's intent (a *same* reference fills a slot of it that is missing).
    :return: (trace notes ``[{type, said, source: session|memory|none, value?}]``, sentences to say
        for references that found nothing).
    """
    if parsed is None or not parsed.text:
        return [], []
    n = normalize(parsed.text)
    refs = find_references(n.text, lexicon)
    said = [k for _, w in lexicon.ref_again.finditer(n.text) for k in lexicon.ref_again.kinds[w]]
    # a place said ("第二个再发一遍", "resend the second one") names the object: nothing is left unsaid
    placed = bool(entities.get("ordinal"))
    again, also = "again" in said and not placed, "also" in said and not entities.get("doc_type") and not placed
    if not refs and not again and not also:
        return [], []
    when = _look_back(g, s, entities)
    notes, missing = [], []
    nothing: dict[int, str] = {}  # note → the sentence it would have said
    asks = getattr(parsed, "kind", None) == "question"
    for r in refs:
        if placed and r.etype in (None, "doc_type"):
            continue  # "the last file", "最后那份": a place in the list just shown, no document of this session
        if r.weak and (when is None or (asks and r.etype == "doc_type")):
            # "今天发给李娜的文件有哪些", "what documents did I send yesterday": a generic noun in a question
            # with only an article is the set asked about, no one document to stand for
            continue
        types = _wanted(g, intent, entities) if r.etype is None else [r.etype]
        if not types or (r.etype is not None and entities.get(r.etype)):
            continue  # said outright ("订单DD2030…") or nothing the request could take
        note: dict[str, Any] = {"type": r.etype, "said": r.said(n.text)}
        if types == ["doc_type"] and when is not None:
            # "上周三发给王芳的文件": a generic noun is a document acted on then (to the person named), never a
            # kind some memory merely mentions (a failed request for 周报 names no document)
            found = (await _last_done(g, s, when, _anchor(s, entities), session_first=False))[0]
        else:
            found = await _from_memory(g, s, types, when) if when is not None else _from_session(s, types)
        if found is None:
            note["source"] = "none"
            said = _nothing(r, when, lang)
            missing.append(said)
            nothing[id(note)] = said
        else:
            etype, value = found
            shown = await _shown(g, s, etype, value, lang)
            entities.setdefault(etype, []).insert(0, shown)
            note.update(type=etype, source="memory" if when is not None else "session", value=shown)
        notes.append(note)
    if also and not again and "doc_type" in _wanted(g, intent, entities):
        # "也发给李娜": the document acted on last, nothing else (its person is the new one)
        found, source = await _last_done(g, s, when or {"since": 0, "until": (s.ref_ms or 0) + 1})
        if found is not None:
            shown = await _shown(g, s, found[0], found[1], lang)
            entities.setdefault("doc_type", []).insert(0, shown)
            notes.append({"type": "doc_type", "said": "", "source": source, "value": shown, "also": True})
    if again:
        for said in await _again(g, s, intent, entities, notes, nothing, when, lang):
            if said in missing:
                missing.remove(said)
    if notes:
        log.info("references", extra={"kv": {"session": s.session_id, "refs": len(notes),
                                             "found": sum(x["source"] != "none" for x in notes)}})
    return notes, missing


async def _again(g: "Grounding", s: Session, intent: str | None, entities: dict[str, list[Any]],
                 notes: list[dict[str, Any]], nothing: Mapping[int, str], when: Mapping[str, Any] | None,
                 lang: str) -> list[str]:
    """A request said as a repetition ("再发一次", "send it again", "把刚才那个文件再发一遍") leaves its
    object unsaid (zero anaphora in Chinese, "it" in English): each slot type it still lacks (not a
    person, not a time: those come with what was done) is the newest of this session, else the newest
    in the caller's memory (within the utterance's look-back when it names one).

    :return: the "nothing to refer to" sentences no longer true (a reference now found in memory).
    """
    span = when or {"since": 0, "until": (s.ref_ms or 0) + 1}
    unsaid: list[str] = []
    for etype in [t for t in _wanted(g, intent, entities) if t != "person"]:
        found, source = None, "session"
        if etype == "doc_type":
            # what was done to a document (to the person named, when one is): this session's last, else
            # memory's — only that. A kind merely said before (a request that failed, a question) is no
            # document that was sent: "resend the document I sent to Wang Fang" never inherits it
            found, source = await _last_done(g, s, span, _anchor(s, entities))
            if found is None:
                continue
        if found is None and when is None:
            found, source = _from_session(s, [etype]), "session"
        if found is None:
            found, source = await _from_memory(g, s, [etype], span), "memory"
        if found is None:
            continue
        shown = await _shown(g, s, found[0], found[1], lang)
        entities.setdefault(etype, []).insert(0, shown)
        s.refs.setdefault("again", []).append(etype)  # the slot is "it", the one just done (``<slot>_again``)
        note = next((x for x in notes if x.get("type") == etype and x.get("source") == "none"), None)
        if note is not None:
            if id(note) in nothing:
                unsaid.append(nothing[id(note)])
            note.update(source=source, value=shown, again=True)
        else:
            notes.append({"type": etype, "said": "", "source": source, "value": shown, "again": True})
    return unsaid


def _anchor(s: Session, entities: Mapping[str, list[Any]]) -> str | None:
    """The anchor of the first person the utterance names (shown name → anchor, as grounding bound it), or None."""
    anchors = s.refs.get("anchors") or {}
    for v in entities.get("person") or []:
        if isinstance(v, str) and v in anchors:
            return str(anchors[v])
    return None


async def _last_done(g: "Grounding", s: Session, span: Mapping[str, Any], anchor: str | None = None, *,
                     session_first: bool = True) -> tuple[tuple[str, Any] | None, str]:
    """The kind of the document the caller last acted on (an event with an ``object``, e.g. a send,
    and its ``object_kind``), in this session first (unless not ``session_first``), else in all of the
    caller's history within ``span``; with ``anchor``, only what was done to that person."""
    where = ((s.session_id, "session"), (None, "memory")) if session_first else ((None, "memory"),)
    for session_id, source in where:
        items = await g.memory.search(s.uid, since=span["since"], until=span["until"], k=20, session_id=session_id,
                                      anchors=[anchor] if anchor else None)
        # a document acted on names it (a send's object); a search for one (find_document) names none
        done = [it for it in items if it.get("type") == "event" and it.get("object_kind") and it.get("object")]
        if done:
            last = max(done, key=lambda it: int(it.get("at_ms") or 0))
            return ("doc_type", last["object_kind"]), source
    return None, "memory"


def _wanted(g: "Grounding", intent: str | None, entities: Mapping[str, list[Any]]) -> list[str]:
    """Entity types of the intent's slots that this utterance did not fill, in slot order."""
    return [t for t in dict.fromkeys(g.spec_slots(intent).values()) if not entities.get(t) and t != "datetime"]


def _look_back(g: "Grounding", s: Session, entities: Mapping[str, list[Any]]) -> dict[str, Any] | None:
    """The utterance's first time phrase that points back (``{since, until, text}`` in ms), or None.
    "现在" / "now" (a second or minute containing now) is about the request, not the referent."""
    now = s.ref_ms
    for t in entities.get("datetime") or []:
        if not isinstance(t, dict) or not t.get("start") or not t.get("end"):
            continue
        since, until = g.ms_range(s, t)
        if since is None or until is None:
            continue
        if t.get("grain") in ("second", "minute") and since <= now < until + 60_000:
            continue
        if since > now and until - since <= _DAY_MS:  # "Monday" said on a Sunday: the one just gone
            since, until = since - _WEEK_MS, until - _WEEK_MS
        if since > now:
            continue
        return {"since": since, "until": until, "text": str(t.get("text") or "")}
    return None


def _from_session(s: Session, types: list[str]) -> tuple[str, Any] | None:
    """The newest entity of one of ``types`` captured in this session; a document kind said only in a
    request that failed (``failed``: "没有找到周报") is skipped — it names no document that exists (an order
    id said in a failed lookup still is the one "再查一次" tries again)."""
    for item in reversed(s.recent):
        if item.get("type") in types and item.get("value") not in (None, "") \
                and not (item.get("failed") and item.get("type") == "doc_type"):
            return str(item["type"]), item["value"]
    return None


async def _from_memory(g: "Grounding", s: Session, types: list[str], when: Mapping[str, Any]) -> tuple[str, Any] | None:
    """The newest memory of the caller in ``when`` holding an entity of one of ``types`` (fields the
    caller's role may not see are taken out first: a hidden value is never a slot)."""
    hidden = (getattr(g.memory.settings, "hidden_fields", None) or {}).get(s.role, [])
    best: tuple[int, str, Any] | None = None
    for etype in types:
        items = await g.memory.search(s.uid, entity=etype, since=when["since"], until=when["until"], k=5)
        for it in hide(items, hidden):
            values = ((it.get("data") or {}).get("entities") or {}).get(etype) or []
            at = int(it.get("updated_ms") or 0)
            if values and (best is None or at > best[0]):
                best = (at, etype, values[-1])
    return None if best is None else (best[1], best[2])


async def _shown(g: "Grounding", s: Session, etype: str, value: Any, lang: str) -> Any:
    """``value`` as the rules expect it: a document kind by its name in ``lang``, a person grounded."""
    if etype == "person" and isinstance(value, str):
        shown, _amb = await g.person(s, value)
        return shown
    gaz = (getattr(g.nlu.engine, "gazetteers", {}) or {}).get(etype)
    if gaz and isinstance(value, str):
        canonical = gaz.get(value) or gaz.get(value.casefold()) or value
        names = [k for k, v in gaz.items() if v == canonical]
        zh = [k for k in names if _CJK.search(k)]
        pick = (zh if lang == "zh" else [k for k in names if not _CJK.search(k)]) or names
        if pick:
            if etype == "doc_type":  # as grounding does for a kind said outright (recall steps read it)
                s.refs.setdefault("kinds", {})[pick[0]] = canonical
            return pick[0]
    return value


def _nothing(r: Reference, when: Mapping[str, Any] | None, lang: str) -> str:
    if r.etype is None:
        return catalogue.say("ref_none_same", lang)
    if when is not None:
        return catalogue.say("ref_none_when", lang, noun=r.noun, when=when["text"])
    return catalogue.say("ref_none", lang, noun=r.noun)


def note_people(s: Session, entities: Mapping[str, list[Any]], *, keep_turn: bool = False) -> None:
    """Keep the people this turn anchored (grounded person values, 张工 → 张伟) in ``Session.recent``
    under the turn's number, for a pronoun of a later turn (:func:`people_in_play`). A later request
    of the same utterance replaces the people of an earlier one, unless ``keep_turn``: the request
    was made once for each of several people ("张伟和李娜是哪个部门的"), who all stay in play."""
    anchors = s.refs.get("anchors") or {}
    people = [v for v in entities.get("person") or [] if isinstance(v, str) and v in anchors]
    if not people:
        return
    if not keep_turn:
        s.recent[:] = [r for r in s.recent if not (r.get("said") and r.get("turn") == s.turns)]
    for name in dict.fromkeys(people):
        s.recent.append({"type": "person", "value": name, "anchor": anchors[name], "turn": s.turns,
                         "said": True, "at_ms": s.ref_ms})


def people_in_play(g: "Grounding", s: Session, q: Any) -> list[str]:
    """The people a pronoun may stand for, newest first (shown names, distinct): the person slots of
    the plan ``q`` being answered (an ``Ask`` or ``Confirm`` holding one), else the people the session's
    last turn with any anchored (:func:`note_people`)."""
    if isinstance(q, (Ask, Confirm)):
        kinds = g.spec_slots(q.intent)
        held = [str(v) for k, v in q.entities.items() if kinds.get(k) == "person" and isinstance(v, str) and v]
        if held:
            return list(dict.fromkeys(held))
    said = [r for r in s.recent if r.get("said") and r.get("type") == "person"]
    if not said:
        return []
    last = said[-1].get("turn")
    return list(dict.fromkeys(str(r["value"]) for r in reversed(said) if r.get("turn") == last))


def resolve_pronouns(g: "Grounding", s: Session, text: str, q: Any, *, lexicon: Lexicon,
                     lang: str, named: Sequence[tuple[int, int]] = ()) -> tuple[str, dict[str, Any] | None, str | None]:
    """``text`` read with the person a pronoun stands for (see the module docstring).

    :param named: spans (in ``text``) of the people the utterance names outright; when one lies outside
        every pronoun and no pronoun is a possessive, the name wins: ``text`` is kept (source ``named``).
    :return: (the text to understand, a trace note ``{said, source: session|question|ambiguous|none|named,
        value?, candidates?}`` or None when no pronoun was said, a sentence asking which person or None).
    """
    n = normalize(text)
    found = find_pronouns(n.text, lexicon)
    if not found:
        return text, None, None
    said = found[0].word
    if named and not any(p.possessive for p in found):
        spans = [n.span(p.start, p.end) for p in found]
        if any(all(b <= a0 or a >= b0 for a0, b0 in spans) for a, b in named):
            return text, {"said": said, "source": "named"}, None
    people = people_in_play(g, s, q)
    source = "question" if people and isinstance(q, (Ask, Confirm)) else "session"
    if not people:
        return text, {"said": said, "source": "none"}, None
    if len(people) > 1:
        log.info("references.pronoun", extra={"kv": {"session": s.session_id, "ambiguous": len(people)}})
        return text, {"said": said, "source": "ambiguous", "candidates": people}, \
            catalogue.say("ref_which_person", lang, said=said, people=_either(people, lang))
    return with_name(text, found, people[0], n), {"said": said, "source": source, "value": people[0]}, None


def _either(people: list[str], lang: str) -> str:
    if lang == "zh":
        return "还是".join(people)
    return ", ".join(people[:-1]) + " or " + people[-1]
