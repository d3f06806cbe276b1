"""The gate every tool call the model proposes passes before anything runs (pure).

The same gates as a rule's tool step (DESIGN.md, "the optional LLM"): the name is on the
caller's allow-list (the tools offered to this turn), the role may call it, its breaker is
not open, and the arguments pass the tool's input schema (:class:`hermesd.tools.schema.
Validator`, the validator ``tools.call`` uses). A refused call never runs; the refusal is
a tool message the model reads in the next round (:func:`refusal_content`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import orjson

from ..tools.schema import Validator
from .wire import ToolCall, tool_function

__all__ = ["Accepted", "Offered", "Refused", "check_call", "refusal_content", "tools_for_model"]


@dataclass(frozen=True, slots=True)
class Offered:
    """A tool offered to the model this turn.

    :param parameters: its input JSON Schema (as ``tools.list`` shows it).
    :param validator: the compiled input schema. :param roles: roles that may call it.
    :param confirm: ``confirm: true`` in its descriptor: a card before it runs.
    :param breaker_open: its circuit breaker refuses calls now.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    validator: Validator
    roles: frozenset[str]
    confirm: bool = False
    breaker_open: bool = False


@dataclass(frozen=True, slots=True)
class Accepted:
    """A call that may run: ``arguments`` with the schema's defaults filled in."""

    call: ToolCall
    arguments: dict[str, Any]
    confirm: bool


@dataclass(frozen=True, slots=True)
class Refused:
    """A call that does not run: ``code`` is a stable error code, ``reason`` a sentence for the model."""

    call: ToolCall
    code: str
    reason: str


def tools_for_model(offered: Mapping[str, Offered]) -> list[dict[str, Any]]:
    """The ``tools`` list of a chat request, in name order (the same request for the same tools)."""
    return [tool_function(o.name, o.description, o.parameters) for o in sorted(offered.values(), key=lambda o: o.name)]


def check_call(call: ToolCall, offered: Mapping[str, Offered], known: Mapping[str, frozenset[str]],
               role: str) -> Accepted | Refused:
    """Accept or refuse one proposed call.

    :param offered: the caller's allow-list this turn, by name.
    :param known: every registered tool → the roles that may call it (to tell "no such tool"
        from "not for you", which the trace shows).
    :param role: the caller's role.
    :return: :class:`Accepted`, or :class:`Refused` with ``TOOL_NOT_FOUND``, ``PERMISSION_DENIED``,
        ``TOOL_UNAVAILABLE`` or ``INPUT_INVALID`` (the codes of ``tools.call``).
    """
    tool = offered.get(call.name)
    if tool is None:
        if call.name in known:
            return Refused(call, "PERMISSION_DENIED", f"The tool {call.name} may not be used for this caller.")
        return Refused(call, "TOOL_NOT_FOUND", f"There is no tool named {call.name}; use only the tools offered.")
    if role not in tool.roles:
        return Refused(call, "PERMISSION_DENIED", f"The tool {call.name} may not be used for this caller.")
    if tool.breaker_open:
        return Refused(call, "TOOL_UNAVAILABLE", f"The tool {call.name} is failing and not available now.")
    if call.arguments is None:
        return Refused(call, "INPUT_INVALID", f"The arguments of {call.name} are not a JSON object.")
    value, violations = tool.validator.validate(call.arguments)
    if violations:
        said = "; ".join(f"{v['pointer'] or '/'}: {v['message']}" for v in violations[:5])
        return Refused(call, "INPUT_INVALID", f"Invalid arguments for {call.name}: {said}.")
    return Accepted(call, value, tool.confirm)


def refusal_content(refused: Refused) -> str:
    """The tool message that tells the model its call was refused (JSON, as tool results are)."""
    return orjson.dumps({"error": {"code": refused.code, "message": refused.reason}}).decode()
