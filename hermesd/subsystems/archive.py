"""``ArchiveService``: the L3 archive and its upstream sync as one daemon subsystem.

The session controller calls :meth:`ArchiveService.archive_session` when a
session closes or expires; a background task uploads pending volumes when the
network is up, applies retention and the disk budget, and moves volumes out of
``archive/unsynced/`` once the wall clock is plausible. ``admin.archive``
(admin only) reports status, runs a pass now (``sync``, which also requeues
``failed`` volumes) or re-verifies every local file (``verify``).

Exactly one remote copy: a volume is claimed (``uploading`` with a lease) before
its PUT and marked ``uploaded`` only after a 2xx. A crash between the two
leaves a stale lease, released at the next start, and the volume is PUT again
to the same path with the same Idempotency-Key and identical bytes — which
replaces the object rather than adding one. Local files are deleted only after
the manifest says ``uploaded`` (and per ``retention_s``), or by the disk budget.

Layout: ``<state_dir>/archive/`` (volumes, ``unsynced/``, ``quarantine/``);
the manifest is the ``l3_manifest`` table in the memory subsystem's L2 file.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import os
import random
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..errors import HermesError, InputInvalid
from ..metrics import Counter, Gauge, Registry
from ..protocol import CallContext, Method
from .subsystem import DaemonContext, Subsystem, section
from ..memory import l3, l3_schema
from ..memory.archive_settings import ArchiveSettings, UpstreamSettings
from ..memory.l2 import L2Store
from ..typed import BaseModel, ConfigDict

if TYPE_CHECKING:
    from ..memory import s3, upstream

__all__ = ["ARCHIVE_DIRNAME", "ArchiveService"]

log = logging.getLogger(__name__)
ARCHIVE_DIRNAME = "archive"
_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
_MIN_WAIT_S = 0.05
#: volumes claimed in one commit (all of one pass on a small device).
_CLAIM_BATCH = 64


def _boot_id() -> str:
    try:
        return _BOOT_ID.read_text().strip()[:8]
    except OSError:
        return "noboot"


def _wall_ms() -> int:
    return time.time_ns() // 1_000_000


class ArchiveParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: Literal["status", "sync", "verify"] = "status"


class ArchiveService(Subsystem):
    """The ``archive`` subsystem (L3 volumes + upstream sync).

    :param archive: ``archive:`` section; None = ``ctx.config.archive`` or defaults.
    :param upstream_settings: ``upstream:`` section; None = ``ctx.config.upstream`` or defaults.
    :param l2: the L2 store holding the manifest; None = the ``memory`` subsystem's
        (``ctx.subsystems["memory"].l2``), so ``archive`` starts after ``memory``.
    :param now_ms: wall clock in ms (archive dates, retention); :param clock: monotonic
        seconds (leases, backoff); :param rng: jitter source (tests seed it).
    """

    name = "archive"

    def __init__(self, archive: ArchiveSettings | None = None, upstream_settings: UpstreamSettings | None = None,
                 *, l2: L2Store | None = None, now_ms: Callable[[], int] = _wall_ms,
                 clock: Callable[[], float] = time.monotonic, rng: random.Random | None = None) -> None:
        self._archive = archive
        self._upstream = upstream_settings
        self.l2 = l2
        self.now_ms, self.clock = now_ms, clock
        self.rng = rng or random.Random()
        self.root = Path(ARCHIVE_DIRNAME)
        self._owner = f"{_boot_id()}:{os.getpid()}:{secrets.token_hex(4)}"
        self._claims = 0
        self._dictionary: bytes | None = None
        self._dict_id = 0
        self._local = threading.local()
        self._reserved: set[str] = set()
        self._due: dict[int, float] = {}
        self._s3: s3.Store | None = None
        self._pass_lock = asyncio.Lock()
        self._budget_lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._summary: dict[str, Any] = l3_schema.summary_empty()
        self.network = "unknown"
        self.last_error = ""
        self.last_success_ms = 0
        self.uploads = Counter("hermes_archive_uploads_total", "Upload attempts by outcome.", ("outcome",))
        self.uploaded_bytes = Counter("hermes_archive_uploaded_bytes_total", "Bytes of volumes uploaded (2xx).")
        self.dropped = Counter("hermes_archive_dropped_total",
                               "Volumes deleted by the disk budget before they were uploaded.", ("state",))
        self.quarantined = Counter("hermes_archive_quarantined_total", "Volumes that failed verification.",
                                   ("reason",))
        self.archived = Counter("hermes_archive_volumes_written_total", "Volumes written.")
        #: set from the manifest at every refresh (the upload path may set them too)
        self.upload_backlog = Gauge("hermes_archive_upload_backlog",
                                    "Volumes written and not yet uploaded (pending, uploading, failed); "
                                    "0 when no upstream is configured.")
        self.upload_backlog_bytes = Gauge("hermes_archive_upload_backlog_bytes",
                                          "Bytes of the volumes in hermes_archive_upload_backlog.")

    # -- settings ------------------------------------------------------------------

    @property
    def settings(self) -> ArchiveSettings:
        assert self._archive is not None
        return self._archive

    @property
    def upstream(self) -> UpstreamSettings:
        assert self._upstream is not None
        return self._upstream

    # -- life cycle ------------------------------------------------------------------

    async def start(self, ctx: DaemonContext) -> None:
        if self._archive is None:
            self._archive = section(ctx.config, "archive", ArchiveSettings)
        if self._upstream is None:
            self._upstream = section(ctx.config, "upstream", UpstreamSettings)
        if self.l2 is None:
            self.l2 = ctx.subsystems["memory"].l2  # type: ignore[attr-defined]
        await self.open(Path(ctx.state_dir) / ARCHIVE_DIRNAME)

    async def open(self, root: Path, *, run_loop: bool = True) -> None:
        """Create the manifest table, clean up after a crash, adopt orphan files, start the loop.

        :raises OSError: the archive folder or dictionary cannot be read;
            ``L2Unavailable``: the manifest cannot be created.
        """
        if self._archive is None:
            self._archive = ArchiveSettings()
        if self._upstream is None:
            self._upstream = UpstreamSettings()
        assert self.l2 is not None
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        if self.settings.dictionary:
            self._dictionary = await asyncio.to_thread(Path(self.settings.dictionary).read_bytes)
            self._dict_id = l3.Codec(self.settings.level, self._dictionary).dict_id
        # the upload clients (http.client, ssl, email) are imported only when an upstream is set
        if self.upstream.kind == "s3":
            from ..memory import s3

            self._s3 = s3.Store(self.upstream)  # raises on a bad endpoint
            s3.load_credentials(self.upstream)  # raises CredentialsError: say so at start, not at the first pass
        elif self.upstream.url:
            from ..memory import upstream

            upstream.target(self.upstream.url, self.upstream.device_id, "probe")  # raises on a bad URL
        await self.l2.awrite(l3_schema.ensure)
        released = await self.l2.awrite(l3_schema.release_expired, self._owner, self.clock())
        await asyncio.to_thread(self._remove_temp_files)
        adopted = await self._adopt_orphans()
        await self._refresh()
        log.info("archive started", extra={"kv": {"root": str(self.root), "upstream": self._upstream_label(),
                                                  "dict_id": self._dict_id, "released_leases": released,
                                                  "adopted": adopted, "pending": self._summary["pending"]["files"]}})
        if run_loop:
            self.start_loop()

    def start_loop(self) -> None:
        """Start the background pass loop (``open`` does unless ``run_loop=False``)."""
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="hermesd-archive")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def reload(self, config: Any) -> None:
        """Apply new ``archive:`` / ``upstream:`` sections (a new dictionary needs a restart)."""
        from ..memory import s3  # only with an upstream: http.client, ssl, email

        new_a, new_u = section(config, "archive"), section(config, "upstream")
        if new_a is not None:
            if new_a.dictionary != self.settings.dictionary:
                log.warning("archive.dictionary changes take effect at the next start")
            self._archive = new_a
        if new_u is not None:
            if new_u != self._upstream:
                self._s3 = s3.Store(new_u) if new_u.kind == "s3" else None
            self._upstream = new_u
        self._wake.set()

    # -- codecs (one per thread: zstd contexts are not thread-safe) ------------------

    def _codec(self, dict_id: int | None) -> l3.Codec:
        """The codec for volumes written with ``dict_id`` (None = the current one).

        :raises LookupError: a volume needs a dictionary that is not loaded.
        """
        want = self._dict_id if dict_id is None else dict_id
        if want not in (0, self._dict_id):
            raise LookupError(f"volume needs zstd dictionary {want}, loaded is {self._dict_id}")
        codecs = self._local.__dict__.setdefault("codecs", {})
        codec = codecs.get((want, self.settings.level))
        if codec is None:
            codec = l3.Codec(self.settings.level, self._dictionary if want else None)
            codecs[(want, self.settings.level)] = codec
        return codec

    # -- archiving -------------------------------------------------------------------

    async def archive_session(self, session_id: str, records: list[dict[str, Any]],
                              audit: list[dict[str, Any]]) -> Path:
        """Write one closed session's turns and audit records as a verified volume.

        :param session_id: ``[A-Za-z0-9._-]{1,128}``; names the file.
        :param records: raw turn records (JSON-serialisable dicts), in order.
        :param audit: the session's audit records.
        :return: absolute path of the volume (``archive/YYYY/MM/DD/<id>.zst``, or
            ``archive/unsynced/<id>.zst`` while the clock is before ``clock_floor``;
            ``<id>.<n>.zst`` if the session was archived before).
        :raises InputInvalid: bad session id or a record that is not JSON-serialisable.
        :raises HermesError: (INTERNAL) the file could not be written or failed its read-back check.
        """
        assert self.l2 is not None
        now = self.now_ms()
        rel = await self._allocate(session_id, now)
        try:
            meta = await asyncio.to_thread(self._write_volume, session_id, records, audit, now, rel)
            await self.l2.awrite(l3_schema.insert, meta)
        finally:
            self._reserved.discard(rel)
        if meta.get("state") == "quarantined":
            self.quarantined.inc(meta["reason"])
            log.error("archive.quarantined", extra={"kv": {"path": rel, "reason": meta["reason"], "read_back": True}})
            raise HermesError(f"archive volume {rel} failed its read-back check: {meta['last_error']}")
        self.archived.inc()
        log.info("archive.written", extra={"kv": {"path": rel, "records": meta["records"], "bytes": meta["bytes"]}})
        await self._enforce_budget()
        await self._refresh()
        self._wake.set()
        return self.root / rel

    async def _allocate(self, session_id: str, now: int) -> str:
        """A relative path no row, file or in-flight write uses (remote names must never collide)."""
        assert self.l2 is not None
        for n in range(10_000):
            rel = l3.relative_path(session_id, now, self.settings.clock_floor, n)
            if rel in self._reserved or (self.root / rel).exists():
                continue
            if await self.l2.aread(l3_schema.rows, "path = ?", (rel,), 1):
                continue
            self._reserved.add(rel)
            return rel
        raise HermesError(f"no free archive name for session {session_id}")

    def _write_volume(self, session_id: str, records: list[dict[str, Any]], audit: list[dict[str, Any]],
                      now: int, rel: str) -> dict[str, Any]:
        codec = self._codec(None)
        try:
            vol = l3.encode_volume(codec, session_id, records, audit, now)
        except (ValueError, TypeError) as exc:
            raise InputInvalid(f"cannot archive session: {exc}") from None
        try:
            path = l3.write_atomic(self.root, rel, vol.data)
        except OSError as exc:
            raise HermesError(f"cannot write archive volume {rel}: {exc.strerror or exc}") from None
        meta = {"path": rel, "session_id": session_id, "sha256": vol.sha256, "bytes": len(vol.data),
                "records": vol.records, "dict_id": codec.dict_id, "created_ms": now}
        try:  # read back what the disk holds, not what we meant to write
            l3.verify_file(codec, path, records=vol.records, sha256=vol.sha256)
        except l3.VolumeCorrupt as exc:
            self._quarantine_file(rel)
            meta.update(state="quarantined", last_error=str(exc)[:200], reason=exc.reason)
        return meta

    # -- crash recovery ----------------------------------------------------------------

    def _remove_temp_files(self) -> None:
        for tmp in l3.temp_files(self.root):
            l3.remove_file(tmp)
            log.warning("archive.temp_removed", extra={"kv": {"path": str(tmp.relative_to(self.root))}})

    async def _adopt_orphans(self) -> int:
        """Reconcile the folder with the manifest after a crash.

        A volume without a row (crash after its rename, before the insert) is
        verified against its own header and adopted as ``pending``, or quarantined
        with a ``quarantined`` row (so the budget still counts it). A file whose
        row says it was deleted (an unlink the crash undid) is deleted again.
        """
        assert self.l2 is not None
        rows = {r["path"]: r for r in await self.l2.aread(l3_schema.rows)}
        found = await asyncio.to_thread(self._scan)
        stale = [self.root / rel for rel in found if rel in rows and not rows[rel]["local"]
                 and rows[rel]["state"] in ("uploaded", "dropped")]
        if stale:
            await asyncio.to_thread(l3.remove_files, stale)
        adopted = 0
        for rel in sorted(set(found) - set(rows)):
            path = self.root / rel
            try:
                header, vol = await asyncio.to_thread(l3.read_header, self._codec(None), path)
            except l3.VolumeCorrupt as exc:
                data = await asyncio.to_thread(path.read_bytes)
                await asyncio.to_thread(self._quarantine_file, rel)
                await self.l2.awrite(l3_schema.insert, {
                    "path": rel, "session_id": path.name.split(".")[0], "sha256": hashlib.sha256(data).hexdigest(),
                    "bytes": len(data), "records": 0, "dict_id": 0, "created_ms": self.now_ms(),
                    "state": "quarantined", "last_error": str(exc)[:200]})
                self.quarantined.inc(exc.reason)
                log.error("archive.quarantined", extra={"kv": {"path": rel, "reason": exc.reason, "orphan": True}})
                continue
            meta = {"path": rel, "session_id": str(header["session_id"]), "sha256": vol.sha256,
                    "bytes": len(vol.data), "records": vol.records, "dict_id": l3.frame_dict_id(vol.data),
                    "created_ms": int(header.get("created_ms", self.now_ms()))}
            await self.l2.awrite(l3_schema.insert, meta)
            adopted += 1
            log.warning("archive.adopted", extra={"kv": {"path": rel, "records": vol.records}})
        return adopted

    def _scan(self) -> list[str]:
        out = []
        for p in self.root.rglob("*.zst"):
            rel = p.relative_to(self.root).as_posix()
            if not rel.startswith(l3.QUARANTINE + "/"):
                out.append(rel)
        return out

    def _quarantine_file(self, rel: str) -> None:
        src = self.root / rel
        if not src.exists():
            return
        try:
            l3.move_atomic(self.root, rel, f"{l3.QUARANTINE}/{rel}")
        except FileExistsError:
            l3.move_atomic(self.root, rel, f"{l3.QUARANTINE}/{rel}.{secrets.token_hex(3)}")

    def _local_path(self, row: dict[str, Any]) -> Path:
        if row["state"] == "quarantined":
            return self.root / l3.QUARANTINE / row["path"]
        return self.root / row["path"]

    async def find_session(self, session_id: str) -> dict[str, Any] | None:
        """An ended session as the archive holds it, newest volume first, or None when never archived.

        :return: ``{"path", "state", "created_ms", "local": bool, "header": {…} | None, "turns": [...]}`` —
            ``header`` is the session record written at the close (uid, role, created_ms, closed_ms,
            reason), None with ``turns`` empty when the file is no longer on this device (uploaded and
            evicted by the disk budget) or cannot be read.
        """
        if self.l2 is None:
            return None
        rows = await self.l2.aread(l3_schema.rows, "session_id = ?", (session_id,))
        if not rows:
            return None
        row = rows[-1]
        out: dict[str, Any] = {"path": row["path"], "state": row["state"], "created_ms": row["created_ms"],
                               "local": bool(row["local"]), "header": None, "turns": []}
        if not row["local"]:
            return out

        def read() -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
            return l3.read_records(self._codec(row["dict_id"]), self._local_path(row).read_bytes())

        try:
            _, turns, _ = await asyncio.to_thread(read)
        except (OSError, LookupError, l3.VolumeCorrupt) as exc:
            log.warning("archive.read_failed", extra={"kv": {"path": row["path"], "error": str(exc)[:200]}})
            return out
        if turns and isinstance(turns[0], dict) and turns[0].get("kind") == "session":
            out["header"], out["turns"] = turns[0], turns[1:]
        return out

    # -- the background loop -----------------------------------------------------------

    async def _loop(self) -> None:
        while True:
            try:
                await self.run_pass()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("archive pass failed")
            delay = self.upstream.interval_s
            if self._due:
                delay = min(delay, max(_MIN_WAIT_S, min(self._due.values()) - self.clock()))
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), delay)
            except TimeoutError:
                pass

    async def run_pass(self, *, force: bool = False) -> dict[str, int]:
        """One pass: clock fix-ups, lease expiry, retention, disk budget, then uploads.

        :param force: ignore backoff delays (``admin.archive sync``).
        :return: upload outcome counts of this pass, e.g. ``{"ok": 3, "retry": 1}``.
        """
        async with self._pass_lock:
            assert self.l2 is not None
            outcomes: dict[str, int] = {}
            await self.l2.awrite(l3_schema.release_expired, self._owner, self.clock())
            await self._move_unsynced()
            await self._apply_retention()
            await self._enforce_budget()
            if self.upstream.enabled:
                await self._upload_due(force, outcomes)
            await self._refresh()
            return outcomes

    async def sync(self) -> dict[str, Any]:
        """Requeue ``failed`` volumes and run a pass now, ignoring backoff (an operator's "push it all").

        :return: ``{"requeued": n, "outcomes": {...}, **status}``.
        """
        assert self.l2 is not None
        requeued = await self.l2.awrite(l3_schema.requeue_failed)
        outcomes = await self.run_pass(force=True)
        return {"requeued": requeued, "outcomes": outcomes, **self.status()}

    async def _upload_due(self, force: bool, outcomes: dict[str, int]) -> None:
        from ..memory import s3, upstream  # only with an upstream: http.client, ssl, email

        assert self.l2 is not None
        now = self.clock()
        todo = [r for r in await self.l2.aread(l3_schema.rows, "state = 'pending' AND path NOT LIKE ?",
                                               (l3.UNSYNCED + "/%",))
                if force or self._due.get(r["id"], 0.0) <= now]
        if not todo:
            return
        if self._s3 is not None:
            host, port = self._s3.probe
        else:
            t = upstream.target(self.upstream.url or "", self.upstream.device_id, "probe")
            host, port = t.host, t.port
        up, why = await asyncio.to_thread(upstream.network_up, host, port, self.upstream.timeout_s)
        if not up:
            if self.network != f"down: {why}":
                log.warning("archive.offline", extra={"kv": {"reason": why}})
            self.network = f"down: {why}"
            return
        self.network = "up"
        token: Any
        try:
            if self._s3 is not None:  # re-read each pass: a rotated key needs no restart
                token = await asyncio.to_thread(s3.load_credentials, self.upstream)
            else:
                token = await asyncio.to_thread(upstream.read_token, self.upstream.token_file)
        except s3.CredentialsError as exc:
            self.last_error = str(exc)
            log.error("archive.credentials_unusable", extra={"kv": {"error": str(exc)}})
            return
        except OSError as exc:
            self.last_error = f"token_file unreadable: {exc.strerror}"
            log.error("archive.token_unreadable", extra={"kv": {"token_file": self.upstream.token_file,
                                                                "error": exc.strerror}})
            return
        client = upstream.Client(self.upstream.timeout_s, self.upstream.max_bytes_per_s)
        try:
            for i in range(0, len(todo), _CLAIM_BATCH):
                if await self._upload_batch(client, todo[i:i + _CLAIM_BATCH], token, force, outcomes):
                    break
        finally:
            client.close()
        await self._apply_retention()

    async def _upload_batch(self, client: upstream.Client, batch: list[dict[str, Any]], token: Any, force: bool,
                            outcomes: dict[str, int]) -> bool:
        """Claim ``batch`` in one commit, upload it in order; True if a retry stopped it early.

        A 2xx is marked ``uploaded`` without waiting for its commit, so the next
        PUT overlaps the fsync; every mark is durable before this returns (and so
        before retention may delete a file). A crash before a mark commits means
        one more identical PUT to the same path after the restart, never a copy.
        """
        assert self.l2 is not None
        self._claims += 1
        lease = f"{self._owner}#{self._claims}"
        claimed = set(await self.l2.awrite(l3_schema.claim, [r["id"] for r in batch], lease,
                                           self.clock() + self.settings.lease_s))
        marks: list[tuple[dict[str, Any], dict[str, Any], Any]] = []
        unattempted: list[int] = []
        stopped = False
        for row in batch:
            if row["id"] not in claimed:
                continue
            if stopped:
                unattempted.append(row["id"])
                continue
            outcome = await self._upload_one(client, row, lease, token, marks)
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            stopped = outcome == "retry" and not force  # the upstream is struggling: do not hammer it
        if unattempted:
            await self.l2.awrite(l3_schema.unclaim, unattempted, lease)
        for row, kv, fut in marks:
            try:
                changed = await asyncio.wrap_future(fut)
            except (HermesError, sqlite3.Error) as exc:  # stays "uploading" until its lease expires, then PUT again
                log.error("archive.mark_failed", extra={"kv": {"path": row["path"], "error": str(exc)}})
                continue
            log.info("archive.uploaded", extra={"kv": {**kv, "bytes": row["bytes"], "marked": changed}})
        return stopped

    async def _upload_one(self, client: upstream.Client, row: dict[str, Any], lease: str, token: Any,
                          marks: list[tuple[dict[str, Any], dict[str, Any], Any]]) -> str:
        """Upload one claimed row; ``token`` is the bearer token (http) or :class:`~.sigv4.Credentials` (s3)."""
        from ..memory import upstream  # only with an upstream: http.client, ssl, email

        assert self.l2 is not None
        rel = row["path"]
        if self._s3 is not None:
            t = self._s3.target(self._s3.key_for(rel))
        else:
            t = upstream.target(self.upstream.url or "", self.upstream.device_id, rel)
        try:
            result = await asyncio.to_thread(self._verify_and_put, client, row, t, token)
        except l3.VolumeCorrupt as exc:
            await asyncio.to_thread(self._quarantine_file, rel)
            await self._finish(row["id"], lease, "quarantined", error=str(exc)[:200])
            self.quarantined.inc(exc.reason)
            self.uploads.inc("quarantined")
            log.error("archive.quarantined", extra={"kv": {"path": rel, "reason": exc.reason}})
            return "quarantined"
        except LookupError as exc:
            await self._finish(row["id"], lease, "failed", error=str(exc))
            self.uploads.inc("failed")
            log.error("archive.upload_failed", extra={"kv": {"path": rel, "error": str(exc)}})
            return "failed"
        self.uploads.inc(result.outcome)
        kv = {"path": rel, "status": result.status, "attempt": row["attempts"] + 1,
              "elapsed_ms": round(result.elapsed_s * 1000, 1), "target": str(t)}
        if result.already:
            kv["already"] = True  # the store held it (a crash before the mark): nothing written twice
        if result.outcome == "ok":
            fut = self.l2.write(functools.partial(l3_schema.finish, uploaded_ms=self.now_ms()), row["id"], lease,
                                "uploaded")
            marks.append((row, kv, fut))
            self._due.pop(row["id"], None)
            self.uploaded_bytes.inc(amount=row["bytes"])
            self.last_success_ms = self.now_ms()
        elif result.outcome == "retry":
            delay = upstream.backoff_s(row["attempts"] + 1, self.upstream.backoff_base_s,
                                       self.upstream.backoff_max_s, self.rng)
            if result.retry_after_s is not None:
                delay = max(delay, min(result.retry_after_s, self.upstream.backoff_max_s))
            self._due[row["id"]] = self.clock() + delay
            self.last_error = result.error
            await self._finish(row["id"], lease, "pending", error=result.error)
            log.warning("archive.upload_retry", extra={"kv": {**kv, "error": result.error,
                                                              "retry_in_s": round(delay, 2)}})
        else:
            self.last_error = result.error
            await self._finish(row["id"], lease, "failed", error=result.error)
            log.error("archive.upload_failed", extra={"kv": {**kv, "error": result.error}})
        return result.outcome

    def _verify_and_put(self, client: upstream.Client, row: dict[str, Any], t: upstream.Target,
                        token: Any) -> upstream.UploadResult:
        codec = self._codec(row["dict_id"])
        data = l3.verify_file(codec, self.root / row["path"], records=row["records"], sha256=row["sha256"])
        if self._s3 is not None:
            return self._s3.upload(client, row["path"], data, row["sha256"], token)
        return client.put(t, data, row["sha256"], token=token)

    def _upstream_label(self) -> str:
        """``none``, ``http`` or ``s3:<bucket>`` for logs and status (never a URL query or a credential)."""
        u = self._upstream
        if u is None or not u.enabled:
            return "none"
        return f"s3:{u.bucket}" if u.kind == "s3" else "http"

    async def _finish(self, row_id: int, lease: str | None, state: str, **fields: Any) -> bool:
        assert self.l2 is not None
        return await self.l2.awrite(functools.partial(l3_schema.finish, **fields), row_id, lease, state)

    # -- clock, retention, budget -----------------------------------------------------------

    async def _move_unsynced(self) -> None:
        """Give ``unsynced/`` volumes a dated path once the wall clock is plausible."""
        assert self.l2 is not None
        now = self.now_ms()
        if not l3.clock_plausible(now, self.settings.clock_floor):
            return
        for row in await self.l2.aread(l3_schema.rows, "path LIKE ? AND local = 1 AND state IN ('pending', 'failed')",
                                       (l3.UNSYNCED + "/%",)):
            rel = await self._allocate(row["session_id"], now)
            try:
                await asyncio.to_thread(l3.move_atomic, self.root, row["path"], rel)
                await self._finish(row["id"], None, row["state"], error=row["last_error"],
                                     path=rel, created_ms=now)
            finally:
                self._reserved.discard(rel)
            log.info("archive.dated", extra={"kv": {"from": row["path"], "to": rel}})

    async def _apply_retention(self) -> None:
        assert self.l2 is not None
        now = self.now_ms()
        if not l3.clock_plausible(now, self.settings.clock_floor):
            return
        cutoff = now - int(self.settings.retention_s * 1000)
        due = await self.l2.aread(l3_schema.rows, "state = 'uploaded' AND local = 1 AND uploaded_ms <= ?", (cutoff,))
        if due:
            await asyncio.to_thread(l3.remove_files, [self._local_path(r) for r in due])
            await self.l2.awrite(l3_schema.set_local_gone, [r["id"] for r in due])

    async def _enforce_budget(self) -> None:
        """Delete local files until the archive fits ``max_bytes`` (uploaded first, oldest first)."""
        assert self.l2 is not None
        async with self._budget_lock:
            local = await self.l2.aread(l3_schema.rows, "local = 1")
            for row in l3.plan_budget(local, self.settings.max_bytes):
                await self._evict(row)

    async def _evict(self, row: dict[str, Any]) -> None:
        assert self.l2 is not None
        await asyncio.to_thread(l3.remove_file, self._local_path(row))
        if row["state"] == "uploaded":
            await self._finish(row["id"], None, "uploaded", local=0)
            log.info("archive.evicted", extra={"kv": {"path": row["path"], "bytes": row["bytes"]}})
            return
        # only quarantined files keep their state (evidence is gone, the reason stays)
        state = "quarantined" if row["state"] == "quarantined" else "dropped"
        await self._finish(row["id"], None, state, local=0,
                             error=f"deleted by disk budget; was {row['state']}")
        self.dropped.inc(row["state"])
        self._due.pop(row["id"], None)
        log.error("archive.dropped", extra={"kv": {"path": row["path"], "state": row["state"], "bytes": row["bytes"],
                                                   "max_bytes": self.settings.max_bytes}})

    # -- verify, status, metrics ---------------------------------------------------------------

    async def verify_all(self) -> dict[str, Any]:
        """Re-verify every local pending/failed/uploaded file; quarantine the bad ones.

        :return: ``{"checked": n, "ok": n, "quarantined": [{"path", "reason"}]}``.
        """
        assert self.l2 is not None
        async with self._pass_lock:
            bad: list[dict[str, str]] = []
            rows = await self.l2.aread(l3_schema.rows, "local = 1 AND state IN ('pending', 'failed', 'uploaded')")
            for row in rows:
                try:
                    await asyncio.to_thread(l3.verify_file, self._codec(row["dict_id"]), self.root / row["path"],
                                            records=row["records"], sha256=row["sha256"])
                except LookupError:
                    continue
                except l3.VolumeCorrupt as exc:
                    await asyncio.to_thread(self._quarantine_file, row["path"])
                    await self._finish(row["id"], None, "quarantined", error=str(exc)[:200])
                    self.quarantined.inc(exc.reason)
                    log.error("archive.quarantined", extra={"kv": {"path": row["path"], "reason": exc.reason}})
                    bad.append({"path": row["path"], "reason": exc.reason})
            await self._refresh()
            return {"checked": len(rows), "ok": len(rows) - len(bad), "quarantined": bad}

    async def _refresh(self) -> None:
        assert self.l2 is not None
        self._summary = s = await self.l2.aread(l3_schema.summary)
        waiting = ("pending", "uploading", "failed") if self._upstream and self._upstream.url else ()
        self.upload_backlog.set(sum(s[k]["files"] for k in waiting))
        self.upload_backlog_bytes.set(sum(s[k]["bytes"] for k in waiting))

    def status(self) -> dict[str, Any]:
        """Manifest counts per state (``files``, ``bytes``), local bytes vs budget, network, last success."""
        s = self._summary
        return {"pending": s["pending"]["files"] + s["uploading"]["files"],
                "pending_bytes": s["pending"]["bytes"] + s["uploading"]["bytes"],
                "uploaded": s["uploaded"]["files"], "uploaded_bytes": s["uploaded"]["bytes"],
                "failed": s["failed"]["files"], "quarantined": s["quarantined"]["files"],
                "dropped": s["dropped"]["files"], "local_bytes": s["local_bytes"],
                "max_bytes": self.settings.max_bytes if self._archive else 0,
                "upstream": bool(self._upstream and self._upstream.enabled), "upstream_kind": self._upstream_label(),
                "backlog": s["pending"]["files"] + s["uploading"]["files"] + s["failed"]["files"],
                "network": self.network,
                "last_success_ms": self.last_success_ms, "last_error": self.last_error}

    def health(self) -> dict[str, Any]:
        if self._task is not None and self._task.done():
            return {"status": "down", **self.status()}
        st = self.status()
        # failed and quarantined volumes wait for a human; drops degrade until the next start
        bad = st["failed"] or st["quarantined"] or sum(self.dropped.values.values())
        return {"status": "degraded" if bad else "ok", **st}

    def register_metrics(self, registry: Registry) -> None:
        """Manifest counts and bytes by state, local bytes against the disk budget, the upload
        backlog, uploads by outcome, drops and quarantines."""
        registry.gauge("hermes_archive_files", "Archive volumes by manifest state.", ("state",),
                       collect=lambda: {(k,): self._summary[k]["files"] for k in l3_schema.STATES})
        registry.gauge("hermes_archive_bytes", "Archive volume bytes by manifest state.", ("state",),
                       collect=lambda: {(k,): self._summary[k]["bytes"] for k in l3_schema.STATES})
        registry.gauge("hermes_archive_local_bytes", "Bytes of volumes on local disk.",
                       collect=lambda: self._summary["local_bytes"])
        registry.gauge("hermes_archive_budget_bytes", "The archive's disk budget (archive.max_bytes).",
                       collect=lambda: self.settings.max_bytes if self._archive else 0)
        registry.gauge("hermes_archive_last_success_timestamp_seconds",
                       "Unix time of the last 2xx upload (0: none since start).",
                       collect=lambda: self.last_success_ms / 1000.0)
        for m in (self.upload_backlog, self.upload_backlog_bytes, self.uploads, self.uploaded_bytes, self.dropped,
                  self.quarantined, self.archived):
            registry.add(m)

    # -- JSON-RPC ---------------------------------------------------------------------------

    def methods(self) -> list[Method]:
        return [Method("admin.archive", self._m_archive, roles=frozenset({"admin"}), params_model=ArchiveParams)]

    async def _m_archive(self, p: ArchiveParams, ctx: CallContext) -> dict[str, Any]:
        if p.action == "sync":
            return await self.sync()
        if p.action == "verify":
            return await self.verify_all()
        await self._refresh()
        return self.status()
