"""SGD dialogue state tracking for the rule pack (pure function of its input).

Input ``{intent, entities, session, results?}``: ``intent`` is an SGD intent (FindRestaurants)
or a dialogue-act intent of the pack (``sgd.inform``, ``sgd.request_alts``, ``sgd.select``,
``sgd.affirm_intent``, ``sgd.request``, ``sgd.bye``); ``entities`` the turn's values by slot
name (``when``/``when2`` are the NLU's datetime mentions); ``session`` the session variables
(``session.sgd`` is the state this tool returned last turn); ``results`` an API call's results.

Output ``{state, args, summary, say}``: ``state = {active, offer, slots, results, index}``;
``args`` the arguments of ``active``'s API call: required and informed optional slots, and for
transactional intents the schema's defaults for optional slots not given (as SGD's system
does); values in SGD's canonical forms (dates ``YYYY-MM-DD``, times ``HH:MM``, counts ``"2"``,
amounts ``"50"``). Schema: ``schema.json`` beside this file (SGD, CC BY-SA 4.0).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

_SCHEMA = json.loads((Path(__file__).parent / "schema.json").read_text(encoding="utf-8"))
#: entity type → {surface form (lower case) → canonical value}: the pack's gazetteers
CANON = json.loads((Path(__file__).parent / "canon.json").read_text(encoding="utf-8"))
SLOT_TYPES = {s["name"]: s.get("entity") for svc in _SCHEMA for s in svc["slots"]}
INTENTS = {it["name"]: (svc, it) for svc in _SCHEMA for it in svc["intents"]}
DATE_SLOTS = ("date", "event_date")
#: slots whose values are names said in words, not drawn from a closed list
NAME_SLOTS = ("new_alarm_name", "event_name", "event_location", "receiver", "restaurant_name")
TIME_SLOTS = ("time", "event_time", "new_alarm_time", "alarm_time")
_DATE_WORDS = re.compile(
    r"\b(today|tonight|tomorrow|yesterday|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"weekend|week|month|days?|jan(uary)?|feb(ruary)?|march|mar|april|apr|may|june|jun|july|jul|august|aug|"
    r"sept?(ember)?|oct(ober)?|nov(ember)?|dec(ember)?|\d{1,2}(st|nd|rd|th)|first|second|third|\d+/\d+|"
    r"(fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|teenth|tieth)\b)", re.I)
#: a finding intent's natural follow-up (what SGD's system offers after results)
FOLLOW_UP = {"FindRestaurants": "ReserveRestaurant", "FindEvents": "BuyEventTickets",
             "GetAvailableTime": "AddEvent", "GetEvents": "AddEvent", "GetAlarms": "AddAlarm"}


def _date_time(v: dict) -> tuple[str | None, str | None]:
    start = v.get("start") or ""
    if len(start) < 10:
        return None, None
    grain = v.get("grain") or ""
    has_time = grain in ("hour", "minute", "second") and len(start) >= 16
    # a date only when one was said: "in the evening" resolves to today, but names no day
    has_date = bool(_DATE_WORDS.search(v.get("text") or ""))
    return (start[:10] if has_date else None), (start[11:16] if has_time else None)


#: function words that are never a slot value on their own (pattern matches like "find a" food)
_STOP = set("a an the some any good nice great find me my i we you it one this that another other "
            "place places something somewhere get want like looking look for to and or of in on at "
            "make send pay request please thanks thank yes no okay ok fine sure have has is are be do does "
            "suggest other another different more new local same kind type sort eat eating what which "
            "there here then now also too very really perfect best popular favorite favourite decent "
            "lovely delicious tasty usual regular normal".split())
#: an utterance that answers yes/no or thanks is not the free-text answer to a question
_ACK = re.compile(r"^\W*(?:yes|yeah|yep|yup|sure|ok|okay|no|nope|nah|thanks|thank|that'?s|that is|correct|great|"
                  r"perfect|sounds|fine|alright|right|cool|awesome|please do|go ahead)\b", re.I)


def _pattern_value(v: str, name: bool = False) -> str | None:
    """A value from the NLU's regex patterns (upper-cased by the extractor) without its leading
    function words, in title case; None when a function word remains (a name may hold them:
    "Leave for home")."""
    words = v.lower().split()
    while words and words[0] in _STOP:
        words.pop(0)
    if not words or (not name and any(w in _STOP for w in words)) or all(w in _STOP for w in words):
        return None
    return " ".join(w if w[:1].isdigit() or w.startswith("#") else w[:1].upper() + w[1:] for w in words)


def _pattern_canon(slot: str, v: str) -> str | None:
    """A regex-pattern value: its longest known tail in the slot's gazetteer ("feeling japanese"
    → Japanese, "try punjabi" → Indian), else at most two unknown words that no other gazetteer
    claims ("pricey" is a price, not a cuisine)."""
    own = CANON.get(SLOT_TYPES.get(slot) or "", {})
    if slot in NAME_SLOTS:  # a name is what was said ("Grocery run", "2075 Lincoln Avenue")
        rest = _pattern_value(v, name=True)
        return own.get(rest.lower(), rest) if rest else None
    words = v.lower().split()
    for i in range(len(words)):
        hit = own.get(" ".join(words[i:]))
        if hit:
            return hit
    rest = _pattern_value(v)
    if rest is None or len(rest.split()) > 2:
        return None
    others = [m for t, m in CANON.items() if t != SLOT_TYPES.get(slot)]
    if any(w in m for w in rest.lower().split() for m in others):
        return None
    return rest


def _canon(slot: str, v):
    if isinstance(v, str) and v.isupper():
        return _pattern_canon(slot, v)
    if isinstance(v, dict) and "start" in v:
        d, t = _date_time(v)
        return t if slot in TIME_SLOTS else d
    if isinstance(v, dict) and "amount" in v:
        a = float(v["amount"])
        return str(int(a)) if a.is_integer() else str(a)
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return None if v is None else str(v)


def _slot_names(svc: dict) -> set[str]:
    return {s["name"] for s in svc["slots"]}


_FILLERS = re.compile(
    r"^(?:(?:yes|yeah|ok|okay|sure|well|so|and|um|uh|please|just|then|actually|no|hmm)\b[\s,.!]*|"
    r"(?:i'?d like|i would like|i want|i need|let'?s|can you|could you|make it|make that|change it to|"
    r"set it (?:to|as)|call it|name it|label it|title it|put it as|put|use|it'?s|it is|that'?s|that is|"
    r"the name is|the title is|the location is|the address is|its name is|it should be|how about|"
    r"try|maybe|i think|i guess|i'?m thinking|i am thinking|to|for|at|in|on|the|a|an)\b[\s,.!]*)+", re.I)
_TAIL = re.compile(r"(?:[\s,.!?]+|\b(?:please|thanks|thank you|for me|instead|as well|too|then)\b)+$", re.I)


def free_text(utterance: str, max_words: int = 6) -> str | None:
    """The answer to a question in a short utterance ("Call it Phone home, please" → "Phone home")."""
    if _ACK.match(utterance):
        return None
    t = _TAIL.sub("", _FILLERS.sub("", utterance.strip()))
    t = _TAIL.sub("", t)
    if not t or len(t.split()) > max_words:
        return None
    return t


def merge(state: dict, intent_name: str, entities: dict) -> None:
    """Fold this turn's values into ``state['slots']`` (in place) for ``intent_name``'s service.

    Keys are slot names (a service intent's entities) or entity types (the dialogue-act
    intents): a type goes to the intent's slot of that type, else the service's.
    """
    if intent_name not in INTENTS:
        return
    svc, it = INTENTS[intent_name]
    names = _slot_names(svc)
    args = [*it["required_slots"], *it["optional_slots"]]
    entities = dict(entities)
    for k in [k for k in entities if k not in names and k not in ("when", "when2")]:
        typed = [s["name"] for s in svc["slots"] if s.get("entity") == k]
        typed.sort(key=lambda n: n not in args)
        if typed and typed[0] not in entities:
            entities[typed[0]] = entities.pop(k)
    date_slot = next((s for s in DATE_SLOTS if s in args), next((s for s in DATE_SLOTS if s in names), None))
    time_slot = next((s for s in TIME_SLOTS if s in args and s != "alarm_time"), None)
    for k in ("when", "when2"):
        v = entities.get(k)
        if isinstance(v, dict) and "start" in v:
            d, t = _date_time(v)
            if d and date_slot and not entities.get(date_slot):
                state["slots"][date_slot] = d
            if t and time_slot and not entities.get(time_slot):
                state["slots"][time_slot] = t
    for k, v in entities.items():
        if k in names and v is not None:
            c = _canon(k, v)
            if c is not None:
                state["slots"][k] = c


def api_args(state: dict, intent_name: str) -> dict:
    """Arguments of ``intent_name``'s call from the tracked state."""
    if intent_name not in INTENTS:
        return {}
    _, it = INTENTS[intent_name]
    slots = state["slots"]
    offered = state["results"][state["index"]] if state.get("results") and state["index"] < len(state["results"]) else {}
    out = {}
    for a in it["required_slots"]:
        v = slots.get(a) if it["is_transactional"] and a not in slots else slots.get(a)
        if v is None and it["is_transactional"]:
            v = offered.get(a)
        if v is not None:
            out[a] = v
    for a, default in it["optional_slots"].items():
        v = slots.get(a)
        if v is None and it["is_transactional"]:
            v = offered.get(a, default)
        if v is not None and v != "dontcare":
            out[a] = v
    return out


