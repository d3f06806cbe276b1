"""The softmax learner (:mod:`hermesd.nlu.softmax`) and ``train(learner=...)``: pure, in-process."""

import math

import pytest

from hermesd.nlu.intents import IntentRecognizer, IntentSpec, train
from hermesd.nlu.normalize import normalize
from hermesd.nlu.softmax import fit_softmax

# each class has a word of its own and shares one with another class
VECS = [{"a": 1.0}, {"b": 1.0}, {"c": 0.6, "a": 0.8}, {"b": 0.7, "c": 0.7}] * 10
LABELS = ["x", "y", "x", "y"] * 10


def _probs(w, v, classes):
    sc = {c: sum(a * w.get(k, {}).get(c, 0.0) for k, a in v.items()) for c in classes}
    z = sum(math.exp(x) for x in sc.values())
    return {c: math.exp(x) / z for c, x in sc.items()}


def test_fits_the_training_data_with_calibrated_odds():
    w = fit_softmax(VECS, LABELS, ["x", "y", "z"], 5, 1e-4, 1)
    for v, y in zip(VECS[:4], LABELS[:4]):
        p = _probs(w, v, ["x", "y", "z"])
        assert max(p, key=p.get) == y and 0.5 < p[y] < 1.0
    # a class never seen gets no weight at all (rows stay sparse)
    assert all("z" not in row for row in w.values())


def test_stronger_l2_gives_smaller_weights():
    weak = fit_softmax(VECS, LABELS, ["x", "y"], 5, 1e-4, 1)
    strong = fit_softmax(VECS, LABELS, ["x", "y"], 5, 1e-1, 1)
    norm = lambda w: sum(x * x for r in w.values() for x in r.values())  # noqa: E731
    assert norm(strong) < norm(weak)


def test_scale_multiplies_the_weights():
    w1 = fit_softmax(VECS, LABELS, ["x", "y"], 3, 1e-4, 1)
    w4 = fit_softmax(VECS, LABELS, ["x", "y"], 3, 1e-4, 1, scale=0.25)
    assert w4["a"]["x"] == pytest.approx(w1["a"]["x"] * 0.25, abs=1e-5)


def test_unknown_label_is_an_error():
    with pytest.raises(ValueError):
        fit_softmax([{"a": 1.0}], ["q"], ["x", "y"], 1, 1e-4, 1)


EXAMPLES = [("turn on the light", "light.on"), ("switch the lamp on", "light.on"), ("lights on please", "light.on"),
            ("turn off the light", "light.off"), ("switch the lamp off", "light.off"), ("lights off", "light.off"),
            ("play some music", "music.play"), ("put on a song", "music.play"), ("play jazz", "music.play")]


def test_train_with_the_softmax_learner():
    m = train(EXAMPLES, epochs=10, learner="softmax")
    assert m.report["learner"] == "softmax"
    rec = IntentRecognizer([IntentSpec("light.on"), IntentSpec("light.off"), IntentSpec("music.play")], m)
    assert rec.score(normalize("play a song").text)[0].intent == "music.play"
    assert rec.score(normalize("turn the lamp off").text)[0].intent == "light.off"
    assert train(EXAMPLES, epochs=10, learner="softmax").weights == m.weights  # deterministic


def test_unknown_learner_is_an_error():
    with pytest.raises(ValueError):
        train(EXAMPLES, learner="forest")
