"""The shipped device rules read the NLU's ``this_device`` entity (config/intents/device.yaml), not the
utterance's words: a reboot that names this device is handed to a technician at once, any other is asked
about first; a service restart that names the device and no service is that reboot, never the PIN and a
service card. The context is the one the session gives a rule (entities by the intent's slot names)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermesd.rules.loader import load_rules

REPO = Path(__file__).resolve().parents[2]
ENGINE = load_rules(REPO / "config" / "rules").engine


def ctx(role: str = "user", auth: str = "NONE", utterance: str = "", **entities) -> dict:
    return {"role": role, "entities": entities, "slots": {}, "memory": {},
            "session": {"auth": auth, "utterance": utterance}}


@pytest.mark.parametrize("intent,c,rule_id", [
    # the words said no longer decide: a Traditional 重啟設備 names the device by its entity
    ("device.reboot", ctx(this_device="設備", utterance="重啟設備"), "device.reboot"),
    ("device.reboot", ctx(this_device="the system", utterance="reboot the system"), "device.reboot"),
    ("device.reboot", ctx("admin", this_device="本机"), "device.reboot"),
    # "my system needs a reboot": the NLU gives own_device, no this_device — asked first
    ("device.reboot", ctx(utterance="my system needs a reboot"), "device.reboot.ask"),
    ("device.reboot", ctx(utterance="老板说要重启项目"), "device.reboot.ask"),
    # a restart heard as a service restart
    ("device.service_restart", ctx(this_device="系统"), "device.service_restart.this_device"),
    ("device.service_restart", ctx("admin", this_device="the server"), "device.service_restart.this_device"),
    ("device.service_restart", ctx("admin", "AUTHED", service="nginx", this_device="the server"),
     "device.service_restart.admin"),
    ("device.service_restart", ctx("admin", service="nginx"), "device.service_restart.pre_auth"),
    ("device.service_restart", ctx(service="nginx"), "device.service_restart.denied"),
    ("device.shutdown", ctx(this_device="the device"), "device.shutdown"),
])
def test_the_device_rules_read_the_entity(intent, c, rule_id):
    plan = ENGINE.match(intent, c)
    assert plan.rule_id == rule_id, [(s.rule_id, s.reason) for s in plan.skipped]


def test_no_device_rule_reads_the_utterance_for_device_words():
    for _, pack in load_rules(REPO / "config" / "rules").packs:
        for rule in pack.rules:
            if rule.rule_id.startswith("device."):
                assert not any("session.utterance" in c for c in rule.conditions), rule.rule_id
