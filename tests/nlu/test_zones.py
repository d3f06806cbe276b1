"""Place name → time zone (:mod:`hermesd.nlu.zones`) and the ``place`` entity (tables, in-process)."""

from __future__ import annotations

import zoneinfo
from datetime import datetime, timezone

import pytest

from hermesd.nlu.entities import EntityExtractor
from hermesd.nlu.normalize import normalize
from hermesd.nlu.zones import WORLD_CITIES, _AREAS, zone_of


@pytest.mark.parametrize(("place", "zone", "name"), [
    # English: the city of an IANA id, any case, spaces for underscores
    ("London", "Europe/London", "London"),
    ("london", "Europe/London", "London"),
    ("Tokyo", "Asia/Tokyo", "Tokyo"),
    ("new york", "America/New_York", "New York"),
    ("New_York", "America/New_York", "New York"),
    ("Buenos Aires", "America/Argentina/Buenos_Aires", "Buenos Aires"),  # the longer, canonical id
    ("Indianapolis", "America/Indiana/Indianapolis", "Indianapolis"),
    ("Port-au-Prince", "America/Port-au-Prince", "Port-au-Prince"),
    ("Kathmandu", "Asia/Kathmandu", "Kathmandu"),
    # English names no zone id carries, from the world-city table
    ("Beijing", "Asia/Shanghai", "Beijing"),
    ("San Francisco", "America/Los_Angeles", "San Francisco"),
    ("New Delhi", "Asia/Kolkata", "New Delhi"),
    # Chinese names
    ("伦敦", "Europe/London", "London"),
    ("东京", "Asia/Tokyo", "Tokyo"),
    ("纽约", "America/New_York", "New York"),
    ("北京", "Asia/Shanghai", "Beijing"),
    ("悉尼", "Australia/Sydney", "Sydney"),
])
def test_zone_of(place, zone, name):
    assert zone_of(place) == (zone, name)


@pytest.mark.parametrize("place", ["Gotham", "火星", "", "North", "ACT", "UTC", "Etc", "GMT+8"])
def test_an_unknown_place_has_no_zone(place):
    assert zone_of(place) is None


def test_every_table_zone_exists_and_every_city_reads_as_its_own_offset():
    known = zoneinfo.available_timezones()
    assert all(zone in known for _, _, zone in WORLD_CITIES)
    assert len({zh for zh, _, _ in WORLD_CITIES}) == len(WORLD_CITIES)
    # where two ids end in the same city, the one chosen keeps the same UTC offsets (winter and summer)
    instants = [datetime(2026, 1, 15, tzinfo=timezone.utc), datetime(2026, 7, 15, tzinfo=timezone.utc)]
    for z in known:
        if z.split("/")[0] not in _AREAS or (found := zone_of(z.rsplit("/", 1)[1])) is None:
            continue
        a, b = zoneinfo.ZoneInfo(z), zoneinfo.ZoneInfo(found[0])
        assert all(t.astimezone(a).utcoffset() == t.astimezone(b).utcoffset() for t in instants), (z, found)


PLACES = EntityExtractor(places=True)


@pytest.mark.parametrize(("text", "said", "zone"), [
    ("what time is it in London", "London", "Europe/London"),
    ("what's the time in Tokyo", "Tokyo", "Asia/Tokyo"),
    ("what time is it in new york now", "new york", "America/New_York"),
    ("is it late for Paris", "Paris", "Europe/Paris"),
    ("Tokyo time please", "Tokyo", "Asia/Tokyo"),
    ("伦敦现在几点", "伦敦", "Europe/London"),
    ("在伦敦几点了", "伦敦", "Europe/London"),
    ("纽约那边几点了", "纽约", "America/New_York"),
    ("大阪现在几点", "大阪", "Asia/Tokyo"),
    ("东京时间", "东京", "Asia/Tokyo"),
    ("倫敦現在幾點", "倫敦", "Europe/London"),  # Traditional characters: read as Simplified
    ("紐約那邊幾點了", "紐約", "America/New_York"),
    ("華盛頓時間", "華盛頓", "America/New_York"),
    ("告诉我北京现在几点了", "北京", "Asia/Shanghai"),  # the words before it are not part of an unknown place
    # a place no table knows: said as a proper noun after "in", or the topic of a Chinese time question
    ("what time is it in Gotham City?", "Gotham City", None),
    ("火星现在几点", "火星", None),
])
def test_a_place_said_where_a_place_is_expected(text, said, zone):
    places = [e for e in PLACES.extract(normalize(text)) if e.type == "place"]
    assert [(e.text, e.value["zone"]) for e in places] == [(said, zone)]


@pytest.mark.parametrize("text", [
    "what time is it", "现在几点", "现在几点了", "我们现在几点", "今天几号", "明天几点开会",
    "send the report to Paris",  # no locative: a name, not a place asked about
    "what time is it in the morning",
])
def test_no_place(text):
    assert all(e.type != "place" for e in PLACES.extract(normalize(text)))


def test_places_only_when_asked_for():
    assert all(e.type != "place" for e in EntityExtractor().extract(normalize("what time is it in London")))
