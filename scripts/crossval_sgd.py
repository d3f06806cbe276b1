#!/usr/bin/env python3
"""5-fold cross-validation by dialogue of the SGD pack, beside the figure on all the shared data.

Usage (from the repository root, with the project's venv)::

    .venv/bin/python scripts/crossval_sgd.py [--data ../shared/data/sgd] [--folds 5] [--json FILE]
                                             [--no-all] [--only-fold K] [--min-support N]

For each fold k the pack is built by ``scripts/build_sgd_pack.py --dialogues`` from the other
folds' dialogues into a scratch folder (the values it mines come from those four fifths only, each
said in at least ``--min-support`` of their dialogues; never from the replayed fold), a real hermesd is started on that pack (the pack's own
``hermesd.yaml``), and fold k's dialogues are replayed through it with
:func:`hermesd.replay.run_replay` (its scoring rule, unchanged). The folds' counts are summed
(micro-averaged): call recall = matched / annotated, precision = matched / made, false
transactional calls, turns/s = user turns / replay wall time. "all" builds on every shared
dialogue and replays them all (the in-sample figure).

Folds: dialogues are grouped by service, ordered by ``sha1("cv:" + dialogue_id)`` and dealt
round-robin into the folds, so every fold holds about a fifth of each service (Payment_1 has
only 29 dialogues). The dataset README's own held-out bucket (``sha1(dialogue_id) % 5 == 0``)
is not in the shared data at all, hence a different hash here.

Cost on a busy 2-core machine: one daemon start per fold (the pack's intent model trains at
start, 15–25 s) and one replay of the ~4,000 user turns in all per pass — a few minutes.

Data: Schema-Guided Dialogue (Rastogi et al., AAAI 2020), CC BY-SA 4.0.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from hermesd import replay  # noqa: E402

BUILDER = ROOT / "scripts" / "build_sgd_pack.py"
COUNTS = ("dialogues", "user_turns", "calls_annotated", "calls_made", "calls_matched",
          "false_transactional_calls", "dialogues_all_calls_matched")


def folds(turns_file: Path, k: int) -> dict[str, int]:
    """``dialogue_id`` → fold (0..k-1), stratified by service (see the module docstring)."""
    by_service: dict[str, set[str]] = defaultdict(set)
    with turns_file.open() as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                by_service[r.get("service") or "?"].add(r["dialogue_id"])
    out: dict[str, int] = {}
    for _, ids in sorted(by_service.items()):
        for i, did in enumerate(sorted(ids, key=lambda d: hashlib.sha1(f"cv:{d}".encode()).hexdigest())):
            out[did] = i % k
    return out


def split(turns_file: Path, fold_of: dict[str, int], k: int, train: Path, test: Path) -> None:
    """Write fold ``k``'s dialogues to ``test`` and every other dialogue to ``train``."""
    with turns_file.open() as f, train.open("w") as tr, test.open("w") as te:
        for line in f:
            if line.strip():
                (te if fold_of[json.loads(line)["dialogue_id"]] == k else tr).write(line)


def build(data: Path, dialogues: Path, out: Path, min_support: int | None = None) -> None:
    """Run the pack builder on ``dialogues`` into ``out`` (values mined from ``dialogues`` only,
    with ``min_support`` distinct dialogues each; None: the builder's default)."""
    extra = [] if min_support is None else ["--min-support", str(min_support)]
    subprocess.run([sys.executable, str(BUILDER), "--data", str(data), "--dialogues", str(dialogues),
                    "--out", str(out), *extra], check=True, stdout=subprocess.DEVNULL)


class PackDaemon:
    """A hermesd child process on a built pack (its ``hermesd.yaml``), READY on a notify socket."""

    def __init__(self, pack: Path, root: Path) -> None:
        self.socket = root / "h.sock"
        own = pack / "hermesd.yaml"
        layer = yaml.safe_load((own if own.exists() else ROOT / "config" / "packs" / "sgd" / "hermesd.yaml").read_text())
        # the pack's config names its folders relative to the repository root; point them at this pack
        layer["nlu"]["intent_dirs"] = [str(pack / "intents")]
        layer.setdefault("session", {})["rules_dir"] = str(pack / "rules")
        layer.setdefault("tools", {})["tools_dir"] = str(pack / "tools")
        config = root / "hermesd.yaml"
        config.write_text(yaml.safe_dump(layer))
        notify_path = root / "notify"
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(str(notify_path))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMESD_", "NOTIFY_SOCKET"))}
        env.update(NOTIFY_SOCKET=str(notify_path), HERMESD_LOGGING__LEVEL="warning",
                   HERMESD_SESSION__MAX_SESSIONS_PER_USER="100000")
        self.log = open(root / "hermesd.log", "wb")
        t0 = time.perf_counter()
        self.proc = subprocess.Popen([sys.executable, "-m", "hermesd", "run", "--config", str(config),
                                      "--socket", str(self.socket), "--state-dir", str(root / "state")],
                                     env=env, cwd=root, stdout=self.log, stderr=subprocess.STDOUT)
        notify.settimeout(1.0)
        try:
            while True:
                if self.proc.poll() is not None:
                    raise SystemExit(f"hermesd exited {self.proc.returncode}; see {root / 'hermesd.log'}")
                try:
                    if b"READY=1" in notify.recv(4096):
                        break
                except (TimeoutError, socket.timeout):
                    if time.perf_counter() - t0 > 600:
                        raise SystemExit("hermesd not READY within 600 s") from None
        finally:
            notify.close()
        self.ready_s = time.perf_counter() - t0

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()


