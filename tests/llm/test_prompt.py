"""The Memory Control Protocol's prompt, table-tested in-process (hermesd.memory.prompt)."""

from __future__ import annotations

import pytest

from hermesd.memory.prompt import PromptInputs, build_prompt, estimate_tokens

BASE = dict(utterance="把报价单发给张工", lang="zh", now="2026-12-01T10:00:00+08:00", budget_tokens=2000)


@pytest.mark.parametrize("text, tokens", [("", 0), ("abcd", 1), ("abcde", 2), ("张工", 2), ("张工 ok", 3)])
def test_estimate_tokens(text, tokens):
    assert estimate_tokens(text) == tokens


def test_unresolved_mentions_are_kept_marked():
    p = build_prompt(PromptInputs(**BASE, unresolved=("张工",)))
    assert p.messages[-1] == {"role": "user", "content": "把报价单发给【张工】"}
    assert "【张工】" in p.messages[0]["content"]


def test_everything_fits_in_a_large_budget_in_a_fixed_order():
    p = build_prompt(PromptInputs(**BASE, profile=(("车位", "B12"),),
                                  tool_results=({"tool": "order_status", "output": {"status": "shipped", "id": "SO1"}},),
                                  memories=("上周三把报价单发给了张伟",), history=(("第二句", "回答二"), ("第一句", "回答一"))))
    system = p.messages[0]["content"]
    assert system.index("车位: B12") < system.index("order_status") < system.index("上周三")
    assert '{"id":"SO1","status":"shipped"}' in system  # keys sorted: the same bytes every time
    assert [m["content"] for m in p.messages[1:]] == ["第一句", "回答一", "第二句", "回答二", "把报价单发给张工"]
    assert p.dropped == {} and p.kept == {"profile": 1, "tools": 1, "memory": 1, "history": 2}
    assert p.tokens <= BASE["budget_tokens"]


def test_trimming_drops_the_lowest_priority_first_and_is_deterministic():
    inputs = PromptInputs(**{**BASE, "budget_tokens": 260}, profile=(("车位", "B12"),),
                          tool_results=({"tool": "t", "output": {"k": "v" * 50}},),
                          memories=tuple(f"记忆{i}" * 10 for i in range(3)),
                          history=tuple((f"问{i}" * 20, f"答{i}" * 20) for i in range(4)))
    p = build_prompt(inputs)
    assert p.tokens <= 260
    assert p.dropped.get("history") == 4  # every old turn goes before any memory
    assert p.kept["profile"] == 1
    assert build_prompt(inputs).messages == p.messages


def test_the_request_alone_over_budget_is_cut_from_its_end():
    p = build_prompt(PromptInputs(**{**BASE, "utterance": "长" * 400, "budget_tokens": 200}))
    assert p.cut_request and p.tokens <= 200
    assert p.messages[-1]["content"].startswith("长") and p.messages[-1]["content"].endswith("…")


def test_english_instructions_for_an_english_turn():
    p = build_prompt(PromptInputs(**{**BASE, "lang": "en", "utterance": "hello"}))
    assert "English" in p.messages[0]["content"]
