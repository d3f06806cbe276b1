#!/usr/bin/env python3
"""The import graph of the ``hermesd`` package and the layering rules it must keep.

Reads every module's source with :mod:`ast` (nothing is imported or run), so an import inside a
function or under ``if TYPE_CHECKING:`` counts as much as one at the top: a circle that only
the type checker sees is still a circle for a reader.

Usage::

    python3 scripts/importgraph.py            # the part-to-part graph, then any violation (exit 1)

Besides imports, :func:`store_reaches` reads the session layer for attribute reads of the memory
store (``memory.l2``, ``.core.``, ``.graph.``): an import check alone would not see a store handed
in through a port and reached through its attributes.

A *part* is a top-level module or sub-package of ``hermesd`` (``nlu``, ``session``,
``config``, ``subsystems`` …). :data:`LAYERS` gives each part a layer; an import may only point
to a lower layer, or sideways within the engines along :data:`ENGINE_EDGES`. ``tests/
test_architecture.py`` runs :func:`violations` on the tree, so the rule cannot silently break.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

__all__ = ["ENGINES", "ENGINE_EDGES", "FORBIDDEN_MODULES", "LAYERS", "STORE_ATTRIBUTES", "module_graph",
           "part_graph", "store_reaches", "violations"]

#: The engines: text in, dataclass out. They know no socket, no config file, no daemon.
ENGINES = frozenset({"nlu", "rules", "dialogue", "tools", "memory", "anchors", "llm", "session"})

#: The imports allowed between engines (a DAG): importer → what it may import.
ENGINE_EDGES: dict[str, frozenset[str]] = {
    "nlu": frozenset(),
    "rules": frozenset(),
    "memory": frozenset(),
    "dialogue": frozenset({"nlu"}),
    "tools": frozenset({"rules"}),
    "anchors": frozenset({"memory"}),
    "llm": frozenset({"tools"}),
    "session": frozenset({"anchors", "dialogue", "llm", "memory", "nlu", "rules"}),
}

#: Modules an engine may not import although their part is allowed: the session layer uses
#: memory's pure helpers (capture rules, the facts grammar, records, hiding) but reaches the store
#: (SQL, L1, L3, the anchor graph, the memory core) only through ``session/ports.py``.
FORBIDDEN_MODULES: dict[str, tuple[str, ...]] = {
    "session": ("hermesd.memory.l1", "hermesd.memory.l2", "hermesd.memory.l3", "hermesd.memory.l3_schema",
                "hermesd.memory.schema", "hermesd.memory.mcp", "hermesd.memory.doorkeeper",
                "hermesd.memory.turnlog", "hermesd.memory.outbox", "hermesd.anchors.graph"),
}

#: Attributes of the memory subsystem that are its store: the session layer (the ``session`` part and
#: its shell ``subsystems/session.py``) reads none of them — ``x.l2``, ``x.core``, ``x.graph`` … —
#: it calls the typed methods of ``session/ports.py`` ``MemoryPort`` instead.
STORE_ATTRIBUTES = frozenset({"l1", "l2", "l3", "core", "graph"})

#: The files :func:`store_reaches` reads, relative to the package root.
SESSION_LAYER = ("session", "subsystems/session.py")

#: Layer of each part, bottom first. An import must point to a strictly lower layer, except
#: between engines (layer 1), where :data:`ENGINE_EDGES` decides.
LAYERS: dict[str, int] = {
    # -2 — regexes compiled at their first use (:mod:`hermesd.lazyre`), which even the validator uses
    "lazyre": -2,
    # -1 — the model validator (:mod:`hermesd.typed`) that section and every settings module build on
    "typed": -1,
    # 0 — leaves every layer may use
    "hermesd": 0, "errors": 0, "caller": 0, "clock": 0, "section": 0, "tasks": 0, "logging": 0,
    "metrics": 0, "sdnotify": 0, "recurrence": 0, "yamlkeys": 0, "pronouns": 0, "openssl": 0,
    # 1 — engines
    **{name: 1 for name in ENGINES},
    # 2 — configuration (collects the engines' settings) and the wire format
    "config": 2, "protocol": 2, "client": 2,
    # 3 — the socket server and the metrics scrape listener / textfile writer
    "server": 3, "metrics_export": 3,
    # 4 — the subsystem shells: JSON-RPC methods, settings, metrics around each engine
    "subsystems": 4,
    # 5 — the one place that wires the shells together
    "daemon": 5,
    # 6 — programs built on the daemon or its client
    "stories": 6, "replay": 6, "replay_crosswoz": 6, "modelcontext": 6, "redial": 6,
    "cli": 7, "__main__": 8,
}

#: Parts no engine may import, whatever its layer says.
FORBIDDEN_TO_ENGINES = frozenset({"protocol", "server", "config", "subsystems", "daemon", "client", "cli"})


def _module_name(package_root: Path, path: Path) -> str:
    rel = path.relative_to(package_root.parent).with_suffix("").parts
    return ".".join(rel[:-1] if rel[-1] == "__init__" else rel)


def module_graph(package_root: Path, missing: list[str] | None = None) -> dict[str, set[str]]:
    """``{module: {imported module, …}}`` for every ``.py`` under ``package_root``.

    Only imports of modules inside the package are kept; ``from pkg import name`` counts as
    an import of ``pkg.name`` when that is a module, else of ``pkg``. An import of a module of
    the package that does not exist (a path left behind by a move) is appended to ``missing``
    as ``"importer → target"`` — a lazy one would only fail when its function runs.

    :raises SyntaxError: a module does not parse.
    """
    files = {_module_name(package_root, p): p for p in package_root.rglob("*.py")}
    top = package_root.name
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in files.items():
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_pkg else name.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                subs = [f"{target}.{alias.name}" for alias in node.names]
                found = [s for s in subs if s in files]
                targets = found if found and len(found) == len(subs) else found + [target]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            if (missing is not None and isinstance(node, ast.ImportFrom) and target.split(".")[0] == top
                    and target not in files):
                missing.append(f"{name} → {target}")
            for target in targets:
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target and target != name and target.split(".")[0] == top:
                    graph[name].add(target)
        graph.setdefault(name, set())
    return dict(graph)


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def part_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Collapse a module graph to parts: ``{part: {imported part, …}}`` (self-edges dropped)."""
    out: dict[str, set[str]] = defaultdict(set)
    for module, targets in graph.items():
        out[_part(module)]
        for target in targets:
            if _part(target) != _part(module):
                out[_part(module)].add(_part(target))
    return dict(out)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one node (Tarjan, 1972)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def violations(graph: dict[str, set[str]]) -> list[str]:
    """One sentence per broken rule, empty when the graph keeps them all.

    Rules: no circle between parts; no circle between modules of different parts; a part
    missing from :data:`LAYERS` is reported (give it a layer); an import points to a lower
    layer, or between engines along :data:`ENGINE_EDGES`; no engine imports a part in
    :data:`FORBIDDEN_TO_ENGINES`.
    """
    problems: list[str] = []
    parts = part_graph(graph)
    for cycle in _cycles(parts):
        problems.append("circle between parts: " + " ⇄ ".join(cycle))
    for cycle in _cycles(graph):
        if len({_part(m) for m in cycle}) > 1:
            problems.append("circle between modules: " + " ⇄ ".join(cycle))
    for part in sorted(parts):
        if part not in LAYERS:
            problems.append(f"part {part!r} has no layer in scripts/importgraph.py LAYERS")
    for module in sorted(graph):
        src = _part(module)
        for target in sorted(graph[module]):
            dst = _part(target)
            if dst == src or src not in LAYERS or dst not in LAYERS:
                continue
            if src in ENGINES and dst in FORBIDDEN_TO_ENGINES:
                problems.append(f"engine imports a shell: {module} → {target}")
            elif src in ENGINES and dst in ENGINES:
                if target.startswith(FORBIDDEN_MODULES.get(src, ())):
                    problems.append(f"engine reaches past a port into a store: {module} → {target}")
                elif dst not in ENGINE_EDGES[src]:
                    problems.append(f"engine import not in ENGINE_EDGES: {module} → {target}")
            elif LAYERS[dst] >= LAYERS[src]:
                problems.append(f"import runs up a layer ({LAYERS[src]} → {LAYERS[dst]}): {module} → {target}")
    return problems


