"""The layering of ARCHITECTURE.md, checked on the import graph (scripts/importgraph.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("importgraph", ROOT / "scripts" / "importgraph.py")
importgraph = importlib.util.module_from_spec(_spec)
sys.modules["importgraph"] = importgraph
_spec.loader.exec_module(importgraph)


def test_the_tree_keeps_every_layering_rule():
    missing: list[str] = []
    graph = importgraph.module_graph(ROOT / "hermesd", missing)
    assert len(graph) > 50
    assert importgraph.violations(graph) == []
    assert missing == []


def test_a_lazy_import_of_a_moved_module_is_found(tmp_path):
    root = _package(tmp_path, {
        "metrics.py": "",
        "subsystems/__init__.py": "",
        "subsystems/subsystem.py": "def register():\n    from .metrics import Registry\n",
    })
    missing: list[str] = []
    importgraph.module_graph(root, missing)
    assert missing == ["hermesd.subsystems.subsystem → hermesd.subsystems.metrics"]


def test_engines_know_no_socket_config_or_shell():
    parts = importgraph.part_graph(importgraph.module_graph(ROOT / "hermesd"))
    for engine in importgraph.ENGINES:
        assert not parts.get(engine, set()) & importgraph.FORBIDDEN_TO_ENGINES, engine


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "hermesd"
    for rel, text in {"__init__.py": "", **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_a_circle_hidden_under_type_checking_is_found(tmp_path):
    root = _package(tmp_path, {
        "daemon.py": "from .server import Server\n",
        "server.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .daemon import Daemon\n",
    })
    problems = importgraph.violations(importgraph.module_graph(root))
    assert any(p.startswith("circle between parts: daemon ⇄ server") for p in problems), problems


def test_an_engine_importing_the_protocol_inside_a_function_is_found(tmp_path):
    root = _package(tmp_path, {
        "protocol.py": "",
        "nlu/__init__.py": "",
        "nlu/parser.py": "def parse():\n    from ..protocol import Method\n",
    })
    problems = importgraph.violations(importgraph.module_graph(root))
    assert problems == ["engine imports a shell: hermesd.nlu.parser → hermesd.protocol"]


def test_an_upward_import_and_an_unplaced_part_are_found(tmp_path):
    root = _package(tmp_path, {
        "errors.py": "from . import config\n",
        "config.py": "",
        "gadget.py": "from .errors import X\n",
    })
    problems = importgraph.violations(importgraph.module_graph(root))
    assert "import runs up a layer (0 → 2): hermesd.errors → hermesd.config" in problems
    assert any("'gadget' has no layer" in p for p in problems)


def test_an_engine_edge_outside_the_dag_is_found(tmp_path):
    root = _package(tmp_path, {
        "memory/__init__.py": "",
        "memory/store.py": "from ..anchors import graph\n",
        "anchors/__init__.py": "",
        "anchors/graph.py": "",
    })
    problems = importgraph.violations(importgraph.module_graph(root))
    assert problems == ["engine import not in ENGINE_EDGES: hermesd.memory.store → hermesd.anchors.graph"]


def test_the_session_layer_reaches_memory_only_through_its_port():
    assert importgraph.store_reaches(ROOT / "hermesd") == []


def test_a_session_module_reading_the_memory_store_is_found(tmp_path):
    root = _package(tmp_path, {
        "session/__init__.py": "",
        "session/commit.py": "async def commit(memory):\n    row = memory.core.event_row(1)\n"
                             "    await memory.l2.awrite(row)\n    return memory.event_row(1)\n",
        "subsystems/__init__.py": "",
        "subsystems/session.py": "def start(subs):\n    return subs['memory'].graph\n",
        "subsystems/tools.py": "def start(subs):\n    return subs['memory'].l2\n",  # not the session layer
    })
    assert importgraph.store_reaches(root) == [
        "hermesd/session/commit.py:2: .core", "hermesd/session/commit.py:3: .l2",
        "hermesd/subsystems/session.py:2: .graph"]


def test_a_session_import_of_the_turn_log_sql_is_found(tmp_path):
    root = _package(tmp_path, {
        "memory/__init__.py": "",
        "memory/turnlog.py": "",
        "session/__init__.py": "",
        "session/archiving.py": "from ..memory import turnlog\n",
    })
    problems = importgraph.violations(importgraph.module_graph(root))
    assert problems == ["engine reaches past a port into a store: hermesd.session.archiving → hermesd.memory.turnlog"]
