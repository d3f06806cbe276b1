"""Model Context Protocol messages for ``hermesctl mcp``: versions, results, tools, errors (pure).

Sources, in ``../shared/specs/mcp/`` (upstream modelcontextprotocol/modelcontextprotocol,
``schema/<version>/schema.json`` and the spec pages beside them):

- 2025-06-18 and 2025-11-25, the *legacy* era: an ``initialize`` handshake picks the version
  (``basic/lifecycle.mdx`` "Version Negotiation": the same version when the server supports
  it, else the latest it supports), then ``ping``, ``tools/list`` (``nextCursor``
  pagination), ``tools/call`` and ``notifications/tools/list_changed``.
- 2026-07-28, the *modern* era (``changelog.mdx``, ``basic/versioning.mdx``): no handshake;
  every request carries ``_meta["io.modelcontextprotocol/protocolVersion"]`` and
  ``["io.modelcontextprotocol/clientCapabilities"]``; an unsupported version is
  ``UnsupportedProtocolVersionError`` (-32022, ``data: {supported, requested}``);
  ``server/discover`` is mandatory; every result has ``resultType`` and may name the server in
  ``_meta["io.modelcontextprotocol/serverInfo"]``; ``tools/list`` is a ``CacheableResult``
  (``ttlMs``, ``cacheScope``); ``ping`` is gone; list changes reach only a
  ``subscriptions/listen`` stream, tagged ``io.modelcontextprotocol/subscriptionId``.
- ``server/tools.mdx`` (both eras), "Error Handling": an unknown tool is a protocol error
  (-32602); a failure of the tool, input validation included, is a result with
  ``isError: true`` the model can read and correct.

Everything here takes and returns plain values (no sockets, no clock). hermesd's own
fields go under ``_meta`` with the ``hermesd/`` prefix (``MetaObject`` key rules).
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from .. import __version__

__all__ = [
    "HANDSHAKE_VERSIONS", "LATEST_HANDSHAKE", "MODERN_VERSIONS", "SUPPORTED_VERSIONS", "TURN_TOOL",
    "McpError", "call_error", "call_ok", "capabilities", "decode_cursor", "discover_result", "encode_cursor",
    "fingerprint", "initialize_result", "mcp_tool", "modern", "negotiate", "server_info",
]

#: protocol versions with an ``initialize`` handshake, oldest first
HANDSHAKE_VERSIONS = ("2025-06-18", "2025-11-25")
#: protocol versions where each request carries its version in ``_meta``
MODERN_VERSIONS = ("2026-07-28",)
LATEST_HANDSHAKE = HANDSHAKE_VERSIONS[-1]
#: newest first, as ``server/discover`` and -32022 list them
SUPPORTED_VERSIONS = (*reversed(MODERN_VERSIONS), *reversed(HANDSHAKE_VERSIONS))

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"

# JSON-RPC 2.0 codes, and the MCP ones (2026-07-28 reserves -32020..-32099)
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
UNSUPPORTED_PROTOCOL_VERSION = -32022

TURN_NAME = "hermesd_turn"

INSTRUCTIONS = (
    "hermesd runs sandboxed tools on this device and a deterministic conversational engine (rules, no LLM) "
    "that speaks Chinese and English. Call hermesd_turn with what the person said to get hermesd's reply; pass "
    "the session_id it returns to continue the same conversation. Call the other tools directly for structured "
    "results. When a reply asks for a confirmation, ask the person: hermesctl mcp does not confirm for them.")


class McpError(Exception):
    """A JSON-RPC error to send back: ``code`` (JSON-RPC or MCP), one-sentence ``message``, ``data``."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data

    def to_wire(self) -> dict[str, Any]:
        err: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


# ---- versions ---------------------------------------------------------------------------------


def negotiate(requested: Any) -> str:
    """The version an ``initialize`` answers with: the one asked for when it is a handshake version
    this server speaks, else the latest one it speaks (2025-11-25 ``basic/lifecycle.mdx``).

    A modern version asked for in ``initialize`` also gets the latest handshake version: the
    2026-07-28 era has no handshake (``basic/versioning.mdx``, dual-era servers).
    """
    return requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE


def modern(params: Any) -> bool:
    """Whether a request uses the 2026-07-28 envelope: ``params._meta`` names a protocol version.

    The ``io.modelcontextprotocol/`` prefix is reserved, so a legacy request never carries it
    (its ``_meta`` may hold a ``progressToken``).
    """
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and META_VERSION in meta


