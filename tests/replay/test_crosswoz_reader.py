"""The CrossWOZ pack's readers and state rules, in-process (pure given the database).

Table tests of ``config/packs/crosswoz/tools/_cw`` (the code the pack's tool runs): normalising,
number/price/rating/duration readers, the slot a context word gives a number, requests,
trips and references to the place chosen earlier, and how a turn changes the tracked
constraints. The utterances are written for these tests (none is taken from the dialogues).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DB = REPO.parent / "shared" / "data" / "crosswoz" / "database"
sys.path.insert(0, str(REPO / "config" / "packs" / "crosswoz" / "tools" / "_cw"))

import cw_db  # noqa: E402
import cw_read  # noqa: E402
import cw_track  # noqa: E402

pytestmark = pytest.mark.skipif(not (DB / "hotel_db.json").exists(), reason="CrossWOZ database not at ../shared/data")


@pytest.fixture(scope="module")
def lex() -> cw_read.Lexicon:
    return cw_read.Lexicon(cw_db.load(str(DB)))


@pytest.mark.parametrize("text, want", [
    ("评分四点五分以上", "评分4.5分以上"),
    ("人均一百五十元", "人均150元"),
    ("两个小时", "2小时"),
    ("十分感谢", "十分感谢"),              # 十分 is "very", not a rating
    ("价格１００～２００块", "价格100-200元"),
    ("去大三元酒家", "去大三元酒家"),        # a numeral inside a name stays
])
def test_normalize(text: str, want: str) -> None:
    assert cw_read.normalize(text) == want


@pytest.mark.parametrize("text, focus, want", [
    ("找一个评分4.5分以上的景点", None, {"景点": {"评分": "4.5分以上"}}),
    ("想找个免费的景点，能玩3-5小时", None, {"景点": {"门票": "免费", "游玩时间": "3小时 - 5小时"}}),
    ("人均消费在100到150元之间的餐馆", None, {"餐馆": {"人均消费": "100-150元"}}),
    ("价格在300-400元的经济型酒店", None, {"酒店": {"价格": "300-400元", "酒店类型": "经济型"}}),
    # the same words, another domain: 价格 of an attraction is its ticket
    ("价格在20-50元之间的景点", None, {"景点": {"门票": "20-50元"}}),
    ("票价200元以上", "景点", {"景点": {"门票": "200元以上"}}),
    ("有吹风机和叫醒服务的酒店", None, {"酒店": {"酒店设施": "吹风机 叫醒服务"}}),
    ("评分5分的就行", "餐馆", {"餐馆": {"评分": "5分"}}),
])
def test_constraints(lex, text: str, focus: str | None, want: dict) -> None:
    acts = cw_read.read(text, {"focus": focus}, lex)
    assert acts["inform"] == want


@pytest.mark.parametrize("text, want", [
    ("地址在哪，电话是多少？", [("景点", "地址"), ("景点", "电话")]),
    ("它周边有什么酒店和餐馆？", [("景点", "周边酒店"), ("景点", "周边餐馆")]),
    ("门票多少钱？", [("景点", "门票")]),
])
def test_requests_of_the_focus(lex, text: str, want: list) -> None:
    acts = cw_read.read(text, {"focus": "景点", "chosen": {"景点": "故宫"}}, lex)
    assert acts["request"] == want and acts["inform"] == {}


def test_a_yes_no_check_on_the_chosen_place_is_a_question(lex) -> None:
    acts = cw_read.read("它的评分有4.5分以上吗？", {"focus": "餐馆", "chosen": {"餐馆": "白家大院"}}, lex)
    assert acts["inform"] == {} and ("餐馆", "评分") in acts["request"]


def test_trips_and_references_to_chosen_places(lex) -> None:
    state = {"focus": "餐馆", "chosen": {"景点": "故宫", "餐馆": "白家大院"}, "last_place": "白家大院"}
    acts = cw_read.read("从景点打车去餐馆，车牌是多少？", state, lex)
    assert acts["trip"] == {"出租": {"出发地": "故宫", "目的地": "白家大院"}}
    acts = cw_read.read("我想从颐和园坐地铁到北京大学", state, lex)
    assert acts["inform"]["地铁"] == {"出发地": "颐和园", "目的地": "北京大学"}
    acts = cw_read.read("在景点附近帮我找一家评分4分以上的酒店", state, lex)
    assert acts["inform"] == {"酒店": {"评分": "4分以上", "周边景点": "故宫"}}


def test_state_rules() -> None:
    s, changed = cw_track.step({}, {"inform": {"景点": {"评分": "4.5分以上"}}, "names": [], "target": "景点"}, "")
    assert changed == ["景点"] and s["cons"]["景点"] == {"评分": "4.5分以上"}
    # among the places found: narrowed; a new search: stated afresh
    s2, _ = cw_track.step(s, {"inform": {"景点": {"门票": "免费"}}, "names": [], "target": "景点"}, "这些里面哪个免费")
    assert s2["cons"]["景点"] == {"评分": "4.5分以上", "门票": "免费"}
    s3, _ = cw_track.step(s, {"inform": {"景点": {"门票": "免费"}}, "names": [], "target": "景点"}, "再找一个免费的")
    assert s3["cons"]["景点"] == {"门票": "免费"}
    # a place named as the goal of a domain with no constraints yet
    s4, changed = cw_track.step({}, {"inform": {}, "names": [("餐馆", "白家大院")], "target": None}, "")
    assert changed == ["餐馆"] and s4["cons"]["餐馆"] == {"名称": "白家大院"} and s4["chosen"]["餐馆"] == "白家大院"


@pytest.mark.parametrize("want, have, ok", [
    ("4.5分以上", 4.7, True), ("4.5分以上", 4.4, False), ("5分", 5, True), ("100-150元", 150, True),
    ("100-150元", 151, False), ("免费", 0, True), ("免费", None, False), ("200元以上", 200, True),
    ("50元以下", 51, False),
])
def test_database_ranges(want: str, have, ok: bool) -> None:
    assert cw_db.numeric_ok(want, have) is ok


def test_a_value_said_of_the_chosen_place_starts_no_query() -> None:
    """With a place chosen, a value said without a word that looks for a place (找, 推荐, 哪家 …)
    checks or praises that place; with one, it is a search."""
    s = {"cons": {"酒店": {"评分": "4.5分以上"}}, "chosen": {"酒店": "北京饭店"}, "focus": "酒店"}
    acts = {"inform": {"酒店": {"酒店类型": "经济型"}}, "names": [], "target": "酒店"}
    _, changed = cw_track.step(s, acts, "真是一个经济实惠的酒店呢，谢谢你啊！")
    assert changed == []
    s2, changed = cw_track.step(s, acts, "再帮我找个经济型的酒店")
    assert changed == ["酒店"] and s2["cons"]["酒店"] == {"酒店类型": "经济型"}
    # 再 that closes or defers (到时再联系, 再说) looks for nothing: a question about the chosen hotel
    wifi = {"inform": {"酒店": {"酒店设施": "公共区域提供wifi"}}, "names": [], "target": "酒店"}
    _, changed = cw_track.step(s, wifi, "也对，到时再联系。那酒店的公共区域提供wifi吗？")
    assert changed == []
    _, changed = cw_track.step(s, wifi, "那再找一个公共区域提供wifi的吧")
    assert changed == ["酒店"]


@pytest.mark.parametrize("slot, said, want", [
    ("酒店类型", "经济", "经济型"),                    # begins one database value
    ("酒店设施", "残疾人 吹风机", "残疾人设施 吹风机"),  # each part of a list on its own
    ("酒店设施", "叫醒", "叫醒服务"),
    ("酒店设施", "服务", "服务"),                      # ends several: kept as said
    ("价格", "300-400元", "300-400元"),                # not a categorical slot
])
def test_values_in_the_databases_own_words(slot: str, said: str, want: str) -> None:
    assert cw_db.canonical("酒店", slot, said, cw_db.load(str(DB))) == want


def test_the_parts_of_one_utterance_query_each_domain_once() -> None:
    """Two requests of one utterance run the tool twice with the same turn: the later part's
    query of a domain replaces the earlier one's, the turn's queries numbered on from before it."""
    import query
    prior = {"queries_made": 3, "query_log": [{"seq": 3, "domain": "景点", "constraints": {"评分": "5分"}, "turn": 1}],
             "turn": 1, "turn_base": 2}
    part1: dict = {}
    query._log_queries(prior, part1, [{"domain": "餐馆", "constraints": {"评分": "4分以上"}},
                                      {"domain": "酒店", "constraints": {"价格": "300-400元"}}], 2)
    assert part1["queries_made"] == 5 and part1["turn_base"] == 3
    part2: dict = {}
    query._log_queries(part1, part2, [{"domain": "餐馆", "constraints": {"评分": "4分以上", "人均消费": "50元以下"}}], 2)
    assert part2["queries_made"] == 5
    assert [(q["seq"], q["domain"], q["constraints"]) for q in part2["query_log"]] == [
        (3, "景点", {"评分": "5分"}), (4, "酒店", {"价格": "300-400元"}),
        (5, "餐馆", {"评分": "4分以上", "人均消费": "50元以下"})]
    nxt: dict = {}
    query._log_queries(part2, nxt, [{"domain": "景点", "constraints": {}}], 3)  # the next turn
    assert nxt["queries_made"] == 6 and nxt["turn_base"] == 5


@pytest.mark.parametrize("text, focus, want", [
    # a rating wished for below the top mark is a floor; 5分 is itself
    ("帮我找一个评分4分的景点", None, {"景点": {"评分": "4分以上"}}),
    ("评分是4.5分的酒店", None, {"酒店": {"评分": "4.5分以上"}}),
    ("评分5分的餐馆", None, {"餐馆": {"评分": "5分"}}),
    # two numbers run together before 小时 are a range
    ("推荐一个能玩1、2个小时的景点", None, {"景点": {"游玩时间": "1小时 - 2小时"}}),
    # a ticket that is not free, and one that is
    ("找一个票价不免费的景点", None, {"景点": {"门票": "1元以上"}}),
    ("找一个不收取门票的景点", None, {"景点": {"门票": "免费"}}),
    # a generic price word takes the price of the kind of place looked for
    ("看看哪里是消费为400-500元的酒店", None, {"酒店": {"价格": "400-500元"}}),
    # a search said with 有…的餐馆…吗 is a search, even with 它 in it
    ("我想吃佛跳墙，有评分达到5分的餐馆能吃到它吗？", None, {"餐馆": {"评分": "5分", "推荐菜": "佛跳墙"}}),
])
def test_constraints_by_rules_of_the_language(lex, text: str, focus: str | None, want: dict) -> None:
    acts = cw_read.read(text, {"focus": focus}, lex)
    assert acts["inform"] == want


def test_values_that_cannot_both_hold_are_reported_unless_corrected(lex) -> None:
    acts = cw_read.read("找一个免费的门票200元以上的景点", {}, lex)
    assert acts["conflicts"] == [("景点", "门票", "免费", "200元以上")] and acts["inform"]["景点"] == {"门票": "200元以上"}
    assert cw_read.read("人均50元以下，不对，人均100-150元的餐馆", {}, lex)["conflicts"] == []
    assert cw_read.read("评分4分以上、4.5分以上的酒店", {}, lex)["conflicts"] == []  # both can hold


def test_a_question_about_a_place_goes_to_a_domain_that_has_one(lex) -> None:
    """Only a hotel is chosen: "它家周边有啥好吃的餐馆" asks for the hotel's 周边餐馆, and
    "电话发我吧" is the hotel's phone — not of a restaurant nobody has chosen."""
    state = {"focus": "酒店", "chosen": {"酒店": "北京饭店"}}
    assert cw_read.read("它家周边有啥好吃的餐馆吗？", state, lex)["request"] == [("酒店", "周边餐馆")]
    assert ("酒店", "电话") in cw_read.read("可以，电话发我吧！还有周边有好吃的餐馆么？", state, lex)["request"]
    assert ("餐馆", "游玩时间") not in cw_read.read("这里游玩时间是多久。", {"focus": "景点", "chosen": {"景点": "故宫"}},
                                                  lex)["request"]
    assert cw_read.read("这里游玩时间是多久。", {"focus": "景点", "chosen": {"景点": "故宫"}}, lex)["request"] == \
        [("景点", "游玩时间")]


