"""Story setup ``clear_reminders``: the user's pending reminders cancelled through ``tools.call``
before the story, on a scripted client and on a real daemon."""

from __future__ import annotations

from typing import Any

import pytest

from hermesd.client import AsyncClient
from hermesd.errors import MethodNotFound, PermissionDenied
from hermesd.stories import load_text
from hermesd.stories.runner import SetupFailed, clear_reminders, run_stories


class ScriptedClient:
    """Answers ``tools.call`` of the reminder tool from a list of pending reminders; records the calls."""

    def __init__(self, pending: list[str], gone: frozenset[str] = frozenset(), fail: str | None = None) -> None:
        self.pending, self.gone, self.fail = list(pending), gone, fail
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        self.calls.append((method, params or {}))
        if method != "tools.call":  # the run also asks what the daemon has (admin.packs, tools.list)
            raise MethodNotFound(method)
        if self.fail:
            raise PermissionDenied(self.fail)
        args = params["arguments"]
        assert params["name"] == "reminder"
        if args["action"] == "list":
            out = {"reminders": [{"id": i, "text": f"task {i}", "status": "pending"} for i in self.pending],
                   "count": len(self.pending)}
            return {"structuredContent": out, "isError": False}
        assert args["action"] == "cancel" and set(args) == {"action", "id"}
        if args["id"] in self.gone:  # went off between the list and the cancel
            return {"structuredContent": {"error": {"code": "NOT_FOUND", "message": "no pending reminder"}},
                    "isError": True}
        if args["id"] == "r-bad":
            return {"structuredContent": {"error": {"code": "TOOL_TIMEOUT", "message": "slow"}}, "isError": True}
        self.pending.remove(args["id"])
        return {"structuredContent": {"reminders": [{"id": args["id"], "status": "cancelled"}], "count": 1},
                "isError": False}

    async def close(self) -> None:
        return None


async def test_every_pending_reminder_is_listed_then_cancelled_by_id():
    c = ScriptedClient(["r1", "r4", "r7"])
    assert await clear_reminders(c) == 3
    assert c.pending == []
    assert [p["arguments"] for m, p in c.calls if m == "tools.call"] == [
        {"action": "list"}, {"action": "cancel", "id": "r1"}, {"action": "cancel", "id": "r4"},
        {"action": "cancel", "id": "r7"}]


async def test_nothing_pending_cancels_nothing():
    c = ScriptedClient([])
    assert await clear_reminders(c) == 0 and len(c.calls) == 1  # the list only


async def test_a_reminder_gone_since_the_list_is_not_a_failure():
    c = ScriptedClient(["r1", "r2"], gone=frozenset({"r1"}))
    assert await clear_reminders(c) == 1 and c.pending == ["r1"]


async def test_a_tool_that_cannot_be_called_fails_the_setup_saying_why():
    with pytest.raises(SetupFailed, match="tools.call reminder list: PERMISSION_DENIED"):
        await clear_reminders(ScriptedClient(["r1"], fail="not for you"))
    with pytest.raises(SetupFailed, match="cancel r-bad: TOOL_TIMEOUT: slow"):
        await clear_reminders(ScriptedClient(["r-bad"]))


async def test_a_story_whose_setup_fails_fails_with_the_reason_and_plays_no_turn():
    (story,) = load_text("- name: list\n  setup: {clear_reminders: true}\n  turns: [{user: 我有哪些提醒}]\n")
    c = ScriptedClient(["r1"], fail="not for you")

    async def connect() -> Any:
        return c

    run = await run_stories([story], connect)
    (res,) = run.stories
    assert res.status == "fail" and res.turns == []
    assert res.first_problem.startswith("setup: clear_reminders: tools.call reminder list: PERMISSION_DENIED")


async def test_on_a_real_daemon_the_list_is_empty_afterwards(start_daemon):
    d = start_daemon()
    client = await AsyncClient(d.socket, timeout_s=30).connect()
    try:
        for text, due in (("water the plants", "2030-06-20T08:00:00+08:00"), ("call the bank", "2030-06-21")):
            res = await client.call("tools.call", {"name": "reminder", "arguments": {
                "action": "create", "text": text, "due": due, "tz": "Asia/Shanghai"}})
            assert not res["isError"], res
        assert await clear_reminders(client) == 2
        listed = await client.call("tools.call", {"name": "reminder", "arguments": {"action": "list"}})
        assert listed["structuredContent"]["count"] == 0
        assert await clear_reminders(client) == 0
    finally:
        await client.close()
