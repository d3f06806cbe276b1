"""Every shipped rule's reply, with every shipped tool's outputs, in zh and en, reads as words.

No daemon: the shipped packs are loaded with the shipped tools' reply templates, and each rule's
plan runs through the real :class:`~hermesd.session.executor.Executor` against fake tool calls
that return (a) what each tool's own ``test_cases.json`` inputs give when its handler runs here,
and (b) hand-written realistic outputs (checked against the tool's output schema) for what a
test machine cannot produce (a failed unit, the network down, a list of reminders). Confirmations
are accepted, business errors run the compensations and the rule's fallback, and a failure
without a fallback text says :func:`~hermesd.dialogue.catalogue.failure`. Every text a person
would read — replies, confirmation questions, failure sentences — is then checked:

- no ``true``/``false``/``None``/``null``, no ``{``/``}``/``[``/``]`` (no JSON, no stray template);
- no stable code (``UPPER_SNAKE``), no department code, no anchor id;
- no ISO 8601 timestamp or date, no bare float with more than one decimal;
- in a zh reply no English word outside a short list of units/acronyms, in an en reply no Chinese,

in the positions the templates fill: the free text a tool or the user brought (a file name, a
journal message, the task of a reminder) is taken out first, because it is shown as it is.
``test_the_checks_catch_raw_values`` shows that the checks fail on the replies this file replaced.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hermesd.errors as errors
from hermesd.anchors.directory import Directory
from hermesd.dialogue.catalogue import failure
from hermesd.rules.engine import Plan
from hermesd.rules.loader import load_rules
from hermesd.rules.model import ConfirmAction, ReplyAction, ToolAction
from hermesd.session.executor import Executor, Failure, Finished, Handoff, Suspend
from hermesd.tools.descriptor import Descriptor, load_descriptor
from hermesd.tools.schema import Validator

REPO = Path(__file__).resolve().parents[2]
TOOLS = REPO / "tools"
RULES = REPO / "config" / "rules"
DIRECTORY = REPO / "config" / "directory.yaml"

DESCRIPTORS: dict[str, Descriptor] = {d.name: load_descriptor(d)[0] for d in sorted(TOOLS.iterdir())
                                      if (d / "tool.yaml").is_file()}
DEPARTMENTS = Directory.load(DIRECTORY).department_names()

# --- realistic outputs a test machine may not give ------------------------------------------------
_ONCE = {"every_en": "", "every_zh": "", "repeats_en": "", "repeats_zh": "", "cycle_en": "", "cycle_zh": "",
         "ends_en": "", "ends_zh": ""}
_ITEM = {"id": "r1", "text": "给王会计回电话", "due": "2026-06-14T09:00:00+08:00", "status": "pending",
         "time_given": True, "local": "2026-06-14 09:00", "time": "09:00", **_ONCE}
_ITEM2 = {"id": "r2", "text": "book the meeting room", "due": "2026-06-19T14:30:00+08:00", "status": "pending",
          "time_given": False, "local": "2026-06-19 14:30", "time": "14:30", **_ONCE}
# a repeating reminder, as the tool lists it (tools/reminder/handler.py _item_view)
_ITEM3 = {"id": "r3", "text": "吃药", "due": "2026-06-15T08:00:00+08:00", "status": "pending", "time_given": True,
          "local": "2026-06-15 08:00", "time": "08:00",
          "repeat": {"every": 1, "unit": "week", "start": "2026-06-15T08:00:00+08:00", "tz": "Asia/Shanghai",
                     "days": [1, 3, 5], "until": None, "count": None},
          "every_en": "every Monday, Wednesday and Friday at 08:00", "every_zh": "每周一、三、五 08:00",
          "repeats_en": " (every Monday, Wednesday and Friday at 08:00)", "repeats_zh": "（每周一、三、五 08:00）",
          "cycle_en": "every Monday, Wednesday and Friday at 08:00", "cycle_zh": "每周一、三、五 08:00",
          "ends_en": "", "ends_zh": ""}
# a repeating one with an end (RFC 5545 UNTIL: the last day it rings)
_ITEM4 = {"id": "r4", "text": "吃益生菌", "due": "2026-06-15T08:00:00+08:00", "status": "pending", "time_given": True,
          "local": "2026-06-15 08:00", "time": "08:00",
          "repeat": {"every": 1, "unit": "day", "start": "2026-06-15T08:00:00+08:00", "tz": "Asia/Shanghai",
                     "days": [], "until": "2026-07-01T00:00:00+08:00", "count": None},
          "every_en": "every day at 08:00 until 30 Jun", "every_zh": "每天 08:00，到6月30日为止",
          "repeats_en": " (every day at 08:00 until 30 Jun)", "repeats_zh": "（每天 08:00，到6月30日为止）",
          "cycle_en": "every day at 08:00", "cycle_zh": "每天 08:00", "ends_en": " until 30 Jun", "ends_zh": "，到6月30日为止"}
_ENTRY = {"time_us": 1_781_311_512_000_000, "unit": "nginx.service", "priority": 3,
          "message": "upstream timed out while reading response header"}
SAMPLES: dict[str, list[dict[str, Any]]] = {
    "system_status": [
        {"cpu_percent": 12.3, "cpu_count": 4, "load_avg": [0.52, 0.41, 0.3],
         "memory": {"total_mb": 3906, "available_mb": 2210, "percent": 43.4},
         "disk": {"path": "/", "total_mb": 59640, "free_mb": 31234, "percent": 47.6},
         "temperatures_c": {"cpu_thermal/0": 48.7}, "uptime_s": 1523.2},
        {"cpu_percent": 97.25, "cpu_count": 1, "load_avg": [3.14, 2.5, 1.75],
         "memory": {"total_mb": 512, "available_mb": 37, "percent": 92.77},
         "disk": {"path": "/", "total_mb": 7450, "free_mb": 120, "percent": 98.39},
         "temperatures_c": {}, "uptime_s": 3 * 86400 + 7 * 3600 + 59.9},
    ],
    "disk_usage": [
        {"path": "/", "total_mb": 59640, "used_mb": 28406, "free_mb": 31234, "percent": 47.6},
        {"path": "/", "total_mb": 7450, "used_mb": 7330, "free_mb": 120, "percent": 98.39},
    ],
    "network_check": [
        {"interfaces": [{"name": "eth0", "up": True, "addresses": ["192.168.1.20", "fe80::1"]}],
         "default_route": {"interface": "eth0", "gateway": "192.168.1.1"},
         "resolvers": [{"address": "192.168.1.1", "reachable": True}], "online": True},
        {"interfaces": [{"name": "eth0", "up": False, "addresses": []}], "default_route": None,
         "resolvers": [{"address": "192.168.1.1", "reachable": False}], "online": False},
        {"interfaces": [{"name": "wlan0", "up": True, "addresses": ["10.0.0.7"]}],
         "default_route": {"interface": "wlan0", "gateway": "10.0.0.1"},
         "resolvers": [{"address": "10.0.0.1", "reachable": False}], "online": False},
    ],
    "service_status": [
        {"unit": "nginx.service", "load_state": "loaded", "active_state": "active", "sub_state": "running",
         "description": "A high performance web server", "since": "Sat 2026-06-13 08:00:01 CST", "main_pid": 812},
        {"unit": "nginx.service", "load_state": "loaded", "active_state": "failed", "sub_state": "failed",
         "description": "A high performance web server", "since": "", "main_pid": 0},
        {"unit": "nginx.service", "load_state": "loaded", "active_state": "inactive", "sub_state": "dead",
         "description": "", "since": "", "main_pid": 0},
        {"unit": "nginx.service", "load_state": "not-found", "active_state": "inactive", "sub_state": "dead",
         "description": "", "since": "", "main_pid": 0},
    ],
    "service_restart": [{"unit": "nginx.service", "active_state": "active"},
                        {"unit": "nginx.service", "active_state": "activating"}],
    "journal_query": [
        {"entries": [_ENTRY, {**_ENTRY, "time_us": 1_781_225_112_000_000, "unit": "", "priority": 2,
                              "message": "Out of memory: Killed process 4242 (python3)"}], "truncated": False},
        {"entries": [], "truncated": False},
        {"entries": [{**_ENTRY, "time_us": _ENTRY["time_us"] + i * 1_000_000} for i in range(12)], "truncated": True},
    ],
    "contacts": [
        {"matches": [{"id": "person:sales/zhang", "name": "张伟", "title": "工程师", "dept": "sales", "dept_name": "销售部",
                      "dept_name_en": "Sales", "aliases": ["Zhang Wei"], "name_en": "Zhang Wei (张伟)",
                      "title_en": "engineer", "email": "zhang.wei@example.com", "phone": "+86-10-5550-0101"},
                     {"id": "person:rd/zhang", "name": "张强", "title": "工程师", "dept": "rd", "dept_name": "研发部",
                      "dept_name_en": "R&D", "name_en": "张强", "title_en": "engineer"}], "exact": 2},
        # a person without phone or email (王芳 has no phone in config/directory.yaml)
        {"matches": [{"id": "person:finance/wang", "name": "王芳", "title": "会计", "dept": "finance",
                      "dept_name": "财务部", "dept_name_en": "Finance", "name_en": "Wang Fang (王芳)",
                      "title_en": "accountant"}], "exact": 1},
        {"matches": [], "exact": 0},
    ],
    "find_document": [{"matches": [{"document": "报价单Q-2024-061.pdf", "bytes": 48213, "modified": 1_781_234_567}],
                       "count": 1}],
    "note": [{"notes": [{"key": "wifi", "text": "密码在路由器背面", "saved_at": 1_781_234_567}]}, {"notes": []}],
    "order_status": [{"order_id": "SO-20240612", "status": "已发货", "updated": "2024-06-13"},
                     {"order_id": "SO-20240612", "status": "shipped", "detail": "parcel with the courier"}],
    "reminder": [
        {"reminders": [_ITEM], "count": 1},
        {"reminders": [_ITEM, _ITEM2], "count": 2},
        {"reminders": [], "count": 0},
        {"reminders": [{**_ITEM, "status": "cancelled"}], "count": 1},
        {"reminders": [_ITEM3], "count": 1},
        {"reminders": [_ITEM, _ITEM3], "count": 2},
        {"reminders": [{**_ITEM3, "status": "cancelled"}], "count": 1},
        {"reminders": [_ITEM4], "count": 1},
        {"reminders": [_ITEM3, _ITEM4], "count": 2},
    ],
    "send_document": [{"message_id": "m-20260613-7f3a", "document": "报价单Q-2024-061.pdf", "recipient": "张伟",
                       "bytes": 48213, "sha256": "ab" * 32}],
    "export_report": [{"file": "reports/sent_2026-06-10_2026-06-11.csv", "rows": 3},
                      {"file": "reports/sent_2026-06-10_2026-06-11.csv", "rows": 1}],
}

#: output fields shown as they are (names and free text), per tool: not "value positions"
FREE_FIELDS = {
    "contacts": {"name", "name_en", "title", "title_en", "dept_name", "dept_name_en", "email", "phone"}, "disk_usage": {"path"}, "export_report": {"file"},
    "find_document": {"document"}, "journal_query": {"unit", "message"},
    "network_check": {"interface", "gateway", "address", "name"}, "note": {"key", "text"},
    "order_status": {"order_id", "status", "detail"}, "reminder": {"text"},
    "send_document": {"document", "recipient"}, "service_restart": {"unit"}, "service_status": {"unit"},
    "system_status": set(), "recall": {"object", "recipient", "document"},
}


def _load_handler(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"_shipped_handler_{name}", TOOLS / name / "handler.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _case_outputs(tmp: Path) -> dict[str, list[dict[str, Any]]]:
    """What each tool's own test case inputs give on this machine (successes only, schema-checked)."""
    out: dict[str, list[dict[str, Any]]] = {}
    env = {"HERMESD_TOOL_STATE_DIR": tmp / "state", "HERMESD_DOCUMENTS_DIR": tmp / "documents",
           "HERMESD_OUTBOX_DIR": tmp / "outbox", "HERMESD_DIRECTORY_FILE": DIRECTORY}
    saved = {k: os.environ.get(k) for k in env}
    try:
        for name, desc in DESCRIPTORS.items():
            for k, v in env.items():
                path = Path(v) / name if k == "HERMESD_TOOL_STATE_DIR" else Path(v)
                if k != "HERMESD_DIRECTORY_FILE":
                    path.mkdir(parents=True, exist_ok=True)
                os.environ[k] = str(path)
            handler = _load_handler(name)
            inputs, outputs = Validator(desc.input), Validator(desc.output)
            _, cases = load_descriptor(TOOLS / name)
            for case in cases:
                value, bad = inputs.validate(case.input)
                if bad:
                    continue
                try:
                    result = handler.handle(value)
                except Exception:  # noqa: BLE001 - a business error (or no systemd here): not an output
                    continue
                if not outputs.validate(result)[1]:
                    out.setdefault(name, []).append(result)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return out


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    found = _case_outputs(tmp_path_factory.mktemp("tools"))
    every = {name: [*SAMPLES.get(name, []), *found.get(name, [])] for name in DESCRIPTORS}
    assert all(every.values()), {n: len(v) for n, v in every.items()}
    return every


