"""The LLM executor's shell: the endpoint, its circuit breaker, the per-uid rate limit, metrics.

Subsystem ``llm`` (no JSON-RPC methods of its own: a turn reaches it through the session layer,
:mod:`hermesd.session.llmturn`). Off by default (``llm.enabled``); when off it opens nothing
and no turn asks it anything. Its breaker is :class:`hermesd.tools.breaker.Breaker`, the tools'
one: a timeout, a refused connection, an HTTP error or an unreadable answer counts as a failure;
once open, turns get the pack's fallback at once (``degraded: llm``) until a half-open probe
succeeds.
"""

from __future__ import annotations

import logging
import os
import time
from typing import TYPE_CHECKING, Any, Callable

from ..llm.settings import LlmSettings
from ..metrics import Counter, Histogram
from ..tools.breaker import Breaker
from .subsystem import DaemonContext, Subsystem, section

if TYPE_CHECKING:
    from ..config import HermesConfig
    from ..llm.wire import ChatReply
    from ..metrics import Registry

__all__ = ["LlmService", "RateLimiter"]

log = logging.getLogger(__name__)

#: model latency buckets (seconds): a small local model answers in 0.1–30 s
LLM_BUCKETS_S = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
#: uids whose buckets are kept (the oldest-refilled go first past it)
_MAX_BUCKETS = 4096


class RateLimiter:
    """A token bucket per uid: ``per_minute`` tokens, refilled evenly (``per_minute / 60`` a second).

    :param mono: monotonic seconds (injected, so tests need no clock).
    """

    def __init__(self, per_minute: float, mono: Callable[[], float] = time.monotonic) -> None:
        self.per_minute, self.mono = per_minute, mono
        self._buckets: dict[int, tuple[float, float]] = {}

    def take(self, uid: int) -> bool:
        """Spend one token of ``uid``'s bucket; False when it is empty."""
        now = self.mono()
        tokens, at = self._buckets.pop(uid, (self.per_minute, now))
        tokens = min(self.per_minute, tokens + (now - at) * self.per_minute / 60.0)
        ok = tokens >= 1.0
        self._buckets[uid] = (tokens - 1.0 if ok else tokens, now)  # re-inserted: newest last
        while len(self._buckets) > _MAX_BUCKETS:
            self._buckets.pop(next(iter(self._buckets)))
        return ok


