"""hermesd's parse beside hassil's ``recognize`` on the same sentences and intents (same run).

hassil (https://github.com/OHF-Voice/hassil, the Home Assistant intent matcher) matches
sentence templates; it is given the shipped packs' intents converted here, template by
template, as honestly as the two formats allow:

- each ``templates`` line of an intent becomes a hassil sentence; ``{slot}`` stays a slot;
- hermesd lets any run of polite words stand before and after a template ("请帮我…",
  "could you please …", "…一下吧"): hassil gets the same words as one optional
  alternative before and one after (``[(please|can you|…)]``);
- a slot whose entity type is a gazetteer (service, device, doc_type) or the directory's
  people gets a list of the same surface forms hermesd's entity extractor knows; a slot
  hermesd fills by parsing (datetime, doc_id, order_id, task) is a hassil wildcard, since
  hassil has no time or id parser;
- intents without templates (hermesd reaches them only through its trained scorer) have no
  hassil sentences: on those hassil can only answer "no match" — that is the difference
  between a template matcher and a template matcher plus a scorer, and it is reported.

Sentences: the held-out phrasings of ``tests/nlu/test_phrasings.py`` (labelled, written
without copying the packs' examples), the packs' own examples (labelled; in-sample for
hermesd's scorer, which trains on them), and the ~30-character xSID/SNIPS utterances of part 1
(unlabelled, nearly all outside the packs: the right answer is mostly "no intent").
Agreement: both give the same intent, or both give none (hermesd out of scope, hassil no match).
Speed: p50 of the best of 3 runs per sentence, each sentence, both libraries, same process.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from hermesd.nlu.intents import _POLITE_HEAD_WORDS, _POLITE_TAIL_WORDS, IntentSpec  # noqa: E402

#: entity types hermesd fills by parsing, not from a list: a hassil wildcard
PARSED_TYPES = ("datetime", "doc_id", "order_id", "task")


def hassil_intents(specs: Sequence[IntentSpec], gazetteers: dict[str, dict[str, str]], people: dict[str, str]) -> Any:
    """The packs' templates as a :class:`hassil.Intents` (see the module docstring)."""
    from hassil import Intents  # noqa: PLC0415 - bench-only dependency

    head = "[(" + "|".join(_POLITE_HEAD_WORDS) + ")] "
    tail = " [(" + "|".join(_POLITE_TAIL_WORDS) + ")]"
    intents: dict[str, Any] = {}
    lists: dict[str, Any] = {}
    for spec in specs:
        if not spec.templates:
            continue
        intents[spec.name] = {"data": [{"sentences": [head + t + tail for t in spec.templates]}]}
        for slot, typ in spec.slots.items():
            if typ in PARSED_TYPES:
                lists[slot] = {"wildcard": True}
            else:
                forms = people if typ == "person" else gazetteers.get(typ, {})
                values = lists.setdefault(slot, {"values": []})["values"]
                values += [{"in": f, "out": v} for f, v in forms.items() if {"in": f, "out": v} not in values]
    # a template may name an entity type itself ({quantity}: 一份 / 两份) rather than a declared slot;
    # hermesd fills it by parsing, so hassil gets a wildcard for it too
    for spec in specs:
        for t in spec.templates:
            for name in re.findall(r"\{(\w+)\}", t):
                lists.setdefault(name, {"wildcard": True})
    return Intents.from_dict({"language": "zh", "intents": intents, "lists": lists})


def _best_us(fn: Callable[[], Any]) -> float:
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter_ns()
        fn()
        best = min(best, (time.perf_counter_ns() - t0) / 1000)
    return best


def _p50(xs: list[float]) -> float:
    s = sorted(xs)
    return s[len(s) // 2] if s else float("nan")


def compare(parse: Callable[[str], Any], specs: Sequence[IntentSpec], gazetteers: dict[str, dict[str, str]],
            people: dict[str, str], sets: dict[str, list[tuple[str, str | None]]]) -> None:
    """Print, per sentence set, accuracy (labelled sets), agreement and p50 µs of both.

    :param parse: ``text → ParseResult`` of hermesd (the shipped engine, people set).
    :param sets: name → ``[(sentence, expected intent or None when unlabelled)]``.
    """
    try:
        from hassil import recognize  # noqa: PLC0415 - bench-only dependency
    except ImportError:
        print("   hassil is not installed: .venv/bin/pip install -e '.[bench]'")
        return
    intents = hassil_intents(specs, gazetteers, people)
    n_sent = sum(len(s.templates) for s in specs)
    print(f"   hassil {_version()}: {len(intents.intents)} of {len(specs)} intents have templates "
          f"({n_sent} sentences)" + ("; the others only hermesd's scorer reaches" if len(intents.intents) < len(specs)
                                     else ""))
    print(f"   {'sentences':<34} {'n':>5} {'hermesd acc':>11} {'hassil acc':>10} {'agree':>7} "
          f"{'hermesd p50 µs':>14} {'hassil p50 µs':>13} {'time hassil/hermesd':>19}  claimed hermesd/hassil")
    for name, rows in sets.items():
        h_us, a_us, agree, h_ok, a_ok, labelled, h_any, a_any = [], [], 0, 0, 0, 0, 0, 0
        if not rows:
            continue
        for text, want in rows:
            parse(text)  # warm (caches of both sides are per-process, not per-sentence)
            recognize(text, intents)
            h_us.append(_best_us(lambda: parse(text)))
            a_us.append(_best_us(lambda: recognize(text, intents)))
            r = parse(text)
            h = None if r.out_of_scope else r.intent
            m = recognize(text, intents)
            a = m.intent.name if m is not None else None
            agree += h == a
            h_any += h is not None
            a_any += a is not None
            if want is not None or name.startswith("pack out_of_scope"):
                labelled += 1
                h_ok += h == want
                a_ok += a == want
        acc = (lambda k: f"{k / labelled:10.1%}") if labelled else (lambda k: f"{'-':>10}")
        print(f"   {name:<34} {len(rows):>5} {acc(h_ok):>11} {acc(a_ok):>10} {agree / len(rows):>6.1%} "
              f"{_p50(h_us):>14.1f} {_p50(a_us):>13.1f} {_p50(a_us) / _p50(h_us):>18.2f}x  {h_any:>7} / {a_any}")
    print("   (claimed: sentences given an intent, hermesd not out of scope / hassil matched)")


def _version() -> str:
    try:
        from importlib.metadata import version  # noqa: PLC0415

        return version("hassil")
    except Exception:  # noqa: BLE001 - only for the printout
        return "?"
