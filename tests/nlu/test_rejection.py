"""Out-of-scope rejection: the logistic fit, the threshold choice, the cross-validation folds, and
the model they make (pure, in-process)."""

import math
import random

import pytest

from hermesd.nlu.intents import IntentModel, IntentRecognizer, IntentSpec, cross_validate, folds_of, train
from hermesd.nlu.normalize import normalize
from hermesd.nlu.rejection import (FEATURES, RejectionModel, budget_threshold, choose_threshold, features, fit,
                                    fit_logistic)


def test_logistic_fit_finds_the_direction_that_separates():
    rng = random.Random(3)
    xs, ys = [], []
    for _ in range(400):
        y = rng.random() < 0.5
        xs.append([rng.gauss(2.0 if y else -2.0, 1.0), rng.gauss(0.0, 1.0)])  # only the first feature tells
        ys.append(int(y))
    mean, scale, w, b = fit_logistic(xs, ys)
    assert w[0] > 1.0 and abs(w[1]) < 0.3 * w[0]
    model = RejectionModel(mean, scale, w, b, 0.5)
    right = sum((model.probability(x) >= 0.5) == bool(y) for x, y in zip(xs, ys))
    assert right / len(xs) > 0.95


def test_logistic_fit_needs_both_classes():
    with pytest.raises(ValueError):
        fit_logistic([[1.0], [2.0]], [1, 1])


def test_a_constant_feature_gets_no_weight():
    xs = [[float(i), 7.0] for i in range(20)]
    ys = [int(i >= 10) for i in range(20)]
    _, scale, w, _ = fit_logistic(xs, ys)
    assert scale[1] == 1.0 and w[1] == 0.0


@pytest.mark.parametrize("points, prior, accepted, rejected", [
    # in scope above 0.5, out of scope below: the cut falls between them
    ([(0.9, False, True), (0.8, False, True), (0.3, True, False), (0.2, True, False)], 0.5, [0.8, 0.9], [0.2, 0.3]),
    # rejecting a wrong in-scope top costs nothing: the cut may go above it, and never above a right one
    ([(0.9, False, True), (0.4, False, False), (0.35, True, False)], 0.5, [0.9], [0.35]),
    # a tiny prior never gives up a right in-scope top for one out-of-scope utterance
    ([(0.9, False, True), (0.5, False, True), (0.6, True, False)], 0.01, [0.5, 0.6, 0.9], []),
    # nothing out of scope: accept everything
    ([(0.9, False, True), (0.1, False, False)], 0.5, [0.1, 0.9], []),
])
def test_choose_threshold(points, prior, accepted, rejected):
    th = choose_threshold(points, prior)
    assert all(c >= th for c in accepted) and all(c < th for c in rejected), th


def test_choose_threshold_takes_the_middle_of_a_flat_optimum():
    # the wrong in-scope points between 0.3 and 0.7 can be rejected or not at no cost
    pts = [(0.9, False, True), (0.7, False, False), (0.5, False, False), (0.3, False, False), (0.1, True, False)]
    th = choose_threshold(pts, 0.5)
    assert 0.3 < th < 0.7


def test_features_in_order():
    x = features({"a": 2.0, "b": 0.5, "oos": 1.0}, "a", "oos", coverage=0.75, unseen=0.25, units=3)
    assert len(x) == len(FEATURES)
    d = dict(zip(FEATURES, x))
    assert d["top"] == 2.0 and d["gap"] == 1.5 and d["oos_gap"] == -1.0
    assert 0.0 < d["entropy"] < 1.0 and d["coverage"] == 0.75 and d["unseen"] == 0.25
    assert d["length"] == pytest.approx(math.log(4))


def test_entropy_is_low_for_one_winner_and_high_for_a_tie():
    one = dict(zip(FEATURES, features({"a": 3.0, "b": 0.0, "c": 0.0}, "a", None, 1.0, 0.0, 2)))
    tie = dict(zip(FEATURES, features({"a": 1.0, "b": 1.0, "c": 1.0}, "a", None, 1.0, 0.0, 2)))
    assert one["entropy"] < 0.05 and tie["entropy"] == pytest.approx(1.0)


