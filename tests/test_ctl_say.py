"""``hermesctl say``: one turn in a session of its own, closed again unless a question is left open."""

from __future__ import annotations

import os
import subprocess

from hermesd_testing import HERMESCTL, clean_env, hermesctl


def _say(socket, *args: str) -> subprocess.CompletedProcess:
    return hermesctl(socket, "say", *args)


def test_say_many_times_never_runs_out_of_sessions(start_daemon):
    d = start_daemon({"session": {"max_sessions_per_user": 3}})
    for _ in range(5):  # more than the cap: each say closes its own session
        r = _say(d.socket, "磁盘还剩多少")
        assert r.returncode == 0, r.stderr
        assert "剩" in r.stdout and "closed" in r.stderr


def test_say_keeps_a_session_that_asks_and_says_how_to_answer(start_daemon):
    d = start_daemon()
    r = _say(d.socket, "把报价单发给张工")  # two engineers named 张: a choice is open
    assert r.returncode == 0, r.stderr
    assert "answer with: hermesctl say --session" in r.stderr
    with d.client() as c:
        sid = r.stderr.split("[session ")[1].split()[0]
        assert c.call("session.get", {"session_id": sid})["state"] != "CLOSED"


def test_say_refused_reads_as_a_sentence_not_a_code(start_daemon):
    d = start_daemon()
    r = _say(d.socket, "磁盘" * 3000)  # beyond the daemon's utterance limit: refused with INPUT_INVALID
    assert r.returncode != 0
    assert "太长" in r.stderr and "INPUT_INVALID" not in r.stderr
    r = _say(d.socket, "disk " * 2000)
    assert "too long" in r.stderr and "INPUT_INVALID" not in r.stderr
    r = hermesctl(d.socket, "--json", "say", "disk " * 2000)  # a script asked for the code: it gets it
    assert "INPUT_INVALID" in r.stdout


def test_a_mistyped_session_or_an_empty_line_reads_as_a_sentence_in_the_persons_language(start_daemon):
    d = start_daemon()
    for args, said in [(("hello", "--session", "NOPE"), "no conversation with that id"),
                       (("你好", "--session", "NOPE"), "没有这个会话"), (("",), "message was empty")]:
        r = _say(d.socket, *args)
        assert r.returncode != 0 and said in r.stderr, (args, r.stderr)
        assert "session_id" not in r.stderr and "Invalid params" not in r.stderr and "(" not in r.stderr, r.stderr
    r = hermesctl(d.socket, "say", "", env={**clean_env(), "LANG": "zh_CN.UTF-8"})
    assert "空的" in r.stderr, r.stderr


def test_chat_closes_its_session_when_the_person_quits(start_daemon):
    d = start_daemon({"session": {"max_sessions_per_user": 3}})
    for _ in range(5):  # more chats than the cap: each closes its own session on quit
        r = hermesctl(d.socket, "chat", input="磁盘还剩多少\n")
        assert r.returncode == 0 and "剩" in r.stdout, r.stderr
        assert "SESSION_LIMIT" not in r.stderr and "忙" not in r.stderr


def test_say_keeps_a_session_that_asks_for_a_slot(start_daemon):
    d = start_daemon()
    r = _say(d.socket, "提醒我交报告")  # no time: the reminder asks when
    assert r.returncode == 0, r.stderr
    assert "answer with: hermesctl say --session" in r.stderr
    sid = r.stderr.split("[session ")[1].split()[0]
    r = _say(d.socket, "--session", sid, "明天上午十点")
    assert r.returncode == 0 and "交报告" in r.stdout, (r.stdout, r.stderr)


def test_a_line_that_is_not_utf8_is_read_not_a_traceback(start_daemon):
    """A GBK terminal's line is read as GB18030; bytes that are no text are replaced, never a crash."""
    d = start_daemon()
    gbk = "磁盘还剩多少".encode("gbk")
    cmd = [*HERMESCTL, "--socket", str(d.socket), "say", os.fsdecode(gbk)]
    r = subprocess.run(cmd, capture_output=True, timeout=60, env=clean_env())
    assert r.returncode == 0 and "Traceback" not in r.stderr.decode(), r.stderr.decode()
    assert "剩" in r.stdout.decode()
    r = subprocess.run([*HERMESCTL, "--socket", str(d.socket), "chat"], input=b"\xff\xfe\xfd\n" + gbk + b"\n",
                       capture_output=True, timeout=60, env=clean_env())
    assert r.returncode == 0 and "Traceback" not in r.stderr.decode(), r.stderr.decode()
    assert "剩" in r.stdout.decode()


def test_a_remembered_fact_shows_no_internal_event_name(start_daemon):
    """The reply says it was remembered; the memory.updated event, delivered with a later turn, is
    not printed under it as [memory.updated]."""
    d = start_daemon()
    r = hermesctl(d.socket, "chat", input="记住我的工号是A1024\n磁盘还剩多少\n我的工号是多少\n")
    assert r.returncode == 0, r.stderr
    assert "A1024" in r.stdout and "memory.updated" not in r.stdout, r.stdout


def test_trace_lines_read_a_turns_own_action_without_a_step_index():
    """An offer of an unfinished task is an action of the turn, not a step of a plan: it has no index
    (``hermesctl trace`` died with KeyError: 'index' on such a session)."""
    from hermesd.cli import trace_lines

    t = {"trace_id": "t1", "path": "rule", "text": "remind me at 9", "intent": "reminder.set",
         "actions": [{"index": 0, "kind": "tool", "tool": "reminder", "duration_ms": 3.2, "outcome": "ok"},
                     {"kind": "offer", "task_id": "k1", "intent": "doc.send", "outcome": "waiting"}],
         "reply": "OK", "timings_ms": {"total": 4.0}}
    lines = trace_lines(t)
    assert "  step 0   tool reminder 3.2 ms → ok" in lines
    assert "  turn   offer → waiting" in lines


def test_another_sessions_expiry_is_no_line_under_a_reply_but_what_it_left_is(capsys):
    from hermesd.cli import _show_turn

    events = [{"kind": "session_expired", "data": {"session_id": "old"}},
              {"kind": "pending_task", "data": {"task_id": 3, "slots": {"_utterance": "把报价单发给张工"}}}]
    for text, kept, dropped in (("你好！", "没做完的事已留到下次：把报价单发给张工", "会话已过期"),
                                ("Hello!", 'unfinished work was kept for later: "把报价单发给张工"', "session expired")):
        _show_turn({"reply": {"text": text}, "events": events})
        out = capsys.readouterr().out
        assert kept in out and dropped not in out, out
