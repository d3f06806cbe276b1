#!/usr/bin/env python3
"""Build the SGD pack (``config/packs/sgd/``) from the SGD schema and TRAINING dialogues only.

Usage: ``python scripts/build_sgd_pack.py [--data ../shared/data/sgd] [--out config/packs/sgd]``

Source: Schema-Guided Dialogue dataset (Rastogi et al., AAAI 2020, arXiv:1909.05855),
CC BY-SA 4.0 — the pack keeps that licence (``LICENSE``, ``ATTRIBUTION.md`` in the pack).

Split (never evaluate on what built the pack): a dialogue builds the pack when its
``source_split`` is ``train`` and ``int(sha1(dialogue_id), 16) % 5`` is not :data:`EVAL_BUCKET`
(bucket 0 is already held out of the shared extract by the dataset README's rule). Everything
else — train dialogues in bucket 1, and every dev/test dialogue (Alarm_1, Payment_1) — is
the evaluation side (:func:`is_build_dialogue`).

Writes ``intents/sgd.yaml`` (intents with templates-free examples, slot → entity type maps,
gazetteers of slot values seen in the build dialogues' user turns plus the schema's
categorical values), ``rules/sgd.yaml`` (slot asks, confirmation of transactional
intents, calls), ``tools/<name>/`` (one tool per SGD method + ``sgd_track``), and
``schema.json`` (the services as the tools read them).
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
EVAL_BUCKET = 1
#: slots whose values are dates or times: filled from the NLU's ``datetime`` entity
DATE_SLOTS = {"date", "event_date"}
TIME_SLOTS = {"time", "event_time", "new_alarm_time", "alarm_time"}
#: categorical values said in other words (hand-written, generic English, not from the data)
SYNONYMS = {
    # SGD's annotators' reading (mined from the training turns' INFORM acts, typos included): "affordable",
    # "reasonably priced", "average" are moderate; "fancy", "pricey" expensive; "budget", "low cost" cheap
    "price_range": {"cheap": "inexpensive", "budget": "inexpensive", "low cost": "inexpensive",
                    "low-cost": "inexpensive", "inexpensive": "inexpensive", "affordable": "moderate",
                    "moderate": "moderate", "moderately priced": "moderate", "reasonably priced": "moderate",
                    "average": "moderate", "intermediate": "moderate", "expensive": "expensive",
                    "afforadable": "moderate", "economical": "moderate", "not very costly": "moderate",
                    "not too costly": "moderate", "moderately": "moderate",
                    "pricey": "expensive", "fancy": "expensive", "very expensive": "very expensive"},
    "has_live_music": {"live music": "True"},
    "serves_alcohol": {"alcohol": "True", "serves alcohol": "True", "serve alcohol": "True", "liquor": "True",
                       "drinks": "True", "serves drinks": "True"},
    "category": {"music": "Music", "concert": "Music", "concerts": "Music", "sports": "Sports",
                 "sport": "Sports", "game": "Sports", "games": "Sports", "match": "Sports"},
    "payment_method": {"app balance": "app balance", "balance": "app balance", "debit card": "debit card",
                       "debit": "debit card", "credit card": "credit card", "credit": "credit card"},
    "private_visibility": {"private": "True", "privately": "True", "public": "False", "publicly": "False"},
}
COUNT_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
               "1": "1", "2": "2", "3": "3", "4": "4", "5": "5", "6": "6"}
COUNT_SLOTS = {"party_size", "number_of_seats"}
#: open-class slots a question is answered in plain words ("Phone home"): a turn right after the
#: question is taken to answer it (the tracker keeps the words when no entity fills the slot)
FREE_TEXT_SLOTS = {"new_alarm_name", "event_name", "event_location", "receiver"}
#: dialogue acts of a user turn → the pack's dialogue-act intents (for turns that name no service intent)
ACT_INTENTS = {"AFFIRM_INTENT": "sgd.affirm_intent", "NEGATE_INTENT": "sgd.bye", "REQUEST_ALTS": "sgd.request_alts",
               "SELECT": "sgd.select", "INFORM": "sgd.inform", "AFFIRM": "sgd.affirm_intent", "REQUEST": "sgd.request",
               "NEGATE": "sgd.bye", "THANK_YOU": "sgd.thanks", "GOODBYE": "sgd.thanks"}


def bucket(dialogue_id: str) -> int:
    """The README's split bucket: ``int(sha1(dialogue_id), 16) % 5``."""
    return int(hashlib.sha1(dialogue_id.encode()).hexdigest(), 16) % 5


