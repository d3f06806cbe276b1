"""Replay of recorded CrossWOZ dialogues through a real hermesd on the CrossWOZ pack.

The pack is built for the test (``crosswoz_pack`` in ``conftest.py``: generated parts are never
committed) and the daemon is started on the built pack's own ``hermesd.yaml``, as it is — every
folder it names is relative to the file, and the daemon runs in another working directory; its
tool reads the database at ``../shared/data/crosswoz/database`` through its ``{data_dir}`` grant
and imports its one handler source (``tools/_cw/``). Reads ``../shared/data`` (skipped with a
reason when it is absent). The three dialogues are held in (they are among those that build the
pack); their annotated change points are written out below and must be queried exactly, with
no other query.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hermesd.client import Client
from hermesd.replay_crosswoz import fold, run_crosswoz

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data" / "crosswoz"

pytestmark = [pytest.mark.skipif(not (DATA / "crosswoz_turns.jsonl").exists(),
                                reason="public dialogue data not found at ../shared/data (see its README)"),
              # the first test also waits for the pack build in its fixture: minutes on a loaded box
              pytest.mark.timeout(1800)]

#: dialogue id → (user turn, domain, constraints) of every change point of its api_call, in order
EXPECTED = {
    # five domains, one after another
    "8408": [(0, "景点", {"游玩时间": "1小时 - 2小时"}),
             (6, "酒店", {"评分": "4.5分以上", "价格": "400-500元", "酒店设施": "中式餐厅"}),
             (12, "地铁", {"出发地": "前门大街", "目的地": "北京京泰龙国际大酒店"}),
             (14, "出租", {"出发地": "前门大街", "目的地": "北京京泰龙国际大酒店"}),
             (16, "餐馆", {"评分": "5分", "人均消费": "50-100元"})],
    # an attraction near the hotel found first (a cross-domain constraint)
    "10377": [(0, "酒店", {"价格": "500-600元", "酒店设施": "行李寄存 健身房"}),
              (4, "景点", {"游玩时间": "2小时", "周边酒店": "北京海润艾丽华酒店及服务公寓"}),
              (8, "地铁", {"出发地": "北京海润艾丽华酒店及服务公寓", "目的地": "北京大学"}),
              (10, "出租", {"出发地": "北京海润艾丽华酒店及服务公寓", "目的地": "北京大学"})],
    # a restaurant by its name
    "6319": [(0, "景点", {"门票": "100-150元", "游玩时间": "1小时"}),
             (6, "餐馆", {"名称": "庆丰包子铺(前门店)"}),
             (10, "出租", {"出发地": "世界公园美洲区", "目的地": "庆丰包子铺(前门店)"}),
             (12, "酒店", {"酒店设施": "公共区域提供wifi"})],
}


@pytest.fixture(scope="module")
def dialogues_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("crosswoz") / "few.jsonl"
    with (DATA / "crosswoz_turns.jsonl").open(encoding="utf-8") as f, out.open("w", encoding="utf-8") as w:
        for line in f:
            if str(json.loads(line)["dialogue_id"]) in EXPECTED:
                w.write(line)
    return out


@pytest.fixture
def pack_daemon(start_daemon, crosswoz_pack):
    """A daemon started by the built pack's own hermesd.yaml alone."""
    layer = yaml.safe_load((crosswoz_pack / "hermesd.yaml").read_text(encoding="utf-8"))
    assert (layer["nlu"]["intent_dirs"], layer["session"]["rules_dir"], layer["tools"]["tools_dir"]) == \
        (["intents"], "rules", "tools")
    assert Path(layer["tools"]["data_dir"]) == (DATA / "database").resolve()
    assert not (crosswoz_pack / "tools" / "crosswoz_query" / "handler.py").exists()  # one shared source
    return start_daemon(None, args=("--config", str(crosswoz_pack / "hermesd.yaml")))


def _folded(c: dict) -> dict:
    return {k: fold(v) for k, v in c.items()}