def test_a_search_with_no_constraint_and_a_search_beside_listed_places() -> None:
    # 推荐一个景点: every attraction is queried (no constraint), nothing else changes
    s, changed = cw_track.step({}, {"inform": {}, "names": [], "target": "景点", "request": []}, "推荐一个北京的景点")
    assert changed == ["景点"] and s["cons"]["景点"] == {}
    # "周边有什么景点" asks for a list; it is no search
    _, changed = cw_track.step({"chosen": {"酒店": "北京饭店"}}, {"inform": {}, "names": [], "target": "景点",
                                                                 "request": [("酒店", "周边景点")]}, "周边有什么景点推荐吗")
    assert changed == []
    # among the places listed beside a place: that nearby constraint and what is said now, afresh
    s = {"cons": {"酒店": {"酒店设施": "接待外宾"}}, "chosen": {"酒店": "北京饭店"}, "focus": "酒店"}
    acts = {"inform": {"酒店": {"酒店类型": "高档型", "周边餐馆": "白家大院"}}, "names": [], "target": "酒店"}
    s2, changed = cw_track.step(s, acts, "那么在这些附近的酒店里，有高档型的酒店吗？")
    assert changed == ["酒店"] and s2["cons"]["酒店"] == {"酒店类型": "高档型", "周边餐馆": "白家大院"}
    # a turned-down offer: a search afresh, not a narrowing of it
    s = {"cons": {"景点": {"评分": "4.5分以上"}}, "focus": "景点"}
    s3, _ = cw_track.step(s, {"inform": {"景点": {"游玩时间": "1小时"}}, "names": [], "target": "景点"},
                          "你说的这些不太想去，帮我们找个游玩时长是1小时的景点吧")
    assert s3["cons"]["景点"] == {"游玩时间": "1小时"}