def test_fit_weighs_the_out_of_scope_negatives_up_and_picks_a_threshold():
    rng = random.Random(5)
    xs, is_oos, right = [], [], []
    for _ in range(300):  # in scope and right: high coverage
        xs.append([rng.gauss(0.9, 0.1)]); is_oos.append(False); right.append(True)
    for _ in range(10):  # out of scope: low coverage, few of them
        xs.append([rng.gauss(0.2, 0.1)]); is_oos.append(True); right.append(False)
    m = fit(xs, is_oos, right, oos_prior=0.5)
    assert m.weights[0] > 0
    assert m.probability([0.9]) >= m.threshold > m.probability([0.2])


def test_folds_are_stratified_and_cover_every_record():
    labels = ["a"] * 10 + ["b"] * 7 + ["oos"] * 3
    fold = folds_of(labels, 5, seed=1)
    assert sorted(set(fold)) == [0, 1, 2, 3, 4]
    for y in ("a", "b"):
        per = [sum(1 for f, l in zip(fold, labels) if l == y and f == k) for k in range(5)]
        assert max(per) - min(per) <= 1
    assert len({f for f, l in zip(fold, labels) if l == "oos"}) == 3  # the small class is spread


#: toy data exercises the rejection mechanism; real packs need MIN_CALIBRATION records for it
TOY = [(t, "light.on") for t in ("turn on the light", "switch the lamp on", "lights on please", "light up the room",
                                 "turn the lights on", "put the light on", "make it bright", "lamp on")] + \
      [(t, "music.play") for t in ("play some music", "play a song", "put on some jazz", "start the music",
                                   "play my playlist", "i want to hear music", "music please", "play rock")] + \
      [(t, "oos") for t in ("what is the capital of peru", "tell me a joke", "how tall is everest", "i am hungry",
                            "who won the game", "what is love", "book a flight", "how old are you")]


def test_train_fits_a_rejection_model_that_round_trips():
    m = train(TOY, oos_label="oos", epochs=5, folds=4, min_calibration=(0, 0))
    assert m.reject is not None and 0.0 <= m.reject.threshold <= 1.0
    assert m.report["folds"] == 4 and m.report["n"] == len(TOY) and m.report["n_oos"] == 8
    assert m.vocab["wlight"] and all(isinstance(i, int) for i in m.vocab["wlight"])
    back = IntentModel.from_json(m.to_json())
    assert back.reject == m.reject and back.vocab == m.vocab and back.margin == m.margin and back.report == m.report
    text = normalize("play a song").text
    assert back.confidence(text) == m.confidence(text)


def test_cross_validation_scores_each_example_by_a_model_that_did_not_see_it():
    held = cross_validate(TOY, oos_label="oos", epochs=5, folds=4)
    assert len(held) == len(TOY)
    # a held-out utterance's words are partly unseen by its fold's model; seen by the final one
    assert any(h.x is not None and h.x[FEATURES.index("unseen")] > 0 for h in held)


def test_train_without_calibration():
    m = train(TOY, oos_label="oos", epochs=5, folds=0)
    assert m.reject is None and m.margin is None and m.threshold == 0.0
    with pytest.raises(ValueError):
        train(TOY, folds=1)


def test_decide_uses_the_confidence_of_the_top_in_scope_intent():
    m = train(TOY, oos_label="oos", epochs=5, folds=4, min_calibration=(0, 0))
    rec = IntentRecognizer([IntentSpec("light.on"), IntentSpec("music.play")], m, None)
    ranked = rec.score(normalize("play some music").text)
    assert ranked[0].intent == "music.play" and ranked[0].confidence is not None
    assert all(r.confidence is None for r in ranked[1:])
    top, oos, _ = rec.decide(ranked)
    assert (top is None) == oos == (ranked[0].confidence < m.reject.threshold)


def test_a_fixed_threshold_replaces_the_rejection_on_a_copy():
    from hermesd.nlu.parser import NluEngine

    m = train(TOY, oos_label="oos", epochs=5, folds=4, min_calibration=(0, 0))
    eng = NluEngine([IntentSpec("light.on"), IntentSpec("music.play")], m, oos_threshold=-1000.0)
    assert eng.model.reject is None and eng.model.threshold == -1000.0
    assert m.reject is not None and m.threshold != -1000.0  # the trained model is untouched
    ranked = eng.recognizer.score(normalize("how tall is everest really").text)
    top, oos, _ = eng.recognizer.decide(ranked)
    assert oos == (ranked[0].intent == "oos")  # only the out-of-scope class rejects


