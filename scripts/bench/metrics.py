#!/usr/bin/env python3
"""Metrics: the one registry vs the hand-written exposition it replaced, same run, same figures.

Two costs, each side by side with its baseline:

1. rendering the whole exposition (what ``hermesctl metrics``, an HTTP scrape and a textfile
   write pay): the registry's ``render()`` with every family the services register
   (``register_metrics`` of the real service classes, called on stand-ins holding the same
   counts a busy daemon keeps: 13 tools, 20 methods, 8 turn paths) vs the old text — the
   server's families through the old ``metrics.py`` (read from git at ``BASELINE_COMMIT``) plus the memory,
   NLU, tool, session and archive blocks written by hand with f-strings, copied from that commit.
   The new text carries more (HELP everywhere, latency histograms for tools, NLU and L2
   commits), so bytes are printed too.
2. one counter increment on the turn path: ``Counter.inc_key((path,))`` (what the session
   controller does now) and the checked ``Counter.inc(path)`` vs the old ``dict[path] = get + 1``.

Usage: .venv/bin/python scripts/bench/metrics.py [--n 2000]
Benchmarks are not tests: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import timeit
from pathlib import Path
from types import SimpleNamespace as NS

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hermesd.subsystems.archive import ArchiveService  # noqa: E402
from hermesd.memory.l3_schema import STATES  # noqa: E402
from hermesd.subsystems.memory import MemoryService  # noqa: E402
from hermesd.metrics import Counter, Gauge, Histogram, Registry  # noqa: E402
from hermesd.subsystems.nlu import NluSubsystem  # noqa: E402
from hermesd.server import ServerMetrics  # noqa: E402
from hermesd.subsystems.session import SessionService  # noqa: E402
from hermesd.subsystems.tools import ToolsService  # noqa: E402

TOOLS = ["contacts", "disk_usage", "export_report", "find_document", "journal_query", "network_check", "note",
         "order_status", "reminder", "send_document", "service_restart", "service_status", "system_status"]
METHODS = [f"m{i}.call" for i in range(20)]
PATHS = ["rule", "fallback", "form", "confirm", "error", "smalltalk", "choice", "repair"]


#: the last commit with hand-written exposition text (issue 18 part 2 replaced it)
BASELINE_COMMIT = "75ace6ff19ab8487450006d24c1110faefaa0b4c"


def _old_metrics_module():
    """``hermesd/metrics.py`` as it was at :data:`BASELINE_COMMIT` (the hand-written era), loaded
    under another name."""
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{BASELINE_COMMIT}:hermesd/metrics.py"], capture_output=True,
                         text=True, check=True).stdout
    spec = importlib.util.spec_from_loader("old_metrics", loader=None)
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    exec(compile(src, "old_metrics.py", "exec"), mod.__dict__)
    return mod


def _state():
    """Counts a busy daemon keeps, shared by both renderings."""
    tools = {}
    for i, name in enumerate(TOOLS):
        breaker = NS(state=("closed", "half_open", "open")[i % 3], transitions=i)
        tools[name] = NS(name=name, outcomes={"ok": 1000 + i, "TOOL_TIMEOUT": i, "INPUT_INVALID": 2},
                         breaker=breaker, health="healthy")
    registry = NS(tools=tools, broken={})
    pool = NS(strength=lambda: {"isolated": 4, "network": 1}, respawns=7)
    l1 = NS(hits=99_300, misses=700, evictions=12, bytes=4_000_000, hit_ratio=lambda: 0.993, __len__=None)
    l1_len = 20_000
    l2 = NS(commits=5000, batched_writes=9000, failed_commits=0, backlog=lambda: 3)
    core = NS(l1=l1, promotions=50, demotions=40, decay_last_run_s=1.7e9)
    summary = {s: {"files": 3, "bytes": 3_000_000} for s in STATES}
    summary["local_bytes"] = 9_000_000
    return NS(tools=tools, registry=registry, pool=pool, l1=l1, l1_len=l1_len, l2=l2, core=core, summary=summary,
              turns={p: 100 + i for i, p in enumerate(PATHS)}, sessions=250, nlu=(25_000, 3, 900, 12.5))


class _L1(NS):
    def __len__(self) -> int:
        return 20_000


def new_registry(st) -> Registry:
    """The daemon's registry: the real ``register_metrics`` of each service, on stand-ins."""
    reg = Registry()
    server = ServerMetrics(reg)
    server.connections.collect = lambda: 3
    for m in METHODS:
        server.requests.inc(m, "ok", amount=500)
        for v in (0.0002, 0.0004, 0.001):
            server.latency.observe(v, m)
    server.connections_total.inc("accepted", amount=40)
    reg.gauge("hermes_build_info", "Version.", ("version",), collect=lambda: {("0.1.0",): 1})
    reg.gauge("hermes_uptime_seconds", "Uptime.", collect=lambda: 1234.5)
    reg.gauge("hermes_process_resident_memory_bytes", "RSS.", collect=lambda: 31_000_000)
    reg.gauge("hermes_start_time_seconds", "Start.", collect=lambda: 1.7e9)
    l1 = _L1(**vars(st.l1))
    core = NS(**{**vars(st.core), "l1": l1})
    commit = Histogram("hermes_memory_l2_commit_duration_seconds", "Commit.")
    for _ in range(100):
        commit.observe(0.004)
    MemoryService.register_metrics(NS(core=core, l2=st.l2, l2_commit_seconds=commit,
                                      settings=NS(decay=NS(window_s=7200.0))), reg)
    parse_seconds = Histogram("hermes_nlu_parse_duration_seconds", "Parse.")
    parse_seconds.observe(0.0005)
    n, degraded, oos, _ = st.nlu
    NluSubsystem.register_metrics(NS(_n=n, _degraded=degraded, _oos=oos, parse_seconds=parse_seconds), reg)
    upload_backlog = Gauge("hermes_archive_upload_backlog", "Backlog.")
    upload_backlog_bytes = Gauge("hermes_archive_upload_backlog_bytes", "Backlog bytes.")
    uploads = Counter("hermes_archive_uploads_total", "Uploads.", ("outcome",))
    uploads.inc("ok", amount=30)
    ArchiveService.register_metrics(NS(
        _summary=st.summary, settings=NS(max_bytes=268435456), _archive=True, last_success_ms=1.7e12,
        upload_backlog=upload_backlog, upload_backlog_bytes=upload_backlog_bytes, uploads=uploads,
        uploaded_bytes=Counter("hermes_archive_uploaded_bytes_total", "B."),
        dropped=Counter("hermes_archive_dropped_total", "D.", ("state",)),
        quarantined=Counter("hermes_archive_quarantined_total", "Q.", ("reason",)),
        archived=Counter("hermes_archive_volumes_written_total", "W.")), reg)
    calls = Histogram("hermes_tool_invocation_duration_seconds", "Calls.", ("tool",))
    for t in TOOLS:
        calls.observe(0.01, t)
    ToolsService.register_metrics(NS(registry=st.registry, pool=st.pool, call_seconds=calls), reg)
    turns = Counter("hermes_turns_total", "Turns.", ("path",))
    for p, v in st.turns.items():
        turns.inc(p, amount=v)
    SessionService.register_metrics(NS(controller=NS(turns_by_path=turns, sessions=range(st.sessions))), reg)
    return reg


