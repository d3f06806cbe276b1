"""Generate tests/nlu/temporal_vectors.jsonl from the written rules (not from the parser).

Run ``python tests/nlu/gen_temporal_vectors.py`` after changing a rule here. Each
expected value is computed with plain datetime arithmetic straight from the rules
in the issue (Monday-start weeks; 上周X = X in the previous week; English "last X"
= most recent X strictly before today; "next X" = first X strictly after today;
bare X = first X on or after today; impossible dates are ``invalid``), so the
vectors are an oracle independent of hermesd/nlu/temporal.py.
"""

from __future__ import annotations

import calendar
import json
from datetime import date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

SH = ZoneInfo("Asia/Shanghai")
# (reference instant as written in the vector, local zone); week-boundary references.
REFS = [
    ("2026-11-28T23:30:00+00:00", "Asia/Shanghai"),  # Sunday 07:30 in Shanghai, still Saturday in UTC
    ("2026-11-30T10:00:00+08:00", "Asia/Shanghai"),  # Monday
    ("2026-12-31T15:00:00+08:00", "Asia/Shanghai"),  # Thursday, the 31st and 31 Dec
    ("2028-02-29T09:00:00+08:00", "Asia/Shanghai"),  # Tuesday, 29 Feb of a leap year
    ("2027-01-31T20:00:00+08:00", "Asia/Shanghai"),  # Sunday, the 31st (next month has no 31st)
    ("2026-03-08T12:00:00-05:00", "America/New_York"),  # Sunday, the day US DST starts
]
ZH_WD = {1: "一", 2: "二", 3: "三", 4: "四", 5: "五", 6: "六", 7: "日"}
EN_WD = {1: "Monday", 2: "Tuesday", 3: "Wednesday", 4: "Thursday", 5: "Friday", 6: "Saturday", 7: "Sunday"}
EN_MONTH = {1: "January", 6: "June", 5: "May", 2: "February", 12: "December"}


def day(d: date) -> dict:
    return {"kind": "date", "start": d.isoformat(), "end": (d + timedelta(days=1)).isoformat()}


def rng(a: date, b: date) -> dict:
    return {"kind": "range", "start": a.isoformat(), "end": b.isoformat()}


def dt(d: date, h: int, m: int, tz: ZoneInfo, grain_min: bool) -> dict:
    s = datetime.combine(d, time(h, m), tz)
    e = s + (timedelta(minutes=1) if grain_min else timedelta(hours=1))
    return {"kind": "datetime", "start": s.isoformat(), "end": e.isoformat()}


def add_months(y: int, m: int, k: int) -> tuple[int, int]:
    t = y * 12 + m - 1 + k
    return t // 12, t % 12 + 1


def day_of(y: int, m: int, d: int) -> dict:
    if d > calendar.monthrange(y, m)[1]:
        return {"kind": "invalid", "start": None, "end": None}
    return day(date(y, m, d))


