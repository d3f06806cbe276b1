"""Shared fixtures: ``short_dir``, ``short_socket_path``, ``start_daemon``, ``daemon`` and ``pack_cache``.

The machinery (a real daemon child process, a real notify socket) lives in
``hermesd_testing.py`` so test modules can import it by a unique name.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from hermesd_testing import Daemon

@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A fresh folder with a short path (< 30 bytes) for sockets."""
    d = Path(tempfile.mkdtemp(prefix="hd-", dir="/tmp"))
    # like /var/lib: others may pass through (not list), so sandbox workers that run as
    # another user (tools.worker_user) reach their folders under the state dir
    os.chmod(d, 0o711)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def short_socket_path(short_dir: Path) -> Path:
    return short_dir / "h.sock"


@pytest.fixture(scope="session")
def nlu_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One NLU model cache for the whole run: the scorer trains once, later daemons load it."""
    return tmp_path_factory.mktemp("nlu-cache")


@pytest.fixture(scope="session")
def pack_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pack cache for the whole run (``HD_PACK_CACHE`` of ``scripts/build_*_pack.py``, see
    ``scripts/_pack_cache.py``): each pack is built once per session for the same inputs (the key
    hashes the builder, ``hermesd/``, the pack's sources, the data, the arguments), later builds
    copy it. Shared by pytest-xdist workers (the builders lock each entry); a test of the builder
    itself builds without it."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # xdist: basetemp is per worker, its parent is the run's
        base = base.parent
    d = base / "pack-cache"
    d.mkdir(exist_ok=True)
    return d


@pytest.fixture(scope="session")
def pack_env(pack_cache: Path) -> dict[str, str]:
    """This process's environment with ``HD_PACK_CACHE`` set to the session's :func:`pack_cache`,
    for a subprocess that builds packs (``scripts/install --with-pack``, ``scripts/build_*_pack.py``)."""
    return {**os.environ, "HD_PACK_CACHE": str(pack_cache)}


#: a test daemon's per-turn time budgets (ms) unless its config names them: tests check what a turn does,
#: never how fast, and on a busy 2-core machine a turn can pass the shipped 200 ms ROUTING / 500 ms
#: PARSING budgets and take the fallback path (that path has its own tests, which set their budgets:
#: tests/session/test_state_budgets.py, tests/nlu/test_service.py)
_BUDGETS = {"session": {"routing_ms": 10_000, "parsing_ms": 10_000}, "nlu": {"parse_budget_ms": 10_000}}


def _unhurried(config: dict[str, Any] | None) -> dict[str, Any] | None:
    """``config`` with :data:`_BUDGETS` filled in where it names none (None stays None: the shipped defaults)."""
    if config is None:
        return None
    out = dict(config)
    for section, budgets in _BUDGETS.items():
        if isinstance(out.get(section, {}), dict):
            out[section] = {**budgets, **out.get(section, {})}
    return out


@pytest.fixture
def start_daemon(short_dir: Path, nlu_cache_dir: Path) -> Iterator[Callable[..., Daemon]]:
    """Factory: ``start_daemon(config=None, env=None, args=(), wait=True, settle=True)`` → :class:`Daemon`.

    ``wait``: until READY; ``settle``: then until the tools have come up (their self-tests run
    after READY), so a test of something else never races them."""
    started: list[Daemon] = []
    counter = [0]

    def start(config: dict[str, Any] | None = None, env: dict[str, str] | None = None,
              args: tuple[str, ...] = (), wait: bool = True, root: Path | None = None,
              settle: bool = True) -> Daemon:
        if root is None:
            counter[0] += 1
            root = short_dir / str(counter[0])
            root.mkdir()
        d = Daemon(root, _unhurried(config), {"HERMESD_NLU__MODEL_CACHE_DIR": str(nlu_cache_dir), **(env or {})},
                   list(args))
        started.append(d)
        if wait:
            d.wait_ready()
            if settle:
                d.wait_settled()
        return d

    yield start
    errors = []
    for d in started:  # stop every one even if one fails: a live child would outlast the test
        try:
            d.stop()
        except Exception as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)
    if errors:
        raise errors[0]


@pytest.fixture
def daemon(start_daemon: Callable[..., Daemon]) -> Daemon:
    """A running daemon on the shipped defaults plus ``debug_methods``."""
    return start_daemon({"server": {"debug_methods": True}})
