"""Layered config: defaults < /etc < --config < HERMESD_* < command line; every error at once, exit 78."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermesd_testing import REPO, clean_env
from hermesd import config as cfgmod
from hermesd.config import ConfigError, load


def test_shipped_file_matches_the_model_defaults():
    shipped = load(env={}, etc=None)
    bare = load(env={}, shipped=None, etc=None)
    assert shipped == bare, "config/hermesd.yaml and the models' defaults disagree"


def test_layers_later_wins(tmp_path):
    etc = tmp_path / "etc.yaml"
    etc.write_text("server:\n  max_connections: 10\n  idle_timeout_s: 5\n")
    user = tmp_path / "user.yaml"
    user.write_text("server:\n  max_connections: 20\n")
    c = load(user, env={"HERMESD_SERVER__IDLE_TIMEOUT_S": "7", "HERMESD_SOCKET": "/tmp/x.sock"}, etc=etc)
    assert c.server.max_connections == 20 and c.server.idle_timeout_s == 7
    assert c.paths.socket_path == Path("/tmp/x.sock")
    c = load(user, env={"HERMESD_SERVER__MAX_CONNECTIONS": "30"}, etc=etc,
             overrides={"paths.state_dir": "/tmp/st"})
    assert c.server.max_connections == 30 and c.paths.state_dir == Path("/tmp/st")


def test_hermesd_config_env_names_the_file(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text("logging:\n  level: debug\n")
    assert load(env={"HERMESD_CONFIG": str(f)}, etc=None).logging.level == "debug"


def test_every_error_is_listed_with_file_line_key_value_and_suggestion(tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text("server:\n  max_line_bytez: 100\n  max_connections: -5\nlogging:\n  level: loud\nrolez: {}\n")
    with pytest.raises(ConfigError) as ei:
        load(f, env={"HERMESD_SERVER__IDLE_TIMEOUT_S": "soon", "HERMESD_BOGUS": "1"}, etc=None)
    text = str(ei.value)
    probs = ei.value.problems
    assert len(probs) == 6, text
    # sentences, no library words ("Input should be", "Value error,", "got"), in the order of the file
    assert f"{f}:2: server.max_line_bytez is not a known key; did you mean 'max_line_bytes'?" in text
    assert f"{f}:3: server.max_connections should be greater than or equal to 1 (it is -5)." in text
    assert f"{f}:5: logging.level should be 'debug', 'info', 'warning' or 'error' (it is 'loud')." in text
    assert f"{f}:6: rolez is not a known key; did you mean 'roles'?" in text
    assert [p.source for p in probs][:4] == [f"{f}:2", f"{f}:3", f"{f}:5", f"{f}:6"], text
    assert all(p.source.startswith("env ") for p in probs[4:]), text
    assert "env HERMESD_SERVER__IDLE_TIMEOUT_S: server.idle_timeout_s" in text and "'soon'" in text
    assert "env HERMESD_BOGUS" in text


def test_yaml_syntax_error_names_the_line(tmp_path):
    f = tmp_path / "broken.yaml"
    f.write_text("server:\n  max_connections: [1, 2\n")
    with pytest.raises(ConfigError) as ei:
        load(f, env={}, etc=None)
    assert f"{f}:" in str(ei.value) and "invalid YAML" in str(ei.value)


def test_missing_config_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError) as ei:
        load(tmp_path / "nope.yaml", env={}, etc=None)
    assert "cannot read" in str(ei.value)


def test_socket_mode_accepts_octal_spellings():
    for spelling in ("0660", "0o660", "660", 0o660):
        assert load(env={"HERMESD_SERVER__SOCKET_MODE": str(spelling) if isinstance(spelling, str) else "432"},
                    etc=None).server.socket_mode == 0o660


def test_socket_mode_with_a_digit_that_is_not_octal_says_so():
    with pytest.raises(ConfigError) as ei:
        load(env={"HERMESD_SERVER__SOCKET_MODE": "0999"}, etc=None)
    assert "not an octal file mode" in str(ei.value) and "511" not in str(ei.value)


def test_auto_paths_follow_systemd_then_cwd():
    c = load(env={}, etc=None)
    assert cfgmod.resolve_socket_path(c, {"RUNTIME_DIRECTORY": "/run/hermesd"}) == Path("/run/hermesd/hermesd.sock")
    assert cfgmod.resolve_state_dir(c, {"STATE_DIRECTORY": "/var/lib/hermesd"}) == Path("/var/lib/hermesd")
    assert cfgmod.resolve_socket_path(c, {}) == Path("var/hermesd.sock")
    assert cfgmod.resolve_state_dir(c, {}) == Path("var/state")


def _hermesd(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hermesd", *args], capture_output=True, text=True,
                          env=clean_env(**env), timeout=30, cwd=cwd)


def test_check_config_cli(tmp_path):
    ok = _hermesd("check-config")
    assert ok.returncode == 0 and "config ok" in ok.stdout
    f = tmp_path / "bad.yaml"
    f.write_text("server:\n  max_conections: 1\n  idle_timeout_s: -1\n")
    bad = _hermesd("check-config", str(f))
    assert bad.returncode == 78
    assert "2 error(s)" in bad.stderr and "did you mean 'max_connections'" in bad.stderr
    assert "idle_timeout_s" in bad.stderr
    printed = _hermesd("check-config", "--print")
    assert "max_line_bytes: 65536" in printed.stdout


def test_run_with_bad_config_exits_78_before_touching_anything(tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text("server: {max_line_bytes: 1}\nlogging: {level: chatty}\n")
    p = _hermesd("run", "--config", str(f), "--socket", str(tmp_path / "s"), cwd=tmp_path)
    assert p.returncode == 78
    assert "server.max_line_bytes" in p.stderr and "logging.level" in p.stderr
    assert not (tmp_path / "s").exists()


def test_env_override_reaches_the_daemon(start_daemon):
    d = start_daemon(env={"HERMESD_SERVER__MAX_CONNECTIONS": "2"})
    assert d.call("admin.status")["subsystems"]["server"]["max_connections"] == 2


def test_shipped_config_file_is_in_the_repo():
    assert (REPO / "config" / "hermesd.yaml").is_file()


def test_check_config_also_checks_rule_packs(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "bad.yaml").write_text("pack: x\nrules:\n  - rule_id: a\n    trigger: {intnt: x}\n    actions: []\n")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"session:\n  rules_dir: {rules}\n")
    p = _hermesd("check-config", str(cfg))
    assert p.returncode == 78 and "bad.yaml:4" in p.stderr
    ok = _hermesd("check-config")
    assert ok.returncode == 0 and "rules in" in ok.stdout


def test_check_config_names_unknown_tools_and_intents_with_did_you_mean(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "typos.yaml").write_text(
        "pack: typos\nrules:\n"
        "  - rule_id: disk\n    trigger: {intent: device.disk_spac}\n"
        "    actions:\n      - tool: disk_usgae\n        id: d\n      - reply: '{{steps.d.reply}}'\n",
        encoding="utf-8")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"session:\n  rules_dir: {rules}\n")
    p = _hermesd("check-config", str(cfg))
    assert p.returncode == 78, p.stderr
    assert "typos.yaml:4: rules.0.trigger.intent: unknown intent 'device.disk_spac' (rule disk); " \
           "did you mean 'device.disk_space'?" in p.stderr, p.stderr
    assert "typos.yaml:6: rules.0.actions.0.tool: unknown tool 'disk_usgae' (rule disk); " \
           "did you mean 'disk_usage'?" in p.stderr, p.stderr


def test_check_config_reports_every_error_of_every_file_in_one_run(tmp_path):
    """Fixing one error and running again never shows a new one: the config's errors, then each rule
    pack's (a schema error in one rule does not hide an unknown intent or tool in the next rule, nor in
    a rule of the same file after it), then the intent packs', each in file order."""
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "a.yaml").write_text(
        "pack: a\nrules:\n"
        "  - rule_id: a.one\n    trigger: {intent: device.clock}\n    actions:\n      - reply: hi\n        colour: red\n"
        "  - rule_id: a.two\n    trigger: {intent: device.clokc}\n    actions:\n      - reply: hi\n"
        "  - rule_id: a.three\n    trigger: {intent: device.clock}\n    actions:\n      - tool: disk_usag\n",
        encoding="utf-8")
    (rules / "b.yaml").write_text(
        "pack: b\nrules:\n"
        "  - rule_id: b.one\n    priority: high\n    trigger: {intent: nope.intent}\n    actions:\n      - reply: x\n",
        encoding="utf-8")
    (rules / "c.yaml").write_text("pack: c\nrules: [ {rule_id: c.one\n", encoding="utf-8")
    intents = tmp_path / "intents"
    intents.mkdir()
    (intents / "a.yaml").write_text(
        "pack: t\nintents:\n  - name: x.other\n    examples: [what time is it]\n    colour: red\n"
        "  - examples: [hello]\n", encoding="utf-8")
    (intents / "b.yaml").write_text("pack: u\nintents:\n  - name: device.clock\n    examples: [time]\n",
                                    encoding="utf-8")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"session:\n  rules_dir: {rules}\n  listening_s: -3\n  bogus_key: 1\n"
                   f"nlu:\n  intent_dirs: [{intents}]\n")
    p = _hermesd("check-config", str(cfg))
    assert p.returncode == 78, p.stderr
    expected = [  # one run, in the order a person reads the files
        "c.yaml:3: session.listening_s", "c.yaml:4: session.bogus_key",
        "a.yaml:6: rules.0.actions.0.reply.colour: unknown key",
        "a.yaml:9: rules.1.trigger.intent: unknown intent 'device.clokc'",
        "a.yaml:15: rules.2.actions.0.tool: unknown tool 'disk_usag'",
        "b.yaml:4: rules.0.priority",
        "b.yaml:5: rules.0.trigger.intent: unknown intent 'nope.intent'",
        "c.yaml:3: invalid YAML",
        "a.yaml: intents[0]: unknown keys ['colour']", "a.yaml: intents[1]: needs a name",
    ]
    at = [p.stderr.find(e) for e in expected]
    assert all(i >= 0 for i in at), ([e for e, i in zip(expected, at) if i < 0], p.stderr)
    assert at == sorted(at), p.stderr
    # device.clock comes from the second intent file: the first file's errors do not hide it
    assert "unknown intent 'device.clock'" not in p.stderr


