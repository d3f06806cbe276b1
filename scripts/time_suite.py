"""Score hermesd's time NLU on a Duckling time corpus (a public suite written by others; issue 17 §2).

    # get the corpus (BSD-licensed, Facebook): it is other people's suite, so it stays OUT of this repo
    #   https://github.com/facebook/duckling/blob/main/Duckling/Time/EN/Corpus.hs
    #   https://github.com/facebook/duckling/blob/main/Duckling/Time/ZH/Corpus.hs
    # saved e.g. as /work/tmp-duckling/EN_Corpus.hs and /work/tmp-duckling/ZH_Corpus.hs, then
    .venv/bin/python scripts/time_suite.py /work/tmp-duckling/EN_Corpus.hs --failures 40
    .venv/bin/python scripts/time_suite.py /work/tmp-duckling/ZH_Corpus.hs --failures 40

What is read: every ``examples (<constructor> ...) ["phrase", ...]`` entry of the corpus's
``allExamples`` block (``--block custom`` etc. picks another ``where``/top-level block by name),
with constructors ``datetime``, ``datetimeHoliday``, ``datetimeInterval``,
``datetimeIntervalHoliday`` and ``datetimeOpenInterval``. Duckling's tuples are local wall times;
a month or day of 0 is clipped to 1 as ``Data.Time.fromGregorian`` does. The reference is
Duckling's ``testContext`` (``Duckling/Testing/Types.hs``): Tuesday 2013-02-12 04:30:00 at UTC-2,
passed to :func:`hermesd.nlu.temporal.parse_times` as the zone ``Etc/GMT+2``.

Scoring, per Duckling's corpus test (the whole phrase is one expression whose value and grain
match; ``Duckling/Time/Corpus.hs`` compares ``value``+``grain``, or ``from``/``to`` of an interval):

- the phrase must give exactly one expression, and what it leaves uncovered may only be spaces,
  punctuation and an edge word that carries no time (at, on, @, the, around, about, approximately,
  during, for, in, right, 在) — or, for a range open at one side, the word that opened it (after,
  since, until, before, by …), which hermesd's spans leave out as its xSID-style spans do; ``span``
  in the table counts agreements whose span was not the whole phrase;
- ``exact``: a single value (Duckling ``datetime``) agrees when hermesd's start is the expected
  instant and hermesd's grain is the expected grain (hermesd's ``part_of_day`` grain counts as Hour,
  as Duckling's parts of day are hour intervals); an interval agrees when both bounds agree (to the
  second); an open interval when its one bound agrees and the other is open;
- ``convention``: hermesd answers what its own documented rules say, and the answer differs from
  Duckling's only by one of Duckling's conventions below — counted apart, never bent into hermesd:

  C1 offsets carry another grain: Duckling gives "in a day" as 2013-02-13 04:00 (Hour), "a week ago"
     as a day, "two years ago" as a month, and "in 2 minutes" as a Second; hermesd keeps the instant
     (04:30) at the grain it was said in (a minute; "in 7 days" is that day), so agreement after
     truncation to the coarser of the two grains counts here (a relative phrase only: in, ago, hence,
     from now, 前, 后);
  C2 zh "N units 前/后" read as a window: Duckling's zh corpus gives 兩天前 / 三天後 the windows
     "the last two days" / "the next three days"; in Chinese they name a point two days back /
     three days ahead (现代汉语词典: 前 "时间在先的", 后 "时间在后的"), which hermesd gives;
     agreement of the point with the window's first (前) or last (后) unit counts here;
  C3 a closed range's end includes its last unit: Duckling's "9:30 - 11:00" ends at 11:01, "3-4pm"
     at 17:00 and "18th Dec for 10 days" after Dec 28; hermesd's half-open range ends where the person
     said (11:00, 16:00, Dec 28);
  C4 the future occurrence: Duckling takes the next "3am" (tomorrow, asked at 04:30), the next
     元旦 / "beginning of January" (2014); hermesd keeps a yearless date in the reference year and a
     clock with am/pm on the reference day unless the utterance looks ahead (temporal.py rules);
     agreement one day / one year (or one lunar year for a holiday) earlier counts here, and one week earlier
     for a day (a weekday said on its own day: "tuesday", 这周一), unless the phrase says its year;
  C5 fuzzy boundaries: Duckling's morning is 04–12, evening 18–24, weekend Fri 18:00–Mon, summer
     Jun 21–Sep 24, "end of the month" the 21st on, "end of the year" Sep–Dec; hermesd has its own
     (PARTS_OF_DAY, meteorological seasons in English, solar-term ones in Chinese, temporal_periods.py);
     two intervals of the same part that overlap by at least half the shorter one count here;
  C6 "by X" is a window from now: Duckling gives "by 2:00pm" as [now, 14:00); hermesd's deadline is
     a range open at its start ending at X ("by the end of the month" stays that part of the month, due on
     its first day, as a reminder "by the end of the week" is); agreement of that end counts here;
  C7 an open "through/until X" ends after X: Duckling gives "through 2014" as before 2014-01-01;
     hermesd's "through 2014" ends with 2014 (2015-01-01); agreement one expected grain later counts;
  C8 "last/next N units" as whole units: Duckling's "last 2 days" / 前两天 is Feb 10–11 (the two
     whole days before today) and "next 3 hours" / 后三小时 05:00–08:00; hermesd's window runs from now
     (02-10 04:30 – now, now – 07:30), as "the past 2 days" / "未来三小时" are meant in a search or a
     reminder; a window of the same N units anchored at now counts here (said with 上/下, 上两天 and
     下三小时 are whole units in hermesd too, as 上周 / 下个月 are);
  C9 zh 下周X is "X of next week": Duckling's zh corpus gives 下周三 asked on a Tuesday as the next
     day (02-13), as its English "next wednesday"; 下周 names the next Monday-start week (GB/T 7408,
     现代汉语词典 下: 次序或时间在后的), so hermesd gives 02-20; one week later counts here;
  C10 a clock said with a zone is a Minute in Duckling ("4pm CET"); hermesd keeps the grain said (an hour),
     the instant being the same.
  C11 a Jewish holiday from its eve: the Hebrew day begins at sunset, and Duckling dates Yom Kippur 5779 by
     the evening it begins (2018-09-18) and Passover 2018 from March 30; hermesd gives the day that is kept,
     as hebcal.com and public calendars list it (Yom Kippur 2018-09-19, Passover March 31 – April 7 outside
     Israel; :mod:`hermesd.nlu.temporal_holidays_world`): a start one day later (and, for a festival of
     several days, an end within a day) counts here, for Duckling's Hebrew-calendar holidays only.

  C5 holds only where the phrase names such a fuzzy part (a part of day, a meal, the weekend, a season, the
  beginning / middle / end of a period: not "within 2 weeks" or "all week"); neither C3 nor C5 holds for a
  holiday's own days (a Ramadan a day shorter, Navaratri's first night, the Lent 四旬节 names), which are a
  calendar's or a name's difference, not a convention.

A second public suite format is read too: jionlp's ``test/test_time_parser.py`` (Apache-2.0,
https://github.com/dongrixinyu/JioNLP; saved e.g. as /work/tmp-duckling/jionlp_test_time_parser.py):
its ``time_string_list`` of ``[text, time_base, {"type", "definition", "time": [first, last]}]`` is read
with :mod:`ast` (no code of it runs). ``time_base`` is a Unix time (local time in Asia/Shanghai, as its
expected values show), a name the file assigns one (``_ts_1``), ``[y, m, d, …]``, ``{"year": …, "month": …}``
(missing fields are their first value), ``datetime.datetime(…)``, or ``None`` for a ``time_delta`` (whose
answer no instant changes: ``_ts_1``'s is used); a case whose base is ``time.time()`` cannot be reproduced and is
skipped. Its closed ``[first, last]`` (to the second) is the half-open ``[first, last + 1 s)``, and
``-inf`` / ``inf`` is a side left open; exact agreement is both bounds. A ``time_delta`` of one
``{unit: n}`` agrees with a hermesd ``duration`` of the same length (a year 365 days, a month 30, as
hermesd counts them); a count of workdays has no hermesd kind and counts as a failure (``unrepresentable``).
Its conventions, counted apart:

  J1 a range open at one side is closed at the reference instant (二〇一九年5月8日起 ends now,
     2025年前 starts now); hermesd leaves that side open: agreement of the other bound counts here;
  J2 a "blur" answer is a whole period around a vague offset (两年前 = all of 2019, 40多年前 = 1971–1981);
     hermesd gives the instant the offset names: that instant inside jionlp's span counts here (a span
     bounded at both ends: 20天以后 = from 07-04 on is an open range, hermesd's 07-04 a point, not counted);
  J3 a closed range's end includes its last unit (8点到中午12点 ends 12:59:59), as Duckling's C3;
     hermesd's half-open range ends at 12:00: an end one unit of its grain earlier counts here;
  J4 a recurrence's point is its occurrence in the reference period (每月4号 asked on June 14 is June 4,
     每年母亲节 this year's); hermesd's recurrence starts at its first occurrence at or after the reference
     instant (July 4; next year's Mother's Day): a start one period later (within a week, for a holiday of
     a yearly recurrence) counts here;
  J5 some of jionlp's closed ends are the instant a range ends, not its last second (下个月9号早上8点到中午12点
     ends '12:00:00', 17分钟后 is ['07:35:00', '07:36:00']); hermesd's half-open end at that instant counts here.

A ``time_period`` (每周三, 每天晚上8点, 每隔3天) agrees with a hermesd ``recurrence`` whose ``every`` is its delta
and whose first occurrence is its point (none for a point of None); a ``time_delta`` range (3~6个月,
3年以上7年以下, 六个月以下) with a ``duration`` whose ``seconds`` / ``seconds_max`` are its two lengths; one open
above (三十年以上) has no hermesd form (``unrepresentable``).

Prints per class (the constructor's shape and the expected grain) and overall: n, exact %,
exact+convention %, and ``--failures N`` failing phrases with what hermesd gave. Never fails;
a development script (it times nothing; speed is scripts/bench/nlu_time.py's).
"""

