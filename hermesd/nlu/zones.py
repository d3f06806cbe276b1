"""Place name → IANA time zone, for "what time is it in London" / "伦敦现在几点" (pure lookup).

Two sources, merged once (the zone list is read from the installed tz database the first time a
table is asked for, as :mod:`zoneinfo` reads it for any zone):

- **English**: the city of every IANA zone id of :func:`zoneinfo.available_timezones` in the
  geographic areas (``Europe/London`` → London, ``America/New_York`` → New York,
  ``America/Argentina/Buenos_Aires`` → Buenos Aires). Aliases (``Asia/Calcutta``) are read too;
  where two ids name the same city the canonical-looking one (more path segments, then the
  alphabetically first) wins, so ``Buenos Aires`` is ``America/Argentina/Buenos_Aires``.
- **Chinese**, and English names of capitals no zone id is named after (Beijing, Washington, New
  Delhi, …): :data:`WORLD_CITIES`, major world cities with their Simplified Chinese names as
  Chinese Wikipedia titles them (which follow the Xinhua standard transliterations, 新华社译名), each
  mapped to the zone id the tz database's ``zone1970.tab`` gives for its region.

:func:`zone_of` is the lookup; :func:`place_names` the surface forms an entity extractor scans for.
"""

from __future__ import annotations

import functools
import zoneinfo

__all__ = ["WORLD_CITIES", "place_names", "zone_of"]

#: the IANA areas whose ids name a city (``Etc/``, ``US/`` and the bare abbreviations do not)
_AREAS = ("Africa", "America", "Antarctica", "Asia", "Atlantic", "Australia", "Europe", "Indian", "Pacific")
#: last segments of old alias ids that name a region, not a place: compass points
#: (``Australia/North``, ``Australia/West``) — abbreviations (``Australia/ACT``) are all capitals
_NOT_PLACES = frozenset({"north", "south", "east", "west"})