class LlmService(Subsystem):
    """Subsystem ``llm``: ``chat()`` for the session layer, with breaker, timeout and metrics."""

    name = "llm"

    def __init__(self, settings: LlmSettings | None = None) -> None:
        self._override = settings
        self.settings = settings or LlmSettings()
        self.breaker = self._breaker(self.settings)
        self.limiter = RateLimiter(self.settings.rate_per_minute)
        self.calls = Counter("hermes_llm_calls_total", "Model calls by outcome (ok, timeout, connect, "
                             "http_<status>, bad_reply, breaker_open).", ("outcome",))
        self.turns = Counter("hermes_llm_turns_total", "Turns the LLM executor took, by outcome (reply, confirm, "
                             "degraded, rate_limited).", ("outcome",))
        self.tokens = Counter("hermes_llm_tokens_total", "Tokens the model server counted, by direction (in, out).",
                              ("direction",))
        self.latency = Histogram("hermes_llm_call_duration_seconds", "Model call latency, connect to last byte.",
                                 buckets=LLM_BUCKETS_S)
        self.tool_calls = Counter("hermes_llm_tool_calls_total", "Tool calls the model proposed, by outcome (ok, "
                                  "error, refused, confirm, not_run, ignored).", ("outcome",))

    @staticmethod
    def _breaker(s: LlmSettings) -> Breaker:
        def on_transition(old: str, new: str, reason: str) -> None:
            log.warning("llm breaker", extra={"kv": {"endpoint": s.endpoint, "from": old, "to": new,
                                                     "reason": reason}})

        b = s.breaker
        return Breaker(threshold=b.threshold, cooldown_ms=b.cooldown_ms, cooldown_max_ms=b.cooldown_max_ms,
                       probe_every=b.probe_every, on_transition=on_transition)

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    async def start(self, ctx: DaemonContext) -> None:
        if self._override is None:
            self._apply(section(ctx.config, "llm", LlmSettings))
        if self.enabled:
            log.info("llm executor on", extra={"kv": {"api": self.settings.api, "endpoint": self.settings.endpoint,
                                                      "model": self.settings.model}})

    def _apply(self, new: LlmSettings) -> None:
        old, self.settings = self.settings, new
        if (old.endpoint, old.breaker) != (new.endpoint, new.breaker):
            self.breaker = self._breaker(new)  # another server: what the old one did says nothing of it
        if old.rate_per_minute != new.rate_per_minute:
            self.limiter = RateLimiter(new.rate_per_minute)

    async def stop(self) -> None:
        return None

    async def reload(self, config: "HermesConfig") -> None:
        new = section(config, "llm")
        if new is not None and self._override is None:
            self._apply(new)

    def health(self) -> dict[str, Any]:
        s = self.settings
        if not s.enabled:
            return {"status": "ok", "enabled": False}
        return {"status": "ok" if self.breaker.state == "closed" else "degraded", "enabled": True, "api": s.api,
                "endpoint": s.endpoint, "model": s.model, "breaker": self.breaker.state}

    def allows(self, role: str) -> bool:
        """The executor is on and ``role`` may use it."""
        return self.settings.enabled and role in self.settings.roles

    def admit(self, uid: int) -> bool:
        """One LLM turn of ``uid`` within its rate (``llm.rate_per_minute``)."""
        return self.limiter.take(uid)

    async def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> ChatReply:
        """One model call through the endpoint's breaker, within ``timeout_ms``.

        :raises ModelUnavailable: breaker open (``breaker_open``), or the call failed (see
            :func:`hermesd.llm.http.post_json`; ``bad_reply`` for an answer its API cannot read).
        """
        # the client, wire formats and tool-call checks load with the first call: with ``llm:`` off
        # (the default) the daemon never imports them (0.17 MB resident, measured)
        from ..llm.http import post_json
        from ..llm.rounds import ModelUnavailable
        from ..llm.wire import WireError, parse_reply, request

        s = self.settings
        now_ms = time.monotonic() * 1000
        ticket = self.breaker.admit(now_ms)
        if ticket is None:
            self.calls.inc("breaker_open")
            raise ModelUnavailable("breaker_open", f"retry after {self.breaker.retry_after_ms(now_ms)} ms")
        path, body = request(s.api, model=s.model, messages=messages, tools=tools, max_tokens=s.max_tokens,
                             temperature=s.temperature)
        token = os.environ.get(s.api_key_env) if s.api_key_env else None
        t0 = time.perf_counter()
        outcome = "ok"
        try:
            raw = await post_json(s.endpoint, path, body, timeout_s=s.timeout_ms / 1000, token=token)
            try:
                reply = parse_reply(s.api, raw)
            except WireError as exc:
                raise ModelUnavailable("bad_reply", str(exc)) from None
        except ModelUnavailable as exc:
            outcome = exc.reason
            self.breaker.record(ticket, False, time.monotonic() * 1000)
            log.warning("llm call failed", extra={"kv": {"reason": exc.reason, "detail": str(exc)[:200],
                                                         "model": s.model}})
            raise
        finally:
            dt = time.perf_counter() - t0
            self.calls.inc(outcome)
            self.latency.observe(dt)
        self.breaker.record(ticket, True, time.monotonic() * 1000)
        self.tokens.inc("in", amount=reply.tokens_in)
        self.tokens.inc("out", amount=reply.tokens_out)
        return reply

    def register_metrics(self, registry: "Registry") -> None:
        for m in (self.calls, self.turns, self.tokens, self.latency, self.tool_calls):
            registry.add(m)
        state_num = {"closed": 0, "half_open": 1, "open": 2}
        registry.gauge("hermes_llm_breaker_state", "The model endpoint's circuit breaker: 0 closed, 1 half-open, "
                       "2 open.", collect=lambda: state_num[self.breaker.state])
