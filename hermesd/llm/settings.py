"""The ``llm:`` config section: the optional LLM executor, off by default (DESIGN.md, "the optional LLM")."""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from ..section import Section
from ..typed import Field, field_validator

__all__ = ["LlmBreakerSettings", "LlmSettings"]


class LlmBreakerSettings(Section):
    """The endpoint's own circuit breaker (:class:`hermesd.tools.breaker.Breaker`, the tools' one).

    :param threshold: consecutive failed calls (timeout, refused connection, HTTP 5xx, unreadable
        body) that open it. :param cooldown_ms: open this long before a half-open probe;
        doubled on each failed probe up to :param cooldown_max_ms:.
    :param probe_every: in half-open, 1 call in this many is let through as the probe.
    """

    threshold: int = Field(2, ge=1, le=100)
    cooldown_ms: int = Field(10_000, ge=10, le=3_600_000)
    cooldown_max_ms: int = Field(120_000, ge=10, le=86_400_000)
    probe_every: int = Field(1, ge=1, le=100)


class LlmSettings(Section):
    """Where the model is and when a turn may go to it.

    :param enabled: off by default: with it off no turn ever reaches the LLM path.
    :param api: ``openai`` (an OpenAI-compatible ``POST {endpoint}/v1/chat/completions`` with
        ``tools``: llama.cpp's server, vLLM, LM Studio, Ollama's ``/v1``) or ``ollama``
        (``POST {endpoint}/api/chat`` with ``tools``).
    :param endpoint: ``http://HOST:PORT`` (a path prefix is kept: ``http://gw:8080/llm``); ``https``
        too. Ollama listens on ``http://127.0.0.1:11434`` by default.
    :param model: the model name the server knows (``qwen2.5:3b``, ``llama3.2``).
    :param api_key_env: the environment variable holding a bearer token, when the server wants
        one (the key itself is never in a config file, a log line or a trace).
    :param timeout_ms: one model call, connect to last byte; past it the turn gets the fallback.
    :param max_tokens: the model's reply budget (OpenAI ``max_tokens``, Ollama ``options.num_predict``).
    :param prompt_tokens: the prompt's budget (estimated, see :mod:`hermesd.memory.prompt`);
        context is trimmed by rule to fit.
    :param max_tool_rounds: model rounds whose tool calls are acted on; after them the model
        is asked once more with no tools offered, for a plain reply.
    :param rate_per_minute: LLM turns one uid may start per minute (a token bucket of this many,
        refilled evenly); past it the turn gets the fallback reply.
    :param out_of_scope: a turn the NLU put out of scope may go to the LLM.
    :param intents: intents whose fallback (recognised, but no rule held) may go to the LLM.
    :param roles: roles whose turns may go to the LLM.
    :param tools: the tools offered to the model (empty = every tool the caller's role may call);
        the role still decides.
    :param while_open: a new request said while a card or form is open, that the reader could
        not take as an answer (a digression no rule covers), may go to the LLM; the open question
        is asked again after it. Off by default: an open question is the rules' business.
    :param temperature: sampling temperature sent to the model (0: the most repeatable replies).
    """

    enabled: bool = False
    api: Literal["openai", "ollama"] = "ollama"
    endpoint: str = "http://127.0.0.1:11434"
    model: str = "qwen2.5:3b"
    api_key_env: str | None = None
    timeout_ms: int = Field(8000, ge=50, le=600_000)
    max_tokens: int = Field(256, ge=1, le=32_768)
    prompt_tokens: int = Field(1500, ge=64, le=131_072)
    max_tool_rounds: int = Field(2, ge=0, le=10)
    rate_per_minute: float = Field(10.0, gt=0, le=6000)
    out_of_scope: bool = True
    intents: list[str] = Field(default_factory=list)
    roles: list[str] = Field(default_factory=lambda: ["admin", "user"])
    tools: list[str] = Field(default_factory=list)
    while_open: bool = False
    temperature: float = Field(0.0, ge=0, le=2)
    breaker: LlmBreakerSettings = LlmBreakerSettings()

    @field_validator("endpoint")
    @classmethod
    def _url(cls, v: str) -> str:
        parts = urlsplit(v)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("expected http://HOST:PORT or https://HOST:PORT, e.g. http://127.0.0.1:11434")
        if parts.username is not None or parts.password is not None:
            # never sent (the client speaks Bearer tokens only) and it would show in status and logs
            raise ValueError("no user or password in the URL: name the environment variable that holds "
                             "the token in llm.api_key_env")
        if parts.query or parts.fragment:
            raise ValueError("no query or fragment: the API path is added by hermesd")
        try:
            parts.port
        except ValueError as exc:
            raise ValueError(str(exc)) from None
        return v.rstrip("/")
