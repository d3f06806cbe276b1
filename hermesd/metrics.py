"""Prometheus text exposition (format 0.0.4), without a client library.

prometheus_client would add ~4 MB of RSS and ~25 ms of import to a daemon
whose idle budget is 40 MB (measured on this machine), for three metric kinds
we need; this module is the small subset: counters, gauges and histograms with
labels, rendered per https://prometheus.io/docs/instrumenting/exposition_formats/.
Every name carries the ``hermes_`` prefix and its unit (``_seconds``, ``_bytes``).
"""

from __future__ import annotations

import bisect
import math
from typing import Callable, Iterable

__all__ = ["Counter", "Gauge", "Histogram", "Registry", "LATENCY_BUCKETS_S"]

#: request latency buckets in seconds: 50 µs … 5 s.
LATENCY_BUCKETS_S = (0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


def _esc(v: str) -> str:
    return v.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(names: tuple[str, ...], values: tuple[str, ...], extra: str = "") -> str:
    items = [f'{n}="{_esc(v)}"' for n, v in zip(names, values)]
    if extra:
        items.append(extra)
    return "{" + ",".join(items) + "}" if items else ""


def _num(v: float) -> str:
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    if float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(float(v))


class _Metric:
    kind = ""

    def __init__(self, name: str, help_text: str, labelnames: Iterable[str] = ()) -> None:
        self.name = name
        self.help = help_text
        self.labelnames = tuple(labelnames)

    def _key(self, labels: tuple[str, ...]) -> tuple[str, ...]:
        if len(labels) != len(self.labelnames):
            raise ValueError(f"{self.name} takes labels {self.labelnames}, got {labels}")
        return labels if all(type(x) is str for x in labels) else tuple(str(x) for x in labels)

    def header(self) -> list[str]:
        return [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} {self.kind}"]

    def render(self) -> list[str]:
        raise NotImplementedError


class Counter(_Metric):
    """Monotonic count; ``inc(*labels, amount=1)``."""

    kind = "counter"

    def __init__(self, name: str, help_text: str, labelnames: Iterable[str] = ()) -> None:
        super().__init__(name, help_text, labelnames)
        self.values: dict[tuple[str, ...], float] = {}

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        key = self._key(labels)
        self.values[key] = self.values.get(key, 0.0) + amount

    def inc_key(self, key: tuple[str, ...], amount: float = 1.0) -> None:
        """Hot-path :meth:`inc` with a label tuple the caller built (and checked) once."""
        self.values[key] = self.values.get(key, 0.0) + amount

    def get(self, *labels: str) -> float:
        return self.values.get(self._key(labels), 0.0)

    def render(self) -> list[str]:
        return self.header() + [f"{self.name}{_labels(self.labelnames, k)} {_num(v)}" for k, v in sorted(self.values.items())]


class Gauge(_Metric):
    """A value that goes up and down; set directly or read from ``fn`` at render time."""

    kind = "gauge"

    def __init__(self, name: str, help_text: str, labelnames: Iterable[str] = (), fn: Callable[[], float] | None = None) -> None:
        super().__init__(name, help_text, labelnames)
        self.values: dict[tuple[str, ...], float] = {}
        self.fn = fn

    def set(self, value: float, *labels: str) -> None:
        self.values[self._key(labels)] = float(value)

    def render(self) -> list[str]:
        if self.fn is not None:
            return self.header() + [f"{self.name} {_num(self.fn())}"]
        return self.header() + [f"{self.name}{_labels(self.labelnames, k)} {_num(v)}" for k, v in sorted(self.values.items())]


class Histogram(_Metric):
    """Cumulative buckets, ``_sum`` and ``_count``; ``observe(value, *labels)``.

    :param buckets: upper bounds, ascending, in the metric's unit (seconds for latency).
    """

    kind = "histogram"

    def __init__(self, name: str, help_text: str, labelnames: Iterable[str] = (), buckets: tuple[float, ...] = LATENCY_BUCKETS_S) -> None:
        super().__init__(name, help_text, labelnames)
        self.buckets = tuple(sorted(buckets))
        self.series: dict[tuple[str, ...], list[float]] = {}  # per-bucket counts + [sum, count]

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

    def render(self) -> list[str]:
        out = self.header()
        for key, row in sorted(self.series.items()):
            acc = 0.0
            for bound, n in zip(self.buckets, row):
                acc += n
                le = 'le="' + _num(bound) + '"'
                out.append(f"{self.name}_bucket{_labels(self.labelnames, key, le)} {_num(acc)}")
            inf = _labels(self.labelnames, key, 'le="+Inf"')
            out.append(f"{self.name}_bucket{inf} {_num(row[-1])}")
            out.append(f"{self.name}_sum{_labels(self.labelnames, key)} {_num(row[-2])}")
            out.append(f"{self.name}_count{_labels(self.labelnames, key)} {_num(row[-1])}")
        return out


class Registry:
    """Named metrics rendered together; subsystems append their own text blocks."""

    def __init__(self) -> None:
        self.metrics: dict[str, _Metric] = {}

    def add(self, metric: _Metric) -> _Metric:
        if metric.name in self.metrics:
            raise ValueError(f"metric {metric.name} registered twice")
        self.metrics[metric.name] = metric
        return metric

    def render(self, extra: Iterable[str] = ()) -> str:
        lines: list[str] = []
        for m in self.metrics.values():
            lines.extend(m.render())
        text = "\n".join(lines) + "\n"
        for block in extra:
            if block:
                text += block if block.endswith("\n") else block + "\n"
        return text