def test_relative_paths_of_a_config_file_are_taken_from_its_folder(tmp_path, monkeypatch):
    """A pack's config names its folders beside it, whatever the working directory: every
    path-valued setting of a file (typed Path, or a str named *_dir/_file/_path) resolves against
    the file's folder; absolute ones, "" (the default), and those given in the environment are kept."""
    pack = tmp_path / "packs" / "demo"
    pack.mkdir(parents=True)
    f = pack / "hermesd.yaml"
    f.write_text("tools:\n  tools_dir: tools\nsession:\n  rules_dir: rules\n  lexicon_files: [lex.yaml, /abs/l.yaml]\n"
                 "nlu:\n  intent_dirs: [intents]\n  model_cache_dir: ''\nmemory:\n  directory_path: people.yaml\n"
                 "archive:\n  dictionary: zstd.dict\n")
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    cfg = load(f, env={}, shipped=None, etc=None)
    assert cfg.tools.tools_dir == pack / "tools"
    assert cfg.session.rules_dir == pack / "rules"
    assert cfg.session.lexicon_files == [pack / "lex.yaml", Path("/abs/l.yaml")]
    assert cfg.nlu.intent_dirs == [str(pack / "intents")]
    assert cfg.nlu.model_cache_dir == ""
    assert cfg.memory.directory_path == str(pack / "people.yaml")
    assert cfg.archive.dictionary == str(pack / "zstd.dict")
    env = {"HERMESD_TOOLS__TOOLS_DIR": "mine", "HERMESD_SESSION__RULES_DIR": "r"}
    cfg = load(f, env=env, shipped=None, etc=None)
    assert cfg.tools.tools_dir == Path("mine") and cfg.session.rules_dir == Path("r")
    assert load(f, env={}, shipped=None, etc=None, overrides={"paths.state_dir": "s"}).paths.state_dir == Path("s")
    f.write_text(f"tools:\n  tools_dir: {tmp_path / 'abs'}\n")
    assert load(f, env={}, shipped=None, etc=None).tools.tools_dir == tmp_path / "abs"
    # a pack's reference data too (the CrossWOZ database beside the repository)
    f.write_text("tools:\n  data_dir: ../../data/db\n")
    assert Path(os.path.normpath(load(f, env={}, shipped=None, etc=None).tools.data_dir)) == tmp_path / "data" / "db"


