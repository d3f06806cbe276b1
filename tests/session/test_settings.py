"""SessionSettings: defaults match DESIGN.md, units checked, rules folder resolution."""

from __future__ import annotations

from pathlib import Path

import pytest
from hermesd.typed import ValidationError

from hermesd.session.machine import Limits, State
from hermesd.session.settings import SessionSettings, resolve_rules_dir


def test_defaults_are_the_design_figures():
    s = SessionSettings()
    assert (s.listening_s, s.parsing_ms, s.routing_ms, s.confirming_s) == (180.0, 500, 200, 60.0)
    assert s.cap_grace_s == 5.0 and s.max_sessions_per_user == 8
    assert s.ttl_s == 1800.0 and s.handoff_after_failures == 3 and s.poll_interval_ms == 1000
    limits = Limits.from_settings(s)
    assert limits.timeouts_s[State.PARSING] == 0.5 and limits.timeouts_s[State.ROUTING] == 0.2
    assert limits.timeouts_s[State.IDLE] is None and limits.timeouts_s[State.ERROR_HANDLING] is None


@pytest.mark.parametrize("bad", [{"parsing_ms": 0}, {"listening_s": -1}, {"handoff_after_failures": 0},
                                 {"poll_interval_ms": 10}, {"load_cpu_percent": 101}, {"listening_seconds": 3}])
def test_bad_values_rejected(bad):
    with pytest.raises(ValidationError):
        SessionSettings(**bad)


def test_rules_dir(tmp_path):
    assert resolve_rules_dir(SessionSettings(rules_dir=tmp_path)) == tmp_path
    default = resolve_rules_dir(SessionSettings())
    assert default == Path("/etc/hermesd/rules") or default.parts[-2:] == ("config", "rules")
