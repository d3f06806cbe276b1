"""Loader: shipped packs, errors with file:line, broken packs keep the old rules, checksum polling."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import yaml

from hermesd.rules.loader import RulePackError, RuleSource, checksum, load_rules
from hermesd.rules.model import ACTION_KINDS, ToolAction

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "config" / "rules"

GOOD = """\
pack: demo
rules:
  - rule_id: greet
    trigger: {intent: greet}
    actions:
      - reply: {zh: 你好, en: hello}
"""


def intents_of_nlu_packs() -> set[str]:
    out = set()
    for f in (REPO / "config" / "intents").glob("*.yaml"):
        out |= {i["name"] for i in yaml.safe_load(f.read_text(encoding="utf-8")).get("intents") or []}
    return out


def shipped_tools() -> set[str]:
    return {p.name for p in (REPO / "tools").iterdir() if (p / "tool.yaml").is_file()}


def problems(folder: Path) -> list[str]:
    with pytest.raises(RulePackError) as info:
        load_rules(folder)
    return [str(p) for p in info.value.problems]


def test_shipped_packs_load_against_nlu_intents_and_shipped_tools():
    intents, tools = intents_of_nlu_packs(), shipped_tools()
    if not intents or not tools:
        pytest.skip("config/intents or tools/ not in this checkout")
    loaded = load_rules(SHIPPED, known_intents=intents, known_tools=tools)
    assert [Path(f).name for f in loaded.files] == ["device.yaml", "office.yaml", "people.yaml"]
    assert loaded.engine.intents == intents  # every NLU intent has rules
    kinds, compensations, rule_fallbacks = set(), 0, 0
    for _, pack in loaded.packs:
        assert pack.fallback
        for rule in pack.rules:
            kinds |= {a.kind for a in rule.actions}
            compensations += sum(bool(a.on_failure) for a in rule.actions if isinstance(a, ToolAction))
            rule_fallbacks += bool(rule.fallback)
    assert kinds == set(ACTION_KINDS)
    assert compensations >= 2 and rule_fallbacks >= 2


def test_shipped_signature_example_routes_and_renders():
    engine = load_rules(SHIPPED).engine
    ctx = {"role": "user", "slots": {}, "session": {}, "memory": {},
           "entities": {"doc": "报价单", "person": "张伟", "when": {"start": "2024-06-12", "end": "2024-06-13",
                                                                   "text": "上周三"}}}
    plan = engine.match("doc.resend", ctx)
    assert plan.rule_id == "doc.resend.from_memory"
    assert [a.kind for a in plan.actions] == ["recall", "confirm", "tool", "remember", "reply"]
    assert plan.actions[0].render_payload(ctx) == {"action": "send_document", "kind": "报价单", "person": "张伟",
                                                   "since": "2024-06-12", "until": "2024-06-13", "k": 1}
    steps = {"sent": {"items": [{"object": "报价单Q-2024-061.pdf", "at": "2024-06-12 10:00"}], "count": 1}}
    assert plan.actions[1].confirm.render({**ctx, "steps": steps}, "zh") == \
        "把报价单Q-2024-061.pdf再发给张伟吗？（原发送于 6月12日 10:00）"
    assert plan.actions[2].render_params({**ctx, "steps": steps}) == {
        "document": "报价单Q-2024-061.pdf", "recipient": "张伟", "note": "resend"}
    # nothing found: the rule's fallback answers, naming what was looked for
    assert plan.on_error[0].reply.render(ctx, "zh") == "没有找到上周三发给张伟的报价单，没有发送任何文件。"
    # no day named: the most recent send to that person
    no_day = {**ctx, "entities": {"doc": "报价单", "person": "张伟"}}
    assert engine.match("doc.resend", no_day).rule_id == "doc.resend.last_sent"
    # a user may not read the journal; an admin may
    c = {"role": "user", "entities": {"when": {"start": "2026-11-29"}}, "slots": {}, "memory": {}, "session": {}}
    assert engine.match("device.errors_since", c).rule_id == "device.errors_since.user"
    assert engine.match("device.errors_since", {**c, "role": "admin"}).rule_id == "device.errors_since.admin"


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("bad_yaml.yaml", "pack: x\nrules:\n  - rule_id: a\n    trigger: {intent: a\n", "bad_yaml.yaml:5: invalid YAML"),
    ("bad_json.json", '{"pack": "x",\n "rules": [\n}', "bad_json.json:3: invalid JSON"),
    ("unknown_key.yaml", GOOD.replace("    trigger:", "    triger: {intent: x}\n    trigger:"),
     "unknown_key.yaml:4: rules.0.triger: unknown key (rule greet)"),
    ("bad_cond.yaml", GOOD.replace("    actions:", "    conditions:\n      - role == 'a'\n      - __import__('os')\n    actions:"),
     "bad_cond.yaml:7: rules.0.conditions.1: condition \"__import__('os')\": names starting with '__' are not allowed"),
    ("bad_tpl.yaml", GOOD.replace("hello}", "hello}\n      - tool: note\n        params:\n          key: '{{os.environ}}'"),
     "bad_tpl.yaml:9: rules.0.actions.1.tool.params.key: template '{{os.environ}}': unknown root 'os'"),
    ("two_kinds.yaml", GOOD.replace("      - reply: {zh: 你好, en: hello}", "      - reply: {en: hi}\n        handoff: x"),
     "two_kinds.yaml:6: rules.0.actions.0: an action needs exactly one of"),
    ("no_actions.yaml", GOOD.replace("    actions:\n      - reply: {zh: 你好, en: hello}\n", "    actions: []\n"),
     "no_actions.yaml:5: rules.0.actions: List should have at least 1 item"),
    ("bad_step.yaml", GOOD.replace("en: hello}", "en: \"{{steps.x.y}}\"}"),
     "bad_step.yaml:5: rules.0.actions: actions[0] (reply) reads {{steps.x.y}}"),
    ("dup_key.yaml", GOOD.replace("    trigger:", "    priority: 1\n    priority: 2\n    trigger:"),
     "dup_key.yaml:5: rules.0.priority: duplicate key 'priority' (first at line 4)"),
    ("bad_priority.yaml", GOOD.replace("    trigger:", "    priority: high\n    trigger:"),
     "bad_priority.yaml:4: rules.0.priority: Input should be a valid integer"),
    ("not_mapping.yaml", "- a\n- b\n", "not_mapping.yaml:1: Input should be a valid dictionary"),
    ("empty_text.yaml", GOOD.replace("{zh: 你好, en: hello}", "{}"),
     "empty_text.yaml:6: rules.0.actions.0.reply.reply: give at least one of zh, en"),
    ("bad_filter.yaml", GOOD.replace("en: hello}", "en: \"{{role | shout}}\"}"),
     "bad_filter.yaml:6: rules.0.actions.0.reply.reply.en: template '{{role | shout}}': unknown filter 'shout'"),
    ("bad_filter_args.yaml", GOOD.replace("      - reply: {zh: 你好, en: hello}",
                                          "      - reply:\n          zh: 你好\n          en: \"{{role | default}}\""),
     "bad_filter_args.yaml:8: rules.0.actions.0.reply.reply.en: template '{{role | default}}': filter 'default' takes 1"),
    ("bad_cases.yaml", GOOD.replace("      - reply: {zh: 你好, en: hello}",
                                    "      - reply:\n          - {when: \"role == 'a'\", zh: a}\n          - {when: \"role == 'b'\", zh: b}"),
     "bad_cases.yaml:7: rules.0.actions.0.reply.reply: the last case needs no 'when'"),
    ("lone_when.yaml", GOOD.replace("{zh: 你好, en: hello}", "{when: \"role == 'a'\", zh: a}"),
     "lone_when.yaml:6: rules.0.actions.0.reply: reply: 'when' belongs to a case in a list of cases"),
])
def test_errors_name_file_and_line(tmp_path, name, text, expected):
    (tmp_path / name).write_text(text, encoding="utf-8")
    found = problems(tmp_path)
    assert any(p.startswith(str(tmp_path / expected.split(":")[0]) + ":") and expected.split(":", 1)[1] in p
               for p in found), found


def test_every_problem_of_every_file_at_once(tmp_path):
    (tmp_path / "a.yaml").write_text(GOOD.replace("intent: greet", "intent: 1.x y"), encoding="utf-8")
    (tmp_path / "b.yaml").write_text(GOOD.replace("pack: demo", "pack: b"), encoding="utf-8")
    (tmp_path / "c.json").write_text(json.dumps({"pack": "c", "rules": [{"rule_id": "greet", "trigger": {"intent": "greet"},
                                                 "actions": [{"reply": {"en": "x"}}]}]}, indent=1), encoding="utf-8")
    (tmp_path / "notes.txt").write_text("ignored", encoding="utf-8")
    found = problems(tmp_path)
    assert any("a.yaml:4: rules.0.trigger.intent" in p for p in found), found
    # rule_id 'greet' in b.yaml and again in c.json: the second names the first's file:line
    assert any("c.json:5: rules.0.rule_id: rule_id 'greet' is also defined at" in p and "b.yaml:3" in p
               for p in found), found


def test_unknown_intents_and_tools_when_asked(tmp_path):
    (tmp_path / "p.yaml").write_text(GOOD.replace("hello}", "hello}\n      - tool: sendmail"), encoding="utf-8")
    with pytest.raises(RulePackError) as info:
        load_rules(tmp_path, known_intents={"doc.send"}, known_tools={"note"})
    found = [str(p) for p in info.value.problems]
    assert any(":4: rules.0.trigger.intent: unknown intent 'greet'" in p for p in found), found
    assert any(":7: rules.0.actions.1.tool: unknown tool 'sendmail'" in p for p in found), found


def test_problems_are_listed_in_file_order(tmp_path):
    """Each check walks the whole pack (intents, then tools): the list is top down all the same."""
    two = GOOD.replace("hello}", "hello}\n      - tool: sendmail") + GOOD.split("rules:\n", 1)[1].replace(
        "rule_id: greet", "rule_id: greet2")
    (tmp_path / "p.yaml").write_text(two, encoding="utf-8")
    (tmp_path / "q.yaml").write_text(GOOD.replace("pack: demo", "pack: q").replace("rule_id: greet", "rule_id: g3"),
                                     encoding="utf-8")
    with pytest.raises(RulePackError) as info:
        load_rules(tmp_path, known_intents={"doc.send"}, known_tools={"note"})
    where = [(Path(p.file).name, p.line) for p in info.value.problems]
    assert where == sorted(where) and len(where) >= 4, [str(p) for p in info.value.problems]


def test_json_packs_and_empty_folder(tmp_path):
    assert len(load_rules(tmp_path).engine) == 0
    (tmp_path / "p.json").write_text(json.dumps(yaml.safe_load(GOOD), ensure_ascii=False), encoding="utf-8")
    assert load_rules(tmp_path).engine.rules_for("greet")[0].rule_id == "greet"
    with pytest.raises(RulePackError, match="does not exist"):
        load_rules(tmp_path / "missing")


def test_checksum_follows_content_and_names(tmp_path):
    empty = checksum(tmp_path)
    (tmp_path / "a.yaml").write_text(GOOD, encoding="utf-8")
    one = checksum(tmp_path)
    assert one != empty and checksum(tmp_path) == one
    (tmp_path / "a.yaml").write_text(GOOD.replace("hello", "hullo"), encoding="utf-8")
    assert checksum(tmp_path) != one
    (tmp_path / "a.yaml").rename(tmp_path / "b.yaml")
    renamed = checksum(tmp_path)
    (tmp_path / "b.yaml").rename(tmp_path / "a.yaml")
    assert renamed != checksum(tmp_path)


def test_hot_reload_keeps_previous_pack_on_error(tmp_path, caplog):
    (tmp_path / "p.yaml").write_text(GOOD, encoding="utf-8")
    src = RuleSource(tmp_path)
    assert src.engine.intents == frozenset()  # nothing loaded yet: all fallback
    assert src.poll() is True
    first = src.engine
    assert src.poll() is False and src.engine is first  # unchanged files: no reload
    (tmp_path / "p.yaml").write_text(GOOD.replace("rule_id: greet", "rule_id: greet\n    priority: x"), encoding="utf-8")
    with caplog.at_level(logging.ERROR, logger="hermesd"):
        assert src.poll() is False
    assert src.engine is first  # still serving the old rules
    rec = [r for r in caplog.records if r.getMessage() == "rule pack rejected"]
    assert len(rec) == 1 and rec[0].kv["file"] == str(tmp_path / "p.yaml") and rec[0].kv["line"] == 4
    assert rec[0].kv["kept"] is True
    status = src.status()
    assert status["errors"][0]["line"] == 4 and status["rules"] == 1
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="hermesd"):
        assert src.poll() is False  # same broken files: not re-parsed, not re-logged
    assert not caplog.records
    (tmp_path / "p.yaml").write_text(GOOD.replace("greet", "hello"), encoding="utf-8")
    assert src.poll() is True
    assert src.engine is not first and src.engine.intents == {"hello"} and src.last_error is None
    assert src.status()["errors"] == []
    assert src.reload() is True  # SIGHUP / admin.reload: forced even when unchanged


def test_first_load_broken_serves_fallback(tmp_path):
    (tmp_path / "p.yaml").write_text("pack: [", encoding="utf-8")
    src = RuleSource(tmp_path)
    assert src.reload() is False and src.current is None and len(src.engine) == 0
    assert src.engine.match("greet", {}).path == "fallback"


def test_matching_while_packs_flip_between_valid_and_broken(tmp_path):
    """Readers always see a whole engine: the old one or the new one, never a half-loaded one."""
    import threading

    path = tmp_path / "p.yaml"
    path.write_text(GOOD, encoding="utf-8")
    src = RuleSource(tmp_path)
    assert src.reload()
    stop = threading.Event()
    versions = [GOOD.replace("hello", f"v{i}") for i in range(20)]

    def writer() -> None:
        for i, text in enumerate(versions):
            path.write_text(text if i % 3 else "pack: [broken", encoding="utf-8")
            src.poll()
        stop.set()

    t = threading.Thread(target=writer)
    t.start()
    seen = set()
    while not stop.is_set():
        plan = src.engine.match("greet", {})
        assert plan.path == "rule" and plan.rule_id == "greet"
        seen.add(plan.actions[0].reply.en)
    t.join()
    assert src.engine.match("greet", {}).actions[0].reply.en == "v19"
    assert seen <= {"hello"} | {f"v{i}" for i in range(20)}


TOOL_STEP = """\
pack: demo
rules:
  - rule_id: disk
    trigger: {intent: disk}
    actions:
      - tool: disk_usage
        id: disk
        params: {path: /}
      - reply: "{{steps.disk.reply}}"
      - reply:
          - {when: "steps.disk.percent > 90", zh: "快满了：{{steps.disk.free_mb | size_mb}}", en: "nearly full"}
          - {zh: "还剩 {{steps.disk.free_mb | size_mb}}", en: "{{steps.disk.free_mb | size_mb}} free"}
