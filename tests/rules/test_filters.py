"""Template filters: values a person reads, in zh and en (tables), and their load-time errors."""

from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from hermesd.rules.filters import Style
from hermesd.rules.templating import MissingValue, Template, TemplateSyntaxError

SH = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 6, 13, 15, 30, tzinfo=SH)  # a Saturday afternoon in Shanghai
DEPTS = {"sales": {"zh": "销售部", "en": "Sales"}, "rd": {"zh": "研发部", "en": "R&D"}}
ZH = Style("zh", SH, NOW, DEPTS)
EN = Style("en", SH, NOW, DEPTS)

CTX = {
    "steps": {
        "net": {"online": True, "down": False, "unknown": None},
        "st": {"up": 11_520.4, "short": 45.2, "days": 2 * 86400 + 3 * 3600 + 59, "min": 754, "hour": 3600},
        "disk": {"free_mb": 1536, "small_mb": 230.44, "bytes": 1_610_612_736, "tiny": 512, "kb": 12_595,
                 "pct": 45.25, "whole": 12.0, "load": 0.5234},
        "r": {"items": [
            {"due": "2026-06-14T09:00:00+08:00", "text": "给王会计回电话"},
            {"due": "2026-06-20T01:30:00Z", "text": "交周报"},
            {"due": "2027-01-05", "text": "续签合同"},
        ]},
        "when": {"today": "2026-06-13T18:00:00+08:00", "yesterday": "2026-06-12", "utc": "2026-06-13T23:15:00+00:00",
                 "us": 1_781_336_700_000_000, "naive": "2026-06-15 10:00", "bad": "soon"},
        "names": ["张伟", "李娜", "王芳"], "two": ["A", "B"], "one": ["A"], "none": [],
        "people": [{"name": "张伟", "dept": "sales"}, {"name": "张强", "dept": "rd"}],
        "svc": {"a": "active", "i": "inactive", "f": "failed", "s": "activating", "x": "weird"},
        "order": {"s": "shipped", "d": "Delivered", "t": "in_transit", "x": "held at customs"},
        "dept": {"code": "rd", "other": "legal"},
        "opt": {"empty": "", "null": None},
        "zone": {"london": "Europe/London", "auckland": "Pacific/Auckland", "kathmandu": "Asia/Kathmandu",
                 "bad": "Mars/Olympus", "none": None},
    },
}
for _k in ("role", "slots", "entities", "memory", "session"):
    CTX.setdefault(_k, {})