def vectors():
    for ref_s, zone in REFS:
        tz = ZoneInfo(zone)
        ref = datetime.fromisoformat(ref_s).astimezone(tz)
        today = ref.date()
        monday = today - timedelta(days=today.isoweekday() - 1)
        iso = today.isoweekday()
        out: list[tuple[str, dict]] = []
        for words, n in [("今天", 0), ("明天", 1), ("后天", 2), ("大后天", 3), ("昨天", -1), ("前天", -2),
                         ("today", 0), ("tomorrow", 1), ("yesterday", -1), ("the day after tomorrow", 2),
                         ("the day before yesterday", -2)]:
            out.append((words, day(today + timedelta(days=n))))
        for wd in range(1, 8):
            for pre in ("周", "星期", "礼拜"):
                names = [ZH_WD[wd]] + (["天"] if wd == 7 and pre != "周" else [])
                for nm in names:
                    out.append((pre + nm, day(today + timedelta(days=(wd - iso) % 7))))
                    for shift_word, k in (("上", -1), ("这", 0), ("本", 0), ("下", 1), ("下下", 2), ("上上", -2)):
                        out.append((shift_word + pre + nm, day(monday + timedelta(days=7 * k + wd - 1))))
            en = EN_WD[wd]
            out.append((en, day(today + timedelta(days=(wd - iso) % 7))))
            out.append(("this " + en, day(today + timedelta(days=(wd - iso) % 7))))
            out.append(("last " + en, day(today - timedelta(days=(iso - wd) % 7 or 7))))
            out.append(("next " + en, day(today + timedelta(days=(wd - iso) % 7 or 7))))
        for words, k in (("上周", -1), ("本周", 0), ("这周", 0), ("下周", 1), ("last week", -1), ("this week", 0),
                         ("next week", 1), ("上个星期", -1), ("下个星期", 1)):
            a = monday + timedelta(weeks=k)
            out.append((words, rng(a, a + timedelta(weeks=1))))
        for words, k in (("上个月", -1), ("本月", 0), ("这个月", 0), ("下个月", 1), ("last month", -1),
                         ("this month", 0), ("next month", 1)):
            y, m = add_months(today.year, today.month, k)
            ey, em = add_months(y, m, 1)
            out.append((words, rng(date(y, m, 1), date(ey, em, 1))))
        for words, k in (("去年", -1), ("今年", 0), ("明年", 1), ("last year", -1), ("this year", 0), ("next year", 1)):
            out.append((words, rng(date(today.year + k, 1, 1), date(today.year + k + 1, 1, 1))))
        for words, k, d in (("下个月5号", 1, 5), ("本月15号", 0, 15), ("上个月1号", -1, 1), ("下个月31号", 1, 31),
                            ("下个月30号", 1, 30), ("这个月29号", 0, 29)):
            y, m = add_months(today.year, today.month, k)
            out.append((words, day_of(y, m, d)))
        y = today.year
        out += [("2024-06-15", day(date(2024, 6, 15))), ("2024/6/15", day(date(2024, 6, 15))),
                ("6月15日", day(date(y, 6, 15))), ("六月十五号", day(date(y, 6, 15))), ("June 15", day(date(y, 6, 15))),
                ("15 June 2024", day(date(2024, 6, 15))), ("June 15th, 2025", day(date(2025, 6, 15))),
                ("五月三十一日", day(date(y, 5, 31))), ("一月二十三", day(date(y, 1, 23))),
                ("2月30日", day_of(y, 2, 30)), ("2月29日", day_of(y, 2, 29)), ("二月二十九号", day_of(y, 2, 29)),
                ("4月31日", day_of(y, 4, 31)), ("2025年12月31日", day(date(2025, 12, 31))),
                ("二〇二四年六月一日", day(date(2024, 6, 1))), ("12/14/2023", day(date(2023, 12, 14)))]
        # clock times and parts of day, today unless a day is named
        tomorrow = today + timedelta(days=1)
        out += [("下午3点", dt(today, 15, 0, tz, False)), ("晚上八点", dt(today, 20, 0, tz, False)),
                ("凌晨两点", dt(today, 2, 0, tz, False)), ("上午10点", dt(today, 10, 0, tz, False)),
                ("下午三点半", dt(today, 15, 30, tz, True)), ("15:30", dt(today, 15, 30, tz, True)),
                ("3pm", dt(today, 15, 0, tz, False)), ("at 5 pm", dt(today, 17, 0, tz, False)),
                ("10:45 am", dt(today, 10, 45, tz, True)), ("noon", dt(today, 12, 0, tz, True)),
                ("明天下午3点", dt(tomorrow, 15, 0, tz, False)), ("明天早上8点", dt(tomorrow, 8, 0, tz, False)),
                ("tomorrow at 3pm", dt(tomorrow, 15, 0, tz, False)), ("tomorrow at 9:15 am", dt(tomorrow, 9, 15, tz, True)),
                ("中午12点", dt(today, 12, 0, tz, False)), ("中午1点", dt(today, 13, 0, tz, False)),
                ("晚上11点", dt(today, 23, 0, tz, False)), ("下午2点15分", dt(today, 14, 15, tz, True)),
                ("下午3点一刻", dt(today, 15, 15, tz, True))]
        # a bare clock hour: the next such hour at or after ref today; both gone, tomorrow's, read as
        # 明天H点 is (1–6 o'clock in the afternoon, other hours as written)
        for words, h, mi in (("3点半", 3, 30), ("9点", 9, 0), ("三点", 3, 0)):
            cands = [datetime.combine(today, time(hh, mi), tz) for hh in (h, h + 12)]
            later = [c for c in cands if c >= ref]
            s = later[0] if later else cands[1 if 1 <= h <= 6 else 0] + timedelta(days=1)
            g = timedelta(minutes=1) if mi else timedelta(hours=1)
            out.append((words, {"kind": "datetime", "start": s.isoformat(), "end": (s + g).isoformat()}))
        for words, d, a, b in (("今晚", today, 18, 24), ("tonight", today, 18, 24), ("this morning", today, 6, 12),
                               ("中午", today, 11, 14), ("明天下午", tomorrow, 12, 18), ("tomorrow morning", tomorrow, 6, 12),
                               ("昨晚", today - timedelta(days=1), 18, 24), ("this afternoon", today, 12, 18)):
            s = datetime.combine(d, time(a), tz)
            e = datetime.combine(d + timedelta(days=b // 24), time(b % 24), tz)
            out.append((words, {"kind": "range", "start": s.isoformat(), "end": e.isoformat()}))
        # offsets
        for words, days in (("3天后", 3), ("三天前", -3), ("3 days ago", -3), ("in 3 days", 3), ("两周后", 14),
                            ("in 2 weeks", 14), ("10天之后", 10)):
            out.append((words, day(today + timedelta(days=days))))
        # N以后 / N以前 are open at one side (issue 17): from the day named on / up to the end of it
        out.append(("10天以后", {"kind": "range", "start": (today + timedelta(days=10)).isoformat(), "end": None}))
        out.append(("两天以前", {"kind": "range", "start": None, "end": (today - timedelta(days=1)).isoformat()}))
        for words, minutes in (("两小时后", 120), ("半小时之后", 30), ("in 2 hours", 120), ("in 30 minutes", 30),
                               ("一个半小时后", 90), ("20分钟后", 20), ("in an hour", 60), ("5 minutes ago", -5)):
            s = (ref + timedelta(minutes=minutes)).replace(second=0, microsecond=0)
            out.append((words, {"kind": "datetime", "start": s.isoformat(), "end": (s + timedelta(minutes=1)).isoformat()}))
        # ranges
        out += [("6月1日到6月15日", rng(date(y, 6, 1), date(y, 6, 16))), ("6月1日到15日", rng(date(y, 6, 1), date(y, 6, 16))),
                ("下周一到周三", rng(monday + timedelta(weeks=1), monday + timedelta(weeks=1, days=3))),
                ("from June 1 to June 15", rng(date(y, 6, 1), date(y, 6, 16)))]
        mon_up = today + timedelta(days=(1 - iso) % 7)
        out.append(("from Monday to Friday", rng(mon_up, mon_up + timedelta(days=5))))
        for words in ("between 2 and 4 pm", "下午2点到4点", "from 2pm to 4pm", "下午两点到四点"):
            s = datetime.combine(today, time(14), tz)
            out.append((words, {"kind": "range", "start": s.isoformat(), "end": (s + timedelta(hours=2)).isoformat()}))
        # durations
        for words, secs in (("一个半小时", 5400), ("90 minutes", 5400), ("两个小时", 7200), ("半小时", 1800),
                            ("3 hours", 10800), ("45分钟", 2700), ("2 weeks", 1209600)):
            out.append((words, {"kind": "duration", "start": None, "end": None, "seconds": secs}))
        for text, exp in out:
            row = {"text": text, "ref": ref_s, "tz": zone, **exp}
            if text.startswith("at "):  # a leading preposition is not part of the expression
                row["span"] = [3, len(text)]
            yield row


def main() -> None:
    path = Path(__file__).with_name("temporal_vectors.jsonl")
    rows = list(vectors())
    with path.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"{len(rows)} vectors → {path}")


if __name__ == "__main__":
    main()
