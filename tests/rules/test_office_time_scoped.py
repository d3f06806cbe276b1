"""Every office rule whose intent carries a datetime passes its resolved range on (listing, export,
recall), and without one nothing is narrowed by accident. Rules are run as the session runs them."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from hermesd.nlu.parser import detect_lang
from hermesd.nlu.temporal import parse_times
from hermesd.rules.loader import load_rules
from hermesd.session.executor import Executor

SH = ZoneInfo("Asia/Shanghai")
REF = datetime(2026, 11, 25, 10, 0, tzinfo=SH)  # a Wednesday
RULES = Path(__file__).parents[2] / "config" / "rules"


@pytest.fixture(scope="module")
def engine():
    return load_rules(RULES).engine


def _run(engine, intent: str, text: str, extra: dict | None = None):
    times = parse_times(text, REF, SH)
    entities = {"when": times[0].to_dict()} if times else {}
    entities.update(extra or {})
    ctx = {"role": "user", "slots": {}, "entities": entities, "memory": {},
           "session": {"utterance": text, "locale": detect_lang(text), "tz": "Asia/Shanghai", "now": REF.isoformat(),
                       "reminders": {"default_time": "09:00"}}}
    plan = engine.match(intent, ctx)
    recalls, calls = [], []

    async def recall(params):
        recalls.append(params)
        return {"items": [{"object": "报价单Q-1.pdf", "at": "2026-11-24 15:00"}], "count": 1}

    async def call(name, params):
        calls.append((name, params))
        return {"ok": True, "output": {"reminders": [], "count": 0, "file": "x.csv", "rows": 1}}

    ex = Executor(call, lambda name: (False, False), ctx["session"]["locale"], recall=recall)
    result = asyncio.run(ex.run(plan.actions, ctx))
    return plan, recalls, calls, result


@pytest.mark.parametrize("text,since,until", [
    ("what did I send yesterday", "2026-11-24", "2026-11-25"),
    ("昨天发了什么", "2026-11-24", "2026-11-25"),
    ("我上周发了哪些文件", "2026-11-16", "2026-11-23"),
    ("what did i send last week", "2026-11-16", "2026-11-23"),
])
def test_list_sent_with_a_time_recalls_only_that_range(engine, text, since, until):
    plan, recalls, _, result = _run(engine, "doc.list_sent", text)
    assert plan.rule_id == "doc.list_sent.when"
    assert [(r["since"], r["until"]) for r in recalls] == [(since, until)]
    assert result.texts and "报价单Q-1.pdf" in result.texts[0]


def test_list_sent_to_a_person_with_a_time(engine):
    plan, recalls, _, _ = _run(engine, "doc.list_sent", "昨天给张工发过什么", {"person": "张工"})
    assert plan.rule_id == "doc.list_sent.to_person.when"
    assert recalls[0]["person"] == "张工" and recalls[0]["since"] == "2026-11-24"


def test_list_sent_without_a_time_is_not_narrowed(engine):
    plan, recalls, _, _ = _run(engine, "doc.list_sent", "查一下发送记录")
    assert plan.rule_id == "doc.list_sent" and "since" not in recalls[0]


def test_export_passes_the_range(engine):
    plan, recalls, calls, _ = _run(engine, "report.export", "导出昨天的报表")
    assert plan.rule_id == "report.export"
    assert (recalls[0]["since"], recalls[0]["until"]) == ("2026-11-24", "2026-11-25")
    assert calls[0][1]["title"] == "sent_2026-11-24_2026-11-25"


@pytest.mark.parametrize("text,since,until", [
    ("明天有什么提醒", "2026-11-26", "2026-11-27"),
    ("what reminders do I have this week", "2026-11-23", "2026-11-30"),
    ("明天下午3点有什么提醒", "2026-11-26T15:00:00+08:00", "2026-11-26T16:00:00+08:00"),
])
def test_reminder_list_with_a_time(engine, text, since, until):
    plan, _, calls, _ = _run(engine, "reminder.list", text)
    assert plan.rule_id == "reminder.list.when"
    (name, params), = calls
    assert (params["since"], params["until"], params["tz"]) == (since, until, "Asia/Shanghai")
    assert params["now"] == REF.isoformat()


def test_reminder_list_without_a_time_lists_everything_pending(engine):
    plan, _, calls, _ = _run(engine, "reminder.list", "我有哪些提醒")
    assert plan.rule_id == "reminder.list" and "since" not in calls[0][1] and calls[0][1]["now"] == REF.isoformat()


@pytest.mark.parametrize("text,due", [
    ("月底提醒我交报告", "2026-11-30"),  # the end of the month is its last day, not the 21st
    ("下旬提醒我交报告", "2026-11-21"),  # a third of the month: its first day
    ("月中提醒我交报告", "2026-11-15"),
    ("春节提醒我买票", "2027-02-06"),  # asked in November: the next Spring Festival, not this year's
    ("remind me to call mum on Christmas", "2026-12-25"),
    ("remind me to pay rent at the end of the month", "2026-11-30"),
])
def test_a_reminder_on_a_fuzzy_period_or_a_holiday_is_due_at_its_point(engine, text, due):
    plan, _, calls, _ = _run(engine, "reminder.set", text, {"task": "x"})
    assert plan.rule_id == "reminder.set.day"
    assert [p["due"] for n, p in calls if n == "reminder"] == [due]