def test_nearby_with_nothing_else_asked_is_the_list_beside_the_place(lex) -> None:
    """"推荐一个故宫周边的餐馆" asks nothing of the restaurant but that it be near 故宫: the
    database's list beside 故宫 answers it (a request about 故宫, which becomes the chosen one)."""
    acts = cw_read.read("给我推荐一个故宫周边的餐馆", {}, lex)
    assert acts["inform"] == {} and acts["request"][0] == ("景点", "周边餐馆") and acts["refer"] == [("景点", "故宫")]
    s, changed = cw_track.step({}, acts, "给我推荐一个故宫周边的餐馆")
    assert changed == [] and s["chosen"] == {"景点": "故宫"}
    # with a constraint of its own, it is a search near 故宫
    acts = cw_read.read("给我推荐一个故宫周边评分4.5分以上的餐馆", {}, lex)
    assert acts["inform"] == {"餐馆": {"评分": "4.5分以上", "周边景点": "故宫"}}


@pytest.mark.parametrize("text, want", [
    # 不要免费: a ticket that must cost something, even though 免费 is said again to turn it down
    ("找一个能玩2小时的景点，不要免费的，免费的没意思", {"景点": {"游玩时间": "2小时", "门票": "1元以上"}}),
    # 元一下, the sound-alike typo of 以下 after a price
    ("推荐一个门票30元一下的景点", {"景点": {"门票": "30元以下"}}),
])
def test_prices_said_with_a_negation_or_a_typo(lex, text: str, want: dict) -> None:
    assert cw_read.read(text, {}, lex)["inform"] == want


