"""The model's rounds of one turn (an engine: the model and the tools are injected coroutines).

A round is one model call. While fewer than ``max_tool_rounds`` rounds have proposed calls,
the model is offered the caller's tools; each call it proposes passes
:func:`~hermesd.llm.calls.check_call` and then runs through ``run_tool`` (the tools
subsystem: breaker, sandbox), or is refused — either way the model reads the outcome as a
tool message in the next round. After the last tool round the model is asked once more with
no tools offered: its text is the reply (calls it still proposes are ignored).

A call to a ``confirm: true`` tool stops the rounds at a card (``kind="confirm"``): the state
(:meth:`Rounds.state`) is kept with the card, and :func:`resume` runs the accepted call and goes on.
The model failing (timeout, breaker open, HTTP error, unreadable answer: :class:`ModelUnavailable`)
ends the rounds ``kind="degraded"``, keeping what tools already ran.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Mapping

import orjson

from .calls import Accepted, Offered, Refused, check_call, refusal_content, tools_for_model
from .wire import ChatReply, ToolCall

__all__ = ["Chat", "ModelUnavailable", "Rounds", "RunTool", "resume", "run_rounds"]

#: ``await chat(messages, tools or None) -> ChatReply``; raises :class:`ModelUnavailable`
Chat = Callable[[list[dict[str, Any]], "list[dict[str, Any]] | None"], Awaitable[ChatReply]]
#: ``await run_tool(name, arguments) -> {"ok": True, "output"} | {"ok": False, "error": {code, message}}``
RunTool = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]

#: the tool message of a call proposed after one that waits for the user's yes
_NOT_RUN = orjson.dumps({"error": {"code": "NOT_RUN", "message": "Not run: the user is asked to confirm an "
                                                                 "earlier call first."}}).decode()


class ModelUnavailable(Exception):
    """The model gave no usable answer; ``reason`` is ``timeout``, ``breaker_open``, ``connect``,
    ``http_<status>`` or ``bad_reply``."""

    def __init__(self, reason: str, message: str = "") -> None:
        super().__init__(message or reason)
        self.reason = reason


@dataclass(slots=True)
class Rounds:
    """Where the rounds of a turn ended.

    :param kind: ``reply`` (``text`` is the model's, maybe empty), ``confirm`` (``pending`` waits
        for a yes) or ``degraded`` (``reason`` says why).
    :param rounds: model calls made; :param tool_rounds: rounds whose calls were acted on.
    :param calls: the trace of each proposed call (``round``, ``tool``, ``outcome``, ``code``).
    :param tool_results: ``(tool, arguments, output)`` of calls that ran and answered ok.
    """

    kind: str
    messages: list[dict[str, Any]]
    text: str = ""
    reason: str = ""
    rounds: int = 0
    tool_rounds: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    calls: list[dict[str, Any]] = field(default_factory=list)
    tool_results: list[tuple[str, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    pending: Accepted | None = None

    def state(self) -> dict[str, Any]:
        """JSON-ready state of a ``confirm`` stop, for :func:`resume`."""
        assert self.pending is not None
        # no key named *token*: the session row is stored redacted, and such a key would be taken for a secret
        return {"messages": self.messages, "rounds": self.rounds, "tool_rounds": self.tool_rounds,
                "usage_in": self.tokens_in, "usage_out": self.tokens_out,
                "call": self.pending.call.to_dict(), "arguments": self.pending.arguments}


async def run_rounds(chat: Chat, run_tool: RunTool, messages: list[dict[str, Any]], offered: Mapping[str, Offered],
                     known: Mapping[str, frozenset[str]], role: str, max_tool_rounds: int) -> Rounds:
    """The rounds of a turn that starts with ``messages`` (the prompt)."""
    return await _loop(chat, run_tool, Rounds("reply", list(messages)), offered, known, role, max_tool_rounds)


async def resume(chat: Chat, run_tool: RunTool, state: Mapping[str, Any], offered: Mapping[str, Offered],
                 known: Mapping[str, frozenset[str]], role: str, max_tool_rounds: int) -> Rounds:
    """The user said yes to the card of ``state`` (:meth:`Rounds.state`): the call runs — checked
    again, the allow-list or breaker may have changed — and the rounds go on."""
    r = Rounds("reply", list(state["messages"]), rounds=_int(state.get("rounds")),
               tool_rounds=_int(state.get("tool_rounds")), tokens_in=_int(state.get("usage_in")),
               tokens_out=_int(state.get("usage_out")))
    call = ToolCall.from_dict(state["call"])
    verdict = check_call(ToolCall(call.id, call.name, dict(state["arguments"]), call.raw), offered, known, role)
    await _act(r, run_tool, verdict, r.tool_rounds, confirmed=True)
    return await _loop(chat, run_tool, r, offered, known, role, max_tool_rounds)


async def _loop(chat: Chat, run_tool: RunTool, r: Rounds, offered: Mapping[str, Offered],
                known: Mapping[str, frozenset[str]], role: str, max_tool_rounds: int) -> Rounds:
    tools = tools_for_model(offered)
    while True:
        offer = tools if tools and r.tool_rounds < max_tool_rounds else None
        try:
            reply = await chat(r.messages, offer)
        except ModelUnavailable as exc:
            r.kind, r.reason = "degraded", exc.reason
            return r
        r.rounds += 1
        r.tokens_in += reply.tokens_in
        r.tokens_out += reply.tokens_out
        if not reply.calls or offer is None:
            r.kind, r.text = "reply", reply.text
            if reply.calls:  # proposed with no tools offered: nothing runs
                r.calls += [{"round": r.rounds, "tool": c.name, "outcome": "ignored"} for c in reply.calls]
            return r
        r.tool_rounds += 1
        r.messages.append({"role": "assistant", "content": reply.text, "calls": [c.to_dict() for c in reply.calls]})
        for i, call in enumerate(reply.calls):
            verdict = check_call(call, offered, known, role)
            if isinstance(verdict, Accepted) and verdict.confirm:
                for later in reply.calls[i + 1:]:
                    r.messages.append({"role": "tool", "content": _NOT_RUN, "call_id": later.id, "name": later.name})
                    r.calls.append({"round": r.rounds, "tool": later.name, "outcome": "not_run"})
                r.calls.append({"round": r.rounds, "tool": call.name, "outcome": "confirm"})
                r.kind, r.pending = "confirm", verdict
                return r
            await _act(r, run_tool, verdict, r.rounds)


async def _act(r: Rounds, run_tool: RunTool, verdict: Accepted | Refused, round_no: int, *,
               confirmed: bool = False) -> None:
    """Run an accepted call (or note a refusal) and add its tool message."""
    call = verdict.call
    if isinstance(verdict, Refused):
        r.messages.append({"role": "tool", "content": refusal_content(verdict), "call_id": call.id, "name": call.name})
        r.calls.append({"round": round_no, "tool": call.name, "outcome": "refused", "code": verdict.code,
                        "arguments": call.arguments if call.arguments is not None else call.raw[:200]})
        return
    res = await run_tool(call.name, verdict.arguments)
    entry: dict[str, Any] = {"round": round_no, "tool": call.name, "outcome": "ok" if res.get("ok") else "error",
                             "duration_ms": res.get("duration_ms"), "arguments": verdict.arguments}
    if confirmed:
        entry["confirmed"] = True
    if res.get("ok"):
        output = res.get("output") or {}
        r.tool_results.append((call.name, verdict.arguments, output))
        content = orjson.dumps(output, option=orjson.OPT_SORT_KEYS).decode()
    else:
        err = res.get("error") or {}
        entry["code"] = str(err.get("code") or "TOOL_ERROR")
        content = orjson.dumps({"error": {"code": entry["code"], "message": str(err.get("message") or "")}}).decode()
    r.calls.append(entry)
    r.messages.append({"role": "tool", "content": content, "call_id": call.id, "name": call.name})


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0