def old_renderer(st, old):
    """What ``main`` did per scrape: the old registry (built once) for the server/daemon families,
    then the memory, NLU, archive, tool and session blocks written by hand."""
    reg = old.Registry()
    conns = reg.add(old.Gauge("hermes_connections", "Open client connections.", fn=lambda: 3))
    del conns
    ct = reg.add(old.Counter("hermes_connections_total", "Connections.", ["outcome"]))
    req = reg.add(old.Counter("hermes_requests_total", "Requests.", ["method", "outcome"]))
    lat = reg.add(old.Histogram("hermes_request_duration_seconds", "Latency.", ["method"]))
    reg.add(old.Counter("hermes_frame_errors_total", "Frame errors.", ["code"]))
    for m in METHODS:
        req.inc(m, "ok", amount=500)
        for v in (0.0002, 0.0004, 0.001):
            lat.observe(v, m)
    ct.inc("accepted", amount=40)
    reg.add(old.Gauge("hermes_uptime_seconds", "Uptime.", fn=lambda: 1234.5))
    reg.add(old.Gauge("hermes_process_resident_memory_bytes", "RSS.", fn=lambda: 31_000_000))
    reg.add(old.Gauge("hermes_start_time_seconds", "Start.", fn=lambda: 1.7e9))

    def memory() -> str:
        l1, core, l2 = st.l1, st.core, st.l2
        lines = [
            "# TYPE hermes_mcp_l1_hit_ratio gauge", f"hermes_mcp_l1_hit_ratio {l1.hit_ratio():.6f}",
            "# TYPE hermes_mcp_l1_hits_total counter", f"hermes_mcp_l1_hits_total {l1.hits}",
            "# TYPE hermes_mcp_l1_misses_total counter", f"hermes_mcp_l1_misses_total {l1.misses}",
            "# TYPE hermes_mcp_l1_evictions_total counter", f"hermes_mcp_l1_evictions_total {l1.evictions}",
            "# TYPE hermes_mcp_l1_promotions_total counter", f"hermes_mcp_l1_promotions_total {core.promotions}",
            "# TYPE hermes_mcp_l1_demotions_total counter", f"hermes_mcp_l1_demotions_total {core.demotions}",
            "# TYPE hermes_mcp_l1_bytes gauge", f"hermes_mcp_l1_bytes {l1.bytes}",
            "# TYPE hermes_mcp_l1_entries gauge", f"hermes_mcp_l1_entries {st.l1_len}",
            "# TYPE hermes_mcp_l2_commits_total counter", f"hermes_mcp_l2_commits_total {l2.commits}",
            "# TYPE hermes_mcp_l2_writes_total counter", f"hermes_mcp_l2_writes_total {l2.batched_writes}",
            "# TYPE hermes_mcp_l2_queue gauge", f"hermes_mcp_l2_queue {l2.backlog()}",
            "# TYPE hermes_mcp_l2_failed_commits_total counter",
            f"hermes_mcp_l2_failed_commits_total {l2.failed_commits}",
            "# TYPE hermes_mcp_decay_last_run_timestamp_seconds gauge",
            f"hermes_mcp_decay_last_run_timestamp_seconds {core.decay_last_run_s:.3f}",
        ]
        return "\n".join(lines) + "\n"

    def nlu() -> str:
        n, degraded, oos, seconds = st.nlu
        return ("# TYPE hermes_nlu_parses_total counter\n" f"hermes_nlu_parses_total {n}\n"
                "# TYPE hermes_nlu_degraded_total counter\n" f"hermes_nlu_degraded_total {degraded}\n"
                "# TYPE hermes_nlu_out_of_scope_total counter\n" f"hermes_nlu_out_of_scope_total {oos}\n"
                "# TYPE hermes_nlu_parse_seconds_total counter\n" f"hermes_nlu_parse_seconds_total {seconds:.6f}\n")

    def archive() -> str:
        files = old.Gauge("hermes_archive_files", "Archive volumes by manifest state.", ("state",))
        size = old.Gauge("hermes_archive_bytes", "Archive volume bytes by manifest state.", ("state",))
        for state in STATES:
            files.set(st.summary[state]["files"], state)
            size.set(st.summary[state]["bytes"], state)
        local = old.Gauge("hermes_archive_local_bytes", "Bytes of volumes on local disk.")
        local.set(st.summary["local_bytes"])
        last = old.Gauge("hermes_archive_last_success_timestamp_seconds", "Wall time of the last 2xx upload.")
        last.set(1.7e9)
        uploads = old.Counter("hermes_archive_uploads_total", "Upload attempts by outcome.", ("outcome",))
        uploads.inc("ok", amount=30)
        lines: list[str] = []
        for m in (files, size, local, last, uploads):
            lines.extend(m.render())
        return "\n".join(lines) + "\n"

    def tools() -> str:
        state_num = {"closed": 0, "half_open": 1, "open": 2}
        tl = st.registry.tools.values()
        lines = ["# TYPE hermes_tool_calls_total counter"]
        for t in tl:
            for outcome, n in sorted(t.outcomes.items()):
                lines.append(f'hermes_tool_calls_total{{tool="{t.name}",outcome="{outcome}"}} {n}')
        lines.append("# TYPE hermes_tool_breaker_state gauge")
        lines += [f'hermes_tool_breaker_state{{tool="{t.name}"}} {state_num[t.breaker.state]}' for t in tl]
        lines.append("# TYPE hermes_tool_breaker_transitions_total counter")
        lines += [f'hermes_tool_breaker_transitions_total{{tool="{t.name}"}} {t.breaker.transitions}' for t in tl]
        lines.append("# TYPE hermes_tool_healthy gauge")
        lines += [f'hermes_tool_healthy{{tool="{t.name}"}} {int(t.health == "healthy")}' for t in tl]
        strength = st.pool.strength()
        lines.append("# TYPE hermes_tool_workers gauge")
        lines += [f'hermes_tool_workers{{class="{k}"}} {v}' for k, v in strength.items()]
        lines.append("# TYPE hermes_tool_worker_respawns_total counter")
        lines.append(f"hermes_tool_worker_respawns_total {st.pool.respawns}")
        return "\n".join(lines) + "\n"

    def session() -> str:
        lines = ["# HELP hermes_turns_total Turns by routing path (rule, fallback, form, confirm, error, ...).",
                 "# TYPE hermes_turns_total counter"]
        lines += [f'hermes_turns_total{{path="{k}"}} {v}' for k, v in sorted(st.turns.items())]
        lines += ["# HELP hermes_sessions Live sessions.", "# TYPE hermes_sessions gauge",
                  f"hermes_sessions {st.sessions}"]
        return "\n".join(lines) + "\n"

    return lambda: reg.render([memory(), nlu(), archive(), tools(), session()])


