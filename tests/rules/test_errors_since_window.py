"""device.errors_since searches the window the person said and says which: a period said
(昨天下午, yesterday) ends where it ends, an open one (从周一起) runs to now — "昨天下午以来" used to
search from yesterday noon until now and call it since."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hermesd.rules.loader import load_rules
from hermesd.session.executor import Executor

RULES = load_rules(Path(__file__).resolve().parents[2] / "config" / "rules")
ENTRY = {"time_us": 1_781_311_512_000_000, "unit": "nginx.service", "priority": 3, "message": "upstream timed out"}
CLOSED = {"kind": "range", "start": "2026-06-12T12:00:00+08:00", "end": "2026-06-12T18:00:00+08:00",
          "grain": "part_of_day", "point": "2026-06-12T12:00:00+08:00", "span": [0, 4]}
OPEN = {"kind": "range", "start": "2026-06-08", "end": None, "grain": "day", "point": "2026-06-08", "span": [1, 3]}


def _rule(rule_id: str) -> Any:
    return next(r for _, pack in RULES.packs for r in pack.rules if r.rule_id == rule_id)


async def _ask(rule_id: str, when: dict[str, Any], text: str, lang: str, entries: list) -> tuple[dict, list[str]]:
    seen: dict[str, Any] = {}

    async def call(name: str, params: dict[str, Any]) -> dict[str, Any]:
        seen.update(params)
        return {"ok": True, "output": {"entries": entries, "truncated": False}}

    ctx = {"role": "admin", "slots": {}, "entities": {"when": {**when, "text": text}, "service": "nginx"},
           "memory": {}, "session": {"tz": "Asia/Shanghai", "now": "2026-06-13T15:30:00+08:00", "locale": lang}}
    result = await Executor(call, lambda name: (False, True), lang).run(tuple(_rule(rule_id).actions), ctx)
    return seen, result.texts


@pytest.mark.parametrize("rule_id", ["device.errors_since.admin", "device.errors_since.admin.unit"])
async def test_a_period_said_is_searched_to_its_end(rule_id):
    params, texts = await _ask(rule_id, CLOSED, "昨天下午", "zh", [])
    assert params["since"] == CLOSED["start"] and params["until"] == CLOSED["end"]
    assert "昨天下午没有错误日志" in texts[-1] and "以来" not in texts[-1] and "起" not in texts[-1], texts
    params, texts = await _ask(rule_id, CLOSED, "yesterday afternoon", "en", [ENTRY])
    assert "1 error" in texts[-1] and "yesterday afternoon:" in texts[-1] and "since" not in texts[-1], texts


@pytest.mark.parametrize("rule_id", ["device.errors_since.admin", "device.errors_since.admin.unit"])
async def test_an_open_window_runs_to_now_and_says_since(rule_id):
    params, texts = await _ask(rule_id, OPEN, "周一", "zh", [])
    assert params["since"] == "2026-06-08" and params["until"] == "now"
    assert "以来没有错误日志" in texts[-1] or "起没有错误日志" in texts[-1], texts
    params, texts = await _ask(rule_id, OPEN, "Monday", "en", [])
    assert "since Monday" in texts[-1], texts
