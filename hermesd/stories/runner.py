"""Play stories against a live hermesd over its socket (the I/O shell around :mod:`.checks` and :mod:`.coverage`).

:func:`run_stories` plays independent stories concurrently on one pipelined
:class:`~hermesd.client.AsyncClient` (``jobs`` at a time), then the *exclusive*
ones (a ``wait`` or a ``restart`` turn) one by one on a connection of their own,
because a card left to time out parks unfinished work that the next session
opened by the same user is offered, and a restart cuts every connection.

Every story runs as the invoking user. Before anything is played, the documents
all stories name are written to the daemon's documents folder (``<state_dir>/documents``
from ``admin.status``, or the folder given), all with the same modification time so
the document tools list them by name. A session opened for a story that is offered
someone else's unfinished work (``offer``) declines it in a throwaway session and
opens a clean one, unless the turn expects the offer. Sessions a story opened are
closed when it ends. A story with ``setup: {clear_reminders: true}`` first cancels every
pending reminder of the user (:func:`clear_reminders`); it is exclusive, so no other story's
reminders appear in its lists.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterable

from ..client import AsyncClient
from ..errors import HermesError, MethodNotFound, SessionBusy
from .checks import check
from .coverage import Facts, Universe, default_universe, facts
from .model import DEFAULT_CLOCK, Story, Turn

__all__ = ["RunResult", "SetupFailed", "StoryResult", "TurnResult", "clear_reminders", "gather_universe",
           "run_stories", "write_documents"]

Connect = Callable[[], Awaitable[AsyncClient]]
Restart = Callable[[], Awaitable[None]]

_BUSY_RETRIES = 50
#: unfinished work left over (earlier runs, other sessions) declined before a story gets a clean session
_MAX_DECLINES = 20
_POLL_S = 0.2
_RECONNECT_S = 30.0
#: every story document carries this modification time, so "newest first" is "by name"
DOCUMENTS_MTIME_S = DEFAULT_CLOCK.timestamp()


@dataclass(slots=True)
class TurnResult:
    """One played turn. ``reply`` is None when the call failed (``error`` = ``(code, message)``)."""

    index: int
    turn: Turn
    session_id: str | None = None
    at: str = ""
    reply: dict[str, Any] | None = None
    trace: dict[str, Any] | None = None
    error: tuple[str, str] | None = None
    offer: bool | None = None
    mismatches: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (the reply's text, card, intent, rule, tools, state, decision)."""
        r = self.reply or {}
        body = r.get("reply") or {}
        f = facts(self.reply, self.trace)
        return {"turn": self.index, "line": self.turn.line, "said": self.turn.said, "at": self.at,
                "session_id": self.session_id, "ok": not self.mismatches, "mismatches": self.mismatches,
                "error": list(self.error) if self.error else None, "offer": self.offer,
                "intent": r.get("intent"), "rule": r.get("rule_id"), "path": r.get("path"), "state": r.get("state"),
                "tools": list(f.tools), "act": f.act, "decision": f.decision,
                "repairs": list(f.repairs) if f.repairs is not None else None,
                "reply": body.get("text"), "card": body.get("card")}


@dataclass(slots=True)
class StoryResult:
    """One story's outcome: ``pass``, ``fail`` or ``skip`` (``reason`` says why it was not played)."""

    story: Story
    status: str = "pass"
    turns: list[TurnResult] = field(default_factory=list)
    reason: str = ""
    seconds: float = 0.0

    @property
    def first_problem(self) -> str:
        """``turn N «said» (line L): <first mismatch>``, or the skip/setup reason, or ``""``."""
        for t in self.turns:
            if t.mismatches:
                return f"turn {t.index} «{_short(t.turn.said)}» (line {t.turn.line}): {t.mismatches[0]}"
        return self.reason

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: name, file:line, status, the first problem and every turn."""
        return {"name": self.story.name, "where": self.story.where, "status": self.status,
                "problem": self.first_problem or None, "seconds": round(self.seconds, 3),
                "locale": self.story.locale, "covers": list(self.story.covers),
                "turns": [t.to_dict() for t in self.turns]}


@dataclass(slots=True)
class RunResult:
    """Everything a run produced: the stories' results (in load order) and the universe."""

    stories: list[StoryResult]
    universe: Universe
    seconds: float = 0.0

    def count(self, status: str) -> int:
        """How many stories ended with ``status`` (``pass`` / ``fail`` / ``skip``)."""
        return sum(1 for s in self.stories if s.status == status)

    @property
    def ok(self) -> bool:
        """No story failed."""
        return self.count("fail") == 0

    def facts(self) -> list[Facts]:
        """Every played turn's :class:`~.coverage.Facts` (for :func:`~.coverage.compute`)."""
        return [facts(t.reply, t.trace) for s in self.stories for t in s.turns if t.reply is not None]


