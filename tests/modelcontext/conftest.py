"""Helpers for the Model Context Protocol tests: the official JSON Schemas, a tools folder.

Every message is checked against ``../shared/specs/mcp/<version>/schema.json`` with
``jsonschema`` (a test-only dependency): 2025-06-18 is draft-07, 2025-11-25 and 2026-07-28
are draft 2020-12, which fastjsonschema does not implement.
"""

from __future__ import annotations

import functools
import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO.parent / "shared" / "specs" / "mcp"
VERSIONS = ("2025-06-18", "2025-11-25", "2026-07-28")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without the official schemas next to the checkout, these tests are skipped, saying why
    (like the tests that read ../shared/data)."""
    if (SPECS / VERSIONS[0] / "schema.json").exists():
        return
    skip = pytest.mark.skip(reason=f"MCP schemas not found at {SPECS} (../shared/specs next to the checkout)")
    for item in items:
        if "modelcontext" in str(item.fspath):
            item.add_marker(skip)


@functools.cache
def _root(version: str) -> dict[str, Any]:
    return json.loads((SPECS / version / "schema.json").read_text())


@functools.cache
def _validator(version: str, definition: str) -> Any:
    root = _root(version)
    key = "definitions" if "definitions" in root else "$defs"
    if definition not in root[key]:
        raise KeyError(f"{definition} is not in the {version} schema")
    schema = {**root, "allOf": [{"$ref": f"#/{key}/{definition}"}]}
    cls = jsonschema.validators.validator_for(root)
    cls.check_schema(schema)
    return cls(schema)


def check(version: str, definition: str, instance: Any) -> None:
    """Raise ``jsonschema.ValidationError`` unless ``instance`` is a valid ``definition`` of ``version``."""
    _validator(version, definition).validate(instance)


def has(version: str, definition: str) -> bool:
    root = _root(version)
    return definition in root.get("definitions", root.get("$defs", {}))


def error_definition(version: str) -> str:
    return "JSONRPCError" if version == "2025-06-18" else "JSONRPCErrorResponse"


def response_definition(version: str) -> str:
    return "JSONRPCResponse" if version == "2025-06-18" else "JSONRPCResultResponse"


#: the result definition of each request method
RESULTS = {"initialize": "InitializeResult", "ping": "EmptyResult" , "tools/list": "ListToolsResult",
           "tools/call": "CallToolResult", "server/discover": "DiscoverResult",
           "subscriptions/listen": "SubscriptionsListenResult"}
REQUESTS = {"initialize": "InitializeRequest", "ping": "PingRequest", "tools/list": "ListToolsRequest",
            "tools/call": "CallToolRequest", "server/discover": "DiscoverRequest",
            "subscriptions/listen": "SubscriptionsListenRequest", "resources/list": "ListResourcesRequest"}
NOTIFICATIONS = {"notifications/initialized": "InitializedNotification",
                 "notifications/cancelled": "CancelledNotification",
                 "notifications/tools/list_changed": "ToolListChangedNotification",
                 "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification"}


def check_sent(version: str, msg: dict[str, Any]) -> None:
    """A client→server message: a JSON-RPC message, and the request or notification it claims to be."""
    check(version, "JSONRPCMessage", msg)
    table = REQUESTS if "id" in msg else NOTIFICATIONS
    check(version, table[msg["method"]], msg)


def check_received(version: str, msg: dict[str, Any], method: str | None = None) -> None:
    """A server→client message: a JSON-RPC message; a result of ``method``'s type, an error, or a
    notification of its method's type. Tool results also match the tool's own schemas elsewhere."""
    if "result" in msg or "error" in msg:
        if "error" in msg:
            check(version, error_definition(version), msg)
        else:
            check(version, response_definition(version), msg)
            assert method is not None
            check(version, RESULTS[method], msg["result"])
    else:
        check(version, "JSONRPCMessage", msg)
        check(version, NOTIFICATIONS[msg["method"]], msg)
    assert "\n" not in json.dumps(msg)


CONFIRM_TOOL = {
    "tool.yaml": textwrap.dedent("""\
        name: flag_set
        version: "1.0.0"
        description: {en: Set a flag (a test tool that asks first)., zh: 设置一个标志。}
        input:
          flag: {type: string, required: true, max_length: 32}
        output:
          flag: {type: string, required: true}
          set: {type: boolean, required: true}
        sandbox: {memory_mb: 32, cpu_ms: 100, timeout_ms: 1000}
        confirm: true
        """),
    "handler.py": "def handle(input):\n    return {'flag': input['flag'], 'set': True}\n",
    "test_cases.json": json.dumps([{"name": "sets", "input": {"flag": "a"}, "expect": {"values": {"set": True}}}]),
}


def make_tools_dir(root: Path) -> Path:
    """A tools folder with the shipped disk_usage and a ``confirm: true`` test tool."""
    folder = root / "tools"
    shutil.copytree(REPO / "tools" / "disk_usage", folder / "disk_usage",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "flag_set").mkdir(parents=True)
    for name, text in CONFIRM_TOOL.items():
        (folder / "flag_set" / name).write_text(text)
    return folder


def add_echo_tool(folder: Path) -> None:
    """Add a third tool (the tool tests' echo fixture) to a folder made by :func:`make_tools_dir`."""
    shutil.copytree(REPO / "tests" / "tools" / "fixtures" / "echo", folder / "echo",
                    ignore=shutil.ignore_patterns("__pycache__"))


@pytest.fixture
def tools_daemon(start_daemon, short_dir):
    """A daemon serving :func:`make_tools_dir`'s folder: ``(daemon, folder)``."""
    folder = make_tools_dir(short_dir)
    folder.chmod(0o755)
    return start_daemon({"tools": {"tools_dir": str(folder)}}), folder
