#!/usr/bin/env python3
"""L3 archive benchmark: zstd volumes vs gzip of the same records, and upload throughput vs curl, same run.

Sections (each prints hermesd next to its baseline and the ratio):

1. Compression of per-session volumes built from recorded conversation turns
   (CrossWOZ, MultiWOZ-zh, SGD from ../shared/data, one volume per dialogue):
   zstd levels 1, 3, 9, 19 without a dictionary, and levels 3 and 19 with a
   16 KiB dictionary trained on a disjoint half of the dialogues, against
   ``gzip.compress`` level 6 (the usual default) of the same NDJSON bytes.
   Size ratio = gzip bytes / zstd bytes (higher is better for zstd); speed in MB/s
   of raw input, compress and verify (decompress + line count) separately.
2. Upload throughput to a local HTTP server (a separate process that reads
   each body and answers 201): ``upstream.put`` (one connection per file, what
   the uploader does), the whole ``ArchiveService`` pass (verify + PUT + manifest
   commits), vs ``curl -T`` once per file and one ``curl`` run for all files
   (connection reuse). Per-session files and one large volume.

Usage: .venv/bin/python scripts/bench/archive.py [--quick] [--write-dictionary PATH]
Benchmarks are not tests: nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import hashlib
import itertools
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import zstandard

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hermesd.memory import l3, upstream
from hermesd.subsystems.archive import ArchiveService
from hermesd.memory.archive_settings import ArchiveSettings, UpstreamSettings
from hermesd.memory.l2 import L2Store

DATA = ROOT / ".." / "shared" / "data"
SOURCES = ("crosswoz/crosswoz_turns.jsonl", "multiwoz_zh/multiwoz_zh_turns.jsonl", "sgd/sgd_turns.jsonl")
NOW_MS = 1_764_400_000_000

SINK = r"""
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_PUT(self):
        n = int(self.headers.get("Content-Length", "0"))
        while n:
            n -= len(self.rfile.read(min(n, 1 << 16)))
        self.send_response(201); self.send_header("Content-Length", "0"); self.end_headers()
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
"""


def load_sessions(limit: int) -> list[tuple[str, list[dict[str, Any]]]]:
    """Dialogues as (session id, turn records), datasets interleaved so halves mix languages."""
    per_src: list[list[tuple[str, list[dict[str, Any]]]]] = []
    for rel in SOURCES:
        path = DATA / rel
        if not path.exists():
            continue
        dialogues: dict[str, list[dict[str, Any]]] = defaultdict(list)
        with path.open("rb") as f:
            for line in f:
                rec = orjson.loads(line)
                dialogues[str(rec["dialogue_id"])].append(rec)
        prefix = rel.split("/")[0]
        per_src.append([(f"{prefix}-{k}".replace("/", "_"), v) for k, v in dialogues.items()])
    out = [s for group in itertools.zip_longest(*per_src) for s in group if s is not None]
    return out[:limit]


def timed(fn: Callable[[], Any], min_s: float = 1.0) -> float:
    """Seconds per call of ``fn`` (repeated until ``min_s`` elapsed)."""
    n, t0 = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        el = time.perf_counter() - t0
        if el >= min_s:
            return el / n


def audit_for(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Derived audit lines: one capture per turn that carries slots (what MCP would log)."""
    return [{"op": "capture", "turn": t.get("turn"), "slots": sorted(t.get("slots") or {})} for t in turns if t.get("slots")]