def test_problems_are_listed_in_file_order_whatever_the_models_order(tmp_path):
    """Validation meets the sections in the models' field order; a person reads the file top down."""
    f = tmp_path / "bad.yaml"
    f.write_text("reminders:\n  default_time: '25:00'\nlogging:\n  level: loud\nsession:\n  confirming_s: abc\n"
                 "paths:\n  socket_path: 5\nserver:\n  max_connections: -5\n")
    with pytest.raises(ConfigError) as ei:
        load(f, env={"HERMESD_SERVER__IDLE_TIMEOUT_S": "soon"}, etc=None)
    lines = [int(p.source.rsplit(":", 1)[1]) for p in ei.value.problems if p.source.startswith(str(f))]
    assert lines == [2, 4, 6, 8, 10], str(ei.value)
    assert ei.value.problems[-1].source == "env HERMESD_SERVER__IDLE_TIMEOUT_S"
    text = str(ei.value)
    assert f"{f}:2: reminders.default_time must be HH:MM on a 24-hour clock, e.g. '09:00' (it is '25:00')." in text
    assert "Value error" not in text and "Input should" not in text and "(got " not in text, text


# ---- duplicate keys: an error at file:line everywhere (PyYAML alone keeps the last, silently)


def test_a_key_said_twice_in_the_config_is_an_error_with_its_line(tmp_path):
    f = tmp_path / "dup.yaml"
    f.write_text("session:\n  max_sessions_per_user: 4\n  cap_grace_s: 1\n  max_sessions_per_user: 6\n"
                 "server: {max_connections: 5, max_connections: 6}\nsession_x: 1\n")
    with pytest.raises(ConfigError) as ei:
        load(f, env={}, etc=None)
    text = str(ei.value)
    assert f"{f}:4: session.max_sessions_per_user: duplicate key 'max_sessions_per_user' (first at line 2)" in text
    assert f"{f}:5: server.max_connections: duplicate key 'max_connections' (first at line 5)" in text
    assert f"{f}:6: session_x is not a known key" in text  # reported with the others, in file order
    assert [p.source for p in ei.value.problems] == [f"{f}:4", f"{f}:5", f"{f}:6"], text
    assert ei.value.partial is not None  # the rest is still checked (rule and intent packs)