def test_a_failed_nearby_search_is_made_without_the_place() -> None:
    """"既然（附近）没有，那你推荐一个吧": the search near the chosen hotel found nothing; the new
    one is not near it — while a plain search among the places listed keeps it. (没有 is also a
    dish of the database; the build learns it as an everyday word, ``learned.json``'s stop_dishes.)"""
    lex = cw_read.Lexicon(cw_db.load(str(DB)), stop_dishes={"没有"})
    state = {"focus": "景点", "chosen": {"酒店": "北京饭店"}, "listed": {"景点": ["周边酒店", "北京饭店"]}}
    acts = cw_read.read("本来想在北京饭店附近找个景点，既然没有，那帮我推荐一个评分4.5分以上的景点吧", state, lex)
    assert acts["inform"] == {"景点": {"评分": "4.5分以上"}}
    acts = cw_read.read("本想在北京饭店附近找个景点，那推荐一个免费的吧，不在附近也行", state, lex)
    assert acts["inform"] == {"景点": {"门票": "免费"}}
    acts = cw_read.read("这些景点里有评分4.5分以上的吗", state, lex)
    assert acts["inform"] == {"景点": {"评分": "4.5分以上", "周边酒店": "北京饭店"}}


def test_a_count_of_dishes_is_no_reference_to_listed_places(lex) -> None:
    """"有这两道菜的餐馆" counts dishes; "这两家" would point at the restaurants listed."""
    state = {"focus": "餐馆", "chosen": {"景点": "故宫"}, "listed": {"餐馆": ["周边景点", "故宫"]}}
    acts = cw_read.read("我想吃宫保鸡丁和麻婆豆腐，找一家有这两道菜的餐馆", state, lex)
    assert "周边景点" not in acts["inform"]["餐馆"]
    assert cw_track._REFINE.search("这两道菜") is None and cw_track._REFINE.search("这两家") is not None


@pytest.mark.parametrize("text, want", [
    ("找一家评分5分以上的餐馆", {"餐馆": {"评分": "5分"}}),          # nothing rates above the top mark
    ("找一家评分4分以上的餐馆", {"餐馆": {"评分": "4分以上"}}),
    ("找一家人均80元一下的餐馆吧", {"餐馆": {"人均消费": "80元以下"}}),  # 一下 then more words: still 以下
])
def test_the_top_rating_and_a_price_typo_before_more_words(lex, text: str, want: dict) -> None:
    assert cw_read.read(text, {}, lex)["inform"] == want


def test_a_trip_end_is_the_whole_database_name(lex) -> None:
    """The words that close a trip end (吃, 住, a new clause) may stand inside a name or run on
    after it: the database's name that begins the span is taken whole."""
    acts = cw_read.read("我要从故宫坐地铁到护国寺小吃店（护国寺总店），附近的地铁站是哪个？", {}, lex)
    assert acts["inform"]["地铁"] == {"出发地": "故宫", "目的地": "护国寺小吃店（护国寺总店）"}
    acts = cw_read.read("从颐和园到北京大学我不认识路，帮我叫个出租车", {}, lex)
    assert acts["inform"]["出租"] == {"出发地": "颐和园", "目的地": "北京大学"}


@pytest.mark.parametrize("text, want", [
    # the activity done at a kind of place names it (用餐, 就餐, 游玩, 转转, 住下), and 四周 is 周边
    ("它旁边还有别的用餐的地方吗？", [("景点", "周边餐馆")]),
    ("这里四周还有什么可以转转的地方吗？", [("景点", "周边景点")]),
    ("附近还有啥可以游玩的景点吗？", [("景点", "周边景点")]),
    ("玩晚了的话就想就近住下了", [("景点", "周边酒店")]),
    # the next question goes on with the list, the place left out as said once
    ("它周边有什么餐馆吗？还有其它景点吗？", [("景点", "周边餐馆"), ("景点", "周边景点")]),
    ("周边有什么酒店没？有餐馆没？", [("景点", "周边酒店"), ("景点", "周边餐馆")]),
])
def test_nearby_lists_asked_by_activity_and_by_a_following_question(lex, text: str, want: list) -> None:
    acts = cw_read.read(text, {"focus": "景点", "chosen": {"景点": "故宫"}}, lex)
    assert acts["request"] == want and acts["inform"] == {}


@pytest.mark.parametrize("text, want", [
    ("那这家酒店是什么价位呀？", [("酒店", "价格")]),
    ("这个酒店的价格多钱来着？", [("酒店", "价格")]),
    ("这家酒店提不提供叫醒服务呢？", [("酒店", "酒店设施-叫醒服务")]),
])
def test_requests_said_in_other_words(lex, text: str, want: list) -> None:
    acts = cw_read.read(text, {"focus": "酒店", "chosen": {"酒店": "北京饭店"}}, lex)
    assert acts["request"] == want and acts["inform"] == {}


@pytest.mark.parametrize("text, want", [
    ("想找个不收费的景点", {"景点": {"门票": "免费"}}),        # 不收费 is free, not 收费
    ("想找个免票的景点", {"景点": {"门票": "免费"}}),
    ("想找个不免票的景点", {"景点": {"门票": "1元以上"}}),
    ("要收门票的景点也行，找一个", {"景点": {"门票": "1元以上"}}),
    ("找一家经济实惠的酒店", {}),                              # 经济实惠 is "good value", no hotel type
])
def test_free_and_not_free_said_with_negations_and_idioms(lex, text: str, want: dict) -> None:
    assert cw_read.read(text, {}, lex)["inform"] == want