@pytest.mark.parametrize(("src", "zh", "en"), [
    # booleans as words
    ("{{steps.net.online | yesno}}", "是", "yes"),
    ("{{steps.net.down | yesno}}", "否", "no"),
    ("{{steps.net.online | yesno(在线, 离线)}}", "在线", "在线"),
    ("{{steps.net.down | yesno('up, fully', down)}}", "down", "down"),
    ("{{steps.net.unknown | yesno}}", "未知", "unknown"),
    # durations
    ("{{steps.st.up | duration}}", "3 小时 12 分", "3 h 12 min"),
    ("{{steps.st.short | duration}}", "45 秒", "45 s"),
    ("{{steps.st.min | duration}}", "12 分钟", "12 min"),
    ("{{steps.st.hour | duration}}", "1 小时", "1 h"),
    ("{{steps.st.days | duration}}", "2 天 3 小时", "2 days 3 h"),
    # sizes, one decimal
    ("{{steps.disk.free_mb | size_mb}}", "1.5 GB", "1.5 GB"),
    ("{{steps.disk.small_mb | size_mb}}", "230.4 MB", "230.4 MB"),
    ("{{steps.disk.bytes | size}}", "1.5 GB", "1.5 GB"),
    ("{{steps.disk.tiny | size}}", "512 B", "512 B"),
    ("{{steps.disk.kb | size}}", "12.3 KB", "12.3 KB"),
    # percent and numbers
    ("{{steps.disk.pct | percent}}", "45.2%", "45.2%"),
    ("{{steps.disk.whole | percent}}", "12%", "12%"),
    ("{{steps.disk.load | number}}", "0.5", "0.5"),
    ("{{steps.disk.load | number(2)}}", "0.52", "0.52"),
    # times in the session's zone; today/tomorrow relative to the reference instant
    ("{{steps.r.items.0.due | datetime}}", "明天 09:00", "tomorrow 09:00"),
    ("{{steps.r.items.1.due | datetime}}", "6月20日 09:30", "20 Jun 09:30"),
    ("{{steps.r.items.2.due | datetime}}", "2027年1月5日", "5 Jan 2027"),
    ("{{steps.r.items.1.due | date}}", "6月20日", "20 Jun"),
    ("{{steps.r.items.1.due | time}}", "09:30", "09:30"),
    ("{{steps.when.today | datetime}}", "今天 18:00", "today 18:00"),
    ("{{steps.when.yesterday | date}}", "昨天", "yesterday"),
    ("{{steps.when.utc | datetime}}", "明天 07:15", "tomorrow 07:15"),
    ("{{steps.when.us | datetime(us)}}", "今天 15:45", "today 15:45"),
    ("{{steps.when.naive | datetime}}", "后天 10:00", "15 Jun 10:00"),
    ("{{steps.when.bad | datetime}}", "soon", "soon"),
    # the full date with its weekday, in the session's zone, never a relative word (今天几号)
    ("{{steps.when.today | calendar_day}}", "2026年6月13日 星期六", "Saturday 13 June 2026"),
    ("{{steps.when.utc | calendar_day}}", "2026年6月14日 星期日", "Sunday 14 June 2026"),
    ("{{steps.when.bad | calendar_day}}", "soon", "soon"),
    ("{{steps.when.bad | capitalize}}", "Soon", "Soon"),
    # the reference instant (15:30 in Shanghai, 07:30 UTC, BST in June) in another zone, its day there
    ("{{steps.zone.london | zone_time}}", "08:30", "08:30"),
    ("{{steps.zone.kathmandu | zone_time}}", "13:15", "13:15"),  # UTC+05:45
    ("{{steps.zone.auckland | zone_time}} {{steps.zone.auckland | zone_day}}",
     "19:30 2026年6月13日 星期六", "19:30 Saturday 13 June 2026"),
    ("{{steps.zone.london | zone_day}}", "2026年6月13日 星期六", "Saturday 13 June 2026"),
    ("[{{steps.zone.bad | zone_time}}{{steps.zone.none | zone_day}}]", "[]", "[]"),
    # lists and records
    ("{{steps.names | list}}", "张伟、李娜和王芳", "张伟, 李娜 and 王芳"),
    ("{{steps.two | list}}", "A和B", "A and B"),
    ("{{steps.one | list}}", "A", "A"),
    ("{{steps.none | list}}", "", ""),
    ("{{steps.people | list(name)}}", "张伟和张强", "张伟 and 张强"),
    ("{{steps.r.items | lines('{due | datetime} {text}')}}",
     "明天 09:00 给王会计回电话\n6月20日 09:30 交周报\n2027年1月5日 续签合同",
     "tomorrow 09:00 给王会计回电话\n20 Jun 09:30 交周报\n5 Jan 2027 续签合同"),
    ("{{steps.r.items | lines('{text}', 1)}}", "给王会计回电话\n……还有 2 条", "给王会计回电话\n… and 2 more"),
    ("{{steps.names | lines}}", "张伟\n李娜\n王芳", "张伟\n李娜\n王芳"),
    ("{{steps.people | lines('{name}（{dept | dept}）')}}", "张伟（销售部）\n张强（研发部）", "张伟（Sales）\n张强（R&D）"),
    ("{{steps.r.items | count(条)}}", "3 条", "3 条s"),
    ("{{steps.r.items | count(reminder, reminders)}}", "3 reminder", "3 reminders"),
    ("{{steps.one | count(item)}}", "1 item", "1 item"),
    ("{{steps.none | count}}", "0", "0"),
    # departments and service states
    ("{{steps.dept.code | dept}}", "研发部", "R&D"),
    ("{{steps.dept.other | dept}}", "legal", "legal"),
    ("{{steps.svc.a | unit_state}}", "运行中", "running"),
    ("{{steps.svc.i | unit_state}}", "已停止", "stopped"),
    ("{{steps.svc.f | unit_state}}", "出错", "failed"),
    ("{{steps.svc.s | unit_state}}", "正在启动", "starting"),
    ("{{steps.svc.x | unit_state}}", "状态未知", "in an unknown state"),
    ("{{steps.order.s | order_state}}", "已发货", "shipped"),
    ("{{steps.order.d | order_state}}", "已送达", "delivered"),
    ("{{steps.order.t | order_state}}", "运输中", "in transit"),
    ("{{steps.order.x | order_state}}", "held at customs", "held at customs"),  # unknown: as the book says
    # default: null, empty and missing
    ("{{steps.opt.empty | default(无)}}", "无", "无"),
    ("{{steps.opt.null | default(无)}}", "无", "无"),
    ("{{steps.opt.gone | default(无)}}", "无", "无"),
    ("x{{steps.opt.gone | default('')}}y", "xy", "xy"),
    # chained, and inside text
    ("网络{{steps.net.online | yesno(正常, 不通)}}，已运行 {{steps.st.up | duration}}。",
     "网络正常，已运行 3 小时 12 分。", "网络正常，已运行 3 h 12 min。"),
])
def test_filter_table(src, zh, en):
    t = Template.parse(src)
    assert t.render(CTX, ZH) == zh
    assert t.render(CTX, EN) == en


def test_without_a_zone_or_reference_each_value_keeps_its_own_offset():
    t = Template.parse("{{steps.r.items.1.due | datetime}} / {{steps.r.items.0.due | datetime}}")
    assert t.render(CTX, Style("zh")) == "6月20日 01:30 / 6月14日 09:00"
    assert t.render(CTX) == "20 Jun 01:30 / 14 Jun 09:00"  # default style: English