def check_envelope(params: Any) -> str:
    """Validate a modern request's envelope; return its protocol version.

    :raises McpError: -32602 when ``_meta`` lacks the required keys, -32022 when the version is
        not one this server speaks (2026-07-28 ``UnsupportedProtocolVersionError``).
    """
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict):
        raise McpError(INVALID_PARAMS, f"params._meta must carry {META_VERSION} and {META_CAPABILITIES}")
    missing = [k for k in (META_VERSION, META_CAPABILITIES) if k not in meta]
    if missing:
        raise McpError(INVALID_PARAMS, f"params._meta is missing {', '.join(missing)}")
    version = meta[META_VERSION]
    if not isinstance(version, str) or not isinstance(meta[META_CAPABILITIES], dict):
        raise McpError(INVALID_PARAMS, f"{META_VERSION} must be a string and {META_CAPABILITIES} an object")
    if version not in MODERN_VERSIONS:
        raise McpError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                       {"supported": list(SUPPORTED_VERSIONS), "requested": version})
    return version


# ---- results ----------------------------------------------------------------------------------


def server_info(version: str) -> dict[str, Any]:
    """``Implementation`` for ``serverInfo`` (``description`` exists from 2025-11-25 on)."""
    info: dict[str, Any] = {"name": "hermesd", "title": "hermesd", "version": __version__}
    if version != "2025-06-18":
        info["description"] = "Sandboxed device tools and a deterministic Chinese/English conversational engine"
    return info


def capabilities() -> dict[str, Any]:
    """What this server offers: tools, with list-changed notifications."""
    return {"tools": {"listChanged": True}}


def initialize_result(version: str) -> dict[str, Any]:
    """The ``InitializeResult`` for a negotiated handshake version."""
    return {"protocolVersion": version, "capabilities": capabilities(), "serverInfo": server_info(version),
            "instructions": INSTRUCTIONS}


def discover_result(ttl_ms: int) -> dict[str, Any]:
    """The 2026-07-28 ``DiscoverResult`` (``server/discover.mdx``); the same for every caller."""
    return complete({"supportedVersions": list(SUPPORTED_VERSIONS), "capabilities": capabilities(),
                     "instructions": INSTRUCTIONS, "ttlMs": ttl_ms, "cacheScope": "public"})


def complete(result: dict[str, Any]) -> dict[str, Any]:
    """A 2026-07-28 result: ``resultType: complete`` and the server named in ``_meta``."""
    meta = {**result.get("_meta", {}), META_SERVER_INFO: server_info(MODERN_VERSIONS[-1])}
    return {**result, "resultType": "complete", "_meta": meta}


# ---- tools ------------------------------------------------------------------------------------

_CONFIRM_NOTE = (" It changes something and needs a person's confirmation: hermesctl mcp refuses it unless "
                 "an admin started it with --allow-confirm-tools.")

TURN_TOOL: dict[str, Any] = {
    "name": TURN_NAME,
    "title": "Talk to hermesd",
    "description": (
        "Hand one turn of a conversation to hermesd's deterministic engine (Chinese or English) and get its "
        "reply. Without session_id a new session is opened (locale: a BCP 47 tag such as zh-CN or en-US, "
        "used only then); pass the returned session_id to continue. The reply may carry a card: a question "
        "with choices to answer in the next turn. hermesctl mcp does not answer yes/no confirmations for a "
        "person; unless an admin started it with --allow-confirm-tools it declines them, so nothing runs."),
    "inputSchema": {
        "type": "object",
        "properties": {
            "text": {"type": "string", "minLength": 1, "maxLength": 4096,
                     "description": "What the person said, e.g. 磁盘还剩多少 or 'how much disk is left'"},
            "session_id": {"type": "string", "pattern": "^[0-9A-Za-z]{8,64}$",
                           "description": "Continue this session (from an earlier hermesd_turn)"},
            "locale": {"type": "string", "maxLength": 64,
                       "description": "BCP 47 tag for a new session: zh-CN, zh-TW, en-US …"},
        },
        "required": ["text"],
        "additionalProperties": False,
    },
    "outputSchema": {
        "type": "object",
        "properties": {
            "session_id": {"type": "string"},
            "reply": {"type": "string", "description": "What hermesd says"},
            "card": {"type": ["object", "null"], "description": "A question waiting for an answer, with choices"},
            "state": {"type": "string", "description": "The session's state after the turn"},
            "trace_id": {"type": "string", "description": "For hermesctl trace SESSION_ID"},
            "intent": {"type": ["string", "null"]},
            "offer": {"type": ["string", "null"],
                      "description": "Unfinished work the new session offers (the reply says it after its answer)"},
            "declined": {"type": "boolean", "description": "A confirmation card was declined by hermesctl mcp"},
        },
        "required": ["session_id", "reply", "card", "state", "trace_id"],
    },
    # a turn may run tools a rule chose, including ones that change something
    "annotations": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False,
                    "openWorldHint": True},
}


