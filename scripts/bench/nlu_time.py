"""Time expressions class by class: hermesd vs dateparser and jionlp on tests/nlu/time_classes.yaml.

    .venv/bin/pip install -e ".[bench]"      # dateparser, jionlp: bench-only, never imported by hermesd
    .venv/bin/python scripts/bench/nlu_time.py

For every vector (text, reference instant, zone, expected value written by hand) each parser
resolves the text against the same reference:

- hermesd: :func:`hermesd.nlu.temporal.parse_times` (first expression);
- dateparser: ``dateparser.parse`` (an instant; English and Chinese, ``PREFER_DATES_FROM=current_period``);
- jionlp: ``jionlp.parse_time`` (Chinese only; its ``[first second, last second]`` interval).

Per class and overall: coverage (gives any value), agreement with the expected value (an instant
agrees when it is the expected start, or lies in the expected half-open span for a span of a day
or more; an interval agrees when both ends match to the second, jionlp's closed end +1 s; a
duration when the seconds match; ``invalid`` when the parser gives nothing or says so), and mean µs
per vector measured in this run. This prints numbers and never fails.
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from hermesd.nlu.temporal import parse_times  # noqa: E402

VECTORS = REPO / "tests" / "nlu" / "time_classes.yaml"


def _dt(v, tz: ZoneInfo) -> datetime | None:
    if v is None:
        return None
    if isinstance(v, (int, float)):
        return None
    d = datetime.fromisoformat(str(v))
    return d if d.tzinfo else d.replace(tzinfo=tz)


def cases():
    data = yaml.safe_load(VECTORS.read_text(encoding="utf-8"))
    for cls, rows in data["classes"].items():
        for text, ref, kind, start, end, *_span_point in rows:
            ref_s, zone = data["refs"][ref]
            tz = ZoneInfo(zone)
            yield cls, text, datetime.fromisoformat(ref_s).astimezone(tz), tz, kind, start, end


def _agree_instant(t: datetime, kind, start, end, tz) -> bool:
    s, e = _dt(start, tz), _dt(end, tz)
    if kind in ("invalid", "duration") or (s is None and e is None):
        return False
    if s is not None and abs((t - s).total_seconds()) < 1:
        return True
    long = s is not None and e is not None and e - s >= timedelta(days=1)
    return bool(long and s <= t < e)


def _agree_interval(a: datetime | None, b: datetime | None, kind, start, end, tz) -> bool:
    s, e = _dt(start, tz), _dt(end, tz)
    return (a == s or (a is None and s is None)) and (b == e or (b is None and e is None))


def run_hermesd(text, ref, tz, kind, start, end):
    xs = parse_times(text, ref, tz)
    if not xs:
        return False, kind == "invalid"
    x = xs[0]
    if kind == "invalid":
        return True, x.kind == "invalid"
    if kind == "duration":
        return True, x.seconds == float(start)
    if x.kind in ("invalid", "duration"):
        return True, False
    a = x.start if x.start is None or isinstance(x.start, datetime) else datetime.combine(x.start, datetime.min.time(), tz)
    b = x.end if x.end is None or isinstance(x.end, datetime) else datetime.combine(x.end, datetime.min.time(), tz)
    return True, _agree_interval(a, b, kind, start, end, tz)


def make_dateparser():
    import dateparser

    def run(text, ref, tz, kind, start, end):
        ds = {"RELATIVE_BASE": ref.replace(tzinfo=None), "TIMEZONE": tz.key, "RETURN_AS_TIMEZONE_AWARE": True,
              "PREFER_DATES_FROM": "current_period"}
        lang = "en" if text.isascii() else "zh"
        try:
            t = dateparser.parse(text, languages=[lang], settings=ds)
        except Exception:  # noqa: BLE001 - a crash of the baseline is "no value"
            t = None
        if t is None:
            return False, kind == "invalid"
        return True, kind != "invalid" and _agree_instant(t.astimezone(tz), kind, start, end, tz)
    return run


def make_jionlp():
    import io
    import contextlib

    with contextlib.redirect_stdout(io.StringIO()):
        import jionlp

    def run(text, ref, tz, kind, start, end):
        if text.isascii():
            return None
        tb = {"year": ref.year, "month": ref.month, "day": ref.day, "hour": ref.hour, "minute": ref.minute,
              "second": ref.second}
        try:
            r = jionlp.parse_time(text, time_base=tb)
        except Exception:  # noqa: BLE001
            return False, kind == "invalid"
        if kind == "invalid":
            return True, False
        v = r.get("time")
        if r.get("type") == "time_delta":
            secs = sum(float(n) * {"year": 365 * 86400, "month": 30 * 86400, "day": 86400, "week": 604800, "hour": 3600,
                                   "minute": 60, "second": 1}.get(u, 0) for u, n in v.items()) if isinstance(v, dict) else None
            return True, kind == "duration" and secs == float(start)
        if kind == "duration" or not isinstance(v, list):
            return True, False

        def conv(s, closing):
            if s in ("inf", "-inf"):
                return None
            d = datetime.fromisoformat(s).replace(tzinfo=tz)
            return d + timedelta(seconds=1) if closing else d
        try:
            a, b = conv(v[0], False), conv(v[1], True)
        except ValueError:  # a time it cannot write as a date ('3-01-01 00:00:00'): found, but wrong
            return True, False
        if a is not None and b is not None and (b - a) <= timedelta(seconds=1):
            return True, _agree_instant(a, kind, start, end, tz)
        if _agree_interval(a, b, kind, start, end, tz):
            return True, True
        # jionlp closes "since X" / "X以后" at its reference instant or at infinity: compare the start alone then
        return True, (_dt(start, tz) is not None and a == _dt(start, tz) and _dt(end, tz) is None)
    return run


def compare() -> int:
    rows = list(cases())
    engines = {"hermesd": run_hermesd}
    for name, make in (("dateparser", make_dateparser), ("jionlp", make_jionlp)):
        try:
            engines[name] = make()
        except ImportError as exc:
            print(f"   {name} is not installed ({exc}): .venv/bin/pip install -e '.[bench]'")
    stats = {n: defaultdict(lambda: [0, 0, 0]) for n in engines}  # class -> [n, covered, agreed]
    secs = {n: 0.0 for n in engines}
    runs = {n: 0 for n in engines}
    for cls, text, ref, tz, kind, start, end in rows:
        for name, fn in engines.items():
            t0 = time.perf_counter()
            got = fn(text, ref, tz, kind, start, end)
            dt = time.perf_counter() - t0
            if got is None:
                continue
            secs[name] += dt
            runs[name] += 1
            for key in (cls, "all", "zh" if not text.isascii() else "en"):
                st = stats[name][key]
                st[0] += 1
                st[1] += got[0]
                st[2] += got[1]
    names = list(engines)
    print(f"   {len(rows)} hand-written vectors ({VECTORS.relative_to(REPO)}); coverage / agreement with the expected value")
    print("   " + f"{'class':30}" + "".join(f"{n:>26}" for n in names))
    keys = sorted({k for n in names for k in stats[n]}, key=lambda k: (k in ("all", "zh", "en"), k))
    for k in keys:
        cells = []
        for n in names:
            c = stats[n].get(k)
            cells.append(f"{'-':>26}" if not c else f"{c[1]:>4}/{c[0]:<3} {c[2]:>4}/{c[0]:<3} {c[2] / c[0]:6.1%}")
        print("   " + f"{k:30}" + "".join(cells))
    print("   mean µs per vector: " + ", ".join(f"{n} {secs[n] / max(1, runs[n]) * 1e6:.0f}" for n in names)
          + " (" + ", ".join(f"{n} {secs[n] / max(1e-9, secs['hermesd']) * runs['hermesd'] / max(1, runs[n]):.0f}× hermesd"
                            for n in names if n != "hermesd") + ")")
    return 0


if __name__ == "__main__":
    raise SystemExit(compare())