@pytest.fixture(scope="module")
def rules() -> Any:
    return load_rules(RULES, known_tools=set(DESCRIPTORS),
                      tool_replies={n: d.reply_template for n, d in DESCRIPTORS.items()})


def test_samples_are_outputs_the_tools_could_give():
    for name, samples in SAMPLES.items():
        check = Validator(DESCRIPTORS[name].output)
        for s in samples:
            assert not check.validate(s)[1], (name, s, check.validate(s)[1])


# --- the turn: entities, memory and session as the controller gives them -----------------------------
def _context(lang: str) -> dict[str, Any]:
    zh = lang == "zh"
    when = {"kind": "date", "start": "2026-06-10", "end": "2026-06-11", "grain": "day", "point": "2026-06-10",
            "text": "上周三" if zh else "last Wednesday", "span": [0, 3],  # as TimeExpr.to_dict() gives it
            "day_named": True, "half_named": False, "window_end": "2026-06-10",  # as session/grounding.py adds them
            "seconds": 1800.0}  # a duration's length (reminder.change.by.*: the shift)

    return {
        "role": "admin", "slots": {},
        "entities": {"doc": "报价单" if zh else "quote", "docid": "Q-2024-061", "person": "张伟", "when": when,
                     "person_en": "张伟" if zh else "Zhang Wei (张伟)", "person_unknown": "陈总", "field": "phone",
                     "service": "nginx", "order": "SO-20240612", "pin": "4321",
                     "task": "给王会计回电话" if zh else "call Wang back", "doc_kind": "quote",
                     "doc_aliases": ["报价单", "quote"], "scope": "all", "nth": "2",
                     "topic": "喝水" if zh else "the dentist", "shift": "later",
                     "place": {"zone": "Europe/London", "name": "London", "text": "伦敦" if zh else "London"},
                     "every": {"kind": "recurrence", "start": "2026-06-14T08:00:00+08:00", "end": "2026-06-14T09:00:00+08:00",
                               "grain": "hour", "every": {"n": 1.0, "unit": "day"}, "span": [0, 6],
                               "text": "每天早上8点" if zh else "every day at 8"}},  # as TimeExpr.to_dict() gives it  # as dialogue/reminders.topic_of gives it
        "memory": {"last_report_filter": {"since": "2026-06-01", "until": "2026-06-08",
                                          "text": "上周" if zh else "last week"},
                   "last_reminder": dict(_ITEM), "last_order": "SO-20240612", "last_disk_percent": 47.6,
                   "listed_reminders": [dict(_ITEM), dict(_ITEM2)],
                   # what a doc.list_sent rule showed: sends, each with its recipient (send_document requires one)
                   "listed_sent": [{**it, "params": {"document": it["object"], "recipient": "李娜"}}
                                   for it in _recall_items(1)["items"]]},
        "session": {"tz": "Asia/Shanghai", "now": "2026-06-13T15:30:00+08:00", "today": "2026-06-13", "clock": "15:30",
                    "auth": "AUTHED",
                    "reminders": {"default_time": "09:00"}, "state": "EXECUTING", "channel": "test",
                    "user": "wang", "utterance": "…", "locale": lang},
    }


