"""The clock, calendar and everyday-reminder stories (tests/stories/clock.yaml), played on their own
against a real daemon on the shipped defaults (test_story_play.py plays them too, among all the
others): quick to run when the clock intents, the time NLU or the date filters change."""

from pathlib import Path

from hermesd.client import AsyncClient
from hermesd.stories import load_paths
from hermesd.stories.report import text_report
from hermesd.stories.runner import run_stories

from hermesd_testing import REPO

STORIES = Path(__file__).resolve().parent
FILES = [STORIES / "clock.yaml", STORIES / "everyday_reminders.yaml"]
CONFIG = {"session": {"confirming_s": 5.0, "max_sessions_per_user": 10_000}}


async def test_the_clock_stories_pass(start_daemon):
    daemon = start_daemon(CONFIG)
    stories = load_paths(FILES)
    assert len(stories) >= 8

    async def connect() -> AsyncClient:
        return await AsyncClient(daemon.socket, timeout_s=30).connect()

    run = await run_stories(stories, connect, jobs=2, restart=None, max_wait_s=30, packs_dir=REPO / "config")
    report = text_report(run, verbose=True)
    print(report)
    assert run.count("skip") == 0
    assert run.ok, "\n".join(line for line in report.splitlines() if not line.startswith("PASS"))