def _short(text: str, n: int = 40) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= n else text[:n] + "…"


async def _call(client: AsyncClient, method: str, params: dict[str, Any] | None = None) -> Any:
    """``client.call`` that waits out ``SESSION_BUSY`` (the session's timer may hold it for a moment)."""
    for attempt in range(_BUSY_RETRIES):
        try:
            return await client.call(method, params)
        except SessionBusy as exc:
            if attempt == _BUSY_RETRIES - 1:
                raise
            await asyncio.sleep(max(0.02, float(exc.data.get("retry_after_ms", 100)) / 1000))
    raise AssertionError("unreachable")


def write_documents(folder: Path, documents: dict[str, str]) -> None:
    """Create (or refresh) ``documents`` (name → content) in ``folder``, readable by the sandbox's worker
    user, all stamped :data:`DOCUMENTS_MTIME_S`."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        os.chmod(folder, 0o755)
    except OSError:
        pass  # not ours to change: the daemon's folder already is as it should be
    for name, content in documents.items():
        path = folder / name
        data = content.encode("utf-8")
        if not path.is_file() or path.read_bytes() != data:
            tmp = folder / f".{name}.story-tmp"
            tmp.write_bytes(data)
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        os.utime(path, (DOCUMENTS_MTIME_S, DOCUMENTS_MTIME_S))


class SetupFailed(Exception):
    """A story's setup could not be done (the story fails, saying why)."""


#: the shipped reminder tool, as ``tools.call`` names it
REMINDER_TOOL = "reminder"


