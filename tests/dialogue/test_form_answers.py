"""A reminder form answered in pieces (in-process): answers that say nothing are no task, a time said to the task
question fills the time, and a day and a clock time said in two answers are one time.

- :func:`hermesd.dialogue.reader.says_nothing` / :func:`~hermesd.dialogue.reader.read_answer` on an ``Ask`` for the
  task: "yes", "null", 好的, 嗯 are no value (``unrelated``: the policy asks again once, then drops the form);
  a no declines (``cancel``); words with content are the task (``fill``);
- :func:`hermesd.dialogue.whenjoin.join_when`: 明天 then 下午三点, 下午三点 then 明天, "tomorrow" then "at 3pm" …
  read as one time against the form's reference instant (Asia/Shanghai; week and month ends).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from hermesd.dialogue import policy as dp
from hermesd.dialogue.heard import Heard
from hermesd.dialogue.questions import Ask
from hermesd.dialogue.reader import read_answer, says_nothing
from hermesd.dialogue.whenjoin import join_when
from hermesd.nlu.normalize import normalize
from hermesd.nlu.temporal import parse_times

SH = ZoneInfo("Asia/Shanghai")
TASK = Ask(intent="reminder.set", rule_id="reminder.set.ask_task", index=0, slot="task", entity="task",
           prompt="要提醒你做什么？", entities={"when": {"kind": "date", "grain": "day", "text": "明天"}})


def _heard(raw: str, *, asked: bool = True, **kw) -> Heard:
    """As grounding builds it for the task question: the whole answer is the task value when it holds no time."""
    text = normalize(raw).text
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"
    value = raw.strip() if asked else None
    slots = {"task": value} if value is not None else {}
    slots.update(kw.pop("slot_values", {}))
    return Heard(text=text, lang=lang, intent=kw.pop("intent", None), out_of_scope=kw.pop("out_of_scope", True),
                 slot_values=slots, asked_value=value, rest_chars=kw.pop("rest_chars", 0),
                 mentions=tuple(normalize(m).text for m in kw.pop("mentions", ())), **kw)


@pytest.mark.parametrize("raw", ["yes", "Yes.", "ok", "okay", "sure", "null", "NULL", "n/a", "nil", "undefined",
                                 "nothing", "whatever", "嗯", "嗯嗯", "好的", "好的吧", "是的", "可以", "行", "无", "随便",
                                 "對", "👍", "?", "…"])
def test_an_answer_without_content_is_no_task_and_the_form_asks_once_more_then_drops(raw):
    assert says_nothing(raw)
    r = read_answer(TASK, _heard(raw))
    assert r.act == "unrelated" and "task" not in r.values, r
    assert isinstance(dp.decide(TASK, _heard(raw), r), dp.AskAgain)
    once = replace(TASK, missed=1)
    d = dp.decide(once, _heard(raw), read_answer(once, _heard(raw)))
    assert isinstance(d, dp.Cancel) and d.what == "unread", d


@pytest.mark.parametrize("raw", ["no", "none", "不用了", "不要", "算了", "cancel"])
def test_a_no_to_the_task_question_declines_it(raw):
    r = read_answer(TASK, _heard(raw))
    assert r.act == "cancel" and "task" not in r.values, r


@pytest.mark.parametrize("raw", ["给妈妈打电话", "交周报", "call mom", "yes to the dinner invitation", "take the null test",
                                 "好好学习", "买空调滤网", "无线网卡续费"])
def test_an_answer_with_content_is_the_task(raw):
    assert not says_nothing(raw)
    r = read_answer(TASK, _heard(raw, rest_chars=len(raw)))
    assert r.act == "fill" and r.values == {"task": raw}, r


def test_a_time_said_to_the_task_question_fills_the_time():
    """要提醒你做什么？ answered 下午三点: no task (grounding finds none in a time), the time is taken."""
    when = {"kind": "datetime", "grain": "hour", "text": "下午三点", "start": "2026-12-03T15:00:00+08:00"}
    h = _heard("下午三点", asked=False, slot_values={"when": when}, intent="reminder.set", out_of_scope=False,
               mentions=("下午三点",))
    r = read_answer(TASK, h)
    assert r.act == "fill" and r.values == {"when": when}, r
    # the same time the form has already is no answer: asked again, never a loop of fills
    same = replace(TASK, entities={"when": when})
    assert read_answer(same, h).act != "fill"


# -- a day and a clock time in two answers -------------------------------------------------------------------
THU = datetime(2026, 12, 3, 21, 30, tzinfo=SH)  # a Thursday evening: 下午三点 today has gone
SUN = datetime(2026, 11, 29, 20, 0, tzinfo=SH)  # a week's (and nearly a month's) end
LAST = datetime(2026, 12, 31, 18, 0, tzinfo=SH)  # a year's last day


def _v(text: str, ref: datetime) -> dict:
    (x,) = parse_times(text, ref, SH)
    return x.to_dict()


@pytest.mark.parametrize("first,then,ref,start", [
    ("明天", "下午三点", THU, "2026-12-04T15:00:00+08:00"),
    ("下午三点", "明天", THU, "2026-12-04T15:00:00+08:00"),
    ("tomorrow", "at 3pm", THU, "2026-12-04T15:00:00+08:00"),
    ("at 3pm", "tomorrow", THU, "2026-12-04T15:00:00+08:00"),
    ("周五", "晚上八点", THU, "2026-12-04T20:00:00+08:00"),
    ("Friday", "9am", THU, "2026-12-04T09:00:00+08:00"),
    ("明天", "3点", THU, "2026-12-04T15:00:00+08:00"),  # a bare 3点 on a day named, as 明天3点 reads
    # a week's end: 明天 on Sunday is Monday; 下周一 the Monday after
    ("明天", "早上九点", SUN, "2026-11-30T09:00:00+08:00"),
    ("下周一", "上午十点", SUN, "2026-11-30T10:00:00+08:00"),
    ("next Monday", "at 10am", SUN, "2026-11-30T10:00:00+08:00"),
    # a month's and a year's end
    ("后天", "晚上七点", SUN, "2026-12-01T19:00:00+08:00"),
    ("明天", "早上八点", LAST, "2027-01-01T08:00:00+08:00"),
    ("tomorrow", "8am", LAST, "2027-01-01T08:00:00+08:00"),
])
def test_a_day_and_a_clock_time_in_two_answers_are_one_time(first, then, ref, start):
    joined = join_when(_v(first, ref), _v(then, ref), ref, SH)
    assert joined is not None and joined["start"] == start, joined
    assert joined["grain"] in ("hour", "minute", "part_of_day")


@pytest.mark.parametrize("first,then", [
    ("明天", "后天"),  # a day for a day: the later one replaces it
    ("下午三点", "四点"),  # a clock time for a clock time
    ("明天下午三点", "后天"),  # the first named both
    ("明天", "明天下午三点"),  # the second names its own day
    ("tomorrow", "next Friday"),
])
def test_two_days_or_two_clock_times_are_not_joined(first, then):
    assert join_when(_v(first, THU), _v(then, THU), THU, SH) is None


@pytest.mark.parametrize("clock, start", [
    ("7点", "2026-12-07T19:00:00+08:00"), ("8:30", "2026-12-07T20:30:00+08:00"), ("3点", "2026-12-07T15:00:00+08:00"),
    ("上午10点", "2026-12-07T10:00:00+08:00"), ("晚上7点", "2026-12-07T19:00:00+08:00"), ("9am", "2026-12-07T09:00:00+08:00"),
])
def test_a_bare_hour_joined_with_today_is_the_one_still_to_come(clock, start):
    """今天, then 7点, said at 14:00: 19:00 (a bare hour names no half of the day); a half named is kept as said."""
    from datetime import datetime, timezone

    from hermesd.dialogue.whenjoin import join_when
    from hermesd.nlu.temporal import parse_times

    ref = datetime(2026, 12, 7, 6, 0, tzinfo=timezone.utc)  # 14:00 in Shanghai
    day = parse_times("today" if clock.isascii() else "今天", ref, "Asia/Shanghai")[0].to_dict()
    got = join_when(day, parse_times(clock, ref, "Asia/Shanghai")[0].to_dict(), ref, "Asia/Shanghai")
    assert got is not None and got["start"] == start
