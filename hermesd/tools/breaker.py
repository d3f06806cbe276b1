"""Per-tool circuit breaker (pure: the clock is passed in).

States (Nygard, *Release It!*, "Circuit Breaker"; Fowler, CircuitBreaker, 2014)::

    closed ──failure_threshold consecutive failures──▶ open
    open ──cooldown elapsed (checked on the next call)──▶ half_open
    half_open ──probe succeeds──▶ closed (cooldown back to its base)
    half_open ──probe fails──▶ open, cooldown doubled (capped at cooldown_max_ms)

In half-open, arrivals are numbered from 0; arrival ``i`` is let through as the
probe only if ``i % probe_every == 0`` and no probe is in flight, so of a crowd
arriving during a probe exactly one runs and the rest are refused at once.
Only infrastructure failures are recorded as failures (timeout, OOM, crash,
invalid output, handler errors marked retryable); the caller records a
business error or bad input as a success, since the tool answered.
"""

from __future__ import annotations

from typing import Callable, Literal

__all__ = ["Breaker", "State"]

State = Literal["closed", "open", "half_open"]
Ticket = Literal["normal", "probe"]


class Breaker:
    """One tool's breaker.

    :param threshold: consecutive failures that open it (defaults by kind: local 5, database 3, network 2).
    :param cooldown_ms: time open before the first probe. :param cooldown_max_ms: cap of the doubling.
    :param probe_every: in half-open, let 1 arrival in this many through.
    :param on_transition: ``f(old, new, reason)`` called on every state change (logging, metrics).
    """

    __slots__ = ("_arrivals", "_failures", "_opened_at_ms", "_probe", "base_cooldown_ms", "cooldown_max_ms",
                 "cooldown_ms", "on_transition", "probe_every", "state", "threshold", "transitions")

    def __init__(self, *, threshold: int, cooldown_ms: int, cooldown_max_ms: int, probe_every: int = 5,
                 on_transition: Callable[[State, State, str], None] | None = None) -> None:
        self.threshold = threshold
        self.base_cooldown_ms = self.cooldown_ms = cooldown_ms
        self.cooldown_max_ms = max(cooldown_max_ms, cooldown_ms)
        self.probe_every = probe_every
        self.on_transition = on_transition
        self.state: State = "closed"
        self.transitions = 0
        self._failures = 0
        self._opened_at_ms = 0.0
        self._arrivals = 0
        self._probe = False

    def _go(self, new: State, reason: str) -> None:
        old, self.state = self.state, new
        self.transitions += 1
        if self.on_transition is not None:
            self.on_transition(old, new, reason)

    def admit(self, now_ms: float) -> Ticket | None:
        """A ticket when the call may run, ``None`` when it must get ``TOOL_UNAVAILABLE`` now."""
        if self.state == "closed":
            return "normal"
        if self.state == "open":
            if now_ms - self._opened_at_ms < self.cooldown_ms:
                return None
            self._arrivals = 0
            self._probe = False
            self._go("half_open", f"cooldown of {self.cooldown_ms} ms elapsed")
        i = self._arrivals
        self._arrivals += 1
        if self._probe or i % self.probe_every:
            return None
        self._probe = True
        return "probe"

    def record(self, ticket: Ticket, ok: bool, now_ms: float) -> None:
        """Record the outcome of a call admitted with ``ticket`` (``ok=False``: infrastructure failure)."""
        if ticket == "probe":
            self._probe = False
            if self.state != "half_open":
                return
            if ok:
                self.cooldown_ms = self.base_cooldown_ms
                self._failures = 0
                self._go("closed", "probe succeeded")
            else:
                self.cooldown_ms = min(self.cooldown_ms * 2, self.cooldown_max_ms)
                self._opened_at_ms = now_ms
                self._go("open", f"probe failed; cooldown now {self.cooldown_ms} ms")
            return
        if self.state != "closed":
            return  # a late answer from before the breaker opened
        if ok:
            self._failures = 0
            return
        self._failures += 1
        if self._failures >= self.threshold:
            self._opened_at_ms = now_ms
            self._go("open", f"{self._failures} consecutive failures")

    def release(self, ticket: Ticket) -> None:
        """Forget a call that proved nothing (bad input, no free worker): frees the probe slot."""
        if ticket == "probe":
            self._probe = False

    def retry_after_ms(self, now_ms: float) -> int:
        """Milliseconds until a probe may be let through (0 when not open)."""
        if self.state != "open":
            return 0
        return max(0, int(self._opened_at_ms + self.cooldown_ms - now_ms))
