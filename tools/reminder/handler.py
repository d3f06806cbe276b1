"""reminder: create/list/cancel, kept in ``$HERMESD_TOOL_STATE_DIR/reminders.json`` (atomic rename).

Times:

- ``due`` is either an instant (RFC 3339 with offset: the person said a clock time) or a day
  ``YYYY-MM-DD`` (they did not): a day is due at ``default_time`` (``HH:MM``, default 09:00)
  on that day in the IANA zone ``tz``. A window ``due``..``until`` of instants (a part of day,
  "后天上午"; an ``until`` equal to ``due`` is none) is due at ``default_time`` when that falls inside it, else at its middle on the
  hour (afternoon 12:00-18:00 -> 15:00). A window that has begun and is not over ("今晚" said at
  23:00: still tonight) whose time is gone is due at the middle of what is left, on the next
  quarter hour (23:00 -> 23:30).
  The stored ``due`` is always an instant with its offset; ``time_given`` says whether the
  person named the time, and ``local`` is its wall-clock ``YYYY-MM-DD HH:MM``.
- ``now`` (an instant; the caller's reference time) marks every pending reminder due at or
  before it ``fired`` (the daemon has published its event by then), so it no longer lists
  or cancels as pending — never one due after the wall clock: a reference time in the future
  (``hermesctl say --at``, a client's ``reference_time``) reads the day it names, it does not
  use up reminders that have not rung.
- ``about`` filters ``list`` and ``cancel`` to reminders whose text is about that topic (:func:`_about`:
  "取消喝水的提醒", "cancel the dentist reminder").
- ``same_day_as`` (an instant) places a ``create``'s clock time on that instant's local day unless
  ``day_named`` is true: a reminder moved to a clock time alone keeps its day; without ``half_named``
  its hour is the reading (h or h±12) nearer the old time ("不是9点，是10点" for 09:00 → 10:00). Moved
  to a day alone (``day_named``, ``due`` a day: "改到后天", "move it to Friday") it keeps its clock time; moved
  to a part of a day (a window ``due``..``until``) it keeps its clock time when that falls inside the part.
- ``shift_s`` (seconds) with ``shift`` (``later``, the default, or ``earlier``) moves a ``create``'s ``due``
  by that much ("推迟半小时", "snooze it for 10 minutes", "提前10分钟": ``due`` is the old reminder's instant,
  ``same_day_as`` is then not used); one moved into the past fails ``IN_THE_PAST`` as any other.
- ``since``/``until`` filter ``list`` and ``cancel`` to reminders due in ``[since, until)``;
  days are local midnights in ``tz``. ``cancel`` without ``id`` cancels the one pending reminder
  due then (``AMBIGUOUS`` when there are several, ``NOT_FOUND`` when none); ``list`` with
  ``expect: some`` / ``expect: one`` fails the same way, so a rule can stop before a confirmation.
  ``cancel`` with ``among`` (reminders as a ``list`` returned them; each one's ``id`` is read)
  cancels every one of them still pending ("cancel all my reminders", after one confirmation that
  listed them), and ``NOT_FOUND`` when none is. ``list`` with ``among`` and ``nth`` (1-based, or
  ``last``) is the reminder at that place in the list the person was shown ("取消第二个"), counting
  those of it still pending (one cancelled since is no longer in the list as the person sees it).
- ``recurrence`` (``{every: {n, unit}, days?, until?, count?}``, the NLU's recurrence entity; ``days``: ISO
  weekdays of a weekly set, 每周一三五, "every weekday") makes ``create`` a repeating reminder: ``due`` is
  its first occurrence (moved on to the first of ``days`` at the same clock time when it is not one of them), the clock time recurs on the wall clock of ``tz`` (08:00
  stays 08:00 across DST), a month day the month lacks is the month's last day (the 31st is 30 April and
  28 February), and it ends before ``until`` (a day: after that day) or after ``count``
  occurrences, else never (:mod:`hermesd.recurrence`); ``until`` is inclusive (RFC 5545 UNTIL: a day's
  occurrences still come that day, an instant's at that instant — "every day at 8 until the 20th" rings on the
  20th). The item keeps the rule as ``repeat``; ``now`` moves
  a repeating reminder whose occurrence has rung on to its next one after ``now`` — one occurrence missed
  or many, the series goes on from the next to come — and marks it ``fired`` once it has ended. A fraction
  of a unit is said in the smaller one (every 1.5 hours: every 90 minutes). Cancelling one cancels the
  series. Each item says its repetition in both languages: ``every_en``/``every_zh`` ("every Monday at
  09:00" / "每周一 09:00", with its end when it has one: "every day at 08:00 until 31 Dec" / "每天 08:00，到12月31日为止";
  empty for a one-off) and ``repeats_en``/``repeats_zh`` (the same in brackets,
  to follow a list line), ``cycle_en``/``cycle_zh`` (the repetition without its end) and ``ends_en``/``ends_zh``
  (" until 18 Dec" / "，到12月18日为止"; empty without an end; all empty for a one-off). A repeating ``create`` without ``due`` (每天提醒我喝水: no day, no time) starts on
  the local day of ``now``, at ``default_time`` (the next occurrence when that has gone); one every n
  minutes or hours (每隔5分钟) one interval after ``now``, on the next whole minute. A ``create`` that
  ``replaces`` a repeating reminder (a move: "不是8点，是9点") fails ``REPEATING``: moving a series is not
  supported, and a one-off in its place would silently end it.
"""

