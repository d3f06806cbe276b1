"""L3 cold tier: one zstd volume per closed session, written atomically and verified.

A volume is ONE zstd frame (content size and XXH64 checksum on, RFC 8878 §3.1.1)
holding NDJSON: a header line, then one line per record::

    {"format": "hermesd-l3", "v": 1, "session_id": "s1", "turns": 12, "audit": 30, "created_ms": ...}
    {"type": "turn", "data": {...}}
    {"type": "audit", "data": {...}}

Its manifest row (``l3_schema``) carries ``records`` (= turns + audit), the
sha256 and size of the file. :func:`verify` accepts a file only if it is one
complete frame (a truncated file never reaches end-of-frame), nothing follows
it (trailing junk), the frame checksum holds, the line count agrees with both
the header and the manifest, and the sha256 matches. Everything here is
blocking file I/O: callers run it in a thread, never on the event loop.

Writes are atomic on POSIX: temporary file in the target folder, fsync,
``rename``, fsync of the folder (and of any folder created for it), so after a
crash the path holds either nothing or the whole volume (rename(2);
https://lwn.net/Articles/457667/).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import orjson

from .. import lazyre
from ..errors import ArchiveCorrupt

__all__ = [
    "FORMAT",
    "QUARANTINE",
    "UNSYNCED",
    "Codec",
    "Volume",
    "VolumeCorrupt",
    "clock_plausible",
    "encode_volume",
    "frame_dict_id",
    "move_atomic",
    "plan_budget",
    "read_header",
    "relative_path",
    "remove_file",
    "remove_files",
    "temp_files",
    "train_dictionary",
    "verify",
    "verify_file",
    "write_atomic",
]

FORMAT = "hermesd-l3"
#: folder for volumes written while the wall clock was implausible (before ``clock_floor``).
UNSYNCED = "unsynced"
#: folder holding files that failed verification (kept for a human, never uploaded).
QUARANTINE = "quarantine"
_SESSION_ID = lazyre.compile(r"^[A-Za-z0-9._-]{1,128}$")


class VolumeCorrupt(ArchiveCorrupt):
    """A volume failed verification; ``reason`` is one of ``missing``, ``truncated``,
    ``trailing_junk``, ``corrupt`` (zstd error or bad header), ``count_mismatch``,
    ``checksum_mismatch``."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason, data={"reason": reason})
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Volume:
    """An encoded volume: ``data`` (compressed bytes), ``sha256`` (hex), ``records`` (lines after the header)."""

    data: bytes
    sha256: str
    records: int


def _zstd() -> Any:
    """The ``zstandard`` module, imported with the first volume written or read: its C backend is
    ~0.5 MB resident that a daemon whose sessions have not yet been archived does not need."""
    import zstandard

    return zstandard


class Codec:
    """zstd compressor/decompressor pair, optionally with a trained dictionary.

    :param level: zstd level (1…22). :param dictionary: raw dictionary bytes or None.

    Not thread-safe (zstd contexts are reused): one Codec per thread.
    """

    def __init__(self, level: int = 3, dictionary: bytes | None = None) -> None:
        zstandard = _zstd()
        self.level = level
        self.dict_data = zstandard.ZstdCompressionDict(dictionary) if dictionary else None
        self.dict_id = self.dict_data.dict_id() if self.dict_data is not None else 0
        kw: dict[str, Any] = {"dict_data": self.dict_data} if self.dict_data is not None else {}
        self._c = zstandard.ZstdCompressor(level=level, write_checksum=True, write_content_size=True, **kw)
        self._kw = kw

    def compress(self, raw: bytes) -> bytes:
        return self._c.compress(raw)

    def decompressobj(self) -> Any:
        return _zstd().ZstdDecompressor(**self._kw).decompressobj()