def evaluate(data: Path, train: Path, test: Path, scratch: Path, min_support: int | None = None) -> dict:
    """Build on ``train``, replay ``test``: the replay's overall row plus timing."""
    pack = scratch / "pack"
    t0 = time.perf_counter()
    build(data, train, pack, min_support)
    build_s = time.perf_counter() - t0
    d = PackDaemon(pack, scratch)
    results = replay.results_folder()
    try:
        t1 = time.perf_counter()
        res = replay.run_replay(d.socket, test, results_file=results / "results.jsonl", out=io.StringIO())
        wall = time.perf_counter() - t1
    finally:
        d.stop()
        shutil.rmtree(results, ignore_errors=True)
    row = {k: res["overall"][k] for k in COUNTS}
    row["dialogues_detail"] = res["dialogues"]
    row.update(replay_s=round(wall, 1), ready_s=round(d.ready_s, 1), build_s=round(build_s, 1),
               services={s: {k: v[k] for k in COUNTS} for s, v in res["services"].items()})
    return row


def summarise(rows: list[dict]) -> dict:
    """Summed counts of ``rows`` and the ratios (recall, precision, turns/s)."""
    tot = {k: sum(r[k] for r in rows) for k in COUNTS}
    wall = sum(r["replay_s"] for r in rows)
    tot["call_recall"] = round(tot["calls_matched"] / tot["calls_annotated"], 4) if tot["calls_annotated"] else None
    tot["call_precision"] = round(tot["calls_matched"] / tot["calls_made"], 4) if tot["calls_made"] else None
    tot["turns_per_s"] = round(tot["user_turns"] / wall, 1) if wall else None
    services: dict[str, dict] = defaultdict(lambda: dict.fromkeys(COUNTS, 0))
    for r in rows:
        for s, v in r["services"].items():
            for k in COUNTS:
                services[s][k] += v[k]
    tot["services"] = {s: {**v, "call_recall": round(v["calls_matched"] / v["calls_annotated"], 4)
                           if v["calls_annotated"] else None} for s, v in sorted(services.items())}
    return tot


def _line(name: str, t: dict) -> str:
    pct = lambda x: "-" if x is None else f"{x:.1%}"  # noqa: E731
    return (f"{name:<16}{t['dialogues']:>5}{t['user_turns']:>7}{t['calls_annotated']:>7}{t['calls_made']:>7}"
            f"{pct(t['call_recall']):>9}{pct(t['call_precision']):>10}{t['false_transactional_calls']:>9}"
            f"{t['turns_per_s'] or 0:>9.1f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "sgd")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--only-fold", type=int, help="run one fold only (for a quick look)")
    ap.add_argument("--no-all", action="store_true", help="skip the all-data (in-sample) run")
    ap.add_argument("--min-support", type=int, help="distinct build dialogues a mined value needs "
                                                     "(default: the builder's MIN_SUPPORT)")
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    ap.add_argument("--details", type=Path, help="write the held-out dialogues' calls (JSON Lines) here")
    a = ap.parse_args(argv)
    turns = a.data / "sgd_turns.jsonl"
    fold_of = folds(turns, a.folds)
    scratch = Path(tempfile.mkdtemp(prefix="hd-cv-", dir="/tmp"))
    os.chmod(scratch, 0o755)  # tool workers (another uid) read the pack's tools from here
    report: dict = {"folds": {}}
    try:
        for k in range(a.folds) if a.only_fold is None else [a.only_fold]:
            d = scratch / f"fold{k}"
            d.mkdir(mode=0o755)
            split(turns, fold_of, k, d / "train.jsonl", d / "test.jsonl")
            report["folds"][k] = evaluate(a.data, d / "train.jsonl", d / "test.jsonl", d, a.min_support)
            print(_line(f"fold {k}", summarise([report["folds"][k]])), flush=True)
        report["cv"] = summarise(list(report["folds"].values()))
        if not a.no_all:
            d = scratch / "all"
            d.mkdir(mode=0o755)
            report["all"] = summarise([evaluate(a.data, turns, turns, d, a.min_support)])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"{'':<16}{'dlg':>5}{'turns':>7}{'calls':>7}{'made':>7}{'recall':>9}{'precision':>10}{'false-tx':>9}"
          f"{'turns/s':>9}")
    print(_line(f"{len(report['folds'])}-fold CV", report["cv"]))
    if "all" in report:
        print(_line("all (in-sample)", report["all"]))
    print("CV recall by service: " + ", ".join(f"{s} {v['call_recall']:.1%}" for s, v in report["cv"]["services"].items()
                                               if v["call_recall"] is not None))
    if a.details:
        a.details.write_text("".join(json.dumps(d) + "\n" for r in report["folds"].values()
                                     for d in r["dialogues_detail"]))
    for r in report["folds"].values():
        r.pop("dialogues_detail", None)
    if a.json:
        a.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