import json
import os
from datetime import date, datetime, time, timedelta, timezone

# imported by the fork server before any worker is forked (the sandbox reads no package files later)
from hermesd.recurrence import BadRule, Rule, describe, next_after

DEFAULT_TIME = "09:00"
#: a fraction of a unit said in the next smaller one: 1.5 hours -> 90 minutes, half a day -> 12 hours
_SMALLER = {"hour": ("minute", 60), "day": ("hour", 24), "week": ("day", 7)}


class Failure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _path() -> str:
    return os.path.join(os.environ["HERMESD_TOOL_STATE_DIR"], "reminders.json")


def _load() -> dict:
    try:
        with open(_path(), encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        return {"next": 1, "items": []}


def _save(data: dict) -> None:
    tmp = f"{_path()}.{os.getpid()}.tmp"  # one temp file per worker: concurrent calls never share it
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, _path())


def _zone(name):
    if not name:
        return None
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise Failure("BAD_ZONE", f"unknown time zone {name!r}") from None


def _is_day(v: str) -> bool:
    return len(v) == 10 and "T" not in v


def _instant(v, tz, field: str, at: str = "00:00") -> datetime:
    """An aware datetime for an instant, or for a day at ``at`` in ``tz``."""
    if _is_day(v):
        if tz is None:
            raise Failure("MISSING_FIELD", f"{field} is a day ({v}): tz is needed to place it")
        h, m = (int(x) for x in at.split(":"))
        return datetime.combine(date.fromisoformat(v), time(h, m), tz)
    dt = datetime.fromisoformat(v[:-1] + "+00:00" if v[-1:] in "zZ" else v)
    if dt.tzinfo is None:
        if tz is None:
            raise Failure("MISSING_FIELD", f"{field} has no offset: tz is needed")
        dt = dt.replace(tzinfo=tz)
    return dt


def _stored(item: dict):
    """The stored due as an aware datetime (None for an unreadable legacy value)."""
    try:
        dt = datetime.fromisoformat(str(item.get("due")).replace("Z", "+00:00"))
    except ValueError:
        try:
            dt = datetime.combine(date.fromisoformat(str(item.get("due"))), time(9, 0))
        except ValueError:
            return None
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=timezone.utc)