def encode_volume(codec: Codec, session_id: str, turns: list[dict[str, Any]], audit: list[dict[str, Any]],
                  created_ms: int) -> Volume:
    """Serialise and compress one session's records (see the module docstring for the layout).

    :raises ValueError: a bad session id (``[A-Za-z0-9._-]{1,128}``) or a record orjson cannot encode.
    """
    if not _SESSION_ID.match(session_id):
        raise ValueError(f"session id {session_id!r} is not [A-Za-z0-9._-]{{1,128}}")
    header = {"format": FORMAT, "v": 1, "session_id": session_id, "turns": len(turns), "audit": len(audit),
              "created_ms": created_ms}
    parts = [orjson.dumps(header)]
    parts.extend(orjson.dumps({"type": "turn", "data": r}) for r in turns)
    parts.extend(orjson.dumps({"type": "audit", "data": r}) for r in audit)
    raw = b"\n".join(parts) + b"\n"
    data = codec.compress(raw)
    return Volume(data, hashlib.sha256(data).hexdigest(), len(turns) + len(audit))


def _decompress_whole(codec: Codec, data: bytes) -> bytes:
    d = codec.decompressobj()
    try:
        raw = d.decompress(data)
    except _zstd().ZstdError as exc:
        raise VolumeCorrupt("corrupt", str(exc)) from None
    if not d.eof:
        raise VolumeCorrupt("truncated", f"{len(data)} bytes end inside the zstd frame")
    if d.unused_data:
        raise VolumeCorrupt("trailing_junk", f"{len(d.unused_data)} bytes after the zstd frame")
    return raw


def _parse_header(raw: bytes) -> tuple[dict[str, Any], int]:
    nl = raw.find(b"\n")
    try:
        header = orjson.loads(raw[:nl] if nl >= 0 else raw)
    except orjson.JSONDecodeError:
        raise VolumeCorrupt("corrupt", "header line is not JSON") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise VolumeCorrupt("corrupt", "not a hermesd-l3 volume")
    if not raw.endswith(b"\n"):
        raise VolumeCorrupt("corrupt", "last line has no newline")
    return header, raw.count(b"\n") - 1


def verify(codec: Codec, data: bytes, *, records: int | None = None, sha256: str | None = None) -> dict[str, Any]:
    """Check a volume's bytes; returns its header.

    :param records: expected record count (the manifest's); None = only the header's.
    :param sha256: expected hex digest of ``data``; None = not checked.
    :raises VolumeCorrupt: with the first failing reason.
    """
    raw = _decompress_whole(codec, data)
    header, lines = _parse_header(raw)
    declared = int(header.get("turns", -1)) + int(header.get("audit", -1))
    if lines != declared or (records is not None and lines != records):
        raise VolumeCorrupt("count_mismatch", f"{lines} lines, header says {declared}, manifest {records}")
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise VolumeCorrupt("checksum_mismatch", "sha256 differs from the manifest")
    return header


def read_header(codec: Codec, path: Path) -> tuple[dict[str, Any], Volume]:
    """Verify a file against its own header (for files with no manifest row).

    :raises VolumeCorrupt: as :func:`verify`; ``missing`` if the file cannot be read.
    """
    data = _read(path)
    header = verify(codec, data)
    return header, Volume(data, hashlib.sha256(data).hexdigest(), int(header["turns"]) + int(header["audit"]))


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise VolumeCorrupt("missing", str(exc)) from None


def verify_file(codec: Codec, path: Path, *, records: int, sha256: str) -> bytes:
    """Read and :func:`verify` a file; returns its bytes (what is uploaded is what was checked)."""
    data = _read(path)
    verify(codec, data, records=records, sha256=sha256)
    return data


def read_records(codec: Codec, data: bytes) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """A volume's header, turn records and audit records (after :func:`verify`).

    :raises VolumeCorrupt: as :func:`verify`.
    """
    verify(codec, data)
    lines = _decompress_whole(codec, data).splitlines()
    header = orjson.loads(lines[0])
    turns, audit = [], []
    for line in lines[1:]:
        rec = orjson.loads(line)
        (turns if rec.get("type") == "turn" else audit).append(rec.get("data"))
    return header, turns, audit


def frame_dict_id(data: bytes) -> int:
    """The dictionary id a zstd frame was written with (0 = none)."""
    return _zstd().get_frame_parameters(data).dict_id


def clock_plausible(now_ms: int, floor: date) -> bool:
    """True when the wall clock is at or after ``floor`` (UTC midnight); an RTC-less device boots in 1970."""
    return now_ms >= int(datetime(floor.year, floor.month, floor.day, tzinfo=UTC).timestamp() * 1000)


