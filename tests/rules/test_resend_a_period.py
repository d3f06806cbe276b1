"""A resend that names a period and no kind ("昨天发的再发一次", "resend what I sent yesterday", "昨天发给张伟的再发一次"):
the sends of that period are asked about (one: its card), never the last send of all; nothing sent then is
said plainly, with the newest send offered in words (再发一次 / "send it again" resends it). Routing by the
shipped rules, the plan run by the executor over a stand-in memory (no daemon)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermesd.rules.loader import load_rules
from hermesd.session.executor import Executor, Failure, Suspend

REPO = Path(__file__).resolve().parents[2]
ENGINE = load_rules(REPO / "config" / "rules").engine
YESTERDAY = {"text": "昨天", "kind": "date", "start": "2036-03-03", "end": "2036-03-04"}
YESTERDAY_EN = {**YESTERDAY, "text": "yesterday"}
SENT = {"object": "报价单Q-2036-0303.pdf", "at": "2036-03-03T10:00:00+08:00", "params": {"recipient": "王芳"},
        "at_ms": 0}
OLDER = {"object": "发票INV-2036-0101.pdf", "at": "2036-01-01T10:00:00+08:00", "params": {"recipient": "李娜"},
         "at_ms": 0}


def ctx(role="user", **entities):
    return {"role": role, "entities": entities, "slots": {}, "memory": {},
            "session": {"auth": "NONE", "tz": "Asia/Shanghai", "now": "2036-03-04T10:00:00+08:00"}}


@pytest.mark.parametrize("entities,rule_id", [
    ({"when": YESTERDAY}, "doc.resend.when"),
    ({"when": YESTERDAY, "doc": "报价单", "doc_again": "报价单"}, "doc.resend.when"),   # the kind is what was done: the period decides
    ({"when": YESTERDAY, "person": "张伟"}, "doc.resend.when.person"),
    ({"when": YESTERDAY, "doc": "报价单"}, "doc.resend.last_of_kind"),                # a kind said: its own rules
    ({"when": YESTERDAY, "doc": "报价单", "person": "张伟"}, "doc.resend.from_memory"),
])
def test_a_period_without_a_kind_is_the_period_rule(entities, rule_id):
    plan = ENGINE.match("doc.resend", ctx(**entities))
    assert plan.rule_id == rule_id, [(s.rule_id, s.reason) for s in plan.skipped]


async def _run(entities, lang, in_period, ever):
    seen: list[dict] = []

    async def recall(filters):
        seen.append(filters)
        items = in_period if "since" in filters else ever
        return {"items": items, "count": len(items)}

    async def call(name, params):  # pragma: no cover - nothing is sent in these plans
        raise AssertionError(f"{name} called")

    plan = ENGINE.match("doc.resend", ctx(**entities))
    c = ctx(**entities)
    ex = Executor(call, lambda name: (name == "send_document", False), lang, recall=recall,
                  people={"王芳": "Wang Fang", "李娜": "Li Na", "张伟": "Zhang Wei"})
    res = await ex.run(tuple(plan.actions), c)
    said = (await ex.compensate(plan.on_error, c)).texts if isinstance(res, Failure) else []
    return res, said, seen


@pytest.mark.parametrize("lang,entities,expected", [
    ("zh", {"when": YESTERDAY}, ["昨天没有发送过文件", "发票INV-2036-0101.pdf", "再发一次"]),
    ("en", {"when": YESTERDAY_EN}, ["Nothing was sent yesterday", "发票INV-2036-0101.pdf", "send it again"]),
    ("zh", {"when": YESTERDAY, "person": "张伟"}, ["昨天没有发给张伟的文件", "发票INV-2036-0101.pdf"]),
    ("en", {"when": YESTERDAY_EN, "person": "张伟", "person_en": "Zhang Wei"}, ["Nothing went to Zhang Wei yesterday"]),
])
async def test_nothing_sent_then_is_said_and_the_last_send_offered(lang, entities, expected):
    res, said, seen = await _run(entities, lang, [], [OLDER])
    assert isinstance(res, Failure) and res.counts is False and len(said) == 1, (res, said)
    assert all(x in said[0] for x in expected), said
    assert any(f.get("since") == "2036-03-03" and f.get("until") == "2036-03-04" for f in seen), seen


@pytest.mark.parametrize("lang,said", [("zh", "没有发送记录"), ("en", "nor ever before")])
async def test_nothing_ever_sent_is_said_so(lang, said):
    _, texts, _ = await _run({"when": YESTERDAY if lang == "zh" else YESTERDAY_EN}, lang, [], [])
    assert len(texts) == 1 and said in texts[0], texts


async def test_the_one_sent_then_is_its_card_never_the_last_of_all():
    res, _, _ = await _run({"when": YESTERDAY}, "zh", [SENT], [OLDER])
    assert isinstance(res, Suspend) and res.kind == "confirm", res
    assert "报价单Q-2036-0303.pdf" in res.prompt and "王芳" in res.prompt


async def test_several_sent_then_are_asked_about():
    res, _, _ = await _run({"when": YESTERDAY}, "en", [SENT, OLDER], [SENT])
    assert isinstance(res, Suspend) and res.kind == "choose" and len(res.items) == 2
