"""CrossWOZ pack tool ``crosswoz_query``: one user utterance against the dialogue state → the
database queries of the domains whose constraints changed, the records chosen, the requested
attributes answered from them, and the reply in Chinese.

Input ``{utterance, state?, intent?, turn?}`` (``state``: ``session.cw``, what this tool returned
last time; absent at the start; ``turn``: ``session.turn``, the same for every part of one
utterance). Output ``{state, queries: [{domain, constraints}], requests:
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
#: queries kept in ``query_log``: one turn queries each of the five domains at most once, and the
#: replay reads the log after every turn that queried, so five suffice; every entry more is carried
#: in and out of the tool, stored and redacted on every turn (20 made the state ~3x larger)
LOG_KEEP = 5
_LEX: list = []


def lexicon() -> "cw_read.Lexicon":
    """The database's places, dishes and facilities, built once per worker."""
    if not _LEX:
        learned = json.loads((_HERE / "learned.json").read_text(encoding="utf-8"))
        _LEX.append(cw_read.Lexicon(cw_db.load(), set(learned.get("stop_dishes", [])),
                                    set(learned.get("stop_names", []))))
    return _LEX[0]


def _log_queries(prior: dict, state: dict, queries: list[dict], turn) -> None:
    """Number this request's queries into ``state`` (``queries_made``, ``query_log``).

    Several requests of one utterance run this tool once each, with the same ``turn``: the
    turn's queries then stand for one reading of the whole utterance — a later part's query of
    a domain replaces the earlier part's one of that domain (the wizard queries each domain once
    per turn, CrossWOZ, Zhu et al. 2020), the turn's queries numbered from where it began."""
    log = [dict(q) for q in prior.get("query_log") or []]
    seq = int(prior.get("queries_made") or 0)
    if turn is not None and prior.get("turn") == turn:  # a later part of the same utterance
        base = int(prior.get("turn_base") or 0)
        redone = {q["domain"] for q in queries}
        older = [q for q in log if int(q.get("seq") or 0) <= base]
        this = [q for q in log if int(q.get("seq") or 0) > base and q.get("domain") not in redone]
        this += [dict(q) for q in queries]
        for k, q in enumerate(this, base + 1):
            q.update(seq=k, turn=turn)
        log, seq = older + this, base + len(this)
    else:
        base = seq
        for q in queries:
            seq += 1
            log.append({"seq": seq, **q, "turn": turn})
    state["turn_base"] = base
    state["turn"] = turn
    state["queries_made"], state["query_log"] = seq, log[-LOG_KEEP:]


def handle(input: dict) -> dict:
    text = str(input.get("utterance") or "").strip()
    prior = input.get("state") or {}
    intent = input.get("intent")
    turn = input.get("turn")
    if not text:
        out = cw_answer.answer(prior, [], [], {}, intent)
        return {**out, "queries": [], "requests": []}
    acts = cw_read.read(text, prior, lexicon())
    db = cw_db.load()
    for dom, said in acts["inform"].items():  # in the database's words before they are tracked
        acts["inform"][dom] = {k: cw_db.canonical(dom, k, v, db) for k, v in said.items()}
    state, changed = cw_track.step(prior, acts, text)
    queries = [{"domain": d, "constraints": state["cons"][d]} for d in changed]
    requests = [list(r) for r in acts["request"]]
    # every query of the dialogue, numbered (the newest LOG_KEEP): hermesctl replay reads what a
    # whole turn queried
    _log_queries(prior, state, queries, turn)
    out = cw_answer.answer(state, queries, requests, cw_db.load(), intent, acts.get("unknown") or [], text,
                           acts.get("conflicts") or [])
    return {**out, "queries": queries, "requests": requests}