def test_what_is_not_a_duplicate_key(tmp_path):
    from hermesd import yamlkeys

    # a merge's keys are overridden by YAML's own rule; 1 and '1' are two keys; the same key in two mappings
    text = ("base: &b {port: 1, host: a}\nderived:\n  <<: *b\n  port: 2\n1: one\n'1': uno\n"
            "list:\n  - {k: 1}\n  - {k: 2}\n")
    data, dups = yamlkeys.load(text)
    assert dups == [] and data["derived"] == {"port": 2, "host": "a"}
    data, dups = yamlkeys.load("a:\n  - x: 1\n    x: 2\n")
    assert data == {"a": [{"x": 2}]}
    assert [(d.path, d.line, d.first_line) for d in dups] == [("a.0.x", 3, 2)]
    f = tmp_path / "ok.yaml"
    f.write_text("server: {max_connections: 5}\nlogging: {level: info}\nroles:\n  user: {uids: [1]}\n"
                 "  admin: {uids: [0]}\n")
    assert load(f, env={}, etc=None).server.max_connections == 5  # the same key in sibling mappings


def test_duplicate_keys_in_config_rule_and_intent_packs_are_reported_in_one_run(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "a.yaml").write_text(
        "pack: a\nrules:\n  - rule_id: a.one\n    trigger: {intent: device.clock}\n    priority: 1\n"
        "    actions:\n      - reply: hi\n    priority: 2\n"
        "  - rule_id: a.two\n    trigger: {intent: device.clokc}\n    actions:\n      - reply: hi\n",
        encoding="utf-8")
    (rules / "b.json").write_text('{"pack": "b", "pack": "b2", "rules": []}\n', encoding="utf-8")
    intents = tmp_path / "intents"
    intents.mkdir()
    (intents / "a.yaml").write_text(
        "pack: t\ngazetteers:\n  service:\n    nginx: nginx\n    nginx: web\n"
        "intents:\n  - name: device.clock\n    examples: [what time is it]\n    examples: [time]\n"
        "  - examples: [hello]\n", encoding="utf-8")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"session:\n  rules_dir: {rules}\n  listening_s: 5\n  listening_s: 6\n"
                   f"nlu:\n  intent_dirs: [{intents}]\n")
    p = _hermesd("check-config", str(cfg))
    assert p.returncode == 78, p.stderr
    expected = [
        f"{cfg}:4: session.listening_s: duplicate key 'listening_s' (first at line 3)",
        f"{rules / 'a.yaml'}:8: rules.0.priority: duplicate key 'priority' (first at line 5)",
        "a.yaml:10: rules.1.trigger.intent: unknown intent 'device.clokc'",
        f"{rules / 'b.json'}:1: pack: duplicate key 'pack' (first at line 1)",
        f"{intents / 'a.yaml'}:5: gazetteers.service.nginx: duplicate key 'nginx' (first at line 4)",
        f"{intents / 'a.yaml'}:9: intents.0.examples: duplicate key 'examples' (first at line 8)",
        "a.yaml: intents[1]: needs a name",
    ]
    at = [p.stderr.find(e) for e in expected]
    assert all(i >= 0 for i in at), ([e for e, i in zip(expected, at) if i < 0], p.stderr)
    assert at == sorted(at), p.stderr


