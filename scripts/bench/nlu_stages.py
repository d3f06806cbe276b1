"""Where a parse spends its time: each stage of :func:`hermesd.nlu.parser.parse` timed on its own,
beside the whole parse measured in the same run (issue 15, "the turn path near its floor").

    .venv/bin/python scripts/bench/nlu_stages.py [--data ../shared/data] [--n 300]
    taskset -c 0 .venv/bin/python scripts/bench/nlu_stages.py     # pinned to one CPU
    .venv/bin/python scripts/bench/nlu_stages.py --against ../main  # beside another checkout's code

Same ~30-character utterances as ``scripts/bench/nlu.py`` part 1 (xSID zh, SNIPS en), the shipped
packs. Each stage runs on the previous stage's output, best of 3 per utterance (the machine is
shared); the stages overlap (``analyse`` = features + vector + score + rejection features, and
``rec.score`` = ``analyse`` + ranking), so their sum is not the parse. ``--against DIR`` runs the
same stages on the code of the checkout DIR too (its ``hermesd``, its compiled pack), the two in
alternating rounds of child processes, and prints them side by side. A benchmark, never a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

REPO = Path(__file__).resolve().parents[2]
if "--src" in sys.argv:  # a child of --against: the code under test is another checkout's
    REPO = Path(sys.argv[sys.argv.index("--src") + 1]).resolve()
sys.path.insert(0, str(REPO))

from hermesd.nlu.features import raw_features  # noqa: E402
from hermesd.nlu.kinds import utterance_kind  # noqa: E402
from hermesd.nlu.normalize import _normalize  # noqa: E402
from hermesd.nlu.parser import _delex, detect_lang, parse  # noqa: E402
from hermesd.nlu.settings import NluSettings  # noqa: E402
from hermesd.nlu.temporal import parse_times  # noqa: E402
from hermesd.subsystems.nlu import NluSubsystem  # noqa: E402
from _sample import pct, utterances  # noqa: E402 - a sibling module of this script

# the reference instant of scripts/bench/nlu.py part 1 (its utterances come from _sample, which needs no
# hermesd on sys.path; nlu.py itself puts its own checkout first, and --against measures another one)
TZ = ZoneInfo("Asia/Shanghai")
REF = datetime(2026, 11, 25, 10, 0, tzinfo=TZ)


def best3(f) -> tuple[float, object]:
    """(best of 3 runs in µs, the result)."""
    b = float("inf")
    for _ in range(3):
        t0 = time.perf_counter_ns()
        r = f()
        b = min(b, time.perf_counter_ns() - t0)
    return b / 1000, r


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(REPO / ".." / "shared" / "data"))
    ap.add_argument("--n", type=int, default=300, help="utterances per language")
    ap.add_argument("--against", help="another checkout (e.g. ../main) measured in the same run")
    ap.add_argument("--rounds", type=int, default=2, help="alternating rounds with --against")
    ap.add_argument("--src", help=argparse.SUPPRESS)
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.against:
        return against(a)
    sub = NluSubsystem(NluSettings())
    with tempfile.TemporaryDirectory() as cache:
        asyncio.run(sub.start_standalone(Path(cache)))
    eng = sub.engine
    rec, model = eng.recognizer, eng.recognizer.model
    if not a.json:
        print(f"model: {model!r}")
    else:
        import hermesd  # noqa: PLC0415 - which checkout's code this child measures

        print(f"code: {Path(hermesd.__file__).parent}", file=sys.stderr)
    result: dict[str, dict[str, list[float]]] = {}
    for lang in ("zh", "en"):
        texts = utterances(Path(a.data), lang, a.n)
        for t in texts[:50]:
            parse(t, ref=REF, tz=TZ, engine=eng)
        st: dict[str, list[float]] = {}

        def T(name, f):
            us, r = best3(f)
            st.setdefault(name, []).append(us)
            return r

        for t in texts:
            norm = T("normalize (uncached)", lambda: _normalize(t))
            T("detect_lang", lambda: detect_lang(t))
            times = T("parse_times", lambda: tuple(parse_times(norm, REF, TZ)))
            ents = T("entities", lambda: tuple(eng.extractor.extract(norm, times)))
            T("utterance_kind", lambda: utterance_kind(norm.text))
            nspans = [(*norm.nspan(*e.span), e.type) for e in ents]
            T("match_templates", lambda: rec.match_templates(_delex(norm.text, nspans), [e.type for e in ents]))
            if model is not None:
                cnt = T("  raw_features", lambda: raw_features(norm.text))
                v = T("  tf-idf vector", lambda: model._vector(cnt))
                T("  linear score", lambda: model._score(v))
                T(" analyse", lambda: model.analyse(norm.text))
                T("rec.score", lambda: rec.score(norm.text))
            T("parse (whole)", lambda: parse(t, ref=REF, tz=TZ, engine=eng))
        result[lang] = {k: [pct(xs, 0.5), pct(xs, 0.99)] for k, xs in st.items()}
        if a.json:
            continue
        whole = pct(st["parse (whole)"], 0.5)
        print(f"\n{lang}: {len(texts)} utterances, best of 3 per utterance")
        for k, xs in st.items():
            p50 = pct(xs, 0.5)
            print(f"   {k:22s} p50 {p50:7.1f} µs  p99 {pct(xs, 0.99):7.1f} µs  = {p50 / whole:5.1%} of the parse p50")
    if a.json:
        print(json.dumps(result))
    return 0


def against(a) -> int:
    """This checkout and ``a.against`` in alternating child processes; per stage the best round's p50."""
    srcs = {"this": str(REPO), "against": str(Path(a.against).resolve())}
    best: dict[str, dict[str, dict[str, float]]] = {k: {} for k in srcs}
    for _ in range(a.rounds):
        for name, src in srcs.items():
            out = subprocess.run([sys.executable, __file__, "--src", src, "--json", "--n", str(a.n), "--data", a.data],
                                 capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
            for lang, stages in json.loads(out).items():
                for k, (p50, _p99) in stages.items():
                    d = best[name].setdefault(lang, {})
                    d[k] = min(d.get(k, float("inf")), p50)
    print(f"this checkout {srcs['this']} beside {srcs['against']}: p50 µs, best of {a.rounds} alternating rounds")
    for lang in ("zh", "en"):
        print(f"\n{lang}:")
        for k, x in best["this"][lang].items():
            y = best["against"][lang].get(k)
            ratio = f"{x / y:5.2f}×" if y else "   —"
            print(f"   {k:22s} {x:7.1f} µs   against {y if y is not None else float('nan'):7.1f} µs   = {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