def _due(input: dict, tz) -> tuple[datetime, bool]:
    """(when it is due, whether the person gave the time) for ``create``."""
    raw, at = input["due"], input.get("default_time") or DEFAULT_TIME
    if _is_day(raw):
        return _instant(raw, tz, "due", at), False
    start = _instant(raw, tz, "due")
    if not input.get("until") or input["until"] == raw:  # an until equal to due is no window: a point
        return start, True
    end = _instant(input["until"], tz or start.tzinfo, "until")
    h, m = (int(x) for x in at.split(":"))
    day = start.astimezone(start.tzinfo)
    candidate = datetime.combine(day.date(), time(h, m), start.tzinfo)
    if candidate < start:
        candidate += timedelta(days=1)
    if start <= candidate < end:
        due = candidate
    else:
        # a part of day without the default time: its middle, on the hour (下午 12-18 -> 15:00,
        # evening 18-22 -> 20:00), not its first minute ("下午 12:00" reads as noon to a person)
        middle = start + (end - start) / 2
        due = max(start, middle.replace(minute=0, second=0, microsecond=0))
    now = _instant(input["now"], tz or start.tzinfo, "now") if input.get("now") else None
    if now is not None and due <= now < end:
        # the part of day has begun and is not over ("今晚" said at 23:00 is still tonight): the
        # middle of what is left of it, on the next quarter hour, while that is before its end
        rest = now + (end - now) / 2
        due = rest.replace(second=0, microsecond=0) + timedelta(minutes=-rest.minute % 15)
        if due >= end:
            due = now + (end - now) / 2
    return due, False


def _rule(item: dict):
    """The repeating reminder's rule, or None for a one-off (or an unreadable rule: it then fires once)."""
    try:
        return Rule.from_json(item["repeat"]) if isinstance(item.get("repeat"), dict) else None
    except BadRule:
        return None


_MONTHS_EN = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _last(rule):
    """The last instant the series may come (its ``until`` is exclusive: midnight after the last day, or one
    second after the last instant), local; and whether it ends with a whole day (the until was a day)."""
    end = rule.until.astimezone(rule.zone)
    if (end.hour, end.minute, end.second) == (0, 0, 0):
        return end - timedelta(days=1), True
    return end - timedelta(seconds=1), False


def _ends(rule, lang: str) -> str:
    """ " until 18 Dec" / "，到12月18日为止" (the year when it is not the first occurrence's; the clock time of an
    instant end: "until 17:00"); empty for a series without an end."""
    if rule.until is None:
        return ""
    last, whole_day = _last(rule)
    first = rule.start.astimezone(rule.zone)
    same_day = last.date() == first.date()
    if lang == "zh":
        day = "" if same_day and not whole_day else (f"{last.year}年" if last.year != first.year else "") + f"{last.month}月{last.day}日"
        clock = "" if whole_day else last.strftime("%H:%M")
        return f"，到{day}{' ' if day and clock else ''}{clock}为止"
    day = "" if same_day and not whole_day else f"{last.day} {_MONTHS_EN[last.month - 1]}" + (f" {last.year}" if last.year != first.year else "")
    clock = "" if whole_day else last.strftime("%H:%M")
    return f" until {day}{' ' if day and clock else ''}{clock}"


def _every(rule, lang: str, ends: bool = True) -> str:
    """ "every Monday at 09:00" / "每周一 09:00"; the clock time only for a unit of a day or longer; then the end
    of a series that has one ("every day at 08:00 until 31 Dec" / "每天 08:00，到12月31日为止")."""
    words = describe(rule, lang)
    if rule.unit not in ("minute", "hour"):
        clock = rule.start.astimezone(rule.zone).strftime("%H:%M")
        words = f"{words} {clock}" if lang == "zh" else f"{words} at {clock}"
    return words + (_ends(rule, lang) if ends else "")


def _item_view(item: dict) -> dict:
    dt = _stored(item)
    out = dict(item)
    if dt is not None:
        out["local"] = dt.strftime("%Y-%m-%d %H:%M")
        out["time"] = dt.strftime("%H:%M")
    rule = _rule(item)
    out["every_en"] = _every(rule, "en") if rule else ""
    out["every_zh"] = _every(rule, "zh") if rule else ""
    # the schedule without its end, and the end alone, for a sentence that says them apart ("…, starting 7 Dec
    # until 18 Dec" / "…，从明天开始，到12月31日为止")
    out["cycle_en"] = _every(rule, "en", ends=False) if rule else ""
    out["cycle_zh"] = _every(rule, "zh", ends=False) if rule else ""
    out["ends_en"] = _ends(rule, "en") if rule else ""
    out["ends_zh"] = _ends(rule, "zh") if rule else ""
    out["repeats_en"] = f" ({out['every_en']})" if rule else ""
    out["repeats_zh"] = f"（{out['every_zh']}）" if rule else ""
    return out