def test_a_value_said_of_the_chosen_place_beside_a_search_of_another_kind() -> None:
    """"铁板烧也是我最爱呢，它附近有什么好的酒店？": the search words look for a hotel; the dish
    is said of the restaurant chosen — a comment, no query of restaurants."""
    s = {"cons": {"餐馆": {"评分": "5分"}}, "chosen": {"餐馆": "白家大院"}, "focus": "餐馆"}
    acts = {"inform": {"餐馆": {"推荐菜": "铁板烧"}}, "names": [], "target": "酒店"}
    _, changed = cw_track.step(s, acts, "铁板烧也是我最爱呢，它附近有什么好的酒店？")
    assert changed == []
    acts = {"inform": {"餐馆": {"推荐菜": "铁板烧"}}, "names": [], "target": "餐馆"}
    _, changed = cw_track.step(s, acts, "再帮我找一家有铁板烧的餐馆")
    assert changed == ["餐馆"]


def test_requests_of_the_place_talked_about_last_and_of_the_others_beside_it(lex) -> None:
    # the focus has no place chosen: the question is about the place talked about last
    state = {"focus": "酒店", "chosen": {"景点": "故宫"}, "last_place": "故宫"}
    assert cw_read.read("那周边还有什么景点吗？", state, lex)["request"] == [("景点", "周边景点")]
    assert ("景点", "评分") in cw_read.read("看一下它的评分呗", state, lex)["request"]
    assert ("景点", "游玩时间") in cw_read.read("这里能呆多久？", state, lex)["request"]
    # a search, and the *other* places beside the one it finds
    acts = cw_read.read("帮我找个评分5分的餐馆，然后看看它周边有什么其它餐馆", {"focus": "餐馆"}, lex)
    assert acts["inform"] == {"餐馆": {"评分": "5分"}} and ("餐馆", "周边餐馆") in acts["request"]


def test_a_facility_said_free_first_and_a_station_of_the_trip_asked_later(lex) -> None:
    acts = cw_read.read("这家酒店提供免费早餐吗？", {"focus": "酒店", "chosen": {"酒店": "北京饭店"}}, lex)
    assert acts["request"] == [("酒店", "酒店设施-早餐服务免费")]
    state = {"focus": "地铁", "cons": {"地铁": {"出发地": "故宫", "目的地": "颐和园"}}}
    assert cw_read.read("那目的地附近的地铁站呢？", state, lex)["request"][0] == ("地铁", "目的地附近地铁站")
    acts = cw_read.read("我要从故宫坐地铁到颐和园，告诉我出发地和目的地附近的地铁站", {}, lex)
    assert acts["request"][:2] == [("地铁", "出发地附近地铁站"), ("地铁", "目的地附近地铁站")]


def test_praise_prices_per_person_and_checks_near_a_place(lex) -> None:
    chosen = {"focus": "景点", "chosen": {"景点": "故宫"}, "last_place": "故宫"}
    # a clause praising a value says it of the place chosen: no constraint
    assert cw_read.read("啊，不收费更好呀，那它周边还有什么景点呢", chosen, lex)["inform"] == {}
    assert cw_read.read("想找个不收门票的景点", {}, lex)["inform"] == {"景点": {"门票": "免费"}}
    # 人均 of the kind looked for when no restaurant is spoken of
    acts = cw_read.read("帮我找一家有吹风机的酒店，人均消费400-500元的", {}, lex)
    assert acts["inform"] == {"酒店": {"酒店设施": "吹风机", "价格": "400-500元"}}
    # a price word, a few words, then the range without 元
    acts = cw_read.read("哪家酒店是经济型的，价格最好在300-400之间", {}, lex)
    assert acts["inform"]["酒店"]["价格"] == "300-400元"
    # the place named as where to look near is not the one checked: a search
    acts = cw_read.read("我想去故宫周边的餐馆，最好人均消费50-100元的，你能帮我查一下吗？", {}, lex)
    assert acts["inform"] == {"餐馆": {"人均消费": "50-100元", "周边景点": "故宫"}}


def test_review_phrases_are_no_dishes_and_found_places_replace_a_list() -> None:
    """A database "dish" that is a phrase of a review (都可以, 一般吧) is never read as a dish; a
    search of a domain makes its results "these" of the next turn, not the list beside a place."""
    db = cw_db.load(str(DB))
    lex = cw_read.Lexicon(db)
    assert "都可以" not in lex.terms and "一般吧" not in lex.terms
    import cw_answer
    state = {"chosen": {"景点": "故宫"}, "listed": {"餐馆": ["周边景点", "故宫"]}}
    out = cw_answer.answer(state, [{"domain": "餐馆", "constraints": {"评分": "4.5分以上"}}], [], db)
    assert "餐馆" not in out["state"]["listed"]
    out = cw_answer.answer(state, [{"domain": "餐馆", "constraints": {"周边景点": "故宫"}}], [], db)
    assert out["state"]["listed"]["餐馆"] == ["周边景点", "故宫"]


