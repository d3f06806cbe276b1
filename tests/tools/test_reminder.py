"""The reminder tool in its sandbox, and the office pack's reminder rules driving it.

The rules are run the way the session runs them (rule engine → executor → real tool), with the
turn context the session builds: ``entities.when`` (the datetime entity), ``entities.task``
(:func:`hermesd.nlu.task.task_text`), ``session.tz``, ``session.now`` and
``session.reminders.default_time`` (config ``reminders.default_time``).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from hermesd.dialogue.reminders import topic_of
from hermesd.nlu.normalize import normalize
from hermesd.nlu.parser import detect_lang
from hermesd.nlu.task import strip_request
from hermesd.nlu.temporal import parse_times
from hermesd.session.grounding import Grounding
from hermesd.rules.loader import load_rules
from hermesd.session.executor import Executor, Failure, Finished, Suspend

SH = ZoneInfo("Asia/Shanghai")
WED = datetime(2026, 11, 25, 10, 0, tzinfo=SH)  # a Wednesday
RULES = Path(__file__).parents[2] / "config" / "rules"


@pytest.fixture(scope="module")
def engine():
    return load_rules(RULES).engine


async def _call(svc, params):
    r = await svc.call("reminder", params, role="user")
    return r


# ---- the tool ------------------------------------------------------------------------------------
async def test_a_day_without_a_time_is_due_at_the_default_time(pack_service):
    r = await _call(pack_service, {"action": "create", "text": "交报告", "due": "2026-11-27", "default_time": "09:30",
                                   "tz": "Asia/Shanghai"})
    item = r["output"]["reminders"][0]
    assert item["due"] == "2026-11-27T09:30:00+08:00" and item["time_given"] is False and item["time"] == "09:30"
    # without default_time: 09:00
    r = await _call(pack_service, {"action": "create", "text": "x", "due": "2026-11-28", "tz": "Europe/Berlin"})
    assert r["output"]["reminders"][0]["due"] == "2026-11-28T09:00:00+01:00"


async def test_list_is_pending_only_in_due_order_and_fired_ones_drop_out(pack_service):
    for text, due in [("c", "2026-11-27T15:00:00+08:00"), ("a", "2026-11-26T08:00:00+08:00"),
                      ("b", "2026-11-26T07:00:00+00:00")]:
        await _call(pack_service, {"action": "create", "text": text, "due": due})
    listed = (await _call(pack_service, {"action": "list"}))["output"]
    assert [i["text"] for i in listed["reminders"]] == ["a", "b", "c"] and listed["count"] == 3
    listed = (await _call(pack_service, {"action": "list", "now": "2026-11-26T16:00:00+08:00"}))["output"]
    assert [i["text"] for i in listed["reminders"]] == ["c"]
    # fired is remembered: an earlier "now" does not bring them back
    listed = (await _call(pack_service, {"action": "list", "now": "2026-11-20T12:00:00+08:00"}))["output"]
    assert [i["text"] for i in listed["reminders"]] == ["c"]


async def test_a_reference_time_ahead_of_the_clock_rings_nothing_early(pack_service):
    """A caller's "now" in the future (hermesctl say --at, a client's reference_time) reads that day; a
    reminder the daemon's clock has not rung yet stays pending (it was marked fired 8 hours early)."""
    soon = (datetime.now(SH) + timedelta(hours=2)).replace(microsecond=0)
    await _call(pack_service, {"action": "create", "text": "测试甲", "due": soon.isoformat()})
    later = (soon + timedelta(days=3)).isoformat()
    listed = (await _call(pack_service, {"action": "list", "now": later}))["output"]
    assert "测试甲" in [i["text"] for i in listed["reminders"] if i["status"] == "pending"]


async def test_list_and_cancel_by_range(pack_service):
    for text, due in [("a", "2026-11-26T08:00:00+08:00"), ("b", "2026-11-26T20:00:00+08:00"),
                      ("c", "2026-11-27T08:00:00+08:00")]:
        await _call(pack_service, {"action": "create", "text": text, "due": due})
    day = {"since": "2026-11-27", "until": "2026-11-28", "tz": "Asia/Shanghai"}
    assert [i["text"] for i in (await _call(pack_service, {"action": "list", **day}))["output"]["reminders"]] == ["c"]
    both = {"since": "2026-11-26", "until": "2026-11-27", "tz": "Asia/Shanghai"}
    r = await _call(pack_service, {"action": "cancel", **both})
    assert not r["ok"] and r["error"]["code"] == "AMBIGUOUS" and " a" in r["error"]["message"]
    r = await _call(pack_service, {"action": "cancel", **day})
    assert r["ok"] and r["output"]["reminders"][0]["status"] == "cancelled"
    r = await _call(pack_service, {"action": "list", "expect": "some", **day})
    assert r["error"]["code"] == "NOT_FOUND"


