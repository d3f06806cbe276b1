"""Compiled intent packs (``hermesd build-pack``): fresh, stale, damaged, and what the daemon does."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hermesd.nlu import artifact
from hermesd.nlu.intents import IntentRecognizer
from hermesd.nlu.normalize import normalize

from .conftest import REPO

PACK = """\
pack: demo
title: {en: Demo}
gazetteers: {doc_type: {quote: quote, 报价单: quote}}
intents:
  - name: light.on
    templates: ["turn on the {room} light"]
    slots: {room: room}
    keywords: [light]
    examples: [turn on the light, switch the lamp on, lights on please, 开灯, 把灯打开]
  - name: doc.send
    keywords: [send]
    examples: [send the quote to zhang, email the report, 把报价单发给张工, 发一下文件, send it over]
out_of_scope: [tell me a joke, 讲个笑话, what's the weather on mars]
"""


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    d = tmp_path / "intents"
    d.mkdir()
    (d / "demo.yaml").write_text(PACK, encoding="utf-8")
    return d


def _key(d: Path, epochs: int = 5) -> str:
    return artifact.artifact_key([d], artifact.train_params(epochs=epochs))


def test_built_artifact_loads_the_same_model_and_packs(pack: Path) -> None:
    path, built = artifact.build([pack], epochs=5)
    assert path == pack / artifact.ARTIFACT_NAME
    got = artifact.read(path, _key(pack), [str(pack / "demo.yaml")])
    assert got is not None and got.examples == 13 and got.packs.files == [str(pack / "demo.yaml")]
    assert [s.name for s in got.packs.intents] == ["light.on", "doc.send"]
    assert got.packs.intents[0].templates == ("turn on the {room} light",) and got.packs.intents[0].examples == ()
    assert got.packs.gazetteers == {"doc_type": {"quote": "quote", "报价单": "quote"}}
    assert got.packs.titles == {"demo": {"en": "Demo"}}
    assert got.model is not None and built.model is not None
    assert got.model.threshold == built.model.threshold and got.model.oos_label == "oos"
    text = normalize("please switch the lamp on").text
    assert got.model.scores(text) == built.model.scores(text)
    rec = IntentRecognizer(got.packs.intents, got.model)
    assert rec.decide(rec.score(text))[0] == "light.on"


@pytest.mark.parametrize("change", ["edit", "new_file", "epochs"])
def test_artifact_is_stale_when_sources_or_params_change(pack: Path, change: str) -> None:
    path, _ = artifact.build([pack], epochs=5)
    epochs = 5
    if change == "edit":
        (pack / "demo.yaml").write_text(PACK.replace("lights on please", "lights on now"), encoding="utf-8")
    elif change == "new_file":
        (pack / "more.yaml").write_text("pack: more\nintents: []\n", encoding="utf-8")
    else:
        epochs = 6
    assert artifact.read(path, _key(pack, epochs)) is None


@pytest.mark.parametrize("damage", ["magic", "truncated", "model_bytes", "header_type", "model_type"])
def test_damaged_artifact_is_an_error_not_a_crash(pack: Path, damage: str) -> None:
    path, _ = artifact.build([pack], epochs=5)
    data = path.read_bytes()
    head, _, model = data.partition(b"\n")[2].partition(b"\n")
    magic = data.split(b"\n", 1)[0] + b"\n"
    if damage == "magic":
        data = b"\x80\x04pickle" + data
    elif damage == "truncated":
        data = magic + head[:40]
    elif damage == "model_bytes":
        data = magic + head + b"\n" + model[:-10] + b"0000000000"
    elif damage == "header_type":
        data = magic + head.replace(b'"templates":["turn on the {room} light"]', b'"templates":"x"') + b"\n" + model
    else:
        import hashlib

        import orjson

        bad = model.replace(b'"threshold":', b'"threshold":"high","x":', 1)
        h = orjson.loads(head)
        h.update(model_bytes=len(bad), model_sha256=hashlib.sha256(bad).hexdigest())
        data = magic + orjson.dumps(h) + b"\n" + bad
    path.write_bytes(data)
    with pytest.raises(artifact.ArtifactError):
        artifact.read(path, _key(pack))


def test_build_pack_command_and_check_config(pack: Path, tmp_path: Path) -> None:
    run = [sys.executable, "-m", "hermesd"]
    cfg = tmp_path / "hermesd.yaml"
    rules = tmp_path / "rules"
    rules.mkdir()
    cfg.write_text(f"nlu: {{intent_dirs: [{pack}], train_epochs: 5}}\nsession: {{rules_dir: {rules}}}\n")
    chk = subprocess.run([*run, "check-config", str(cfg)], capture_output=True, text=True, timeout=120)
    assert chk.returncode == 0 and "artifact missing" in chk.stdout
    assert f"hermesd build-pack {pack}" in chk.stderr
    out = subprocess.run([*run, "build-pack", str(pack), "--epochs", "5"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "2 intents, 13 examples" in out.stdout
    chk = subprocess.run([*run, "check-config", str(cfg)], capture_output=True, text=True, timeout=120)
    assert chk.returncode == 0 and "artifact fresh" in chk.stdout and not chk.stderr
    again = subprocess.run([*run, "build-pack", str(pack), "--epochs", "5", "--if-stale"], capture_output=True,
                           text=True, timeout=120)
    assert again.returncode == 0 and "is fresh" in again.stdout
    (pack / "demo.yaml").write_text(PACK + "\n# edited\n", encoding="utf-8")
    chk = subprocess.run([*run, "check-config", str(cfg)], capture_output=True, text=True, timeout=120)
    assert chk.returncode == 0 and "artifact stale" in chk.stdout and "is stale" in chk.stderr
    bad = subprocess.run([*run, "build-pack", str(tmp_path / "nope")], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "not a folder" in bad.stderr


def test_daemon_loads_the_artifact_and_trains_once_without_one(start_daemon, tmp_path: Path) -> None:
    pack = tmp_path / "intents"
    shutil.copytree(REPO / "config" / "intents", pack, ignore=shutil.ignore_patterns(artifact.ARTIFACT_NAME))
    cache = tmp_path / "cache"
    # a generous parse budget: on a loaded machine the first parse after a start (patterns compiled
    # at first use) can pass 500 ms and fall back to keywords, which is not what this test is about
    cfg = {"nlu": {"intent_dirs": [str(pack)], "model_cache_dir": str(cache), "parse_budget_ms": 60_000}}
    d = start_daemon(cfg)
    assert "from=trained" in d.log() and f"prebuild it with hermesd build-pack {pack}" in d.log()
    assert d.call("admin.status")["subsystems"]["nlu"]["compiled"] == "trained"
    first = d.call("nlu.parse", {"text": "把报价单发给张工"})
    d.stop()
    d = start_daemon(cfg)  # the same sources: the cached compile, no training
    assert "from=cache" in d.log()
    assert d.call("nlu.parse", {"text": "把报价单发给张工"})["intents"] == first["intents"]
    d.stop()
    subprocess.run([sys.executable, "-m", "hermesd", "build-pack", str(pack)], check=True, capture_output=True,
                   timeout=300)
    d = start_daemon(cfg)
    assert "from=artifact" in d.log() and "build-pack" not in d.log()
    assert d.call("nlu.parse", {"text": "把报价单发给张工"})["intents"] == first["intents"]
