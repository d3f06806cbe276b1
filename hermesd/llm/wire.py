"""The two chat APIs on the wire (pure): request bodies out, replies in.

Messages inside hermesd are API-neutral dicts, JSON-ready (a card that waits for a yes
keeps them in the session row)::

    {"role": "system" | "user", "content": str}
    {"role": "assistant", "content": str, "calls": [{"id", "name", "arguments", "raw"}, ...]}
    {"role": "tool", "content": str, "call_id": str, "name": str}

:func:`request` turns them into one API's body; :func:`parse_reply` reads that API's answer.

- ``openai``: ``POST /v1/chat/completions`` (OpenAI API reference, "Create chat completion"):
  ``tools: [{"type": "function", "function": {name, description, parameters}}]``; the answer's
  ``choices[0].message`` has ``content`` and ``tool_calls: [{id, type, function: {name,
  arguments}}]`` where ``arguments`` is a *string* of JSON (the model may write invalid JSON);
  a tool result goes back as ``{"role": "tool", "tool_call_id", "content"}``; ``usage`` has
  ``prompt_tokens`` and ``completion_tokens``.
- ``ollama``: ``POST /api/chat`` with ``stream: false`` (Ollama API docs, "Generate a chat
  completion", "Chat request (with tools)"): the same ``tools`` shape; the answer's ``message``
  has ``content`` and ``tool_calls: [{function: {name, arguments}}]`` where ``arguments`` is an
  *object*; a tool result goes back as ``{"role": "tool", "content", "tool_name"}``; the counts
  are ``prompt_eval_count`` and ``eval_count``; the reply budget is ``options.num_predict``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Sequence

import orjson

__all__ = ["API_PATHS", "ChatReply", "ToolCall", "WireError", "parse_reply", "request", "tool_function"]

Api = Literal["openai", "ollama"]

#: the path of the chat call of each API, after the endpoint's own prefix
API_PATHS: dict[str, str] = {"openai": "/v1/chat/completions", "ollama": "/api/chat"}


class WireError(ValueError):
    """The server's answer is not a reply of its API (not JSON, no message, a wrong type)."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call the model proposed.

    :param id: the server's call id (OpenAI), or ``call_<n>`` numbered here (Ollama gives none).
    :param arguments: the arguments as an object, or None when what the model wrote is not a
        JSON object. :param raw: the arguments as the model wrote them (for the refusal).
    """

    id: str
    name: str
    arguments: dict[str, Any] | None
    raw: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments, "raw": self.raw}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ToolCall":
        return cls(str(d["id"]), str(d["name"]), d.get("arguments"), str(d.get("raw", "")))


@dataclass(frozen=True, slots=True)
class ChatReply:
    """What one model call answered: ``text`` (may be empty), proposed ``calls``, token counts
    (0 when the server did not say) and ``finish`` (``stop``, ``tool_calls``, ``length`` …)."""

    text: str
    calls: tuple[ToolCall, ...]
    tokens_in: int
    tokens_out: int
    finish: str = ""


def tool_function(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    """One tool in the ``tools`` list both APIs take (a JSON Schema ``parameters`` object)."""
    return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}


def request(api: Api, *, model: str, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None,
            max_tokens: int, temperature: float = 0.0) -> tuple[str, bytes]:
    """``(path, JSON body)`` of one non-streaming chat call.

    :param tools: from :func:`tool_function`; empty or None offers none (the last, plain round).
    :raises ValueError: an unknown API or message role.
    """
    if api == "openai":
        body: dict[str, Any] = {"model": model, "messages": [_openai_message(m) for m in messages],
                                "max_tokens": max_tokens, "temperature": temperature, "stream": False}
    elif api == "ollama":
        body = {"model": model, "messages": [_ollama_message(m) for m in messages], "stream": False,
                "options": {"num_predict": max_tokens, "temperature": temperature}}
    else:
        raise ValueError(f"unknown chat API {api!r}")
    if tools:
        body["tools"] = list(tools)
    return API_PATHS[api], orjson.dumps(body)


def _openai_message(m: dict[str, Any]) -> dict[str, Any]:
    role = m["role"]
    if role in ("system", "user"):
        return {"role": role, "content": m["content"]}
    if role == "assistant":
        out: dict[str, Any] = {"role": "assistant", "content": m.get("content") or None}
        if m.get("calls"):
            out["tool_calls"] = [{"id": c["id"], "type": "function",
                                  "function": {"name": c["name"], "arguments": c.get("raw") or orjson.dumps(
                                      c.get("arguments") or {}).decode()}} for c in m["calls"]]
        return out
    if role == "tool":
        return {"role": "tool", "tool_call_id": m["call_id"], "content": m["content"]}
    raise ValueError(f"unknown message role {role!r}")


def _ollama_message(m: dict[str, Any]) -> dict[str, Any]:
    role = m["role"]
    if role in ("system", "user"):
        return {"role": role, "content": m["content"]}
    if role == "assistant":
        out: dict[str, Any] = {"role": "assistant", "content": m.get("content") or ""}
        if m.get("calls"):
            out["tool_calls"] = [{"function": {"name": c["name"], "arguments": c.get("arguments") or {}}}
                                 for c in m["calls"]]
        return out
    if role == "tool":
        return {"role": "tool", "content": m["content"], "tool_name": m["name"]}
    raise ValueError(f"unknown message role {role!r}")


def parse_reply(api: Api, body: bytes) -> ChatReply:
    """The reply in ``body`` (a non-streaming answer of ``api``).

    An OpenAI call whose ``arguments`` string is not a JSON object is kept with
    ``arguments=None`` (the validator refuses it and tells the model), never dropped.

    :raises WireError: not JSON, not an object, no message, or fields of the wrong type.
    """
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise WireError(f"the answer is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise WireError("the answer is not a JSON object")
    if isinstance(data.get("error"), (dict, str)):
        err = data["error"]
        raise WireError(f"the server answered an error: {err.get('message') if isinstance(err, dict) else err}")
    if api == "openai":
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise WireError("no choices in the answer")
        msg, finish = choices[0].get("message"), str(choices[0].get("finish_reason") or "")
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        t_in, t_out = usage.get("prompt_tokens"), usage.get("completion_tokens")
    elif api == "ollama":
        msg, finish = data.get("message"), str(data.get("done_reason") or "")
        t_in, t_out = data.get("prompt_eval_count"), data.get("eval_count")
    else:
        raise WireError(f"unknown chat API {api!r}")
    if not isinstance(msg, dict):
        raise WireError("no message in the answer")
    text = msg.get("content")
    if text is not None and not isinstance(text, str):
        raise WireError("message.content is not a string")
    raw_calls = msg.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise WireError("message.tool_calls is not a list")
    calls = tuple(_call(api, c, i) for i, c in enumerate(raw_calls))
    return ChatReply((text or "").strip(), calls, _count(t_in), _count(t_out), finish)


def _call(api: str, c: Any, i: int) -> ToolCall:
    fn = c.get("function") if isinstance(c, dict) else None
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
        raise WireError(f"tool call {i} has no function name")
    args = fn.get("arguments")
    call_id = c.get("id") if isinstance(c.get("id"), str) and c.get("id") else f"call_{i}"
    if isinstance(args, str):  # OpenAI: a string of JSON, as the model wrote it
        try:
            parsed = orjson.loads(args) if args.strip() else {}
        except orjson.JSONDecodeError:
            parsed = None
        return ToolCall(call_id, fn["name"], parsed if isinstance(parsed, dict) else None, args)
    if isinstance(args, dict) or args is None:  # Ollama: an object
        return ToolCall(call_id, fn["name"], dict(args or {}), orjson.dumps(args or {}).decode())
    return ToolCall(call_id, fn["name"], None, orjson.dumps(args).decode())


def _count(v: Any) -> int:
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 else 0