async def _series(svc, due, every, unit, tz="Asia/Shanghai", **more):
    r = await _call(svc, {"action": "create", "text": more.pop("text", "开会"), "due": due, "tz": tz,
                          "recurrence": {"every": {"n": every, "unit": unit}, **more}})
    assert r["ok"], r
    return r["output"]["reminders"][0]


async def _pending(svc, rid, now):
    r = await _call(svc, {"action": "list", "id": rid, "now": now, "expect": "one"})
    return r["output"]["reminders"][0] if r["ok"] else r["error"]["code"]


async def test_a_weekday_set_goes_on_to_its_next_day_and_a_long_outage_rings_once(pack_service):
    """Every Monday, Wednesday and Friday at 15:00 from Monday 2 November (all before the real clock)."""
    item = await _series(pack_service, "2026-11-02T15:00:00+08:00", 1, "week", days=[1, 3, 5])
    assert (item["every_zh"], item["every_en"]) == ("每周一、三、五 15:00", "every Monday, Wednesday and Friday at 15:00")
    assert item["repeat"]["days"] == [1, 3, 5] and item["due"] == "2026-11-02T15:00:00+08:00"
    nxt = await _pending(pack_service, item["id"], "2026-11-04T16:00:00+08:00")  # Wednesday's has rung
    assert nxt["due"] == "2026-11-06T15:00:00+08:00" and nxt["status"] == "pending"
    assert nxt["repeats_zh"] == "（每周一、三、五 15:00）"
    # two weeks without a call: the series goes on from the next to come, not from each one missed
    nxt = await _pending(pack_service, item["id"], "2026-11-20T12:00:00+08:00")
    assert nxt["due"] == "2026-11-20T15:00:00+08:00"


async def test_a_series_ends_after_its_count_or_its_last_day(pack_service):
    twice = await _series(pack_service, "2026-11-10T08:00:00+08:00", 1, "day", count=2)
    assert (await _pending(pack_service, twice["id"], "2026-11-10T09:00:00+08:00"))["due"] == "2026-11-11T08:00:00+08:00"
    assert await _pending(pack_service, twice["id"], "2026-11-11T09:00:00+08:00") == "NOT_FOUND"
    # until a day: that day's occurrence is the last one
    weekly = await _series(pack_service, "2026-11-02T09:00:00+08:00", 1, "week", until="2026-11-16")
    assert (await _pending(pack_service, weekly["id"], "2026-11-10T09:00:00+08:00"))["due"] == "2026-11-16T09:00:00+08:00"
    assert await _pending(pack_service, weekly["id"], "2026-11-16T10:00:00+08:00") == "NOT_FOUND"


async def test_the_31st_of_every_month_is_the_last_day_of_a_short_one_on_the_wall_clock(pack_service):
    item = await _series(pack_service, "2026-01-31T09:00:00-05:00", 1, "month", tz="America/New_York")
    assert item["every_en"] == "every month on the 31st at 09:00"
    assert (await _pending(pack_service, item["id"], "2026-02-01T00:00:00-05:00"))["due"] == "2026-02-28T09:00:00-05:00"
    # across the spring change: still 09:00 in New York
    assert (await _pending(pack_service, item["id"], "2026-03-01T00:00:00-05:00"))["due"] == "2026-03-31T09:00:00-04:00"
    assert (await _pending(pack_service, item["id"], "2026-04-01T00:00:00-04:00"))["due"] == "2026-04-30T09:00:00-04:00"