def is_build_dialogue(first_turn: dict) -> bool:
    """True when a dialogue (given its first turn record) may be used to build the pack."""
    return first_turn.get("source_split") == "train" and bucket(first_turn["dialogue_id"]) != EVAL_BUCKET


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
    if dialogues_file is not None:
        return schema, dict(dialogues)
    return schema, {k: v for k, v in dialogues.items() if is_build_dialogue(v[0])}


def _acts(turn: dict) -> set[str]:
    return {a["act"] for a in turn.get("actions") or []}


def _ordinary_words(build: dict[str, list[dict]], min_turns: int = 3) -> set[str]:
    """Words users said outside any annotated value in at least ``min_turns`` build turns."""
    c: Counter = Counter()
    for turns in build.values():
        for t in turns:
            if t["speaker"] != "USER":
                continue
            text = t["text"]
            for sp in sorted(t.get("spans") or [], key=lambda sp: -sp["start"]):
                text = text[:sp["start"]] + " " + text[sp["end"]:]
            c.update(set(re.findall(r"[a-z']+", text.lower())))
    return {w for w, n in c.items() if n >= min_turns}


def gazetteers(schema: list[dict], build: dict[str, list[dict]]) -> dict[str, dict[str, str]]:
    gaz: dict[str, dict[str, str]] = defaultdict(dict)
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
    args = {a for svc in schema for it in svc["intents"] for a in [*it["required_slots"], *it["optional_slots"]]}
    open_slots = {s["name"] for svc in schema for s in svc["slots"] if not s["is_categorical"]} & args
    seen: Counter = Counter()
    for turns in build.values():
        for t in turns:
            # surface forms the user said, with the value the annotators resolved them to (NYC → New York)
            canon = {(a["slot"], v): c for a in t.get("actions") or []
                     for v, c in zip(a.get("values") or [], a.get("canonical_values") or [])}
            for sp in t.get("spans") or []:
                typ = slot_entity(sp["slot"])
                if typ.startswith("sgd_") and len(sp["value"]) >= 2:
                    # what users said, as annotated, outranks what the API listed
                    seen[(typ, sp["value"], canon.get((sp["slot"], sp["value"]), sp["value"]))] += 1000
            # values the (training) system and its API named: cities, restaurants, events, places
            records = [(t.get("api_call") or {}).get("args") or {}, *(t.get("api_results") or [])]
            for rec in records:
                for slot, value in rec.items():
                    if slot in open_slots and isinstance(value, str) and len(value) >= 2 \
                            and not value.replace(":", "").replace("-", "").isdigit():
                        seen[(slot_entity(slot), value, value)] += 1
    common = _ordinary_words(build)
    for (typ, value, canonical), _ in seen.most_common():
        if value.lower() not in common:  # "Friends" is an event somewhere, and an everyday word
            gaz[typ].setdefault(value.lower(), canonical)
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