from __future__ import annotations

import argparse
import calendar
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from hermesd.nlu.temporal import TimeExpr, parse_times  # noqa: E402

TZ_NAME = "Etc/GMT+2"  # POSIX sign: UTC-2, Duckling's testContext offset (-2)
OFFSET = timezone(timedelta(hours=-2))
REF = datetime(2013, 2, 12, 4, 30, 0, tzinfo=OFFSET)
GRAINS = ["second", "minute", "hour", "day", "week", "month", "quarter", "year"]
_H_GRAIN = {"part_of_day": "hour", "weekend": "hour", "season": "day", "decade": "year", "century": "year"}
_EDGE = re.compile(r"^(?:[\s.,!?;:()'\"@\-]|\b(?:at|on|the|around|about|approximately|during|for|in|right)\b|在)*$", re.I)
_BY = re.compile(r"^\s*by\s", re.I)
#: the words that open a range: left outside a range open at that side, hermesd's span convention
_OPEN_EDGE = re.compile(r"^(?:[\s.,]|\b(?:after|since|from|until|till|through|before|by|anytime|sometimes?|later than)\b"
                        r"|以后|之后|以前|之前|起|截至|到)*$", re.I)
_EDGE_WORDS = re.compile(r"\b(?:at|on|the|around|about|approximately|during|for|in)\b", re.I)
_ZONE_SAID = re.compile(r"\b(?:gmt|utc|[a-z][sd]t|cet|cest|bst|ist)\b", re.I)
_STR = re.compile(r'"((?:[^"\\]|\\.)*)"')
_TUPLE = re.compile(r"\(\s*(-?\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)")
_RELATIVE = re.compile(r"\b(?:ago|hence|in|from now|from today|from right now|back)\b|前|后|後|以前|之前|以后|之后|之後", re.I)
_ZH_AROUND = re.compile(r"(?:之?前|之?[后後])$")
_YEAR_SAID = re.compile(r"(?<!\d)(?:1[0-9]|20)\d\d(?!\d)")
#: Duckling's names of the holidays of the Hebrew calendar (C11)
_HEBREW_HOLIDAYS = {"Rosh Hashanah", "Yom Kippur", "Sukkot", "Shemini Atzeret", "Simchat Torah", "Hanukkah",
                    "Tu BiShvat", "Purim", "Shushan Purim", "Passover", "Shavuot", "Yom HaShoah", "Yom Ha'atzmaut",
                    "Lag BaOmer", "Tisha B'Av",
                    # the same holidays as the zh corpus labels them
                    "犹太新年", "赎罪日", "住棚节", "圣会节", "西赫托拉节", "光明节", "犹太植树节", "逾越节", "七七节",
                    "以色列独立日", "篝火节", "圣殿被毁日"}