async def test_a_series_whose_first_time_has_gone_starts_at_the_next_and_cancel_ends_it(pack_service):
    item = await _series(pack_service, "2026-11-02T08:00:00+08:00", 1, "day", text="吃药")
    r = await _call(pack_service, {"action": "create", "text": "吃药", "due": "2026-11-02T08:00:00+08:00",
                                   "tz": "Asia/Shanghai", "now": "2026-11-03T09:00:00+08:00",
                                   "recurrence": {"every": {"n": 1, "unit": "day"}}})
    assert r["output"]["reminders"][0]["due"] == "2026-11-04T08:00:00+08:00"
    r = await _call(pack_service, {"action": "cancel", "id": item["id"]})
    assert r["ok"] and r["output"]["reminders"][0]["status"] == "cancelled"
    assert await _pending(pack_service, item["id"], "2026-11-30T09:00:00+08:00") == "NOT_FOUND"
    # a fraction of a minute names no schedule it can keep
    r = await _call(pack_service, {"action": "create", "text": "x", "due": "2026-11-02T08:00:00+08:00",
                                   "tz": "Asia/Shanghai", "recurrence": {"every": {"n": 0.5, "unit": "minute"}}})
    assert r["error"]["code"] == "MISSING_FIELD"


# ---- the rules -----------------------------------------------------------------------------------
def _ctx(text: str, ref: datetime, memory: dict | None = None) -> dict:
    """The turn context the session builds for a reminder utterance."""
    times = parse_times(text, ref, SH)
    entities = {}
    if times:  # a recurrence is the entity "every" (config/intents/office.yaml reminder.set slots)
        entities["every" if times[0].kind == "recurrence" else "when"] = times[0].to_dict()
    task = strip_request(text, [sp for x in times for sp in x.spans])
    if task is not None:
        entities["task"] = task
    return {"role": "user", "slots": {}, "entities": entities, "memory": dict(memory or {}),
            "session": {"utterance": text, "locale": detect_lang(text), "tz": "Asia/Shanghai",
                        "now": ref.isoformat(), "reminders": {"default_time": "09:00"}}}


async def _run(engine, svc, intent: str, text: str, ref: datetime, memory: dict | None = None,
               when_flags: dict | None = None):
    ctx = _ctx(text, ref, memory)
    if intent in ("reminder.cancel", "reminder.change"):  # the topic, as session/grounding.py reads it
        norm = normalize(text)
        topic = topic_of(norm.text, [norm.nspan(*sp) for x in parse_times(text, ref, SH) for sp in x.spans])
        if topic:
            ctx["entities"]["topic"] = topic
    if when_flags:  # the time slot as session/grounding.py gives it (day_named, half_named, window_end)
        ctx["entities"]["when"] = {**Grounding.time_value(ctx["entities"]["when"]), **when_flags}
    plan = engine.match(intent, ctx)

    async def call(name, params):
        return await svc.call(name, params, role="user")

    ex = Executor(call, lambda name: (False, False), ctx["session"]["locale"])
    result = await ex.run(plan.actions, ctx)
    return plan, ex, ctx, result


# the reply names the task, the time, and (only when no clock time was said: a day, or a part of the
# day) that the default time was used
@pytest.mark.parametrize("text,rule,due,says", [
    ("提醒我周五交报告", "reminder.set.day", "2026-11-27T09:00:00+08:00", ["周五", "09:00", "交报告", "没说几点，按默认时间"]),
    ("remind me on Friday to submit the report", "reminder.set.day", "2026-11-27T09:00:00+08:00",
     ["Friday", "09:00", "submit the report", "no time given, so I used the default"]),
    ("明天下午三点提醒我开会", "reminder.set", "2026-11-26T15:00:00+08:00", ["明天下午三点", "开会"]),
    ("remind me to call mom tomorrow at 5pm", "reminder.set", "2026-11-26T17:00:00+08:00", ["tomorrow at 17:00", "call mom"]),
    ("提醒我后天上午给王会计回电话", "reminder.set.part_of_day", "2026-11-27T09:00:00+08:00",
     ["后天上午", "09:00", "给王会计回电话", "没说几点"]),
    ("remind me tomorrow evening to call mum", "reminder.set.part_of_day", "2026-11-26T20:00:00+08:00",
     ["tomorrow evening", "20:00", "call mum", "no clock time given"]),
    # a part of day that does not hold the default time: its middle on the hour, not its first minute
    ("明天下午提醒我交报告", "reminder.set.part_of_day", "2026-11-26T15:00:00+08:00",
     ["明天下午", "15:00", "交报告", "没说几点"]),
    ("3天后提醒我续费", "reminder.set.day", "2026-11-28T09:00:00+08:00", ["09:00", "续费", "没说几点"]),
])
async def test_set_stores_the_task_at_the_right_time(engine, pack_service, text, rule, due, says):
    plan, _, _, result = await _run(engine, pack_service, "reminder.set", text, WED)
    assert plan.rule_id == rule and isinstance(result, Finished), result
    (tool, params, out), = result.tool_results
    item = out["reminders"][0]
    assert item["due"] == due and item["text"] == _ctx(text, WED)["entities"]["task"]
    (reply,) = result.texts
    assert all(w in reply for w in says), reply
    # a day or a part of the day without a clock time: the reply says the time is a default
    assert ("默认" in reply or "default" in reply) == (rule != "reminder.set")
    assert text not in reply  # the task, not the whole utterance
    assert result.remembered[0][0] == "last_reminder" and result.remembered[0][1]["text"] == item["text"]