def mcp_tool(daemon_tool: dict[str, Any]) -> dict[str, Any] | None:
    """A daemon ``tools.list`` entry as an MCP ``Tool``, or None when it is not to be offered
    (unhealthy: it failed its self-test, or its descriptor did not load; a tool still ``starting``
    is offered, since a call to it waits for its self-test)."""
    meta = daemon_tool.get("_meta") or {}
    if meta.get("hermesd/health") not in ("healthy", "starting") or not isinstance(daemon_tool.get("name"), str):
        return None
    confirm = bool(meta.get("hermesd/confirm"))
    tool: dict[str, Any] = {"name": daemon_tool["name"],
                            "description": (daemon_tool.get("description") or "") + (_CONFIRM_NOTE if confirm else ""),
                            "inputSchema": daemon_tool.get("inputSchema") or {"type": "object"}}
    if isinstance(daemon_tool.get("outputSchema"), dict):
        tool["outputSchema"] = daemon_tool["outputSchema"]
    if isinstance(daemon_tool.get("annotations"), dict):
        tool["annotations"] = daemon_tool["annotations"]
    tool["_meta"] = {k: meta[k] for k in ("hermesd/version", "hermesd/description_zh", "hermesd/confirm")
                     if meta.get(k) is not None}
    return tool


def fingerprint(tools: list[dict[str, Any]]) -> str:
    """A digest of a tool list: equal lists, equal digests (list-changed detection and cursors)."""
    return hashlib.sha256(json.dumps(tools, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def encode_cursor(offset: int, digest: str) -> str:
    """An opaque ``nextCursor``: where the next page starts, in which version of the list."""
    return base64.urlsafe_b64encode(json.dumps([offset, digest]).encode()).decode().rstrip("=")


def decode_cursor(cursor: Any, digest: str) -> int:
    """The offset a cursor points at.

    :raises McpError: -32602 for a cursor this server did not make, or one made for a tool list
        that has changed since (the client lists again from the start).
    """
    try:
        raw = base64.urlsafe_b64decode(str(cursor) + "=" * (-len(str(cursor)) % 4))
        offset, made_for = json.loads(raw)
        if not isinstance(offset, int) or offset < 0 or not isinstance(made_for, str):
            raise ValueError(cursor)
    except (ValueError, TypeError):
        raise McpError(INVALID_PARAMS, "Invalid cursor: list the tools again without one") from None
    if made_for != digest:
        raise McpError(INVALID_PARAMS, "The tool list changed since this cursor: list the tools again without one")
    return offset


def call_ok(structured: dict[str, Any], text: str | None = None) -> dict[str, Any]:
    """A successful ``CallToolResult``: ``structuredContent`` and a text block (its JSON unless given)."""
    body = text if text is not None else json.dumps(structured, ensure_ascii=False)
    return {"content": [{"type": "text", "text": body}], "structuredContent": structured, "isError": False}


def call_error(code: str, sentence: str, **meta: Any) -> dict[str, Any]:
    """A failed ``CallToolResult``: the sentence for the model, the stable code (and ``retryable``,
    ``retry_after_ms``, ``violations`` …) in ``_meta`` under ``hermesd/``."""
    fields = {"hermesd/code": code, **{f"hermesd/{k}": v for k, v in meta.items() if v is not None}}
    return {"content": [{"type": "text", "text": sentence_of(sentence)}], "isError": True, "_meta": fields}


def sentence_of(text: str) -> str:
    """``text`` as a sentence: capitalised, with a full stop."""
    text = " ".join(str(text).split()) or "The call failed."
    text = text[:1].upper() + text[1:]
    return text if text[-1] in ".!?。！？" else text + "."