def intents_doc(schema: list[dict], build: dict[str, list[dict]]) -> dict:
    ex = examples(build)
    opens = openers(build)
    intents = []
    for svc in schema:
        for it in svc["intents"]:
            slots = {s: slot_entity(s) for s in [*it["required_slots"], *it["optional_slots"]]}
            # one datetime can carry both a date and a time ("tomorrow at 7 pm"): map the first two
            # datetime mentions to when/when2; sgd_track splits them into the SGD slots
            slots = {k: v for k, v in slots.items() if v != "datetime"}
            if any(slot_entity(s) == "datetime" for s in [*it["required_slots"], *it["optional_slots"]]):
                slots.update({"when": "datetime", "when2": "datetime"})
            words = re.findall(r"[A-Z][a-z]+", it["name"])
            intents.append({"name": it["name"], "description": it["description"], "slots": slots,
                            "keywords": [w.lower() for w in words if w not in ("Get", "Find", "Make", "Add")],
                            "examples": _augmented(ex.get(it["name"], []) + schema_examples(it), opens)})
    # dialogue-act intents name their slots by entity type: the tracker maps them onto the
    # active intent's slots (one sgd_city value is city for Restaurants_1, city_of_event for Events_1)
    all_slots = {slot_entity(s["name"]): slot_entity(s["name"]) for svc in schema for s in svc["slots"]
                 if slot_entity(s["name"]) != "datetime"}
    all_slots.update({"when": "datetime", "when2": "datetime"})
    for label in sorted(set(ACT_INTENTS.values())):
        intents.append({"name": label, "slots": all_slots, "examples": ex.get(label, [])})
    return {"pack": "sgd", "gazetteers": gazetteers(schema, build), "intents": intents}


def _key(slot: str, by_type: bool) -> str:
    """The entity key a rule reads for ``slot``: the slot name for a service intent, the entity
    type for the dialogue-act intents (whose slots are named by type, see :func:`intents_doc`)."""
    return slot_entity(slot) if by_type else slot


def _has(slot: str, *, by_type: bool = False, transactional: bool = False) -> str:
    """Condition: ``slot`` has a value this turn, in the tracked state, or (transactional) in the
    offered result; or it was asked last turn (the tracker takes the answer's text for it)."""
    k = _key(slot, by_type)
    parts = [f"has(session.sgd.slots.{slot})"]
    if slot in FREE_TEXT_SLOTS:
        parts.append(f"session.sgd.asked == '{slot}'")
    if transactional:
        parts.append(f"has(session.sgd.offered.{slot})")
    if slot in DATE_SLOTS:
        parts += [f"has(entities.{slot})", "has(entities.when)", "has(session.sgd.pool.when)"]
    elif slot in TIME_SLOTS:
        parts += [f"has(entities.{slot})", "entities.when.grain in ['hour', 'minute']",
                  "entities.when2.grain in ['hour', 'minute']"]
    else:
        parts += [f"has(entities.{k})", f"has(session.sgd.pool.{slot_entity(slot)})"]
    return "(" + " or ".join(parts) + ")"


def _intent_keys(it: dict, by_type: bool) -> list[str]:
    """Entity keys that carry a value for one of the intent's slots (datetimes come as when/when2)."""
    keys = []
    for s in [*it["required_slots"], *it["optional_slots"]]:
        k = "when" if slot_entity(s) == "datetime" else _key(s, by_type)
        if k not in keys:
            keys.append(k)
    return keys + (["when2"] if "when" in keys else [])


def _track(intent: str, ask: str | None = None) -> list[dict]:
    params = {"intent": intent, "entities": "{{entities}}", "session": "{{session}}"}
    if ask:
        params["ask"] = ask
    return [{"tool": "sgd_track", "id": "st", "params": params}, {"set_state": {"sgd": "{{steps.st.state}}"}}]


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