def _per_call_us(fn, n: int, repeat: int = 5) -> float:
    return min(timeit.repeat(fn, number=n, repeat=repeat)) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=2000, help="renders per timing round")
    args = ap.parse_args()
    st = _state()
    old = _old_metrics_module()
    reg = new_registry(st)
    old_render = old_renderer(st, old)
    new_text, old_text = reg.render(), old_render()
    n = args.n
    t_new = _per_call_us(reg.render, n)
    t_old = _per_call_us(old_render, n)
    print(f"render the whole exposition (best of 5 × {n}; same counts on both sides)")
    print(f"{'':28} {'µs/render':>10} {'bytes':>7} {'families':>9} {'no HELP':>8}")
    for label, t, text in (("registry (new)", t_new, new_text), ("hand-written (main)", t_old, old_text)):
        fams = text.count("# TYPE ")
        helps = text.count("# HELP ")
        print(f"{label:28} {t:10.1f} {len(text):7d} {fams:9d} {fams - helps:8d}")
    print(f"{'ratio new/old':28} {t_new / (t_old):10.2f} {len(new_text) / len(old_text):7.2f}")
    # per byte: the new text is larger (HELP on every family, three more histograms)
    print(f"{'ns per byte new / old':28} {t_new * 1000 / len(new_text):10.1f} / "
          f"{(t_old) * 1000 / len(old_text):.1f}")

    print()
    print("one counter increment on the turn path (best of 5 × 1e6)")
    counter = Counter("hermes_turns_total", "Turns.", ("path",))
    d: dict[str, int] = {}
    path = "rule"
    m = 1_000_000
    t_inc = _per_call_us(lambda: counter.inc(path), m) * 1000
    t_key = _per_call_us(lambda: counter.inc_key((path,)), m) * 1000
    t_dict = _per_call_us(lambda: d.__setitem__(path, d.get(path, 0) + 1), m) * 1000
    t_empty = _per_call_us(lambda: None, m) * 1000
    print(f"{'':34} {'ns/inc':>8} {'minus call overhead':>20}")
    for label, t in (("Counter.inc_key((path,)) (turn)", t_key), ("Counter.inc(path) (checked)", t_inc),
                     ("dict[path] = get + 1 (main)", t_dict)):
        print(f"{label:34} {t:8.1f} {t - t_empty:20.1f}")
    print(f"{'ratio inc_key / dict':34} {t_key / t_dict:8.2f} {(t_key - t_empty) / (t_dict - t_empty):20.2f}")
    print(f"{'ratio inc / dict':34} {t_inc / t_dict:8.2f} {(t_inc - t_empty) / (t_dict - t_empty):20.2f}")
    print(f"(lambda call overhead measured alone: {t_empty:.1f} ns)")


if __name__ == "__main__":
    main()
