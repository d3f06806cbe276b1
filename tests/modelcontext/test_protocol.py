"""The pure MCP message builders against the official schemas of every supported version."""

from __future__ import annotations

import json

import jsonschema
import pytest

from hermesd.modelcontext import protocol as P

from .conftest import VERSIONS, check


@pytest.mark.parametrize("asked, answered", [
    ("2025-06-18", "2025-06-18"), ("2025-11-25", "2025-11-25"),
    ("2024-11-05", "2025-11-25"), ("1900-01-01", "2025-11-25"), ("2099-01-01", "2025-11-25"),
    # 2026-07-28 has no handshake: a client asking for it in initialize gets the latest handshake version
    ("2026-07-28", "2025-11-25"),
])
def test_initialize_negotiates_the_asked_version_or_the_latest(asked, answered):
    assert P.negotiate(asked) == answered


@pytest.mark.parametrize("version", P.HANDSHAKE_VERSIONS)
def test_initialize_result_fits_its_version(version):
    result = P.initialize_result(version)
    check(version, "InitializeResult", result)
    assert result["protocolVersion"] == version and result["capabilities"]["tools"] == {"listChanged": True}


def test_discover_result_fits_2026_07_28():
    result = P.discover_result(ttl_ms=2000)
    check("2026-07-28", "DiscoverResult", result)
    assert result["supportedVersions"] == ["2026-07-28", "2025-11-25", "2025-06-18"]
    assert result["resultType"] == "complete" and result["_meta"][P.META_SERVER_INFO]["name"] == "hermesd"


def test_envelope_checks():
    ok = {"_meta": {P.META_VERSION: "2026-07-28", P.META_CAPABILITIES: {}}}
    assert P.modern(ok) and P.check_envelope(ok) == "2026-07-28"
    assert not P.modern({"_meta": {"progressToken": 1}}) and not P.modern(None)
    with pytest.raises(P.McpError) as info:
        P.check_envelope({"_meta": {P.META_VERSION: "2026-07-28"}})
    assert info.value.code == P.INVALID_PARAMS and P.META_CAPABILITIES in info.value.message
    with pytest.raises(P.McpError) as info:
        P.check_envelope({"_meta": {P.META_VERSION: "2030-01-01", P.META_CAPABILITIES: {}}})
    err = {"jsonrpc": "2.0", "id": 1, "error": info.value.to_wire()}
    check("2026-07-28", "UnsupportedProtocolVersionError", err)
    assert err["error"]["data"] == {"supported": ["2026-07-28", "2025-11-25", "2025-06-18"], "requested": "2030-01-01"}


@pytest.mark.parametrize("version", VERSIONS)
def test_the_turn_tool_and_results_fit_every_version(version):
    check(version, "Tool", P.TURN_TOOL)
    jsonschema.Draft202012Validator.check_schema(P.TURN_TOOL["inputSchema"])
    jsonschema.Draft202012Validator.check_schema(P.TURN_TOOL["outputSchema"])
    ok = P.call_ok({"path": "/", "free_mb": 1})
    assert json.loads(ok["content"][0]["text"]) == ok["structuredContent"]
    bad = P.call_error("TOOL_TIMEOUT", "the disk check took too long", retryable=True, retry_after_ms=None)
    assert bad["content"][0]["text"] == "The disk check took too long." and bad["isError"] is True
    assert bad["_meta"] == {"hermesd/code": "TOOL_TIMEOUT", "hermesd/retryable": True}
    for result in (ok, bad):
        check(version, "CallToolResult", P.complete(result) if version == "2026-07-28" else result)


def _daemon_tool(name="disk_usage", health="healthy", confirm=False):
    return {"name": name, "description": "Size of a file system.", "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True},
            "_meta": {"hermesd/health": health, "hermesd/confirm": confirm, "hermesd/version": "1.0.0",
                      "hermesd/roles": ["admin", "user"], "hermesd/breaker": "closed"}}


def test_daemon_tools_become_mcp_tools():
    tool = P.mcp_tool(_daemon_tool())
    assert tool is not None and set(tool) == {"name", "description", "inputSchema", "outputSchema", "annotations",
                                              "_meta"}
    # what changes from call to call (breaker) or concerns the daemon only (roles) is not offered
    assert tool["_meta"] == {"hermesd/version": "1.0.0", "hermesd/confirm": False}
    for version in VERSIONS:
        check(version, "Tool", tool)
    assert P.mcp_tool(_daemon_tool(health="unhealthy")) is None
    assert "--allow-confirm-tools" in P.mcp_tool(_daemon_tool(confirm=True))["description"]


def test_cursors_round_trip_and_go_stale():
    digest = P.fingerprint([P.TURN_TOOL])
    assert P.decode_cursor(P.encode_cursor(5, digest), digest) == 5
    with pytest.raises(P.McpError, match="changed since this cursor"):
        P.decode_cursor(P.encode_cursor(5, digest), "0" * 16)
    for junk in ("", "!!", "bm90IGpzb24", P.encode_cursor(-1, digest)):
        with pytest.raises(P.McpError, match="Invalid cursor") as info:
            P.decode_cursor(junk, digest)
        assert info.value.code == P.INVALID_PARAMS


def test_sentences():
    assert P.sentence_of("no tool named 'x'") == "No tool named 'x'."
    assert P.sentence_of("磁盘检查超时了。") == "磁盘检查超时了。"
