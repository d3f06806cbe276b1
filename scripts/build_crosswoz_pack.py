#!/usr/bin/env python3
"""Build the CrossWOZ pack (``config/packs/crosswoz/``) from the shared CrossWOZ data.

Usage: ``python scripts/build_crosswoz_pack.py [--data ../shared/data/crosswoz] [--out config/packs/crosswoz]
[--holdout-fold K [--folds 5]]``

Source: CrossWOZ (Zhu et al., "CrossWOZ: A Large-Scale Chinese Cross-Domain Task-Oriented
Dialogue Dataset", TACL 2020), Apache-2.0 — ``LICENSE`` and ``ATTRIBUTION.md`` go into the pack.

What the pack is made of:

- the **database** is not copied: the pack's ``hermesd.yaml`` names its folder
  (``tools.data_dir``, default ``../shared/data/crosswoz/database`` next to the repository) and
  the tool reads it there through a ``{data_dir}`` grant; places, dishes, facilities and
  hotel types come from it at run time;
- the **readers** (``config/packs/crosswoz/tools/_cw/cw_read.py``: number, price, rating and
  duration readers, context words, 从…到… spans, references to chosen places) and the state rules
  (``cw_track.py``), the query and reply code (``cw_db.py``, ``cw_answer.py``, the handler
  ``query.py`` of the one tool ``crosswoz_query``) are hand-written from how Chinese states these
  things, not from dialogues; they are committed once, in the pack, and never copied: the tool's
  descriptor names them (``handler: ../_cw/query.py``);
- from the **build dialogues' user turns** only: the intent examples (``intents/crosswoz.yaml``,
  one intent per user dialogue act: inform, request, thanks, bye, greet) and ``learned.json``
  (database dish and place names that those users say as everyday words — 没有, 其他, 火锅 —
  and so are never read as a dish or a place).

Writes the generated parts, never committed (see the pack's ``.gitignore``): ``intents/`` (and
its compiled ``intents/pack.compiled``, so the daemon reaches READY without training),
``rules/``, ``tools/crosswoz_query/`` (``tool.yaml``, ``test_cases.json``),
``tools/_cw/learned.json``, ``LICENSE``. The hand-written files (``hermesd.yaml``,
``ATTRIBUTION.md``, ``.gitignore``, ``tools/_cw/*.py``) are copied when ``--out`` is another
folder; there the config's ``tools.data_dir`` names the database of ``--data`` by its absolute
path (its relative default is relative to the pack in the repository).

``--holdout-fold K`` leaves out the dialogues with ``int(sha1(dialogue_id), 16) % folds == K``
(:func:`fold_of`), for cross-validation (``scripts/crossval_crosswoz.py``); without it every
shared dialogue builds the pack.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
#: the pack's hand-written files (committed); everything else in the pack is generated here
PACK_SRC = REPO / "config" / "packs" / "crosswoz"
SRC = PACK_SRC / "tools" / "_cw"
HAND_WRITTEN = ("hermesd.yaml", "ATTRIBUTION.md", ".gitignore", *(f"tools/_cw/{m}.py" for m in
                                                               ("query", "taxi", "cw_answer", "cw_db", "cw_read", "cw_track")))
DEFAULT_DATA = REPO.parent / "shared" / "data" / "crosswoz"
#: examples per intent (most frequent first, then by a stable hash): enough for the act
#: classifier, few enough that it trains in well under a second
MAX_EXAMPLES = 300
INTENTS = {"crosswoz.inform": "the user states what they look for (constraints, a place by name, a trip)",
           "crosswoz.request": "the user asks for attributes of a chosen place (地址, 电话, 周边酒店 …)",
           "crosswoz.thanks": "thanks", "crosswoz.bye": "goodbye", "crosswoz.greet": "a greeting alone"}


#: what accepts a taxi just offered: a word that asks for the booking ("好的，帮我叫吧"), or an
#: utterance that is only a yes; words that turn it down or close the talk ("不用了", "谢谢")
#: never do. A bare 好 inside a longer utterance does not: after a taxi offer, the next user turn
#: of the shared dialogues says "好的，…" and goes on to something else 21 times in 110
TAXI_AGREE = ("叫车", "叫吧", "叫一辆", "叫辆", "帮我叫", "给我叫", "预订", "订吧", "订车", "确认", "就叫")
TAXI_YES = tuple(w + p for w in ("好", "好的", "好啊", "可以", "行", "是的", "是", "对", "嗯", "要", "需要", "ok", "OK")
                 for p in ("", "。", "！", "!", "，叫吧", "，麻烦了"))
TAXI_REFUSE = ("不", "别", "算了", "谢谢", "再见", "取消")


def fold_of(dialogue_id: str, folds: int = 5) -> int:
    """Cross-validation fold of a dialogue: ``int(sha1(dialogue_id), 16) % folds``."""
    return int(hashlib.sha1(str(dialogue_id).encode()).hexdigest(), 16) % folds


def load_dialogues(path: Path) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                out[str(r["dialogue_id"])].append(r)
    for turns in out.values():
        turns.sort(key=lambda r: r["turn"])
    return dict(out)


def act_label(turn: dict) -> str | None:
    """A user turn's intent: inform when it states a value, else request, else its General act."""
    acts = turn.get("dialog_act") or []
    if any(a[0] in ("Inform", "Select") for a in acts):
        return "crosswoz.inform"
    if any(a[0] == "Request" for a in acts):
        return "crosswoz.request"
    general = [a[1] for a in acts if a[0] == "General"]
    for g in ("thank", "bye", "greet"):
        if g in general:
            return {"thank": "crosswoz.thanks", "bye": "crosswoz.bye", "greet": "crosswoz.greet"}[g]
    return None


