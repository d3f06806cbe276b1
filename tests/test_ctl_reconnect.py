"""``hermesctl chat`` and ``events`` across a daemon restart: one sentence, reconnect with backoff,
go on (the same session when the daemon restored it, a new one said as such when it did not), and a
clear final message when the daemon stays away. Real daemons, really stopped and started again."""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import time

import pytest

from hermesd import errors
from hermesd.redial import delays
from hermesd_testing import HERMESCTL, clean_env

EX_UNAVAILABLE = 69


class Ctl:
    """A running ``hermesctl`` whose stdout and stderr lines are read as they come."""

    def __init__(self, socket, *args: str) -> None:
        self.proc = subprocess.Popen(HERMESCTL + ["--socket", str(socket), *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=clean_env(PYTHONUNBUFFERED="1", LANG="C.UTF-8"))
        self.out: list[str] = []
        self.err: list[str] = []
        self._sel = selectors.DefaultSelector()
        for f, sink in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            os.set_blocking(f.fileno(), False)
            self._sel.register(f, selectors.EVENT_READ, sink)

    def wait_for(self, words: str, timeout_s: float = 120.0) -> None:
        """Until ``words`` appear in stdout or stderr (the event, never a fixed sleep)."""
        deadline = time.monotonic() + timeout_s
        while words not in self.text():
            if self.proc.poll() is not None:  # ended: what it wrote last is all there is
                self._drain()
                assert words in self.text(), f"exited {self.proc.returncode} without {words!r}:\n{self.text()}"
                return
            assert time.monotonic() < deadline, f"no {words!r} in:\n{self.text()}"
            for key, _ in self._sel.select(0.1):
                chunk = key.fileobj.read()
                if chunk:
                    key.data.append(chunk)

    def _drain(self) -> None:
        for f, sink in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            rest = f.read()
            if rest:
                sink.append(rest)

    def text(self) -> str:
        return "".join(self.out) + "".join(self.err)

    def say(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def finish(self, timeout_s: float = 60.0) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        rc = self.proc.wait(timeout_s)
        self._drain()
        self._sel.close()
        self.proc.stdout.close()
        self.proc.stderr.close()
        return rc

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.finish()


@pytest.fixture
def ctls():
    made: list[Ctl] = []
    yield lambda *a: made.append(Ctl(*a)) or made[-1]
    for c in made:
        if c.proc.poll() is None:
            c.kill()


def test_backoff_doubles_to_its_cap_within_the_budget():
    assert list(delays(0.1, 0.4, 1.5)) == [0.1, 0.2, 0.4, 0.4, 0.4]
    waits = list(delays(0.1, 2.0, 120.0))
    assert waits[:5] == [0.1, 0.2, 0.4, 0.8, 1.6] and max(waits) == 2.0
    assert sum(waits) == pytest.approx(120.0)
    assert list(delays(0.5, 2.0, 0.3)) == [0.3]  # a budget below the first wait still tries once


def _restart(start_daemon, d, *, forget: bool = False):
    d.stop()
    if forget:  # a daemon that comes back without its state (a new device, a wiped state folder)
        shutil.rmtree(d.state_dir)
    return start_daemon(root=d.root)


def test_chat_goes_on_in_the_same_session_after_a_restart(start_daemon, ctls):
    d = start_daemon()
    chat = ctls(d.socket, "chat")
    chat.say("hello")
    chat.wait_for("What can I do for you")
    sid = chat.text().split("[session ")[1].split()[0]
    d = _restart(start_daemon, d)
    chat.say("how much disk space is left")
    chat.wait_for("full")
    rc = chat.finish()
    text = chat.text()
    assert rc == 0, text
    assert "hermesd went away; reconnecting…" in text and "the conversation goes on" in text, text
    assert "Broken pipe" not in text and "Traceback" not in text
    assert "".join(chat.out).count("full") == 1  # the line was said once, not run twice
    with d.client() as c:  # the chat closed its own session when it ended, as without a restart
        with pytest.raises(errors.SessionNotFound):
            c.call("session.get", {"session_id": sid})


def test_chat_says_a_new_conversation_started_when_the_daemon_forgot_it(start_daemon, ctls):
    d = start_daemon()
    chat = ctls(d.socket, "chat")
    chat.say("你好")
    chat.wait_for("我是")
    old = chat.text().split("[session ")[1].split()[0]
    d = _restart(start_daemon, d, forget=True)
    chat.say("磁盘还剩多少")
    chat.wait_for("剩")
    assert chat.finish() == 0, chat.text()
    text = chat.text()
    assert "hermesd 断开了，正在重新连接…" in text and "开始了新的对话" in text, text
    new = text.split("会话 ")[1].split("）")[0]
    assert new != old and "Traceback" not in text


def test_chat_gives_up_with_a_sentence_when_the_daemon_stays_away(start_daemon, ctls):
    d = start_daemon()
    chat = ctls(d.socket, "chat", "--reconnect-s", "1")
    chat.say("hello")
    chat.wait_for("What can I do for you")
    d.stop()
    chat.say("how much disk space is left")
    chat.wait_for("did not come back within 1 s")
    rc = chat.finish()
    assert rc == EX_UNAVAILABLE, chat.text()
    assert "hermesd went away; reconnecting…" in chat.text() and "Traceback" not in chat.text()


def test_events_reconnects_and_follows_on(start_daemon, ctls):
    cfg = {"session": {"ttl_s": 1.0, "poll_interval_ms": 100}}
    d = start_daemon(cfg)
    ev = ctls(d.socket, "events", "--count", "1")
    ev.wait_for("following")
    d.stop()
    ev.wait_for("hermesd went away; reconnecting…")
    d = start_daemon(cfg, root=d.root)
    ev.wait_for("reconnected; following")
    with d.client() as c:  # an event after the restart reaches the follower that reconnected
        c.call("session.open", {"locale": "en"})
    ev.wait_for("a session expired")
    assert ev.finish() == 0, ev.text()
    assert "Traceback" not in ev.text()
