"""The Model Context Protocol server behind ``hermesctl mcp`` (named ``modelcontext``: in this
project "MCP" is the Memory Control Protocol, :mod:`hermesd.memory.mcp`).

- :mod:`.protocol`: versions, results, tool shapes and errors of MCP 2025-06-18, 2025-11-25
  and 2026-07-28 (pure; the schemas and spec pages are in ``../shared/specs/mcp/``).
- :mod:`.server`: the stdio shell: reads JSON-RPC lines, talks to the daemon's socket as the
  invoking user (the peer-credential role applies), polls ``tools.list`` for list changes.
"""

__all__ = ["protocol", "server"]