# a recurrence (asked on Wednesday 25 November at 10:00): the series is set, and the reply says its schedule as
# the tool reads it, the first day, and (without a clock time) that the default time was used
@pytest.mark.parametrize("text,rule,due,says", [
    ("每周一三五下午3点提醒我开会", "reminder.set.recurring", "2026-11-25T15:00:00+08:00", ["每周一、三、五 15:00", "开会", "从今天开始"]),
    ("remind me every Monday at 9am to send the report", "reminder.set.recurring", "2026-11-30T09:00:00+08:00",
     ["every Monday at 09:00", "starting 30 Nov", "send the report"]),
    ("工作日早上7点提醒我起床", "reminder.set.recurring", "2026-11-26T07:00:00+08:00", ["每个工作日 07:00", "起床", "从明天开始"]),
    ("每天早上8点提醒我吃药", "reminder.set.recurring", "2026-11-26T08:00:00+08:00", ["每天 08:00", "吃药"]),
    ("remind me every day at 8am to take my pills", "reminder.set.recurring", "2026-11-26T08:00:00+08:00",
     ["every day at 08:00", "starting tomorrow", "take your pills"]),
    ("每周一提醒我交报告", "reminder.set.recurring.day", "2026-11-30T09:00:00+08:00", ["每周一 09:00", "交报告", "没说几点"]),
    ("remind me every monday to water the plants", "reminder.set.recurring.day", "2026-11-30T09:00:00+08:00",
     ["every Monday at 09:00", "water the plants", "used the default"]),
    ("每天早上提醒我吃药", "reminder.set.recurring.part_of_day", "2026-11-26T09:00:00+08:00", ["每天 09:00", "吃药", "没说几点"]),
    ("每天提醒我喝水", "reminder.set.recurring.now", "2026-11-26T09:00:00+08:00", ["每天 09:00", "喝水", "没说几点"]),
    ("remind me daily to drink water", "reminder.set.recurring.now", "2026-11-26T09:00:00+08:00",
     ["every day at 09:00", "drink water", "used the default"]),
    ("每隔5分钟提醒我喝水", "reminder.set.recurring.interval", "2026-11-25T10:05:00+08:00", ["每5分钟", "喝水", "10:05"]),
    ("remind me every hour to stretch", "reminder.set.recurring.interval", "2026-11-25T11:00:00+08:00",
     ["every hour", "stretch", "11:00"]),
])
async def test_a_recurrence_sets_a_series_and_says_its_schedule(engine, pack_service, text, rule, due, says):
    plan, _, _, result = await _run(engine, pack_service, "reminder.set", text, WED)
    assert plan.rule_id == rule and isinstance(result, Finished), result
    (tool, params, out), = result.tool_results
    item = out["reminders"][0]
    assert item["due"] == due and item["repeat"]["start"] == due, item
    (reply,) = result.texts
    assert all(w in reply for w in says), reply
    assert ("默认" in reply or "default" in reply or "picked" in reply) == (
        rule not in ("reminder.set.recurring", "reminder.set.recurring.interval"))
    assert "不能" not in reply and "can't" not in reply


# a recurrence said as people say it: the clock time apart from its 每天 / daily, a set of weekdays in English, an end
# (RFC 5545 UNTIL, inclusive) said anywhere; the series keeps the end and the reply says it
THU = datetime(2026, 12, 3, 10, 0, tzinfo=SH)