@dataclass
class Example:
    """One phrase of the corpus with its expected value.

    :param shape: ``value`` | ``interval`` | ``after`` | ``before`` (Duckling open intervals).
    :param start: expected (first) instant, aware at UTC-2; None when Python cannot hold it (BC years).
    :param end: an interval's end (Duckling's ``to``), else None. :param grain: Duckling grain, lower case.
    :param holiday: the holiday name of a ``datetimeHoliday`` entry, else None. :param line: 1-based line.
    """

    phrase: str
    shape: str
    start: datetime | None
    end: datetime | None
    grain: str
    holiday: str | None
    line: int

    @property
    def cls(self) -> str:
        return f"{'holiday ' if self.holiday else ''}{self.shape}:{self.grain}"


def _instant(t: tuple[str, ...]) -> datetime | None:
    y, mo, d, h, mi, s = (int(x) for x in t)
    if y < 1:
        return None
    mo = min(max(mo, 1), 12)
    d = min(max(d, 1), calendar.monthrange(y, mo)[1])
    return datetime(y, mo, d, h, mi, s, tzinfo=OFFSET)


def _balanced(text: str, i: int) -> int:
    """Index just past the parenthesis group opening at ``text[i] == '('``."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    raise ValueError(f"unbalanced parenthesis at {i}")


def _block(src: str, name: str) -> tuple[str, int]:
    """The text of the definition ``name = ...`` up to the next definition at the same indentation."""
    m = re.search(rf"^(\s*){re.escape(name)}\s*=", src, re.M)
    if m is None:
        raise SystemExit(f"no block named {name!r} in the corpus")
    indent = len(m[1])
    nxt = re.compile(rf"^ {{0,{indent}}}[a-z][A-Za-z0-9_']*\s*(?:::|=)", re.M)
    e = nxt.search(src, m.end())
    return src[m.start(): e.start() if e else len(src)], m.start()


def parse_corpus(src: str, block: str = "allExamples") -> list[Example]:
    """Read the ``examples (...) [...]`` entries of one block of a Duckling Corpus.hs.

    :raises SystemExit: no such block. :raises ValueError: an entry whose parentheses do not close.
    """
    text, base = _block(src, block)
    out: list[Example] = []
    for m in re.finditer(r"examples\s*\(", text):
        close = _balanced(text, m.end() - 1)
        ctor = text[m.end(): close - 1]
        lb = text.index("[", close)
        rb = lb + 1
        while text[rb] != "]":  # the list's closing bracket outside any string literal
            lit = _STR.match(text, rb) if text[rb] == '"' else None
            rb = lit.end() if lit else rb + 1
        phrases = [re.sub(r"\\(.)", r"\1", s) for s in _STR.findall(text[lb:rb])]
        name = ctor.split()[0]
        tuples = _TUPLE.findall(ctor)
        grain = re.search(r"\b(Second|Minute|Hour|Day|Week|Month|Quarter|Year)\b", ctor)[1].lower()
        hol = _STR.search(ctor)
        holiday = hol[1] if hol and "Holiday" in name else None
        if name.startswith("datetimeOpenInterval"):
            shape = "after" if re.search(r"\bAfter\b", ctor) else "before"
            start, end = _instant(tuples[0]), None
        elif name.startswith("datetimeInterval"):
            shape, start, end = "interval", _instant(tuples[0]), _instant(tuples[1])
        else:
            shape, start, end = "value", _instant(tuples[0]), None
        line = src.count("\n", 0, base + m.start()) + 1
        out += [Example(p, shape, start, end, grain, holiday, line) for p in phrases]
    return out


# ---- jionlp's test_time_parser.py ------------------------------------------------------------------
SHANGHAI = "Asia/Shanghai"


def _jio_base(node, names: dict) -> datetime | None:
    """A jionlp ``time_base`` AST node as an aware datetime in Asia/Shanghai; None for ``time.time()``.

    A name (``_ts_1``) is the number the file assigns it; ``None`` (a ``time_delta``'s base, which no
    answer depends on) is ``_ts_1``'s instant, 2021-06-14 01:06:40."""
    import ast
    from zoneinfo import ZoneInfo

    tz = ZoneInfo(SHANGHAI)
    if isinstance(node, ast.Name) and node.id in names:
        return datetime.fromtimestamp(names[node.id], tz)
    if isinstance(node, ast.Constant) and node.value is None:
        return datetime.fromtimestamp(1623604000, tz)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return datetime.fromtimestamp(node.value, tz)
    if isinstance(node, ast.List):
        parts = [ast.literal_eval(e) for e in node.elts] + [1, 1, 0, 0, 0][len(node.elts) - 1:]
        return datetime(*parts[:6], tzinfo=tz)
    if isinstance(node, ast.Dict):
        d = ast.literal_eval(node)
        return datetime(d.get("year", 1970), d.get("month", 1), d.get("day", 1), d.get("hour", 0),
                        d.get("minute", 0), d.get("second", 0), tzinfo=tz)
    if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "datetime":
        return datetime(*[ast.literal_eval(a) for a in node.args], tzinfo=tz)
    return None


