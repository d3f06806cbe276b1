"""NLU benchmark: parse latency, and English time phrases vs dateparser (same run).

    .venv/bin/pip install dateparser      # bench-only dependency, never imported by hermesd
    .venv/bin/python scripts/bench/nlu.py [--data ../shared/data] [--n 2000]

1. ``parse()`` p50/p99 on ~30-character utterances (zh from xSID, en from SNIPS; 25–35
   characters), full pipeline with the shipped intent packs. The reference design's
   keyword match took 80 ms (published figure, not measured here); ``dateparser.search``
   over the same utterances is measured in this run as the Python baseline for finding
   times in free text.
2. SNIPS ``timeRange`` phrases resolved by hermesd (:func:`parse_times`) and by
   ``dateparser.parse`` against the same reference instant and zone. Agreement: both give
   a value and dateparser's instant lies in hermesd's half-open [start, end) (for a day or
   a range) or equals its start (for a clock time). Speed ratio: mean time per phrase.
3. Time expressions class by class against dateparser and jionlp (``scripts/bench/nlu_time.py``).
4. CLINC150 out of scope: hermesd's cross-validated rejection beside a scikit-learn TF-IDF +
   logistic regression baseline, with the in-scope/OOS curve (``scripts/bench/nlu_oos.py``).
5. hassil's ``recognize`` on the same sentences and the shipped packs' intents converted to
   hassil templates: accuracy, agreement and speed side by side (``scripts/bench/nlu_hassil.py``).

``--parts 1,5`` runs only those parts (default: all).

This is a benchmark, not a test: it prints numbers and never fails on speed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from datetime import date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from hermesd.nlu.parser import parse  # noqa: E402
from hermesd.subsystems.nlu import NluSubsystem  # noqa: E402
from hermesd.nlu.settings import NluSettings  # noqa: E402
from hermesd.nlu.temporal import parse_times  # noqa: E402
from _sample import pct, utterances  # noqa: E402 - a sibling module of this script

TZ = ZoneInfo("Asia/Shanghai")
REF = datetime(2026, 11, 25, 10, 0, tzinfo=TZ)  # a Wednesday morning


def bench_parse(engine, texts: list[str]) -> tuple[float, float, float, float]:
    """(p50, p99) of single runs, then (p50, p99) of the best of 3 runs per utterance (the
    machine is shared: the best of 3 removes scheduler noise, single runs keep GC pauses)."""
    for t in texts[:50]:
        parse(t, ref=REF, tz=TZ, engine=engine)
    single, best = [], []
    for t in texts:
        runs = []
        for _ in range(3):
            t0 = time.perf_counter_ns()
            parse(t, ref=REF, tz=TZ, engine=engine)
            runs.append((time.perf_counter_ns() - t0) / 1000)
        single.append(runs[0])
        best.append(min(runs))
    return pct(single, 0.5), pct(single, 0.99), pct(best, 0.5), pct(best, 0.99)


def agree(x, dp: datetime) -> bool:
    if x.kind in ("date", "range") and isinstance(x.start, date) and not isinstance(x.start, datetime):
        return x.start <= dp.date() < x.end
    if x.kind == "range":
        return x.start <= dp < x.end
    if x.kind == "datetime":
        return abs((dp - x.start).total_seconds()) < 60
    return False


def hassil_part(sub: NluSubsystem, data: Path, n: int) -> None:
    """Part 5: the people the daemon gives the NLU (the shipped directory), then the comparison."""
    from nlu_hassil import compare  # noqa: PLC0415 - a sibling module of this script
    from tests.nlu.test_phrasings import PHRASINGS, _people  # noqa: PLC0415 - the held-out phrasings

    people = _people(REPO / "config" / "directory.yaml")
    sub.set_people(people)
    engine = sub.engine
    specs = list(engine.specs)
    from hermesd.nlu.packs import load_packs  # noqa: PLC0415

    packs = load_packs([REPO / "config" / "intents"])
    examples = [(e, s.name) for s in packs.intents for e in s.examples]
    random.Random(3).shuffle(examples)
    oos = [(t, None) for t in packs.out_of_scope]
    short = [(t, None) for t in utterances(data, "zh", min(n, 300)) + utterances(data, "en", min(n, 300))]
    compare(lambda t: parse(t, ref=REF, tz=TZ, engine=engine), specs,
            {k: dict(v) for k, v in engine.gazetteers.items()}, people,
            {"held-out phrasings (labelled)": list(PHRASINGS),
             "pack examples (in-sample, labelled)": examples[:600],
             "pack out_of_scope examples (none)": oos,
             "~30-char xSID + SNIPS (unlabelled)": short})


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(REPO / ".." / "shared" / "data"))
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--parts", default="1,2,3,4,5", help="comma-separated parts to run")
    a = ap.parse_args()
    parts = {int(x) for x in a.parts.split(",") if x.strip()}
    data = Path(a.data)
    try:
        import dateparser
        from dateparser.search import search_dates
    except ImportError:
        print("dateparser is not installed: .venv/bin/pip install dateparser", file=sys.stderr)
        return 2
    sub = NluSubsystem(NluSettings())
    with tempfile.TemporaryDirectory() as cache:
        asyncio.run(sub.start_standalone(Path(cache)))
    engine = sub.engine
    print(f"reference instant {REF.isoformat()} ({TZ.key})\n")
    if 1 in parts:
        print("1. parse() latency, full pipeline, ~30-character utterances")
    for lang in ("zh", "en") if 1 in parts else ():
        texts = utterances(data, lang, a.n)
        p50, p99, b50, b99 = bench_parse(engine, texts)
        sample = texts[: max(1, min(300, len(texts)))]
        t0 = time.perf_counter()
        for t in sample:
            search_dates(t, languages=[lang], settings={"RELATIVE_BASE": REF.replace(tzinfo=None)})
        dp_us = (time.perf_counter() - t0) / len(sample) * 1e6
        print(f"   {lang}: hermesd parse p50 {p50:6.1f} µs p99 {p99:7.1f} µs (best of 3: p50 {b50:6.1f} p99 {b99:6.1f}) | "
              f"dateparser.search_dates mean {dp_us:7.1f} µs = {dp_us / p50:4.1f}× hermesd p50 | "
              f"reference keyword match 80 ms = {80000 / p99:4.0f}× hermesd p99")
    if 5 in parts:
        print("\n5. hassil recognize vs hermesd parse, the shipped packs' intents (scripts/bench/nlu_hassil.py)")
        hassil_part(sub, data, a.n)
    if 2 in parts:
        snips_time_ranges(data, dateparser)
    rc = 0
    if 3 in parts:
        print("\n3. time expressions class by class: hermesd vs dateparser and jionlp (scripts/bench/nlu_time.py)")
        from nlu_time import compare  # noqa: PLC0415 - a sibling module of this script

        compare()
    if 4 in parts:
        print("\n4. ", end="")  # CLINC150 out of scope vs scikit-learn (scripts/bench/nlu_oos.py)
        from nlu_oos import report as oos_report  # noqa: PLC0415 - a sibling module of this script

        rc = oos_report(data, REPO / "var" / "bench-cache")
    return rc


def snips_time_ranges(data: Path, dateparser) -> None:
    """Part 2: SNIPS timeRange phrases, hermesd parse_times beside dateparser.parse."""
    print("\n2. SNIPS timeRange phrases: hermesd parse_times vs dateparser.parse")
    phrases = []
    for line in (data / "snips" / "snips.jsonl").open(encoding="utf-8"):
        for e in json.loads(line)["entities"]:
            if e["slot"] == "timeRange":
                phrases.append(e["value"].strip())
    h_res = []
    t0 = time.perf_counter()
    for p in phrases:
        xs = parse_times(p, REF, TZ)
        h_res.append(xs[0] if xs and xs[0].kind not in ("invalid", "duration") else None)
    h_s = time.perf_counter() - t0
    n = len(phrases)
    print(f"   phrases {n}; hermesd resolves {sum(h is not None for h in h_res)} ({sum(h is not None for h in h_res) / n:.1%}) "
          f"in {h_s / n * 1e6:.1f} µs per phrase")
    # hermesd puts a month-day without a year in the reference year and a bare clock time today
    # (or at its next occurrence); dateparser's "current_period" is the same policy, "future" is not.
    for prefer in ("current_period", "future"):
        ds = {"RELATIVE_BASE": REF.replace(tzinfo=None), "TIMEZONE": TZ.key, "RETURN_AS_TIMEZONE_AWARE": True,
              "PREFER_DATES_FROM": prefer}
        t0 = time.perf_counter()
        d_res = [dateparser.parse(p, languages=["en"], settings=ds) for p in phrases]
        d_s = time.perf_counter() - t0
        if prefer == "current_period":
            same_policy = d_res
        both = [(h, d) for h, d in zip(h_res, d_res) if h is not None and d is not None]
        agreed = sum(agree(h, d.astimezone(TZ)) for h, d in both)
        print(f"   dateparser PREFER_DATES_FROM={prefer}: resolves {sum(d is not None for d in d_res)} "
              f"({sum(d is not None for d in d_res) / n:.1%}); agreement where both resolve {agreed}/{len(both)} = "
              f"{agreed / max(1, len(both)):.1%}; {d_s / n * 1e6:.1f} µs per phrase → hermesd {d_s / h_s:.1f}× faster")
    dis = [(p, h, d) for p, h, d in zip(phrases, h_res, same_policy) if h is not None and d is not None and not agree(h, d.astimezone(TZ))]
    random.Random(1).shuffle(dis)
    print("   sample disagreements with current_period (phrase | hermesd | dateparser):")
    for p, h, d in dis[:12]:
        print(f"     {p!r:40} | {h.kind} {h.start} | {d.astimezone(TZ).isoformat()}")


if __name__ == "__main__":
    raise SystemExit(main())