def _recall_items(variant: int) -> dict[str, Any]:
    if variant % 3 == 2:
        return {"items": [], "count": 0}
    items = [{"type": "event", "action": "send_document", "object": "报价单Q-2024-061.pdf", "kind": "quote",
              "anchor": "person:sales/zhang", "at_ms": 1_781_057_600_000, "at": "2026-06-10 10:00",
              "params": {"document": "报价单Q-2024-061.pdf", "recipient": "张伟"}, "output": {}},
             {"type": "event", "action": "send_document", "object": "合同HT-2024-0012.pdf", "kind": "contract",
              "anchor": "person:sales/li", "at_ms": 1_780_971_200_000, "at": "2026-06-09 10:00",
              "params": None, "output": None}]
    return {"items": items[: 1 + variant % 2], "count": 1 + variant % 2}


def _reminder(params: dict[str, Any], pool: list[dict[str, Any]], variant: int) -> dict[str, Any]:
    action = params.get("action")
    if action == "create":
        pool = [o for o in pool if o["count"] == 1 and o["reminders"][0]["status"] == "pending"]
    elif action == "cancel":
        pool = [o for o in pool if o["count"] == 1 and o["reminders"][0]["status"] == "cancelled"]
    else:
        pool = [o for o in pool if all(r["status"] == "pending" for r in o["reminders"])]
    out = pool[variant % len(pool)]
    if params.get("expect") in ("some", "one") and not out["reminders"]:
        return {"ok": False, "error": {"code": "NOT_FOUND", "message": "no pending reminder", "retryable": False}}
    if params.get("expect") == "one" and len(out["reminders"]) > 1:
        return {"ok": False, "error": {"code": "AMBIGUOUS", "message": "2 pending", "retryable": False}}
    return {"ok": True, "output": out}


