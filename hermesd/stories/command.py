"""``hermesctl test PATH…``: load the stories, play them against the daemon, print the report; returns the exit status.

0 every story passed, 1 a story failed or a story file is wrong (every problem
printed as ``file:line: …``), 69 no daemon answers. :mod:`hermesd.cli` parses the
arguments and exits.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the story machinery is imported only when `hermesctl test` runs
    from .runner import RunResult

__all__ = ["add_arguments", "run_command"]

EX_OK, EX_FAILED, EX_UNAVAILABLE = 0, 1, 69


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``test`` subcommand's options."""
    p.add_argument("paths", nargs="+", help="story files or folders (*.yaml)")
    p.add_argument("--json", dest="test_json", action="store_true", help="print the results as JSON")
    p.add_argument("--jobs", type=int, default=3,
                   help="stories played at once (default 3; each holds up to two sessions, and the daemon closes "
                        "a user's oldest session past session.max_sessions_per_user, 8 by default)")
    p.add_argument("--packs", type=Path,
                   help="config folder the daemon runs with (intents/, rules/), for the coverage of loaded "
                        "intents and rules")
    p.add_argument("--documents", type=Path, help="the daemon's documents folder (default: <state_dir>/documents)")
    p.add_argument("--restart-cmd", help="shell command that restarts the daemon (for stories with restart: true)")
    p.add_argument("--max-wait", type=float, default=15.0,
                   help="longest wait for a session's timeout (wait: timeout), seconds (default 15); a story "
                        "whose card takes longer to time out is skipped, saying so")
    p.add_argument("-k", "--match", help="play only stories whose name contains this text")
    p.add_argument("-v", "--verbose", action="store_true", help="every mismatch of a failed story, with its reply")


async def _play(args: argparse.Namespace, stories: list[Any]) -> "RunResult":
    from ..client import AsyncClient
    from .runner import run_stories

    async def connect() -> AsyncClient:
        return await AsyncClient(args.socket, timeout_s=args.timeout).connect()

    restart = None
    if args.restart_cmd:
        async def restart() -> None:
            proc = await asyncio.create_subprocess_shell(args.restart_cmd)
            if await proc.wait() != 0:
                raise RuntimeError(f"--restart-cmd exited {proc.returncode}")

    return await run_stories(stories, connect, jobs=args.jobs, restart=restart, max_wait_s=args.max_wait,
                             documents_dir=args.documents, packs_dir=args.packs)


def run_command(args: argparse.Namespace) -> int:
    """Run ``hermesctl test`` with parsed ``args`` (``socket``, ``timeout``, ``json`` from the global options)."""
    from ..client import DaemonNotRunning
    from .loader import StoryError, load_paths
    from .report import text_report, to_json

    as_json = args.json or args.test_json
    try:
        stories = load_paths(args.paths)
    except StoryError as exc:
        print(f"hermesctl test: {len(exc.problems)} problem(s) in the story files:", file=sys.stderr)
        for p in exc.problems:
            print(f"  {p}", file=sys.stderr)
        return EX_FAILED
    if args.match:
        stories = [s for s in stories if args.match.casefold() in s.name.casefold()]
    if not stories:
        print("hermesctl test: no stories to play", file=sys.stderr)
        return EX_FAILED
    try:
        run = asyncio.run(_play(args, stories))
    except DaemonNotRunning as exc:
        print(f"hermesctl: {exc}", file=sys.stderr)
        return EX_UNAVAILABLE
    if as_json:
        import orjson

        sys.stdout.write(orjson.dumps(to_json(run), option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        print(text_report(run, verbose=args.verbose))
    return EX_OK if run.ok else EX_FAILED