@pytest.mark.parametrize("text,ref,due,days,until,says", [
    ("set a daily reminder at 8am to stretch", THU, "2026-12-04T08:00:00+08:00", [], None,
     ["every day at 08:00", "starting tomorrow", "to stretch"]),
    ("every weekday at 7am take my pills", THU, "2026-12-04T07:00:00+08:00", [1, 2, 3, 4, 5], None,
     ["every weekday at 07:00", "take your pills"]),
    ("早上八点每天提醒我吃药", THU, "2026-12-04T08:00:00+08:00", [], None, ["每天 08:00", "提醒你吃药", "从明天开始"]),
    ("remind me to call the team every Monday at 9 until Friday the 18th", THU, "2026-12-07T09:00:00+08:00", [],
     "2026-12-19T00:00:00+08:00", ["every Monday at 09:00", "starting 7 Dec until 18 Dec", "call the team"]),
    ("每天早上八点提醒我吃药，到月底为止", THU, "2026-12-04T08:00:00+08:00", [], "2027-01-01T00:00:00+08:00",
     ["每天 08:00 提醒你吃药", "从明天开始，到12月31日为止"]),
    # said on a month's last day: its evening is the only one
    ("每天晚上九点提醒我吃药，到月底为止", datetime(2026, 11, 30, 10, 0, tzinfo=SH), "2026-11-30T21:00:00+08:00", [],
     "2026-12-01T00:00:00+08:00", ["每天 21:00", "到11月30日为止"]),
    # an end in the next year says its year
    ("每周一早上九点提醒我开周会，持续到1月底", THU, "2026-12-07T09:00:00+08:00", [], "2027-02-01T00:00:00+08:00",
     ["每周一 09:00", "到2027年1月31日为止", "开周会"]),
    # a week's end: asked on Sunday night, the first weekday is Monday
    ("remind me every weekday at 7am to take my pills", datetime(2026, 11, 29, 22, 0, tzinfo=SH),
     "2026-11-30T07:00:00+08:00", [1, 2, 3, 4, 5], None, ["every weekday at 07:00", "starting tomorrow"]),
])
async def test_a_recurrence_said_in_any_order_with_an_end_is_set_as_said(engine, pack_service, text, ref, due, days,
                                                                          until, says):
    plan, _, ctx, result = await _run(engine, pack_service, "reminder.set", text, ref)
    assert plan.rule_id == "reminder.set.recurring" and isinstance(result, Finished), (plan.rule_id, result)
    item = result.tool_results[0][2]["reminders"][0]
    assert item["due"] == due and item["repeat"]["days"] == days and item["repeat"]["until"] == until, item
    assert item["text"] == ctx["entities"]["task"]
    (reply,) = result.texts
    assert all(w in reply for w in says), reply


async def test_an_end_is_inclusive_and_listed_and_the_series_stops_after_it(pack_service):
    item = await _series(pack_service, "2026-11-28T08:00:00+08:00", 1, "day", text="吃钙片", until="2026-11-30")
    assert item["every_zh"] == "每天 08:00，到11月30日为止" and item["every_en"] == "every day at 08:00 until 30 Nov"
    assert item["repeats_zh"] == "（每天 08:00，到11月30日为止）"
    # the last day still rings (RFC 5545 UNTIL is inclusive), then the series has ended
    assert (await _pending(pack_service, item["id"], "2026-11-29T09:00:00+08:00"))["due"] == "2026-11-30T08:00:00+08:00"
    assert await _pending(pack_service, item["id"], "2026-11-30T09:00:00+08:00") == "NOT_FOUND"
    # an instant end: its own occurrence rings too
    hourly = await _series(pack_service, "2026-11-28T15:00:00+08:00", 1, "hour", text="喝水",
                           until="2026-11-28T17:00:00+08:00")
    assert hourly["every_en"] == "every hour until 17:00" and hourly["every_zh"] == "每小时，到17:00为止"
    assert (await _pending(pack_service, hourly["id"], "2026-11-28T16:30:00+08:00"))["due"] == "2026-11-28T17:00:00+08:00"
    assert await _pending(pack_service, hourly["id"], "2026-11-28T17:30:00+08:00") == "NOT_FOUND"