def _fire_due(data: dict, now) -> bool:
    changed = False
    if now is not None:
        now = min(now, datetime.now(timezone.utc))  # only what the daemon's clock has rung
    for item in data["items"]:
        dt = _stored(item)
        if item["status"] == "pending" and dt is not None and now is not None and dt <= now:
            rule = _rule(item)
            upcoming = next_after(rule, now) if rule is not None else None
            if upcoming is None:
                item["status"] = "fired"
            else:  # the daemon has armed the same occurrence (hermesd.session.events re-arms a series)
                item["due"] = upcoming[1].isoformat(timespec="seconds")
            changed = True
    return changed


def _repeat(input: dict, due: datetime, tz):
    """The rule of a repeating ``create`` (None without ``recurrence``), first occurrence at or after ``due``."""
    spec = input.get("recurrence")
    if spec is None:
        return None
    every = spec.get("every") or {}
    if every.get("n") is None or not every.get("unit"):
        raise Failure("MISSING_FIELD", "recurrence needs every.n and every.unit")
    if tz is None:
        raise Failure("MISSING_FIELD", "a repeating reminder needs tz (its clock time is a wall-clock time)")
    n, unit = float(every["n"]), every["unit"]
    while n != int(n) and unit in _SMALLER:
        unit, factor = _SMALLER[unit]
        n *= factor
    if n != int(n) or n < 1:
        raise Failure("MISSING_FIELD", f"every {every['n']} {every['unit']} is not a whole number of units")
    days = tuple(sorted(set(int(d) for d in spec.get("days") or ()))) if unit == "week" else ()
    start = due.astimezone(tz)
    while days and start.isoweekday() not in days:  # the first day of the set at the same clock time
        nxt = start.date() + timedelta(days=1)
        start = datetime.combine(nxt, start.timetz().replace(tzinfo=None), tz)
    until = None
    if spec.get("until"):
        # RFC 5545 UNTIL is inclusive: a day's occurrences still come that day, an instant's at that instant;
        # the rule keeps the exclusive bound (the midnight after the day, one second after the instant)
        raw = spec["until"]
        until = (datetime.combine(date.fromisoformat(raw) + timedelta(days=1), time(0, 0), tz) if _is_day(raw)
                 else _instant(raw, tz, "recurrence.until") + timedelta(seconds=1))
    try:
        return Rule(int(n), unit, start, input["tz"], days, until, spec.get("count"))
    except BadRule as exc:
        raise Failure("MISSING_FIELD", f"not a repeating schedule: {exc}") from None


_STOP = {"the", "a", "an", "my", "to", "of", "for", "about", "and", "with", "at", "on", "in"}


def _fold(text: str) -> str:
    return "".join(ch for ch in str(text).lower() if ch.isalnum() and ch != "的")


def _about(item: dict, topic: str) -> bool:
    """The reminder's text is about ``topic``: one holds the other (letters and digits only, 的 dropped:
    "喝水" ~ "记得喝水", "看牙医" ~ "去看牙医"), or every content word of the topic begins a word of the
    text ("dentist" ~ "dentist appointment", "call mom" ~ "call Mom at 5")."""
    a, b = _fold(topic), _fold(item.get("text", ""))
    if a and b and (a in b or b in a):
        return True
    words = [w for w in "".join(c if c.isalnum() else " " for c in topic.lower()).split() if w not in _STOP]
    have = "".join(c if c.isalnum() else " " for c in str(item.get("text", "")).lower()).split()
    return bool(words) and all(any(h.startswith(w) for h in have) for w in words)


def _select(data: dict, input: dict, tz) -> list:
    """Pending reminders, due order, filtered by ``id``, ``since``/``until`` and ``about``."""
    lo = _instant(input["since"], tz, "since") if input.get("since") else None
    hi = _instant(input["until"], tz, "until") if input.get("until") else None
    out = []
    for item in data["items"]:
        if item["status"] != "pending" or (input.get("id") and item["id"] != input["id"]):
            continue
        if input.get("about") and not _about(item, input["about"]):
            continue
        dt = _stored(item)
        if (lo is not None or hi is not None) and dt is None:
            continue
        if (lo is not None and dt < lo) or (hi is not None and dt >= hi):
            continue
        out.append(item)
    far = datetime.max.replace(tzinfo=timezone.utc)
    return sorted(out, key=lambda i: (_stored(i) or far, int(i["id"][1:])))


