"""kill -9 while send_document copies a large file (issue 12, §3): never a partial document under its
own name in the outbox, the send recorded as interrupted (not as sent), and after the restart one plain
sentence and an offer to run it again."""

from __future__ import annotations

import json
import os
import signal
import time

AT = "2024-06-12T10:00:00+08:00"
SIZE = 90 * 2**20  # under send_document's max_file_bytes (100 MB)


def test_kill_9_during_a_large_send(start_daemon, short_dir):
    root = short_dir / "crash-send"
    root.mkdir()
    d = start_daemon({}, root=root)
    docs = d.state_dir / "documents"
    docs.mkdir(parents=True, exist_ok=True)
    with open(docs / "报价单Q-2024-099.pdf", "wb") as fh:
        block = os.urandom(2**20)
        for _ in range(SIZE // 2**20):
            fh.write(block)
    outbox = d.state_dir / "outbox"
    with d.client() as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        r = c.call("session.turn", {"session_id": sid, "text": "把报价单发给李经理", "reference_time": AT})
        assert r["state"] == "CONFIRMING", r["reply"]
    raw = d.raw()
    raw.request("session.turn", {"session_id": sid, "text": "好的", "reference_time": AT})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(outbox.rglob(".*.part")):
        time.sleep(0.005)
    assert list(outbox.rglob(".*.part")), "the copy never started"
    d.proc.send_signal(signal.SIGKILL)
    d.proc.wait(10)
    time.sleep(1.0)  # a worker that outlived the daemon finishes or dies; either way nothing is torn
    for f in outbox.rglob("*.pdf"):
        assert f.stat().st_size == SIZE, f"a partial document under its own name: {f} ({f.stat().st_size} bytes)"
    manifest = outbox / "manifest.jsonl"
    lines = manifest.read_text(encoding="utf-8").splitlines() if manifest.exists() else []
    assert all(json.loads(line)["bytes"] == SIZE for line in lines)
    d2 = start_daemon({}, root=root)
    with d2.client() as c:
        r = c.call("session.turn", {"session_id": sid, "text": "现在怎么样了", "reference_time": AT})
        text = r["reply"]["text"]
        assert "中断" in text and text.count("\n") == 0 and r["state"] == "CONFIRMING", text
        assert r["actions"] == []
        interrupted = c.call("memory.search", {"action": "interrupted:send_document"})["items"]
        sent = c.call("memory.search", {"action": "send_document"})["items"]
        assert len(interrupted) == 1 and sent == [], (interrupted, sent)
        r = c.call("session.turn", {"session_id": sid, "text": "好的", "reference_time": AT})
        assert [a["tool"] for a in r["actions"] if a.get("tool")] == ["send_document"], r
        assert "已把" in r["reply"]["text"], r["actions"]