def test_the_ambiguity_margin_comes_from_the_model_unless_set():
    m = train(TOY, oos_label="oos", epochs=5, folds=4, min_calibration=(0, 0))
    assert m.margin is not None and m.margin >= 0.0
    ranked = IntentRecognizer([], m, None).score(normalize("play the light").text)
    gap = ranked[0].score - ranked[1].score
    for margin in (0.0, gap + 1.0):
        _, oos, amb = IntentRecognizer([], m, margin).decide(ranked)
        assert amb == (not oos and gap < margin)


def test_a_small_pack_keeps_its_own_phrasings_in_scope():
    """Thirteen examples cannot fit a rejection model: the calibration keeps the in-scope records
    (a cut fitted on a handful of out-of-fold scorings once rejected every training sentence)."""
    from hermesd.nlu.intents import IntentRecognizer, IntentSpec, train
    from hermesd.nlu.normalize import normalize

    lights = ["turn on the light", "switch the lamp on", "lights on please", "开灯", "把灯打开"]
    send = ["send the quote to zhang", "email the report", "把报价单发给张工", "发一下文件", "send it over"]
    oos = ["tell me a joke", "讲个笑话", "what's the weather on mars"]
    examples = ([(normalize(t).text, "light.on") for t in lights] + [(normalize(t).text, "doc.send") for t in send]
                + [(normalize(t).text, "oos") for t in oos])
    model = train(examples, epochs=5, oos_label="oos", folds=5)
    assert model.reject is None
    specs = [IntentSpec("light.on", keywords=("light",)), IntentSpec("doc.send", keywords=("send",))]
    rec = IntentRecognizer(specs, model)
    for text, gold in [("turn on the light", "light.on"), ("please switch the lamp on", "light.on"),
                       ("send it over", "doc.send")]:
        assert rec.decide(rec.score(normalize(text).text))[0] == gold, text
    assert rec.decide(rec.score(normalize("tell me a joke").text))[0] is None


def test_budget_threshold_rejects_the_most_out_of_scope_within_the_in_scope_budget():
    # 100 in-scope points: 90 right at confidences 0.10 … 0.99, 10 wrong low; 10 out of scope low
    right = [(0.10 + i * 0.01, False, True) for i in range(90)]
    wrong = [(0.05, False, False)] * 10
    oos = [(0.01 * (i + 1), True, False) for i in range(10)]
    pts = right + wrong + oos
    # a 2-point budget (2 of 100 in-scope records) may drop the two least confident right points
    th, led = budget_threshold(pts, [False] * len(pts), 0.5, 0.02)
    assert th == pytest.approx(0.12) and led == pytest.approx(0.5)
    kept = sum(1 for c, o, ok in pts if not o and ok and c >= th)
    assert kept == 88
    # no budget: every right point is kept; the cut is the least confident right point
    assert budget_threshold(pts, [False] * len(pts), 0.5, 0.0)[0] == pytest.approx(0.10)


def test_budget_threshold_drops_a_led_cut_that_alone_spends_more_than_the_budget():
    pts = [(0.2 + i * 0.001, False, True) for i in range(100)] + [(0.1, True, False)]
    leads = [i < 10 for i in range(100)] + [True]  # ten right points where the out-of-scope class leads
    th, led = budget_threshold(pts, leads, 0.9, 0.05)  # the led cut would reject all ten: over 5 points
    assert led is None and th == pytest.approx(0.2 + 5 * 0.001)


def test_train_with_an_in_scope_budget_stays_within_it_out_of_fold():
    rng = random.Random(3)
    words = {"weather": ["rain", "sunny", "forecast", "umbrella"], "music": ["song", "play", "album", "tune"],
             "alarm": ["wake", "alarm", "morning", "ring"]}
    ex = [(" ".join(rng.sample(ws, 2) + ["please"]), y) for y, ws in words.items() for _ in range(30)]
    ex += [(" ".join(rng.sample(["cats", "purple", "hungry", "football", "poem", "taxes"], 2)), "oos")
           for _ in range(20)]
    m = train(ex, oos_label="oos", folds=3, max_in_scope_loss=0.02)
    r = m.report
    assert r["closed_set_accuracy"] - r["in_scope_accuracy"] <= 0.02 + 1e-9
