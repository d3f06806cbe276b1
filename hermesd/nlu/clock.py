"""Clock times that do not exist: "25点", "3点75分", "25 o'clock", "13pm", "26:00" (pure).

The time parser reads only times that exist, so a clock said out of range used to vanish: the
day around it stayed ("明天"), a reminder fell back to its default hour and the impossible time
was glued to the task ("25点开会"). A person who says one has misspoken, and is told so and asked
again, as for an impossible date (:func:`hermesd.nlu.temporal.impossible_date_text`).

The ranges are the 24-hour clock of ISO 8601 §4.2.2 (hours 0–24, 24 only as 24:00 the end of the
day; minutes and seconds 0–59) and the 12-hour clock (1–12 with am/pm; 0 am and 13 pm do not
exist). Chinese numerals are already digits in the normalised text (:mod:`.normalize`), so
"二十五点" is found as "25点". Shapes:

- zh ``H点``/``H时``/``H點``/``H時`` (optionally ``M分``) and ``H点M分``;
- en ``H o'clock``, ``H am``/``H pm`` (``a.m.``, ``p.m.``), ``H:MM``.

A digit run that continues a decimal or a longer number ("2.25点", "1025点") or an amount (points
of an index: "涨了25点") is not a clock: the amount words before it are the language's own rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import lazyre

__all__ = ["BadClock", "impossible_clocks", "impossible_clock_text"]

_ZH = lazyre.compile(r"(?<![\d.])(?P<h>\d{1,3})\s*(?:点|點|时|時)(?:\s*(?P<m>\d{1,3})\s*分)?")
_EN_OCLOCK = lazyre.compile(r"(?<![\d.:])\b(?P<h>\d{1,3})\s*o['’]?\s*clock\b")
_EN_AMPM = lazyre.compile(r"(?<![\d.:])\b(?P<h>\d{1,3})(?::(?P<m>\d{2}))?\s*(?P<ap>am|pm|a\.m\.|p\.m\.)(?![a-z])")
_EN_COLON = lazyre.compile(r"(?<![\d.:])\b(?P<h>\d{1,3}):(?P<m>\d{2})\b(?!\s*(?:am|pm|a\.m\.|p\.m\.))(?![:\d])")
#: words before a number that make "N点" an amount (index points, percentage points), not a clock
_ZH_AMOUNT_BEFORE = lazyre.compile(r"(?:涨|跌|升|降|高|低|多|少|差|加|减|扣|得|拿|打|赢|输|了|个)\s*$")


@dataclass(frozen=True, slots=True)
class BadClock:
    """One clock time that does not exist.

    :param span: (start, end) in the normalised text, characters.
    :param said: the words as found ("25点", "13pm").
    :param hour: the hour said. :param minute: the minute said, or None.
    :param twelve: said on the 12-hour clock (am/pm).
    """

    span: tuple[int, int]
    said: str
    hour: int
    minute: int | None
    twelve: bool = False


def _bad24(h: int, m: int | None) -> bool:
    if m is not None and m > 59:
        return True
    return h > 24 or (h == 24 and bool(m))


def impossible_clocks(text: str) -> list[BadClock]:
    """Every clock time in ``text`` (normalised, lower case) that does not exist, in order.

    :param text: :attr:`hermesd.nlu.normalize.Normalized.text`.
    :return: the impossible ones only; an empty list when every clock time said exists.

    >>> [c.said for c in impossible_clocks("明天25点开会")]
    ['25点']
    >>> impossible_clocks("明天下午3点开会")
    []
    """
    t = text.lower()
    out: list[BadClock] = []
    for m in _ZH.finditer(t):
        h, mi = int(m["h"]), int(m["m"]) if m["m"] else None
        if _ZH_AMOUNT_BEFORE.search(t, 0, m.start()):
            continue
        if _bad24(h, mi):
            out.append(BadClock(m.span(), m.group().strip(), h, mi))
    for m in _EN_OCLOCK.finditer(t):
        h = int(m["h"])
        if h > 24:
            out.append(BadClock(m.span(), m.group().strip(), h, None))
    for m in _EN_AMPM.finditer(t):
        h, mi = int(m["h"]), int(m["m"]) if m["m"] else None
        if h == 0 or h > 12 or (mi is not None and mi > 59):
            out.append(BadClock(m.span(), m.group().strip(), h, mi, twelve=True))
    for m in _EN_COLON.finditer(t):
        h, mi = int(m["h"]), int(m["m"])
        if _bad24(h, mi):
            out.append(BadClock(m.span(), m.group().strip(), h, mi))
    return sorted(out, key=lambda c: c.span)


def impossible_clock_text(bad: BadClock, lang: str) -> str:
    """One sentence saying the clock time does not exist and asking for another.

    :return: e.g. ``没有25点，一天只有0到24点。`` / ``There is no 25 o'clock; the hours run from 0 to 23.``
    """
    zh = lang == "zh"
    if bad.minute is not None and bad.minute > 59:
        return (f"没有{bad.minute}分，一小时只有0到59分。" if zh
                else f"There is no minute {bad.minute}; minutes run from 0 to 59.")
    if bad.twelve:
        return (f"没有{bad.said}，12小时制只有1到12点。" if zh
                else f"There is no {bad.said}; with am and pm the hours run from 1 to 12.")
    return (f"没有{bad.hour}点，一天只有0到23点。" if zh
            else f"There is no {bad.hour} o'clock; the hours run from 0 to 23.")
