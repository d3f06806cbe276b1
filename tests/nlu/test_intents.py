"""Intents on the shipped packs (templates, scorer, OOS), training cache, budget fallback."""

from pathlib import Path

import pytest

from hermesd.nlu.intents import IntentRecognizer, IntentSpec, content_hash, train, train_cached
from hermesd.nlu.normalize import normalize
from hermesd.nlu.parser import NluEngine, parse

from .conftest import REF, SH

# Utterances written for these tests, none of them copied from the packs' examples.
CASES = [
    ("把合同发给李经理", "doc.send"), ("给王总发一下报价单", "doc.send"), ("send the invoice to Dr. Chen", "doc.send"),
    ("请把这份方案发给张伟", "doc.send"), ("email the report to Ms. Lee", "doc.send"),
    ("把上周三发给张工的报价单再发一遍", "doc.resend"), ("把昨天发给李娜的合同重新发一下", "doc.resend"),
    ("resend the invoice to Mr. Smith", "doc.resend"), ("那个文件再发一遍", "doc.resend"),
    ("上周我给张工发了哪些文件", "doc.list_sent"), ("what did I send Mr. Smith yesterday", "doc.list_sent"),
    ("导出上个月的报表", "report.export"), ("export last week's report", "report.export"), ("导出本季度的销售数据", "report.export"),
    ("明天早上8点提醒我交周报", "reminder.set"), ("remind me in 20 minutes to call back", "reminder.set"),
    ("我都有哪些提醒", "reminder.list"), ("show me my reminders for today", "reminder.list"),
    ("把明天的提醒取消", "reminder.cancel"), ("delete my 5pm reminder", "reminder.cancel"),
    ("订单号20240615001到哪了", "order.status"), ("where is order #A123456", "order.status"), ("我的快递到哪了", "order.status"),
    ("硬盘还有多少空间", "device.disk_space"), ("how much free disk space is there", "device.disk_space"),
    ("设备现在状态怎么样", "device.system_status"), ("what's the memory usage", "device.system_status"),
    ("从昨天到现在有没有报错", "device.errors_since"), ("any errors since Monday", "device.errors_since"),
    ("redis正常吗", "device.service_status"), ("is mysql running", "device.service_status"),
    ("检查一下网络", "device.network_check"), ("can we reach the internet right now", "device.network_check"),
    ("重启一下这台设备", "device.reboot"), ("reboot the box", "device.reboot"),
    ("重启redis", "device.service_restart"), ("restart the nginx service", "device.service_restart"),
]
OUT_OF_SCOPE = ["给我讲个故事", "周杰伦的新歌叫什么", "what's the population of china", "how do i make pancakes",
                "今天股市怎么样", "who won the football game"]


@pytest.mark.parametrize("text,intent", CASES)
def test_shipped_intents(nlu, text, intent):
    r = nlu.parse(text)
    assert r.intent == intent, [m.to_dict() for m in r.intents[:3]]


def test_shipped_accuracy_overall(nlu):
    hits = sum(nlu.parse(t).intent == i for t, i in CASES)
    assert hits / len(CASES) >= 0.95


@pytest.mark.parametrize("text", OUT_OF_SCOPE)
def test_out_of_scope(nlu, text):
    r = nlu.parse(text)
    assert r.out_of_scope and r.intent is None, [m.to_dict() for m in r.intents[:3]]


def test_template_fills_slots(nlu):
    r = nlu.parse("把报价单发给张工")
    top = r.intents[0]
    assert top.source == "template" and top.intent == "doc.send"
    assert r.entities[top.slots["doc"]].value == "quote"
    assert r.entities[top.slots["person"]].text == "张工"


def test_signature_example(nlu):
    r = nlu.parse("把上周三发给张工的报价单再发一遍")
    assert r.intent == "doc.resend" and r.kind == "command"
    kinds = {e.type: e for e in r.entities}
    assert kinds["datetime"].value["start"] == "2026-11-18"
    assert kinds["person"].text == "张工" and kinds["doc_type"].value == "quote"


def test_budget_zero_degrades_to_keywords(nlu):
    r = parse("磁盘满了没有", ref=REF, tz=SH, engine=nlu.engine, budget_ms=0)
    assert r.degraded
    assert r.intent == "device.disk_space"
    assert all(m.source in ("keyword", "template") for m in r.intents)


def test_budget_uses_the_timer_passed_in(nlu):
    ticks = iter([0.0, 10.0, 10.0, 10.0, 10.0])
    r = parse("检查一下网络", ref=REF, tz=SH, engine=nlu.engine, budget_ms=500, timer=lambda: next(ticks))
    assert r.degraded and r.intent == "device.network_check"


def test_within_budget_not_degraded(nlu):
    r = nlu.parse("检查一下网络")
    assert not r.degraded and r.intents[0].source in ("scorer", "template")


EXAMPLES = [("turn on the light", "light.on"), ("switch the light on", "light.on"), ("lights on please", "light.on"),
            ("light on", "light.on"), ("turn off the light", "light.off"), ("switch the light off", "light.off"),
            ("lights off please", "light.off"), ("light off", "light.off"), ("play some jazz", "music.play"),
            ("play music", "music.play"), ("put on a song", "music.play"), ("play the radio", "music.play")]


def test_training_is_cached_by_content_hash(tmp_path: Path):
    m1 = train_cached(EXAMPLES, tmp_path, epochs=5)
    files = list(tmp_path.glob("intent-model-*.json"))
    assert len(files) == 1
    mtime = files[0].stat().st_mtime_ns
    m2 = train_cached(list(reversed(EXAMPLES)), tmp_path, epochs=5)  # same content, other order
    assert files[0].stat().st_mtime_ns == mtime
    assert m2.weights == m1.weights and m2.threshold == m1.threshold
    train_cached(EXAMPLES + [("dim the light", "light.on")], tmp_path, epochs=5)
    assert len(list(tmp_path.glob("intent-model-*.json"))) == 2


def test_corrupt_cache_is_retrained(tmp_path: Path):
    train_cached(EXAMPLES, tmp_path, epochs=5)
    (f,) = tmp_path.glob("intent-model-*.json")
    f.write_bytes(b"{not json")
    m = train_cached(EXAMPLES, tmp_path, epochs=5)
    assert m.classes == ["light.off", "light.on", "music.play"]


def test_content_hash_depends_on_params():
    assert content_hash(EXAMPLES, epochs=5) != content_hash(EXAMPLES, epochs=6)


def test_training_is_deterministic():
    a, b = train(EXAMPLES, epochs=5), train(EXAMPLES, epochs=5)
    assert a.weights == b.weights


def test_scorer_generalises_on_a_toy_set():
    m = train(EXAMPLES, epochs=10)
    rec = IntentRecognizer([IntentSpec("light.on"), IntentSpec("light.off"), IntentSpec("music.play")], m)
    assert rec.score(normalize("please turn the lights on").text)[0].intent == "light.on"
    assert rec.score(normalize("play a song").text)[0].intent == "music.play"


def test_train_needs_two_classes():
    with pytest.raises(ValueError):
        train([("a", "x"), ("b", "x")])


def test_ambiguity_margin():
    specs = [IntentSpec("a", templates=("hello {person}",), slots={"person": "person"}),
             IntentSpec("b", templates=("hello {person}",), slots={"person": "person"})]
    r = parse("hello Mr. Smith", ref=REF, tz=SH, engine=NluEngine(specs))
    assert r.ambiguous and r.intent == "a"
