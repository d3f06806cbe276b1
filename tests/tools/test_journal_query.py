"""journal_query against a journalctl that parses ``--since``/``--until`` as systemd 252 does.

systemd.time(7) of v252 (Debian 12) takes ``YYYY-MM-DD [HH:MM[:SS[.frac]]]`` optionally followed by
a space and ``UTC`` or a zone name, ``HH:MM[:SS]``, ``now``/``today``/``yesterday``/``tomorrow``,
``@epoch`` and relative spans (``-2h``, ``+1d``, ``2h ago``). The ``T`` separator and a directly
appended ``Z``/``+08:00`` came with v255, so the fake below refuses them as v252 does.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

HANDLER = Path(__file__).resolve().parents[2] / "tools" / "journal_query" / "handler.py"

FAKE_JOURNALCTL = r'''#!{python}
import json, os, re, sys
with open(os.environ["FAKE_JOURNALCTL_ARGV"], "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\n")
SPAN = r"(?:\d+(?:\.\d+)?\s*(?:usec|us|msec|ms|seconds?|sec|s|minutes?|min|m|hours?|hr|h|days?|d|weeks?|w|months?|M|years?|y)\s*)+"
ZONE = r"(?: (?:UTC|[A-Z][A-Za-z_]+(?:/[A-Za-z_]+)*))?"
ACCEPTED = [
    r"now|today|yesterday|tomorrow",
    rf"[+-]\s*{SPAN}", rf"{SPAN} (?:ago|left)", r"@\d+",
    rf"(?:[A-Z][a-z]{{2}} )?\d{{4}}-\d{{2}}-\d{{2}}(?: \d{{2}}:\d{{2}}(?::\d{{2}}(?:\.\d{{1,6}})?)?)?{ZONE}",
    rf"\d{{2}}:\d{{2}}(?::\d{{2}}(?:\.\d{{1,6}})?)?{ZONE}",
]
for arg in sys.argv[1:]:
    for opt in ("--since=", "--until="):
        if arg.startswith(opt):
            value = arg[len(opt):]
            if not any(re.fullmatch(p, value.strip()) for p in ACCEPTED):
                print(f"Failed to parse timestamp: {value}", file=sys.stderr)
                sys.exit(1)
# FAKE_JOURNALCTL_EMPTY: "journal" = no journal files (nothing, exit 0, as v252 does), "errors" = a
# journal with entries but none of priority err or worse
empty = os.environ.get("FAKE_JOURNALCTL_EMPTY")
if empty == "journal" or (empty == "errors" and "-p" in sys.argv):
    sys.exit(0)
print(json.dumps({"__REALTIME_TIMESTAMP": "1764482400000000", "_SYSTEMD_UNIT": "redis.service",
                  "PRIORITY": "3", "MESSAGE": "out of memory"}))
'''


@pytest.fixture
def journalctl(tmp_path, monkeypatch):
    """A fake ``journalctl`` first on PATH; returns a function giving the argv of each call."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "journalctl"
    fake.write_text(FAKE_JOURNALCTL.replace("{python}", sys.executable, 1), encoding="utf-8")
    fake.chmod(0o755)
    log = tmp_path / "argv.jsonl"
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("FAKE_JOURNALCTL_ARGV", str(log))
    return lambda: [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.fixture(scope="module")
def handler():
    spec = importlib.util.spec_from_file_location("journal_query_handler", HANDLER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _since(argv: list[str]) -> str:
    return next(a for a in argv if a.startswith("--since=")).removeprefix("--since=")


def test_the_fake_refuses_what_systemd_252_refuses(journalctl, handler):
    """The format passed before the fix (ISO 8601 with T and offset) is what v252 rejects."""
    import subprocess

    for bad in ("2026-11-30T14:00:00+08:00", "2026-11-30T14:00:00", "2026-11-30 14:00:00+08:00"):
        p = subprocess.run(["journalctl", f"--since={bad}"], capture_output=True, text=True)
        assert p.returncode == 1 and "Failed to parse timestamp" in p.stderr, bad
    for good in ("2026-11-30 06:00:00 UTC", "2026-11-30 14:00:00", "yesterday", "-2h", "2h ago"):
        assert subprocess.run(["journalctl", f"--since={good}"], capture_output=True).returncode == 0, good


def test_since_as_the_rules_pass_it_an_aware_iso_instant(journalctl, handler):
    # device.errors_since passes entities.when.start: TimeExpr.start.isoformat(), in the device zone
    start = datetime(2026, 11, 30, 14, 0, tzinfo=ZoneInfo("Asia/Shanghai")).isoformat()
    out = handler.handle({"priority": "err", "limit": 20, "since": start, "until": "2026-12-01T00:00:00Z"})
    assert out["entries"] == [{"time_us": 1764482400000000, "unit": "redis.service", "priority": 3,
                               "message": "out of memory"}]
    (argv,) = journalctl()
    assert _since(argv) == "2026-11-30 06:00:00 UTC"  # same instant, in syntax v252 parses
    assert "--until=2026-12-01 00:00:00 UTC" in argv


@pytest.mark.parametrize("since", ["yesterday", "today", "-2h", "1h ago", "2026-11-30 14:00:00"])
def test_since_in_journalctl_words_goes_through_unchanged(journalctl, handler, since):
    out = handler.handle({"priority": "info", "limit": 5, "unit": "redis.service", "since": since})
    assert out["entries"] and not out["truncated"]
    (argv,) = journalctl()
    assert _since(argv) == since and argv[argv.index("-u") + 1] == "redis.service"


def test_naive_iso_is_local_time_without_a_zone(journalctl, handler):
    handler.handle({"priority": "err", "limit": 5, "since": "2026-11-30T14:30"})
    handler.handle({"priority": "err", "limit": 5, "since": "2026-11-30"})
    assert [_since(a) for a in journalctl()] == ["2026-11-30 14:30:00", "2026-11-30 00:00:00"]


def test_a_refusal_is_journal_unavailable_with_journalctls_reason(journalctl, handler):
    with pytest.raises(handler.Failure) as info:
        handler.handle({"priority": "err", "limit": 5, "since": "last tuesday-ish"})
    assert info.value.code == "JOURNAL_UNAVAILABLE" and "Failed to parse timestamp" in str(info.value)


def test_no_errors_is_said_only_when_the_journal_can_be_read(journalctl, handler, monkeypatch):
    """A quiet journal answers "no entries"; a journal with nothing readable is unavailable — never
    "no errors since …" on a device whose journal cannot be read."""
    monkeypatch.setenv("FAKE_JOURNALCTL_EMPTY", "errors")
    assert handler.handle({"priority": "err", "limit": 5, "since": "yesterday"}) == {"entries": [], "truncated": False}
    monkeypatch.setenv("FAKE_JOURNALCTL_EMPTY", "journal")
    with pytest.raises(handler.Failure) as info:
        handler.handle({"priority": "err", "limit": 5, "since": "yesterday"})
    assert info.value.code == "JOURNAL_UNAVAILABLE"
