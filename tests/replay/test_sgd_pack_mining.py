"""What the SGD pack builder mines from its build dialogues (pure, no daemon, no shared data):
a value enters a gazetteer only when enough distinct dialogues bring it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("build_sgd_pack", REPO / "scripts" / "build_sgd_pack.py")
builder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(builder)

SCHEMA = [{"service_name": "Restaurants_1", "intents": [],
           "slots": [{"name": "cuisine", "is_categorical": False, "possible_values": []},
                     {"name": "city", "is_categorical": False, "possible_values": []},
                     {"name": "restaurant_name", "is_categorical": False, "possible_values": []}]}]


def _user(text: str, slot: str, value: str, canonical: str) -> dict:
    i = text.find(value)
    return {"speaker": "USER", "text": text, "spans": [{"slot": slot, "start": i, "end": i + len(value), "value": value}],
            "actions": [{"act": "INFORM", "slot": slot, "values": [value], "canonical_values": [canonical]}]}


def _system(results: list[dict]) -> dict:
    return {"speaker": "SYSTEM", "text": "", "actions": [], "api_call": {"method": "FindRestaurants", "args": {}},
            "api_results": results}


def test_a_value_one_dialogue_says_is_not_mined_two_are_enough():
    build = {"d1": [_user("Punjabi food in SFO", "cuisine", "Punjabi", "Indian")],
             "d2": [_user("some Punjabi please", "cuisine", "Punjabi", "Indian"),
                    _user("in Gilroy", "city", "Gilroy", "Gilroy")]}
    got = builder.mined_values(SCHEMA, build, min_support=2)
    assert got["sgd_cuisine"] == {"punjabi": "Indian"}
    assert "gilroy" not in got.get("sgd_city", {})  # one dialogue only
    assert builder.mined_values(SCHEMA, build, min_support=3) == {}


def test_the_canonical_value_most_dialogues_gave_wins_and_results_count_too():
    build = {f"d{i}": [_user("a burger", "cuisine", "burger", "American" if i < 3 else "Sandwich"),
                       _system([{"restaurant_name": "Sakura Garden", "city": "Gilroy"}])] for i in range(4)}
    got = builder.mined_values(SCHEMA, build, min_support=2)
    assert got["sgd_cuisine"]["burger"] == "American"
    assert got["sgd_restaurant_name"]["sakura garden"] == "Sakura Garden"
    assert got["sgd_city"]["gilroy"] == "Gilroy"


def test_everyday_words_and_numbers_are_never_mined():
    # "good" is said outside any annotated value in three dialogues: an ordinary word, not a restaurant
    build = {f"d{i}": [{"speaker": "USER", "text": "that sounds good", "spans": [], "actions": []},
                       _system([{"restaurant_name": "Good", "city": "123"}])] for i in range(3)}
    got = builder.mined_values(SCHEMA, build, min_support=2)
    assert "good" not in got.get("sgd_restaurant_name", {}) and "123" not in got.get("sgd_city", {})


def test_mined_values_outrank_the_hand_written_lists_but_not_the_schema():
    schema = [{**SCHEMA[0], "slots": [{"name": "cuisine", "is_categorical": False, "possible_values": ["Indian"]}]}]
    build = {f"d{i}": [_user("burmese", "cuisine", "burmese", "Asian"), _user("curry", "cuisine", "curry", "Thai")]
             for i in range(2)}
    gaz = builder.gazetteers(schema, build, min_support=2)
    assert gaz["sgd_cuisine"]["burmese"] == "Asian"  # the hand-written list says Burmese
    assert gaz["sgd_cuisine"]["curry"] == "Thai"  # the hand-written kinds say Indian
    assert gaz["sgd_cuisine"]["indian"] == "Indian"
    plain = builder.gazetteers(schema, {}, min_support=2)["sgd_cuisine"]
    assert (plain["burmese"], plain["curry"], plain["sushi"], plain["pizza"]) == ("Burmese", "Indian", "Japanese", "Italian")


PAY = [{"service_name": "Payment_1", "intents": [
    {"name": "RequestPayment", "is_transactional": True, "required_slots": ["receiver", "amount"],
     "optional_slots": {"private_visibility": "False"}}],
    "slots": [{"name": "receiver", "is_categorical": False, "possible_values": []},
              {"name": "amount", "is_categorical": False, "possible_values": []}]},
    {"service_name": "Calendar_1", "intents": [
        {"name": "AddEvent", "is_transactional": True,
         "required_slots": ["event_name", "event_date", "event_location", "event_time"], "optional_slots": {}}],
     "slots": [{"name": "event_name", "is_categorical": False, "possible_values": []},
               {"name": "event_location", "is_categorical": False, "possible_values": []}]}]


def test_a_name_typed_for_another_service_fills_the_one_required_name_slot():
    pay, cal = PAY[0]["intents"][0], PAY[1]["intents"][0]
    # "the request will be made to Isabella": read as a place, yet Payment_1 has no place
    assert "sgd_city" in builder.by_context_types(PAY, pay, "receiver")
    assert "sgd_receiver" not in builder.by_context_types(PAY, pay, "receiver")  # its own type
    assert builder.by_context_types(PAY, pay, "amount") == []
    # two required name slots: which one a stray name fills is the question's, not the rule's
    assert builder.by_context_types(PAY, cal, "event_name") == []


def test_a_rule_asks_a_required_name_only_when_no_name_of_it_was_said():
    cond = builder._has("receiver", transactional=True, intent="RequestPayment",
                        by_context=builder.by_context_types(PAY, PAY[0]["intents"][0], "receiver"))
    assert "has(entities.sgd_city)" in cond
    assert "session.sgd.done.intent == 'RequestPayment'" in cond  # a new attempt keeps the last one's values


def test_the_service_name_is_a_keyword_of_its_intents():
    doc = builder.intents_doc([{**PAY[1], "intents": [{**PAY[1]["intents"][0], "description": "Add event"}]}],
                               {"d1": [{"speaker": "USER", "text": "Yes", "spans": [],
                                        "actions": [{"act": "AFFIRM", "slot": "", "values": []}]}]})
    assert doc["intents"][0]["keywords"] == ["event", "calendar"]


def test_the_words_that_name_a_task_are_the_nouns_of_its_intent_and_service():
    assert builder.naming_words({"name": "ReserveRestaurant"}, "Restaurants_1") == ["restaurant"]
    assert builder.naming_words({"name": "BuyEventTickets"}, "Events_1") == ["event", "ticket"]
    assert builder.naming_words({"name": "GetAvailableTime"}, "Calendar_1") == ["available", "calendar"]


FIND_RESTAURANTS = {"name": "FindRestaurants", "required_slots": ["cuisine", "city"], "optional_slots": {}}
ADD_ALARM = {"name": "AddAlarm", "required_slots": ["new_alarm_time"], "optional_slots": {"new_alarm_name": "x"}}
BUY_TICKETS = {"name": "BuyEventTickets", "required_slots": ["event_name", "number_of_seats", "date",
                                                             "city_of_event"], "optional_slots": {}}


def _holds(conds: list[str], entities: dict, utterance: str, active: str) -> bool:
    from hermesd.rules.conditions import parse

    ctx = {"entities": entities, "session": {"utterance": utterance, "sgd": {"active": active}}}
    return all(parse(c)(ctx) for c in conds)



@pytest.mark.parametrize("read_as, service, active, entities, utterance, stays", [
    # a value the task in hand takes, no word naming the other task: stay
    (ADD_ALARM, "Alarm_1", FIND_RESTAURANTS, {"sgd_city": "Alameda"}, "Alameda", True),
    # the other task named by its words: a new task
    (ADD_ALARM, "Alarm_1", FIND_RESTAURANTS, {"sgd_city": "Alameda"}, "Set an alarm, I'm in Alameda", False),
    (ADD_ALARM, "Alarm_1", FIND_RESTAURANTS, {"sgd_city": "Alameda"}, "Alarms in Alameda", False),
    # a value only the other task takes (an alarm time; restaurants have none): a new task
    (ADD_ALARM, "Alarm_1", FIND_RESTAURANTS, {"sgd_city": "Alameda", "when": {"grain": "minute"}},
     "Alameda at 7", False),
    # no value at all: nothing to fill, the reading stands
    (ADD_ALARM, "Alarm_1", FIND_RESTAURANTS, {}, "Yes please", False),
    # "try again for next Friday" read as the restaurant booking while tickets are being bought
    ({"name": "ReserveRestaurant", "required_slots": ["restaurant_name", "city", "time"],
      "optional_slots": {"date": "x"}}, "Restaurants_1", BUY_TICKETS, {"when": {"grain": "day"}},
     "Try again for next Friday.", True),
    ({"name": "ReserveRestaurant", "required_slots": ["restaurant_name", "city", "time"],
      "optional_slots": {"date": "x"}}, "Restaurants_1", BUY_TICKETS, {"when": {"grain": "day"}},
     "Book a Restaurant for next Friday.", False),
])
def test_a_turn_read_as_another_services_intent_stays_on_the_task_in_hand(read_as, service, active, entities,
                                                                         utterance, stays):
    conds = builder.stays(read_as, service, active)
    assert conds is not None
    assert _holds(conds, entities, utterance, active["name"]) is stays
    assert not _holds(conds, entities, utterance, "GetAlarms")  # only while that task is tracked


def test_no_stay_when_no_value_of_the_reading_fits_the_task():
    # GetAlarms' reading carries only names; a search by category and price takes none of them
    search = {"name": "FindThings", "required_slots": ["category"], "optional_slots": {"price_range": "x"}}
    alarm = {"name": "GetAlarms", "required_slots": [], "optional_slots": {}}
    assert builder.stays(alarm, "Alarm_1", search) is None
    # a payment takes a name (its receiver): "to Jerry" read as GetAlarms pays Jerry
    pay = {"name": "MakePayment", "required_slots": ["payment_method", "amount", "receiver"], "optional_slots": {}}
    assert _holds(builder.stays(alarm, "Alarm_1", pay), {"sgd_receiver": "Jerry"}, "to Jerry", "MakePayment")
