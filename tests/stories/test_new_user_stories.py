"""The new-user stories (new_user.yaml: cancel all, a position in a list, an impossible clock time,
facts said plainly, 月底前, two recipients, "是不是发错了"), played on their own against a real daemon
on the shipped defaults — the full run in test_story_play.py plays them too, among all the others."""

from pathlib import Path

from hermesd.client import AsyncClient
from hermesd.stories import load_paths
from hermesd.stories.report import text_report
from hermesd.stories.runner import run_stories

from hermesd_testing import REPO

STORIES = Path(__file__).resolve().parent / "new_user.yaml"
CONFIG = {"session": {"confirming_s": 5.0, "max_sessions_per_user": 10_000}}


async def test_the_new_user_stories_pass(start_daemon):
    daemon = start_daemon(CONFIG)
    stories = load_paths([STORIES])
    assert len(stories) >= 18

    async def connect() -> AsyncClient:
        return await AsyncClient(daemon.socket, timeout_s=30).connect()

    run = await run_stories(stories, connect, jobs=2, restart=None, max_wait_s=30, packs_dir=REPO / "config")
    report = text_report(run, verbose=True)
    print(report)
    assert run.count("skip") == 0
    assert run.ok, "\n".join(line for line in report.splitlines() if not line.startswith("PASS"))