#: (Simplified Chinese, English, IANA zone): major world cities — the capitals of the G20 and of the
#: most populous countries, and the world's largest metropolitan areas. Sources: names, Chinese
#: Wikipedia article titles (Xinhua transliterations); zones, tzdata ``zone1970.tab``.
WORLD_CITIES: tuple[tuple[str, str, str], ...] = (
    ("北京", "Beijing", "Asia/Shanghai"), ("上海", "Shanghai", "Asia/Shanghai"),
    ("广州", "Guangzhou", "Asia/Shanghai"), ("深圳", "Shenzhen", "Asia/Shanghai"),
    ("成都", "Chengdu", "Asia/Shanghai"), ("重庆", "Chongqing", "Asia/Shanghai"),
    ("香港", "Hong Kong", "Asia/Hong_Kong"), ("澳门", "Macau", "Asia/Macau"), ("台北", "Taipei", "Asia/Taipei"),
    ("乌鲁木齐", "Urumqi", "Asia/Urumqi"), ("东京", "Tokyo", "Asia/Tokyo"), ("大阪", "Osaka", "Asia/Tokyo"),
    ("首尔", "Seoul", "Asia/Seoul"), ("平壤", "Pyongyang", "Asia/Pyongyang"),
    ("乌兰巴托", "Ulaanbaatar", "Asia/Ulaanbaatar"), ("新加坡", "Singapore", "Asia/Singapore"),
    ("吉隆坡", "Kuala Lumpur", "Asia/Kuala_Lumpur"), ("曼谷", "Bangkok", "Asia/Bangkok"),
    ("河内", "Hanoi", "Asia/Bangkok"), ("胡志明市", "Ho Chi Minh City", "Asia/Ho_Chi_Minh"),
    ("雅加达", "Jakarta", "Asia/Jakarta"), ("马尼拉", "Manila", "Asia/Manila"),
    ("新德里", "New Delhi", "Asia/Kolkata"), ("德里", "Delhi", "Asia/Kolkata"), ("孟买", "Mumbai", "Asia/Kolkata"),
    ("加尔各答", "Kolkata", "Asia/Kolkata"), ("班加罗尔", "Bangalore", "Asia/Kolkata"),
    ("伊斯兰堡", "Islamabad", "Asia/Karachi"), ("卡拉奇", "Karachi", "Asia/Karachi"),
    ("达卡", "Dhaka", "Asia/Dhaka"), ("加德满都", "Kathmandu", "Asia/Kathmandu"),
    ("迪拜", "Dubai", "Asia/Dubai"), ("阿布扎比", "Abu Dhabi", "Asia/Dubai"), ("多哈", "Doha", "Asia/Qatar"),
    ("利雅得", "Riyadh", "Asia/Riyadh"), ("德黑兰", "Tehran", "Asia/Tehran"),
    ("耶路撒冷", "Jerusalem", "Asia/Jerusalem"), ("特拉维夫", "Tel Aviv", "Asia/Jerusalem"),
    ("伊斯坦布尔", "Istanbul", "Europe/Istanbul"), ("安卡拉", "Ankara", "Europe/Istanbul"),
    ("莫斯科", "Moscow", "Europe/Moscow"), ("伦敦", "London", "Europe/London"),
    ("都柏林", "Dublin", "Europe/Dublin"), ("巴黎", "Paris", "Europe/Paris"), ("柏林", "Berlin", "Europe/Berlin"),
    ("法兰克福", "Frankfurt", "Europe/Berlin"), ("慕尼黑", "Munich", "Europe/Berlin"),
    ("罗马", "Rome", "Europe/Rome"), ("米兰", "Milan", "Europe/Rome"), ("马德里", "Madrid", "Europe/Madrid"),
    ("巴塞罗那", "Barcelona", "Europe/Madrid"), ("里斯本", "Lisbon", "Europe/Lisbon"),
    ("阿姆斯特丹", "Amsterdam", "Europe/Amsterdam"), ("布鲁塞尔", "Brussels", "Europe/Brussels"),
    ("苏黎世", "Zurich", "Europe/Zurich"), ("日内瓦", "Geneva", "Europe/Zurich"),
    ("维也纳", "Vienna", "Europe/Vienna"), ("斯德哥尔摩", "Stockholm", "Europe/Stockholm"),
    ("奥斯陆", "Oslo", "Europe/Oslo"), ("哥本哈根", "Copenhagen", "Europe/Copenhagen"),
    ("赫尔辛基", "Helsinki", "Europe/Helsinki"), ("华沙", "Warsaw", "Europe/Warsaw"),
    ("布拉格", "Prague", "Europe/Prague"), ("雅典", "Athens", "Europe/Athens"), ("基辅", "Kyiv", "Europe/Kyiv"),
    ("开罗", "Cairo", "Africa/Cairo"), ("拉各斯", "Lagos", "Africa/Lagos"), ("内罗毕", "Nairobi", "Africa/Nairobi"),
    ("约翰内斯堡", "Johannesburg", "Africa/Johannesburg"), ("开普敦", "Cape Town", "Africa/Johannesburg"),
    ("纽约", "New York", "America/New_York"), ("华盛顿", "Washington", "America/New_York"),
    ("波士顿", "Boston", "America/New_York"), ("多伦多", "Toronto", "America/Toronto"),
    ("芝加哥", "Chicago", "America/Chicago"), ("休斯敦", "Houston", "America/Chicago"),
    ("丹佛", "Denver", "America/Denver"), ("洛杉矶", "Los Angeles", "America/Los_Angeles"),
    ("旧金山", "San Francisco", "America/Los_Angeles"), ("西雅图", "Seattle", "America/Los_Angeles"),
    ("温哥华", "Vancouver", "America/Vancouver"), ("墨西哥城", "Mexico City", "America/Mexico_City"),
    ("圣保罗", "São Paulo", "America/Sao_Paulo"), ("里约热内卢", "Rio de Janeiro", "America/Sao_Paulo"),
    ("布宜诺斯艾利斯", "Buenos Aires", "America/Argentina/Buenos_Aires"), ("利马", "Lima", "America/Lima"),
    ("波哥大", "Bogotá", "America/Bogota"), ("圣地亚哥", "Santiago", "America/Santiago"),
    ("檀香山", "Honolulu", "Pacific/Honolulu"), ("悉尼", "Sydney", "Australia/Sydney"),
    ("墨尔本", "Melbourne", "Australia/Melbourne"), ("珀斯", "Perth", "Australia/Perth"),
    ("奥克兰", "Auckland", "Pacific/Auckland"), ("惠灵顿", "Wellington", "Pacific/Auckland"),
)


def _key(name: str) -> str:
    """How a name is looked up: case-folded, ``_``/``-`` as spaces, runs of spaces as one."""
    return " ".join(name.replace("_", " ").replace("-", " ").casefold().split())


@functools.cache
def _table() -> dict[str, tuple[str, str]]:
    """lookup key → (IANA zone, display name)."""
    by_city: dict[str, tuple[str, str]] = {}
    ids = sorted((z for z in zoneinfo.available_timezones() if z.split("/")[0] in _AREAS),
                 key=lambda z: (-z.count("/"), z))
    for zone in ids:
        city = zone.rsplit("/", 1)[1].replace("_", " ")
        if city.isupper() or _key(city) in _NOT_PLACES:
            continue
        by_city.setdefault(_key(city), (zone, city))
    for zh, en, zone in WORLD_CITIES:
        by_city.setdefault(_key(en), (zone, en))
        by_city[zh] = (zone, en)
    return by_city


def zone_of(place: str) -> tuple[str, str] | None:
    """The time zone of a place name, English (any case) or Simplified Chinese.

    :param place: e.g. ``"London"``, ``"new york"``, ``"伦敦"``.
    :return: ``(IANA zone id, English display name)``, e.g. ``("Europe/London", "London")``; None
        for a name neither source knows.
    """
    return _table().get(_key(place))


def place_names() -> tuple[str, ...]:
    """Every lookup key of :func:`zone_of` (lower-case English, Simplified Chinese), longest first."""
    return tuple(sorted(_table(), key=lambda k: (-len(k), k)))