def test_style_from_the_turn_context():
    st = Style.of("zh", {"tz": "Asia/Shanghai", "now": "2026-06-13T07:30:00+00:00"}, DEPTS)
    assert st.zone == SH and st.now == datetime(2026, 6, 13, 15, 30, tzinfo=SH) and st.departments is DEPTS
    assert Style.of("fr", {"tz": "No/Such_Zone", "now": "not a time"}) == Style("en")
    naive = Style.of("en", {"tz": "UTC", "now": "2026-06-13T10:00:00"})
    assert naive.now == datetime(2026, 6, 13, 10, tzinfo=timezone.utc).astimezone(naive.zone)


def test_filters_keep_typed_substitution_for_bare_placeholders():
    assert Template.parse("{{steps.names}}").render(CTX) == ["张伟", "李娜", "王芳"]
    assert Template.parse("{{steps.st.up | duration}}").render(CTX, EN) == "3 h 12 min"


def test_a_missing_path_without_default_still_names_it():
    with pytest.raises(MissingValue) as info:
        Template.parse("{{steps.opt.gone | yesno}}").render(CTX, ZH)
    assert info.value.path == "steps.opt.gone"


def test_quoted_arguments_may_hold_braces_pipes_and_parentheses():
    t = Template.parse("{{steps.people | lines('{name} | {dept | dept} (\"x\")')}}")
    assert t.render(CTX, EN) == '张伟 | Sales ("x")\n张强 | R&D ("x")'
    assert t.paths == (("steps", "people"),)


@pytest.mark.parametrize(("src", "fragment"), [
    ("{{steps.x | upper}}", "unknown filter 'upper'"),
    ("{{steps.x | yesnoo}}", "did you mean 'yesno'"),
    ("{{steps.x | default}}", "takes 1 argument(s), not 0"),
    ("{{steps.x | duration(h)}}", "takes 0 argument(s), not 1"),
    ("{{steps.x | datetime(days)}}", "not one of s, ms, us"),
    ("{{steps.x | lines('{a}', many)}}", "not a whole number"),
    ("{{steps.x | lines('{a | nope}')}}", "unknown filter 'nope'"),
    ("{{steps.x | lines('{a')}}", "unbalanced"),
    ("{{steps.x | yesno(it's)}}", "unbalanced"),
    ("{{steps.x | yesno(a(b))}}", "quote an argument"),
    ("{{steps.x | 1x}}", "is not a filter"),
])
def test_filter_errors_at_parse_time(src, fragment):
    with pytest.raises(TemplateSyntaxError) as info:
        Template.parse(src)
    assert fragment in info.value.message, info.value.message


@pytest.mark.parametrize(("style", "name", "shown"), [
    (Style("en", people={"李娜": "Li Na"}), "李娜", "Li Na (李娜)"),  # the directory's English form, the name beside it
    (Style("zh", people={"李娜": "Li Na"}), "李娜", "李娜"),
    (Style("en", people={"李娜": "Li Na"}), "John Smith", "John Smith"),  # not in the table: as written
    (Style("en"), "王芳", "王芳"),
])
def test_person_filter(style, name, shown):
    assert Template.parse("{{slots.x | person}}").render({"slots": {"x": name}}, style) == shown


# the user's words said back (hermesd.pronouns): a task or a reminder's text echoed in a reply
@pytest.mark.parametrize(("words", "said"), [
    ("take my pills", "take your pills"), ("call my mom and tell her I'm late", "call your mom and tell her you're late"),
    ("ask you about my car", "ask me about your car"), ("water the plants", "water the plants"),
    ("吃我的药", "吃你的药"), ("给我妈打电话", "给你妈打电话"), ("和我们组开会", "和你们组开会"), ("做自我介绍", "做自我介绍"),
])
def test_said_gives_the_users_words_back_in_the_second_person(words, said):
    ctx = {"entities": {"task": words}, "steps": {"r": {"items": [{"text": words}]}}}
    assert Template.parse("{{entities.task | said}}").render(ctx, EN) == said
    assert Template.parse("{{steps.r.items | lines('{text | said}')}}").render(ctx, ZH) == said


def test_said_passes_a_value_that_is_no_text_through():
    assert Template.parse("{{steps.disk.tiny | said}}").render(CTX, EN) == 512


def test_every_shipped_reply_says_the_task_back_to_the_user():
    """A reply or a question that echoes the task or a reminder's text says it in the second person (``said``):
    "I will remind you to take your pills", never "… to take my pills"; only a tool's params (what is stored)
    and a sentence the user is told to say ("每个月15号提醒我…") keep the user's own words."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    bare = re.compile(r"\{\{\s*(?:entities\.(?:task|topic)|[\w.]*reminders\.0\.text)\s*\}\}|\{text\}")
    found = []
    for path in [*sorted((root / "config" / "rules").glob("*.yaml")), root / "tools" / "reminder" / "tool.yaml"]:
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            st = line.strip()
            if st.startswith(("#", "text:", "about:")) or "params:" in line or "fields:" in line:
                continue
            for m in bare.finditer(line):
                if not re.search(r"(?:提醒我|remind me to )$", line[:m.start()]):
                    found.append(f"{path.name}:{no}: {m.group()}")
    assert not found, found