def parse_jionlp(src: str) -> list[tuple[str, datetime | None, dict, int]]:
    """``(text, time_base, expected, line)`` of every case of jionlp's ``time_string_list``."""
    import ast

    out = []
    tree = ast.parse(src)
    names = {t.id: node.value.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
             and isinstance(node.value, ast.Constant) and isinstance(node.value.value, (int, float))
             for t in node.targets if isinstance(t, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "time_string_list" for t in node.targets):
            for el in node.value.elts:
                text, base, want = el.elts
                out.append((ast.literal_eval(text), _jio_base(base, names), ast.literal_eval(want), el.lineno))
    return out


_UNIT = {"second": timedelta(seconds=1), "minute": timedelta(minutes=1), "hour": timedelta(hours=1)}
#: a jionlp ``time_delta`` unit in seconds, as hermesd's durations count them (a year 365 days, a month 30)
_DELTA = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "month": 30 * 86400, "year": 365 * 86400}
_JIO_OPEN_EDGE = re.compile(r"^(?:[\s,]|从|自|起|至今|以来|开始|以前|之前|前|以后|之后|后|截至|到)*$")


def judge_jionlp(text: str, base: datetime, want: dict, xs: list[TimeExpr]) -> tuple[str, str]:
    """``(verdict, rule)`` for one jionlp case (rules in the module docstring)."""
    from zoneinfo import ZoneInfo

    tz = ZoneInfo(SHANGHAI)
    if want["type"] == "time_delta" and isinstance(want["time"], list):
        return _judge_lengths(text, want["time"], xs)
    if want["type"] == "time_period":
        return _judge_period(text, base, want["time"], xs)
    if want["type"] == "time_delta" and set(want["time"]) - set(_DELTA):
        return "unrepresentable", ""
    if not xs:
        return "none", ""
    if want["type"] == "time_delta":
        seconds = sum(v * _DELTA[k] for k, v in want["time"].items())
        whole = len(xs) == 1 and _EDGE.match(text[:xs[0].span[0]] + " " + text[xs[0].span[1]:])
        if not whole:
            return ("split" if len(xs) > 1 else "span"), ""
        if xs[0].kind != "duration":
            return "kind", ""
        return ("exact", "") if abs((xs[0].seconds or 0) - seconds) < 0.5 else ("value", "")
    first, last = want["time"]
    a = None if first == "-inf" else datetime.fromisoformat(first).replace(tzinfo=tz)
    b = None if last == "inf" else datetime.fromisoformat(last).replace(tzinfo=tz) + timedelta(seconds=1)
    rest = [x for x in xs if _EDGE.match(text[:x.span[0]] + " " + text[x.span[1]:]) or (
        x.kind == "range" and (x.start is None or x.end is None)
        and _JIO_OPEN_EDGE.match(text[:x.span[0]] + text[x.span[1]:]))]
    if len(xs) > 1 or not rest:
        return ("split" if len(xs) > 1 else "span"), ""
    x = rest[0]
    if x.kind not in ("date", "datetime", "range"):
        return "kind", ""

    def loc(v):
        if v is None:
            return None
        return v.astimezone(tz) if isinstance(v, datetime) else datetime(v.year, v.month, v.day, tzinfo=tz)

    s, e = loc(x.start), loc(x.end)
    if s == a and e == b:
        return "exact", ""
    base_s = base.replace(microsecond=0)
    if (s == a and e is None and b == base_s + timedelta(seconds=1)) or (s is None and e == b and a == base_s):
        return "convention", "J1"
    if want.get("definition") == "blur" and s is not None and a is not None and b is not None and a <= s < b:
        return "convention", "J2"
    if s == a and e is not None and b is not None and x.grain in _UNIT and e + _UNIT[x.grain] == b:
        return "convention", "J3"
    if s == a and e is not None and b is not None and e == b - timedelta(seconds=1):
        return "convention", "J5"
    return "value", ""