def _expect(found: list, input: dict) -> list:
    """``expect: some`` → at least one (else NOT_FOUND); ``expect: one`` → exactly one (else AMBIGUOUS)."""
    if input.get("expect") in ("some", "one") and not found:
        which = f" {input['id']}" if input.get("id") else ""
        raise Failure("NOT_FOUND", f"no pending reminder{which} (it may have fired or been cancelled)")
    if input.get("expect") == "one":
        return [_one(found, input)]
    return found


def _one(found: list, input: dict) -> dict:
    if not found:
        which = f" {input['id']}" if input.get("id") else ""
        raise Failure("NOT_FOUND", f"no pending reminder{which} (it may have fired or been cancelled)")
    if len(found) > 1:
        listed = "; ".join(f"{i['id']} {_item_view(i).get('local', i['due'])} {i['text']}" for i in found[:10])
        raise Failure("AMBIGUOUS", f"{len(found)} pending reminders then: {listed}")
    return found[0]


def handle(input: dict) -> dict:
    """One call, serialised with every other worker's by an exclusive lock on the store (two
    concurrent creates must not both read the old file and lose one reminder)."""
    import fcntl

    with open(_path() + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        return _handle(input)


def _handle(input: dict) -> dict:
    data = _load()
    action = input["action"]
    tz = _zone(input.get("tz"))
    now = _instant(input["now"], tz, "now") if input.get("now") else None
    changed = _fire_due(data, now)
    if action == "create":
        if not input.get("due") and input.get("recurrence") and now is not None:
            every = input["recurrence"].get("every") or {}
            step_s = {"minute": 60, "hour": 3600}.get(every.get("unit"), 0) * float(every.get("n") or 0)
            if step_s:  # 每隔5分钟提醒我喝水: the first one interval from now, on the minute
                first = now + timedelta(seconds=step_s)
                first = first.replace(second=0, microsecond=0) + timedelta(minutes=1 if first.second or first.microsecond else 0)
                input = dict(input, due=first.isoformat())
            else:  # a recurrence that names no day or time (每天提醒我喝水): from today, at default_time
                input = dict(input, due=now.astimezone(tz or now.tzinfo).date().isoformat())
        for field in ("text", "due"):
            if not input.get(field):
                raise Failure("MISSING_FIELD", f"create needs {field}")
        moved = next((i for i in data["items"] if i["id"] == input.get("replaces")), None)
        if moved is not None and _rule(moved) is not None:  # a move would turn the series into one time
            raise Failure("REPEATING", f"{moved['id']} repeats ({_every(_rule(moved), 'en')}): moving a series is not supported")
        due, given = _due(input, tz)
        if input.get("same_day_as") and input.get("until") and input["until"] != input["due"] and not _is_day(str(input["due"])):
            # a move into a part of a day ("改到下午" for 16:00, "move it to the evening" for 19:30): the reminder's own
            # clock time when it falls inside that part, on its day; the part's default only for one outside it
            old = _instant(input["same_day_as"], tz, "same_day_as")
            start, end = _instant(input["due"], tz, "due"), _instant(input["until"], tz or old.tzinfo, "until")
            zone = tz or start.tzinfo
            kept = datetime.combine(start.astimezone(zone).date(), old.astimezone(zone).time(), zone)
            if kept < start:
                kept += timedelta(days=1)
            if start <= kept < end:
                due, given = kept, True
        if input.get("shift_s"):  # "推迟半小时": the reminder's own due moved by that much
            sign = -1 if input.get("shift") == "earlier" else 1
            due, given = due + timedelta(seconds=sign * float(input["shift_s"])), True
        elif input.get("same_day_as") and input.get("day_named") and _is_day(str(input["due"])):
            # a move to a day alone ("改到后天", "move it to Friday"): the reminder's own clock time on that day
            old = _instant(input["same_day_as"], tz, "same_day_as")
            zone = tz or old.tzinfo
            due = datetime.combine(date.fromisoformat(str(input["due"])), old.astimezone(zone).time(), zone)
            given = bool(moved.get("time_given", True)) if moved is not None else True
        elif input.get("same_day_as") and not input.get("day_named"):
            # a move to a clock time alone ("不是9点，是10点"): that time on the reminder's own day
            day = _instant(input["same_day_as"], tz, "same_day_as")
            zone = tz or day.tzinfo
            due = datetime.combine(day.astimezone(zone).date(), due.astimezone(zone).time(), zone)
            if not input.get("half_named"):  # "不是9点，是10点" for 09:00: 10:00, not 22:00
                other = due + timedelta(hours=12 if due.hour < 12 else -12)
                if abs((other - day).total_seconds()) < abs((due - day).total_seconds()):
                    due = other
        rule = _repeat(input, due, tz)
        if rule is not None:
            due = rule.start
            if now is not None and due <= now:  # the first occurrence has gone: the series starts at the next
                upcoming = next_after(rule, now)
                if upcoming is None:
                    raise Failure("IN_THE_PAST", f"every occurrence of {rule.to_json()} is before {now.isoformat()}")
                due = upcoming[1]
                if rule.unit not in ("month", "year"):  # a month's start keeps its day (the 31st), else it is
                    rule = Rule(rule.every, rule.unit, due, rule.tz, rule.days, rule.until, rule.count)  # the first
        if now is not None and due <= now:  # "提醒我昨天开会": a reminder for a time already gone
            # a move ("提前一天") into the past leaves the reminder as it was: said as such, not as "not set"
            code = "MOVED_INTO_PAST" if input.get("replaces") else "IN_THE_PAST"
            raise Failure(code, f"{due.isoformat()} is not after {now.isoformat()}")
        item = {"id": f"r{data['next']}", "text": input["text"], "due": due.isoformat(timespec="seconds"),
                "status": "pending", "time_given": given}
        if rule is not None:
            item["repeat"] = rule.to_json()
        data["next"] += 1
        data["items"].append(item)
        _save(data)
        return {"reminders": [_item_view(item)], "count": 1}
    if action == "cancel" and input.get("among") is not None:
        # "取消所有提醒": exactly the reminders the confirmation listed, those still pending — one
        # created after the question is not among them
        want = {str(i.get("id")) for i in input["among"] if isinstance(i, dict)}
        items = [i for i in _select(data, {k: v for k, v in input.items() if k != "id"}, tz) if i["id"] in want]
        if not items:
            if changed:
                _save(data)
            raise Failure("NOT_FOUND", "none of the listed reminders is still pending")
        for item in items:
            item["status"] = "cancelled"
        _save(data)
        return {"reminders": [_item_view(i) for i in items], "count": len(items)}
    if action == "cancel":
        if not (input.get("id") or input.get("since") or input.get("until") or input.get("about")):
            raise Failure("MISSING_FIELD", "cancel needs id, about, or since/until")
        if changed:
            _save(data)
        item = _one(_select(data, input, tz), input)
        item["status"] = "cancelled"
        _save(data)
        return {"reminders": [_item_view(item)], "count": 1}
    if changed:
        _save(data)
    if input.get("among") is not None and input.get("nth"):
        # "取消第二个": the reminder at that place in the list the person was shown, counting those
        # still pending (one cancelled since is gone from the list as the person sees it)
        pending = {i["id"]: i for i in _select(data, {k: v for k, v in input.items() if k not in ("id", "nth")}, tz)}
        shown = [pending[str(i.get("id"))] for i in input["among"] if isinstance(i, dict) and str(i.get("id")) in pending]
        n = len(shown) if input["nth"] == "last" else int(input["nth"])
        if not 1 <= n <= len(shown):
            raise Failure("NOT_FOUND", f"{len(shown)} of the reminders shown are pending, not a number {n}")
        found = _expect([shown[n - 1]], input)
        return {"reminders": [_item_view(i) for i in found], "count": len(found)}
    found = _expect(_select(data, input, tz), input)
    return {"reminders": [_item_view(i) for i in found], "count": len(found)}