def relative_path(session_id: str, now_ms: int, floor: date, n: int = 0) -> str:
    """``YYYY/MM/DD/<session_id>[.n].zst`` (UTC date), or ``unsynced/…`` when the clock is implausible."""
    name = f"{session_id}.zst" if n == 0 else f"{session_id}.{n}.zst"
    if not clock_plausible(now_ms, floor):
        return f"{UNSYNCED}/{name}"
    day = datetime.fromtimestamp(now_ms / 1000, tz=UTC)
    return f"{day:%Y/%m/%d}/{name}"


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _make_dirs(root: Path, folder: Path) -> None:
    """mkdir -p, fsyncing the parent of every folder created so the new entries are durable."""
    missing: list[Path] = []
    p = folder
    while not p.exists() and p != root and root in p.parents:
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        try:
            d.mkdir()
        except FileExistsError:
            continue
        _fsync_dir(d.parent)


def write_atomic(root: Path, rel: str, data: bytes) -> Path:
    """Write ``data`` to ``root/rel`` atomically and durably; returns the path.

    :raises FileExistsError: the target exists (volumes are never overwritten).
    :raises OSError: disk full, read-only, … (the temporary file is removed).
    """
    target = root / rel
    _make_dirs(root, target.parent)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o640)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        os.close(fd)
        fd = -1
        # link + unlink instead of rename: never replaces an existing volume
        os.link(tmp, target)
    finally:
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
    _fsync_dir(target.parent)
    return target


def move_atomic(root: Path, src_rel: str, dst_rel: str) -> Path:
    """Move a volume inside ``root`` (same file system) without replacing anything; fsyncs both folders.

    :raises FileExistsError: ``dst_rel`` exists.
    """
    src, dst = root / src_rel, root / dst_rel
    _make_dirs(root, dst.parent)
    os.link(src, dst)
    _fsync_dir(dst.parent)
    os.unlink(src)
    _fsync_dir(src.parent)
    return dst


def remove_file(path: Path) -> bool:
    """Unlink ``path`` and fsync its folder; False if it was already gone."""
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    _fsync_dir(path.parent)
    return True


def remove_files(paths: list[Path]) -> int:
    """Unlink many files, fsyncing each folder once; returns how many existed."""
    gone = 0
    folders = set()
    for p in paths:
        try:
            p.unlink()
        except FileNotFoundError:
            continue
        gone += 1
        folders.add(p.parent)
    for d in folders:
        _fsync_dir(d)
    return gone


def temp_files(root: Path) -> Iterable[Path]:
    """Leftover ``.*.tmp`` files of writes a crash interrupted."""
    return root.rglob(".*.tmp") if root.exists() else ()


def plan_budget(rows: list[dict[str, Any]], max_bytes: int) -> list[dict[str, Any]]:
    """Which local files to delete so the archive fits ``max_bytes``.

    :param rows: manifest rows with ``local = 1`` (``id``, ``state``, ``bytes``), any order.
    :return: rows to delete in order: oldest ``uploaded`` first, then the oldest of
        the rest (pending, failed, quarantined); a file being uploaded is never chosen.
    """
    total = sum(r["bytes"] for r in rows)
    if total <= max_bytes:
        return []
    uploaded = sorted((r for r in rows if r["state"] == "uploaded"), key=lambda r: r["id"])
    others = sorted((r for r in rows if r["state"] not in ("uploaded", "uploading")), key=lambda r: r["id"])
    out: list[dict[str, Any]] = []
    for r in uploaded + others:
        if total <= max_bytes:
            break
        out.append(r)
        total -= r["bytes"]
    return out


def train_dictionary(samples: list[bytes], dict_bytes: int = 16 * 1024) -> bytes:
    """Train a zstd dictionary (COVER algorithm, zstd's ``--train``) on raw NDJSON samples.

    :param samples: uncompressed volumes (or their lines), ideally hundreds.
    :param dict_bytes: dictionary size; 16 KiB suits per-session files of a few KiB.
    :raises zstandard.ZstdError: too few or too small samples.
    """
    return _zstd().train_dictionary(dict_bytes, samples).as_bytes()
