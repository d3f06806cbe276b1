#!/usr/bin/env python3
"""Build the SGD pack (``config/packs/sgd/``) from the SGD schema and the shared SGD dialogues.

Usage (one command, from the repository root): ``python scripts/build_sgd_pack.py
[--data ../shared/data/sgd] [--dialogues FILE] [--out config/packs/sgd] [--min-support N]`` — builds from every
dialogue of ``--dialogues`` (default ``<data>/sgd_turns.jsonl``); ``scripts/crossval_sgd.py``
builds on four fifths of them and replays the fifth.

Source: Schema-Guided Dialogue dataset (Rastogi et al., AAAI 2020, arXiv:1909.05855),
CC BY-SA 4.0 — the pack keeps that licence (``LICENSE``, ``ATTRIBUTION.md`` in the pack).

What comes from where (nothing is kept because one dialogue said it):

- the schema: intents, slots, required/optional arguments and defaults, and each slot's
  ``possible_values`` as the schema gives them (categorical slots; the examples of open ones);
- hand-written everyday English: synonyms of categorical values, kinds of food, the short names
  of large US cities, music genres and sports, the verbs of intent names, the context patterns in ``hermesd.yaml``
  ("a table at …", "in <Capitalised Words>", "for two people"), readers of numbers and times
  (the NLU's temporal parser; ``tools/_sgd/track.py``);
- the build dialogues (all shared ones, or the four folds cross-validation builds on; never
  the replayed fold): the intent classifier's training utterances (user turns labelled with
  their service intent or dialogue act), the commonest short acknowledgements, and slot values
  with a minimum support (:func:`mined_values`: a surface form and the value annotators gave it,
  or an open value the API named, in at least ``--min-support`` distinct dialogues, default
  :data:`MIN_SUPPORT`). A value only one dialogue says never enters a gazetteer.

Writes the generated parts, never committed (see the pack's ``.gitignore``): ``intents/sgd.yaml``
(intents with examples, slot → entity type maps, gazetteers), ``rules/sgd.yaml`` (slot asks,
confirmation of transactional intents, calls), ``tools/<name>/`` (a descriptor per SGD method and
``sgd_track``, naming the shared handler modules ``tools/_sgd/api.py`` and ``track.py``),
``tools/_sgd/schema.json`` and ``canon.json`` (what the tracker reads), ``schema.json``, ``LICENSE``.
When ``--out`` is another folder, the pack's hand-written files are copied there too.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
#: slots whose values are dates or times: filled from the NLU's ``datetime`` entity
DATE_SLOTS = {"date", "event_date"}
TIME_SLOTS = {"time", "event_time", "new_alarm_time", "alarm_time"}
#: categorical values said in other words (hand-written, everyday English, not from the data)
SYNONYMS = {
    "price_range": {"cheap": "inexpensive", "budget": "inexpensive", "low cost": "inexpensive", "low priced": "inexpensive",
                    "low-priced": "inexpensive", "lower priced": "inexpensive", "budget-friendly": "inexpensive",
                    "budget friendly": "inexpensive",
                    "low-cost": "inexpensive", "inexpensive": "inexpensive", "affordable": "moderate",
                    "moderate": "moderate", "moderately priced": "moderate", "reasonably priced": "moderate",
                    "average": "moderate", "intermediate": "moderate", "expensive": "expensive",
                    "economical": "moderate", "not very costly": "moderate", "not too costly": "moderate",
                    "not too expensive": "moderate", "moderately": "moderate", "mid-range": "moderate",
                    "pricey": "expensive", "fancy": "expensive", "high-end": "expensive", "upscale": "expensive",
                    "very expensive": "very expensive"},
    "has_live_music": {"live music": "True"},
    "serves_alcohol": {"alcohol": "True", "serves alcohol": "True", "serve alcohol": "True", "liquor": "True",
                       "drinks": "True", "serves drinks": "True", "a drink": "True", "drink": "True",
                       "alcoholic": "True", "alcoholic drinks": "True", "alcoholic beverages": "True",
                       "booze": "True", "cocktails": "True", "beer": "True"},
    "category": {"music": "Music", "concert": "Music", "concerts": "Music", "sports": "Sports",
                 "sport": "Sports", "game": "Sports", "games": "Sports", "match": "Sports"},
    # a card network is a credit card; money drawn from the bank is the debit card; the app's own money its balance
    "payment_method": {"app balance": "app balance", "balance": "app balance", "in-app balance": "app balance",
                       "account balance": "app balance", "wallet": "app balance", "app cash": "app balance",
                       "app money": "app balance", "app account": "app balance", "in the app": "app balance", "debit card": "debit card",
                       "debit": "debit card", "bank account": "debit card", "checking account": "debit card",
                       "savings account": "debit card", "saving account": "debit card", "bank card": "debit card",
                       "credit card": "credit card", "credit": "credit card", "visa": "credit card",
                       "mastercard": "credit card", "master card": "credit card", "amex": "credit card",
                       "american express": "credit card", "discover card": "credit card"},
    "private_visibility": {"private": "True", "privately": "True", "public": "False", "publicly": "False"},
}
#: open-class values of general English (hand-written, not from the data): kinds of food by
#: nationality or dish, and the common short names of large US cities. Each is said as written.
CUISINES = ("African American Asian Brazilian British Burmese Caribbean "
            "Chinese Cuban Deli Dessert Ethiopian European Filipino French Fusion German Greek Hawaiian "
            "Indian Indonesian Irish Italian Jamaican Japanese Korean Malaysian Mediterranean Mexican "
            "Moroccan Nepalese Pakistani Peruvian Polish Portuguese Russian "
            "Salad Sandwiches Seafood Spanish Tapas Thai Vegan Vegetarian Vietnamese").split() + ["Fast Food"]
SUBCATEGORIES = ("Pop Rock Jazz Blues Country Classical Electronic Metal Folk Reggae Punk Indie Rap Soul "
                 "Baseball Basketball Football Soccer Hockey Tennis Golf Boxing Wrestling").split() + [
                     "Hip Hop", "R&B", "American Football"]
#: dishes and regional kitchens said for the broader kind of restaurant they belong to (hand-written
#: everyday English, as restaurant guides group them: pizza is Italian, ramen Japanese, tacos
#: Mexican); a kind the build dialogues' annotators give a surface form otherwise wins (mined)
CUISINE_KINDS = {
    "Italian": ["pizza", "pizzas", "pasta", "pizza and pasta", "pizzeria", "trattoria", "spaghetti", "lasagna"],
    "Japanese": ["sushi", "ramen", "izakaya", "teriyaki", "tempura", "udon", "sashimi", "bento"],
    "American": ["burger", "burgers", "hamburgers", "barbecue", "barbeque", "bbq", "diner", "southern", "soul food",
                 "comfort food", "hot dogs", "wings", "cajun", "tex-mex"],
    "Seafood": ["fish", "freshwater fish", "lobster", "crab", "oysters", "shellfish", "shrimp", "clams"],
    "Chinese": ["taiwanese", "sichuan", "szechuan", "szechwan", "szcheuan", "cantonese", "hunan", "shanghainese",
                "dim sum", "dumplings", "noodles", "hot pot"],
    "Indian": ["punjabi", "curry", "curries", "tandoori", "north indian", "south indian", "spicy indian", "biryani"],
    "Mexican": ["tacos", "taco", "burritos", "burrito", "latin american", "latin"],
    "Mediterranean": ["middle eastern", "persian", "lebanese", "turkish", "falafel", "kebab", "kebabs"],
    "Asian": ["oriental", "asian fusion", "pan-asian", "pan asian"],
    # (not "to go": "I want to go to Milpitas" is no take-out)
    "Take-out": ["take-out", "takeout", "take out", "to-go", "pick-up", "pickup"],
    "Gastropub": ["gastropub", "gastrobar", "gastro pub"],
    "Vegetarian": ["non meat", "meatless", "veggie", "plant-based"],
    "Brunch": ["breakfast", "brunch", "breakfast & brunch", "breakfast and brunch"],
    "French": ["parisian", "bistro"],
    "Korean": ["korean barbecue", "korean barbeque", "korean bbq"],
    "Steakhouse": ["steak", "steaks", "steakhouse", "steak house"],
}
CITY_SHORT_NAMES = {"sf": "San Francisco", "nyc": "New York", "ny": "New York", "la": "Los Angeles",
                    "sd": "San Diego", "dc": "Washington D.C.", "d.c.": "Washington D.C.", "washington dc": "Washington D.C.",
                    "washington d.c.": "Washington D.C.", "washington": "Washington D.C.", "philly": "Philadelphia", "vegas": "Las Vegas",
                    "frisco": "San Francisco", "san fran": "San Francisco", "chi-town": "Chicago", "atl": "Atlanta"}
COUNT_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
               "1": "1", "2": "2", "3": "3", "4": "4", "5": "5", "6": "6"}
COUNT_SLOTS = {"party_size", "number_of_seats"}
#: open-class slots a question is answered in plain words ("Phone home"): a turn right after the
#: question is taken to answer it (the tracker keeps the words when no entity fills the slot)
FREE_TEXT_SLOTS = {"new_alarm_name", "event_name", "event_location", "receiver", "restaurant_name", "cuisine",
                   "city", "city_of_event"}
#: entity types of names a service intent also takes, whatever service typed them: the tracker
#: gives one to the slot the context says ("send it to Jerry": the receiver, not a place)
NAME_TYPES = ("sgd_city", "sgd_receiver", "sgd_restaurant_name", "sgd_event_name", "sgd_event_location",
              "sgd_new_alarm_name")
#: dialogue acts of a user turn → the pack's dialogue-act intents (for turns that name no service intent)
ACT_INTENTS = {"AFFIRM_INTENT": "sgd.affirm_intent", "NEGATE_INTENT": "sgd.bye", "REQUEST_ALTS": "sgd.request_alts",
               "SELECT": "sgd.select", "INFORM": "sgd.inform", "AFFIRM": "sgd.affirm_intent", "REQUEST": "sgd.request",
               "NEGATE": "sgd.bye", "THANK_YOU": "sgd.thanks", "GOODBYE": "sgd.thanks"}

#: the pack's dialogue-act intents, and those of them that carry a request of their own when no task
#: is tracked yet (an inform, "any others?", a question): the runner-up service intent opens
ACT_LABELS = tuple(sorted(set(ACT_INTENTS.values())))
OPENING_ACTS = ("sgd.inform", "sgd.request_alts", "sgd.request")


def slot_entity(slot: str) -> str:
    """Entity type that fills ``slot``."""
    if slot in DATE_SLOTS or slot in TIME_SLOTS:
        return "datetime"
    if slot == "amount":
        return "money"
    if slot in COUNT_SLOTS:
        return "sgd_count"
    if slot in ("city", "city_of_event"):
        return "sgd_city"
    return f"sgd_{slot}"


def load(data: Path, dialogues_file: Path | None = None) -> tuple[list[dict], dict[str, list[dict]]]:
    schema = json.loads((data / "sgd_schema.json").read_text())
    dialogues: dict[str, list[dict]] = defaultdict(list)
    with (dialogues_file or data / "sgd_turns.jsonl").open() as f:
        for line in f:
            r = json.loads(line)
            dialogues[r["dialogue_id"]].append(r)
    return schema, dict(dialogues)


def _acts(turn: dict) -> set[str]:
    return {a["act"] for a in turn.get("actions") or []}


#: a value or synonym mined from the build dialogues enters a gazetteer when at least this many
#: distinct build dialogues say it (or their API named it): nothing exists for one dialogue.
#: Chosen by 5-fold cross-validation (scripts/crossval_sgd.py --min-support, see BENCHMARKS.md).
MIN_SUPPORT = 2
#: open slots whose values the build dialogues' API calls and results name (cities, restaurants,
#: events, places, people): mined with the same minimum support
MINED_RESULT_SLOTS = ("city", "city_of_event", "restaurant_name", "event_name", "event_location",
                      "subcategory", "receiver", "cuisine")


def _ordinary_words(build: dict[str, list[dict]], min_dialogues: int = 3) -> set[str]:
    """Words users of at least ``min_dialogues`` build dialogues said outside any annotated value
    ("Friends" is an event somewhere, and an everyday word): never a mined value on their own."""
    c: Counter = Counter()
    for turns in build.values():
        words: set[str] = set()
        for t in turns:
            if t["speaker"] != "USER":
                continue
            text = t["text"]
            for sp in sorted(t.get("spans") or [], key=lambda sp: -sp["start"]):
                text = text[:sp["start"]] + " " + text[sp["end"]:]
            words.update(re.findall(r"[a-z']+", text.lower()))
        c.update(words)
    return {w for w, n in c.items() if n >= min_dialogues}


def mined_values(schema: list[dict], build: dict[str, list[dict]],
                 min_support: int = MIN_SUPPORT) -> dict[str, dict[str, str]]:
    """Entity type → {surface (lower case) → canonical value} learned from the build dialogues.

    Two sources, each counted in distinct dialogues: (1) what users said for a slot, with the
    value the annotators resolved it to (the user turn's ``INFORM``/``SELECT`` acts: "Punjabi" →
    Indian, "SFO" → San Francisco); (2) open-slot values the build dialogues' API calls and
    results named (cities, restaurants, events, people), canonical as listed. A surface form is
    kept when at least ``min_support`` dialogues bring it; its canonical value is the one most
    of them gave (ties: the surface as said). Single characters, numbers and everyday words (:func:`_ordinary_words`) are never kept.
    """
    slot_ok = {s["name"] for svc in schema for s in svc["slots"]
               if slot_entity(s["name"]).startswith("sgd_") and s["name"] not in COUNT_SLOTS}
    support: dict[tuple[str, str], dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for did, turns in build.items():
        for t in turns:
            if t["speaker"] == "USER":
                for a in t.get("actions") or []:
                    if a["act"] in ("INFORM", "SELECT") and a["slot"] in slot_ok:
                        for v, c in zip(a.get("values") or [], a.get("canonical_values") or []):
                            if v != "dontcare" and c not in ("dontcare", "True", "False"):
                                support[(slot_entity(a["slot"]), v.lower())][c].add(did)
            for rec in [(t.get("api_call") or {}).get("args") or {}, *(t.get("api_results") or [])]:
                for slot, v in rec.items():
                    if slot in MINED_RESULT_SLOTS and isinstance(v, str) and v != "dontcare":
                        support[(slot_entity(slot), v.lower())][v].add(did)
    common = _ordinary_words(build)
    out: dict[str, dict[str, str]] = defaultdict(dict)
    for (typ, surface), canon in support.items():
        dialogues = set().union(*canon.values())
        if len(dialogues) < min_support or len(surface) < 2 or surface in common \
                or re.fullmatch(r"[\d\s:$.,-]+", surface):
            continue
        best = max(canon.items(), key=lambda kv: (len(kv[1]), kv[0].lower() == surface, kv[0]))
        out[typ][surface] = best[0]
    return out


def gazetteers(schema: list[dict], build: dict[str, list[dict]] | None = None,
               min_support: int = MIN_SUPPORT) -> dict[str, dict[str, str]]:
    """Entity type → {surface form (lower case) → canonical value}: each slot's
    ``possible_values`` (categorical slots, and the examples the schema lists for open ones such
    as ``cuisine``), the hand-written everyday synonyms, cuisines and city short names above,
    and the values mined from the build dialogues with ``min_support`` (:func:`mined_values`;
    a mined reading outranks a hand-written one: it is how SGD's annotators canonicalise, e.g.
    "sushi" → Japanese). Values said only in the dialogues being evaluated are never here."""
    gaz: dict[str, dict[str, str]] = defaultdict(dict)
    for c in CUISINES:
        gaz["sgd_cuisine"][c.lower()] = c
    for kind, said in CUISINE_KINDS.items():
        gaz["sgd_cuisine"].update({w: kind for w in said})
    for c in SUBCATEGORIES:
        gaz["sgd_subcategory"][c.lower()] = c
    gaz["sgd_city"].update(CITY_SHORT_NAMES)
    for typ, terms in mined_values(schema, build or {}, min_support).items():
        gaz[typ].update(terms)
    for svc in schema:
        for s in svc["slots"]:
            typ = slot_entity(s["name"])
            if not typ.startswith("sgd_") or s["name"] in COUNT_SLOTS:
                continue
            for v in s["possible_values"]:
                if v not in ("True", "False"):
                    gaz[typ][v.lower()] = v
            for k, v in SYNONYMS.get(s["name"], {}).items():
                gaz[typ][k] = v
    gaz["sgd_count"] = dict(COUNT_WORDS)
    return {k: dict(sorted(v.items())) for k, v in sorted(gaz.items())}


def examples(build: dict[str, list[dict]]) -> dict[str, list[str]]:
    """Training utterances: a service intent where the user states it, else the turn's dialogue act."""
    out: dict[str, list[str]] = defaultdict(list)
    for turns in build.values():
        for t in turns:
            if t["speaker"] != "USER":
                continue
            acts = _acts(t)
            if "INFORM_INTENT" in acts:
                out[t["intent"]].append(t["text"])
                continue
            for act, label in ACT_INTENTS.items():
                if act in acts:
                    out[label].append(t["text"])
                    break
    return {k: sorted(set(v)) for k, v in out.items()}


