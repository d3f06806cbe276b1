#!/usr/bin/env python3
"""Answer reading (hermesd.dialogue.reader.read_answer) beside the NLU parse of the same utterances.

Reading an answer to an open question runs on every turn that has one, after the parse; it
should cost a small fraction of the parse. Prints µs per reading (best of 5 rounds) and per
parse of the same texts, and their ratio, measured in the same run::

    .venv/bin/python scripts/bench/dialogue.py [--rounds 200]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from hermesd.dialogue.heard import Heard  # noqa: E402
from hermesd.dialogue.questions import Ask, Candidate, Choice, Confirm  # noqa: E402
from hermesd.dialogue.reader import read_answer  # noqa: E402
from hermesd.nlu.normalize import normalize  # noqa: E402
from hermesd.nlu.parser import parse as nlu_parse  # noqa: E402
from hermesd.nlu.settings import NluSettings  # noqa: E402
from hermesd.subsystems.nlu import NluSubsystem  # noqa: E402

CONFIRM = Confirm(intent="doc.send", rule_id="doc.send.confirmed", index=1,
                  entities={"doc": "quote", "person": "person:sales/li"}, prompt="把报价单发给李娜吗？")
ASK = Ask(intent="reminder.create", rule_id="reminder.ask_time", index=0, slot="when", entity="datetime",
          prompt="什么时候提醒你？")
_WEI = Candidate("person:sales/zhang", "张伟", {"dept": "sales", "dept_name": "销售部", "aliases": ["小张"]})
_QIANG = Candidate("person:rd/zhang", "张强", {"dept": "rd", "dept_name": "研发部", "aliases": ["强哥"]})
_MIN = Candidate("person:finance/zhang", "张敏", {"dept": "finance", "dept_names": ["财务部", "Finance"]})
CHOICE2 = Choice("张工", (_WEI, _QIANG), "把报价单发给张工", prompt="你说的张工是哪一位？")
CHOICE3 = Choice("张", (_WEI, _QIANG, _MIN), "把报价单发给小张", prompt="哪一位？")
ROWS = [(CONFIRM, "好的，不过先别发"), (CHOICE2, "销售部的那个"), (ASK, "明天上午9点"), (None, "what can you do?"),
        (CHOICE3, "the one from finance")]


def _heard(raw: str) -> Heard:
    text = normalize(raw).text
    return Heard(text=text, lang="zh" if any("\u4e00" <= c <= "\u9fff" for c in text) else "en")


def _best_us(fn, rounds: int) -> float:
    fn()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(rounds):
            fn()
        best = min(best, (time.perf_counter() - t0) / (rounds * len(ROWS)))
    return best * 1e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=200)
    a = ap.parse_args()
    heard = [(q, _heard(t)) for q, t in ROWS]
    sub = NluSubsystem(NluSettings())
    with tempfile.TemporaryDirectory() as cache:
        asyncio.run(sub.start_standalone(Path(cache)))
    ref = datetime(2024, 6, 19, 10, tzinfo=timezone.utc)
    read = _best_us(lambda: [read_answer(q, h) for q, h in heard], a.rounds)
    parse = _best_us(lambda: [nlu_parse(t, ref=ref, tz="Asia/Shanghai", engine=sub.engine) for _, t in ROWS], max(1, a.rounds // 10))
    print(f"read_answer {read:8.1f} µs per reading   (aim ≤ 100 µs)")
    print(f"NLU parse   {parse:8.1f} µs per utterance (same texts, same run)")
    print(f"ratio reading / parse = {read / parse:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
