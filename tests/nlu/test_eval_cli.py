"""The eval CLI on small files written here, and (when present) on the shared data."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import DATA, REPO

HERE = Path(__file__).parent


def run(*args):
    p = subprocess.run([sys.executable, "-m", "hermesd.nlu.eval", *args], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def _write(path: Path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def test_intents_cli(tmp_path):
    train = [{"text": t, "intent": i, "source_split": "train"} for t, i in [
        ("turn on the light", "on"), ("switch the light on", "on"), ("lights on", "on"), ("light on please", "on"),
        ("turn off the light", "off"), ("switch the light off", "off"), ("lights off", "off"), ("light off please", "off"),
        ("tell me a joke", "oos"), ("what's the weather", "oos"), ("who are you", "oos"), ("sing a song", "oos")]]
    test = [{"text": "please switch on the light", "intent": "on", "source_split": "val"},
            {"text": "the lights off now", "intent": "off", "source_split": "val"},
            {"text": "tell me a story", "intent": "oos", "source_split": "val"}]
    f = tmp_path / "d.jsonl"
    _write(f, train + test)
    out = run("intents", "--train", str(f), "--test", str(f), "--split-field", "source_split",
              "--train-splits", "train", "--test-splits", "val", "--cache-dir", str(tmp_path / "c"))
    assert out["n"] == 3 and out["n_train"] == 12 and out["n_oos"] == 1
    for k in ("in_scope_accuracy", "oos_recall", "oos_precision", "macro_f1", "p50_us", "p99_us"):
        assert k in out
    assert out["in_scope_accuracy"] == 1.0
    # the cross-validation estimate beside the test figure, and the curve at several cuts
    assert out["cv"]["folds"] == 5 and out["cv"]["n"] == 12 and out["cv"]["n_oos"] == 4
    # 12 records are too few to fit a rejection model (intents.MIN_CALIBRATION): the score threshold decides
    assert out["reject_threshold"] is None and len(out["curve"]) >= 1


def test_intents_cli_reports_the_rejection_curve(tmp_path):
    """Enough records for a rejection model: its threshold and the curve at several cuts."""
    def phrasings(verbs, objects, ends):
        return [f"{v} the {o}{e}" for v in verbs for o in objects for e in ends]
    on = phrasings(["turn on", "switch on", "power up", "start"], ["light", "lamp", "heater", "fan"], ["", " please", " now"])
    off = phrasings(["turn off", "switch off", "power down", "stop"], ["light", "lamp", "heater", "fan"], ["", " please", " now"])
    # out of scope, some in the intents' own words, so that scores alone cannot tell them apart
    oos = ["tell me a joke", "what's the weather", "who are you", "sing a song", "how tall is everest",
           "what is the capital of france", "i am hungry", "book a flight", "turn the page please",
           "switch the channel", "start the car now", "stop the music", "who built the lamp", "the fan club",
           "power the phone", "the light novel please"]
    train = ([{"text": t, "intent": "on", "source_split": "train"} for t in on]
             + [{"text": t, "intent": "off", "source_split": "train"} for t in off]
             + [{"text": t, "intent": "oos", "source_split": "train"} for t in oos])
    test = [{"text": "please switch on the light", "intent": "on", "source_split": "val"},
            {"text": "the lamp off now", "intent": "off", "source_split": "val"},
            {"text": "tell me a story", "intent": "oos", "source_split": "val"}]
    f = tmp_path / "d.jsonl"
    _write(f, train + test)
    out = run("intents", "--train", str(f), "--test", str(f), "--split-field", "source_split",
              "--train-splits", "train", "--test-splits", "val", "--cache-dir", str(tmp_path / "c"))
    assert out["cv"]["folds"] == 5 and out["cv"]["n"] == len(train) and out["cv"]["n_oos"] == len(oos)
    assert out["reject_threshold"] is not None
    cuts = [c["threshold"] for c in out["curve"]]
    assert len(cuts) >= 5 and cuts == sorted(cuts) and out["reject_threshold"] in cuts
    for c in out["curve"]:
        assert 0.0 <= c["in_scope_accuracy"] <= 1.0 and 0.0 <= c["oos_recall"] <= 1.0 and "cv_oos_recall" in c
    # more rejection never raises in-scope accuracy nor lowers OOS recall
    assert all(a["in_scope_accuracy"] >= b["in_scope_accuracy"] and a["oos_recall"] <= b["oos_recall"]
               for a, b in zip(out["curve"], out["curve"][1:]))


def test_slots_cli(tmp_path):
    rows = [{"text": "wake me tomorrow at 7 am", "entities": [{"slot": "time", "start": 8, "end": 24, "value": "tomorrow at 7 am"}]},
            {"text": "明天下午3点开会", "entities": [{"slot": "time", "start": 0, "end": 6, "value": "明天下午3点"}]},
            {"text": "call mom", "entities": []}]
    f = tmp_path / "s.jsonl"
    _write(f, rows)
    m = tmp_path / "m.yaml"
    m.write_text("time: datetime\n", encoding="utf-8")
    out = run("slots", "--data", str(f), "--map", str(m))
    assert out["types"]["datetime"]["f1"] == 1.0 and out["n"] == 3


def test_temporal_cli_reports_mismatches(tmp_path):
    rows = [{"text": "明天", "ref": "2026-11-29T07:30:00+08:00", "tz": "Asia/Shanghai", "kind": "date", "start": "2026-11-30", "end": "2026-12-01"},
            {"text": "明天", "ref": "2026-11-29T07:30:00+08:00", "tz": "Asia/Shanghai", "kind": "date", "start": "2026-12-25", "end": None}]
    f = tmp_path / "t.jsonl"
    _write(f, rows)
    out = run("temporal", "--data", str(f))
    assert out["correct"] == 1 and len(out["mismatches"]) == 1 and out["mismatches"][0]["expected"]["start"] == "2026-12-25"


@pytest.mark.skipif(not (DATA / "xsid" / "xsid_en.jsonl").exists(), reason="shared data not present (../shared/data)")
def test_xsid_datetime_spans_on_shared_data():
    for lang in ("en", "zh"):
        out = run("slots", "--data", str(DATA / "xsid" / f"xsid_{lang}.jsonl"), "--map", str(HERE / "maps" / "xsid.yaml"),
                  "--tz", "Asia/Shanghai")
        assert out["types"]["datetime"]["f1"] >= 0.85, out


@pytest.mark.skipif(not (DATA / "xsid" / "xsid_zh.jsonl").exists(), reason="shared data not present (../shared/data)")
def test_xsid_intents_on_shared_data(tmp_path):
    for lang, floor in (("zh", 0.85), ("en", 0.83)):
        f = str(DATA / "xsid" / f"xsid_{lang}.jsonl")
        out = run("intents", "--train", f, "--test", f, "--split-field", "source_split", "--train-splits", "valid",
                  "--test-splits", "test", "--cache-dir", str(tmp_path))
        assert out["n_train"] == 228 and out["n"] == 394
        assert out["closed_set_accuracy"] >= floor, out
