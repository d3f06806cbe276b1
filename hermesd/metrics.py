"""The daemon's one metrics registry and its Prometheus text exposition (format 0.0.4).

prometheus_client would add ~4 MB of RSS and ~25 ms of import to a daemon
whose idle budget is 40 MB (measured on this machine), for three metric kinds
we need; this module is the small subset: counters, gauges and histograms with
labels, rendered per https://prometheus.io/docs/instrumenting/exposition_formats/.

Every family of the daemon is registered in one :class:`Registry` (the daemon
owns it; each subsystem adds its families in ``Subsystem.register_metrics``), and
only :meth:`Registry.render` writes exposition text. Adding a figure is two lines::

    self.sends = registry.counter("hermes_x_sends_total", "Sends by outcome.", ("outcome",))
    self.sends.inc("ok")                         # on the path that does the work

or, for a value something already keeps, read at scrape time::

    registry.gauge("hermes_x_queue", "Jobs waiting.", collect=lambda: len(self.queue))

Names are checked at registration against the Prometheus naming conventions
(https://prometheus.io/docs/practices/naming/): the ``hermes_`` prefix, base units
(``_seconds``, ``_bytes``; no ``_ms``, ``_kb``, ``_percent``), ``_total`` on every
counter and on no gauge, a HELP text, and no two families whose series names
collide (a gauge ``x`` and a counter ``x_total`` are one family to a parser).
"""

from __future__ import annotations

import bisect
import logging
import math
from typing import Callable, Iterable, Mapping, Union

from . import lazyre

__all__ = ["Counter", "Gauge", "Histogram", "Registry", "LATENCY_BUCKETS_S", "CONTENT_TYPE", "percentile"]

log = logging.getLogger(__name__)

#: the exposition's HTTP content type (text format 0.0.4).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

#: request latency buckets in seconds: 50 µs … 5 s.
LATENCY_BUCKETS_S = (0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                     1.0, 2.5, 5.0)

#: what a ``collect`` callback returns: one number (a family without labels), or label values → number.
Collected = Union[float, int, Mapping[tuple[str, ...], float]]

_NAME = lazyre.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
_LABEL = lazyre.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
#: unit spellings that are not base units (naming guide: "use base units")
_NON_BASE_UNITS = lazyre.compile(r"_(ms|milliseconds|us|microseconds|ns|minutes|hours|days|kb|kib|mb|mib|gb|gib|"
                                 r"kilobytes|megabytes|percent)(_|$)")
#: suffixes a parser reads as part of another family's series
_RESERVED_SUFFIXES = ("_bucket", "_count", "_sum", "_created")


def _esc(v: str) -> str:
    return v.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _esc_help(v: str) -> str:
    return v.replace("\\", "\\\\").replace("\n", "\\n")


def _labels(names: tuple[str, ...], values: tuple[str, ...], extra: str = "") -> str:
    items = [f'{n}="{_esc(v)}"' for n, v in zip(names, values)]
    if extra:
        items.append(extra)
    return "{" + ",".join(items) + "}" if items else ""


