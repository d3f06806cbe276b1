"""A real uploader process for the kill -9 tests.

``python uploader_child.py STATE_DIR URL N MODE [TOKEN_FILE [PREFIX]]``: open the L2 file
and archive folder under STATE_DIR, archive N sessions (``<PREFIX>0`` …, default ``c``; prints
``ARCHIVED``), then MODE ``loop`` runs the background upload loop until killed,
and ``until-idle`` runs passes until nothing is pending (prints ``IDLE``, exit 0;
exit 3 after 20 s), and ``kill-after-put`` runs passes but SIGKILLs itself right
after the first PUT the store acknowledged, before it is marked (the crash window
of exactly-once delivery). Log records go to stderr unredacted (message + fields), so
the parent can wait for ``archive.uploaded`` and look for the token.

``$UPLOADER_UPSTREAM`` (JSON) adds ``upstream:`` fields, e.g. ``{"kind": "s3", ...}``
with URL ``-``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from archive_helpers import audit, turns

from hermesd.memory import s3
from hermesd.subsystems.archive import ArchiveService
from hermesd.memory.archive_settings import ArchiveSettings, UpstreamSettings
from hermesd.memory.l2 import L2Store


class Raw(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        sys.stderr.write(f"{record.levelname} {record.getMessage()} {getattr(record, 'kv', {})!r}\n")
        sys.stderr.flush()


async def main(state: Path, url: str, n: int, mode: str, token_file: str, prefix: str) -> int:
    logger = logging.getLogger("hermesd")
    logger.addHandler(Raw())
    logger.setLevel(logging.DEBUG)
    l2 = L2Store(state / "l2.sqlite3")
    l2.open()
    extra = json.loads(os.environ.get("UPLOADER_UPSTREAM", "{}"))
    svc = ArchiveService(ArchiveSettings(), UpstreamSettings(**{
        "url": None if url == "-" else url, "device_id": "dev1", "interval_s": 0.05, "timeout_s": 5,
        "backoff_base_s": 0.01, "backoff_max_s": 0.05, "token_file": token_file, **extra}), l2=l2)
    if mode == "kill-after-put":
        upload = s3.Store.upload

        def upload_then_die(self, *a, **kw):  # the store has the object; the manifest does not know yet
            result = upload(self, *a, **kw)
            if result.outcome == "ok":
                print("PUT_DONE", flush=True)
                os.kill(os.getpid(), signal.SIGKILL)
            return result

        s3.Store.upload = upload_then_die
    await svc.open(state / "archive", run_loop=False)
    for i in range(n):
        await svc.archive_session(f"{prefix}{i}", turns(f"{prefix}{i}"), audit(f"{prefix}{i}"))
    print("ARCHIVED", flush=True)
    if mode in ("loop", "archive-while-uploading"):
        svc.start_loop()
    if mode == "archive-while-uploading":  # uploads and new volumes interleave
        for i in range(n):
            await svc.archive_session(f"{prefix}x{i}", turns(f"{prefix}x{i}"), audit(f"{prefix}x{i}"))
    if mode in ("loop", "archive-while-uploading"):
        await asyncio.Event().wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        await svc.run_pass()
        if svc.status()["pending"] == 0:
            await svc.stop()
            l2.close()
            print("IDLE", flush=True)
            return 0
        await asyncio.sleep(0.05)
    return 3


if __name__ == "__main__":
    args = sys.argv[1:]
    sys.exit(asyncio.run(main(Path(args[0]), args[1], int(args[2]), args[3], args[4] if len(args) > 4 else "",
                              args[5] if len(args) > 5 else "c")))