def _whole(text: str, xs: list[TimeExpr]) -> str | None:
    """None when ``xs`` is one expression covering ``text`` but edge words, else the failure's name."""
    if not xs:
        return "none"
    if len(xs) > 1:
        return "split"
    return None if _EDGE.match(text[:xs[0].span[0]] + " " + text[xs[0].span[1]:]) else "span"


def _judge_lengths(text: str, want: list[dict], xs: list[TimeExpr]) -> tuple[str, str]:
    """A range of lengths ``[{unit: n}, {unit: m}]`` (``{"zero": True}`` a lower bound of none) agrees with one
    hermesd ``duration`` whose ``seconds`` and ``seconds_max`` are those lengths; an open upper bound
    (``{"infinite": True}``, 三十年以上) has no hermesd form."""
    if any("infinite" in w or set(w) - set(_DELTA) - {"zero"} for w in want):
        return "unrepresentable", ""
    why = _whole(text, xs)
    if why:
        return why, ""
    x = xs[0]
    if x.kind != "duration" or getattr(x, "seconds_max", None) is None:
        return "kind", ""
    lo, hi = (0.0 if "zero" in w else sum(v * _DELTA[k] for k, v in w.items()) for w in want)
    return ("exact", "") if abs(x.seconds - lo) < 0.5 and abs(x.seconds_max - hi) < 0.5 else ("value", "")


def _judge_period(text: str, base: datetime, want: dict, xs: list[TimeExpr]) -> tuple[str, str]:
    """A ``time_period`` ``{"delta": {unit: n}, "point": None | {"time": [first, last]}}`` agrees with one hermesd
    ``recurrence`` whose ``every`` is the delta (in seconds, as :data:`_DELTA` counts them; a week is 7 days) and
    whose first occurrence is the point (or None with no point); J4 counts a first occurrence one period later."""
    from zoneinfo import ZoneInfo

    why = _whole(text, xs)
    if why:
        return why, ""
    x = xs[0]
    if x.kind != "recurrence" or getattr(x, "every", None) is None:
        return "kind", ""
    n, unit = x.every
    every_s = n * {**_DELTA, "week": 7 * 86400, "quarter": 90 * 86400}[unit]
    if abs(every_s - sum(v * _DELTA[k] for k, v in want["delta"].items())) >= 0.5:
        return "value", ""
    if want["point"] is None:
        return ("exact", "") if x.start is None else ("value", "")
    if x.start is None:
        return "value", ""
    tz = ZoneInfo(SHANGHAI)
    first, last = want["point"]["time"]
    a = datetime.fromisoformat(first).replace(tzinfo=tz)
    b = datetime.fromisoformat(last).replace(tzinfo=tz) + timedelta(seconds=1)

    def loc(v):
        return v.astimezone(tz) if isinstance(v, datetime) else datetime(v.year, v.month, v.day, tzinfo=tz)

    s, e = loc(x.start), loc(x.end)
    if s == a and e == b:
        return "exact", ""
    if s == a and e == b - timedelta(seconds=1):
        return "convention", "J5"
    if unit in ("month", "year") and n == int(n):
        later = _add(a, "month", int(n) * (12 if unit == "year" else 1))
    else:
        later = a + timedelta(seconds=every_s)
    if abs(s - later) <= timedelta(days=7 if unit == "year" else 0):
        return "convention", "J4"
    return "value", ""