def rules_doc(schema: list[dict]) -> dict:
    """Per service intent, for its own intent and for the dialogue-act intents that continue it:
    ask each missing required slot (highest priority first), else call — after a confirmation
    card when the intent is transactional. The tracker (tool ``sgd_track``) keeps the state."""
    rules = []
    starters = _starters(schema)
    for svc in schema:
        for it in svc["intents"]:
            name, tx = it["name"], it["is_transactional"]
            req = it["required_slots"]
            typed_values = " or ".join(f"has(entities.{k})" for k in _intent_keys(it, True))
            # a turn with no service intent continues the tracked one when it brings values for it
            # (or answers the question asked), or accepts the intent the system offered
            triggers = [(name, [], "", False),
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
            for trig, conds, suffix, by_type in triggers:
                for i, slot in enumerate(req):
                    rules.append({
                        "rule_id": f"sgd.{name}{suffix}.ask.{slot}", "priority": 100 - i,
                        "trigger": {"intent": trig},
                        "conditions": [*conds, f"not {_has(slot, by_type=by_type, transactional=tx)}"],
                        "actions": [*_track(name, ask=slot), {"reply": {"en": "{{steps.st.say}}"}}]})
                call = [*_track(name)]
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
                rules.append({"rule_id": f"sgd.{name}{suffix}.call", "priority": 10, "trigger": {"intent": trig},
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


def write_tools(schema: list[dict], out: Path) -> None:
    src = Path(__file__).resolve().parent / "sgd_pack_src"
    tools = out / "tools"
    if tools.exists():
        shutil.rmtree(tools)
    for svc in schema:
        for it in svc["intents"]:
            name = tool_name(it["name"])
            d = tools / name
            d.mkdir(parents=True)
            shutil.copy(src / "api_handler.py", d / "handler.py")
            args = [*it["required_slots"], *it["optional_slots"]]
            desc = {"name": name, "version": "1.0.0",
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
    shutil.copy(src / "track_handler.py", d / "handler.py")
    shutil.copy(out / "schema.json", d / "schema.json")
    (d / "tool.yaml").write_text(yaml.safe_dump({
        "name": "sgd_track", "version": "1.0.0",
        "description": {"en": "SGD dialogue state: merges this turn's slot values into the tracked state, "
                              "canonicalises dates/times/counts, builds API arguments and the reply."},
        "input": {"intent": {"type": "string", "required": True}, "entities": {"type": "object", "required": True},
                  "session": {"type": "object", "required": True}, "results": {"type": "array"},
                  "ask": {"type": "string"}},
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


def split_files(data: Path, build_out: Path, eval_out: Path) -> tuple[int, int]:
    """Write the build and evaluation dialogues of ``sgd_turns.jsonl`` to two files (for measuring)."""
    dialogues: dict[str, list[str]] = defaultdict(list)
    first: dict[str, dict] = {}
    with (data / "sgd_turns.jsonl").open() as f:
        for line in f:
            r = json.loads(line)
            dialogues[r["dialogue_id"]].append(line)
            first.setdefault(r["dialogue_id"], r)
    nb = ne = 0
    with build_out.open("w") as b, eval_out.open("w") as e:
        for did, lines in dialogues.items():
            if is_build_dialogue(first[did]):
                b.writelines(lines)
                nb += 1
            else:
                e.writelines(lines)
                ne += 1
    return nb, ne


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "sgd")
    ap.add_argument("--out", type=Path, default=REPO / "config" / "packs" / "sgd")
    ap.add_argument("--split-to", type=Path, metavar="DIR",
                    help="also write DIR/sgd_build.jsonl and DIR/sgd_eval.jsonl (the two sides of the split)")
    ap.add_argument("--dialogues", type=Path, help="build from every dialogue of this file")
    a = ap.parse_args(argv)
    if a.split_to:
        a.split_to.mkdir(parents=True, exist_ok=True)
        print("split: build %d, eval %d dialogues" % split_files(a.data, a.split_to / "sgd_build.jsonl",
                                                                 a.split_to / "sgd_eval.jsonl"))
    schema, build = load(a.data, a.dialogues)
    out = a.out
    (out / "intents").mkdir(parents=True, exist_ok=True)
    (out / "rules").mkdir(parents=True, exist_ok=True)
    slim = [{"service_name": s["service_name"], "intents": s["intents"],
             "slots": [{**sl, "entity": slot_entity(sl["name"])} for sl in s["slots"]]} for s in schema]
    (out / "schema.json").write_text(json.dumps(slim, indent=1) + "\n")
    head = ("# Generated by scripts/build_sgd_pack.py from sgd_schema.json and the SGD training dialogues\n"
            "# (build split only). Derived from the Schema-Guided Dialogue dataset, CC BY-SA 4.0: see\n"
            "# ../ATTRIBUTION.md. Do not edit by hand; rerun the script.\n")
    doc = intents_doc(schema, build)
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
    (out / "tools" / "sgd_track" / "canon.json").write_text(json.dumps(canon, ensure_ascii=False) + "\n")
    shutil.copy(a.data / "LICENSE", out / "LICENSE")
    print(f"built {out} from {len(build)} training dialogues")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
