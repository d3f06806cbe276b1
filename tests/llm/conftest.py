"""Fixtures of the LLM executor tests: a scripted model server and daemons pointed at it."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from hermesd_testing import Daemon

from .llm_server import ModelServer

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def llm_config(server: ModelServer, api: str, **llm: Any) -> dict[str, Any]:
    """A daemon config: the test tools and rules, the LLM executor on and pointed at ``server``."""
    return {"tools": {"tools_dir": str(FIXTURES / "tools")}, "session": {"rules_dir": str(FIXTURES / "rules")},
            "llm": {"enabled": True, "api": api, "endpoint": server.url, "model": "test-model",
                    "timeout_ms": 5000, "rate_per_minute": 600, **llm}}


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    srv = ModelServer()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def module_daemon(nlu_cache_dir: Path) -> Iterator[Callable[..., Daemon]]:
    """Factory of daemons that live for the module (a start trains nothing: the NLU cache is shared)."""
    started: list[Daemon] = []
    root = Path(tempfile.mkdtemp(prefix="hl-", dir="/tmp"))
    os.chmod(root, 0o755)

    def start(config: dict[str, Any]) -> Daemon:
        d_root = root / str(len(started))
        d_root.mkdir()
        os.chmod(d_root, 0o755)
        d = Daemon(d_root, config, {"HERMESD_NLU__MODEL_CACHE_DIR": str(nlu_cache_dir)}, [])
        started.append(d)
        d.wait_ready()
        d.wait_settled()  # READY comes before the tools' self-tests end: script against settled tools
        return d

    try:
        yield start
    finally:
        for d in started:
            d.stop()
        shutil.rmtree(root, ignore_errors=True)
