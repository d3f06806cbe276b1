#!/usr/bin/env python3
"""Rule engine benchmark: matching time with 1, 100 and 1,000 rules, vs a linear scan, same run.

hermesd indexes rules by intent, so a match costs a dict look-up plus the rules of that
one intent. The baseline is the reference design's shape: one list of every rule, sorted
by priority, scanned front to back until a rule's intent, entity needs and conditions
hold (the same compiled conditions, so the difference is only the index).

Each pack has 4 rules per intent (priorities 40/30/20/10); the winner is the matched
intent's priority-10 rule, so both sides evaluate the same 3 failing rules of that intent
first, and the scan also walks past every other rule of priority >= 10 (its natural order).

Also: the time to load and validate a pack of each size (the reference design hot-
reloaded in 3 s), and the shipped config/rules.

Usage: .venv/bin/python scripts/bench/rules.py [--quick]
Benchmarks are not tests: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hermesd.rules import conditions, templating
from hermesd.rules.engine import RuleEngine
from hermesd.rules.loader import load_rules
from hermesd.rules.model import Rule, RulePack

RULES_PER_INTENT = 4
CTX = {"role": "user", "slots": {"form": "resend"}, "memory": {"last_sent": {"doc": "quote"}},
       "session": {"auth": "AUTHED", "state": "ROUTING"},
       "entities": {"doc": "quote", "person": "张工", "when": {"start": "2026-11-18"}}}


def pack_dict(n_rules: int) -> dict[str, Any]:
    rules = []
    for i in range(n_rules):
        intent = f"intent{i // RULES_PER_INTENT:04d}"
        rank = i % RULES_PER_INTENT
        last = rank == RULES_PER_INTENT - 1 or i == n_rules - 1
        rules.append({
            "rule_id": f"r{i:05d}",
            "priority": 40 - 10 * rank,
            "trigger": {"intent": intent, "entities": ["doc", "person"] if last else ["doc", "missing"]},
            "conditions": ["role in ['admin', 'user']", "memory.last_sent.doc == entities.doc",
                           "session.auth == 'AUTHED'" if last or rank == 0 else "session.auth == 'NOPE'",
                           f"not has(slots.r{i})"],  # unique per rule: loading cannot lean on the parse caches
            "actions": [
                {"tool": "send_document", "id": "send",
                 "params": {"document": "{{entities.doc}}", "recipient": "{{entities.person}}"}},
                {"reply": {"zh": f"已发给{{{{entities.person}}}} ({i})", "en": f"Sent to {{{{entities.person}}}} ({i})"}},
            ],
        })
    return {"pack": f"bench{n_rules}", "rules": rules}


class LinearScan:
    """Baseline: every rule in one priority-sorted list, scanned until one holds."""

    def __init__(self, pack: RulePack) -> None:
        self.rules: list[Rule] = sorted(pack.rules, key=lambda r: -r.priority)

    def match(self, intent: str, ctx: dict[str, Any]) -> str | None:
        entities = ctx["entities"]
        for rule in self.rules:
            if rule.trigger.intent != intent:
                continue
            if any(entities.get(n) is None for n in rule.trigger.entities):
                continue
            if all(c(ctx) for c in rule.compiled_conditions):
                return rule.rule_id
        return None


def clear_parse_caches() -> None:
    conditions._parse_cached.cache_clear()
    templating._parse_cached.cache_clear()


def per_call_us(fn: Callable[[], Any], iterations: int, repeats: int) -> float:
    best = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        for _ in range(iterations):
            fn()
        best.append((time.perf_counter_ns() - t0) / iterations / 1000)
    return statistics.median(best)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer iterations")
    args = ap.parse_args()
    iterations, repeats = (2000, 3) if args.quick else (20000, 5)

    print(f"matching: median of {repeats} runs x {iterations} calls; 4 rules/intent, winner is the 4th tried")
    print(f"{'rules':>6} {'intents':>8} {'tried':>6} {'hermesd index µs':>17} {'linear scan µs':>15} {'scan/index':>11}")
    results = []
    for n in (1, 100, 1000):
        data = pack_dict(n)
        pack = RulePack.model_validate(data)
        target = f"intent{(n - 1) // RULES_PER_INTENT:04d}"  # the last intent: last in a stable scan
        engine, scan = RuleEngine([pack]), LinearScan(pack)
        expected = engine.match(target, CTX).rule_id
        assert expected is not None and scan.match(target, CTX) == expected, (expected, scan.match(target, CTX))
        t_index = per_call_us(lambda e=engine, t=target: e.match(t, CTX), iterations, repeats)
        t_scan = per_call_us(lambda s=scan, t=target: s.match(t, CTX), iterations, repeats)
        results.append((n, t_index))
        tried = len(engine.match(target, CTX).skipped) + 1
        print(f"{n:>6} {len(engine.intents):>8} {tried:>6} {t_index:>17.2f} {t_scan:>15.2f} {t_scan / t_index:>10.1f}x")
    flat = results[-1][1] / results[1][1]
    print(f"index 1000 vs 100 rules: {flat:.2f}x (flat = 1.0)")

    print()
    print("load + validate (cold, from files)        hermesd ms   reference hot reload 3000 ms")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (1, 100, 1000):
            folder = Path(tmp) / str(n)
            folder.mkdir()
            (folder / "pack.yaml").write_text(yaml.safe_dump(pack_dict(n), allow_unicode=True), encoding="utf-8")
            clear_parse_caches()
            t0 = time.perf_counter()
            loaded = load_rules(folder)
            ms = (time.perf_counter() - t0) * 1000
            print(f"  {n:>5} rules ({(folder / 'pack.yaml').stat().st_size // 1024:>4} KiB){'':20} {ms:>9.1f}   "
                  f"{3000 / ms:>8.0f}x faster")
            assert len(loaded.engine) == n
    shipped = ROOT / "config" / "rules"
    if shipped.is_dir():
        clear_parse_caches()
        t0 = time.perf_counter()
        loaded = load_rules(shipped)
        ms = (time.perf_counter() - t0) * 1000
        print(f"  shipped config/rules ({len(loaded.engine)} rules){'':16} {ms:>9.1f}   {3000 / ms:>8.0f}x faster")


if __name__ == "__main__":
    main()