def test_held_in_dialogues_make_exactly_the_annotated_queries(pack_daemon, dialogues_file) -> None:
    out = io.StringIO()
    res = run_crosswoz(pack_daemon.socket, dialogues_file, out=out)
    by_id = {d["dialogue_id"]: d for d in res["per_dialogue"]}
    assert set(by_id) == set(EXPECTED)
    for did, calls in EXPECTED.items():
        made = [(q["turn"], q["domain"], _folded(q["constraints"])) for q in by_id[did]["queries"]]
        assert made == [(t, d, _folded(c)) for t, d, c in calls], did
        assert by_id[did]["misses"] == [], did
    o = res["overall"]
    assert o["call_recall"] == o["call_precision"] == 1.0
    assert o["calls_counted"] == sum(len(v) for v in EXPECTED.values())
    assert o["requests_counted"] > 0 and o["request_recall"] >= 0.5
    assert set(res["domains"]) == {"景点", "餐馆", "酒店", "地铁", "出租"}
    assert "overall" in out.getvalue() and "recall" in out.getvalue()
    # the same through the command line, recognised as CrossWOZ, as JSON
    cli = subprocess.run([sys.executable, "-c", "from hermesd.cli import ctl_main; ctl_main()", "--socket",
                          str(pack_daemon.socket), "replay", str(dialogues_file), "--json", "--limit", "1"],
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    table = json.loads(cli.stdout)
    assert table["dialogues"] == 1 and table["overall"]["call_recall"] == 1.0


def _talk(c: Client, sid: str, text: str) -> tuple[str, list[dict]]:
    res = c.call("session.turn", {"session_id": sid, "text": text})
    cw = (c.call("session.get", {"session_id": sid}).get("vars") or {}).get("cw") or {}
    return res["reply"]["text"], cw.get("query_log") or []


def _db(name: str) -> dict[str, dict]:
    return {rec["名称"]: rec for _, rec in json.loads((DATA / "database" / name).read_text(encoding="utf-8"))}


def test_references_across_domains_and_several_requests(pack_daemon) -> None:
    """景点附近的酒店 and 从景点打车去餐馆 resolve to the places chosen earlier; two requests in one
    utterance are both answered with the database's values."""
    attractions, hotels = _db("attraction_db.json"), _db("hotel_db.json")
    with Client(pack_daemon.socket) as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        text, log = _talk(c, sid, "帮我找一个评分4.5分以上、门票免费的景点")
        assert log[-1]["domain"] == "景点" and log[-1]["constraints"] == {"评分": "4.5分以上", "门票": "免费"}
        spot = next(n for n in attractions if n in text)
        assert attractions[spot]["门票"] == 0 and attractions[spot]["评分"] >= 4.5
        text, log = _talk(c, sid, "地址在哪，电话是多少？")
        assert attractions[spot]["地址"] in text and attractions[spot]["电话"] in text
        text, log = _talk(c, sid, "我想在景点附近找一家评分4.5分以上的酒店")
        assert log[-1]["domain"] == "酒店"
        assert log[-1]["constraints"] == {"评分": "4.5分以上", "周边景点": spot}
        hotel = next((n for n in hotels if n in text), None)
        assert hotel is None or spot in hotels[hotel]["周边景点"]
        _talk(c, sid, "我还想去四季民福烤鸭店(东四十条店)吃饭")
        text, log = _talk(c, sid, "从景点打车去餐馆，告诉我车型和车牌")
        assert log[-1]["domain"] == "出租"
        assert log[-1]["constraints"] == {"出发地": spot, "目的地": "四季民福烤鸭店(东四十条店)"}


@pytest.mark.parametrize("text, domain, constraints", [
    ("幫我找一家評分4.5分以上的餐廳", "餐馆", {"评分": "4.5分以上"}),             # Traditional characters
    ("评分４．５分以上，人均１００－１５０元的餐馆", "餐馆", {"评分": "4.5分以上", "人均消费": "100-150元"}),  # full width
    ("找一家评分四点五分以上、价格三百到四百元的酒店", "酒店", {"评分": "4.5分以上", "价格": "300-400元"}),  # numerals
    # contradictory: the value said last stands (a correction), one value per slot
    ("帮我找人均50元以下的餐馆，不对，人均100-150元的", "餐馆", {"人均消费": "100-150元"}),
])
def test_other_forms_of_the_same_constraints(pack_daemon, text, domain, constraints) -> None:
    with Client(pack_daemon.socket) as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        reply, log = _talk(c, sid, text)
    assert log and log[-1]["domain"] == domain and log[-1]["constraints"] == constraints
    assert "为您推荐" in reply


def test_what_the_database_lacks_is_said_never_invented(pack_daemon) -> None:
    hotels = _db("hotel_db.json")
    with Client(pack_daemon.socket) as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        reply, _ = _talk(c, sid, "帮我找一家评分5分、价格100-200元的豪华型酒店")
        assert reply.startswith("没有找到") and "最接近的有" in reply
        named = [n for n in hotels if n in reply]
        assert named and all(not (hotels[n]["评分"] == 5 and 100 <= (hotels[n]["价格"] or 0) <= 200
                                  and hotels[n]["酒店类型"] == "豪华型") for n in named)
        reply, log = _talk(c, sid, "我想住叫天安门大饭店的酒店")
        assert reply.startswith("没有找到叫天安门大饭店的酒店")
        assert not any(q["constraints"].get("名称") == "天安门大饭店" for q in log)
        # another language: a sentence in it, nothing queried
        res = c.call("session.turn", {"session_id": sid, "text": "find me a hotel rated above 4.5"})
        assert "Chinese" in res["reply"]["text"]


def test_a_search_with_no_constraint_proposes_a_record_and_alternatives(pack_daemon) -> None:
    """推荐一个北京的景点: a query of every attraction, one proposed, two others named beside it."""
    attractions = _db("attraction_db.json")
    with Client(pack_daemon.socket) as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        reply, log = _talk(c, sid, "推荐一个北京的景点")
        assert log and log[-1]["domain"] == "景点" and log[-1]["constraints"] == {}
        assert reply.startswith("为您推荐景点：") and "也可以看看" in reply
        named = [n for n in attractions if n in reply]
        assert len(named) >= 3
        # "它的电话" next is the proposed one's
        first = reply.removeprefix("为您推荐景点：").split("（")[0]
        assert first in attractions
        reply, _ = _talk(c, sid, "它的电话是多少？")
        assert attractions[first]["电话"] in reply
        # "周边有什么景点" asks for the list beside it; it is no search of every attraction
        before = _talk(c, sid, "周边有什么景点？")[1][-1]["seq"]
        assert _talk(c, sid, "好的")[1][-1]["seq"] == before


def test_the_built_pack_starts_from_its_compiled_intents(pack_daemon, crosswoz_pack) -> None:
    """The builder compiles the intents (``hermesd build-pack``): the daemon loads the act scorer
    from the artifact instead of training it at start (READY in well under a second once built)."""
    assert (crosswoz_pack / "intents" / "pack.compiled").is_file()
    with Client(pack_daemon.socket) as c:
        nlu = c.call("admin.status")["subsystems"]["nlu"]
    assert nlu["compiled"] == "artifact" and nlu["scorer"] is True


def test_these_after_a_failed_nearby_search_are_the_places_offered(pack_daemon) -> None:
    """No economy hotel is listed beside 故宫, so the closest ones offered lie elsewhere; "他们"
    next are those: the search is made without the place (its near slot), the rest kept."""
    hotels = _db("hotel_db.json")
    with Client(pack_daemon.socket) as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        _talk(c, sid, "我想去故宫玩")
        text, log = _talk(c, sid, "故宫附近有经济型的酒店吗？")
        assert log[-1]["constraints"] == {"酒店类型": "经济型", "周边景点": "故宫"}
        assert text.startswith("没有找到") and "最接近的有" in text
        offered = [n for n in hotels if n in text]
        assert offered and all("故宫" not in hotels[n]["周边景点"] for n in offered)
        text, log = _talk(c, sid, "那他们哪家评分是4.5分以上的？")
        assert log[-1]["domain"] == "酒店" and log[-1]["constraints"] == {"酒店类型": "经济型", "评分": "4.5分以上"}
        picked = next(n for n in hotels if text.startswith(f"为您推荐酒店：{n}"))
        assert hotels[picked]["酒店类型"] == "经济型" and hotels[picked]["评分"] >= 4.5


def test_a_taxi_is_offered_then_booked_only_after_its_card_is_confirmed(pack_daemon) -> None:
    with Client(pack_daemon.socket) as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        reply, log = _talk(c, sid, "帮我叫一辆从故宫到颐和园的出租车")
        assert log[-1]["domain"] == "出租" and log[-1]["constraints"] == {"出发地": "故宫", "目的地": "颐和园"}
        assert "叫车" not in reply.split("。")[0] and "要我帮您叫" in reply  # offered, not booked
        cw = c.call("session.get", {"session_id": sid})["vars"]["cw"]
        assert cw["taxi_offer"] == {"from": "故宫", "to": "颐和园"} and "taxi_booked" not in cw
        res = c.call("session.turn", {"session_id": sid, "text": "好的，帮我叫吧"})
        assert res["reply"]["card"]["fields"] == {"出发地": "故宫", "目的地": "颐和园"}
        assert "故宫" in res["reply"]["text"] and "颐和园" in res["reply"]["text"]
        assert "taxi_booked" not in c.call("session.get", {"session_id": sid})["vars"]["cw"]
        res = c.call("session.turn", {"session_id": sid, "text": "是的"})
        assert res["reply"]["text"].startswith("已为您叫车：从故宫到颐和园")
        cw = c.call("session.get", {"session_id": sid})["vars"]["cw"]
        assert cw["taxi_booked"] == {"出发地": "故宫", "目的地": "颐和园"} and "taxi_offer" not in cw
        # turned down: no card, nothing booked
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        _talk(c, sid, "从故宫打车去颐和园")
        res = c.call("session.turn", {"session_id": sid, "text": "不用了，谢谢"})
        assert not res["reply"].get("card")
        assert "taxi_booked" not in (c.call("session.get", {"session_id": sid})["vars"]["cw"])


def test_a_how_to_question_is_answered_from_the_database(pack_daemon) -> None:
    """"从A到B怎么坐地铁" is a how-to question (hermesd.dialogue.howto) to an intent that acts (the
    taxi card): the pack's turn rules read session.asked, so the trip is queried and its stations
    said — not "我讲不了操作步骤"."""
    with Client(pack_daemon.socket) as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        reply, log = _talk(c, sid, "从故宫到颐和园怎么坐地铁？")
    assert log and log[-1]["domain"] == "地铁" and log[-1]["constraints"] == {"出发地": "故宫", "目的地": "颐和园"}
    assert "地铁站" in reply and "操作步骤" not in reply


def test_constraints_that_cannot_both_hold_are_said_back(pack_daemon) -> None:
    attractions = _db("attraction_db.json")
    with Client(pack_daemon.socket) as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        reply, log = _talk(c, sid, "找一个免费的门票200元以上的景点")
    assert "不能同时满足" in reply and "免费" in reply and "200元以上" in reply
    assert log[-1]["constraints"] == {"门票": "200元以上"}
    named = [n for n in attractions if n in reply]
    assert named and all((attractions[n]["门票"] or 0) >= 200 for n in named)


def test_the_pack_daemon_never_imports_pydantic(pack_daemon) -> None:
    """Issue 15: the CrossWOZ pack's rules, tools and config are :mod:`hermesd.typed` models too."""
    pack_daemon.call("nlu.parse", {"text": "帮我找一家评分4.5分以上的餐馆"})
    packages = pack_daemon.call("admin.memory")["packages"]
    assert "hermesd" in packages and "pydantic" not in packages, packages