def compression(sessions: list[tuple[str, list[dict[str, Any]]]], quick: bool, dict_out: Path | None) -> None:
    half = len(sessions) // 2
    train, test = sessions[:half], sessions[half:]
    plain1 = l3.Codec(1)
    raws = [zstandard.ZstdDecompressor().decompress(l3.encode_volume(plain1, sid, t, audit_for(t), NOW_MS).data)
            for sid, t in test]
    train_raw = [zstandard.ZstdDecompressor().decompress(l3.encode_volume(plain1, sid, t, audit_for(t), NOW_MS).data)
                 for sid, t in train]
    t0 = time.perf_counter()
    dictionary = l3.train_dictionary(train_raw, 16 * 1024)
    train_s = time.perf_counter() - t0
    if dict_out is not None:
        dict_out.write_bytes(dictionary)
        print(f"dictionary written to {dict_out} (id {l3.Codec(3, dictionary).dict_id})")
    raw_total = sum(map(len, raws))
    mb = raw_total / 1e6
    print(f"\n== 1. per-session volumes: {len(test)} dialogues ({raw_total / 1e6:.2f} MB NDJSON, "
          f"median {sorted(map(len, raws))[len(raws) // 2]} B); dictionary 16 KiB trained on {len(train)} others "
          f"in {train_s:.2f} s")
    gz_sizes = sum(len(gzip.compress(r, 6)) for r in raws)
    gz_c = timed(lambda: [gzip.compress(r, 6) for r in raws])
    gz_blobs = [gzip.compress(r, 6) for r in raws]
    gz_d = timed(lambda: [(hashlib.sha256(b).digest(), gzip.decompress(b).count(b"\n")) for b in gz_blobs])
    print(f"{'codec':<22}{'bytes':>10}{'ratio':>7}{'vs gzip':>9}{'comp MB/s':>11}{'vs gzip':>9}"
          f"{'verify MB/s':>13}{'vs gzip':>9}")
    print(f"{'gzip -6 (baseline)':<22}{gz_sizes:>10}{raw_total / gz_sizes:>7.2f}{1.0:>9.2f}{mb / gz_c:>11.1f}"
          f"{1.0:>9.2f}{mb / gz_d:>13.1f}{1.0:>9.2f}")
    levels = [(1, None), (3, None), (9, None), (19, None), (3, dictionary), (19, dictionary)]
    if quick:
        levels = [(1, None), (3, None), (3, dictionary)]
    for level, d in levels:
        codec = l3.Codec(level, d)
        blobs = [codec.compress(r) for r in raws]
        size = sum(map(len, blobs))
        c_s = timed(lambda codec=codec: [codec.compress(r) for r in raws])
        shas = [hashlib.sha256(b).hexdigest() for b in blobs]
        lines = [r.count(b"\n") - 1 for r in raws]
        v_s = timed(lambda codec=codec, blobs=blobs, lines=lines, shas=shas:
                    [l3.verify(codec, b, records=n, sha256=s) for b, n, s in zip(blobs, lines, shas, strict=True)])
        name = f"zstd -{level}" + (" +dict" if d else "")
        print(f"{name:<22}{size:>10}{raw_total / size:>7.2f}{gz_sizes / size:>9.2f}{mb / c_s:>11.1f}"
              f"{gz_c / c_s:>9.2f}{mb / v_s:>13.1f}{gz_d / v_s:>9.2f}")
    print("(verify = sha256 + decompress + line count for both; zstd also checks its frame checksum, "
          "end of frame and the header)")


