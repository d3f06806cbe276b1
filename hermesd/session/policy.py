"""Session policy: the auth gate, an optional Python hook module, and load-aware degradation.

Config (``session:``): ``require_auth`` starts every session in ``PRE_AUTH``
(``session.auth`` in rules); until a rule sets ``auth: AUTHED`` (typically after a
tool validated a PIN or a phone number) only ``pre_auth_intents`` are routed.
``policy_module`` names an importable module that may define any of::

    def on_start(session: dict) -> dict | None       # extra session vars at open
    def on_timeout(session: dict, state: str) -> None  # a state timed out
    def can_transition(state: str, event: str, session: dict) -> tuple[bool, str]

A hook that raises is logged and ignored (``can_transition`` then allows): a
broken hook must not wedge every session.

:class:`LoadMonitor` samples CPU and memory from ``/proc`` at most once per
``load_sample_interval_ms`` (never per turn); above the thresholds the turn skips
optional expensive work (fuzzy anchor search) and its trace says ``degraded=load``.
"""

from __future__ import annotations

import importlib
import logging
import time
from types import ModuleType
from typing import Any, Callable

from .settings import SessionSettings

__all__ = ["LoadMonitor", "Policy"]

log = logging.getLogger(__name__)


class Policy:
    """Hooks from ``session.policy_module`` plus the auth gate.

    :raises ImportError: the module named in the config cannot be imported (start-up fails loudly).
    """

    def __init__(self, settings: SessionSettings) -> None:
        self.settings = settings
        self.module: ModuleType | None = None
        if settings.policy_module:
            self.module = importlib.import_module(settings.policy_module)
            log.info("policy loaded", extra={"kv": {"module": settings.policy_module,
                                                    "hooks": ",".join(self._hooks())}})

    def _hooks(self) -> list[str]:
        return [n for n in ("on_start", "on_timeout", "can_transition") if callable(getattr(self.module, n, None))]

    def _call(self, name: str, *args: Any) -> Any:
        fn = getattr(self.module, name, None) if self.module is not None else None
        if not callable(fn):
            return None
        try:
            return fn(*args)
        except Exception as exc:
            log.error("policy hook failed", extra={"kv": {"hook": name, "error": f"{type(exc).__name__}: {exc}"}})
            return None

    def initial_vars(self, session: dict[str, Any]) -> dict[str, Any]:
        """``auth`` (PRE_AUTH / AUTHED) plus what ``on_start`` returns."""
        out: dict[str, Any] = {"auth": "PRE_AUTH" if self.settings.require_auth else "AUTHED"}
        extra = self._call("on_start", session)
        if isinstance(extra, dict):
            out.update(extra)
        return out

    def on_timeout(self, session: dict[str, Any], state: str) -> None:
        self._call("on_timeout", session, state)

    def can_transition(self, state: str, event: str, session: dict[str, Any]) -> tuple[bool, str]:
        res = self._call("can_transition", state, event, session)
        if isinstance(res, tuple) and len(res) == 2:
            return bool(res[0]), str(res[1])
        return True, ""

    def gate(self, intent: str | None, session_vars: dict[str, Any]) -> bool:
        """True when ``intent`` may be routed in a session with these vars."""
        if not self.settings.require_auth or session_vars.get("auth") == "AUTHED" or intent is None:
            return True
        return intent in self.settings.pre_auth_intents


class LoadMonitor:
    """Cached CPU / memory sample; :meth:`overloaded` is cheap enough for every turn.

    Read from ``/proc/stat`` and ``/proc/meminfo`` (Linux ``proc(5)``) with psutil's arithmetic
    (``cpu_percent(interval=None)``: busy = total − idle − iowait, guest time already in user/nice;
    ``virtual_memory().percent`` = (MemTotal − MemAvailable) / MemTotal), without importing
    psutil into the daemon (7 modules, 0.8 MB resident in the started daemon on this machine).
    Where ``/proc`` cannot be read the sample is 0 % (never overloaded).

    :param clock: monotonic seconds. The first CPU sample primes the counters and reads 0 %.
    """

    def __init__(self, settings: SessionSettings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.clock = clock
        self._at = -1e9
        self._state: str | None = None
        self._cpu_last = _cpu_times()

    def cpu_percent(self) -> float:
        """Percent of all CPUs busy since the previous call (psutil ``cpu_percent(interval=None)``)."""
        now = _cpu_times()
        (busy0, total0), (busy1, total1) = self._cpu_last, now
        self._cpu_last = now
        if total1 <= total0:
            return 0.0
        return max(0.0, min(100.0, 100.0 * (busy1 - busy0) / (total1 - total0)))

    def overloaded(self) -> str | None:
        """``"cpu"`` / ``"memory"`` when above the configured thresholds, else None."""
        now = self.clock()
        if now - self._at >= self.settings.load_sample_interval_ms / 1000:
            self._at = now
            cpu = self.cpu_percent()
            mem = memory_percent()
            self._state = ("cpu" if cpu > self.settings.load_cpu_percent else
                           "memory" if mem > self.settings.load_memory_percent else None)
        return self._state


def _cpu_times() -> tuple[int, int]:
    """``(busy, total)`` clock ticks of all CPUs from ``/proc/stat``'s ``cpu`` line; (0, 0) off Linux."""
    try:
        with open("/proc/stat", "rb") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    # user nice system idle iowait irq softirq steal guest guest_nice: guest time is counted in user/nice
    total = sum(fields[:8])
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return total - idle, total


def memory_percent() -> float:
    """Percent of memory in use, ``(MemTotal - MemAvailable) / MemTotal`` from ``/proc/meminfo``
    (psutil ``virtual_memory().percent`` on Linux); 0.0 where it cannot be read."""
    values: dict[bytes, int] = {}
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                key, _, rest = line.partition(b":")
                if key in (b"MemTotal", b"MemAvailable"):
                    values[key] = int(rest.split()[0])
                    if len(values) == 2:
                        break
    except (OSError, ValueError, IndexError):
        return 0.0
    total, avail = values.get(b"MemTotal", 0), values.get(b"MemAvailable")
    if not total or avail is None:
        return 0.0
    return 100.0 * (total - avail) / total
