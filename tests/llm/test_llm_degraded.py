"""When the model cannot answer: a slow endpoint, the endpoint down (its breaker), the rate limit —
each turn gets the pack's fallback in the user's language with ``degraded: llm`` — and with
``llm`` off nothing reaches the model at all."""

from __future__ import annotations

import time

import pytest

from .conftest import llm_config
from .llm_server import ModelServer, Say
from .test_llm_daemon import OOS_EN, OOS_ZH


def _open(c, locale: str) -> str:
    return c.call("session.open", {"locale": locale})["session_id"]


def _turn(c, sid: str, text: str) -> dict:
    return c.call("session.turn", {"session_id": sid, "text": text})


def _llm_state(d) -> dict:
    return d.call("admin.status")["subsystems"]["llm"]


@pytest.mark.parametrize("api", ["openai", "ollama"])
def test_a_slow_endpoint_times_out_to_the_fallback_in_the_users_language(api, model_server, start_daemon):
    d = start_daemon(llm_config(model_server, api, timeout_ms=400, breaker={"threshold": 5}))
    with d.client() as c:
        en, zh = _open(c, "en-US"), _open(c, "zh-CN")
        model_server.script(Say(text="too late", delay_s=3.0), Say(text="太晚了", delay_s=3.0))
        r_en = _turn(c, en, OOS_EN)
        r_zh = _turn(c, zh, OOS_ZH)
        for r, lang in ((r_en, "en"), (r_zh, "zh")):
            assert r["path"] == "llm" and r["generated"] is False
            assert r["llm"]["outcome"] == "degraded:timeout"
            assert r["reply"]["text"] and "too late" not in r["reply"]["text"] and "太晚了" not in r["reply"]["text"]
            assert r["llm"]["ms"] < 3000  # it did not wait for the model
        assert any("\u4e00" <= ch <= "\u9fff" for ch in r_zh["reply"]["text"])
        assert not any("\u4e00" <= ch <= "\u9fff" for ch in r_en["reply"]["text"])
        trace = c.call("session.trace", {"session_id": en})["traces"][-1]
        assert "llm" in trace["degraded"].split(",")
        assert trace["llm"]["outcome"] == "degraded:timeout"
    text = d.call("admin.metrics")["text"]
    assert 'hermes_llm_calls_total{outcome="timeout"} 2' in text
    assert 'hermes_llm_turns_total{outcome="degraded"} 2' in text


def test_the_endpoint_down_opens_its_breaker_and_a_half_open_probe_closes_it(model_server, start_daemon):
    cooldown_ms = 1500
    d = start_daemon(llm_config(model_server, "ollama",
                                breaker={"threshold": 2, "cooldown_ms": cooldown_ms, "probe_every": 1}))
    model_server.stop()  # the port now refuses connections
    with d.client() as c:
        sid = _open(c, "en-US")
        for _ in range(2):
            r = _turn(c, sid, OOS_EN)
            assert r["llm"]["outcome"] == "degraded:connect" and r["generated"] is False
        assert _llm_state(d)["breaker"] == "open"
        model_server.start()  # back on the same port; the breaker still refuses for its cooldown
        model_server.script(default=Say(text="I am back."))
        opened = time.monotonic()
        r = _turn(c, sid, OOS_EN)
        if time.monotonic() - opened < cooldown_ms / 1000:  # (a very slow machine may pass the cooldown here)
            assert r["llm"]["outcome"] == "degraded:breaker_open"
            assert model_server.requests == []
            assert r["reply"]["text"]
        time.sleep(cooldown_ms / 1000 + 0.2)  # the breaker's clock, not a wait for the daemon
        r = _turn(c, sid, OOS_EN)  # the half-open probe
        assert r["reply"]["text"] == "I am back." and r["generated"] is True
        assert len(model_server.requests) == 1
        assert _llm_state(d)["breaker"] == "closed"
        c.call("session.close", {"session_id": sid})
    assert 'hermes_llm_calls_total{outcome="connect"} 2' in d.call("admin.metrics")["text"]


def test_past_the_rate_limit_a_uid_gets_the_fallback(model_server, start_daemon):
    d = start_daemon(llm_config(model_server, "openai", rate_per_minute=1))
    model_server.script(default=Say(text="a joke"))
    with d.client() as c:
        sid = _open(c, "en-US")
        assert _turn(c, sid, OOS_EN)["generated"] is True
        r = _turn(c, sid, OOS_EN)
        assert r["generated"] is False and r["llm"]["outcome"] == "rate_limited"
        assert r["reply"]["text"] and r["reply"]["text"] != "a joke"
    assert len(model_server.requests) == 1


def test_with_llm_off_nothing_changes(model_server, start_daemon):
    on = llm_config(model_server, "openai")
    off = {**on, "llm": {**on["llm"], "enabled": False}}
    d = start_daemon(off)
    model_server.script(default=Say(text="should never be seen"))
    with d.client() as c:
        sid = _open(c, "en-US")
        r = _turn(c, sid, OOS_EN)
        assert r["path"] != "llm" and "generated" not in r and "llm" not in r
        assert r["reply"]["text"] != "should never be seen"
        r = _turn(c, sid, "check the network connection")  # a rule's handoff: llm is a plain hand-off then
        assert r["path"] != "llm"
    assert model_server.requests == []
    assert d.call("admin.status")["subsystems"]["llm"] == {"status": "ok", "enabled": False}
