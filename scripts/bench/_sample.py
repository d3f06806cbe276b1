"""What the NLU benchmarks share: the percentile they report and the ~30-character utterances they time.

Standard library only, so a benchmark that measures another checkout (``nlu_stages.py --against``) can
import it without putting any hermesd on ``sys.path``.
"""
from __future__ import annotations

import json
import random
from pathlib import Path


def pct(xs: list[float], q: float) -> float:
    """The ``q`` quantile (0–1) of ``xs`` by the nearest rank below (no interpolation); ``xs`` non-empty."""
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def utterances(data: Path, lang: str, n: int) -> list[str]:
    """``n`` xSID (zh) or SNIPS (en) utterances of 25–35 characters from ``data`` (``../shared/data``),
    shuffled with seed 7 and repeated to reach ``n``. Raises ``OSError`` when the file is missing."""
    f = data / "xsid" / "xsid_zh.jsonl" if lang == "zh" else data / "snips" / "snips.jsonl"
    texts = [json.loads(line)["text"].strip() for line in f.open(encoding="utf-8")]
    texts = [t for t in texts if 25 <= len(t) <= 35]
    random.Random(7).shuffle(texts)
    return (texts * (n // max(1, len(texts)) + 1))[:n]