def examples(build: dict[str, list[dict]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for turns in build.values():
        for t in turns:
            if t["speaker"] == "user":
                label = act_label(t)
                if label:
                    out[label].append(t["text"].strip())
    picked = {}
    for label, texts in out.items():
        uniq = sorted(set(texts), key=lambda s: hashlib.sha1(s.encode()).hexdigest())
        picked[label] = sorted(uniq[:MAX_EXAMPLES])
    return picked


def learned(build: dict[str, list[dict]], db_dir: Path) -> dict:
    """Database dish/place names the build users say where no dialogue act carries them, more
    often than where one does: everyday words (没有, 火锅, a restaurant called 酒吧)."""
    import sys
    sys.path.insert(0, str(SRC))
    import cw_db
    import cw_read

    lex = cw_read.Lexicon(cw_db.load(str(db_dir)))
    said: Counter = Counter()
    annotated: Counter = Counter()
    for turns in build.values():
        for t in turns:
            if t["speaker"] != "user":
                continue
            values = " ".join(str(a[3]) for a in t.get("dialog_act") or [])
            for _, _, infos in lex.find(cw_read.normalize(t["text"])):
                for kind in ("dish", "place"):
                    if kind in infos:
                        name = infos[kind][2]
                        (annotated if name in values else said)[(kind, name)] += 1
    stop = sorted(k for k in said if said[k] > annotated[k])
    return {"stop_dishes": [n for k, n in stop if k == "dish"], "stop_names": [n for k, n in stop if k == "place"],
            "build_dialogues": len(build)}


def _plan(intent: str, first: bool = False) -> list[dict]:
    # session.turn: the parts of one utterance share it, so the tool reads them as one turn
    params = {"utterance": "{{session.utterance}}", "intent": intent, "turn": "{{session.turn}}"}
    if not first:
        params["state"] = "{{session.cw}}"
    return [{"tool": "crosswoz_query", "id": "q", "params": params},
            {"set_state": {"cw": "{{steps.q.state}}"}},
            {"reply": {"zh": "{{steps.q.say}}", "en": "{{steps.q.say}}"}}]


def rules_doc() -> dict:
    fallback = [{"reply": {"zh": "抱歉，旅游数据库暂时查不了，请稍后再试。",
                           "en": "Sorry, the travel database cannot be read right now."}}]
    rules = []
    # a taxi offered by the last turn (session.cw.taxi_offer) and a yes to it now: a card first,
    # then the transactional crosswoz_taxi books it (its descriptor says confirm: true too)
    agree = " or ".join([*(f"'{w}' in session.utterance" for w in TAXI_AGREE),
                         "session.utterance in [" + ", ".join(f"'{w}'" for w in TAXI_YES) + "]"])
    refuse = " or ".join(f"'{w}' in session.utterance" for w in TAXI_REFUSE)
    for name in INTENTS:
        rules.append({"rule_id": f"{name}.taxi_book", "priority": 20, "trigger": {"intent": name},
                      "conditions": ["has(session.cw.taxi_offer)", f"({agree})", f"not ({refuse})"],
                      "actions": [
                          {"confirm": {"zh": "叫一辆从{{session.cw.taxi_offer.from}}到{{session.cw.taxi_offer.to}}的出租车？",
                                       "en": "Book a taxi from {{session.cw.taxi_offer.from}} to "
                                             "{{session.cw.taxi_offer.to}}?"},
                           "fields": {"出发地": "{{session.cw.taxi_offer.from}}",
                                      "目的地": "{{session.cw.taxi_offer.to}}"}},
                          {"tool": "crosswoz_taxi", "id": "book",
                           "params": {"trip": "{{session.cw.taxi_offer}}", "state": "{{session.cw}}"}},
                          {"set_state": {"cw": "{{steps.book.state}}"}},
                          {"reply": {"zh": "{{steps.book.say}}", "en": "{{steps.book.say}}"}}],
                      "fallback": [{"reply": {"zh": "抱歉，现在叫不了车，请稍后再试。",
                                              "en": "Sorry, a taxi cannot be booked right now."}}]})
    # a question how to do a thing ("从A到B怎么坐地铁", "怎么走") or whether it was done
    # ("周边还有别的景点了吗") is, to a travel assistant, a question its database answers: the turn rules read
    # session.asked, so such a question runs them (hermesd.session.planrun.answers_asked) rather
    # than being told how to ask — the taxi booking's card makes every intent one that acts
    asked = "not has(session.asked) or session.asked in ['how', 'done']"
    for name in INTENTS:
        # every turn: read it against the tracked state (session.cw), query what changed, answer
        rules.append({"rule_id": f"{name}.turn", "priority": 10, "trigger": {"intent": name},
                      "conditions": ["has(session.cw)", asked], "actions": _plan(name), "fallback": fallback})
        rules.append({"rule_id": f"{name}.first", "priority": 0, "trigger": {"intent": name},
                      "conditions": [asked], "actions": _plan(name, first=True), "fallback": fallback})
    return {"pack": "crosswoz", "description": "CrossWOZ Beijing travel: 景点 餐馆 酒店 地铁 出租 "
                                              "(generated by scripts/build_crosswoz_pack.py)",
            "fallback": [{"reply": {"zh": "请告诉我想找的景点、餐馆或酒店，或者从哪里到哪里。",
                                    "en": "Tell me which attraction, restaurant or hotel you look for, or a trip."}}],
            "rules": rules}


def intents_doc(build: dict[str, list[dict]]) -> dict:
    ex = examples(build)
    return {"pack": "crosswoz", "intents": [{"name": n, "description": d, "examples": ex.get(n, [])}
                                            for n, d in INTENTS.items()]}


def write_tools(out: Path, learned_doc: dict) -> None:
    """``tools/crosswoz_query/`` (a descriptor naming the shared handler ``tools/_cw/query.py``,
    its test cases) and ``tools/_cw/learned.json`` (what the handler reads beside it)."""
    tools = out / "tools"
    d = tools / "crosswoz_query"
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    (tools / "_cw").mkdir(parents=True, exist_ok=True)
    (tools / "_cw" / "learned.json").write_text(json.dumps(learned_doc, ensure_ascii=False, indent=1) + "\n")
    (d / "tool.yaml").write_text(yaml.safe_dump({
        "name": "crosswoz_query", "version": "1.0.0", "handler": "../_cw/query.py",
        "description": {"zh": "CrossWOZ 旅游助手：读出这句话的约束、请求和地点，更新各领域的查询条件，"
                              "查询数据库（景点、餐馆、酒店、地铁、出租）并回答所问的属性",
                        "en": "CrossWOZ travel: reads one utterance's constraints, requests and places, updates "
                              "each domain's query, queries the database (attractions, restaurants, hotels, "
                              "metro, taxi) and answers the attributes asked for"},
        "input": {"type": "object", "required": ["utterance"], "additionalProperties": False,
                  "properties": {"utterance": {"type": "string", "maxLength": 2000},
                                 "state": {"type": ["object", "null"]}, "intent": {"type": ["string", "null"]},
                                 "turn": {"type": ["integer", "null"], "minimum": 0}}},
        "output": {"state": {"type": "object", "required": True}, "queries": {"type": "array", "required": True},
                   "requests": {"type": "array", "required": True}, "results": {"type": "object", "required": True},
                   "answers": {"type": "array", "required": True}, "say": {"type": "string", "required": True}},
        "errors": {"DB_MISSING": {"zh": "旅游数据库读不到，请检查 tools.data_dir。",
                                  "en": "The travel database cannot be read; check tools.data_dir."}},
        # the database folder the pack's config names (tools.data_dir), read-only, nothing else
        "needs": ["data_dir"], "grants": {"fs": {"read": ["{data_dir}"]}},
        "idempotent": True, "kind": "database",
        "sandbox": {"memory_mb": 256, "cpu_ms": 5000, "timeout_ms": 10000}}, sort_keys=False, allow_unicode=True))
    taxi = tools / "crosswoz_taxi"
    if taxi.exists():
        shutil.rmtree(taxi)
    taxi.mkdir(parents=True)
    (taxi / "tool.yaml").write_text(yaml.safe_dump({
        "name": "crosswoz_taxi", "version": "1.0.0", "handler": "../_cw/taxi.py",
        "description": {"zh": "叫一辆出租车（从出发地到目的地），用户确认后才叫",
                        "en": "Books a taxi from 出发地 to 目的地, only once the user confirmed"},
        "input": {"type": "object", "required": ["trip"], "additionalProperties": False,
                  "properties": {"trip": {"type": "object"}, "state": {"type": ["object", "null"]}}},
        "output": {"state": {"type": "object", "required": True}, "booked": {"type": "object", "required": True},
                   "say": {"type": "string", "required": True}},
        "errors": {"TRIP_INVALID": {"zh": "叫车需要出发地和目的地。", "en": "A taxi needs a start and a destination."}},
        # a booking: confirmed by the user first, never retried on its own
        "confirm": True, "idempotent": False, "kind": "local",
        "sandbox": {"memory_mb": 64, "cpu_ms": 1000, "timeout_ms": 5000}}, sort_keys=False, allow_unicode=True))
    (taxi / "test_cases.json").write_text(json.dumps([
        {"name": "books the trip offered", "input": {"trip": {"from": "故宫", "to": "颐和园"}, "state": {}},
         "expect": {"values": {"booked": {"出发地": "故宫", "目的地": "颐和园"}}}},
        {"name": "a trip needs both ends", "input": {"trip": {"from": "故宫"}}, "expect": {"error": "TRIP_INVALID"}},
    ], ensure_ascii=False, indent=1) + "\n")
    (d / "test_cases.json").write_text(json.dumps([
        {"name": "thanks: nothing to look up", "input": {"utterance": "", "intent": "crosswoz.thanks"},
         "expect": {"values": {"say": "不客气。", "queries": [], "answers": []}}},
        {"name": "an utterance is required", "input": {"state": {}}, "expect": {"error": "INPUT_INVALID"}},
    ], ensure_ascii=False, indent=1) + "\n")


def write_config(out: Path, db_dir: Path) -> None:
    """The hand-written ``hermesd.yaml`` of a pack built outside the repository's pack folder, its
    ``tools.data_dir`` pointed at ``db_dir`` (absolute); every other path in it is relative to the
    file and so holds wherever the pack is. The repository's own pack keeps its relative default."""
    text = (PACK_SRC / "hermesd.yaml").read_text(encoding="utf-8")
    text, n = re.subn(r"(?m)^(  data_dir:).*$", lambda m: f"{m.group(1)} {json.dumps(str(db_dir.resolve()))}", text)
    if n != 1:
        raise SystemExit(f"{PACK_SRC / 'hermesd.yaml'}: expected one tools.data_dir line")
    (out / "hermesd.yaml").write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--out", type=Path, default=REPO / "config" / "packs" / "crosswoz")
    ap.add_argument("--holdout-fold", type=int, help="leave out the dialogues of this fold (cross-validation)")
    ap.add_argument("--folds", type=int, default=5)
    a = ap.parse_args(argv)
    if a.out.resolve() == PACK_SRC.resolve():
        return build_pack(a, a.out)
    # built elsewhere (an install's staging folder, a test's scratch folder): through the pack cache
    # when $HD_PACK_CACHE names one (the test suite's; scripts/_pack_cache.py has the key)
    import _pack_cache  # a sibling of this script (run as a script only)

    args = {"data": str(a.data.resolve()), "holdout_fold": a.holdout_fold, "folds": a.folds}
    return _pack_cache.build_or_copy("crosswoz", a.out,
                                     _pack_cache.builder_sources("crosswoz", Path(__file__), [a.data]),
                                     args, lambda out: build_pack(a, out))


def build_pack(a: argparse.Namespace, out: Path) -> int:
    """Build the pack into ``out`` from the parsed arguments ``a`` (``a.out`` is not read). :return: 0."""
    dialogues = load_dialogues(a.data / "crosswoz_turns.jsonl")
    build = {k: v for k, v in dialogues.items()
             if a.holdout_fold is None or fold_of(k, a.folds) != a.holdout_fold}
    elsewhere = out.resolve() != PACK_SRC.resolve()
    if elsewhere:  # a pack built elsewhere gets the hand-written files too
        for rel in HAND_WRITTEN:
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(PACK_SRC / rel, out / rel)
    for sub in ("intents", "rules"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    head = ("# Generated by scripts/build_crosswoz_pack.py from the CrossWOZ build dialogues\n"
            "# (Apache-2.0, see ../ATTRIBUTION.md). Do not edit by hand; rerun the script.\n")
    (out / "intents" / "crosswoz.yaml").write_text(head + yaml.safe_dump(intents_doc(build), sort_keys=False,
                                                                          allow_unicode=True, width=120))
    (out / "rules" / "crosswoz.yaml").write_text(head + yaml.safe_dump(rules_doc(), sort_keys=False,
                                                                        allow_unicode=True, width=120))
    write_tools(out, learned(build, a.data / "database"))
    if elsewhere:
        write_config(out, a.data / "database")
    elif a.data.resolve() != DEFAULT_DATA.resolve():
        print(f"note: {out / 'hermesd.yaml'} still names its default tools.data_dir; "
              f"set tools.data_dir to {(a.data / 'database').resolve()} to read that database")
    shutil.copy(a.data / "LICENSE", out / "LICENSE")
    print(f"built {out} from {len(build)} of {len(dialogues)} dialogues")
    # compile the intents ahead of time (hermesd build-pack), as the SGD builder does: the daemon
    # then loads the act scorer in ~20 ms instead of training it at every start (READY 0.4 s, was
    # 2.4-4.5 s in the cross-validation, where each fold's pack is started once)
    from _compile_intents import compile_intents  # a sibling of this script (run as a script only)

    return compile_intents(out / "intents")


if __name__ == "__main__":
    raise SystemExit(main())