def _args_of(name: str) -> set[str]:
    _, it = INTENTS[name]
    return {*it["required_slots"], *it["optional_slots"]}


def _takes(name: str, key: str) -> bool:
    svc, _ = INTENTS[name]
    args = _args_of(name)
    if key in ("when", "when2"):
        return bool(args & {*DATE_SLOTS, *TIME_SLOTS})
    return key in args or any(s.get("entity") == key and s["name"] in args for s in svc["slots"])


def _intent_for(active: str, entities: dict, offer: str | None) -> str:
    """``active``, unless none of ``entities`` fits it and some fit the offered (or the only
    other) intent of the same service."""
    keys = [k for k, v in entities.items() if v is not None]
    if not keys or any(_takes(active, k) for k in keys):
        return active
    svc, _ = INTENTS[active]
    others = [offer] if offer in INTENTS else [it["name"] for it in svc["intents"] if it["name"] != active]
    for name in others:
        if INTENTS[name][0] is svc and any(_takes(name, k) for k in keys):
            return name
    return active


def _describe(item: dict) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in item.items())


def handle(input: dict) -> dict:
    intent = input["intent"]
    prior = (input.get("session") or {}).get("sgd") or {}
    state = {"active": prior.get("active"), "offer": prior.get("offer"), "slots": dict(prior.get("slots") or {}),
             "results": list(prior.get("results") or []), "index": int(prior.get("index") or 0)}
    entities = input.get("entities") or {}
    say = ""
    if intent in INTENTS:
        if state["active"] != intent and intent == state.get("offer"):
            state["offer"] = None
        if state["active"] != intent:
            state["called"] = None
        state["active"] = intent
    elif intent == "sgd.affirm_intent" and state.get("offer"):
        state["active"], state["offer"], state["called"] = state["offer"], None, None
    elif intent == "sgd.bye" and not any(v is not None for v in entities.values()):
        state["active"], state["offer"] = None, None
        say = "Have a nice day."
    elif intent == "sgd.thanks":
        say = "You're welcome."
    elif intent == "sgd.request_alts":
        state["index"] += 1
    elif intent == "sgd.select" and state["active"] in FOLLOW_UP:
        state["offer"] = FOLLOW_UP[state["active"]]
        say = f"Shall I go ahead with {state['offer']}?"
    asked = prior.get("asked")
    state["called"] = prior.get("called")
    # values said before any intent was tracked ("look at the 6th", then "when am I free?")
    state["pool"] = dict(prior.get("pool") or {})
    if intent in ("sgd.inform", "sgd.affirm_intent") and state["active"] in INTENTS and entities:
        # values that only the service's other intent takes ("set it for 3:15" while the alarms
        # were being listed) move the dialogue to that intent
        target = _intent_for(state["active"], entities, state.get("offer"))
        if target != state["active"]:
            state["active"], state["offer"] = target, None
    if not state["active"] and intent != "sgd.bye":
        state["pool"].update({k: v for k, v in entities.items() if v is not None})
    if state["active"] and state["pool"]:
        merge(state, state["active"], state.pop("pool"))
        state["pool"] = {}
    if state["active"]:
        before = dict(state["slots"])
        if intent != "sgd.request":  # "do they have live music?" asks about the offer; it sets nothing
            merge(state, state["active"], entities)
        if asked and state["slots"] == before and intent in (state["active"], "sgd.inform"):
            # the question was answered in words no entity covers ("Phone home"): take the words
            text = free_text(str((input.get("session") or {}).get("utterance") or ""))
            if text and asked not in DATE_SLOTS + TIME_SLOTS:
                state["slots"][asked] = text
    state["asked"] = input.get("ask")
    if state["asked"]:
        say = f"What {state['asked'].replace('_', ' ')} would you like?"
    if "results" in input and input["results"] is not None:
        state["results"], state["index"] = list(input["results"])[:10], 0
        state["called"] = state["active"]
        if state["results"]:
            say = f"I found {len(state['results'])}: {_describe(state['results'][0])}."
        else:
            say = "Sorry, I found nothing for that."
        if state["active"] in FOLLOW_UP:  # what the user may accept next ("yes, book it")
            state["offer"] = FOLLOW_UP[state["active"]]
    elif intent in ("sgd.request_alts",):
        say = (f"How about {_describe(state['results'][state['index']])}?"
               if state["index"] < len(state["results"]) else "I have nothing else.")
    elif intent == "sgd.request" and state["index"] < len(state["results"]):
        say = _describe(state["results"][state["index"]])
    state["offered"] = state["results"][state["index"]] if state["index"] < len(state["results"]) else {}
    args = api_args(state, state["active"]) if state["active"] else {}
    summary = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in args.items())
    return {"state": state, "args": args, "summary": summary, "say": say or "OK."}
