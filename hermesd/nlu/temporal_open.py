"""Open-ended ranges: a time with a word that opens it on one side (pure).

从下周起, 2019年以后, 自去年以来, 截至周五, 到月底为止, 2020年以前; since Monday, from June on,
starting tomorrow, after Friday, before the 10th, until Friday. The result is a ``range`` whose
``start`` or ``end`` is None (open) — except "since X" / X以来, which ends at ``ref`` (up to now). The span stays that of X: the opening word is a signal, not part of the time
(TimeML's TIMEX3/SIGNAL split, as xSID annotates it).

Rules: X以后/之后/起/开始 (and "from X on", "starting X") begin at the start of X (2019年以后 includes
2019, as jionlp reads it); "after X" begins at the end of X when X is a day or longer (after Friday =
from Saturday) or a part of day (after lunch, 午饭后, 下班后 = from its end) and at X otherwise (after 5 pm); X以前/之前 and "before X" end at the start of X; 截至X,
X为止, "until/till/through X" and the deadline "by X" (by Friday, by EOD, by 2pm) end at the end of X, and so do 年底前/月底之前/"before the end of the month" when X is a day or longer (截至周五 includes Friday)
and at X for a clock time. A Chinese X以前/之前/前 still to come that names its year, quarter or month by number
is a deadline (2025年前, 明年6月之前, 10月1号以前: by X, ending with it); one begun or past (2019年以前), or named
only from now or by its weekday (明天之前, 下个月之前, 周五前), ends at its start. A bare 前/后 after a clock time is a deadline, not a range (明天下午3点前
stays 明天下午3点); an offset said with 以后/以前 (三天以后, 两年以前) is open from / up to the end of the unit it names, while 三天后 / 三天之后 stay that point (temporal_atoms._zh_offset);
English "after 3 days" is open from the point it names (temporal_atoms._en_after_qty). 从X / "from X" alone is not
open (it begins X到Y, and "photos from last week" are of it), except English "from" a clock time with no end
or length after it ("free from 2 pm", "from 9am tomorrow").
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import Any

from .. import lazyre

__all__ = ["open_markers", "open_range"]

_PRE = lazyre.compile(r"(?:(自从|从|自)|(截至|截止到|截止|直到|一直到|到)|(?<![a-z])(since|from|starting from|starting|beginning|"
                      r"until|till|til|up to|through|before|after|prior to|no later than|no earlier than|by)\s*(?:the\s+)?)$")
_POST = lazyre.compile(r"(?:(以后|之后|以来|起|开始|往后|以前|之前|为止|至今|前|后)|\s+(on|onwards|onward|and later|or later|"
                       r"and after|or earlier|and before)(?=\s*(?:$|[,.;!?])))")


#: what may follow "from <clock>" to close it: a length or an end ("from 4pm for 30 minutes", "from 2 to 4")
_GOES_ON = lazyre.compile(r"\s*,?\s*(?:(?:for|to|until|untill|till|through|thru)(?![a-z])|-|~)")


def open_markers(t: str, start: int, end: int, clock: bool = False) -> tuple[str, str, int, int] | None:
    """(prefix word, suffix word, new start, new end) in normalised text around ``t[start:end]``, or None;
    ``clock``: the time has a clock time ("from 2 pm", "from 9am tomorrow" are open from then on)."""
    pm = _PRE.search(t, 0, start)
    sm = _POST.match(t, end)
    pre = (pm[1] or pm[2] or pm[3]) if pm else ""
    post = (sm[1] or sm[2]) if sm else ""
    if pre in ("从", "自", "自从") and not post or pre == "from" and not post and (not clock or _GOES_ON.match(t, end)):
        # 从X / from X alone begins a range (X到Y), it is not open by itself; "photos from last week" are of it; but
        # English "(free) from 2 pm" with no end or length after it is from then on
        return None
    if pre == "到" and post != "为止":
        pre, pm = "", None  # 到X alone is the end of a range or a destination, not "until X"
    if not pre and not post:
        return None
    return pre, post, pm.start() if pm else start, sm.end() if sm else end


#: the end of a period (年底, 月末, 季度末, the end of the month): "before" it means "by the time it is over"
_PERIOD_END = lazyre.compile(r"(?:年|月|季|季度)(?:底|末)$|^end of\s")


_PART_OF_PERIOD = lazyre.compile(r"(?:the\s+)?(?:end|beginning|start|middle)\s+of\b|eo[mywq]\b|bom\b")


#: a year, a quarter or a month said by its number, or a part of one (2025年, 明年6月, 10月1号, 三季度, 明年初)
_CALENDAR_NAME = lazyre.compile(r"[\d〇零一二三四五六七八九十]\s*(?:年|月|季度)|[初底末]$")


def _calendar_deadline(x) -> bool:
    """X names its year, quarter or month by number (2025年, 明年6月, 10月1号) or a part of one (明年初): a deadline's
    X; a time named only from now (明天, 下个月, 明年) or by its weekday (周五) is not."""
    return bool(_CALENDAR_NAME.search(x.text))


def _coarse(v: Any) -> bool:
    return isinstance(v, date) and not isinstance(v, datetime)


def open_range(x, pre: str, post: str, ref: datetime, text: str, span: tuple[int, int]):
    """``x`` (a resolved :class:`~.temporal.TimeExpr`) opened by ``pre``/``post`` (see :func:`open_markers`);
    ``x`` itself when the words do not open it (a deadline 3点前)."""
    if x.kind not in ("date", "datetime", "range") or x.start is None or x.end is None:
        return x
    if pre == "by" and x.kind != "date" and _PART_OF_PERIOD.match(x.text.lower()):
        # "remind me by the end of the week": the end of the week itself, due on its first day (the end of the day
        # is one day: "by the end of the day" is by EOD)
        return x
    coarse = _coarse(x.start)
    window = x.kind == "range" and not coarse  # a part of day or a meal: 午饭后, "after lunch" begin at its end
    if post in ("前", "后") and not coarse and not pre and not window:
        return x
    a, b = x.start, x.end
    if pre == "since" or post in ("以来", "至今"):
        now = ref.date() + timedelta(days=1) if coarse else ref  # a day-grain "since" includes today
        start, end = a, (now if a < now else None)
    elif pre == "after" or pre == "no earlier than":
        start, end = (b if coarse or window else a), None
    elif (pre in ("before", "prior to") or post in ("以前", "之前", "前")) and _PERIOD_END.search(x.text):
        start, end = None, b  # 年底前, 月底之前, before the end of the month: by the time the period ends
    elif post in ("以前", "之前", "前") and not pre and coarse and a > ref.date() and _calendar_deadline(x):
        # a Chinese deadline on the calendar: 前 says both "before" and "by", and of a time still to come that names
        # its year, quarter or month by number (2025年前, 明年6月之前, 10月1号以前) it is "by" — the limit ends when X
        # does, as 截至X does; X begun or past (2019年以前 asked in 2026) ends where X begins, and so does a time named
        # only from now or by its weekday (明天之前 is today at the latest, 下个月之前 this month)
        start, end = None, b
    elif pre in ("before", "prior to") or post in ("以前", "之前", "前", "or earlier", "and before"):
        start, end = None, a
    elif pre in ("到", "截至", "截止到", "截止", "直到", "一直到", "until", "till", "til", "up to", "through", "no later than",
                 "by") \
            or post == "为止":
        start, end = None, (b if coarse else a)
    else:  # 以后 之后 起 开始 往后 后, from … on, starting …
        start, end = (b if window and post in ("后", "之后", "以后") else a), None
    # the opening word is a signal, not part of the time (TimeML's TIMEX3/SIGNAL split): the span stays X's
    point = start if start is not None else (end if isinstance(end, datetime) or end is None else end - timedelta(days=1))
    return replace(x, kind="range", start=start, end=end, point=point)
