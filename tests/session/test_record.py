"""The session's L2 row (:meth:`Session.to_row`): every trace of the history stored redacted, turn
after turn, though a finished trace's redacted form is kept and reused (pure, in-process)."""

from hermesd.session.machine import Machine
from hermesd.session.record import Session


def _session() -> Session:
    return Session("s1", 1000, "user", Machine("s1"), created_ms=0, updated_ms=0, expires_ms=60_000)


def _turn(s: Session, text: str, *, capture_us: float | None = None) -> None:
    """What a turn does to the history: compose appends its trace while busy, then the commit
    writes into it (capture timing) and saves the row, then the turn ends."""
    s.busy = True
    trace = {"text": text, "timings_ms": {"total": 1.0}, "entities": [{"text": text}]}
    s.last_trace = trace
    s.history.append(trace)
    if capture_us is not None:
        trace["timings_ms"]["capture_us"] = capture_us
    s.to_row()
    s.busy = False


def test_every_stored_trace_is_redacted_on_every_row():
    s = _session()
    _turn(s, "my password is hunter2")
    for _ in range(3):
        _turn(s, "cancel")
        row = s.to_row()
        stored = row["data"]["history"]
        assert len(stored) == len(s.history)
        assert "hunter2" not in repr(row)
        assert stored[0]["text"] == "my password is ***"
        assert s.history[0]["text"] == "my password is hunter2"  # the running session keeps its clear text


def test_what_the_commit_writes_into_the_newest_trace_is_in_the_rows_after_it():
    s = _session()
    _turn(s, "cancel", capture_us=12.5)
    _turn(s, "how much disk space is left")
    row = s.to_row()
    assert row["data"]["history"][0]["timings_ms"]["capture_us"] == 12.5
    assert row["data"]["last_trace"]["text"] == "how much disk space is left"


def test_a_trace_changed_while_its_turn_runs_is_stored_as_it_ends():
    s = _session()
    s.busy = True
    trace = {"text": "cancel", "note": "before"}
    s.last_trace = trace
    s.history.append(trace)
    assert s.to_row()["data"]["history"][-1]["note"] == "before"
    trace["note"] = "token=abc123 after"
    row = s.to_row()
    assert row["data"]["history"][-1]["note"] == "token=*** after"
    assert row["data"]["last_trace"]["note"] == "token=*** after"


def test_the_kept_forms_are_only_the_historys():
    s = _session()
    for i in range(60):
        _turn(s, f"turn {i}")
        del s.history[:-20]
        s.to_row()
    assert len(s._redacted) <= 25
