"""Log lines: one per event, key=value, syslog priority under journald, secrets redacted."""

from __future__ import annotations

import io
import logging
import os
import re

import pytest

from hermesd.logging import KVFormatter, hidden_values_var, is_secret_key, redact, redact_json, secret_values, setup, trace_id_var


def _record(level: int, msg: str, kv: dict | None = None, exc: BaseException | None = None) -> logging.LogRecord:
    rec = logging.LogRecord("hermesd.server", level, __file__, 1, msg, None,
                            (type(exc), exc, exc.__traceback__) if exc else None)
    if kv is not None:
        rec.kv = kv
    return rec


def test_journal_format_has_priority_prefix_and_no_timestamp():
    f = KVFormatter(journal=True)
    assert f.format(_record(logging.INFO, "conn.accept", {"uid": 0})) == "<6>server: conn.accept uid=0"
    assert f.format(_record(logging.WARNING, "x")).startswith("<4>")
    assert f.format(_record(logging.ERROR, "x")).startswith("<3>")
    assert f.format(_record(logging.DEBUG, "x")).startswith("<7>")


def test_plain_format_has_utc_timestamp_and_level():
    line = KVFormatter(journal=False).format(_record(logging.INFO, "ready", {"startup_ms": 12.3456}))
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO +server: ready startup_ms=12.346$", line), line


def test_values_are_quoted_and_one_line():
    line = KVFormatter(journal=True).format(_record(logging.INFO, "multi\nline", {"text": 'a "b"\nc', "empty": ""}))
    assert "\n" not in line
    assert 'text="a \\"b\\"\\nc"' in line and 'empty=""' in line


def test_secrets_are_redacted_everywhere():
    f = KVFormatter(journal=True)
    line = f.format(_record(logging.INFO, "calling upstream with token=abc123 and Bearer eyJhbGciOi",
                            {"api_key": "k-1", "Authorization": "Basic xyz", "params": {"password": "hunter2", "user": "li"},
                             "url": "https://x/?secret=s3"}))
    for leaked in ("abc123", "eyJhbGciOi", "k-1", "xyz", "hunter2", "s3"):
        assert leaked not in line, line
    assert "user" in line and "li" in line
    assert redact({"a": [{"token": 1}], "pin": "1234", "ping": "ok"}) == {"a": [{"token": "***"}], "pin": "***", "ping": "ok"}


@pytest.mark.parametrize("key, secret", [
    ("password", True), ("passphrase", True), ("wifi_passcode", True), ("pwd", True), ("db_pwd", True),
    ("pin", True), ("user_pin", True), ("pin_code", True), ("PINCODE", True), ("sms_otp", True), ("otp_code", True),
    ("密码", True), ("wifi密码", True), ("验证码", True), ("access_token", True),
    ("ping", False), ("spinner", False), ("pinned", False), ("topic", False), ("hotpot", False), ("query", False),
    ("opinion", False), ("shipping", False),
])
def test_secret_keys(key: str, secret: bool) -> None:
    assert is_secret_key(key) is secret
    assert (redact({key: "v"}) == {key: "***"}) is secret
    assert redact_json({key: "v"}) == redact({key: "v"})


@pytest.mark.parametrize("text, secret", [
    ("记住我的门禁密码 8642", "8642"), ("明天上午九点提醒我把密码246810告诉老婆", "246810"), ("告诉小李密码abc777", "abc777"),
    ("tell Bob the password hunter2", "hunter2"), ("remember my door code 5566", "5566"), ("the door code is 1234", "1234"),
    ("my PIN code is 9999", "9999"), ("pin: 4321", "4321"), ("the gate code is 4721", "4721"),
])
def test_a_secret_said_without_is_or_as_an_access_code_is_masked(text: str, secret: str) -> None:
    assert secret not in redact(text) and secret in secret_values(text)


@pytest.mark.parametrize("text", ["the password manager is slow", "error code 502 again", "zip code 200000", "密码管理器坏了",
                                  "the code review is at 3pm"])
def test_a_secret_word_without_a_value_masks_nothing(text: str) -> None:
    assert redact(text) == text and secret_values(text) == []


def test_a_masked_value_in_json_text_keeps_its_closing_quote() -> None:
    import json

    line = KVFormatter(journal=True).format(_record(logging.INFO, "tool call", {"args": json.dumps({"text": "the wifi password is sunflower99", "due": "x"})}))
    assert "sunflower99" not in line and '***\\",' in line, line


