"""The intent model's compact tables: the same scores as the plain dicts it is built from, bit for
bit; a JSON round trip that keeps every double; a damaged file refused with ValueError."""

from collections import defaultdict

import orjson
import pytest

from hermesd.nlu.features import raw_features, tfidf_vector
from hermesd.nlu.intents import IntentModel, train
from hermesd.nlu.normalize import normalize

from .test_intents import EXAMPLES

# phrasings written for this test, none of them a training example
UNSEEN = ["switch the light on now", "could you play a little jazz", "lights off in the kitchen", "music please",
          "turn everything off", "把灯打开", "what is the weather", ""]


def _dict_scores(idf, weights, text):
    """The scorer as it was over dicts of dicts: the reference for the compact tables."""
    sc = defaultdict(float)
    for k, a in tfidf_vector(raw_features(text), idf).items():
        for c, x in weights.get(k, {}).items():
            sc[c] += a * x
    return dict(sc)


@pytest.fixture(scope="module")
def model():
    return train(EXAMPLES, epochs=5)


def test_compact_scores_equal_the_dict_scores_exactly(model):
    idf, weights = model.idf, model.weights
    assert weights and idf
    for t in UNSEEN + [t for t, _ in EXAMPLES]:
        text = normalize(t).text
        got = model.scores(text)
        assert list(got.items()) == list(_dict_scores(idf, weights, text).items())  # same order, same floats


def test_json_round_trip_keeps_every_double(model):
    back = IntentModel.from_json(model.to_json())
    assert back == model
    assert back.weights == model.weights and back.idf == model.idf and back.vocab == model.vocab
    for t in UNSEEN:
        text = normalize(t).text
        assert back.analyse(text) == model.analyse(text)


def test_a_model_from_dicts_drops_weights_no_text_can_activate():
    m = IntentModel(["a", "b"], {"wx": 1.0}, {"wx": {"a": 0.5, "b": -0.5}, "wy": {"a": 9.0}}, 0.0, vocab={"wx": [0]})
    assert m.weights == {"wx": {"a": 0.5, "b": -0.5}} and m.vocab == {"wx": [0]}
    assert m.scores("x y") == {"a": 0.5, "b": -0.5}


@pytest.mark.parametrize("damage", [
    lambda d: d.update(version=7),
    lambda d: d["features"].append(d["features"][0]),  # a feature twice
    lambda d: d["w"].update(le=d["w"]["le"][:-4]),  # truncated weights
    lambda d: d["cls"].update(type="q"),  # a typecode the model never writes
    lambda d: d["row"].update(le="@@@@"),  # not base64
    lambda d: d.update(vocab={"wlight": [99]}),  # a class index out of range
])
def test_a_damaged_model_is_refused(model, damage):
    d = orjson.loads(model.to_json())
    damage(d)
    with pytest.raises(ValueError):
        IntentModel.from_json(orjson.dumps(d))


def test_replace_shares_the_tables_and_changes_only_what_it_names(model):
    before = model.threshold
    copy = model.replace(threshold=before - 1.0, margin=0.25)
    assert (copy.threshold, copy.margin) == (before - 1.0, 0.25) and model.threshold == before
    assert copy.scores("play music") == model.scores("play music")
    with pytest.raises(TypeError):
        model.replace(classes=["x"])