async def test_cancelling_a_series_by_its_topic_confirms_and_ends_it(engine, pack_service):
    """"cancel the pills reminder" / "取消吃药的提醒" on a repeating one: one confirmation naming it and its schedule,
    then the whole series is cancelled."""
    for set_text, cancel_text, shown in [
            ("every weekday at 7am take my blood pressure pills", "cancel the blood pressure pills reminder",
             "(every weekday at 07:00)"),
            ("每天早上八点提醒我吃钙片，到月底为止", "取消吃钙片的提醒", "（每天 08:00，到12月31日为止）")]:
        await _run(engine, pack_service, "reminder.set", set_text, THU)
        plan, ex, ctx, result = await _run(engine, pack_service, "reminder.cancel", cancel_text, THU)
        assert plan.rule_id == "reminder.cancel.about" and isinstance(result, Suspend), (plan.rule_id, result)
        assert shown in result.prompt, result.prompt
        done = await ex.run(plan.actions, ctx, start=result.index, confirmed=result.index, steps=ctx["steps"])
        assert isinstance(done, Finished) and done.tool_results[-1][2]["reminders"][0]["status"] == "cancelled"
        assert "repeating" in done.texts[0] or "重复提醒" in done.texts[0], done.texts


async def test_the_31st_of_every_month_is_set_when_placed_and_never_moved_to_another_day(engine, pack_service):
    plan, _, _, result = await _run(engine, pack_service, "reminder.set", "每个月31号提醒我交房租",
                                    datetime(2026, 12, 1, 10, 0, tzinfo=SH))
    assert plan.rule_id == "reminder.set.recurring.day", plan.rule_id
    assert result.tool_results[0][2]["reminders"][0]["due"] == "2026-12-31T09:00:00+08:00"
    assert "每月31日 09:00" in result.texts[0]
    # asked in November (no 31st), the NLU gives no first day: nothing is set on the 25th instead
    plan, _, _, result = await _run(engine, pack_service, "reminder.set", "每个月31号提醒我交房租", WED)
    assert plan.rule_id in ("reminder.set.recurring.day", "reminder.set.recurring.unplaced"), plan.rule_id
    if plan.rule_id == "reminder.set.recurring.unplaced":
        assert result.tool_results == [] and "没有设置" in result.texts[0]


async def test_listing_shows_the_schedule_and_cancelling_ends_the_series(engine, pack_service):
    await _run(engine, pack_service, "reminder.set", "每周一三五下午3点提醒我开会", WED)
    await _run(engine, pack_service, "reminder.set", "明天下午三点提醒我交报告", WED)
    _, _, _, listed = await _run(engine, pack_service, "reminder.list", "我有哪些提醒", WED)
    items = listed.tool_results[0][2]["reminders"]  # the tool's reply lines: '{due | datetime} {text}{repeats_zh}'
    assert [(i["text"], i["repeats_zh"]) for i in items] == [("开会", "（每周一、三、五 15:00）"), ("交报告", "")]
    r = await pack_service.call("reminder", {"action": "cancel", "about": "开会"}, role="user")
    assert r["ok"] and r["output"]["reminders"][0]["status"] == "cancelled"
    listed = (await pack_service.call("reminder", {"action": "list", "about": "开会"}, role="user"))["output"]
    assert listed["count"] == 0


async def test_set_without_a_task_asks_for_it(engine, pack_service):
    plan, _, _, result = await _run(engine, pack_service, "reminder.set", "set a reminder for tomorrow morning", WED)
    assert plan.rule_id == "reminder.set.ask_task" and isinstance(result, Suspend) and result.slot == "task"
    assert not result.tool_results


async def test_list_with_a_time_filters_and_fired_ones_are_gone(engine, pack_service):
    for text in ["明天下午三点提醒我开会", "提醒我周五交报告", "今天上午11点提醒我订会议室"]:
        await _run(engine, pack_service, "reminder.set", text, WED)
    plan, _, _, result = await _run(engine, pack_service, "reminder.list", "明天有什么提醒", WED)
    assert plan.rule_id == "reminder.list.when"
    assert [i["text"] for i in result.tool_results[0][2]["reminders"]] == ["开会"]
    plan, _, _, result = await _run(engine, pack_service, "reminder.list", "我有哪些提醒", WED + timedelta(hours=2))
    assert plan.rule_id == "reminder.list"
    assert [i["text"] for i in result.tool_results[0][2]["reminders"]] == ["开会", "交报告"]  # 订会议室 fired at 11:00