#: everyday verbs for the verb an SGD intent name starts with (hand-written English, not from the data)
VERBS = {"Add": ["add", "set", "create", "set up", "make"], "Get": ["get", "show", "list", "check", "tell me"],
         "Find": ["find", "search for", "look for", "show me"], "Reserve": ["reserve", "book", "make a reservation for"],
         "Buy": ["buy", "purchase", "get", "book"], "Make": ["make", "send", "pay", "transfer"],
         "Request": ["request", "ask for", "collect", "receive"]}


def schema_examples(it: dict) -> list[str]:
    """Utterances made from the schema alone (intent name, verb, description), so intents the
    training dialogues do not cover (Alarm_1, Payment_1) still have a few examples."""
    desc = it["description"].rstrip(".")
    d = desc[0].lower() + desc[1:]
    verb, *noun = re.findall(r"[A-Z][a-z]+", it["name"])
    obj = " ".join(noun).lower()
    out = [desc, f"I want to {d}", f"Can you {d}?", f"Please {d}"]
    for v in VERBS.get(verb, [verb.lower()]):
        out += [f"{v} {obj}", f"I want to {v} a {obj}", f"can you {v} a {obj} for me", f"please {v} my {obj}",
                f"I'd like to {v} {obj}"]
    return out


def openers(build: dict[str, list[dict]], n: int = 12) -> list[str]:
    """The commonest short acknowledgements users open a turn with in the build dialogues
    ("Yes", "That sounds good.", "Thank you."): a new request often follows one."""
    c: Counter = Counter()
    for turns in build.values():
        for t in turns:
            if t["speaker"] == "USER" and _acts(t) & {"AFFIRM", "SELECT", "THANK_YOU", "AFFIRM_INTENT"} \
                    and len(t["text"].split()) <= 4 and not t.get("spans"):
                c[t["text"].strip()] += 1
    return [text for text, _ in c.most_common(n)]