def _plans(rules: Any) -> Iterator[tuple[str, Plan]]:
    for _, pack in rules.packs:
        for rule in pack.rules:
            yield rule.rule_id, Plan("rule", rule.trigger.intent, rule.rule_id, pack.pack, tuple(rule.actions),
                                     tuple(rule.fallback))
        if pack.fallback:
            yield f"{pack.pack}.fallback", Plan("fallback", None, None, pack.pack, tuple(pack.fallback))


def _variants(plan: Plan, outputs: dict[str, list[dict[str, Any]]]) -> int:
    tools = [a.tool for a in plan.actions if isinstance(a, ToolAction)]
    return max([len(outputs[t]) for t in tools] + [3])


async def _run(plan: Plan, lang: str, variant: int, outputs: dict[str, list[dict[str, Any]]]) -> tuple[list[str], set[str]]:
    """The texts a person reads for this plan, and the free text (names, messages) in them."""
    free: set[str] = set()

    async def call(name: str, params: dict[str, Any]) -> dict[str, Any]:
        res = (_reminder(params, outputs[name], variant) if name == "reminder"
               else {"ok": True, "output": outputs[name][variant % len(outputs[name])]})
        if res["ok"]:
            free.update(_free_strings(res["output"], FREE_FIELDS[name]))
        return res

    async def recall(params: dict[str, Any]) -> dict[str, Any]:
        found = _recall_items(variant)
        free.update(_free_strings(found, FREE_FIELDS["recall"]))
        return found

    def info(name: str) -> tuple[bool, bool] | None:
        d = DESCRIPTORS.get(name)
        return (d.confirm, d.idempotent) if d else None

    ctx = _context(lang)
    free.update(_free_strings(ctx["entities"], {"doc", "docid", "person", "person_en", "person_unknown", "service", "order", "task", "text"}))
    free.update(_free_strings(ctx["memory"], {"text", *FREE_FIELDS["recall"]}))  # listed_sent holds recall items
    ex = Executor(call, info, lang, recall=recall, departments=DEPARTMENTS)
    texts: list[str] = []
    result = await ex.run(plan.actions, ctx)
    for _ in range(len(plan.actions)):
        if not isinstance(result, Suspend):
            break
        if result.kind == "ask" and getattr(plan.actions[result.index], "refine", False):
            break  # a value given but not enough ("今天" after the default time): the question is the reply
        assert result.kind in ("confirm", "choose"), f"{plan.rule_id}: asked for {result.slot} though every entity is given"
        texts.append(result.prompt)
        texts.append(result.card["question"])
        steps = dict(ctx.get("steps") or {})
        if result.kind == "choose":  # which of several: every line is read, the first (newest) is taken
            texts += [c["display"] for c in result.card["choices"]]
            steps[result.slot] = result.items[0]
        result = await ex.run(plan.actions, ctx, start=result.index, confirmed=result.index, steps=steps)
    texts += result.texts
    if isinstance(result, Suspend) and result.kind == "ask":
        texts.append(result.prompt)
    if isinstance(result, Failure):
        assert result.code != "INPUT_INVALID", f"{plan.rule_id}: {result.message}"  # a template read a missing value
        undo = await ex.compensate(plan.compensation(result.index) if result.counts else plan.on_error, ctx)
        texts += undo.texts
        if not undo.texts:
            tool = getattr(plan.actions[result.index], "tool", None)
            texts.append(failure(result.code, lang, tool=DESCRIPTORS.get(tool) if tool else None))
    else:
        assert isinstance(result, (Finished, Handoff)) or isinstance(result, Suspend) and result.kind == "ask", result
    return [t for t in texts if t], free