async def test_cancel_that_reminder_confirms_once_naming_the_task(engine, pack_service):
    _, _, _, made = await _run(engine, pack_service, "reminder.set", "明天下午三点提醒我开会", WED)
    memory = {"last_reminder": made.remembered[0][1]}
    plan, ex, ctx, result = await _run(engine, pack_service, "reminder.cancel", "取消那个提醒", WED, memory)
    assert plan.rule_id == "reminder.cancel.last" and isinstance(result, Suspend) and result.kind == "confirm"
    assert "“开会”" in result.prompt and "取消那个提醒" not in result.prompt
    done = await ex.run(plan.actions, ctx, start=result.index, confirmed=result.index, steps=ctx["steps"])
    assert isinstance(done, Finished) and len(done.texts) == 1 and "开会" in done.texts[0]
    assert [t[1]["action"] for t in done.tool_results] == ["cancel"]  # no second confirmation
    # again: it is no longer pending, and the answer says so without asking
    plan, ex, ctx, result = await _run(engine, pack_service, "reminder.cancel", "cancel that reminder", WED, memory)
    assert isinstance(result, Failure) and result.code == "NOT_FOUND"
    undo = await ex.compensate(plan.compensation(result.index), ctx)
    (said,) = undo.texts
    assert "开会" in said and "gone off" in said


async def test_cancel_with_a_time_takes_the_one_due_then_or_asks_which(engine, pack_service):
    for text in ["明天下午三点提醒我开会", "明天晚上8点提醒我吃药", "提醒我周五交报告"]:
        await _run(engine, pack_service, "reminder.set", text, WED)
    plan, ex, ctx, result = await _run(engine, pack_service, "reminder.cancel", "取消周五的提醒", WED)
    assert plan.rule_id == "reminder.cancel.when" and isinstance(result, Suspend)
    assert "“交报告”" in result.prompt
    plan, ex, ctx, result = await _run(engine, pack_service, "reminder.cancel", "取消明天的提醒", WED)
    assert isinstance(result, Failure) and result.code == "AMBIGUOUS"
    undo = await ex.compensate(plan.compensation(result.index), ctx)
    (said,) = undo.texts
    assert said.startswith("明天有 2") and "开会" in said and "吃药" in said and "要取消哪一个" in said


async def test_a_time_named_for_a_repeating_one_says_one_time_cannot_be_skipped(engine, pack_service):
    """"取消今天的提醒" on a series due today: skipping one occurrence is not supported, and the question says
    so before the whole series is cancelled (never a series cancelled as if it were one time)."""
    await _run(engine, pack_service, "reminder.set", "每周一三五下午3点提醒我开会", WED)
    plan, _, _, result = await _run(engine, pack_service, "reminder.cancel", "取消今天的提醒", WED)
    assert plan.rule_id == "reminder.cancel.when" and isinstance(result, Suspend), result
    assert "不能只跳过其中一次" in result.prompt and "每周一、三、五 15:00" in result.prompt, result.prompt


async def test_moving_a_repeating_one_changes_nothing_and_says_so(engine, pack_service):
    """"提醒改到9点" right after a series was set: a one-off in its place would silently end the series."""
    _, _, _, made = await _run(engine, pack_service, "reminder.set", "每天早上8点提醒我吃药", WED)
    series = made.tool_results[0][2]["reminders"][0]
    flags = {"day_named": False, "half_named": False}
    plan, _, _, result = await _run(engine, pack_service, "reminder.change", "提醒改到9点", WED,
                                    memory={"last_reminder": series}, when_flags=flags)
    # said before any tool runs (reminder.change.last.repeating); the tool itself refuses such a move with REPEATING
    assert plan.rule_id == "reminder.change.last.repeating" and isinstance(result, Finished), result
    assert "重复提醒" in result.texts[0] and "没有改动任何提醒" in result.texts[0] and not result.tool_results, result
    moved = await pack_service.call("reminder", {"action": "create", "text": "吃药", "due": "2026-11-26T09:00:00+08:00",
                                                 "replaces": series["id"], "tz": "Asia/Shanghai",
                                                 "now": WED.isoformat()}, role="user")
    assert not moved["ok"] and moved["error"]["code"] == "REPEATING", moved  # the tool refuses it on its own too
    left = (await pack_service.call("reminder", {"action": "list"}, role="user"))["output"]["reminders"]
    assert [(i["id"], i["due"]) for i in left] == [(series["id"], "2026-11-26T08:00:00+08:00")]
    # a one-off still moves
    _, _, _, once = await _run(engine, pack_service, "reminder.set", "明天下午三点提醒我开会", WED)
    plan, _, _, result = await _run(engine, pack_service, "reminder.change", "提醒改到4点", WED,
                                    memory={"last_reminder": once.tool_results[0][2]["reminders"][0]}, when_flags=flags)
    assert isinstance(result, Finished) and "16:00" in result.texts[0], result
