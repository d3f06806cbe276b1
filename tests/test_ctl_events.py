"""``hermesctl events``: each followed event is a line a technician reads, not a Python dict."""

from __future__ import annotations

from hermesd_testing import clean_env, hermesctl


def _expire(start_daemon):
    """A daemon whose session outlives its 1 s TTL: a ``session_expired`` event for its user."""
    d = start_daemon({"session": {"ttl_s": 1.0, "poll_interval_ms": 100}})
    with d.client() as c:
        c.call("session.open", {"locale": "en"})
    return d


def test_a_followed_event_reads_as_words_with_its_time(start_daemon):
    d = _expire(start_daemon)
    r = hermesctl(d.socket, "events", "--count", "1", env=clean_env(LANG="C.UTF-8"))
    assert r.returncode == 0, r.stderr
    line = r.stdout.strip()
    assert "a session expired" in line, line
    assert "{" not in line and "'" not in line  # no dict, no repr
    assert line[:4].isdigit() and line[4] == "-"  # a wall-clock date first (YYYY-MM-DD HH:MM:SS)


def test_the_line_is_chinese_on_a_chinese_terminal(start_daemon):
    d = _expire(start_daemon)
    r = hermesctl(d.socket, "events", "--count", "1", env=clean_env(LANG="zh_CN.UTF-8"))
    assert r.returncode == 0, r.stderr
    assert "一个会话已过期" in r.stdout, r.stdout


def test_json_keeps_the_structured_event(start_daemon):
    d = _expire(start_daemon)
    r = hermesctl(d.socket, "--json", "events", "--count", "1")
    assert r.returncode == 0, r.stderr
    assert '"kind": "session_expired"' in r.stdout or '"kind":"session_expired"' in r.stdout, r.stdout