def start_sink() -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen([sys.executable, "-c", SINK], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, int(proc.stdout.readline())


def curl_each(files: list[Path], base: str) -> float:
    t0 = time.perf_counter()
    for f in files:
        subprocess.run(["curl", "-sS", "-o", "/dev/null", "-T", str(f), f"{base}/curl/{f.name}"], check=True)
    return time.perf_counter() - t0


def curl_all(files: list[Path], base: str) -> float:
    args = ["curl", "-sS"]
    for f in files:
        args += ["-T", str(f), f"{base}/curlall/{f.name}", "-o", "/dev/null"]
    t0 = time.perf_counter()
    subprocess.run(args, check=True)
    return time.perf_counter() - t0


async def service_pass(state: Path, sessions: list[tuple[str, list[dict[str, Any]]]], url: str) -> tuple[float, int, int]:
    l2 = L2Store(state / "l2.sqlite3")
    l2.open()
    svc = ArchiveService(ArchiveSettings(max_bytes=1 << 34), UpstreamSettings(url=url, device_id="bench"), l2=l2)
    try:
        await svc.open(state / "archive", run_loop=False)
        for sid, t in sessions:
            await svc.archive_session(sid, t, audit_for(t))
        nbytes = svc.status()["pending_bytes"]
        t0 = time.perf_counter()
        out = await svc.run_pass(force=True)
        return time.perf_counter() - t0, out.get("ok", 0), nbytes
    finally:
        await svc.stop()
        l2.close()


def upload(sessions: list[tuple[str, list[dict[str, Any]]]], quick: bool) -> None:
    n = 100 if quick else 300
    sessions = sessions[:n]
    tmp = Path(tempfile.mkdtemp(prefix="hd-bench-archive-"))
    sink, port = start_sink()
    base = f"http://127.0.0.1:{port}"
    try:
        codec = l3.Codec(3)
        files = []
        for sid, t in sessions:
            vol = l3.encode_volume(codec, sid, t, audit_for(t), NOW_MS)
            files.append(l3.write_atomic(tmp, f"vols/{sid}.zst", vol.data))
        big_vol = l3.encode_volume(codec, "big", [r for _, t in sessions for r in t] * (2 if quick else 8), [], NOW_MS)
        big = l3.write_atomic(tmp, "big/big.zst", big_vol.data)
        total = sum(f.stat().st_size for f in files)
        print(f"\n== 2. upload to a local HTTP server: {len(files)} per-session files ({total / 1e3:.0f} kB, "
              f"median {sorted(f.stat().st_size for f in files)[len(files) // 2]} B) and one {big.stat().st_size / 1e6:.1f} MB volume")

        def put_all(fs: list[Path], keep_alive: bool) -> float:
            client = upstream.Client(10)
            t0 = time.perf_counter()
            for f in fs:
                data = f.read_bytes()
                t = upstream.target(base, "bench", f"put/{f.name}")
                sha = hashlib.sha256(data).hexdigest()
                r = client.put(t, data, sha, token=None) if keep_alive else upstream.put(t, data, sha, token=None,
                                                                                          timeout_s=10)
                assert r.outcome == "ok", r
            client.close()
            return time.perf_counter() - t0

        cols = ("put, new conn", "put, kept alive", "service pass", "curl -T each", "curl -T all")
        rows = []
        t_new, t_ka, t_each, t_all = put_all(files, False), put_all(files, True), curl_each(files, base), curl_all(files, base)
        svc_s, ok, _ = asyncio.run(service_pass(tmp / "svc", sessions, base))
        assert ok == len(sessions)
        rows.append(("per-session files", len(files), total, [t_new, t_ka, svc_s, t_each, t_all]))
        big_times = [min(put_all([big], False) for _ in range(3)), None, None,
                     min(curl_each([big], base) for _ in range(3)), None]
        rows.append(("one large volume", 1, big.stat().st_size, big_times))
        print(f"{'':<19}" + "".join(f"{c:>20}" for c in cols))
        for name, nf, nb, times in rows:
            cells = [f"{nf / t:.0f} f/s {nb / t / 1e6:.2f} MB/s" if t else "-" for t in times]
            print(f"{name:<19}" + "".join(f"{c:>20}" for c in cells))
        print(f"ratios, per-session files: service pass vs curl -T each {t_each / svc_s:.2f}x, "
              f"vs curl -T all {t_all / svc_s:.2f}x; put kept alive vs curl -T all {t_all / t_ka:.2f}x; "
              f"one large volume put vs curl {big_times[3] / big_times[0]:.2f}x (>1 = hermesd faster)")
        print("('service pass' = verify each file + PUT on one kept-alive connection + manifest commits)")
        # throttled: the cap is honoured
        data = big.read_bytes()
        cap = 2_000_000
        t0 = time.perf_counter()
        upstream.put(upstream.target(base, "bench", "throttled"), data, hashlib.sha256(data).hexdigest(),
                     token=None, timeout_s=10, max_bytes_per_s=cap)
        el = time.perf_counter() - t0
        print(f"max_bytes_per_s={cap}: {len(data) / el / 1e6:.2f} MB/s achieved ({len(data) / 1e6:.1f} MB in {el:.2f} s)")
    finally:
        sink.kill()
        sink.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer dialogues and codecs")
    ap.add_argument("--write-dictionary", type=Path, metavar="PATH",
                    help="also save the trained dictionary (for archive.dictionary)")
    args = ap.parse_args()
    sessions = load_sessions(400 if args.quick else 100_000)
    if not sessions:
        print(f"no recorded turns under {DATA.resolve()}: skipping (see shared/data/README.md)")
        return
    print(f"zstandard {zstandard.__version__} (libzstd {zstandard.backend}), python {sys.version.split()[0]}")
    compression(sessions, args.quick, args.write_dictionary)
    if shutil.which("curl") is None:
        print("\ncurl not found: upload baseline skipped")
        return
    upload(sessions, args.quick)


if __name__ == "__main__":
    main()