def _augmented(texts: list[str], opens: list[str], per_text: int = 2) -> list[str]:
    """``texts`` plus each one after ``per_text`` openers ("Yes, I'd like to make a payment"),
    picked by a stable hash so the pack is the same on every build."""
    out = list(texts)
    for t in texts:
        h = int(hashlib.sha1(t.encode()).hexdigest(), 16)
        for i in range(per_text):
            out.append(f"{opens[(h + i * 7) % len(opens)]} {t}")
    return out


def intent_slots(it: dict) -> dict[str, str]:
    """The NLU slots of a service intent: entity key → entity type. Its slots by name; one datetime
    can carry both a date and a time ("tomorrow at 7 pm"), so the first two datetime mentions are
    ``when``/``when2`` (sgd_track splits them into the SGD slots); and the name types it does not
    take, by their type (the tracker gives such a name to the slot its context says)."""
    args = [*it["required_slots"], *it["optional_slots"]]
    slots = {a: slot_entity(a) for a in args if slot_entity(a) != "datetime"}
    if any(slot_entity(a) == "datetime" for a in args):
        slots.update({"when": "datetime", "when2": "datetime"})
    slots.update({t: t for t in NAME_TYPES if t not in slots.values()})
    return slots


def intents_doc(schema: list[dict], build: dict[str, list[dict]], min_support: int = MIN_SUPPORT) -> dict:
    ex = examples(build)
    opens = openers(build)
    intents = []
    for svc in schema:
        for it in svc["intents"]:
            slots = intent_slots(it)
            words = re.findall(r"[A-Z][a-z]+", it["name"])
            # the service's own name is a word of its subject too ("what is my calendar like on
            # Monday" is Calendar_1's, not a recall of something the user told hermesd)
            keywords = [w.lower() for w in words if w not in ("Get", "Find", "Make", "Add")]
            keywords += [w for w in re.findall(r"[a-z]+", svc["service_name"].lower()) if w not in keywords]
            intents.append({"name": it["name"], "description": it["description"], "slots": slots,
                            "keywords": keywords,
                            "examples": _augmented(ex.get(it["name"], []) + schema_examples(it), opens)})
    # dialogue-act intents name their slots by entity type: the tracker maps them onto the
    # active intent's slots (one sgd_city value is city for Restaurants_1, city_of_event for Events_1)
    all_slots = {slot_entity(s["name"]): slot_entity(s["name"]) for svc in schema for s in svc["slots"]
                 if slot_entity(s["name"]) != "datetime"}
    all_slots.update({"when": "datetime", "when2": "datetime"})
    for label in sorted(set(ACT_INTENTS.values())):
        intents.append({"name": label, "slots": all_slots, "examples": ex.get(label, [])})
    return {"pack": "sgd", "gazetteers": gazetteers(schema, build, min_support), "intents": intents}


