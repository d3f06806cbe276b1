"""tool.yaml ``reply``, ``subject`` and bilingual ``errors``: validated at load, errors with file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermesd.rules.filters import Style
from hermesd.tools.descriptor import DescriptorError, load_descriptor

PACK = Path(__file__).parents[2] / "tools"

BASE = """\
name: probe
description: a probe
output:
  online: {type: boolean, required: true}
  uptime_s: {type: number, required: true}
"""


def folder(tmp_path: Path, extra: str) -> Path:
    d = tmp_path / "probe"
    d.mkdir()
    (d / "tool.yaml").write_text(BASE + extra, encoding="utf-8")
    (d / "handler.py").write_text("def handle(input):\n    return {'online': True, 'uptime_s': 1.0}\n")
    (d / "test_cases.json").write_text(json.dumps([{"name": "x", "input": {}, "expect": {"keys": ["online"]}}]))
    return d


def test_every_shipped_tool_has_a_reply_a_subject_and_sentences_for_its_errors():
    for d in sorted(p for p in PACK.iterdir() if (p / "tool.yaml").is_file()):
        desc, _ = load_descriptor(d)
        assert desc.reply_template is not None, d.name
        assert desc.subject_text("zh") and desc.subject_text("en"), d.name
        for code in desc.errors:
            assert desc.error_text(code, "zh") and desc.error_text(code, "en"), (d.name, code)


def test_reply_cases_subject_and_bilingual_errors(tmp_path):
    desc, _ = load_descriptor(folder(tmp_path, """\
subject: {zh: 探测, en: the probe}
errors:
  GONE: {zh: 找不到了，请检查。, en: "It is gone; please check."}
  OLD_STYLE: a technician's description
reply:
  - when: "online"
    zh: "在线，已运行 {{uptime_s | duration}}。"
    en: "Up for {{uptime_s | duration}}."
  - {zh: 离线。, en: Down.}
"""))
    assert desc.reply_template.render({"online": True, "uptime_s": 11520}, Style("zh")) == "在线，已运行 3 小时 12 分。"
    assert desc.reply_template.render({"online": False, "uptime_s": 0}, Style("en")) == "Down."
    assert desc.subject_text("zh") == "探测" and desc.subject_text("fr") == "the probe"
    # errors stays code → description (English) for older readers; the sentences are apart
    assert desc.errors == {"GONE": "It is gone; please check.", "OLD_STYLE": "a technician's description"}
    assert desc.error_text("GONE", "zh") == "找不到了，请检查。"
    assert desc.error_text("OLD_STYLE", "en") is None and desc.error_text("NOPE", "en") is None


def test_an_error_may_ask_again_for_the_value_it_refuses(tmp_path):
    desc, _ = load_descriptor(folder(tmp_path, """\
errors:
  GONE: {zh: 这个时间已经过去了。, en: That time has gone., ask_again: datetime}
  OTHER: {zh: 不行。, en: No.}
"""))
    assert desc.error_asks == {"GONE": "datetime"}
    assert desc.error_text("GONE", "en") == "That time has gone." and desc.errors["GONE"] == "That time has gone."
    shipped, _ = load_descriptor(PACK / "reminder")
    assert shipped.error_asks == {"IN_THE_PAST": "datetime", "MOVED_INTO_PAST": "datetime"}


@pytest.mark.parametrize(("extra", "line", "fragment"), [
    ('reply: {zh: "{{steps.x}}", en: x}\n', 6, "reply: reply.zh: unknown root 'steps'"),
    ('reply: {zh: "{{uptime_s | ago}}", en: x}\n', 6, "unknown filter 'ago'"),
    ('reply: {zh: x}\n', 6, "reply.en: missing: every case gives zh and en"),
    ('reply:\n  - {when: "online", zh: a, en: a}\n  - {when: "online", zh: b, en: b}\n', 6,
     "reply.1: the last case needs no 'when'"),
    ('reply:\n  - {when: "nope == 1", zh: a, en: a}\n  - {zh: b, en: b}\n', 6,
     "reply.0.when: unknown name 'nope'"),
    ('reply: {zh: a, en: b, fr: c}\n', 6, "unknown key(s) fr"),
    ('errors:\n  GONE: {zh: 没了}\n  BAD: {de: weg}\n', 6, "errors.BAD: give a sentence per language"),
    ('subject: {zh: ""}\n', 6, "subject: a noun phrase per language"),
    ('errors:\n  GONE: {zh: 没了, en: gone, ask_again: ""}\n', 6, "errors.GONE.ask_again: the entity type"),
])
def test_bad_templates_name_the_file_and_line(tmp_path, extra, line, fragment):
    with pytest.raises(DescriptorError) as info:
        load_descriptor(folder(tmp_path, extra))
    assert any(p.startswith(f"{tmp_path / 'probe' / 'tool.yaml'}:") and fragment in p for p in info.value.problems), \
        info.value.problems
    assert any(f"tool.yaml:{line}:" in p for p in info.value.problems) or "errors" in fragment, info.value.problems


def test_a_reply_field_in_the_output_would_clash(tmp_path):
    with pytest.raises(DescriptorError) as info:
        load_descriptor(folder(tmp_path, '  reply: {type: string}\nreply: {zh: a, en: b}\n'))
    assert "clash with the rendered reply" in str(info.value)
