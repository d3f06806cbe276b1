"""What the SGD pack builder mines from its build dialogues (pure, no daemon, no shared data):
a value enters a gazetteer only when enough distinct dialogues bring it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

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
