"""CrossWOZ pack tool ``crosswoz_query``: one user utterance against the dialogue state → the
database queries of the domains whose constraints changed, the records chosen, the requested
attributes answered from them, and the reply in Chinese.

Input ``{utterance, state?, intent?}`` (``state``: ``session.cw``, what this tool returned last
turn; absent at the start). Output ``{state, queries: [{domain, constraints}], requests:
[[domain, slot]], results: {domain: [names]}, answers: [{domain, slot, value}], say}``; the
state numbers every query of the dialogue (``queries_made``, and the newest in ``query_log``:
``[{seq, domain, constraints}]``, what ``hermesctl replay`` scores). One tool, so every worker of the pool can serve every turn (a worker keeps the sandbox
and the database it loaded).

Readers: :mod:`cw_read` (values, words, references); state rules: :mod:`cw_track`; database and
query semantics: :mod:`cw_db` (read once per worker from ``HERMESD_DATA_DIR``, the pack's
``tools.data_dir``, the one folder this tool's grant lets it read; a missing database is
``DB_MISSING``, never an invented record); the reply: :mod:`cw_answer`. ``learned.json`` beside
this file holds what the build dialogues taught (dish and place names that are everyday words
there; written by scripts/build_crosswoz_pack.py). This module is the handler the tool's
descriptor names (``handler: ../_cw/query.py``), the one source of it; data conventions from
CrossWOZ (Zhu et al., TACL 2020, Apache-2.0).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:
    sys.path.insert(0, str(_HERE))

import cw_answer  # noqa: E402
import cw_db  # noqa: E402
import cw_read  # noqa: E402
import cw_track  # noqa: E402

DataMissing = cw_db.DataMissing
LOG_KEEP = 20
_LEX: list = []


def lexicon() -> "cw_read.Lexicon":
    """The database's places, dishes and facilities, built once per worker."""
    if not _LEX:
        learned = json.loads((_HERE / "learned.json").read_text(encoding="utf-8"))
        _LEX.append(cw_read.Lexicon(cw_db.load(), set(learned.get("stop_dishes", [])),
                                    set(learned.get("stop_names", []))))
    return _LEX[0]


def handle(input: dict) -> dict:
    text = str(input.get("utterance") or "").strip()
    prior = input.get("state") or {}
    intent = input.get("intent")
    if not text:
        out = cw_answer.answer(prior, [], [], {}, intent)
        return {**out, "queries": [], "requests": []}
    acts = cw_read.read(text, prior, lexicon())
    state, changed = cw_track.step(prior, acts, text)
    queries = [{"domain": d, "constraints": state["cons"][d]} for d in changed]
    requests = [list(r) for r in acts["request"]]
    # every query of the dialogue, numbered (the newest LOG_KEEP): several requests in one
    # utterance run this tool once each, and hermesctl replay reads what a whole turn queried
    seq = int(prior.get("queries_made") or 0)
    log = list(prior.get("query_log") or [])
    for q in queries:
        seq += 1
        log.append({"seq": seq, **q})
    state["queries_made"], state["query_log"] = seq, log[-LOG_KEEP:]
    out = cw_answer.answer(state, queries, requests, cw_db.load(), intent, acts.get("unknown") or [], text)
    return {**out, "queries": queries, "requests": requests}
