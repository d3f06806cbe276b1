"""How often the request splitter proposes a split of a single-request utterance, this tree beside a git revision.

Held-out real utterances, each one request: xSID zh/en (alarms, reminders, weather; CC BY-SA 4.0),
SNIPS and CLINC150 (CC BY 3.0) from ../shared/data. A proposal here is an upper bound on wrong
splits: the pipeline keeps a split only when the NLU reads every part as a request.

Usage: .venv/bin/python scripts/split_false_splits.py [--base REV]   (default REV: HEAD~1)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
SETS = {"xsid_zh": "xsid/xsid_zh.jsonl", "xsid_en": "xsid/xsid_en.jsonl", "snips": "snips/snips.jsonl",
        "clinc150": "clinc150/clinc150.jsonl"}


def _splitter(root: Path):
    for k in [k for k in sys.modules if k == "hermesd" or k.startswith("hermesd.")]:
        del sys.modules[k]
    sys.path.insert(0, str(root))
    try:
        import hermesd.dialogue.split as sp
    finally:
        sys.path.pop(0)
    assert Path(sp.__file__).is_relative_to(root), sp.__file__
    return sp.split_requests


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="HEAD~1", help="git revision to compare with")
    a = ap.parse_args()
    texts = {n: [json.loads(line)["text"] for line in (DATA / p).open(encoding="utf-8")] for n, p in SETS.items()}
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", a.base],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        found = {}
        for label, root in (("base", Path(tmp)), ("tree", REPO)):
            split = _splitter(root)
            found[label] = {n: {t for t in ts if len(split(t)) > 1} for n, ts in texts.items()}
    print(f"{'set':9s} {'utterances':>10s} {'base ' + a.base:>16s} {'this tree':>16s} {'new':>5s}")
    for n, ts in texts.items():
        b, r = found["base"][n], found["tree"][n]
        print(f"{n:9s} {len(ts):10d} {len(b):8d} ({len(b) / len(ts):5.2%}) {len(r):8d} ({len(r) / len(ts):5.2%}) "
              f"{len(r - b):5d}")
        for t in sorted(r - b)[:5]:
            print(f"    new: {t}")


if __name__ == "__main__":
    main()