def _key(slot: str, by_type: "bool | dict[str, str]") -> str:
    """The entity key a rule reads for ``slot``: the slot name for a service intent, the entity
    type for the dialogue-act intents (whose slots are named by type, see :func:`intents_doc`)."""
    if isinstance(by_type, dict):  # another intent's parse: the key that carries the slot's type
        return next((k for k, t in by_type.items() if t == slot_entity(slot)), "")
    return slot_entity(slot) if by_type else slot


#: slots whose values are names said in words (the tracker's ``NAME_SLOTS``)
NAME_SLOTS = ("new_alarm_name", "event_name", "event_location", "receiver", "restaurant_name")


def by_context_types(schema: list[dict], intent: dict, slot: str) -> list[str]:
    """Name entity types that fill ``slot`` by context (``tools/_sgd/track.py`` ``_by_context``):
    when ``slot`` is the intent's one required name slot, a name the NLU typed for another
    service ("made to Isabella" read as a place: Payment_1 has no place) is its value."""
    names = [a for a in intent["required_slots"] if a in NAME_SLOTS]
    if names != [slot]:
        return []
    svc = next(s for s in schema if intent in s["intents"])
    own = {slot_entity(s["name"]) for s in svc["slots"]}
    return [t for t in NAME_TYPES if t not in own]


