"""tool.yaml ``schedules``: a tool's scheduled side, validated at load against its schemas; and what one
call of such a tool changes in the event schedule (:func:`hermesd.session.schedules.schedule_changes`)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from hermesd.session.schedules import REPEAT, ToSchedule, next_occurrence, schedule_changes
from hermesd.tools.descriptor import DescriptorError, load_descriptor

PACK = Path(__file__).parents[2] / "tools"

BASE = """\
name: alarm
description: an alarm clock
input:
  op: {type: string, enum: [set, drop, show], required: true}
  n: {type: string}
output:
  alarms: {type: array, required: true, items: {type: object}}
  total: {type: integer}
"""

SCHEDULES = """\
schedules:
  kind: reminder
  action: op
  create: set
  cancel: drop
  items: alarms
  key: "alarm:{n}"
  due: at
  data: {label: label}
  cancelled: {gone: true}
"""


def folder(tmp_path: Path, text: str) -> Path:
    d = tmp_path / "alarm"
    d.mkdir()
    (d / "tool.yaml").write_text(text, encoding="utf-8")
    (d / "handler.py").write_text("def handle(input):\n    return {'alarms': []}\n")
    (d / "test_cases.json").write_text(json.dumps([{"name": "x", "input": {"op": "show"},
                                                    "expect": {"keys": ["alarms"]}}]))
    return d


def test_the_reminder_tool_declares_its_scheduled_side():
    desc, _ = load_descriptor(PACK / "reminder")
    s = desc.schedules
    assert s is not None and (s.kind, s.action, s.items, s.key, s.due) == (
        "reminder", "action", "reminders", "reminder:{id}", "due")
    assert s.key_fields == ("id",)
    others = [d.name for d in PACK.iterdir() if (d / "tool.yaml").is_file() and d.name != "reminder"
              and load_descriptor(d)[0].schedules is not None]
    assert others == []


def test_a_declared_side_is_read_and_checked(tmp_path):
    desc, _ = load_descriptor(folder(tmp_path, BASE + SCHEDULES))
    assert desc.schedules.key_fields == ("n",) and desc.schedules.cancelled == {"gone": True}


@pytest.mark.parametrize("change, fragment", [
    (("action: op", "action: verb"), "'verb' is not an input field"),
    (("create: set", "create: make"), "not 'make' and 'drop'"),
    (("items: alarms", "items: total"), "'total' is not an output array"),
    (('key: "alarm:{n}"', 'key: "alarm"'), "must name item fields"),
    (('key: "alarm:{n}"', 'key: "alarm:{n"'), "key template"),
    (("data: {label: label}", "data: {session_id: label}"), "session_id is added"),
    (("kind: reminder", "kind: Reminder!"), "schedules.kind"),
    (("due: at", "due: 'a b'"), "schedules.due"),
])
def test_a_side_that_does_not_fit_the_tool_is_refused(tmp_path, change, fragment):
    with pytest.raises(DescriptorError) as err:
        load_descriptor(folder(tmp_path, BASE + SCHEDULES.replace(*change)))
    assert any(fragment in p for p in err.value.problems), err.value.problems
    assert all(p.startswith(str(tmp_path / "alarm" / "tool.yaml")) for p in err.value.problems)


def test_an_unknown_key_in_schedules_is_refused(tmp_path):
    with pytest.raises(DescriptorError, match="schedules.rrule"):
        load_descriptor(folder(tmp_path, BASE + SCHEDULES + "  rrule: daily\n"))


SPEC = load_descriptor(PACK / "reminder")[0].schedules


def _ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso).timestamp() * 1000)


def test_a_create_schedules_each_listed_item_at_its_due_time():
    out = {"reminders": [{"id": "r1", "text": "call Li", "due": "2026-03-02T15:00:00+08:00", "status": "pending"},
                         {"id": "r2", "text": "pay", "due": "2026-03-03T09:00:00"},  # no offset: device zone
                         {"id": "r3", "text": "bad", "due": "tomorrow"},  # not ISO 8601: left out
                         {"text": "no id", "due": "2026-03-03T09:00:00+00:00"}]}  # no key: left out
    ch = schedule_changes(SPEC, {"action": "create", "text": "x"}, out, session_id="S1", zone="America/New_York")
    assert ch is not None and ch.kind == "reminder" and ch.created and ch.unschedule == ()
    ny = datetime(2026, 3, 3, 9, tzinfo=ZoneInfo("America/New_York"))
    assert ch.schedule == (
        ToSchedule("reminder:r1", {"reminder_id": "r1", "text": "call Li", "due": "2026-03-02T15:00:00+08:00",
                                   "session_id": "S1"}, _ms("2026-03-02T15:00:00+08:00")),
        ToSchedule("reminder:r2", {"reminder_id": "r2", "text": "pay", "due": "2026-03-03T09:00:00",
                                   "session_id": "S1"}, int(ny.timestamp() * 1000)))


def test_a_cancel_unschedules_the_cancelled_items_and_the_id_it_named():
    out = {"reminders": [{"id": "r4", "status": "cancelled"}, {"id": "r5", "status": "pending"}]}
    ch = schedule_changes(SPEC, {"action": "cancel", "id": "r7"}, out, session_id="S1", zone="UTC")
    assert ch is not None and not ch.created and ch.schedule == ()
    assert ch.unschedule == ("reminder:r4", "reminder:r7")
    # by range (no id in the input): only what the output says was cancelled
    ch = schedule_changes(SPEC, {"action": "cancel"}, out, session_id="S1", zone="UTC")
    assert ch.unschedule == ("reminder:r4",)


def test_a_call_that_neither_creates_nor_cancels_changes_nothing():
    out = {"reminders": [{"id": "r1", "due": "2026-03-02T15:00:00+08:00"}]}
    assert schedule_changes(SPEC, {"action": "list"}, out, session_id="S1", zone="UTC") is None


NY_RULE = {"every": 1, "unit": "day", "start": "2026-03-07T08:00:00-05:00", "tz": "America/New_York", "days": [],
           "until": None, "count": 3}


def test_a_repeating_item_is_scheduled_with_what_arms_its_next_occurrence():
    out = {"reminders": [{"id": "r1", "text": "pills", "due": "2026-03-07T08:00:00-05:00", "repeat": NY_RULE},
                         {"id": "r2", "text": "once", "due": "2026-03-07T08:00:00-05:00", "repeat": None},
                         {"id": "r3", "text": "bad rule", "due": "2026-03-07T08:00:00-05:00", "repeat": {"every": 0}}]}
    ch = schedule_changes(SPEC, {"action": "create"}, out, session_id="S1", zone="UTC")
    first, once, bad = ch.schedule
    assert first.data[REPEAT] == {"key": "reminder:r1", "rule": NY_RULE, "due": ["due"]}
    assert REPEAT not in once.data and REPEAT not in bad.data  # a one-off, and a rule that names no schedule
    # fired at 08:00:02 EST: the next is 8 March 08:00 EDT (the wall clock across the change), same key
    nxt = next_occurrence(first.data, _ms("2026-03-07T08:00:02-05:00"))
    assert (nxt.key, nxt.data["due"], nxt.due_ms) == ("reminder:r1", "2026-03-08T08:00:00-04:00",
                                                       _ms("2026-03-08T08:00:00-04:00"))
    assert nxt.data[REPEAT] == first.data[REPEAT] and nxt.data["text"] == "pills"
    # the daemon was down from the 7th to the 8th at noon: the 9th comes next, the 8th is not replayed
    assert next_occurrence(first.data, _ms("2026-03-08T12:00:00-04:00")).data["due"] == "2026-03-09T08:00:00-04:00"
    # count 3: nothing after the third
    assert next_occurrence(first.data, _ms("2026-03-09T08:00:00-04:00")) is None
    assert next_occurrence(once.data, _ms("2026-03-07T08:00:02-05:00")) is None
