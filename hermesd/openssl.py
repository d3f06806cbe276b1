"""OpenSSL is loaded only when the configuration can open a TLS connection.

The stdlib ``ssl`` module and OpenSSL's hash module ``_hashlib`` map libssl and libcrypto:
4.6 MB of the daemon's resident memory on this machine (Python 3.11, OpenSSL 3; measured with
``scripts/bench/footprint.py``), more than any part of hermesd itself but the NLU model. The
daemon opens a TLS connection only for an ``https`` LLM endpoint or archive upstream, and
uvloop imports ``ssl`` whether it is used or not. A daemon configured with neither never needs
OpenSSL, so ``hermesd run`` refuses both modules before anything imports them: a ``None`` entry
in :data:`sys.modules` makes ``import`` raise :class:`ImportError` (the import system's module
cache rule, https://docs.python.org/3/reference/import.html#the-module-cache). Every stdlib user
imports them inside ``try … except ImportError``: asyncio, ``http.client`` and ``urllib`` run
without TLS, and :mod:`hashlib` and :mod:`hmac` use CPython's built-in sha256, md5 and blake2
(the same digests). A configuration that needs TLS gets both back before asyncio is imported.

Tool handlers run in the forkserver's own fresh interpreter (``python -I -m
hermesd.tools.forkserver``), which refuses nothing.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["allow", "needed", "refuse", "refused"]

#: the modules that map OpenSSL's shared libraries
MODULES = ("ssl", "_ssl", "_hashlib")


def refuse() -> None:
    """Make ``import ssl`` / ``import _hashlib`` raise :class:`ImportError` in this process.

    Must run before anything imports them (:mod:`hashlib`, :mod:`secrets`, asyncio): a module
    already loaded is left as it is, and then nothing is saved.
    """
    for name in MODULES:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]


def allow() -> None:
    """Undo :func:`refuse`: the next ``import ssl`` loads OpenSSL. Modules that imported while it
    was refused keep their fallbacks (:mod:`hashlib`'s built-in digests); asyncio, imported after
    this, gets TLS."""
    for name in MODULES:
        if name in sys.modules and sys.modules[name] is None:
            del sys.modules[name]


def refused() -> bool:
    """True when this process runs without OpenSSL (:func:`refuse` was called and not undone)."""
    return "ssl" in sys.modules and sys.modules["ssl"] is None


def needed(cfg: Any) -> list[str]:
    """What in config ``cfg`` (a :class:`hermesd.config.HermesConfig`) needs OpenSSL.

    :return: the setting paths that need it (``server.event_loop``, ``llm.endpoint``,
        ``upstream.url`` / ``upstream.endpoint``), empty when none does.
    """
    why = []
    if cfg.server.event_loop == "uvloop":  # uvloop imports ssl at import
        why.append("server.event_loop")
    if cfg.llm.enabled and _https(cfg.llm.endpoint):
        why.append("llm.endpoint")
    up = cfg.upstream
    if up.enabled:
        name = "endpoint" if up.kind == "s3" else "url"
        if _https(getattr(up, name)):
            why.append(f"upstream.{name}")
    return why


def _https(url: str | None) -> bool:
    return (url or "").strip().lower().startswith("https:")
