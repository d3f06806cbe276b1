"""What a tool call changes in the event schedule, read from the tool's declared scheduled side.

A tool descriptor's ``schedules`` (:class:`hermesd.tools.descriptor.Schedules`) says which calls
create items due later and which cancel them; :func:`schedule_changes` turns one call's input and
output into the events to schedule and the keys to unschedule. Pure: the session shell applies
the result through the event bus.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping
from zoneinfo import ZoneInfo

from ..recurrence import BadRule, Rule, next_after

__all__ = ["REPEAT", "ScheduleChanges", "ToSchedule", "next_occurrence", "schedule_changes"]

#: the member of a scheduled event's stored data that re-arms it: ``{key, rule, due}`` (``due``: the event
#: fields that hold the occurrence's time); taken off before the event is published
REPEAT = "_repeat"


@dataclass(frozen=True, slots=True)
class ToSchedule:
    """One event to schedule: its key, data and due time (epoch ms)."""

    key: str
    data: dict[str, Any]
    due_ms: int


@dataclass(frozen=True, slots=True)
class ScheduleChanges:
    """What one call changes: events to schedule, keys to unschedule (sorted), and whether it was a create."""

    kind: str
    schedule: tuple[ToSchedule, ...] = ()
    unschedule: tuple[str, ...] = ()
    created: bool = False


def _key(spec: Any, fields: Mapping[str, Any]) -> str | None:
    values = {f: fields.get(f) for f in spec.key_fields}
    if not all(v not in (None, "") for v in values.values()):
        return None
    return spec.key.format_map(values)


def schedule_changes(spec: Any, params: Mapping[str, Any], output: Mapping[str, Any], *, session_id: str,
                     zone: str) -> ScheduleChanges | None:
    """The schedule changes of one successful call of a tool with a scheduled side.

    :param spec: the descriptor's ``schedules`` (``kind``, ``action``, ``create``, ``cancel``, ``items``,
        ``key``, ``key_fields``, ``due``, ``data``, ``cancelled``).
    :param params: the call's input; :param output: its structured output.
    :param zone: IANA zone of a ``due`` without an offset (the device zone).
    :return: None when the call neither creates nor cancels. An item without its key fields, or whose
        ``due`` is not an ISO 8601 time, is left out.
    """
    action = params.get(spec.action)
    items = [r for r in output.get(spec.items) or () if isinstance(r, Mapping)]
    if action == spec.create:
        out = []
        for r in items:
            key = _key(spec, r)
            try:
                due = datetime.fromisoformat(str(r.get(spec.due)))
            except ValueError:
                continue
            if key is None:
                continue
            if due.tzinfo is None:
                due = due.replace(tzinfo=ZoneInfo(zone))
            data = {name: r.get(field) for name, field in spec.data.items()} | {"session_id": session_id}
            rule = r.get(spec.repeat) if spec.repeat else None
            if isinstance(rule, Mapping):
                try:
                    Rule.from_json(rule)
                except BadRule:
                    rule = None  # an unreadable rule: the item fires once, as a one-off
            if isinstance(rule, Mapping):
                data[REPEAT] = {"key": key, "rule": dict(rule),
                                "due": sorted(name for name, field in spec.data.items() if field == spec.due)}
            out.append(ToSchedule(key, data, int(due.timestamp() * 1000)))
        return ScheduleChanges(spec.kind, schedule=tuple(out), created=True)
    if action == spec.cancel:
        keys = {_key(spec, r) for r in items if all(r.get(k) == v for k, v in spec.cancelled.items())}
        keys.add(_key(spec, params))
        return ScheduleChanges(spec.kind, unschedule=tuple(sorted(k for k in keys if k)))
    return None


def next_occurrence(data: Mapping[str, Any], now_ms: int) -> ToSchedule | None:
    """The next event of a repeating series whose event (stored ``data``, with :data:`REPEAT`) fired.

    :param now_ms: when it fired (epoch ms): the next occurrence is the first strictly after it, so a
        series missed over several periods (the daemon was down) fires once, then goes on.
    :return: the event to schedule under the same key, its time fields rewritten (the zone's wall clock,
        RFC 3339 with offset); None for a one-off, an unreadable rule, or a series that has ended.
    """
    repeat = data.get(REPEAT)
    if not isinstance(repeat, Mapping) or not repeat.get("key"):
        return None
    try:
        rule = Rule.from_json(repeat.get("rule") or {})
    except BadRule:
        return None
    upcoming = next_after(rule, datetime.fromtimestamp(now_ms / 1000, timezone.utc))
    if upcoming is None:
        return None
    at = upcoming[1].astimezone(rule.zone)
    fields = {name: at.isoformat(timespec="seconds") for name in repeat.get("due") or ()}
    return ToSchedule(str(repeat["key"]), dict(data) | fields, int(at.timestamp() * 1000))