def main_jionlp(path: Path, failures: int) -> int:
    from zoneinfo import ZoneInfo

    cases = parse_jionlp(path.read_text(encoding="utf-8"))
    by: dict[str, Counter] = defaultdict(Counter)
    rules: Counter = Counter()
    fails = []
    skipped = 0
    for text, base, want, line in cases:
        if base is None:
            skipped += 1
            continue
        xs = parse_times(text, base, SHANGHAI)
        verdict, rule = judge_jionlp(text, base, want, xs)
        c = by[f"{want['type']}:{want.get('definition', '')}"]
        c["n"] += 1
        c[verdict if verdict in ("exact", "convention") else "fail"] += 1
        if verdict == "convention":
            rules[rule] += 1
        elif verdict != "exact":
            fails.append((line, text, want["time"], verdict, xs))
    print(f"{path.name}: {len(cases)} cases, {skipped} skipped (time_base = time.time()), zone {SHANGHAI}")
    print(f"{'class':28} {'n':>5} {'exact%':>7} {'+conv%':>7}")
    tot: Counter = Counter()
    for cls, c in sorted(by.items(), key=lambda kv: -kv[1]["n"]):
        tot.update(c)
        print(f"{cls:28} {c['n']:5d} {100 * c['exact'] / c['n']:7.1f} {100 * (c['exact'] + c['convention']) / c['n']:7.1f}")
    n = tot["n"] or 1
    print(f"{'ALL':28} {tot['n']:5d} {100 * tot['exact'] / n:7.1f} {100 * (tot['exact'] + tot['convention']) / n:7.1f}")
    print("conventions:", dict(sorted(rules.items())))
    for line, text, want, why, xs in fails[:failures]:
        print(f"  [{why}] L{line} {text!r} want {want} got {_show(xs, ZoneInfo(SHANGHAI))}")
    return 0


# ---- hermesd's answer in Duckling's terms ------------------------------------------------------
def _local(v: date | datetime | None) -> datetime | None:
    if v is None:
        return None
    if isinstance(v, datetime):
        return v.astimezone(OFFSET)
    return datetime(v.year, v.month, v.day, tzinfo=OFFSET)


def _add(t: datetime, grain: str, n: int = 1) -> datetime:
    if grain in ("month", "quarter", "year"):
        months = n * {"month": 1, "quarter": 3, "year": 12}[grain]
        y, m = divmod(t.month - 1 + months, 12)
        return t.replace(year=t.year + y, month=m + 1)
    return t + n * {"second": timedelta(seconds=1), "minute": timedelta(minutes=1), "hour": timedelta(hours=1),
                    "day": timedelta(days=1), "week": timedelta(weeks=1)}[grain]


