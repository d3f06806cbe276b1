"""The ``llm:`` section: defaults off, HERMESD_LLM__* overrides, bad values reported; the rate limiter."""

from __future__ import annotations

import pytest

from hermesd import config
from hermesd.subsystems.llm import RateLimiter


def test_off_by_default_and_overridable_from_the_environment():
    assert config.load(env={}).llm.enabled is False
    cfg = config.load(env={"HERMESD_LLM__ENABLED": "true", "HERMESD_LLM__API": "openai",
                           "HERMESD_LLM__ENDPOINT": "http://10.0.0.5:8080/", "HERMESD_LLM__MAX_TOOL_ROUNDS": "1",
                           "HERMESD_LLM__BREAKER__THRESHOLD": "4"})
    assert (cfg.llm.enabled, cfg.llm.api, cfg.llm.endpoint, cfg.llm.max_tool_rounds, cfg.llm.breaker.threshold) == \
        (True, "openai", "http://10.0.0.5:8080", 1, 4)
    assert config.load(env={}).llm.max_tool_rounds == 2


@pytest.mark.parametrize("key, value, says", [
    ("HERMESD_LLM__API", "gemini", "llm.api"),
    ("HERMESD_LLM__ENDPOINT", "ftp://x", "http://HOST:PORT"),
    ("HERMESD_LLM__ENDPOINT", "http://x:99999", "llm.endpoint"),
    ("HERMESD_LLM__TIMEOUT_MS", "0", "llm.timeout_ms"),
    ("HERMESD_LLM__MODLE", "x", "did you mean 'model'"),
])
def test_bad_values_are_reported(key, value, says):
    with pytest.raises(config.ConfigError) as e:
        config.load(env={key: value})
    assert says in str(e.value)


def test_the_rate_limiter_refills_evenly_per_uid():
    now = [0.0]
    r = RateLimiter(2, mono=lambda: now[0])
    assert [r.take(1), r.take(1), r.take(1)] == [True, True, False]
    assert r.take(2)  # another uid has its own bucket
    now[0] += 30.0  # half a minute: one token back
    assert [r.take(1), r.take(1)] == [True, False]


def test_credentials_in_the_endpoint_url_are_refused_and_never_echoed():
    with pytest.raises(config.ConfigError) as e:
        config.load(env={"HERMESD_LLM__ENDPOINT": "http://bob:PW-s3cr3t@127.0.0.1:18935"})
    assert "api_key_env" in str(e.value) and "PW-s3cr3t" not in str(e.value) and "bob" not in str(e.value)