def test_a_wanted_dish_the_database_lacks_is_not_replaced_by_a_shorter_one(lex) -> None:
    """"想吃火星烤肉": no restaurant has 火星烤肉, though 烤肉 is inside the words — the dish
    asked for is reported unknown ("没有找到…" with the closest), never searched as 烤肉."""
    import cw_answer
    acts = cw_read.read("我想吃火星烤肉，帮我找一家餐馆", {}, lex)
    assert "餐馆" not in acts["inform"] and acts["unknown"] == [("餐馆", "推荐菜", "火星烤肉")]
    say = cw_answer.unknown_values(acts["unknown"], cw_db.load(str(DB)))[0]
    assert say.startswith("没有找到有火星烤肉的餐馆；最接近的有")
    # a dish of the database said the same way is searched
    assert cw_read.read("我想吃招牌烤鸭，帮我找一家餐馆", {}, lex)["inform"] == {"餐馆": {"推荐菜": "招牌烤鸭"}}


@pytest.mark.parametrize("domain,cons", [
    ("酒店", {"评分": "4.5分以上", "酒店设施": "叫醒服务 早餐服务"}),
    ("酒店", {"酒店类型": "经济型", "价格": "100-300元"}),
    ("餐馆", {"人均消费": "50-100元", "推荐菜": "烤鸭"}),
    ("景点", {"门票": "免费", "评分": "4分以上"}),
    ("景点", {"门票": "免费", "评分": "5分", "名称": "没有这个景点"}),
])
def test_a_query_is_every_record_that_meets_each_constraint_in_database_order(domain: str, cons: dict) -> None:
    db = cw_db.load(str(DB))
    brute = [r for r in db[domain] if all(cw_db.matches(r, k, v) for k, v in cons.items())]
    assert cw_db.query(domain, cons, db) == brute
    assert cw_db.query(domain, cons, db) == brute  # the second time from the kept masks


def test_closest_records_meet_the_most_constraints_best_rated_first() -> None:
    db = cw_db.load(str(DB))
    cons = {"门票": "免费", "评分": "5分", "名称": "没有这个景点"}
    alts, missed = cw_db.closest("景点", cons, db)
    assert cw_db.query("景点", cons, db) == [] and alts
    met = [sum(cw_db.matches(r, k, v) for k, v in cons.items()) for r in db["景点"]]
    best = max(met)
    assert all(sum(cw_db.matches(a, k, v) for k, v in cons.items()) == best for a in alts)
    ratings = [a.get("评分") or 0 for a in alts]
    assert ratings == sorted(ratings, reverse=True)
    assert "名称" in missed


def test_a_metro_station_is_that_of_the_place_named() -> None:
    db = cw_db.load(str(DB))
    rec = next(r for r in db["景点"] if r.get("地铁"))
    assert cw_db.metro_station(" " + rec["名称"], db) == next(
        r.get("地铁") for d in ("地铁", "景点", "餐馆", "酒店") for r in db[d] if r["名称"] == rec["名称"])
    assert cw_db.metro_station("没有这个地方", db) is None


@pytest.mark.parametrize("text, chosen, want", [
    # a remark on the place the dialogue has is a comment, no constraint
    ("还有桑拿呢，太好了，它附近有什么景点？", {"酒店": "北京饭店"}, {}),
    ("真不错，我就喜欢豪华型的！", {"酒店": "北京饭店"}, {}),
    ("烤鸭也是我最爱呢，它家的地址在哪里？", {"餐馆": "白家大院"}, {}),
    ("不花钱更好呀，它周边有什么餐馆？", {"景点": "故宫"}, {}),
    # the same words where the rest of the utterance looks for that kind: a constraint
    ("我最喜欢吃烤鸭，再帮我找一家餐馆", {"餐馆": "白家大院"}, {"餐馆": {"推荐菜": "烤鸭"}}),
    # no place of that kind in the dialogue: nothing to remark on, so the wish is a constraint
    ("我就喜欢豪华型的酒店", {"景点": "故宫"}, {"酒店": {"酒店类型": "豪华型"}}),
])
def test_a_remark_on_a_place_the_dialogue_has_is_no_constraint(lex, text: str, chosen: dict, want: dict) -> None:
    focus = next(iter(chosen))
    assert cw_read.read(text, {"focus": focus, "chosen": chosen}, lex)["inform"] == want


@pytest.mark.parametrize("text, state, inform, asked", [
    # a bare yes/no question of a value checks the place chosen (or offered, or listed)
    ("人均消费在50-100元吗？", {"focus": "餐馆", "chosen": {"餐馆": "白家大院"}}, {}, ("餐馆", "人均消费")),
    ("评分是4.5分以上吗？", {"focus": "景点", "offered": {"景点": "故宫"}}, {}, ("景点", "评分")),
    ("它是豪华型的吗？", {"focus": "酒店", "chosen": {"酒店": "北京饭店"}}, {}, ("酒店", "酒店类型")),
    # 有…的吗 asks whether there is one: a search
    ("有人均消费在50-100元的吗？", {"focus": "餐馆", "chosen": {"餐馆": "白家大院"}},
     {"餐馆": {"人均消费": "50-100元"}}, None),
    # nothing of that kind in the dialogue: a search
    ("人均消费在50-100元吗？", {"focus": "餐馆"}, {"餐馆": {"人均消费": "50-100元"}}, None),
])
def test_a_bare_check_asks_about_the_place_the_dialogue_has(lex, text: str, state: dict, inform: dict, asked) -> None:
    acts = cw_read.read(text, state, lex)
    assert acts["inform"] == inform
    if asked:
        assert asked in acts["request"]


