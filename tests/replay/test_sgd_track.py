"""The SGD pack's state tracker (config/packs/sgd/tools/_sgd/track.py), in-process on a small
hand-written schema (no shared data, no daemon): what a transaction's outcome leaves for the next turn."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCHEMA = [{"service_name": "Restaurants_1", "intents": [
    {"name": "FindRestaurants", "is_transactional": False, "required_slots": ["cuisine", "city"],
     "optional_slots": {"price_range": "dontcare"}},
    {"name": "ReserveRestaurant", "is_transactional": True, "required_slots": ["restaurant_name", "city", "time"],
     "optional_slots": {"date": "2019-03-01", "party_size": "2"}}],
    "slots": [{"name": "cuisine", "entity": "sgd_cuisine"}, {"name": "city", "entity": "sgd_city"},
              {"name": "price_range", "entity": "sgd_price_range"},
              {"name": "restaurant_name", "entity": "sgd_restaurant_name"}, {"name": "time", "entity": "datetime"},
              {"name": "date", "entity": "datetime"}, {"name": "party_size", "entity": "sgd_count"}]},
    {"service_name": "Events_1", "intents": [
        {"name": "FindEvents", "is_transactional": False, "required_slots": ["category", "city_of_event"],
         "optional_slots": {"date": "dontcare"}},
        {"name": "BuyEventTickets", "is_transactional": True,
         "required_slots": ["event_name", "number_of_seats", "date", "city_of_event"], "optional_slots": {}}],
     "slots": [{"name": "category", "entity": "sgd_category"}, {"name": "event_name", "entity": "sgd_event_name"},
               {"name": "city_of_event", "entity": "sgd_city"}, {"name": "date", "entity": "datetime"},
               {"name": "number_of_seats", "entity": "sgd_count"}]}]
OLIVE = {"restaurant_name": "Olive Garden", "city": "Milpitas", "cuisine": "Italian"}


@pytest.fixture(scope="module")
def track(tmp_path_factory: pytest.TempPathFactory):
    d = tmp_path_factory.mktemp("sgd") / "_sgd"
    d.mkdir()
    shutil.copy(REPO / "config" / "packs" / "sgd" / "tools" / "_sgd" / "track.py", d / "track.py")
    (d / "schema.json").write_text(json.dumps(SCHEMA))
    (d / "canon.json").write_text(json.dumps({"sgd_count": {"four": "4", "4": "4"}}))
    spec = importlib.util.spec_from_file_location("sgd_track_under_test", d / "track.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop("sgd_track_under_test", None)


def _reserve_card(track) -> dict:
    """A search that offered Olive Garden, then a reservation at 13:00: the state the card was shown in."""
    found = track.handle({"intent": "FindRestaurants", "entities": {"cuisine": "Italian", "city": "Milpitas"},
                          "session": {}, "results": [OLIVE]})
    st = track.handle({"intent": "ReserveRestaurant", "entities": {"time": "13:00"},
                       "session": {"sgd": found["state"]}})
    assert st["args"] == {"restaurant_name": "Olive Garden", "city": "Milpitas", "time": "13:00",
                          "date": "2019-03-01", "party_size": "2"}
    return st


def test_a_failed_transaction_keeps_its_values_and_offer_for_the_retry(track) -> None:
    st = _reserve_card(track)
    failed = track.handle({"intent": "ReserveRestaurant", "entities": {}, "session": {"sgd": st["state"]},
                           "results": []})
    assert failed["say"] == "Sorry, that did not go through."
    # "can you try again for 4 people?": one value changes, the rest of the card stands
    retry = track.handle({"intent": "ReserveRestaurant", "entities": {"party_size": "4"},
                          "session": {"sgd": failed["state"]}})
    assert retry["args"] == {"restaurant_name": "Olive Garden", "city": "Milpitas", "time": "13:00",
                             "date": "2019-03-01", "party_size": "4"}


def test_a_done_transaction_hands_nothing_to_another_intent(track) -> None:
    st = _reserve_card(track)
    done = track.handle({"intent": "ReserveRestaurant", "entities": {}, "session": {"sgd": st["state"]},
                         "results": [{**OLIVE, "time": "13:00", "party_size": "2"}]})
    assert "time" not in done["state"]["slots"] and done["state"]["results"] == []
    nxt = track.handle({"intent": "BuyEventTickets", "entities": {}, "session": {"sgd": done["state"]}})
    assert nxt["args"] == {} and "done" not in nxt["state"]


def test_the_same_transaction_said_again_is_a_new_attempt_with_its_values(track) -> None:
    # SGD's API may answer a reservation it could not make with a record (another time): the
    # tracker cannot tell, and the user tries again with one value changed ("attempt it for 5:30")
    st = _reserve_card(track)
    done = track.handle({"intent": "ReserveRestaurant", "entities": {}, "session": {"sgd": st["state"]},
                         "results": [{**OLIVE, "time": "13:30", "party_size": "2"}]})
    again = track.handle({"intent": "ReserveRestaurant", "entities": {"time": "17:30"},
                          "session": {"sgd": done["state"]}})
    assert again["args"] == {"restaurant_name": "Olive Garden", "city": "Milpitas", "time": "17:30",
                             "date": "2019-03-01", "party_size": "2"}


def test_every_result_offered_is_exhausted(track) -> None:
    two = [OLIVE, {**OLIVE, "restaurant_name": "Sakura"}]
    found = track.handle({"intent": "FindRestaurants", "entities": {"cuisine": "Italian", "city": "Milpitas"},
                          "session": {}, "results": two})
    assert found["state"]["exhausted"] is False  # the second is still to offer
    alt = track.handle({"intent": "sgd.request_alts", "entities": {}, "session": {"sgd": found["state"]}})
    assert alt["state"]["offered"]["restaurant_name"] == "Sakura" and alt["state"]["exhausted"] is True
    none = track.handle({"intent": "FindRestaurants", "entities": {}, "session": {}, "results": []})
    assert none["state"]["exhausted"] is False


def test_a_place_that_names_a_listed_event_is_that_event(track) -> None:
    found = track.handle({"intent": "FindEvents", "entities": {"category": "Music", "city_of_event": "New York"},
                          "session": {}, "results": [{"event_name": "Juliana Hatfield", "city_of_event": "New York",
                                                      "date": "2019-03-07"},
                                                     {"event_name": "Kirk Franklin", "city_of_event": "New York",
                                                      "date": "2019-03-08"}]})
    # "two tickets to Kirk Franklin": the capitals after "to" read as a place, yet they name a listed event
    st = track.handle({"intent": "BuyEventTickets", "entities": {"city_of_event": "KIRK FRANKLIN",
                                                                  "number_of_seats": "2"},
                       "session": {"sgd": found["state"]}})
    assert (st["args"]["event_name"], st["args"]["city_of_event"], st["args"]["date"]) == \
        ("Kirk Franklin", "New York", "2019-03-08")  # the named event is the offer now
    # a place that is a listed result's city stays the place
    st = track.handle({"intent": "FindEvents", "entities": {"city_of_event": "New York"},
                       "session": {"sgd": found["state"]}})
    assert st["args"]["city_of_event"] == "New York"


def test_values_read_for_another_services_intent_fill_the_task_in_hand(track) -> None:
    # "Alameda" read as FindEvents (its city_of_event) while restaurants are being looked for: the city
    found = track.handle({"intent": "FindRestaurants", "entities": {"cuisine": "Italian"}, "session": {}})
    st = track.handle({"intent": "FindRestaurants", "entities": {"city_of_event": "Alameda"},
                       "session": {"sgd": found["state"]}, "keyed_for": "FindEvents"})
    assert st["state"]["active"] == "FindRestaurants"
    assert st["args"] == {"cuisine": "Italian", "city": "Alameda"}
    # without keyed_for the other service's slot name fills nothing here
    plain = track.handle({"intent": "FindRestaurants", "entities": {"city_of_event": "Alameda"},
                          "session": {"sgd": found["state"]}})
    assert "city" not in plain["args"]


@pytest.mark.parametrize("said, slot, value", [
    ("Cupertino, please.", "city", "Cupertino"),  # a proper name the cuisines do not hold: the place
    ("Something malaysian", "cuisine", "malaysian"),  # not a proper name: the answer to the question
])
def test_a_plain_answer_that_is_a_place_fills_the_open_city(track, said: str, slot: str, value: str) -> None:
    track.CANON.setdefault("sgd_cuisine", {}).update({"italian": "Italian"})
    st = track.handle({"intent": "FindRestaurants", "entities": {}, "session": {}, "ask": "cuisine"})
    got = track.handle({"intent": "sgd.inform", "entities": {}, "ask": "city",
                        "session": {"sgd": st["state"], "utterance": said}})
    assert got["state"]["slots"].get(slot) == value