def store_reaches(package_root: Path) -> list[str]:
    """``"path:line: .attr"`` for each read of a :data:`STORE_ATTRIBUTES` attribute in the
    :data:`SESSION_LAYER` files (any receiver: the port is the only way to the store).

    :raises SyntaxError: a file does not parse.
    """
    found: list[str] = []
    for rel in SESSION_LAYER:
        base = package_root / rel
        for path in sorted(base.rglob("*.py") if base.is_dir() else [base] if base.is_file() else []):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute) and node.attr in STORE_ATTRIBUTES:
                    where = path.relative_to(package_root.parent)
                    found.append(f"{where}:{node.lineno}: .{node.attr}")
    return found


def main() -> int:
    root = Path(__file__).resolve().parent.parent / "hermesd"
    missing: list[str] = []
    graph = module_graph(root, missing)
    for part, targets in sorted(part_graph(graph).items(), key=lambda kv: (LAYERS.get(kv[0], 99), kv[0])):
        print(f"{LAYERS.get(part, '?')} {part:13} → {', '.join(sorted(targets)) or '-'}")
    problems = violations(graph) + [f"import of a module that does not exist: {m}" for m in missing]
    problems += [f"session layer reaches the memory store past its port: {r}" for r in store_reaches(root)]
    for problem in problems:
        print("VIOLATION", problem)
    print(f"{len(graph)} modules, {len(problems)} violations")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
