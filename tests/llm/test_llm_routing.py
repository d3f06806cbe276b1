"""Routing around open questions: a digression reaches the model only when the pack allows it
(``llm.while_open``), and a model's card survives a restart of the daemon."""

from __future__ import annotations

from .conftest import llm_config
from .llm_server import Say
from .test_llm_daemon import OOS_EN


def test_with_while_open_a_digression_no_rule_covers_goes_to_the_model_and_the_card_comes_back(
        model_server, start_daemon):
    d = start_daemon(llm_config(model_server, "ollama", while_open=True))
    model_server.script(Say(calls=[("send_memo", {"to": "Li", "text": "hi"})]), Say(text="A penguin joke."))
    with d.client() as c:
        sid = c.call("session.open", {"locale": "en-US"})["session_id"]
        assert c.call("session.turn", {"session_id": sid, "text": "tell me a joke and memo Li: hi"})["state"] == \
            "CONFIRMING"
        r = c.call("session.turn", {"session_id": sid, "text": OOS_EN})
        assert r["reply"]["text"].startswith("A penguin joke.")
        assert r["state"] == "CONFIRMING" and r["reply"]["card"]["tool"] == "send_memo"  # asked again
        assert "digression" in c.call("session.trace", {"session_id": sid})["traces"][-1]["repairs"]
    assert len(model_server.requests) == 2


def test_a_model_card_survives_a_restart_and_yes_runs_its_call(model_server, start_daemon, short_dir):
    cfg = llm_config(model_server, "openai")
    d = start_daemon(cfg)
    model_server.script(Say(calls=[("send_memo", {"to": "Li", "text": "hi"})]), Say(text="Sent it."))
    with d.client() as c:
        sid = c.call("session.open", {"locale": "en-US"})["session_id"]
        assert c.call("session.turn", {"session_id": sid, "text": "tell me a joke and memo Li: hi"})["state"] == \
            "CONFIRMING"
    d.stop()
    d2 = start_daemon(cfg, root=d.root)
    with d2.client() as c:
        r = c.call("session.confirm", {"session_id": sid, "accept": True})
        assert r["reply"]["text"] == "Sent it." and r["generated"] is True
        assert [(a["tool"], a["outcome"]) for a in r["actions"]] == [("send_memo", "ok")]
    assert model_server.errors == []


def test_a_field_the_role_may_not_see_never_reaches_the_prompt(model_server, start_daemon):
    cfg = llm_config(model_server, "ollama")
    cfg["memory"] = {"hidden_fields": {"admin": ["data.value"]}}
    d = start_daemon(cfg)
    model_server.script(Say(text="Ha."))
    with d.client() as c:
        sid = c.call("session.open", {"locale": "en-US"})["session_id"]
        c.call("session.turn", {"session_id": sid, "text": "remember my locker code is Q7781"})
        c.call("session.turn", {"session_id": sid, "text": OOS_EN})
    messages = model_server.requests[-1]["body"]["messages"]
    assert "Q7781" not in str(messages)  # not as a profile field, a memory, nor in the session's last turns
    assert "locker code" not in messages[0]["content"].split("From memory")[0]  # no profile line for it
