"""Every shipped story, played against a real daemon on the shipped defaults (issue 11, §6).

The daemon gets a short ``session.confirming_s`` (the timeout stories wait for it) and a per-user
session cap that concurrent stories cannot reach; otherwise it is the shipped config, intents, rules,
directory and tools. Stories that restart the daemon get a hook that stops it and starts it again on
the same state folder. Also: ``hermesctl test`` itself (exit statuses, report lines, JSON).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

from hermesd.client import AsyncClient
from hermesd.stories import load_paths
from hermesd.stories.report import text_report
from hermesd.stories.runner import run_stories

from hermesd_testing import REPO, hermesctl

STORIES = Path(__file__).resolve().parent
# routing_ms: stories check what is said, never how fast; 8 stories at once on a busy 2-core machine can
# take a turn past the shipped 200 ms ROUTING budget, whose fallback is tested in session/test_state_budgets.py
CONFIG = {"session": {"confirming_s": 2.0, "max_sessions_per_user": 10_000, "routing_ms": 10_000}}
JOBS = 8


async def test_every_story_passes(start_daemon):
    daemon = [start_daemon(CONFIG)]

    async def connect() -> AsyncClient:
        return await AsyncClient(daemon[0].socket, timeout_s=30).connect()

    async def restart() -> None:
        old = daemon[0]
        await asyncio.to_thread(old.stop)
        daemon[0] = await asyncio.to_thread(start_daemon, CONFIG, root=old.root)

    run = await run_stories(load_paths([STORIES]), connect, jobs=JOBS, restart=restart, max_wait_s=30,
                            packs_dir=REPO / "config")
    report = text_report(run, verbose=True)
    print(report)
    assert run.count("skip") == 0
    assert run.ok, "\n".join(line for line in report.splitlines() if not line.startswith("PASS"))


def _ctl(*args: str, socket: Path | None = None) -> subprocess.CompletedProcess[str]:
    return hermesctl(socket, *args, timeout_s=120)


PASSING_AND_FAILING = """\
- name: the disk is checked
  locale: en
  turns:
    - user: how much disk space is left
      intent: device.disk_space
      tools: [disk_usage]
- name: a story that expects the wrong tool
  locale: en
  turns:
    - user: how much disk space is left
      tools: [network_check]
"""


def test_hermesctl_test_prints_a_line_per_story_the_summary_and_coverage(start_daemon, tmp_path):
    d = start_daemon()
    (tmp_path / "two.yaml").write_text(PASSING_AND_FAILING, encoding="utf-8")
    res = _ctl("test", str(tmp_path), "--packs", str(REPO / "config"), socket=d.socket)
    assert res.returncode == 1, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == f"PASS  {tmp_path / 'two.yaml'}:1  the disk is checked"
    assert lines[1] == (f"FAIL  {tmp_path / 'two.yaml'}:7  a story that expects the wrong tool — turn 1 "
                        "«how much disk space is left» (line 10): tools: expected ['network_check'], got ['disk_usage']")
    assert lines[2] == "1 passed, 1 failed"
    assert "coverage" in lines
    assert any(line.startswith("  intents     1/") for line in lines)
    # the daemon says what it loaded (admin.packs); --packs is the fallback for one that cannot
    assert any(line.startswith("  rules       1/") and "(from admin.packs)" in line for line in lines)
    assert any(line.startswith("      never: ") and "device.reboot" in line for line in lines)

    res = _ctl("test", str(tmp_path / "two.yaml"), "-k", "disk is", "--json", socket=d.socket)
    assert res.returncode == 0, res.stdout + res.stderr
    out = json.loads(res.stdout)
    assert (out["passed"], out["failed"]) == (1, 0)
    assert out["stories"][0]["turns"][0]["tools"] == ["disk_usage"]
    assert out["coverage"]["tools"]["hit"] == ["disk_usage"]
    assert out["coverage"]["transitions"]["known"] and out["coverage"]["intents"]["source"]


def test_hermesctl_test_reports_bad_files_before_connecting(tmp_path):
    (tmp_path / "bad.yaml").write_text("- name: x\n  turns:\n    - usr: hi\n", encoding="utf-8")
    res = _ctl("test", str(tmp_path / "bad.yaml"), socket=tmp_path / "nobody-here.sock")
    assert res.returncode == 1
    assert f"{tmp_path / 'bad.yaml'}:3: unknown turn key 'usr'; did you mean 'user'?" in res.stderr
    (tmp_path / "bad.yaml").write_text("- name: x\n  turns:\n    - user: hi\n", encoding="utf-8")
    res = _ctl("test", str(tmp_path / "bad.yaml"), socket=tmp_path / "nobody-here.sock")
    assert res.returncode == 69 and "hermesd is not running" in res.stderr


def test_story_documents_are_written_once_with_one_modification_time(tmp_path):
    from hermesd.stories.runner import DOCUMENTS_MTIME_S, write_documents

    folder = tmp_path / "documents"
    write_documents(folder, {"报价单Q-2024-061.pdf": "quote", "orders.jsonl": '{"order_id": "A-1"}\n'})
    write_documents(folder, {"报价单Q-2024-061.pdf": "quote"})  # again: nothing changes
    assert (folder / "报价单Q-2024-061.pdf").read_text() == "quote"
    assert {p.stat().st_mtime for p in folder.iterdir()} == {DOCUMENTS_MTIME_S}
    assert oct((folder / "orders.jsonl").stat().st_mode & 0o777) == "0o644"
    assert sorted(p.name for p in folder.iterdir()) == ["orders.jsonl", "报价单Q-2024-061.pdf"]