def _has(slot: str, *, by_type: "bool | dict[str, str]" = False, transactional: bool = False, intent: str | None = None,
         by_context: list[str] = ()) -> str:
    """Condition: ``slot`` has a value this turn, in the tracked state, or (transactional) in the
    offered result or in the attempt of ``intent`` just made (a new attempt at a transaction keeps
    its values: "try again for 5:30"); or it was asked last turn (the tracker takes the answer's
    text for it); or a name of a ``by_context`` type was said (:func:`by_context_types`)."""
    k = _key(slot, by_type)
    parts = [f"has(session.sgd.slots.{slot})"]
    if slot in FREE_TEXT_SLOTS:
        parts.append(f"session.sgd.asked == '{slot}'")
    if transactional:
        parts.append(f"has(session.sgd.offered.{slot})")
        if intent:
            parts.append(f"(session.sgd.done.intent == '{intent}' and has(session.sgd.done.args.{slot}))")
    parts += [f"has(entities.{t})" for t in by_context]
    if slot in DATE_SLOTS:
        parts += [f"has(entities.{slot})", "has(entities.when)", "has(session.sgd.pool.when)"]
    elif slot in TIME_SLOTS:
        parts += [f"has(entities.{slot})", "entities.when.grain in ['hour', 'minute']",
                  "entities.when2.grain in ['hour', 'minute']"]
    else:
        parts += [f"has(entities.{k})"] if k else []  # (k is "" when another intent's parse has no such key)
        parts.append(f"has(session.sgd.pool.{slot_entity(slot)})")
    return "(" + " or ".join(parts) + ")"


def _intent_keys(it: dict, by_type: bool) -> list[str]:
    """Entity keys that carry a value for one of the intent's slots (datetimes come as when/when2)."""
    keys = []
    for s in [*it["required_slots"], *it["optional_slots"]]:
        k = "when" if slot_entity(s) == "datetime" else _key(s, by_type)
        if k not in keys:
            keys.append(k)
    return keys + (["when2"] if "when" in keys else [])


def _track(intent: str, ask: str | None = None, keyed_for: str | None = None) -> list[dict]:
    params = {"intent": intent, "entities": "{{entities}}", "session": "{{session}}"}
    if ask:
        params["ask"] = ask
    if keyed_for:  # the entities are keyed by that intent's slots (the NLU's reading of the turn)
        params["keyed_for"] = keyed_for
    return [{"tool": "sgd_track", "id": "st", "params": params}, {"set_state": {"sgd": "{{steps.st.state}}"}}]


def svc_others(schema: list[dict], svc: dict) -> list[dict]:
    """The intents of every service but ``svc``."""
    return [it for other in schema if other is not svc for it in other["intents"]]


def _starters(schema: list[dict]) -> dict[str, list[str]]:
    """Intent → the entity types that name it when no intent is tracked yet: a type only one
    service's intents take goes to that service's searching intent if it takes it, else to
    the intent that does ("Italian food in Dublin" starts FindRestaurants)."""
    by_type: dict[str, set[tuple[str, str, bool]]] = defaultdict(set)
    for svc in schema:
        for it in svc["intents"]:
            for k in _intent_keys(it, True):
                if k not in ("when", "when2"):
                    by_type[k].add((svc["service_name"], it["name"], it["is_transactional"]))
    out: dict[str, list[str]] = defaultdict(list)
    for typ, owners in sorted(by_type.items()):
        if len({svc for svc, _, _ in owners}) == 1:
            name = sorted(owners, key=lambda o: (o[2], o[1]))[0][1]
            out[name].append(typ)
    return out


#: an intent name's verbs, and words too common to name a service ("at the same time")
_NOT_NAMING = {"add", "get", "find", "reserve", "buy", "make", "request", "time"}


def naming_words(it: dict, service: str) -> list[str]:
    """The words that name ``it``'s task: the nouns of its name and its service's
    (ReserveRestaurant → restaurant; BuyEventTickets → event, ticket), singular, so a plural matches."""
    words = re.findall(r"[A-Z][a-z]+", it["name"]) + re.findall(r"[A-Za-z]+", service)
    return sorted({w.lower().removesuffix("s") for w in words if w.lower() not in _NOT_NAMING})


def _takes(it: dict, typ: str) -> bool:
    """``it`` has an argument filled by entity type ``typ``."""
    return any(slot_entity(a) == typ for a in [*it["required_slots"], *it["optional_slots"]])


