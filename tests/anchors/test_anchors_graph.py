"""Anchor resolution: session cache, alias, directory tool, fuzzy, ambiguity, creation, passthrough, merge."""

from __future__ import annotations

import asyncio

from anchor_helpers import DIRECTORY, Clock

from hermesd.anchors.directory import Directory, Person
from hermesd.anchors.graph import AnchorGraph
from hermesd.memory import records


async def test_zhang_gong_is_ambiguous_then_narrowed_by_context(graph: AnchorGraph) -> None:
    r = await graph.resolve("张工", session_id="s1")
    assert r.status == "ambiguous" and r.text == "【张工】"
    assert [c["anchor_id"] for c in r.candidates] == ["person:rd/zhang", "person:sales/zhang"]
    r = await graph.resolve("张工", session_id="s1", context={"dept": "销售部"})
    assert (r.status, r.anchor_id, r.text) == ("resolved", "person:sales/zhang", "张伟")
    r = await graph.resolve("张工程师", session_id="s2", context={"dept": "rd"})
    assert r.anchor_id == "person:rd/zhang"


async def test_session_choice_is_cached_per_session_with_ttl(graph: AnchorGraph, clock: Clock) -> None:
    graph.bind("s1", "张工", "person:sales/zhang")  # the user answered the clarification
    r = await graph.resolve("张工", session_id="s1")
    assert (r.status, r.anchor_id, r.via) == ("resolved", "person:sales/zhang", "session")
    assert (await graph.resolve("张工", session_id="s2")).status == "ambiguous"  # other sessions unaffected
    graph.bind("s3", "李经理", "person:sales/li")
    clock.t += 7200.0
    assert (await graph.resolve("张工", session_id="s1")).status == "ambiguous"  # binding expired
    assert graph.prune_mentions() == 1 and graph._sessions == {}  # s3's binding; s1's went at lookup


async def test_unknown_mention_passes_through_marked(graph: AnchorGraph) -> None:
    r = await graph.resolve("赵工", session_id="s1")
    assert (r.status, r.anchor_id, r.text) == ("unresolved", None, "【赵工】")


async def test_fuzzy_within_type(graph: AnchorGraph) -> None:
    r = await graph.resolve("Jon Smith")
    assert (r.status, r.anchor_id, r.via) == ("resolved", "person:ops/smith", "fuzzy")
    r = await graph.resolve("李总")  # only one 李 in the directory, other title
    assert (r.anchor_id, r.via) == ("person:sales/li", "fuzzy")
    r = await graph.resolve("张总")
    assert r.status == "ambiguous" and len(r.candidates) == 2
    assert (await graph.resolve("张工", type="document")).status == "unresolved"


async def test_first_mention_with_context_creates_then_maps(graph: AnchorGraph, l2) -> None:
    r = await graph.resolve("赵工", session_id="s1", context={"dept": "qa", "email": "zhao.lei@example.com"})
    assert (r.status, r.anchor_id, r.via) == ("resolved", "person:qa/zhao.lei", "created")
    r2 = await graph.resolve("赵工", session_id="s2")
    assert (r2.anchor_id, r2.via) == ("person:qa/zhao.lei", "alias")
    r3 = await graph.resolve("zhao.lei@example.com")
    assert r3.anchor_id == "person:qa/zhao.lei"
    # persisted: a fresh graph over the same file knows it
    g2 = AnchorGraph(l2, Directory.load(DIRECTORY))
    await g2.load()
    assert (await g2.resolve("赵工")).anchor_id == "person:qa/zhao.lei"


async def test_directory_tool_is_called_with_a_deadline(graph: AnchorGraph) -> None:
    async def slow(mention: str) -> list[Person]:
        await asyncio.sleep(5)
        return []

    async def tool(mention: str) -> list[Person]:
        if mention == "钱经理":
            return [Person("person:hr/qian", "钱敏", "经理", "hr", "人事部", "qian.min@example.com", "", ())]
        return []

    graph.lookup, graph.lookup_deadline_s = slow, 0.05
    assert (await graph.resolve("钱经理")).status == "unresolved"  # late answer → passthrough, no error
    graph.lookup = tool
    r = await graph.resolve("钱经理")
    assert (r.anchor_id, r.via) == ("person:hr/qian", "directory")
    graph.lookup = None
    assert (await graph.resolve("钱经理")).via == "alias"  # learnt


async def test_merge_keeps_history(graph: AnchorGraph, l2) -> None:
    dup = (await graph.resolve("小伟", context={"dept": "sales", "email": "zw@example.com"})).anchor_id
    assert dup == "person:sales/zw"
    ev = {"uid": 1, "session_id": "s", "actor": "u", "action": "send", "object": "Q-1", "object_kind": "报价单",
          "target_anchor": dup, "at_ms": 1, "text": "send", "created_ms": 1}
    row = {"uid": 1, "session_id": "s", "anchor": dup, "version": 1, "data": {"wechat": "zw"}, "created_ms": 1,
           "updated_ms": 1}
    await l2.awrite(records.insert_event, ev)
    await l2.awrite(records.upsert_summary, row)
    await l2.awrite(records.upsert_summary, {**row, "anchor": "person:sales/zhang", "data": {"phone": "139"},
                                             "version": 2})
    counts = await graph.merge(dup, "person:sales/zhang")
    assert counts == {"summaries": 1, "events": 1}
    merged = await l2.aread(records.get_summary, 1, "s", "person:sales/zhang")
    assert merged["data"] == {"wechat": "zw", "phone": "139"}
    events = await l2.aread(lambda c: records.search_events(
        c, uid=1, tokens=[], anchors=["person:sales/zhang"], action=None, kind=None, since_ms=None, until_ms=None,
        limit=10))
    assert [e["object"] for e in events] == ["Q-1"]
    assert graph.get(dup).anchor_id == "person:sales/zhang"
    assert (await graph.resolve("zw@example.com")).anchor_id == "person:sales/zhang"
