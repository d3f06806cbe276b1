"""Near misses on the shipped packs (issue 17): everyday sentences that use an intent's words about
something that is not this device, or not as a request ("my phone keeps rebooting itself", "please
turn off the lights", "where's the bathroom", "我手机老是自己重启") are out of scope, while the
requests the same words make still route. The held-out file (tests/nlu/data/nearmiss_heldout.yaml)
was written before the change and never tuned on; none of it is in a pack. The bounds below are
the measured figures with room for a rebuild's noise, and each is checked to be one a scorer that
accepts its top intent breaks (a bound nothing can break is no test)."""

import dataclasses

import pytest
import yaml

from hermesd.nlu.parser import NluEngine, parse

from .conftest import REF, REPO

HELD = yaml.safe_load((REPO / "tests" / "nlu" / "data" / "nearmiss_heldout.yaml").read_text(encoding="utf-8"))
OOS = [t for ts in HELD["out_of_scope"].values() for t in ts]
IN_SCOPE = [tuple(x) for x in HELD["in_scope"]]
#: measured 13 of 126 accepted (10 %) after issue 17, 48 (38 %) before; without the perceptron's bag
#: of orders (PACK_BAG = 1) 22 (17 %; three seeds ranged 14-21 %); with PACK_OOS_PRIOR 0.3 and the
#: near misses of full / arithmetic / serving people 15 (12 %; seeds 13 1 2 ranged 7-13 %, mean 11 %,
#: against 10-17 %, mean 14 % before): the bound leaves a rebuild room
MAX_TAKEN = 0.2


def accepting(engine: NluEngine) -> NluEngine:
    """``engine`` with the rejection cut at 0 in both regimes: every top in-scope intent is taken."""
    model = engine.model
    assert model is not None and model.reject is not None
    cut = dataclasses.replace(model.reject, threshold=0.0, threshold_led=0.0)
    return NluEngine(engine.specs, model.replace(reject=cut), engine.people, engine.gazetteers)


def _taken(engine: NluEngine) -> list[tuple[str, str | None]]:
    out = []
    for t in OOS:
        r = parse(t, ref=REF, tz=REF.tzinfo, engine=engine)
        if not r.out_of_scope:
            out.append((t, r.intent))
    return out


def test_the_held_out_file_is_in_no_pack_and_covers_both_languages():
    said = set()
    for p in (REPO / "config" / "intents").glob("*.yaml"):
        doc = yaml.safe_load(p.read_text(encoding="utf-8"))
        said |= {t.lower() for t in doc.get("out_of_scope") or []}
        said |= {t.lower() for it in doc.get("intents") or [] for t in it.get("examples") or []}
    assert not ({t.lower() for t in OOS} | {t.lower() for t, _ in IN_SCOPE}) & said
    assert len(OOS) >= 100 and len(HELD["out_of_scope"]) >= 10
    for ts in HELD["out_of_scope"].values():  # every topic in both languages
        assert any(t.isascii() for t in ts) and any(not t.isascii() for t in ts), ts


def test_near_misses_are_mostly_out_of_scope(nlu_engine):
    taken = _taken(nlu_engine)
    assert len(taken) <= len(OOS) * MAX_TAKEN, taken


def test_the_bound_is_one_a_scorer_without_rejection_breaks(nlu_engine):
    # the same scorer with its rejection cut at 0 (it takes its top in-scope intent): the near misses
    # are what the intents' words pull in, so the bound above measures the rejection and can fail
    assert len(_taken(accepting(nlu_engine))) > len(OOS) * MAX_TAKEN


def test_the_requests_the_same_words_make_still_route(nlu):
    wrong = [(t, want, nlu.parse(t).intent) for t, want in IN_SCOPE if nlu.parse(t).intent != want]
    assert len(wrong) <= len(IN_SCOPE) * 10 // 100, wrong  # measured 1 of 20


#: reported on main with a real daemon (issue 17), with the intent each was taken as; 帮我把灯关了 was
#: rejected there already and stays so (the English sentence beside it was not)
REPORTED = [
    ("my phone keeps rebooting itself", "device.reboot"),
    ("please turn off the lights", "device.shutdown"),
    ("我手机老是自己重启", "device.service_restart"),
    ("帮我把灯关了", None),
]


# ("where's the bathroom", order.status) was reported too: rejected now, but near the cut (P(accept)
# 0.25 against 0.29), so it is counted in the held-out rate above rather than pinned here
@pytest.mark.parametrize("text,was", REPORTED)
def test_reported_false_accepts_are_out_of_scope(nlu, text, was):
    r = nlu.parse(text)
    assert r.out_of_scope and r.intent is None, (was, [m.to_dict() for m in r.intents[:3]])


#: the requests beside them: the device's reboot and shutdown, an order's status (zh and en)
REQUESTS = [
    ("reboot the device", "device.reboot"), ("重启设备", "device.reboot"), ("把机器重启一下", "device.reboot"),
    ("shut down the device", "device.shutdown"), ("关机", "device.shutdown"),
    ("where is my order SO20261101", "order.status"), ("订单SO20261101到哪了", "order.status"),
]


@pytest.mark.parametrize("text,want", REQUESTS)
def test_the_requests_beside_them_route(nlu, text, want):
    assert nlu.parse(text).intent == want


@pytest.mark.parametrize("text, intent", [
    # a fresh user's review of the shipped pack: none of these sentences is in a pack
    ("null", None), ("I'm full", None), ("the bus was full", None), ("what's 2+2", None),
    ("服务员态度太差了", None),
    ("工作日早上7点叫我起床", "reminder.set"),       # 叫我 + a time is a reminder
    ("remnd me tomorow at 4pm to cal the bank", "reminder.set"),
])
def test_the_review_cases_read_as_a_user_means(nlu_engine, text, intent):
    r = parse(text, ref=REF, tz=REF.tzinfo, engine=nlu_engine)
    assert r.intent == intent, [(m.intent, round(m.score, 2)) for m in r.intents[:3]]