def test_the_daemon_refuses_duplicate_keys_with_the_same_message(tmp_path):
    from hermesd.errors import InputInvalid
    from hermesd.nlu.packs import load_packs
    from hermesd.rules.loader import RulePackError, load_rules

    f = tmp_path / "dup.yaml"
    f.write_text("logging:\n  level: info\n  level: debug\n")
    p = _hermesd("run", "--config", str(f), "--socket", str(tmp_path / "s"), cwd=tmp_path)
    assert p.returncode == 78 and not (tmp_path / "s").exists()
    assert f"{f}:3: logging.level: duplicate key 'level' (first at line 2)" in p.stderr, p.stderr
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "r.yaml").write_text("pack: r\npack: s\nrules:\n  - rule_id: x\n    trigger: {intent: a}\n"
                                  "    actions:\n      - reply: hi\n", encoding="utf-8")
    with pytest.raises(RulePackError) as rp:  # what the session subsystem loads at start and at hot reload
        load_rules(rules)
    assert f"{rules / 'r.yaml'}:2: pack: duplicate key 'pack' (first at line 1)" in str(rp.value)
    intents = tmp_path / "intents"
    intents.mkdir()
    (intents / "i.yaml").write_text("pack: i\nintents:\n  - name: a.b\n    name: a.c\n    examples: [x]\n",
                                    encoding="utf-8")
    with pytest.raises(InputInvalid) as ip:  # what the nlu subsystem and build-pack load
        load_packs([intents])
    assert f"{intents / 'i.yaml'}:4: intents.0.name: duplicate key 'name' (first at line 3)" in str(ip.value)
    assert ip.value.data["violations"] == [f"{intents / 'i.yaml'}:4: intents.0.name: duplicate key 'name' "
                                           "(first at line 3)"]
