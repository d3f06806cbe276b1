"""The NLU subsystem: nlu.parse method, params, errors, health, metrics, reload, settings."""

import asyncio
from pathlib import Path

import pytest
from hermesd.typed import ValidationError

from hermesd.errors import InputInvalid
from hermesd.nlu.packs import load_packs
from hermesd.subsystems.nlu import NluSubsystem, ParseParams
from hermesd.nlu.settings import NluSettings
from hermesd.protocol import CallContext, Caller

from .conftest import REF, REPO


async def _noop(method, params):
    return None


def _ctx(role="user"):
    return CallContext(Caller(uid=1000, gid=1000, pid=1, role=role), "0" * 16, _noop)


def test_method_table(nlu):
    (m,) = nlu.methods()
    assert m.name == "nlu.parse" and m.roles == frozenset({"admin", "user"}) and m.params_model is ParseParams


def test_parse_method_returns_full_parse(nlu):
    (m,) = nlu.methods()
    params = ParseParams(text="把上周三发给张工的报价单再发一遍", reference_time="2026-11-29T07:30:00+08:00")
    out = asyncio.run(m.handler(params, _ctx()))
    assert out["intent"] == "doc.resend" and out["kind"] == "command"
    assert out["intents"][0]["intent"] == "doc.resend" and "score" in out["intents"][0]
    by_type = {e["type"]: e for e in out["entities"]}
    assert by_type["datetime"]["value"]["start"] == "2026-11-18"
    assert by_type["person"]["span"] == [6, 8]
    assert out["times"][0]["span"] == [1, 4]
    assert out["degraded"] is False


def test_reference_time_defaults_to_clock_and_tz_param(nlu):
    r = nlu.parse("今天")
    assert r.times[0].start.isoformat() == "2026-11-29"
    r = nlu.parse("今天", tz="America/New_York")  # 07:30 in Shanghai is still the 28th in New York
    assert r.times[0].start.isoformat() == "2026-11-28"


def test_bad_zone_is_input_invalid(nlu):
    with pytest.raises(InputInvalid):
        nlu.parse("今天", tz="Nowhere/Void")


def test_too_long_is_input_invalid(nlu):
    with pytest.raises(InputInvalid):
        nlu.parse("啊" * (nlu.settings.max_text_chars + 1))


def test_params_model_rejects_unknown_keys():
    with pytest.raises(ValidationError):
        ParseParams(text="hi", colour="red")


def test_health_and_metrics(nlu):
    h = nlu.health()
    assert h["status"] == "ok" and h["intents"] >= 14 and h["scorer"] is True
    nlu.parse("检查网络")
    text = nlu.metrics_text()
    assert "hermes_nlu_parses_total" in text and "hermes_nlu_degraded_total" in text


def test_settings_defaults_and_validation():
    s = NluSettings()
    assert s.timezone == "Asia/Shanghai" and s.parse_budget_ms == 500
    with pytest.raises(ValidationError):
        NluSettings(timezone="Mars/Base")
    with pytest.raises(ValidationError):
        NluSettings(parse_budget_ms=-1)
    with pytest.raises(ValidationError):
        NluSettings(colour="red")


def test_extra_id_pattern_from_settings(tmp_path):
    settings = NluSettings(intent_dirs=[str(REPO / "config" / "intents")],
                           id_patterns=[{"type": "asset_id", "regex": r"(?<![a-z0-9])ast-\d{4}(?![a-z0-9])"}])
    sub = NluSubsystem(settings, clock=lambda: REF)
    asyncio.run(sub.start_standalone(tmp_path))
    assert [(e.type, e.value) for e in sub.parse("AST-0042 的状态").entities] == [("asset_id", "AST-0042")]


def test_bad_pack_reports_every_problem(tmp_path: Path):
    (tmp_path / "a.yaml").write_text("intents:\n  - name: x\n    colour: red\n  - examples: [hi]\nfoo: 1\n", encoding="utf-8")
    with pytest.raises(InputInvalid) as ei:
        load_packs([tmp_path])
    assert len(ei.value.data["violations"]) == 3


def test_reload_keeps_old_packs_when_new_ones_are_bad(tmp_path: Path, nlu):
    (tmp_path / "bad.yaml").write_text("intents: [{name: 1}]\n", encoding="utf-8")

    class Cfg:
        nlu = NluSettings(intent_dirs=[str(tmp_path)])

    sub = NluSubsystem(NluSettings(intent_dirs=[str(REPO / "config" / "intents")]), clock=lambda: REF)
    asyncio.run(sub.start_standalone(tmp_path / "cache"))
    n = len(sub.engine.specs)
    asyncio.run(sub.reload(Cfg()))
    assert len(sub.engine.specs) == n and sub.settings.intent_dirs == [str(REPO / "config" / "intents")]


@pytest.mark.parametrize("text,doc_id", [
    ("把报价单_071发给王芳", "071"),
    ("把报价单071发给王芳", "071"),
    ("把报价单_071.pdf发给王芳", "071"),
    ("send quote 071 to Wang Fang", "071"),
    ("send quote-071 to Li", "071"),
    ("把Q-2024-061发给王芳", "Q-2024-061"),
    # a serial needs a document's kind right before it, and is never a year, a clock, an amount or a count
    ("把071发给王芳", None),
    ("把报告2024年的发给他", None),
    ("报价单10点发给王芳", None),
    ("发票12张", None),
    ("报价单3.5", None),
])
def test_a_serial_after_a_documents_kind_is_its_id(nlu, text, doc_id):
    ids = [e.value for e in nlu.parse(text).entities if e.type == "doc_id"]
    assert ids == ([doc_id] if doc_id else [])