def _free_strings(value: Any, keys: set[str]) -> Iterator[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            if k in keys and isinstance(v, str) and v:
                yield v
            else:
                yield from _free_strings(v, keys)
    elif isinstance(value, list):
        for v in value:
            yield from _free_strings(v, keys)


# --- the checks -----------------------------------------------------------------------------------------
_CODES = {cls.code for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, errors.HermesError)}
_CODES |= {c for d in DESCRIPTORS.values() for c in d.errors}
_STABLE_CODE = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")
_RAW_WORD = re.compile(r"\b(true|false|True|False|None|null)\b")
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2})?")
_LONG_FLOAT = re.compile(r"(?<![\d.])\d+\.\d{2,}(?![\d.])")
_DEPT_CODE = re.compile(r"\b(" + "|".join(map(re.escape, DEPARTMENTS)) + r")\b")
_ASCII_WORD = re.compile(r"[A-Za-z][A-Za-z&]+")
_CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff01-\uff5e]")
#: units and acronyms a Chinese sentence writes in Latin letters
ZH_LATIN_OK = {"CPU", "GB", "MB", "KB", "TB", "PB", "DNS", "Wi", "Fi", "systemd", "PIN"}


def problems(text: str, lang: str, free: set[str]) -> list[str]:
    """What a person should not read in ``text``; ``free`` is shown-as-is text taken out first."""
    out = []
    if any(c in text for c in "{}[]"):
        out.append("braces or brackets (JSON or a template)")
    residue = text
    for s in sorted(free, key=len, reverse=True):
        residue = residue.replace(s, " ")
    for pattern, what in ((_RAW_WORD, "a raw value"), (_STABLE_CODE, "a stable code"), (_ISO, "an ISO timestamp"),
                          (_LONG_FLOAT, "a float with more than one decimal"), (_DEPT_CODE, "a department code")):
        m = pattern.search(residue)
        if m:
            out.append(f"{what}: {m.group(0)!r}")
    if any(code in residue.split() for code in _CODES) or "person:" in residue:
        out.append("a code or an anchor id")
    if lang == "zh":
        latin = [w for w in _ASCII_WORD.findall(residue) if w not in ZH_LATIN_OK]
        if latin:
            out.append(f"English in a zh reply: {latin}")
    elif _CJK.search(residue):
        out.append(f"Chinese in an en reply: {_CJK.search(residue).group(0)!r}")
    return out


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_every_shipped_reply_reads_as_words(rules, outputs, lang):
    seen, bad = 0, []
    for rule_id, plan in _plans(rules):
        for variant in range(_variants(plan, outputs)):
            texts, free = await _run(plan, lang, variant, outputs)
            for text in texts:
                seen += 1
                for why in problems(text, lang, free):
                    bad.append(f"{rule_id} (variant {variant}): {why}\n    {text!r}")
    assert seen > 100
    assert not bad, "\n".join(bad)


