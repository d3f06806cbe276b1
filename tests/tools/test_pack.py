"""The default tool pack: healthy on this machine, and each tool does its job."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermesd.errors import HermesError
from hermesd.protocol import CallContext, Caller

from .conftest import PACK, start_service

PACK_NAMES = {"system_status", "disk_usage", "service_status", "journal_query", "network_check", "reminder",
              "note", "contacts", "send_document", "find_document", "export_report", "order_status", "service_restart"}


async def _noop(method, params):
    return None


def ctx(role):
    return CallContext(caller=Caller(uid=1000, gid=1000, pid=1, role=role), trace_id="0" * 16, notify=_noop)


async def test_pack_is_healthy_and_listed_in_mcp_shape(pack_service):
    methods = {m.name: m for m in pack_service.methods()}
    listed = await methods["tools.list"].handler({}, ctx("admin"))
    tools = {t["name"]: t for t in listed["tools"]}
    assert set(tools) == PACK_NAMES
    assert all(t["_meta"]["hermesd/health"] == "healthy" and t["_meta"]["hermesd/breaker"] == "closed"
               for t in tools.values()), tools
    assert tools["disk_usage"]["inputSchema"]["required"] == ["path"]
    restart = tools["service_restart"]
    assert restart["_meta"]["hermesd/confirm"] and restart["_meta"]["hermesd/roles"] == ["admin"]
    # MCP shape: hermesd's own fields only under _meta (issue 18 §1)
    assert set(restart) == {"name", "description", "inputSchema", "outputSchema", "annotations", "_meta"}
    assert restart["annotations"] == {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False,
                                      "openWorldHint": False}
    assert tools["disk_usage"]["annotations"] == {"readOnlyHint": True, "idempotentHint": True,
                                                  "openWorldHint": False}
    assert tools["network_check"]["annotations"]["openWorldHint"] is True
    assert tools["note"]["annotations"]["destructiveHint"] is False
    assert tools["export_report"]["annotations"]["readOnlyHint"] is False
    user_view = {t["name"] for t in (await methods["tools.list"].handler({}, ctx("user")))["tools"]}
    assert "service_restart" not in user_view and "journal_query" not in user_view
    assert pack_service.health()["status"] == "ok"


async def test_tools_call_method_shapes(pack_service):
    m = {m.name: m for m in pack_service.methods()}["tools.call"]
    res = await m.handler(m.params_model(name="disk_usage", arguments={"path": "/"}), ctx("user"))
    assert res["isError"] is False and res["structuredContent"]["path"] == "/"
    assert json.loads(res["content"][0]["text"]) == res["structuredContent"]
    res = await m.handler(m.params_model(name="disk_usage", arguments={"path": "/nope/x"}), ctx("user"))
    assert res["isError"] is True and res["structuredContent"]["error"]["code"] == "PATH_NOT_FOUND"
    assert res["_meta"]["hermesd/code"] == "PATH_NOT_FOUND" and "PATH_NOT_FOUND" not in res["content"][0]["text"]


async def test_reminder_round_trip_in_state_dir(pack_service, state_dir):
    c = pack_service.call
    r = await c("reminder", {"action": "create", "text": "call 张工", "due": "2026-12-01T09:00:00+08:00"},
                role="user")
    rid = r["output"]["reminders"][0]["id"]
    assert [x["id"] for x in (await c("reminder", {"action": "list"}, role="user"))["output"]["reminders"]] == [rid]
    # the daemon's own calls (no caller uid) have a folder beside users/, never above it: a worker
    # that may write its folder must not reach the callers' ones
    assert (state_dir / "tools" / "reminder" / "daemon" / "reminders.json").exists()
    await c("reminder", {"action": "cancel", "id": rid}, role="user")
    assert (await c("reminder", {"action": "list"}, role="user"))["output"]["reminders"] == []


async def test_note_and_self_test_left_no_trace(pack_service, state_dir):
    assert not (state_dir / "tools" / "note" / "notes.json").exists()  # self-tests used a scratch folder
    await pack_service.call("note", {"action": "remember", "key": "wifi", "text": "on the router"}, role="user")
    res = await pack_service.call("note", {"action": "recall", "query": "router"}, role="user")
    assert res["output"]["notes"][0]["key"] == "wifi"


async def test_send_document_copies_to_outbox(pack_service, state_dir):
    (state_dir / "documents" / "报价单.pdf").write_bytes(b"%PDF-1.4 quote")
    res = await pack_service.call("send_document", {"document": "报价单.pdf", "recipient": "张工"}, role="user")
    out = res["output"]
    assert out["bytes"] == 14
    assert (state_dir / "outbox" / out["message_id"] / "报价单.pdf").read_bytes() == b"%PDF-1.4 quote"
    line = json.loads((state_dir / "outbox" / "manifest.jsonl").read_text().splitlines()[-1])
    assert line["recipient"] == "张工" and line["sha256"] == out["sha256"]


async def test_find_document_matches_every_term_newest_first(pack_service, state_dir):
    docs = state_dir / "documents"
    (docs / "报价单Q-2024-061.pdf").write_bytes(b"q61")
    (docs / "报价单Q-2024-070.pdf").write_bytes(b"q70")
    (docs / "合同HT-2024-0012.pdf").write_bytes(b"ht")
    res = await pack_service.call("find_document", {"terms": ["报价单", "q-2024-061"]}, role="user")
    assert [m["document"] for m in res["output"]["matches"]] == ["报价单Q-2024-061.pdf"]
    res = await pack_service.call("find_document", {"terms": ["报价单"]}, role="user")
    assert res["output"]["count"] == 2
    res = await pack_service.call("find_document", {"terms": ["发票"]}, role="user")
    assert not res["ok"] and res["error"]["code"] == "NO_MATCH"


async def test_contacts_lookup(state_dir):
    svc = await start_service(PACK, state_dir, directory_file=state_dir / "directory.yaml")
    try:
        res = await svc.call("contacts", {"query": "张工"}, role="user")
        assert not res["ok"] and res["error"]["code"] == "DIRECTORY_MISSING"
        (state_dir / "directory.yaml").write_text(
            "people:\n"
            "  - {id: p1, name: 张伟, aliases: [Zhang Wei], title: 工程师}\n"
            "  - {id: p2, name: 李娜, title: 经理}\n",
            encoding="utf-8")
        for query, ids in (("张工", ["p1"]), ("李经理", ["p2"]), ("mr. zhang", ["p1"]), ("王工", [])):
            res = await svc.call("contacts", {"query": query}, role="user")
            assert [m["id"] for m in res["output"]["matches"]] == ids, query
    finally:
        await svc.stop()


async def test_contacts_reads_the_shipped_directory_by_default(pack_service):
    path = Path(pack_service.descriptor("contacts").folder).parents[1] / "config" / "directory.yaml"
    if not path.exists():
        pytest.skip("no shipped config/directory.yaml")
    res = await pack_service.call("contacts", {"query": "张工"}, role="user")
    assert res["output"]["exact"] >= 1 and all(m["name"].startswith("张") for m in res["output"]["matches"])


async def test_system_tools_answer(pack_service):
    res = await pack_service.call("system_status", {}, role="user")
    assert res["output"]["memory"]["total_mb"] > 0
    res = await pack_service.call("service_status", {"unit": "ssh.service"}, role="user")
    assert res["ok"] or res["error"]["code"] == "SYSTEMD_UNAVAILABLE"
    res = await pack_service.call("journal_query", {"limit": 3}, role="admin")
    assert res["ok"] or res["error"]["code"] == "JOURNAL_UNAVAILABLE"
    with pytest.raises(HermesError) as info:
        await pack_service.call("journal_query", {}, role="user")
    assert info.value.code == "PERMISSION_DENIED"


async def test_stateful_tools_keep_each_callers_data_apart(pack_service, state_dir):
    await pack_service.call("note", {"action": "remember", "key": "k", "text": "root secret"}, role="user", uid=0)
    mine = await pack_service.call("note", {"action": "recall", "query": "secret"}, role="user", uid=0)
    theirs = await pack_service.call("note", {"action": "recall", "query": "secret"}, role="user", uid=65534)
    assert [n["text"] for n in mine["output"]["notes"]] == ["root secret"]
    assert theirs["output"]["notes"] == []
    assert (state_dir / "tools" / "note" / "users" / "0").is_dir()