def test_a_secret_typed_this_turn_is_masked_in_every_line_whatever_its_key():
    f = KVFormatter(journal=True)
    rec = _record(logging.INFO, "tool call", {"tool": "wifi_join", "args": {"ssid": "home", "key": "sunflower99"},
                                              "duration_ms": 12.5})
    assert "sunflower99" in f.format(rec)  # nothing typed as a secret: a value under a plain key is logged
    tok = hidden_values_var.set(("sunflower99", "12"))
    try:
        line = f.format(rec)
    finally:
        hidden_values_var.reset(tok)
    assert "sunflower99" not in line and "home" in line
    assert "duration_ms=12.5" in line  # a value too short to mask everywhere is left


def test_trace_id_is_added_while_a_request_runs():
    tok = trace_id_var.set("0123456789abcdef")
    try:
        line = KVFormatter(journal=True).format(_record(logging.INFO, "x"))
    finally:
        trace_id_var.reset(tok)
    assert line.endswith("trace=0123456789abcdef")


def test_exception_is_one_line_with_type_and_location():
    try:
        raise ValueError("bad\nthing")
    except ValueError as exc:
        line = KVFormatter(journal=True).format(_record(logging.ERROR, "boom", exc=exc))
    assert "\n" not in line and "exc_type=ValueError" in line and "at=test_logging.py:" in line


def test_auto_detects_journal_stream(tmp_path, monkeypatch):
    path = tmp_path / "stderr"
    with open(path, "w") as stream:
        st = os.fstat(stream.fileno())
        monkeypatch.setenv("JOURNAL_STREAM", f"{st.st_dev}:{st.st_ino}")
        log = setup("info", "auto", stream)
        log.getChild("t").warning("hello")
        monkeypatch.setenv("JOURNAL_STREAM", "1:2")
        setup("info", "auto", stream).getChild("t").warning("plain")
    lines = path.read_text().splitlines()
    assert lines[0] == "<4>t: hello" and not lines[1].startswith("<")
    setup("info", "plain", io.StringIO())


def test_daemon_logs_under_journald_with_priorities_and_redaction(start_daemon, short_dir):
    root = short_dir / "j"
    root.mkdir()
    # the fixture sends stdout+stderr to root/hermesd.log; point JOURNAL_STREAM at that file
    log_path = root / "hermesd.log"
    log_path.touch()
    st = os.stat(log_path)
    d = start_daemon({"server": {"debug_methods": True}}, env={"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"},
                     root=root, wait=False)
    # the fixture truncates by reopening the same inode, so the identity holds
    d.wait_ready()
    d.call("debug.echo", {"text": "hi", "api_token": "tok-SECRET-1", "password": "pw-SECRET-2"})
    d.raw().send(b"x" * 70000 + b"\n")
    import time

    time.sleep(0.3)
    text = d.log()
    assert "SECRET" not in text
    lines = text.splitlines()
    assert any(l.startswith("<6>daemon: daemon.ready ") for l in lines), text
    assert any(l.startswith("<4>server: frame.too_large ") for l in lines), text
    echo = [l for l in lines if "debug.echo" in l][0]
    assert "trace=" in echo and '\\"api_token\\":\\"***\\"' in echo


@pytest.mark.parametrize("text, shown", [
    ("endpoint=http://bob:PW-s3cr3t@127.0.0.1:18935/v1", "endpoint=http://***@127.0.0.1:18935/v1"),
    ("s3 https://AKIA:key@minio.local/bucket", "s3 https://***@minio.local/bucket"),
    ("mail bob@example.com about http://host/x", "mail bob@example.com about http://host/x"),
])
def test_user_information_in_a_url_is_masked(text: str, shown: str) -> None:
    assert redact(text) == shown


@pytest.mark.parametrize("value", [
    {"text": "cancel", "timings_ms": {"parse": 0.15}, "transitions": [["LISTENING", "text", "PARSING"]], "n": None},
    {"slots": {"pin": "1234"}, "ping": "ok"},                      # a secret key: the walk
    {"a": [{"Token": 1}], "b": ("x", "y")},                       # any case; a tuple comes back a list
    {"text": "my password is hunter2"}, {"text": "密码是778899"}, {"text": "口令：1234 好的"},
    {"h": "Authorization: Bearer abcdef123456"}, {"u": "see http://bob:pw@host/x"},
    {"k": "\u212aey", "cookie_jar": "c"}, {"x": "tab\there token=abc"}, {"my_api_key": "k", "apikey": "k"},
    {"deep": [[[[[[[[[[{"token": "t"}]]]]]]]]]]}, {1: "an int key"}, {"private-key": "p", "credentials": ["c"]},
    ["shipping to 上海", {"reply": "好的，已发送"}], "token=abc", 3, None,
])
def test_redact_json_is_redact(value) -> None:
    out = redact_json(value)
    assert out == redact(value)
    if isinstance(value, dict):
        assert out is not value  # a copy, whichever way it was made
        out["added"] = 1
        assert "added" not in value