def test_every_tool_reply_reads_as_words(outputs):
    """Each tool's own template over each of its outputs (including the ones no rule reaches)."""
    from hermesd.rules.filters import Style

    bad = []
    for lang in ("zh", "en"):
        style = Style.of(lang, _context(lang)["session"], DEPARTMENTS)
        for name, outs in outputs.items():
            phrase = DESCRIPTORS[name].reply_template
            for out in outs:
                text = phrase.render(out, style)
                free = set(_free_strings(out, FREE_FIELDS[name]))
                bad += [f"{name} {lang}: {why}\n    {text!r}" for why in problems(text, lang, free)]
                assert text.strip(), (name, out)
    assert not bad, "\n".join(bad)


def test_shipped_tool_steps_get_their_reply(rules):
    tool_steps = [a for _, p in rules.packs for r in p.rules for a in r.actions if isinstance(a, ToolAction)]
    assert tool_steps and all(a.reply_template is DESCRIPTORS[a.tool].reply_template for a in tool_steps)
    uses = {p[1] for _, pk in rules.packs for r in pk.rules for a in r.actions
            if isinstance(a, (ReplyAction, ConfirmAction)) for p in a.paths if p[-1:] == ("reply",)}
    assert {"disk", "st", "net", "svc", "list"} <= uses