def stays(it: dict, service: str, active: dict) -> list[str] | None:
    """Conditions under which a turn the NLU read as ``it`` (of ``service``) stays on ``active``, a
    task of another service being tracked: the turn brings a value ``active`` takes, none that only
    ``it`` takes, and no word that names ``it``'s task (:func:`naming_words`). "Alameda" or "try
    again for next Friday" answer the task in hand whatever intent the words resemble; "find me a
    restaurant in Alameda" names a new one. None when no value of ``it`` fits ``active``.
    (Every shared SGD dialogue keeps to one service: 0 switches to another service's intent in 3,995
    user turns.)"""
    keys = intent_slots(it)
    fit = [k for k, t in keys.items() if _takes(active, t)]
    only = [k for k, t in keys.items() if not _takes(active, t) and t not in NAME_TYPES]
    if not fit:
        return None
    named = " or ".join(f"'{f}' in session.utterance" for w in naming_words(it, service)
                        for f in (w, w[:1].upper() + w[1:]))
    conds = [f"session.sgd.active == '{active['name']}'", "(" + " or ".join(f"has(entities.{k})" for k in fit) + ")"]
    if only:
        conds.append("not (" + " or ".join(f"has(entities.{k})" for k in only) + ")")
    if named:
        conds.append(f"not ({named})")
    return conds


def rules_doc(schema: list[dict]) -> dict:
    """Per service intent, for its own intent and for the dialogue-act intents that continue it:
    ask each missing required slot (highest priority first), else call — after a confirmation
    card when the intent is transactional. The tracker (tool ``sgd_track``) keeps the state."""
    rules = []
    starters = _starters(schema)
    said_any = " or ".join(f"has(entities.{k})" for k in sorted(
        {"when", "when2", *(slot_entity(sl["name"]) for svc in schema for sl in svc["slots"])} - {"datetime"}))
    for svc in schema:
        for it in svc["intents"]:
            name, tx = it["name"], it["is_transactional"]
            req = it["required_slots"]
            typed_values = " or ".join(f"has(entities.{k})" for k in _intent_keys(it, True))
            # a turn with no service intent continues the tracked one when it brings values for it
            # (or answers the question asked), or accepts the intent the system offered
            # a turn read as this intent while another service's task is tracked, with values that fit that
            # task and no word naming this one, continues that task (below): it starts nothing here
            others = [(o, st) for o in svc_others(schema, svc)
                      if (st := stays(it, svc["service_name"], o)) is not None]
            triggers = [(name, [f"not ({' and '.join(st)})" for _, st in others], "", False),
                        ("sgd.affirm_intent", [f"session.sgd.offer == '{name}'"], ".affirm", True),
                        # "yes" to a question about the tracked intent that has not been called yet
                        ("sgd.affirm_intent", [f"session.sgd.active == '{name}'", "not has(session.sgd.offer)",
                                               f"session.sgd.called != '{name}'"], ".affirm_active", True)]
            if typed_values:
                more = f"({typed_values} or has(session.sgd.asked))"
                triggers += [("sgd.inform", [f"session.sgd.active == '{name}'", more], ".inform", True),
                             # "No, call it Cleaning": a no that brings values corrects, it is no goodbye
                             ("sgd.bye", [f"session.sgd.active == '{name}'", f"({typed_values})"], ".bye_values",
                              True),
                             ("sgd.request_alts", [f"session.sgd.active == '{name}'", f"({typed_values})"],
                              ".alts", True)]
            if not tx:
                # "any others?" when every result has been offered: query again (SGD's system does so,
                # and only then: in the shared dialogues 5 such turns were re-queried, none of the 148
                # asked while results were left)
                triggers.append(("sgd.request_alts", [f"session.sgd.active == '{name}'",
                                                      f"session.sgd.called == '{name}'",
                                                      "session.sgd.exhausted == true"], ".again", True))
            # a dialogue act said while no task is tracked continues nothing: the turn opens the
            # service intent the NLU ranked next ("I am looking for events in Anaheim" read as an inform)
            # when the values said fit it (or none were said); below the values that name a service
            runner_up = (f"(session.ranked.1 == '{name}' or (session.ranked.1 in {list(ACT_LABELS)} "
                         f"and session.ranked.2 == '{name}'))")
            fits = f"({typed_values} or not ({said_any}))" if typed_values else f"not ({said_any})"
            opens = [(act, ["not has(session.sgd.active)", runner_up, fits], f".opens_{act.split('.')[1]}", True)
                     for act in OPENING_ACTS]
            if starters.get(name):
                triggers.append(("sgd.inform", ["not has(session.sgd.active)", "(" + " or ".join(
                    f"has(entities.{k})" for k in starters[name]) + ")"], ".start", True))
            # values only this intent takes, said while a sibling intent of the service is tracked
            # ("set it for 3:15, name it Cooking" while the alarms were being listed)
            mine = _intent_keys(it, True)
            for sib in svc["intents"]:
                if sib["name"] == name:
                    continue
                theirs = _intent_keys(sib, True)
                only = [k for k in mine if k not in theirs]
                if only:
                    cond = [f"session.sgd.active == '{sib['name']}'", "(" + " or ".join(f"has(entities.{k})" for k in only) + ")"]
                    if theirs:
                        cond.append("not (" + " or ".join(f"has(entities.{k})" for k in theirs) + ")")
                    triggers.append(("sgd.inform", cond, f".from_{sib['name']}", True))
            # the turns other services' intents leave to this one (see :func:`stays`)
            for osvc in schema:
                if osvc is svc:
                    continue
                for oit in osvc["intents"]:
                    st = stays(oit, osvc["service_name"], it)
                    if st is not None:
                        triggers.append((oit["name"], st, f".stay_{oit['name']}", intent_slots(oit)))
            for trig, conds, suffix, by_type in [*triggers, *opens]:
                keyed_for = trig if isinstance(by_type, dict) else None
                opening = suffix.startswith(".opens_")  # below every other reading of the turn: its
                for i, slot in enumerate(req):           # questions below the others' calls
                    rules.append({
                        "rule_id": f"sgd.{name}{suffix}.ask.{slot}", "priority": (9 if opening else 100) - i,
                        "trigger": {"intent": trig},
                        "conditions": [*conds, "not " + _has(slot, by_type=by_type, transactional=tx, intent=name,
                                                             by_context=by_context_types(schema, it, slot))],
                        "actions": [*_track(name, ask=slot, keyed_for=keyed_for), {"reply": {"en": "{{steps.st.say}}"}}]})
                call = [*_track(name, keyed_for=keyed_for)]
                if tx:
                    call.append({"confirm": {"en": f"Please confirm {name}: {{{{steps.st.summary}}}}"},
                                 "fields": {"method": name, "args": "{{steps.st.args}}"}})
                call += [{"tool": tool_name(name), "id": "api",
                          "params": {"method": name, "args": "{{steps.st.args}}",
                                     "results_file": "{{memory.sgd_results_file}}"}},
                         {"tool": "sgd_track", "id": "done",
                          "params": {"intent": name, "entities": {}, "session": "{{session}}",
                                     "results": "{{steps.api.results}}"}},
                         {"set_state": {"sgd": "{{steps.done.state}}"}},
                         {"reply": {"en": "{{steps.done.say}}"}}]
                rules.append({"rule_id": f"sgd.{name}{suffix}.call", "priority": 5 if opening else 10,
                              "trigger": {"intent": trig},
                              "conditions": [*conds, "has(memory.sgd_results_file)"], "actions": call,
                              # the tool refused the arguments (a required one was not understood)
                              "fallback": [{"reply": {"en": f"I still need more details for {name}; "
                                                            "so far I have {{steps.st.summary}}."}}]})
                rules.append({"rule_id": f"sgd.{name}{suffix}.no_source", "priority": 0, "trigger": {"intent": trig},
                              "conditions": conds,
                              "actions": [{"reply": {"en": "No recorded results are configured for this user "
                                                           "(memory key sgd_results_file)."}}]})
    # dialogue acts that continue nothing: answer from the tracked state
    for label in ("sgd.request", "sgd.thanks", "sgd.request_alts", "sgd.select", "sgd.bye", "sgd.inform",
                  "sgd.affirm_intent"):
        rules.append({"rule_id": f"{label}.state", "priority": -10, "trigger": {"intent": label},
                      "actions": [*_track(label), {"reply": {"en": "{{steps.st.say}}"}}]})
    return {"pack": "sgd", "description": "Schema-Guided Dialogue services (generated by scripts/build_sgd_pack.py)",
            "fallback": [{"reply": {"en": "Could you tell me a bit more?"}}], "rules": rules}