def test_a_narrowing_right_after_a_failed_search_is_among_the_places_offered(lex) -> None:
    """No economy hotel lies beside 故宫: the reply offers the closest ones, which lie elsewhere
    (they miss 周边景点). "那他们哪家评分是4.5分以上的？" next narrows among *those*: the near slot
    they miss is let go, what they meet is kept and the new value added. A narrowing after a
    search that found something keeps every constraint, and the offer stands one turn only."""
    import cw_answer

    db = cw_db.load(str(DB))
    tried = {"酒店类型": "经济型", "周边景点": "故宫"}
    assert cw_db.query("酒店", tried, db) == []
    state = {"focus": "酒店", "cons": {"酒店": dict(tried)}, "chosen": {"景点": "故宫"}}
    out = cw_answer.answer(state, [{"domain": "酒店", "constraints": tried}], [], db)
    assert out["say"].startswith("没有找到") and "最接近的有" in out["say"]
    assert out["state"]["failed"] == {"酒店": ["周边景点"]}
    offered = [n for n in (r["名称"] for r in db["酒店"]) if n in out["say"]]
    assert offered and all("故宫" not in (cw_db.record("酒店", n, db).get("周边景点") or []) for n in offered)
    text = "那他们哪家评分是4.5分以上的？"
    acts = cw_read.read(text, out["state"], lex)
    assert acts["inform"] == {"酒店": {"评分": "4.5分以上"}}
    new, changed = cw_track.step(out["state"], acts, text)
    assert changed == ["酒店"] and new["cons"]["酒店"] == {"酒店类型": "经济型", "评分": "4.5分以上"}
    assert "failed" not in new  # the offer was the last reply's: it does not carry on
    # the same words after a search that found places: a narrowing among them, nothing let go
    found = {"酒店类型": "高档型"}
    out = cw_answer.answer({"focus": "酒店", "cons": {"酒店": dict(found)}}, [{"domain": "酒店", "constraints": found}],
                           [], db)
    assert "failed" not in out["state"]
    new, _ = cw_track.step(out["state"], cw_read.read(text, out["state"], lex), text)
    assert new["cons"]["酒店"] == {"酒店类型": "高档型", "评分": "4.5分以上"}


def test_the_name_index_and_the_pools_are_the_records_own() -> None:
    """:func:`cw_db.record` is the first record of that name (what a scan finds); the pools that
    "最接近的有…" draws from are the names in database order and each dish once, sorted."""
    db = cw_db.load(str(DB))
    for dom in ("景点", "餐馆", "酒店"):
        for rec in db[dom][::97]:
            assert cw_db.record(dom, rec["名称"], db) is next(r for r in db[dom] if r["名称"] == rec["名称"])
    assert cw_db.record("酒店", "天安门大饭店", db) is None
    assert cw_db.pool("景点", "名称", db) == [r["名称"] for r in db["景点"]]
    dishes = cw_db.pool("餐馆", "推荐菜", db)
    assert dishes == sorted(set(dishes)) and set(dishes) == {d for r in db["餐馆"] for d in r["推荐菜"] or []}


@pytest.mark.parametrize("text, want", [
    # near no place named, or only a pronoun: near the place the dialogue is at (the hotel)
    ("我想在附近找一家评分4分以上的餐馆", {"评分": "4分以上", "周边酒店": "北京饭店"}),
    ("去它家附近找个人均消费50-100元的餐馆吧", {"人均消费": "50-100元", "周边酒店": "北京饭店"}),
    ("看看周边餐馆哪家是评分5分的", {"评分": "5分", "周边酒店": "北京饭店"}),
    # a place of another kind named before the near word: near it (the rule of named places)
    ("我想在故宫附近找一家评分4分以上的餐馆", {"评分": "4分以上", "周边景点": "故宫"}),
    # the near word in another clause than the kind looked for, or asking what is nearby, or
    # the near search given up: no nearby constraint
    ("帮我找一家评分4分以上的餐馆，看看周边有什么景点", {"评分": "4分以上"}),
    ("本来还想在附近找，那推荐一家评分4分以上的餐馆吧", {"评分": "4分以上"}),
])
def test_a_search_near_no_named_place_is_near_the_place_of_the_dialogue(lex, text: str, want: dict) -> None:
    """"我想在附近找一家…的餐馆" / "它附近" / "周边餐馆哪家…": a search with constraints of its own,
    said near no place named, is near the place chosen in the domain the dialogue was about."""
    state = {"focus": "酒店", "chosen": {"酒店": "北京饭店"}, "last_place": "北京饭店"}
    acts = cw_read.read(text, state, lex)
    assert acts["inform"].get("餐馆") == want


def test_a_bare_near_word_names_no_place_of_the_same_kind(lex) -> None:
    """Near the restaurant just chosen, a search for restaurants says which ("这家餐馆周边"): a bare
    "附近" then adds no nearby constraint."""
    state = {"focus": "餐馆", "chosen": {"餐馆": "白家大院"}, "last_place": "白家大院"}
    acts = cw_read.read("我想在附近再找一家评分5分的餐馆", state, lex)
    assert acts["inform"].get("餐馆") == {"评分": "5分"}