@pytest.mark.parametrize(("template", "why"), [
    ("网络在线：{{steps.net.online}}", "a raw value"),
    ("CPU {{steps.st.cpu_percent}}%，已运行 {{steps.st.uptime_s}} 秒。", "a float with more than one decimal"),
    ("你的提醒：{{steps.list.reminders}}", "braces"),
    ("提醒时间：{{steps.list.reminders.0.due}}", "an ISO timestamp"),
    ("部门：{{steps.who.matches.0.dept}}", "a department code"),
    ("这一步没有成功（{{steps.err.code}}）。", "a stable code"),
    ("{{steps.svc.active_state}}", "English in a zh reply"),
])
def test_the_checks_catch_raw_values(template, why):
    from hermesd.rules.templating import Template

    ctx = {"steps": {"net": {"online": True}, "st": {"cpu_percent": 12.25, "uptime_s": 1523.27},
                     "list": SAMPLES["reminder"][0], "who": SAMPLES["contacts"][0], "err": {"code": "INPUT_INVALID"},
                     "svc": SAMPLES["service_status"][0]}}
    text = Template.parse(template).render(ctx)
    found = problems(text, "zh", {"给王会计回电话"})
    assert any(why in p for p in found), (text, found)


def test_every_rule_and_every_output_is_reached(rules, outputs):
    """The variants above cycle through every output of every tool a rule calls."""
    for rule_id, plan in _plans(rules):
        tools = {a.tool for a in plan.actions if isinstance(a, ToolAction)}
        n = _variants(plan, outputs)
        for t in tools:
            assert n >= len(outputs[t]), (rule_id, t)
    assert len(list(itertools.islice(_plans(rules), 1000))) >= 30
