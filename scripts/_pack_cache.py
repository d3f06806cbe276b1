"""A content-keyed cache of built packs (shared by the pack builders, ``scripts/build_*_pack.py``), used
when ``HD_PACK_CACHE`` names a folder; without it every run builds.

Why: the test suite builds the SGD pack through ``scripts/install --with-pack sgd`` and for the replay
tests (~3 CPU-minutes each) and the CrossWOZ pack twice; on a loaded 2-core CI machine that alone was
most of the run. ``tests/conftest.py`` (fixture ``pack_cache``) names one folder per test session, so
each pack is built once per session and copied for every later build of the same inputs.

The key (:func:`key`) is the sha256 of everything a build's output can depend on, so a changed input
is a new key and never a stale copy:

- the builder's own sources: the builder script, ``_compile_intents.py``, this file;
- the whole ``hermesd`` package of this repository (every file but bytecode: the NLU features, the
  model and artifact versions, the temporal parser the builders call) — more than a build reads, on
  purpose;
- the pack's committed folder (``config/packs/<name>``: its hand-written files and handler modules);
- every file of the data the build reads (the ``--data`` folder, a ``--dialogues`` file), by content;
- the resolved arguments but ``--out`` (paths made absolute, defaults filled in: ``--data X`` and the
  default that is ``X`` are one key);
- the interpreter (``sys.version``, the platform) and every installed distribution with its version.

Entries are folders ``<cache>/<name>-<key>``, each made under an exclusive lock (``fcntl.flock`` on
``<name>-<key>.lock``: parallel builds — pytest-xdist workers, two installs — build once) in a scratch
folder and renamed into place only after a successful build, so an entry is always complete. A hit
copies the entry into ``--out`` (``shutil.copytree``, metadata kept); a build into the pack's own
source folder never uses the cache.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.metadata
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

REPO = Path(__file__).resolve().parents[1]
#: the environment variable naming the cache folder (unset or empty: no cache); not ``HERMESD_…``:
#: hermesd reads every such variable as a config key and rejects unknown ones (``hermesd.config``)
ENV = "HD_PACK_CACHE"


def _files(path: Path) -> Iterable[Path]:
    """``path`` itself if a file, else every file below it (sorted; bytecode and ``__pycache__`` left out)."""
    if path.is_file():
        yield path
        return
    for p in sorted(path.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc":
            yield p


def key(name: str, sources: Iterable[Path], args: Mapping[str, Any]) -> str:
    """The cache key of building pack ``name`` from ``sources`` (files or folders, read by content;
    a missing one counts as missing) with ``args`` (JSON-like values, ``repr``-ed in key order),
    in this interpreter and environment. :return: 64 hex digits (sha256)."""
    h = hashlib.sha256()

    def feed(tag: str, data: bytes) -> None:
        h.update(tag.encode() + b"\0" + len(data).to_bytes(8, "big") + data)

    feed("name", name.encode())
    for src in sources:
        src = Path(src).resolve()
        feed("source", str(src).encode())
        if not src.exists():
            feed("missing", b"")
            continue
        for f in _files(src):
            feed("file", str(f.relative_to(src) if f != src else f.name).encode())
            feed("bytes", f.read_bytes())
    for k in sorted(args):
        feed("arg", f"{k}={args[k]!r}".encode())
    feed("python", f"{sys.version} {platform.platform()} {sys.implementation.cache_tag}".encode())
    dists = sorted(f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions())
    feed("dists", "\n".join(dists).encode())
    return h.hexdigest()


def builder_sources(name: str, script: Path, data: Iterable[Path]) -> list[Path]:
    """What a pack builder's output can depend on (see the module docstring), for :func:`key`:
    ``script``, ``_compile_intents.py``, this file, ``hermesd/``, ``config/packs/<name>``, ``data``."""
    here = Path(__file__).resolve()
    return [Path(script), here.with_name("_compile_intents.py"), here, REPO / "hermesd",
            REPO / "config" / "packs" / name, *data]


def build_or_copy(name: str, out: Path, sources: Iterable[Path], args: Mapping[str, Any],
                  build: Callable[[Path], int], *, cache: str | None = None) -> int:
    """Build pack ``name`` into ``out`` with ``build(folder) -> exit status``, or copy it from the
    cache folder ``cache`` (default: ``$HD_PACK_CACHE``; none: just ``build(out)``).

    On a miss ``build`` runs into a scratch folder of the cache, which becomes the entry only when it
    returns 0, then is copied to ``out``; a non-zero status is returned with nothing cached and
    nothing copied. Prints one line saying which (``pack cache hit=… entry=…``).
    :return: ``build``'s status, or 0 on a hit."""
    cache = os.environ.get(ENV) if cache is None else cache
    if not cache:
        return build(out)
    root = Path(cache)
    root.mkdir(parents=True, exist_ok=True)
    k = key(name, sources, args)
    entry = root / f"{name}-{k}"
    with open(root / f"{name}-{k}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        hit = entry.is_dir()
        if not hit:
            scratch = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=root))
            try:
                status = build(scratch / name)
                if status != 0:
                    return status
                os.rename(scratch / name, entry)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(entry, out, symlinks=True, dirs_exist_ok=True)
    print(f"pack cache hit={'yes' if hit else 'no'} entry={entry}")
    return 0