"""


def test_tool_steps_are_bound_to_their_tools_reply_templates(tmp_path):
    from hermesd.rules.filters import Style
    from hermesd.rules.phrases import Phrase

    (tmp_path / "p.yaml").write_text(TOOL_STEP, encoding="utf-8")
    phrase = Phrase.parse({"zh": "已用 {{percent | percent}}", "en": "{{percent | percent}} used"},
                          ["percent", "free_mb"])
    loaded = load_rules(tmp_path, known_tools={"disk_usage"}, tool_replies={"disk_usage": phrase})
    step, says, cases = loaded.engine.match("disk", {}).actions
    assert step.reply_template is phrase
    out = {"percent": 93.25, "free_mb": 2048}
    assert step.reply_template.render(out, Style("zh")) == "已用 93.2%"
    ctx = {"steps": {"disk": {**out, "reply": "已用 93.2%"}}}
    assert says.reply.render(ctx, "zh") == "已用 93.2%"  # one template for every language
    assert cases.reply.render(ctx, "zh") == "快满了：2.0 GB"
    ctx["steps"]["disk"]["percent"] = 12
    assert cases.reply.render(ctx, "en") == "2.0 GB free"
    assert ("steps", "disk", "percent") in cases.paths  # a case's condition counts as a read
    # loaded without the tools' templates: nothing bound
    assert load_rules(tmp_path).engine.match("disk", {}).actions[0].reply_template is None


def test_reading_the_reply_of_a_tool_without_a_template_is_a_load_error(tmp_path):
    (tmp_path / "p.yaml").write_text(TOOL_STEP, encoding="utf-8")
    with pytest.raises(RulePackError) as info:
        load_rules(tmp_path, known_tools={"disk_usage"}, tool_replies={"disk_usage": None})
    assert [str(p) for p in info.value.problems] == [
        f"{tmp_path / 'p.yaml'}:9: rules.0.actions.1: {{{{steps.disk.reply}}}}: tool 'disk_usage' has no reply "
        "template (add reply: to its tool.yaml) (rule disk)"]


def test_unknown_intents_and_tools_name_the_closest_known_one(tmp_path):
    (tmp_path / "p.yaml").write_text(GOOD.replace("intent: greet", "intent: doc.snd")
                                     .replace("hello}", "hello}\n      - tool: sendmial\n      - tool: zzz"),
                                     encoding="utf-8")
    with pytest.raises(RulePackError) as info:
        load_rules(tmp_path, known_intents={"doc.send", "doc.find"}, known_tools={"sendmail", "note"})
    found = [str(p) for p in info.value.problems]
    assert any("unknown intent 'doc.snd' (rule greet); did you mean 'doc.send'?" in p for p in found), found
    assert any("unknown tool 'sendmial' (rule greet); did you mean 'sendmail'?" in p for p in found), found
    # nothing close: no guess
    assert any(p.endswith("unknown tool 'zzz' (rule greet)") for p in found), found
