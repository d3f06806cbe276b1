#!/usr/bin/env python3
"""hermesd's own cost per LLM turn, beside the model's time, against a scripted model server.

A real daemon (shipped NLU packs, the test tools of ``tests/llm/fixtures``) is pointed at the
scripted server of ``tests/llm/llm_server.py`` on 127.0.0.1, whose every answer takes a fixed
``--model-ms`` (200 ms by default: a small local model's short answer). Two kinds of turn, each
``--n`` times, on the OpenAI-compatible and the Ollama API:

- ``plain``: one round, the model answers in text;
- ``tool``: the model calls a tool (it runs in the sandbox pool), then answers — two rounds.

Per turn, the client's wall time minus the model time hermesd measured around its HTTP calls is
hermesd's added overhead: NLU, routing, the prompt (L2 reads, trimming), the tool-call gate,
the sandbox, the commit — and the HTTP exchange on loopback. ``llm path`` is the part spent
inside the LLM executor outside the model (prompt, validation, sandbox), ``prompt`` the
Memory Control Protocol's part of it (L2 reads and building). A rule-routed turn of the same
daemon (no model) is the baseline row. p50/p99 in ms, and the overhead as a share of the
model time measured in the same run::

    .venv/bin/python scripts/bench/llm.py [--n 100] [--model-ms 200]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "llm"))

from hermesd.client import Client  # noqa: E402
from llm_server import ModelServer, Say  # noqa: E402

FIXTURES = ROOT / "tests" / "llm" / "fixtures"


def _start(root: Path, server: ModelServer, api: str) -> subprocess.Popen[bytes]:
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(root / "notify"))
    notify.settimeout(120)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMESD_")}
    env.update(NOTIFY_SOCKET=str(root / "notify"), HERMESD_LOGGING__LEVEL="warning",
               HERMESD_SESSION__MAX_SESSIONS_PER_USER="100000",
               HERMESD_TOOLS__TOOLS_DIR=str(FIXTURES / "tools"), HERMESD_SESSION__RULES_DIR=str(FIXTURES / "rules"),
               HERMESD_LLM__ENABLED="true", HERMESD_LLM__API=api, HERMESD_LLM__ENDPOINT=server.url,
               HERMESD_LLM__MODEL="bench", HERMESD_LLM__RATE_PER_MINUTE="6000")
    proc = subprocess.Popen([sys.executable, "-m", "hermesd", "run", "--socket", str(root / "h.sock"),
                             "--state-dir", str(root / "state")], env=env, cwd=root, stderr=open(root / "hermesd.log", "wb"))
    try:
        while b"READY=1" not in notify.recv(4096):
            pass
    except TimeoutError:
        proc.kill()
        proc.wait()
        raise SystemExit(f"hermesd did not start: {(root / 'hermesd.log').read_text()[-2000:]}") from None
    finally:
        notify.close()
    return proc


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def _run(c: Client, server: ModelServer, kind: str, n: int, model_s: float) -> dict[str, list[float]]:
    sid = c.call("session.open", {"locale": "en-US"})["session_id"]
    out: dict[str, list[float]] = {"turn": [], "model": [], "overhead": [], "path": [], "prompt": []}
    for i in range(n + 5):
        if kind == "rule":  # the baseline: a turn a rule answers, no model, same daemon, same run
            t0 = time.perf_counter()
            r = c.call("session.turn", {"session_id": sid, "text": "how much disk space is left"})
            assert r["path"] == "rule", r
            if i >= 5:
                out["turn"].append((time.perf_counter() - t0) * 1000)
            continue
        if kind == "plain":
            server.script(Say(text="Penguins cannot fly.", delay_s=model_s))
            text = "tell me a joke about penguins"
        else:
            server.script(Say(calls=[("lookup_order", {"order_id": f"SO{1000 + i % 9000:04d}"})], delay_s=model_s),
                          Say(text="It has shipped.", delay_s=model_s))
            text = f"tell me a joke about my order SO{1000 + i % 9000:04d}"
        t0 = time.perf_counter()
        r = c.call("session.turn", {"session_id": sid, "text": text})
        turn_ms = (time.perf_counter() - t0) * 1000
        assert r.get("generated") is True, r
        if i < 5:
            continue  # warm-up: first NLU and L2 reads, the sandbox worker's first call
        model_ms = r["llm"]["model_ms"]
        out["turn"].append(turn_ms)
        out["model"].append(model_ms)
        out["overhead"].append(turn_ms - model_ms)
        out["path"].append(r["llm"]["ms"] - model_ms)
        out["prompt"].append(r["llm"]["prompt_ms"])
    c.call("session.close", {"session_id": sid})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100, help="turns per kind and API")
    ap.add_argument("--model-ms", type=float, default=200.0, help="the scripted model's fixed latency")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="hdbl-", dir="/tmp"))
    os.chmod(root, 0o755)
    print(f"## LLM executor: hermesd's overhead per LLM turn beside a {args.model_ms:.0f} ms model\n")
    print("| api | turn | rounds | model ms p50 | turn ms p50 | overhead ms p50 | overhead ms p99 | "
          "llm path ms p50 | llm path ms p99 | prompt ms p50 | overhead / model |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    try:
        for api in ("openai", "ollama"):
            server = ModelServer()
            d_root = root / api
            d_root.mkdir()
            os.chmod(d_root, 0o755)
            proc = _start(d_root, server, api)
            try:
                with Client(d_root / "h.sock", timeout_s=60) as c:
                    base = _run(c, server, "rule", args.n, 0.0)["turn"]
                    print(f"| {api} | rule (baseline, no model) | 0 | – | {statistics.median(base):.1f} | "
                          f"{statistics.median(base):.2f} | {_pct(base, 0.99):.2f} | – | – | – | – |")
                    for kind in ("plain", "tool"):
                        m = _run(c, server, kind, args.n, args.model_ms / 1000)
                        model50 = statistics.median(m["model"])
                        over50 = statistics.median(m["overhead"])
                        print(f"| {api} | {kind} | {1 if kind == 'plain' else 2} | {model50:.1f} | "
                              f"{statistics.median(m['turn']):.1f} | {over50:.2f} | {_pct(m['overhead'], 0.99):.2f} | "
                              f"{statistics.median(m['path']):.2f} | {_pct(m['path'], 0.99):.2f} | "
                              f"{statistics.median(m['prompt']):.2f} | {over50 / model50 * 100:.1f} % |")
            finally:
                proc.terminate()
                proc.wait(15)
                server.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"\n{args.n} turns per row after 5 warm-up turns; the model time is what hermesd measured around its "
          "HTTP calls (the scripted delay plus loopback HTTP). Overhead = client wall time − model time.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
