"""The Memory Control Protocol's prompt for the optional LLM executor (pure, deterministic).

The same inputs give the same messages, byte for byte: nothing here asks a model what to keep.
What goes in, highest priority first:

1. the instructions, the reply language and the moment (never trimmed);
2. the user's request, with the mentions the anchors could not resolve kept as ``【…】``
   (never dropped; cut from its end only when it alone passes the budget);
3. the caller's profile fields their role may see (already filtered by the caller with
   :func:`hermesd.memory.hiding.hide`);
4. the last tool results of the session, newest first;
5. memories retrieved for the request (L2, ranked best first);
6. the session's last turns, newest first (sent oldest first, as a conversation).

Trimming is by rule: while the estimate passes ``budget_tokens``, the lowest-priority section
loses its last item (the oldest turn, the least-ranked memory, the oldest tool result, the
last profile field). Token counts are estimates (:func:`estimate_tokens`), no tokenizer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import orjson

from .. import lazyre

__all__ = ["Prompt", "PromptInputs", "build_prompt", "estimate_tokens"]

_CJK = lazyre.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
#: per-message framing tokens (role and separators), as OpenAI's cookbook counts for chat formats
MESSAGE_OVERHEAD_TOKENS = 4
#: a tool result or memory line longer than this (characters) is cut: context, not a document
ITEM_MAX_CHARS = 400

_INSTRUCTIONS = {
    "zh": ("你是这台设备上的助手（hermesd）。只用简体中文回答，简短、用完整的句子，不输出代码或 JSON。"
           "需要时只使用提供的工具；标注需要确认的工具会先请用户确认。"
           "用【】括起来的名字没有在通讯录中找到，不要猜测是谁。不知道的事就说不知道，不要编造。"),
    "en": ("You are the assistant on this device (hermesd). Answer in English only, briefly, in plain "
           "sentences, never code or JSON. Use only the tools offered, and only when needed; a tool that "
           "needs confirmation is confirmed by the user first. Names in 【】 were not found in the "
           "directory: do not guess who they are. Say you do not know rather than invent anything."),
}
_HEADINGS = {
    "zh": {"now": "现在", "profile": "关于用户", "tools": "最近的工具结果", "memory": "记忆中的相关内容",
           "unresolved": "未识别的名字"},
    "en": {"now": "Now", "profile": "About the user", "tools": "Recent tool results", "memory": "From memory",
           "unresolved": "Names not recognised"},
}


def estimate_tokens(text: str) -> int:
    """Tokens ``text`` likely costs: one per CJK character, one per 4 other characters (rounded up).

    The 4-characters rule is OpenAI's rule of thumb for English with its BPE vocabularies; a CJK
    character is about one token in the vocabularies of the small local models (Qwen, Llama 3),
    often less — so the estimate errs on the long side, and a prompt within budget stays within.
    """
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)


@dataclass(frozen=True, slots=True)
class PromptInputs:
    """What the session hands the prompt builder.

    :param utterance: the user's request as said. :param lang: ``zh`` or ``en``, the reply language.
    :param now: the turn's moment (ISO 8601 with offset), in the session's zone.
    :param unresolved: mentions the anchors left unresolved, as said (``张工``); shown as ``【张工】``.
    :param profile: ``(field, value)`` the caller's role may see.
    :param tool_results: ``{"tool", "output"}`` of the session's last tool calls, newest first.
    :param memories: summaries retrieved for the request, best first.
    :param history: ``(user said, hermesd replied)`` of the session's last turns, newest first.
    :param budget_tokens: the prompt's budget (estimated tokens).
    """

    utterance: str
    lang: str
    now: str
    budget_tokens: int
    unresolved: tuple[str, ...] = ()
    profile: tuple[tuple[str, str], ...] = ()
    tool_results: tuple[dict[str, Any], ...] = ()
    memories: tuple[str, ...] = ()
    history: tuple[tuple[str, str], ...] = ()


@dataclass(slots=True)
class Prompt:
    """The messages (API-neutral, see :mod:`hermesd.llm.wire`), their estimated ``tokens``, and per
    section how many items were ``kept`` and ``dropped`` to fit (for the trace)."""

    messages: list[dict[str, Any]]
    tokens: int
    kept: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    cut_request: bool = False


def _cut(text: str, n: int = ITEM_MAX_CHARS) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _marked(utterance: str, unresolved: Sequence[str]) -> str:
    """The request with each unresolved mention marked 【…】 where it first stands unmarked."""
    out = utterance
    for m in unresolved:
        if not m or f"【{m}】" in out:
            continue
        i = out.find(m)
        if i >= 0:
            out = out[:i] + f"【{m}】" + out[i + len(m):]
    return out


def _render(p: PromptInputs, lang: str, profile: Sequence[tuple[str, str]], tools: Sequence[dict[str, Any]],
            memories: Sequence[str], history: Sequence[tuple[str, str]], request: str) -> list[dict[str, Any]]:
    h = _HEADINGS[lang]
    lines = [_INSTRUCTIONS[lang], f"{h['now']}: {p.now}"]
    if profile:
        lines.append(f"{h['profile']}:")
        lines += [f"- {k}: {_cut(v)}" for k, v in profile]
    if tools:
        lines.append(f"{h['tools']}:")
        lines += [f"- {t.get('tool')}: {_cut(orjson.dumps(t.get('output'), option=orjson.OPT_SORT_KEYS).decode())}"
                  for t in tools]
    if memories:
        lines.append(f"{h['memory']}:")
        lines += [f"- {_cut(m)}" for m in memories]
    if p.unresolved:
        lines.append(f"{h['unresolved']}: " + "、".join(f"【{m}】" for m in p.unresolved))
    messages: list[dict[str, Any]] = [{"role": "system", "content": "\n".join(lines)}]
    for said, replied in reversed(history):  # oldest first, as the conversation went
        messages.append({"role": "user", "content": _cut(said)})
        messages.append({"role": "assistant", "content": _cut(replied)})
    messages.append({"role": "user", "content": request})
    return messages


def _tokens(messages: Sequence[dict[str, Any]]) -> int:
    return sum(estimate_tokens(m["content"]) + MESSAGE_OVERHEAD_TOKENS for m in messages)


def build_prompt(p: PromptInputs) -> Prompt:
    """The prompt for ``p``, trimmed by rule to ``p.budget_tokens`` (see the module doc)."""
    lang = p.lang if p.lang in _INSTRUCTIONS else "en"
    sections: dict[str, list[Any]] = {"profile": list(p.profile), "tools": list(p.tool_results),
                                      "memory": list(p.memories), "history": list(p.history)}
    total = {k: len(v) for k, v in sections.items()}
    request = _marked(p.utterance, p.unresolved)
    order = ("history", "memory", "tools", "profile")  # dropped first → last
    while True:
        messages = _render(p, lang, sections["profile"], sections["tools"], sections["memory"], sections["history"],
                           request)
        tokens = _tokens(messages)
        if tokens <= p.budget_tokens:
            break
        victim = next((k for k in order if sections[k]), None)
        if victim is None:
            break
        sections[victim].pop()
    cut = False
    if tokens > p.budget_tokens:  # the instructions and the request alone pass it: cut the request's end
        over = tokens - p.budget_tokens
        while over > 0 and request:
            keep = max(0, len(request) - max(1, over))
            request = request[:keep]
            messages[-1] = {"role": "user", "content": request + "…"}
            tokens = _tokens(messages)
            over = tokens - p.budget_tokens
        cut = True
    return Prompt(messages, tokens, {k: len(v) for k, v in sections.items()},
                  {k: total[k] - len(v) for k, v in sections.items() if total[k] - len(v)}, cut)