def _num(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    if float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(float(v))


class _Metric:
    kind = ""

    def __init__(self, name: str, help_text: str, labelnames: Iterable[str] = (),
                 collect: Callable[[], Collected] | None = None) -> None:
        self.name = name
        self.help = help_text
        self.labelnames = tuple(labelnames)
        #: read at render time instead of the stored values (for figures another object keeps)
        self.collect = collect
        self._label_text: dict[tuple[str, ...], str] = {}
        self._check()

    # -- naming rules -----------------------------------------------------------------

    def _check(self) -> None:
        name = self.name
        if not _NAME.match(name) or not name.startswith("hermes_"):
            raise ValueError(f"metric name {name!r}: needs the hermes_ prefix and [a-zA-Z0-9_:] only")
        if not self.help.strip():
            raise ValueError(f"metric {name}: HELP text is required")
        if _NON_BASE_UNITS.search(name):
            raise ValueError(f"metric {name}: use base units (_seconds, _bytes, _ratio), not {name!r}")
        if name.endswith(_RESERVED_SUFFIXES):
            raise ValueError(f"metric {name}: the suffixes {_RESERVED_SUFFIXES} belong to histograms and counters")
        for label in self.labelnames:
            if not _LABEL.match(label) or label.startswith("__") or label in ("le", "quantile"):
                raise ValueError(f"metric {name}: bad label name {label!r}")
        if len(set(self.labelnames)) != len(self.labelnames):
            raise ValueError(f"metric {name}: repeated label name")

    def family(self) -> str:
        """The family name a parser groups this metric's series under."""
        return self.name

    def series_names(self) -> tuple[str, ...]:
        """Every sample name this metric writes."""
        return (self.name,)

    # -- labels -----------------------------------------------------------------------

    def _key(self, labels: tuple[str, ...]) -> tuple[str, ...]:
        if len(labels) != len(self.labelnames):
            raise ValueError(f"{self.name} takes labels {self.labelnames}, got {labels}")
        for x in labels:
            if type(x) is not str:
                return tuple(str(x) for x in labels)
        return labels

    def _lt(self, key: tuple[str, ...]) -> str:
        text = self._label_text.get(key)
        if text is None:
            if len(self._label_text) > 10_000:  # label sets come from code, but never grow without bound
                self._label_text.clear()
            text = self._label_text[key] = _labels(self.labelnames, key)
        return text

    def header(self) -> list[str]:
        return [f"# HELP {self.name} {_esc_help(self.help)}", f"# TYPE {self.name} {self.kind}"]

    def _collected(self) -> dict[tuple[str, ...], float]:
        assert self.collect is not None
        got = self.collect()
        if isinstance(got, Mapping):
            return {self._key(tuple(k) if isinstance(k, tuple) else (k,)): float(v) for k, v in got.items()}
        if self.labelnames:
            raise ValueError(f"{self.name}: collect returned one number for a family with labels")
        return {(): float(got)}

    def render(self) -> list[str]:
        raise NotImplementedError


class _Scalar(_Metric):
    """Counter and gauge: one number per label set."""

    def __init__(self, name: str, help_text: str, labelnames: Iterable[str] = (),
                 collect: Callable[[], Collected] | None = None) -> None:
        super().__init__(name, help_text, labelnames, collect)
        self.values: dict[tuple[str, ...], float] = {}

    def get(self, *labels: str) -> float:
        """The stored value for these label values (0 if never set); ``collect`` families read it."""
        if self.collect is not None:
            return self._collected().get(self._key(labels), 0.0)
        return self.values.get(self._key(labels), 0.0)

    def render(self) -> list[str]:
        values = self._collected() if self.collect is not None else self.values
        name, lt = self.name, self._lt
        return self.header() + [f"{name}{lt(k)} {_num(v)}" for k, v in sorted(values.items())]


class Counter(_Scalar):
    """Monotonic count; ``inc(*labels, amount=1)``. The name ends in ``_total``."""

    kind = "counter"

    def _check(self) -> None:
        super()._check()
        if not self.name.endswith("_total"):
            raise ValueError(f"counter {self.name}: a counter's name ends in _total")

    def family(self) -> str:
        return self.name[: -len("_total")]

    def series_names(self) -> tuple[str, ...]:
        return (self.name, self.family() + "_created")

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        """Add ``amount`` (≥ 0) to the series of these label values.

        :raises ValueError: wrong number of labels, or a negative amount.
        """
        if amount < 0:
            raise ValueError(f"{self.name}: a counter only goes up (got {amount})")
        if len(labels) != len(self.labelnames):
            raise ValueError(f"{self.name} takes labels {self.labelnames}, got {labels}")
        for x in labels:
            if type(x) is not str:
                labels = tuple(str(x) for x in labels)
                break
        values = self.values
        values[labels] = values.get(labels, 0.0) + amount

    def inc_key(self, key: tuple[str, ...], amount: float = 1.0) -> None:
        """Hot-path :meth:`inc` with a label tuple the caller built (and checked) once."""
        self.values[key] = self.values.get(key, 0.0) + amount


class Gauge(_Scalar):
    """A value that goes up and down: ``set``/``inc``, or read from ``collect`` at render time.

    ``fn`` is the older spelling of ``collect`` (one number, no labels).
    """

    kind = "gauge"

    def __init__(self, name: str, help_text: str, labelnames: Iterable[str] = (),
                 fn: Callable[[], float] | None = None, collect: Callable[[], Collected] | None = None) -> None:
        super().__init__(name, help_text, labelnames, collect or fn)

    def _check(self) -> None:
        super()._check()
        if self.name.endswith("_total"):
            raise ValueError(f"gauge {self.name}: _total is for counters")

    def set(self, value: float, *labels: str) -> None:
        self.values[self._key(labels)] = float(value)

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        key = self._key(labels)
        self.values[key] = self.values.get(key, 0.0) + amount


class Histogram(_Metric):
    """Cumulative buckets, ``_sum`` and ``_count``; ``observe(value, *labels)``.

    :param buckets: upper bounds, ascending, in the metric's unit (seconds for latency).
    """

    kind = "histogram"

    def __init__(self, name: str, help_text: str, labelnames: Iterable[str] = (),
                 buckets: tuple[float, ...] = LATENCY_BUCKETS_S) -> None:
        super().__init__(name, help_text, labelnames)
        self.buckets = tuple(sorted(buckets))
        self._le = ['le="' + _num(b) + '"' for b in self.buckets] + ['le="+Inf"']
        self.series: dict[tuple[str, ...], list[float]] = {}  # per-bucket counts + [sum, count]

    def series_names(self) -> tuple[str, ...]:
        return tuple(self.name + s for s in ("_bucket", "_sum", "_count", "_created"))

    def observe(self, value: float, *labels: str) -> None:
        self.observe_key(self._key(labels), value)

    def observe_key(self, key: tuple[str, ...], value: float) -> None:
        """Hot-path :meth:`observe` with a prebuilt label tuple."""
        row = self.series.get(key)
        if row is None:
            row = self.series[key] = [0.0] * (len(self.buckets) + 2)
        i = bisect.bisect_left(self.buckets, value)
        if i < len(self.buckets):
            row[i] += 1
        row[-2] += value
        row[-1] += 1

    def count(self, *labels: str) -> float:
        """Observations so far for these label values."""
        row = self.series.get(self._key(labels))
        return row[-1] if row else 0.0

    def render(self) -> list[str]:
        out = self.header()
        name, les = self.name, self._le
        append = out.append
        for key, row in sorted(self.series.items()):
            lt = self._lt(key)
            bucket = f"{name}_bucket{{{lt[1:-1]}," if lt else f"{name}_bucket{{"
            acc = 0
            for le, n in zip(les[:-1], row):
                acc += n
                append(f"{bucket}{le}}} {int(acc)}")
            append(f"{bucket}{les[-1]}}} {int(row[-1])}")
            append(f"{name}_sum{lt} {_num(row[-2])}")
            append(f"{name}_count{lt} {int(row[-1])}")
        return out


class Registry:
    """Every metric family of one daemon, rendered together by :meth:`render`.

    :meth:`add` takes a family built elsewhere; :meth:`counter`, :meth:`gauge` and
    :meth:`histogram` build and add one. Both raise ``ValueError`` for a name that
    breaks the conventions (see the module doc) or collides with one already here.
    """

    def __init__(self) -> None:
        self.metrics: dict[str, _Metric] = {}
        self._taken: dict[str, str] = {}  # family or series name → the metric that owns it

    def add(self, metric: _Metric) -> _Metric:
        names = {metric.family(), *metric.series_names()}
        for n in names:
            owner = self._taken.get(n)
            if owner is not None:
                what = "registered twice" if owner == metric.name else f"collides with {owner}"
                raise ValueError(f"metric {metric.name} {what} (series {n})")
        self.metrics[metric.name] = metric
        for n in names:
            self._taken[n] = metric.name
        return metric

    def counter(self, name: str, help_text: str, labelnames: Iterable[str] = (), *,
                collect: Callable[[], Collected] | None = None) -> Counter:
        """Register a :class:`Counter`; ``collect`` reads a count another object keeps."""
        return self.add(Counter(name, help_text, labelnames, collect=collect))  # type: ignore[return-value]

    def gauge(self, name: str, help_text: str, labelnames: Iterable[str] = (), *,
              collect: Callable[[], Collected] | None = None) -> Gauge:
        """Register a :class:`Gauge`; ``collect`` reads its value(s) at render time."""
        return self.add(Gauge(name, help_text, labelnames, collect=collect))  # type: ignore[return-value]

    def histogram(self, name: str, help_text: str, labelnames: Iterable[str] = (), *,
                  buckets: tuple[float, ...] = LATENCY_BUCKETS_S) -> Histogram:
        """Register a :class:`Histogram` (``buckets`` in the metric's unit)."""
        return self.add(Histogram(name, help_text, labelnames, buckets))  # type: ignore[return-value]

    def get(self, name: str) -> _Metric | None:
        return self.metrics.get(name)

    def render(self) -> str:
        """The text exposition of every family, in registration order.

        A ``collect`` callback that raises is logged and its family written without
        samples (still valid exposition): one broken figure never hides the others.
        """
        lines: list[str] = []
        for m in self.metrics.values():
            try:
                lines.extend(m.render())
            except Exception:
                log.exception("metrics.collect_failed", extra={"kv": {"metric": m.name}})
                lines.extend(m.header())
        return "\n".join(lines) + "\n"


def percentile(xs: list[float], q: float) -> float:
    """The ``q`` quantile (0–1) of ``xs`` by the nearest-rank rule on the sorted values (the
    element at ``int(q * n)``, capped at the last), rounded to 0.01; 0.0 for no values. The
    replays (:mod:`hermesd.replay`, :mod:`hermesd.replay_crosswoz`) report latency p50/p99 with it."""
    if not xs:
        return 0.0
    s = sorted(xs)
    return round(s[min(len(s) - 1, int(q * len(s)))], 2)
