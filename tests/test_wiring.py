"""The daemon wires its subsystems: all healthy once the tools' self-tests end, reachable over the socket, linked together."""

from __future__ import annotations


def test_every_subsystem_is_healthy_once_tools_settle(daemon):
    st = daemon.wait_settled()
    assert set(st["subsystems"]) >= {"server", "memory", "nlu", "tools"}
    assert {name: s["status"] for name, s in st["subsystems"].items()} == dict.fromkeys(st["subsystems"], "ok")


def test_directory_names_become_person_entities(daemon):
    r = daemon.call("nlu.parse", {"text": "把合同发给张伟", "reference_time": "2024-06-19T10:00:00+08:00"})
    people = [e for e in r["entities"] if e["type"] == "person"]
    assert people and people[0]["text"] == "张伟" and people[0]["value"] == "person:sales/zhang"


def test_a_tool_and_memory_through_the_socket(daemon):
    with daemon.client() as c:
        res = c.call("tools.call", {"name": "disk_usage", "arguments": {"path": "/"}})
        assert res["isError"] is False and res["structuredContent"]["total_mb"] > 0
        c.call("memory.put", {"session_id": "s1", "anchor": "person:sales/zhang", "data": {"phone": "1"}})
        got = c.call("memory.get", {"session_id": "s1", "anchor": "person:sales/zhang"})
        assert got["found"] and got["slot"]["data"] == {"phone": "1"}
        metrics = c.call("admin.metrics")["text"]
    # subsystems append their own series to the daemon's
    assert 'hermes_requests_total{method="tools.call",outcome="ok"} 1' in metrics
    assert "hermes_nlu_parses_total" in metrics and "hermes_memory_l1_hit_ratio" in metrics


def test_raw_tools_call_of_a_confirm_tool_needs_confirmed(daemon):
    import pytest

    from hermesd import errors

    with daemon.client() as c:
        with pytest.raises(errors.InputInvalid) as ei:
            c.call("tools.call", {"name": "send_document", "arguments": {"document": "x.pdf", "recipient": "李娜"}})
        assert ei.value.data["needs_confirmation"] is True
        res = c.call("tools.call", {"name": "send_document", "confirmed": True,
                                    "arguments": {"document": "x.pdf", "recipient": "李娜"}})
        assert res["isError"] and res["structuredContent"]["error"]["code"] == "DOCUMENT_NOT_FOUND"
