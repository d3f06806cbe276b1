"""A descriptor may name a handler module shared by several tools, inside the tools folder only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermesd.tools.descriptor import DescriptorError, load_descriptor

CASES = [{"name": "echo", "input": {}, "expect": {"values": {}}}]


def _tool(root: Path, name: str, handler: str | None) -> Path:
    d = root / name
    d.mkdir(parents=True)
    extra = f"handler: {handler}\n" if handler else ""
    (d / "tool.yaml").write_text(f"name: {name}\nversion: 1.0.0\ndescription: a tool\n{extra}")
    (d / "test_cases.json").write_text(json.dumps(CASES))
    return d


def test_a_shared_handler_beside_the_tool_folders(tmp_path):
    tools = tmp_path / "tools"
    (tools / "_shared").mkdir(parents=True)
    (tools / "_shared" / "api.py").write_text("def handle(input):\n    return {}\n")
    a, b = _tool(tools, "one", "../_shared/api.py"), _tool(tools, "two", "../_shared/api.py")
    da, _ = load_descriptor(a)
    db, _ = load_descriptor(b)
    assert da.handler_path.resolve() == db.handler_path.resolve() == (tools / "_shared" / "api.py").resolve()
    plain = _tool(tools, "three", None)
    (plain / "handler.py").write_text("def handle(input):\n    return {}\n")
    assert load_descriptor(plain)[0].handler_path == plain / "handler.py"


@pytest.mark.parametrize("handler, fragment", [
    ("../../outside.py", "outside the tools folder"),
    ("/etc/passwd.py", "relative path to a .py file"),
    ("../_shared/data.json", "relative path to a .py file"),
    ("../_shared/missing.py", "missing"),
])
def test_a_handler_outside_the_tools_folder_or_not_python_is_refused(tmp_path, handler, fragment):
    tools = tmp_path / "tools"
    (tools / "_shared").mkdir(parents=True)
    (tmp_path / "outside.py").write_text("def handle(input):\n    return {}\n")
    with pytest.raises(DescriptorError) as exc:
        load_descriptor(_tool(tools, "one", handler))
    assert fragment in str(exc.value)
