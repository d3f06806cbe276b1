"""Filters for ``{{path | filter}}`` templates: values a person reads, in zh or en (pure).

Every filter is ``fn(value, args, style) -> value``: ``args`` are the filter's arguments as
written (strings; an item template for :func:`lines` arrives compiled), ``style`` the
:class:`Style` of the reply (language, time zone, reference instant, department names).
Filters never raise on an odd value: a value they cannot read passes through as text, so a
broken tool output shows up in the shipped-replies test rather than failing a turn.

==============  =====================================  ======================================
filter          value                                  zh / en
==============  =====================================  ======================================
yesno(Y, N)     boolean                                是 / 否, yes / no (or the words given)
duration        seconds                                3 小时 12 分 / 3 h 12 min, 45 秒 / 45 s
size            bytes                                  1.5 GB, 230.4 MB (one decimal)
size_mb         megabytes                              as ``size``
percent         0–100                                  12%, 45.2%
number(D)       number                                 at most D decimals (default 1)
time            ISO 8601 / epoch (``s``/``ms``/``us``)  09:00
date            same                                   今天, 明天, 6月14日 / today, 14 Jun
datetime        same                                   6月14日 09:00 / 14 Jun 09:00
calendar_day    same                                   2026年6月14日 星期日 / Sunday 14 June 2026
zone_time       IANA zone id                           the reference instant there: 01:15
zone_day        IANA zone id                           its date there, as ``calendar_day`` writes it
capitalize      text                                   its first letter in upper case (a sentence's start)
said            the user's words (a task, a topic)     said back to them: 吃我的药 → 吃你的药, my → your
list(FIELD)     list of strings (or records' FIELD)    A、B和C / A, B and C
lines(T, MAX)   list of records, item template T       one line each, at most MAX lines
count(W, WS)    list (its length) or number            3 条 / 3 reminders
dept            department code                        销售部 / Sales (people directory)
person          a person's name                        李娜 / Li Na (李娜) (people directory)
unit_state      systemd ActiveState                    运行中 / running, 出错 / failed
default(X)      missing, null or ""                    X instead
==============  =====================================  ======================================
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timezone, tzinfo
from typing import Any

import orjson

from .. import pronouns

__all__ = ["FILTERS", "FilterSpec", "Style", "as_text"]

_MONTHS_EN = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTH_NAMES_EN = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                   "November", "December")
_WEEKDAYS_EN = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")  # not %A: the locale's
#: day offset from the reference date → word (only these read better than a date)
_RELATIVE_DAYS = {"zh": {-2: "前天", -1: "昨天", 0: "今天", 1: "明天", 2: "后天"},
                  "en": {-1: "yesterday", 0: "today", 1: "tomorrow"}}
_EPOCH_SCALE = {"s": 1, "ms": 1_000, "us": 1_000_000}
_SIZE_UNITS = ("KB", "MB", "GB", "TB", "PB")
#: systemd ActiveState → words (``systemctl show -p ActiveState``)
_UNIT_STATES = {
    "active": ("运行中", "running"), "inactive": ("已停止", "stopped"), "failed": ("出错", "failed"),
    "activating": ("正在启动", "starting"), "deactivating": ("正在停止", "stopping"),
    "reloading": ("正在重新加载", "reloading"), "maintenance": ("维护中", "in maintenance"),
    "refreshing": ("正在刷新", "refreshing"),
}
#: order and ticket statuses as order books write them → words (an unknown status is shown as written)
_ORDER_STATES = {
    "pending": ("待处理", "pending"), "new": ("新订单", "new"), "confirmed": ("已确认", "confirmed"),
    "paid": ("已付款", "paid"), "processing": ("处理中", "being processed"), "packed": ("已打包", "packed"),
    "shipped": ("已发货", "shipped"), "in_transit": ("运输中", "in transit"), "in transit": ("运输中", "in transit"),
    "out_for_delivery": ("派送中", "out for delivery"), "delivered": ("已送达", "delivered"),
    "completed": ("已完成", "completed"), "cancelled": ("已取消", "cancelled"), "canceled": ("已取消", "cancelled"),
    "refunded": ("已退款", "refunded"), "returned": ("已退货", "returned"), "on_hold": ("暂停处理", "on hold"),
    "on hold": ("暂停处理", "on hold"), "failed": ("失败", "failed"), "unknown": ("状态未知", "in an unknown state"),
}


@dataclass(frozen=True, slots=True)
class Style:
    """How a reply is written: language, wall-clock zone, the turn's reference instant.

    :param lang: ``zh`` or ``en`` (anything but ``zh`` writes English).
    :param zone: aware values are shown in this zone; None keeps each value's own offset.
    :param now: the reference instant (aware), for 今天/明天 and whether to show the year; None
        writes dates in full (without a year).
    :param departments: department code → ``{"zh": 销售部, "en": Sales}`` for ``| dept``.
    :param people: a person's name as written → its English form (``{"李娜": "Li Na"}``) for ``| person``.
    """

    lang: str = "en"
    zone: tzinfo | None = None
    now: datetime | None = None
    departments: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    people: Mapping[str, str] = field(default_factory=dict)

    @property
    def zh(self) -> bool:
        return self.lang == "zh"

    @classmethod
    def of(cls, lang: str, session: Mapping[str, Any] | None = None,
           departments: Mapping[str, Mapping[str, str]] | None = None,
           people: Mapping[str, str] | None = None) -> Style:
        """The style of a turn: ``session.tz`` (IANA name) and ``session.now`` (ISO 8601 or an
        aware datetime) from the turn context when present; an unknown zone is ignored."""
        zone: tzinfo | None = None
        now: datetime | None = None
        session = session or {}
        tz = session.get("tz")
        if isinstance(tz, tzinfo):
            zone = tz
        elif isinstance(tz, str) and tz:
            try:
                from zoneinfo import ZoneInfo

                zone = ZoneInfo(tz)
            except (ValueError, LookupError):  # ZoneInfoNotFoundError is a KeyError
                zone = None
        raw = session.get("now")
        if isinstance(raw, datetime):
            now = raw
        elif isinstance(raw, str) and raw:
            try:
                now = datetime.fromisoformat(raw)
            except ValueError:
                now = None
        if now is not None and now.tzinfo is None:
            now = now.replace(tzinfo=zone or timezone.utc)
        if now is not None and zone is not None:
            now = now.astimezone(zone)
        return cls("zh" if lang == "zh" else "en", zone, now, departments or {}, people or {})


def as_text(v: Any) -> str:
    """A value inserted into text without a filter (``null`` → ``""``, lists/mappings as JSON)."""
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (dict, list, tuple)):
        return orjson.dumps(v, default=str).decode()
    return str(v)


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return None
    return None


def _decimals(x: float, digits: int = 1) -> str:
    text = f"{round(x, digits):.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


# ---- the filters ------------------------------------------------------------------------------
def _yesno(v: Any, args: tuple[Any, ...], st: Style) -> str:
    if v is None:
        return "未知" if st.zh else "unknown"
    yes = args[0] if args else ("是" if st.zh else "yes")
    no = args[1] if len(args) > 1 else ("否" if st.zh else "no")
    if isinstance(v, str):
        truth = v.strip().casefold() in ("true", "yes", "1", "on", "y")
    else:
        truth = bool(v)
    return yes if truth else no


def _duration(v: Any, args: tuple[Any, ...], st: Style) -> str:
    x = _num(v)
    if x is None:
        return as_text(v)
    s = int(round(abs(x)))
    if s < 60:
        return f"{s} 秒" if st.zh else f"{s} s"
    minutes = s // 60
    if minutes < 60:
        return f"{minutes} 分钟" if st.zh else f"{minutes} min"
    hours, m = divmod(minutes, 60)
    if hours < 24:
        if st.zh:
            return f"{hours} 小时" + (f" {m} 分" if m else "")
        return f"{hours} h" + (f" {m} min" if m else "")
    days, h = divmod(hours, 24)
    if st.zh:
        return f"{days} 天" + (f" {h} 小时" if h else "")
    return f"{days} day{'' if days == 1 else 's'}" + (f" {h} h" if h else "")


def _size_text(n: float) -> str:
    if abs(n) < 1024:
        return f"{int(n)} B"
    for unit in _SIZE_UNITS:
        n /= 1024
        if abs(round(n, 1)) < 1024 or unit == _SIZE_UNITS[-1]:
            return f"{n:.1f} {unit}"
    raise AssertionError("unreachable")  # pragma: no cover


def _size(v: Any, args: tuple[Any, ...], st: Style) -> str:
    x = _num(v)
    return as_text(v) if x is None else _size_text(x)


def _size_mb(v: Any, args: tuple[Any, ...], st: Style) -> str:
    x = _num(v)
    return as_text(v) if x is None else _size_text(x * 1024 * 1024)


def _percent(v: Any, args: tuple[Any, ...], st: Style) -> str:
    x = _num(v)
    return as_text(v) if x is None else f"{_decimals(x)}%"


def _number(v: Any, args: tuple[Any, ...], st: Style) -> str:
    x = _num(v)
    return as_text(v) if x is None else _decimals(x, int(args[0]) if args else 1)


def _instant(v: Any, args: tuple[Any, ...], st: Style) -> datetime | date | None:
    """A datetime (in the style's zone when it has one) or a date; None when unreadable."""
    if isinstance(v, datetime):
        dt = v
    elif isinstance(v, date):
        return v
    elif _num(v) is not None and not isinstance(v, str):
        scale = _EPOCH_SCALE[args[0]] if args else 1
        try:
            dt = datetime.fromtimestamp(float(v) / scale, st.zone or timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    elif isinstance(v, str) and v.strip():
        text = v.strip()
        try:
            if len(text) == 10:
                return date.fromisoformat(text)
            dt = datetime.fromisoformat(text)
        except ValueError:
            return None
    else:
        return None
    if dt.tzinfo is not None and st.zone is not None:
        dt = dt.astimezone(st.zone)
    return dt


def _today(st: Style, dt: datetime | date) -> date | None:
    if st.now is None:
        return None
    if isinstance(dt, datetime) and dt.tzinfo is not None:
        return st.now.astimezone(dt.tzinfo).date()
    return st.now.date()


def _day(d: date, today: date | None, st: Style) -> str:
    if today is not None:
        word = _RELATIVE_DAYS[st.lang if st.zh else "en"].get((d - today).days)
        if word:
            return word
    other_year = today is not None and d.year != today.year
    if st.zh:
        return (f"{d.year}年" if other_year else "") + f"{d.month}月{d.day}日"
    return f"{d.day} {_MONTHS_EN[d.month - 1]}" + (f" {d.year}" if other_year else "")


def _time(v: Any, args: tuple[Any, ...], st: Style) -> str:
    dt = _instant(v, args, st)
    if not isinstance(dt, datetime):
        return as_text(v) if dt is None else ""
    return f"{dt:%H:%M}"


def _date(v: Any, args: tuple[Any, ...], st: Style) -> str:
    dt = _instant(v, args, st)
    if dt is None:
        return as_text(v)
    d = dt.date() if isinstance(dt, datetime) else dt
    return _day(d, _today(st, dt), st)


def _datetime(v: Any, args: tuple[Any, ...], st: Style) -> str:
    dt = _instant(v, args, st)
    if dt is None:
        return as_text(v)
    if not isinstance(dt, datetime):
        return _day(dt, _today(st, dt), st)
    return f"{_day(dt.date(), _today(st, dt), st)} {dt:%H:%M}"


def _calendar_day(v: Any, args: tuple[Any, ...], st: Style) -> str:
    """The full date with its weekday, never a relative word ("今天几号" asks for the date itself)."""
    dt = _instant(v, args, st)
    if dt is None:
        return as_text(v)
    d = dt.date() if isinstance(dt, datetime) else dt
    if st.zh:
        return f"{d.year}年{d.month}月{d.day}日 星期{'一二三四五六日'[d.weekday()]}"
    return f"{_WEEKDAYS_EN[d.weekday()]} {d.day} {_MONTH_NAMES_EN[d.month - 1]} {d.year}"


def _in_zone(v: Any, st: Style) -> tuple[datetime, Style] | None:
    """The turn's reference instant in the IANA zone ``v``, and the style for that zone; None when
    ``v`` is no zone or the turn has no reference instant."""
    if st.now is None or not isinstance(v, str) or not v:
        return None
    try:
        from zoneinfo import ZoneInfo

        zone = ZoneInfo(v)
    except (ValueError, LookupError):  # ZoneInfoNotFoundError is a KeyError
        return None
    return st.now.astimezone(zone), replace(st, zone=zone, now=st.now.astimezone(zone))


def _zone_time(v: Any, args: tuple[Any, ...], st: Style) -> str:
    """``{{entities.place.zone | zone_time}}``: the clock time now (the turn's reference instant) in
    that zone, ``HH:MM``; ``""`` when it is no zone."""
    found = _in_zone(v, st)
    return f"{found[0]:%H:%M}" if found else ""


def _zone_day(v: Any, args: tuple[Any, ...], st: Style) -> str:
    """``{{entities.place.zone | zone_day}}``: today's date and weekday in that zone (it may be
    tomorrow or yesterday there), as ``calendar_day`` writes them; ``""`` when it is no zone."""
    found = _in_zone(v, st)
    return _calendar_day(found[0], (), found[1]) if found else ""


def _capitalize(v: Any, args: tuple[Any, ...], st: Style) -> str:
    """The text with its first letter in upper case, the rest as written ("tomorrow is …" → "Tomorrow is …")."""
    t = as_text(v)
    return t[:1].upper() + t[1:]


def _said(v: Any, args: tuple[Any, ...], st: Style) -> Any:
    """``{{entities.task | said}}``: the user's words said back to them, first and second person swapped
    (:func:`hermesd.pronouns.said_back`: "take my pills" → "take your pills", 吃我的药 → 吃你的药); a value
    that is no text passes through."""
    return pronouns.said_back(v) if isinstance(v, str) else v


def _field(item: Any, path: str | None) -> Any:
    if path is None:
        return item
    for key in path.split("."):
        if isinstance(item, Mapping):
            item = item.get(key)
        elif isinstance(item, (list, tuple)) and key.isdigit() and int(key) < len(item):
            item = item[int(key)]
        else:
            return None
    return item


def _items(v: Any) -> list[Any]:
    if v is None:
        return []
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _list(v: Any, args: tuple[Any, ...], st: Style) -> str:
    texts = [as_text(x) for x in (_field(i, args[0] if args else None) for i in _items(v)) if x not in (None, "")]
    if len(texts) <= 1:
        return "".join(texts)
    if st.zh:
        return "、".join(texts[:-1]) + "和" + texts[-1]
    return ", ".join(texts[:-1]) + " and " + texts[-1]


def _lines(v: Any, args: tuple[Any, ...], st: Style) -> str:
    items = _items(v)
    tmpl = args[0] if args else None
    limit = int(args[1]) if len(args) > 1 else None
    shown = items if limit is None else items[:limit]
    out = [as_text(tmpl.render(i if isinstance(i, Mapping) else {}, st)) if tmpl is not None else as_text(i)
           for i in shown]
    rest = len(items) - len(shown)
    if rest > 0:
        out.append(f"……还有 {rest} 条" if st.zh else f"… and {rest} more")
    return "\n".join(out)


def _count(v: Any, args: tuple[Any, ...], st: Style) -> str:
    if isinstance(v, (list, tuple, dict, str)):
        n = len(v)
    else:
        x = _num(v)
        n = int(x) if x is not None else 0
    if not args:
        return str(n)
    if st.zh:
        return f"{n} {args[0]}"
    word = args[0] if n == 1 else (args[1] if len(args) > 1 else args[0] + "s")
    return f"{n} {word}"


def english_name(name: str, latin: str | None) -> str:
    """A person's name as an English reply shows it: "Li Na (李娜)" — the Latin form, the name as written
    after it — when ``latin`` is one and differs from ``name``; else ``name`` ("John Smith").

    The one place the form is written: the ``| person`` filter and the session's grounding
    (``<slot>_en``, :mod:`hermesd.session.grounding`) both call it.

    >>> english_name("李娜", "Li Na"), english_name("John Smith", "John Smith"), english_name("赵六", None)
    ('Li Na (李娜)', 'John Smith', '赵六')
    """
    return f"{latin} ({name})" if latin and latin != name else name


def _person(v: Any, args: tuple[Any, ...], st: Style) -> str:
    """A person's name for the reply: as written in Chinese; in English, "Li Na (李娜)" when the directory
    gives an English form (:func:`english_name`, as the grounding step writes a chosen person's name, ``<slot>_en``)."""
    name = as_text(v)
    return english_name(name, st.people.get(name) if not st.zh else None)


def _dept(v: Any, args: tuple[Any, ...], st: Style) -> str:
    if v in (None, ""):
        return ""
    names = st.departments.get(str(v))
    if not names:
        return as_text(v)
    return names.get(st.lang) or names.get("en" if st.zh else "zh") or as_text(v)


def _unit_state(v: Any, args: tuple[Any, ...], st: Style) -> str:
    words = _UNIT_STATES.get(str(v))
    if words is None:
        return "状态未知" if st.zh else "in an unknown state"
    return words[0] if st.zh else words[1]


def _order_state(v: Any, args: tuple[Any, ...], st: Style) -> str:
    words = _ORDER_STATES.get(str(v).strip().casefold())
    if words is None:
        return str(v)
    return words[0] if st.zh else words[1]


def _default(v: Any, args: tuple[Any, ...], st: Style) -> Any:
    return args[0] if v in (None, "") else v


@dataclass(frozen=True, slots=True)
class FilterSpec:
    """A filter: the function, how many arguments it takes, which argument is an item template.

    :param template_arg: index of an argument compiled as a ``{field}`` item template.
    :param int_arg: index of an argument that must be a positive integer.
    :param choices: allowed values of the first argument (e.g. epoch units), or None.
    """

    fn: Callable[[Any, tuple[Any, ...], Style], Any]
    min_args: int = 0
    max_args: int = 0
    template_arg: int | None = None
    int_arg: int | None = None
    choices: tuple[str, ...] | None = None


_EPOCH = tuple(_EPOCH_SCALE)
#: every filter a template may name; an unknown name is a load-time error of its pack.
FILTERS: dict[str, FilterSpec] = {
    "yesno": FilterSpec(_yesno, 0, 2),
    "duration": FilterSpec(_duration),
    "size": FilterSpec(_size),
    "size_mb": FilterSpec(_size_mb),
    "percent": FilterSpec(_percent),
    "number": FilterSpec(_number, 0, 1, int_arg=0),
    "time": FilterSpec(_time, 0, 1, choices=_EPOCH),
    "date": FilterSpec(_date, 0, 1, choices=_EPOCH),
    "datetime": FilterSpec(_datetime, 0, 1, choices=_EPOCH),
    "calendar_day": FilterSpec(_calendar_day, 0, 1, choices=_EPOCH),
    "zone_time": FilterSpec(_zone_time),
    "zone_day": FilterSpec(_zone_day),
    "capitalize": FilterSpec(_capitalize),
    "said": FilterSpec(_said),
    "list": FilterSpec(_list, 0, 1),
    "lines": FilterSpec(_lines, 0, 2, template_arg=0, int_arg=1),
    "count": FilterSpec(_count, 0, 2),
    "dept": FilterSpec(_dept),
    "person": FilterSpec(_person),
    "unit_state": FilterSpec(_unit_state),
    "order_state": FilterSpec(_order_state),
    "default": FilterSpec(_default, 1, 1),
}