@pytest.mark.parametrize("text, hotel, asked", [
    # which hotel has it (哪家, 这些…中): a search; 么 of 什么 asks nothing yes or no
    ("这些酒店中哪家有健身房，大家想去那里锻炼什么的。", {"酒店设施": "健身房"}, []),
    ("哪个酒店提供叫醒服务？", {"酒店设施": "叫醒服务"}, []),
    # a yes/no question about the hotel chosen: a question, no search
    ("它有健身房吗？", None, [("酒店", "酒店设施-健身房")]),
])
def test_which_hotel_has_a_facility_is_a_search(lex, text: str, hotel, asked: list) -> None:
    state = {"focus": "酒店", "chosen": {"酒店": "北京饭店"}, "last_place": "北京饭店"}
    acts = cw_read.read(text, state, lex)
    assert acts["inform"].get("酒店") == hotel
    assert [r for r in acts["request"] if r[1].startswith("酒店设施")] == asked


@pytest.mark.parametrize("text, want", [
    # a value with no kind of its own, said after asking what is beside a place: it constrains
    # that kind, a search near the place
    ("故宫附近有什么餐馆吗？价格在50-100元的。", {"餐馆": {"人均消费": "50-100元", "周边景点": "故宫"}}),
    ("它附近有什么酒店，最好评分在4.5分以上。", {"酒店": {"评分": "4.5分以上", "周边景点": "故宫"}}),
])
def test_a_value_after_a_nearby_question_is_a_search_near_the_place(lex, text: str, want: dict) -> None:
    state = {"focus": "景点", "chosen": {"景点": "故宫"}, "last_place": "故宫"}
    acts = cw_read.read(text, state, lex)
    assert acts["inform"] == want and not any(s.startswith("周边") for _, s in acts["request"])


def test_a_nearby_question_with_a_value_of_another_kind_stays_a_question(lex) -> None:
    """"故宫的门票是40元吗，周边有什么餐馆": the value is the attraction's (门票); the restaurants
    beside it are asked for, no restaurant search."""
    state = {"focus": "景点", "chosen": {"景点": "故宫"}, "last_place": "故宫"}
    acts = cw_read.read("故宫附近有什么餐馆？门票是40元吗？", state, lex)
    assert "餐馆" not in acts["inform"] and ("景点", "周边餐馆") in acts["request"]


def test_per_person_after_the_hotel_named_last_is_its_price(lex) -> None:
    """"吃饭了，我得去酒店睡一觉…，人均消费是400-500元": the kind named last before 人均 is the
    hotel looked for — its price, not a restaurant's, and no question about 人均."""
    acts = cw_read.read("吃完饭了，我得去酒店休息，哪家有无烟房，人均消费是400-500元的？",
                        {"focus": "餐馆", "chosen": {"餐馆": "白家大院"}}, lex)
    assert acts["inform"] == {"酒店": {"价格": "400-500元", "酒店设施": "无烟房"}}
    assert all(s != "人均消费" for _, s in acts["request"])
    # a restaurant named last before it: a restaurant's 人均
    acts = cw_read.read("住的酒店定好了，再找一家餐馆，人均消费100-150元的", {"focus": "酒店"}, lex)
    assert acts["inform"].get("餐馆") == {"人均消费": "100-150元"}


@pytest.mark.parametrize("text, want", [
    # where one takes it from, said with 在 ("我在A打车到B")
    ("我们在故宫打车去颐和园，车牌号是多少？", {"出租": {"出发地": "故宫", "目的地": "颐和园"}}),
    # two places of the database with 到 between them and no 从
    ("颐和园到故宫怎么坐地铁？", {"地铁": {"出发地": "颐和园", "目的地": "故宫"}}),
    ("我想故宫坐地铁到颐和园，要在哪一站上车？", {"地铁": {"出发地": "故宫", "目的地": "颐和园"}}),
    # the stations near both ends are asked: the metro's, though 打车 is said
    ("从故宫打车到颐和园的话，出发地和目的地附近的地铁站是哪个？", {"地铁": {"出发地": "故宫", "目的地": "颐和园"}}),
])
def test_trips_said_without_cong(lex, text: str, want: dict) -> None:
    assert cw_read.read(text, {}, lex)["inform"] == want


def test_the_other_way_of_the_trip_just_asked(lex) -> None:
    """"如果我坐出租车呢？" right after a metro trip: the same two ends, by taxi; with no trip
    before, nothing is made up."""
    state = {"cons": {"地铁": {"出发地": "故宫", "目的地": "颐和园"}}}
    acts = cw_read.read("那如果我打车呢？车型是什么？", state, lex)
    assert acts["inform"] == {"出租": {"出发地": "故宫", "目的地": "颐和园"}}
    assert cw_read.read("那如果我打车呢？车型是什么？", {}, lex)["inform"] == {}


def test_asking_to_be_shown_a_place_is_a_search_not_a_check(lex) -> None:
    """"我对这里不是很熟，介绍个票价是50-100元的景点好吗？": 介绍 looks for a place, so the value
    is a constraint, though 这里 and a closing 吗 would make it a check on the place chosen."""
    state = {"focus": "景点", "chosen": {"景点": "故宫"}, "last_place": "故宫"}
    acts = cw_read.read("我对这里不熟，介绍个门票是20-50元的景点好吗？", state, lex)
    assert acts["inform"] == {"景点": {"门票": "20-50元"}}
    acts = cw_read.read("这里的门票是20-50元吗？", state, lex)
    assert acts["inform"] == {} and ("景点", "门票") in acts["request"]