def _trunc(t: datetime, grain: str) -> datetime:
    if grain == "second":
        return t.replace(microsecond=0)
    if grain == "minute":
        return t.replace(second=0, microsecond=0)
    if grain == "hour":
        return t.replace(minute=0, second=0, microsecond=0)
    d = t.replace(hour=0, minute=0, second=0, microsecond=0)
    if grain == "day":
        return d
    if grain == "week":
        return d - timedelta(days=d.weekday())
    if grain == "month":
        return d.replace(day=1)
    if grain == "quarter":
        return d.replace(day=1, month=(d.month - 1) // 3 * 3 + 1)
    return d.replace(day=1, month=1)


def _h_grain(x: TimeExpr) -> str:
    return _H_GRAIN.get(x.grain, x.grain)


def _is_single(x: TimeExpr, s: datetime, e: datetime | None) -> bool:
    g = _h_grain(x)
    return e is not None and g in GRAINS and _add(s, g) == e


def judge(ex: Example, xs: list[TimeExpr]) -> tuple[str, str]:
    """``(verdict, rule)``: verdict ``exact`` | ``convention`` | a failure reason
    (``none``, ``split``, ``span``, ``kind``, ``value``, ``unrepresentable``); rule names the C-rule."""
    if ex.start is None and ex.shape != "before":
        return "unrepresentable", ""
    if not xs:
        return "none", ""
    p = ex.phrase
    whole = [x for x in xs if _EDGE.match(p[:x.span[0]] + " " + p[x.span[1]:]) or (
        _BY.match(p) and _EDGE.match(_BY.sub(" ", p[:x.span[0]]) + " " + p[x.span[1]:])) or (
        x.kind == "range" and (x.start is None or x.end is None)
        and _OPEN_EDGE.match(_EDGE_WORDS.sub(" ", p[:x.span[0]] + " " + p[x.span[1]:])))]
    if len(xs) > 1 or not whole:
        return ("split" if len(xs) > 1 else "span"), ""
    x = whole[0]
    if x.kind not in ("date", "datetime", "range"):
        return "kind", ""
    s, e = _local(x.start), _local(x.end)
    g = _h_grain(x)
    single = s is not None and _is_single(x, s, e)
    if ex.shape == "value":
        if single and s == ex.start and g == ex.grain:
            return "exact", ""
        if s is not None and e is not None and not single and ex.grain == "hour" and x.grain == "part_of_day" \
                and s == ex.start:
            return "exact", ""
        if s is not None and _RELATIVE.search(p) and g in GRAINS:
            coarse = GRAINS[max(GRAINS.index(g), GRAINS.index(ex.grain))]
            if _trunc(s, coarse) == _trunc(ex.start, coarse) and (g != ex.grain or s != ex.start):
                return "convention", "C1"
        if s is not None and single and s == ex.start and ex.grain == "minute" and g == "hour" and _ZONE_SAID.search(p):
            return "convention", "C10"
        if s is not None and g == ex.grain and single and _earlier_occurrence(s, ex):
            return "convention", "C4"
        if s is not None and g == ex.grain == "day" and single and re.search(r"下|next", p) \
                and s == ex.start + timedelta(weeks=1):
            return "convention", "C9"
        if s is not None and single and g == ex.grain and ex.holiday in _HEBREW_HOLIDAYS \
                and s == ex.start + timedelta(days=1):
            return "convention", "C11"
        return "value", ""
    if ex.shape == "interval":
        if s == ex.start and e == ex.end:
            return "exact", ""
        if s is not None and _ZH_AROUND.search(p) and single:
            first, last = ex.start, _add(ex.end, ex.grain, -1)
            if _trunc(s, ex.grain) in (first, last):
                return "convention", "C2"
        if s == ex.start and e is not None and ex.grain in GRAINS and _add(e, ex.grain) == ex.end and not _holiday_days(ex):
            return "convention", "C3"
        if s is not None and e is not None and _earlier_occurrence(s, ex) and \
                (e - s) == (ex.end - ex.start):
            return "convention", "C4"
        if ex.start == REF and e == ex.end and re.match(r"\s*by\b", p, re.I):
            return "convention", "C6"
        if s is not None and e is not None and _rolling(s, e, ex):
            return "convention", "C8"
        if s is not None and e is not None and ex.holiday in _HEBREW_HOLIDAYS and s == ex.start + timedelta(days=1) \
                and abs(e - ex.end) <= timedelta(days=1):
            return "convention", "C11"
        if s is not None and e is not None and _overlap_half(s, e, ex.start, ex.end) and not _holiday_days(ex) \
                and _FUZZY.search(p):
            return "convention", "C5"
        return "value", ""
    if ex.shape == "after":
        if e is None and s == ex.start:
            return "exact", ""
        return "value", ""
    # before
    if s is None and e == ex.start:
        return "exact", ""
    if s is None and e is not None and ex.start is not None and e == _add(ex.start, ex.grain):
        return "convention", "C7"
    return "value", ""


#: the fuzzy parts C5 is about: parts of a day, meals, the weekend, seasons, the beginning / middle / end of a
#: period ("within 2 weeks" or "all week" names none: a difference there is no fuzzy boundary)
_FUZZY = re.compile(r"(?i)(?<![a-z])(?:morning|afternoon|evening|night|tonight|tonite|lunch|breakfast|dinner|school|"
                    r"week-?\s?ends?|wkend|summer|winter|spring|autumn|fall|seasons?|beginning|start|end|early|mid|late|"
                    r"eo[dmwyq]|bo[my])(?![a-z])|[早晚夜午凌傍周週末春夏秋冬初底尾头頭旬]")


def _holiday_days(ex: Example) -> bool:
    """The expected interval is a holiday's own days (Ramadan, Navaratri, Lent): they come from a calendar, so a
    difference there is a calendar's or a name's, never a C3/C5 convention (the morning of Christmas is a part
    of a day, and is one)."""
    return bool(ex.holiday) and ex.grain == "day"


def _earlier_occurrence(s: datetime, ex: Example) -> bool:
    """hermesd's answer is the occurrence before Duckling's future one (C4); never where the phrase says its
    year (Eid al-Fitr 2046 a day earlier is another calendar source, not another occurrence)."""
    if ex.start is None or not (s < ex.start and ex.start > REF) or _YEAR_SAID.search(ex.phrase):
        return False
    if s + timedelta(days=1) == ex.start or (ex.grain == "day" and s + timedelta(weeks=1) == ex.start):
        return True  # a week: a weekday said on its own day ("tuesday", 这周一), not another week's assignment
    try:
        if s.replace(year=s.year + 1) == ex.start:
            return True
    except ValueError:
        pass
    return bool(ex.holiday) and ex.start - timedelta(days=400) < s < REF


def _rolling(s: datetime, e: datetime, ex: Example) -> bool:
    """C8: hermesd's window of N units ends (or starts) now; Duckling's is N whole units before
    (or after) the current one."""
    g = ex.grain
    if g not in GRAINS or ex.start is None or ex.end is None:
        return False
    n = 0
    t = ex.start
    while t < ex.end and n < 1000:
        t, n = _add(t, g), n + 1
    if t != ex.end:
        return False
    if e == REF and ex.end == _trunc(REF, g):
        return _add(s, g, n) == e
    if s == REF and ex.start == _add(_trunc(REF, g), g):
        return _add(s, g, n) == e
    return False


def _overlap_half(s: datetime, e: datetime, s2: datetime, e2: datetime) -> bool:
    inter = (min(e, e2) - max(s, s2)).total_seconds()
    return inter > 0 and inter >= 0.5 * min((e - s).total_seconds(), (e2 - s2).total_seconds())


def _show(xs: list[TimeExpr], tz=None) -> str:
    if not xs:
        return "nothing"

    def iso(v):
        if v is None or tz is None or not isinstance(v, datetime):
            v = _local(v) if tz is None else v
            return v and v.isoformat()
        return v.astimezone(tz).isoformat()
    return "; ".join(f"{x.kind}[{x.text}] {iso(x.start)}..{iso(x.end)} {x.grain}" for x in xs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus", type=Path, help="a Duckling Time/<LANG>/Corpus.hs (or jionlp's test_time_parser.py) "
                                              "saved outside the repo")
    ap.add_argument("--block", default="allExamples", help="which definition's examples (default allExamples)")
    ap.add_argument("--failures", type=int, default=0, help="list this many failing phrases")
    ap.add_argument("--class", dest="only", default=None, help="list failures of this class only")
    ap.add_argument("--conventions", action="store_true", help="list the phrases counted under a C-rule")
    args = ap.parse_args(argv)
    if args.corpus.suffix == ".py":  # jionlp's test_time_parser.py
        return main_jionlp(args.corpus, args.failures)
    exs = parse_corpus(args.corpus.read_text(encoding="utf-8"), args.block)
    by_cls: dict[str, Counter] = defaultdict(Counter)
    reasons: Counter = Counter()
    rules: Counter = Counter()
    fails: list[tuple[Example, str, list[TimeExpr]]] = []
    convs: list[tuple[Example, str, list[TimeExpr]]] = []
    for ex in exs:
        xs = parse_times(ex.phrase, REF, TZ_NAME)
        verdict, rule = judge(ex, xs)
        c = by_cls[ex.cls]
        c["n"] += 1
        c[verdict if verdict in ("exact", "convention") else "fail"] += 1
        if verdict in ("exact", "convention") and xs and tuple(xs[0].span) != (0, len(ex.phrase)):
            c["span"] += 1
        if verdict == "convention":
            rules[rule] += 1
            convs.append((ex, rule, xs))
        elif verdict != "exact":
            reasons[verdict] += 1
            fails.append((ex, verdict, xs))
    print(f"{args.corpus.name} [{args.block}]: {len(exs)} phrases, reference {REF.isoformat()} ({TZ_NAME})")
    print(f"{'class':28} {'n':>5} {'exact%':>7} {'+conv%':>7} {'span':>5}")
    tot: Counter = Counter()
    for cls, c in sorted(by_cls.items(), key=lambda kv: -kv[1]["n"]):
        tot.update(c)
        print(f"{cls:28} {c['n']:5d} {100 * c['exact'] / c['n']:7.1f} "
              f"{100 * (c['exact'] + c['convention']) / c['n']:7.1f} {c['span']:5d}")
    n = tot["n"] or 1
    print(f"{'ALL':28} {tot['n']:5d} {100 * tot['exact'] / n:7.1f} {100 * (tot['exact'] + tot['convention']) / n:7.1f}"
          f" {tot['span']:5d}")
    print("conventions:", dict(sorted(rules.items())), " failures:", dict(reasons.most_common()))
    if args.conventions:
        for ex, rule, xs in convs:
            print(f"  {rule} L{ex.line} {ex.phrase!r}: {_show(xs)}")
    shown = [f for f in fails if args.only is None or f[0].cls == args.only][: args.failures]
    for ex, why, xs in shown:
        want = f"{ex.start and ex.start.isoformat()}..{ex.end and ex.end.isoformat()} {ex.shape}:{ex.grain}"
        print(f"  [{why}] L{ex.line} {ex.phrase!r} want {want} got {_show(xs)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
