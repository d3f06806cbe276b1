"""Replay of recorded SGD and xSID dialogues through a real hermesd with the SGD pack.

Reads ``../shared/data`` (skipped with a reason when it is absent). The pack is built for the
test by ``scripts/build_sgd_pack.py`` (it is generated, never committed) into a scratch folder
the tool workers may read, and started from its own ``hermesd.yaml`` (its folders named
relative to that file); its tools share two handler modules (``tools/_sgd/``), which the
sandboxed workers import. The four SGD dialogues (one per service kind) are held in: their
annotated API calls are written out below and must be made exactly — method and arguments —
and a transactional one only after the recorded user's confirmation.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Iterator
from pathlib import Path

import pytest
import yaml

from hermesd import replay
from hermesd.client import Client
from hermesd.replay import run_replay, run_xsid

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"

pytestmark = [pytest.mark.skipif(not (DATA / "sgd" / "sgd_turns.jsonl").exists(),
                                reason="public dialogue data not found at ../shared/data (see its README)"),
              # the first test also waits for the pack build in its fixture: minutes on a loaded box
              pytest.mark.timeout(1800)]

#: dialogue id → its annotated API calls (from sgd_turns.jsonl), in order
EXPECTED = {
    "train_2_00012": [
        ("FindRestaurants", {"city": "San Francisco", "cuisine": "Burmese"}),
        ("ReserveRestaurant", {"city": "San Francisco", "date": "2019-03-07", "party_size": "4",
                               "restaurant_name": "Burma Love", "time": "19:00"})],
    "train_11_00068": [("FindEvents", {"category": "Music", "city_of_event": "Phoenix"})],
    "train_38_00087": [("GetEvents", {"event_date": "2019-03-09"}),
                       ("GetAvailableTime", {"event_date": "2019-03-09"})],
    "test_5_00044": [("GetAlarms", {}), ("AddAlarm", {"new_alarm_name": "Phone home", "new_alarm_time": "16:00"})],
}
TRANSACTIONAL = {"ReserveRestaurant", "AddAlarm"}


@pytest.fixture(scope="module")
def built_pack(pack_env: dict[str, str]) -> Iterator[Path]:
    """The SGD pack built from the shared data into a scratch folder (0755: workers run as another user),
    through the session's pack cache (``pack_cache`` in ``tests/conftest.py``: an install test may
    have built it already)."""
    root = Path(tempfile.mkdtemp(prefix="hd-sgd-", dir="/tmp"))
    os.chmod(root, 0o755)
    subprocess.run([sys.executable, str(REPO / "scripts" / "build_sgd_pack.py"), "--out", str(root / "sgd")],
                   check=True, capture_output=True, timeout=1200, env=pack_env)  # hang guard only
    assert not (root / "sgd" / "tools" / "sgd_track" / "handler.py").exists()  # one shared source
    yield root / "sgd"
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def sgd_config(built_pack: Path) -> Path:
    """The built pack's own hermesd.yaml, as it is: its intents, rules and tools folders are
    named relative to the file, so it starts the pack wherever the pack was built."""
    layer = yaml.safe_load((built_pack / "hermesd.yaml").read_text())
    assert (layer["nlu"]["intent_dirs"], layer["session"]["rules_dir"], layer["tools"]["tools_dir"]) == \
        (["intents"], "rules", "tools")
    return built_pack / "hermesd.yaml"


@pytest.fixture(scope="module")
def dialogues_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sgd") / "few.jsonl"
    with (DATA / "sgd" / "sgd_turns.jsonl").open() as f, out.open("w") as w:
        for line in f:
            if json.loads(line)["dialogue_id"] in EXPECTED:
                w.write(line)
    return out


def _fold(args: dict) -> dict:
    return {k.lower(): " ".join(str(v).split()).lower() for k, v in args.items()}


@pytest.fixture
def results_dir() -> Iterator[Path]:
    """Where the recorded results go: the folder the sandboxed SGD tools may read (their grant is
    ``replay.RESULTS_ROOT``; pytest's own tmp_path is under a 0700 folder no tool worker can enter)."""
    folder = replay.results_folder()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_short_sgd_dialogues_make_exactly_the_annotated_calls(start_daemon, sgd_config, dialogues_file,
                                                             results_dir) -> None:
    d = start_daemon(None, args=("--config", str(sgd_config)))
    out = io.StringIO()
    res = run_replay(d.socket, dialogues_file, results_file=results_dir / "results.jsonl", out=out)
    by_id = {x["dialogue_id"]: x for x in res["dialogues"]}
    assert set(by_id) == set(EXPECTED)
    for did, calls in EXPECTED.items():
        made = by_id[did]["calls_made"]
        assert [(c["method"], _fold(c["args"])) for c in made] == [(m, _fold(a)) for m, a in calls], did
        for c in made:
            assert c["confirmed"] == (c["method"] in TRANSACTIONAL), (did, c)
    overall = res["overall"]
    assert overall["call_recall"] == overall["call_precision"] == 1.0
    assert overall["false_transactional_calls"] == 0
    assert overall["dialogues_all_calls_matched"] == len(EXPECTED)
    assert "overall" in out.getvalue() and "recall" in out.getvalue()
    # the same through the command line, as JSON
    cli = subprocess.run([sys.executable, "-c", "from hermesd.cli import ctl_main; ctl_main()", "--socket",
                          str(d.socket), "replay", str(dialogues_file), "--json", "--limit", "1",
                          "--results", str(results_dir / "cli-results.jsonl")],
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    table = json.loads(cli.stdout)
    assert table["overall"]["dialogues"] == 1 and table["overall"]["false_transactional_calls"] == 0
    assert table["overall"]["call_recall"] == 1.0


def test_a_call_not_in_the_results_file_gets_no_results(start_daemon, sgd_config, dialogues_file,
                                                        results_dir) -> None:
    """The tools answer only recorded calls: with an empty results file the Find returns
    nothing, so no restaurant is offered and no reservation is made."""
    d = start_daemon(None, args=("--config", str(sgd_config)))
    empty = results_dir / "empty.jsonl"
    empty.write_text("")
    turns = replay.load_dialogues(dialogues_file)["train_2_00012"]
    with Client(d.socket) as c:
        c.call("memory.put", {"session_id": f"user:{os.getuid()}", "anchor": "sgd_results_file",
                              "data": {"value": str(empty)}})
        r = replay._replay_dialogue(c, turns, [])
    assert [m for (m, _), _ in r["made"]] == ["FindRestaurants"]


@pytest.mark.skipif(not (DATA / "xsid" / "xsid_zh.jsonl").exists(), reason="xSID data not found")
def test_xsid_chinese_single_turn_sessions(start_daemon, tmp_path) -> None:
    """Chinese utterances end to end on the shipped packs: every record answered in its own
    session, datetimes resolved by the daemon where xSID annotates one."""
    d = start_daemon({})
    res = run_xsid(d.socket, DATA / "xsid" / "xsid_zh.jsonl", limit=40, out=io.StringIO())
    o = res["overall"]
    assert o["records"] == 40
    assert o["datetime_annotated"] > 0
    assert o["datetime_resolved"] / o["datetime_annotated"] >= 0.5
    assert o["in_scope_records"] > 0  # the first 40 hold reminders, which the shipped office pack covers


def test_the_pack_daemon_never_imports_pydantic(start_daemon, sgd_config) -> None:
    """Issue 15: the SGD pack's rules, tools and config are :mod:`hermesd.typed` models too."""
    d = start_daemon(None, args=("--config", str(sgd_config)))
    d.call("nlu.parse", {"text": "I'd like to find a restaurant in San Jose"})
    packages = d.call("admin.memory")["packages"]
    assert "hermesd" in packages and "pydantic" not in packages, packages