def tool_name(method: str) -> str:
    """``ReserveRestaurant`` → ``sgd_reserve_restaurant``."""
    return "sgd_" + re.sub(r"(?<!^)(?=[A-Z])", "_", method).lower()


#: the pack's hand-written files (committed); everything else in the pack is generated here
PACK_SRC = REPO / "config" / "packs" / "sgd"
HAND_WRITTEN = ("hermesd.yaml", "ATTRIBUTION.md", ".gitignore", "tools/_sgd/api.py", "tools/_sgd/track.py")


def write_tools(schema: list[dict], out: Path) -> None:
    """One descriptor per SGD method, all naming the shared handler ``tools/_sgd/api.py``, and
    ``sgd_track`` naming ``tools/_sgd/track.py`` (its schema and gazetteers beside it)."""
    tools = out / "tools"
    for old in tools.glob("sgd_*") if tools.is_dir() else []:
        shutil.rmtree(old)
    (tools / "_sgd").mkdir(parents=True, exist_ok=True)
    for svc in schema:
        for it in svc["intents"]:
            name = tool_name(it["name"])
            d = tools / name
            d.mkdir(parents=True)
            args = [*it["required_slots"], *it["optional_slots"]]
            desc = {"name": name, "version": "1.0.0", "handler": "../_sgd/api.py",
                    "description": {"en": f"SGD {svc['service_name']}.{it['name']} answered from recorded results: "
                                          f"{it['description']}"},
                    # the API's own contract: a call without a required argument never reaches it
                    "input": {"type": "object", "additionalProperties": False,
                              "required": ["method", "args", "results_file"],
                              "properties": {
                                  "method": {"type": "string", "enum": [it["name"]]},
                                  "args": {"type": "object", "additionalProperties": False,
                                           "required": list(it["required_slots"]),
                                           "properties": {a: {"type": "string", "minLength": 1} for a in args}},
                                  "results_file": {"type": "string", "minLength": 1}}},
                    "output": {"method": {"type": "string", "required": True},
                               "args": {"type": "object", "required": True},
                               "results": {"type": "array", "required": True, "items": {"type": "object"}}},
                    "errors": {"RESULTS_FILE_MISSING": "the recorded-results file cannot be read"},
                    # the recorded results hermesctl replay writes (hermesd.replay.RESULTS_ROOT)
                    "grants": {"fs": {"read": ["/tmp/hermesd-replay"]}},
                    "confirm": bool(it["is_transactional"]), "idempotent": not it["is_transactional"],
                    "sandbox": {"memory_mb": 128, "cpu_ms": 2000, "timeout_ms": 5000}}
            (d / "tool.yaml").write_text(yaml.safe_dump(desc, sort_keys=False, allow_unicode=True))
            example = {a: "x" for a in args}
            cases = [{"name": "no results file", "input": {"method": it["name"], "args": example,
                                                            "results_file": "/nonexistent/sgd-results.jsonl"},
                      "expect": {"error": "RESULTS_FILE_MISSING"}}]
            if it["required_slots"]:
                cases.append({"name": "a required argument missing", "input": {
                    "method": it["name"], "args": {}, "results_file": "/nonexistent/sgd-results.jsonl"},
                    "expect": {"error": "INPUT_INVALID"}})
            (d / "test_cases.json").write_text(json.dumps(cases, indent=1) + "\n")
    d = tools / "sgd_track"
    d.mkdir()
    shutil.copy(out / "schema.json", tools / "_sgd" / "schema.json")
    (d / "tool.yaml").write_text(yaml.safe_dump({
        "name": "sgd_track", "version": "1.0.0", "handler": "../_sgd/track.py",
        "description": {"en": "SGD dialogue state: merges this turn's slot values into the tracked state, "
                              "canonicalises dates/times/counts, builds API arguments and the reply."},
        "input": {"intent": {"type": "string", "required": True}, "entities": {"type": "object", "required": True},
                  "session": {"type": "object", "required": True}, "results": {"type": "array"},
                  "ask": {"type": "string"}, "keyed_for": {"type": "string"}},
        "output": {"state": {"type": "object", "required": True}, "args": {"type": "object", "required": True},
                   "summary": {"type": "string", "required": True}, "say": {"type": "string", "required": True}},
        "idempotent": True, "sandbox": {"memory_mb": 64, "cpu_ms": 500, "timeout_ms": 2000}}, sort_keys=False))
    (d / "test_cases.json").write_text(json.dumps([
        {"name": "find with city", "input": {"intent": "FindRestaurants", "entities": {"city": "San Jose"},
                                             "session": {}},
         "expect": {"values": {"args": {"city": "San Jose"}}}},
        {"name": "time from a datetime", "input": {"intent": "AddAlarm", "entities": {"when": {
            "kind": "point", "start": "2019-03-01T18:30:00-08:00", "end": None, "grain": "minute",
            "text": "6:30 pm"}}, "session": {}},
         "expect": {"values": {"args": {"new_alarm_time": "18:30", "new_alarm_name": "New alarm"}}}},
    ], indent=1, ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "sgd")
    ap.add_argument("--out", type=Path, default=REPO / "config" / "packs" / "sgd")
    ap.add_argument("--dialogues", type=Path, help="build from the dialogues of this file (default: all shared ones)")
    ap.add_argument("--min-support", type=int, default=MIN_SUPPORT,
                    help="distinct build dialogues a mined value needs (default %(default)s)")
    a = ap.parse_args(argv)
    if a.out.resolve() == PACK_SRC.resolve():
        return build_pack(a, a.out)
    # built elsewhere (an install's staging folder, a test's scratch folder): through the pack cache
    # when $HD_PACK_CACHE names one (the test suite's; scripts/_pack_cache.py has the key)
    import _pack_cache  # a sibling of this script (run as a script only)

    args = {"data": str(a.data.resolve()), "min_support": a.min_support,
            "dialogues": str(a.dialogues.resolve()) if a.dialogues else None}
    data = [a.data, *([a.dialogues] if a.dialogues else [])]
    return _pack_cache.build_or_copy("sgd", a.out, _pack_cache.builder_sources("sgd", Path(__file__), data),
                                     args, lambda out: build_pack(a, out))


def build_pack(a: argparse.Namespace, out: Path) -> int:
    """Build the pack into ``out`` from the parsed arguments ``a`` (``a.out`` is not read). :return: 0."""
    if out.resolve() != PACK_SRC.resolve():  # a pack built elsewhere gets the hand-written files too
        for rel in HAND_WRITTEN:
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(PACK_SRC / rel, out / rel)
    schema, build = load(a.data, a.dialogues)
    (out / "intents").mkdir(parents=True, exist_ok=True)
    (out / "rules").mkdir(parents=True, exist_ok=True)
    slim = [{"service_name": s["service_name"], "intents": s["intents"],
             "slots": [{**sl, "entity": slot_entity(sl["name"])} for sl in s["slots"]]} for s in schema]
    (out / "schema.json").write_text(json.dumps(slim, indent=1) + "\n")
    head = ("# Generated by scripts/build_sgd_pack.py from sgd_schema.json and SGD dialogues\n"
            "# (their intent labels only). Derived from the Schema-Guided Dialogue dataset, CC BY-SA 4.0: see\n"
            "# ../ATTRIBUTION.md. Do not edit by hand; rerun the script.\n")
    doc = intents_doc(schema, build, a.min_support)
    canon = dict(doc["gazetteers"])
    # counts come from the sgd_count pattern in hermesd.yaml (a bare "one" is no count);
    # the words → digits map stays for the tracker
    doc["gazetteers"] = {k: v for k, v in doc["gazetteers"].items() if k != "sgd_count"}
    (out / "intents" / "sgd.yaml").write_text(head + yaml.safe_dump(doc, sort_keys=False,
                                                                     allow_unicode=True, width=120))
    (out / "rules" / "sgd.yaml").write_text(head + yaml.safe_dump(rules_doc(schema), sort_keys=False,
                                                                   allow_unicode=True, width=120))
    write_tools(schema, out)
    # the tracker maps values the NLU's regex patterns found through the same gazetteers
    (out / "tools" / "_sgd" / "canon.json").write_text(json.dumps(canon, ensure_ascii=False) + "\n")
    shutil.copy(a.data / "LICENSE", out / "LICENSE")
    print(f"built {out} from {len(build)} dialogues")
    # compile the intents ahead of time (hermesd build-pack): the daemon then loads the scorer in
    # milliseconds instead of training it on the SGD examples at every first start
    from _compile_intents import compile_intents  # a sibling of this script (run as a script only)

    return compile_intents(out / "intents")


if __name__ == "__main__":
    raise SystemExit(main())