class _ToolError(Exception):
    """``tools.call`` answered with the tool's own failure (``isError``): its stable code and sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message


async def _reminder(client: AsyncClient, arguments: dict[str, Any]) -> dict[str, Any]:
    """The reminder tool's structured output. :raises SetupFailed: the call failed; :raises _ToolError:
    the tool did."""
    what = f"tools.call {REMINDER_TOOL} {arguments['action']}"
    try:
        res = await _call(client, "tools.call", {"name": REMINDER_TOOL, "arguments": arguments})
    except HermesError as exc:
        raise SetupFailed(f"{what}: {exc.code}: {exc.message}") from None
    out = res.get("structuredContent") if isinstance(res, dict) else None
    if not isinstance(out, dict):
        raise SetupFailed(f"{what}: no structured result")
    if res.get("isError"):
        err = out.get("error") or {}
        raise _ToolError(str(err.get("code", "")), str(err.get("message", "")))
    return out


async def clear_reminders(client: AsyncClient) -> int:
    """Cancel every pending reminder of the invoking user through ``tools.call`` of the reminder tool.

    Lists the pending reminders (``action: list``), then cancels each by id; one that went off or
    was cancelled in between (``NOT_FOUND``) is no longer pending, which is what was wanted.

    :return: how many were cancelled.
    :raises SetupFailed: the tool cannot be called, fails, or lists a reminder without an id.
    """
    try:
        listed = await _reminder(client, {"action": "list"})
    except _ToolError as exc:
        raise SetupFailed(f"tools.call {REMINDER_TOOL} list: {exc}") from None
    ids = [r.get("id") for r in listed.get("reminders") or () if isinstance(r, dict)]
    if not all(isinstance(i, str) and i for i in ids):
        raise SetupFailed(f"tools.call {REMINDER_TOOL} list: a reminder without an id: {listed!r:.200}")
    cancelled = 0
    for rid in ids:
        try:
            await _reminder(client, {"action": "cancel", "id": rid})
            cancelled += 1
        except _ToolError as exc:
            if exc.code != "NOT_FOUND":
                raise SetupFailed(f"tools.call {REMINDER_TOOL} cancel {rid}: {exc}") from None
    return cancelled


def _intent_names(files: Iterable[str]) -> list[str]:
    import yaml

    names: list[str] = []
    for f in files:
        doc = yaml.safe_load(Path(f).read_text(encoding="utf-8")) or {}
        names += [str(i["name"]) for i in doc.get("intents") or () if isinstance(i, dict) and i.get("name")]
    return names


def _packs_from_dir(packs_dir: Path) -> tuple[list[str], list[str]]:
    """(intent names, rule ids) of a config folder with ``intents/`` and ``rules/`` (what the daemon was started with)."""
    from ..rules.loader import load_rules

    intents_dir = packs_dir / "intents"
    intents = _intent_names(sorted(str(p) for p in intents_dir.glob("*.yaml"))) if intents_dir.is_dir() else []
    rules_dir = packs_dir / "rules"
    rules: list[str] = []
    if rules_dir.is_dir():
        loaded = load_rules(rules_dir)
        rules = [r.rule_id for _, pack in loaded.packs for r in pack.rules]
    return intents, rules


async def gather_universe(client: AsyncClient, packs_dir: Path | None = None) -> Universe:
    """What the daemon could show: its intents, rules and tools, plus the code's acts, decisions and states.

    Intents and rules come from ``admin.packs`` when the daemon has it; else from ``packs_dir``
    (a config folder with ``intents/`` and ``rules/``, as the daemon was started with); else
    intents from the files ``admin.status`` names. Tools come from ``tools.list``.
    """
    known: dict[str, Any] = {}
    sources: dict[str, str] = {}
    try:
        packs = await client.call("admin.packs")
        for key, id_key in (("intents", "name"), ("rules", "rule_id")):
            items = packs.get(key)
            if isinstance(items, list):
                known[key] = tuple(sorted(str(x.get(id_key) if isinstance(x, dict) else x) for x in items))
                sources[key] = "admin.packs"
    except (MethodNotFound, HermesError):
        pass
    if packs_dir is not None and ("intents" not in known or "rules" not in known):
        intents, rules = _packs_from_dir(packs_dir)
        for key, values in (("intents", intents), ("rules", rules)):
            if key not in known and values:
                known[key], sources[key] = tuple(sorted(set(values))), f"--packs {packs_dir}"
    if "intents" not in known:
        try:
            files = (await client.call("admin.status"))["subsystems"]["nlu"]["files"]
            known["intents"] = tuple(sorted(set(_intent_names(files))))
            sources["intents"] = "admin.status nlu.files"
        except (HermesError, KeyError, TypeError, OSError, ValueError):
            pass
    try:
        tools = (await client.call("tools.list")).get("tools") or []
        known["tools"] = tuple(sorted(str(t["name"]) for t in tools if isinstance(t, dict) and t.get("name")))
        sources["tools"] = "tools.list"
    except (HermesError, KeyError, TypeError):
        pass
    return default_universe(sources=sources, **known)


class _NotPlayable(Exception):
    """This daemon cannot play the story to its end (its timeout is longer than the runner waits)."""


class _Player:
    """Plays one story; holds its sessions (name → id) and its clock."""

    def __init__(self, runner: "_Runner", story: Story, client: AsyncClient) -> None:
        self.runner, self.story, self.client = runner, story, client
        self.sessions: dict[str, str] = {}
        self.clock = story.clock

    async def play(self) -> StoryResult:
        t0 = time.perf_counter()
        result = StoryResult(self.story)
        try:
            if self.story.clear_reminders:
                await clear_reminders(self.client)
            for i, turn in enumerate(self.story.turns, 1):
                tr = await self._turn(i, turn)
                result.turns.append(tr)
                if tr.mismatches:
                    result.status = "fail"
        except _NotPlayable as exc:
            if result.status != "fail":
                result.status, result.reason = "skip", f"turn {len(result.turns) + 1}: {exc}"
        except SetupFailed as exc:
            result.status, result.reason = "fail", f"setup: clear_reminders: {exc}"
        except Exception as exc:  # a broken connection, a restart that failed: the story fails, the run goes on
            result.status = "fail"
            result.reason = f"turn {len(result.turns) + 1}: {type(exc).__name__}: {exc}"
        finally:
            await self._close_all()
        result.seconds = time.perf_counter() - t0
        return result

    async def _open(self, expect_offer: bool | None) -> tuple[str, bool]:
        params: dict[str, Any] = {}
        if self.story.locale:
            params["locale"] = self.story.locale
        if self.story.tz:
            params["tz"] = self.story.tz
        offered = False
        for _ in range(_MAX_DECLINES):
            opened = await _call(self.client, "session.open", params)
            sid = opened["session_id"]
            if not opened.get("offer") or expect_offer:
                return sid, offered or bool(opened.get("offer"))
            # unfinished work of another session: decline it where it was offered, start clean
            offered = True
            try:
                await _call(self.client, "session.confirm", {"session_id": sid, "accept": False})
            except HermesError:
                pass
            await self._close(sid)
        return sid, offered

    async def _close(self, sid: str) -> None:
        try:
            await _call(self.client, "session.close", {"session_id": sid})
        except (HermesError, ConnectionError, OSError):
            pass

    async def _close_all(self) -> None:
        for sid in self.sessions.values():
            await self._close(sid)
        self.sessions.clear()

    async def _wait_timeout(self, sid: str) -> None:
        """Wait until the session leaves the state it is in (its timer fired).

        :raises _NotPlayable: it did not within the runner's ``max_wait_s`` (the story is skipped, saying
            so: a runner that must see it played, like the test suite, checks that nothing was skipped).
        """
        if self.runner.timeouts_too_long:
            raise _NotPlayable(self.runner.timeouts_too_long)
        start = (await _call(self.client, "session.get", {"session_id": sid}))["state"]
        if start == "IDLE":
            return
        deadline = time.monotonic() + self.runner.max_wait_s
        while time.monotonic() < deadline:
            await asyncio.sleep(_POLL_S)
            if (await _call(self.client, "session.get", {"session_id": sid}))["state"] != start:
                return
        # once is enough to know: the later timeout stories are skipped without waiting again
        self.runner.timeouts_too_long = (f"the session stayed {start} for {self.runner.max_wait_s:g} s; play "
                                         "timeout stories on a daemon with a short session.confirming_s, or "
                                         "raise --max-wait")
        raise _NotPlayable(self.runner.timeouts_too_long)

    async def _trace(self, sid: str, reply: dict[str, Any]) -> dict[str, Any] | None:
        try:
            traces = (await _call(self.client, "session.trace", {"session_id": sid})).get("traces") or []
        except HermesError:
            return None
        for t in reversed(traces):
            if t.get("trace_id") == reply.get("trace_id"):
                return t
        return None

    async def _turn(self, index: int, t: Turn) -> TurnResult:
        if t.restart:
            self.client = await self.runner.restart_daemon(self.client)
        if t.new_session and t.session in self.sessions:
            await self._close(self.sessions.pop(t.session))
        offer = None
        if t.session not in self.sessions:
            self.sessions[t.session], offer = await self._open(t.expect.offer)
        sid = self.sessions[t.session]
        out = TurnResult(index, t, sid, offer=offer)
        if t.wait_s:
            await asyncio.sleep(t.wait_s)
        if t.wait_timeout:
            await self._wait_timeout(sid)
        self.clock = t.at.resolve(self.clock, datetime.now(timezone.utc))
        out.at = self.clock.isoformat()
        params: dict[str, Any] = {"session_id": sid, "reference_time": out.at}
        if t.message_id:
            params["message_id"] = t.message_id
        if t.user is not None:
            method, params["text"] = "session.turn", t.user
        else:
            method = "session.confirm"
            if t.choice is not None:
                params["choice"] = t.choice
            else:
                params["accept"] = bool(t.accept)
        try:
            out.reply = await _call(self.client, method, params)
        except HermesError as exc:
            out.error = (exc.code, exc.message)
        if out.reply is not None:
            out.trace = await self._trace(sid, out.reply)
        out.mismatches += check(t.expect, out.reply, out.trace, error=out.error, offer=offer, said=t.user or "",
                                session_id=sid)
        return out


class _Runner:
    def __init__(self, connect: Connect, restart: Restart | None, max_wait_s: float) -> None:
        self.connect, self.restart, self.max_wait_s = connect, restart, max_wait_s
        #: why timeout stories cannot be played on this daemon ("" until one waited in vain)
        self.timeouts_too_long = ""

    async def restart_daemon(self, client: AsyncClient) -> AsyncClient:
        """Restart through the hook, then reconnect (the daemon may take a moment to listen again)."""
        if self.restart is None:
            raise RuntimeError("this runner cannot restart the daemon")
        await client.close()
        await self.restart()
        deadline = time.monotonic() + _RECONNECT_S
        while True:
            try:
                fresh = await self.connect()
                await fresh.call("session.list")
                return fresh
            except (ConnectionError, OSError, HermesError):
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(_POLL_S)


async def _documents_folder(client: AsyncClient, given: Path | None) -> Path | None:
    if given is not None:
        return given
    try:
        return Path((await client.call("admin.status"))["state_dir"]) / "documents"
    except (HermesError, KeyError, TypeError):
        return None


async def run_stories(stories: list[Story], connect: Connect, *, jobs: int = 4, restart: Restart | None = None,
                      max_wait_s: float = 15.0, documents_dir: Path | None = None,
                      packs_dir: Path | None = None) -> RunResult:
    """Play ``stories`` and return every result, in the order given.

    :param connect: ``await connect()`` → a connected :class:`~hermesd.client.AsyncClient` (called again
        after a restart, and once per exclusive story).
    :param jobs: independent stories played at once (keep it under the daemon's
        ``session.max_sessions_per_user`` divided by the sessions a story holds).
    :param restart: ``await restart()`` restarts the daemon; without it a story with a ``restart``
        turn is skipped, saying so.
    :param max_wait_s: longest ``wait: timeout``; a story whose session times out later is skipped, saying so.
    :param documents_dir: where story documents go (default ``<state_dir>/documents`` of ``admin.status``).
    :param packs_dir: config folder the daemon was started with, for the loaded intents and rules.
    """
    t0 = time.perf_counter()
    runner = _Runner(connect, restart, max_wait_s)
    results: list[StoryResult | None] = [None] * len(stories)
    client = await connect()
    try:
        universe = await gather_universe(client, packs_dir)
        documents: dict[str, str] = {}
        for s in stories:
            documents.update(dict(s.documents))
        setup_problem = ""
        if documents:
            folder = await _documents_folder(client, documents_dir)
            if folder is None:
                setup_problem = "setup: cannot tell where the daemon's documents are (not admin?); give --documents DIR"
            else:
                try:
                    write_documents(folder, documents)
                except OSError as exc:
                    setup_problem = f"setup: cannot write the documents to {folder}: {exc}"
        for i, s in enumerate(stories):
            if setup_problem and s.documents:
                results[i] = StoryResult(s, "fail", reason=setup_problem)
            elif s.needs_restart and restart is None:
                results[i] = StoryResult(s, "skip", reason="needs a daemon restart: give --restart-cmd")
        sem = asyncio.Semaphore(max(1, jobs))

        async def concurrent(i: int, s: Story) -> None:
            async with sem:
                results[i] = await _Player(runner, s, client).play()

        await asyncio.gather(*(concurrent(i, s) for i, s in enumerate(stories)
                               if results[i] is None and not s.exclusive))
    finally:
        await client.close()
    for i, s in enumerate(stories):
        if results[i] is None:
            own = await connect()
            player = _Player(runner, s, own)
            try:
                results[i] = await player.play()
            finally:
                await player.client.close()
    return RunResult([r for r in results if r is not None], universe, time.perf_counter() - t0)
