"""The everyday-talk and memory-erasure stories, played on their own against a real daemon on the
shipped defaults (the full run in test_story_play.py plays them too, among all the others): quick to
run when the out-of-scope rejection or the memory grammar changes."""

from pathlib import Path

from hermesd.client import AsyncClient
from hermesd.stories import load_paths
from hermesd.stories.report import text_report
from hermesd.stories.runner import run_stories

from hermesd_testing import REPO

STORIES = Path(__file__).resolve().parent
NAMES = {
    "everyday wants are out of scope, not a send (zh)",
    "everyday wants are out of scope, not a send (en)",
    "where did I park with nothing remembered says it does not know, not the send history (en)",
    "a place is remembered and said back as a whole sentence (zh)",
    "a note in the first person is said back in the second person (en)",
    "a user erases their own send history, told exactly what goes, facts kept (zh)",
    "forget everything is confirmed first (admin)",
}
CONFIG = {"session": {"confirming_s": 5.0, "max_sessions_per_user": 10_000}}


async def test_the_everyday_and_erasure_stories_pass(start_daemon):
    daemon = start_daemon(CONFIG)
    stories = [s for s in load_paths([STORIES]) if s.name in NAMES]
    assert {s.name for s in stories} == NAMES

    async def connect() -> AsyncClient:
        return await AsyncClient(daemon.socket, timeout_s=30).connect()

    run = await run_stories(stories, connect, jobs=2, restart=None, max_wait_s=30, packs_dir=REPO / "config")
    report = text_report(run, verbose=True)
    print(report)
    assert run.count("skip") == 0
    assert run.ok, "\n".join(line for line in report.splitlines() if not line.startswith("PASS"))
