#!/usr/bin/env python3
"""5-fold cross-validation of the CrossWOZ pack by dialogue, beside the figure on all shared data.

Usage (from the repository root; needs ``../shared/data/crosswoz``)::

    .venv/bin/python scripts/crossval_crosswoz.py [--folds 5] [--limit N] [--json FILE]

For each fold K: the pack is built by ``scripts/build_crosswoz_pack.py --holdout-fold K`` from
the other dialogues (fold = ``int(sha1(dialogue_id), 16) % folds``) into a scratch folder, a
real hermesd is started on that pack's ``hermesd.yaml``, the held-out dialogues are replayed
through it (:func:`hermesd.replay_crosswoz.run_crosswoz`, the scoring rule is in its
docstring) and the daemon is stopped. Then the same with the pack built on every dialogue,
replaying every dialogue (the in-sample figure). The table gives per domain call recall /
precision and request recall, held-out (pooled over the folds) beside in-sample.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from build_crosswoz_pack import fold_of, load_dialogues  # noqa: E402
from hermesd.client import Client  # noqa: E402
from hermesd.replay_crosswoz import DOMAINS, run_crosswoz  # noqa: E402

READY_TIMEOUT_S = 300


def _start(pack: Path, root: Path) -> tuple[subprocess.Popen, Path, float]:
    sock = root / "h.sock"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMESD_", "NOTIFY_SOCKET"))}
    log = open(root / "hermesd.log", "wb")
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "hermesd", "run", "--config", str(pack / "hermesd.yaml"),
                             "--socket", str(sock), "--state-dir", str(root / "state")],
                            stdout=log, stderr=subprocess.STDOUT, env=env, cwd=root)
    while time.perf_counter() - t0 < READY_TIMEOUT_S:
        if proc.poll() is not None:
            raise SystemExit(f"hermesd exited {proc.returncode}: see {root / 'hermesd.log'}")
        if sock.exists():
            try:
                with Client(sock) as c:
                    c.call("admin.status")
                return proc, sock, time.perf_counter() - t0
            except Exception:
                pass
        time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"hermesd not ready within {READY_TIMEOUT_S}s: see {root / 'hermesd.log'}")


def _stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _run(data: Path, root: Path, holdout: int | None, folds: int, limit: int | None) -> dict:
    name = "all" if holdout is None else f"fold{holdout}"
    work = root / name
    work.mkdir(mode=0o755)
    work.chmod(0o755)  # tool workers (another uid) read the pack's tools folder
    pack = work / "pack"
    cmd = [sys.executable, str(REPO / "scripts" / "build_crosswoz_pack.py"), "--data", str(data), "--out", str(pack)]
    if holdout is not None:
        cmd += ["--holdout-fold", str(holdout), "--folds", str(folds)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    for p in [pack, *pack.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    turns_file = work / "replay.jsonl"
    with (data / "crosswoz_turns.jsonl").open(encoding="utf-8") as f, turns_file.open("w", encoding="utf-8") as w:
        for line in f:
            if line.strip() and (holdout is None or fold_of(str(json.loads(line)["dialogue_id"]), folds) == holdout):
                w.write(line)
    proc, sock, ready_s = _start(pack, work)
    try:
        res = run_crosswoz(sock, turns_file, limit=limit, out=open(os.devnull, "w"))
    finally:
        _stop(proc)
    res.pop("per_dialogue", None)
    res["ready_s"] = round(ready_s, 2)
    res["name"] = name
    return res


def _pool(rows: list[dict]) -> dict:
    """Held-out figures pooled over the folds (counts summed, then divided)."""
    tot: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in rows:
        for dom, row in [*r["domains"].items(), ("overall", r["overall"])]:
            for k in ("calls_counted", "calls_made", "calls_matched", "requests_counted", "requests_answered"):
                tot[dom][k] += row[k]

    def ratio(a: int, b: int) -> float | None:
        return round(a / b, 4) if b else None
    return {dom: {**c, "call_recall": ratio(c["calls_matched"], c["calls_counted"]),
                  "call_precision": ratio(c["calls_matched"], c["calls_made"]),
                  "request_recall": ratio(c["requests_answered"], c["requests_counted"])} for dom, c in tot.items()}


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "crosswoz")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--limit", type=int, help="replay only the first N dialogues of each side (a quick look)")
    ap.add_argument("--json", type=Path, help="also write every figure to this file")
    a = ap.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="hermesd-cw-cv-"))
    root.chmod(0o755)
    try:
        folds = []
        for k in range(a.folds):
            r = _run(a.data, root, k, a.folds, a.limit)
            folds.append(r)
            o = r["overall"]
            print(f"fold {k}: {r['dialogues']} dialogues, call recall {_pct(o['call_recall'])}, precision "
                  f"{_pct(o['call_precision'])}, request recall {_pct(o['request_recall'])}, "
                  f"{r['turns_per_s']} turns/s, READY {r['ready_s']} s", flush=True)
        full = _run(a.data, root, None, a.folds, a.limit)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    pooled = _pool(folds)
    print()
    print(f"{'domain':<10}{'held-out recall':>16}{'precision':>11}{'requests':>10}   |{'all-data recall':>16}"
          f"{'precision':>11}{'requests':>10}")
    for dom in (*DOMAINS, "overall"):
        h = pooled.get(dom) or {}
        f = full["domains"].get(dom) if dom != "overall" else full["overall"]
        f = f or {}
        print(f"{dom:<10}{_pct(h.get('call_recall')):>16}{_pct(h.get('call_precision')):>11}"
              f"{_pct(h.get('request_recall')):>10}   |{_pct(f.get('call_recall')):>16}"
              f"{_pct(f.get('call_precision')):>11}{_pct(f.get('request_recall')):>10}")
    print(f"held-out: {sum(r['dialogues'] for r in folds)} dialogues in {a.folds} folds, turns/s "
          f"{[r['turns_per_s'] for r in folds]}; all data: {full['dialogues']} dialogues, {full['turns_per_s']} turns/s, "
          f"p50 {full['latency_ms']['p50']} ms, p99 {full['latency_ms']['p99']} ms")
    if a.json:
        a.json.write_text(json.dumps({"folds": folds, "pooled": pooled, "all": full}, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
