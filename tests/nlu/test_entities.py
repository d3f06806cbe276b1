"""Entities: types, spans in the original text, collisions settled by context and length."""

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from hermesd.nlu.entities import EntityExtractor, IdPattern
from hermesd.nlu.normalize import normalize
from hermesd.nlu.temporal import parse_times

SH = ZoneInfo("Asia/Shanghai")
REF = datetime(2026, 11, 29, 7, 30, tzinfo=SH)
EX = EntityExtractor(
    people={"张伟": "person:sales/zhang", "Alice Smith": "person:alice", "强哥": "person:rd/zhang"},
    gazetteers={"doc_type": {"报价单": "quote", "合同": "contract", "quote": "quote", "invoice": "invoice", "报表": "report"},
                "service": {"nginx": "nginx", "数据库": "database"}},
)


def ents(text):
    n = normalize(text)
    return [(e.type, e.text) for e in EX.extract(n, parse_times(n, REF, SH))]


CASES = [
    ("把上周三发给张工的报价单再发一遍", [("datetime", "上周三"), ("person", "张工"), ("doc_type", "报价单")]),
    ("李经理说合同没问题", [("person", "李经理"), ("doc_type", "合同")]),
    ("王总和刘老师", [("person", "王总"), ("person", "刘老师")]),
    ("陈医生明天来", [("person", "陈医生"), ("datetime", "明天")]),
    ("小陈和老周", [("person", "小陈"), ("person", "老周")]),
    ("欧阳经理", [("person", "欧阳经理")]),
    ("张伟 and Alice Smith", [("person", "张伟"), ("person", "Alice Smith")]),
    ("强哥在吗", [("person", "强哥")]),
    ("ask Mr. Smith and Dr. Chen", [("person", "Mr. Smith"), ("person", "Dr. Chen")]),
    ("Ms Lee called", [("person", "Ms Lee")]),
    ("施工进度", []),
    ("一个小时", [("datetime", "一个小时")]),
    ("小心点", []),
    ("发到 alice@example.com", [("email", "alice@example.com")]),
    ("邮箱是zhang.wei+work@mail.example.cn吗", [("email", "zhang.wei+work@mail.example.cn")]),
    ("电话13812345678", [("phone", "13812345678")]),
    ("手机 138 1234 5678", [("phone", "138 1234 5678")]),
    ("call +86-138-1234-5678", [("phone", "+86-138-1234-5678")]),
    ("座机010-12345678", [("phone", "010-12345678")]),
    ("call +44 20 7946 0958 now", [("phone", "+44 20 7946 0958"), ("datetime", "now")]),
    ("订单号13812345678的状态", [("order_id", "13812345678")]),
    ("电话13812345678的状态", [("phone", "13812345678")]),
    ("订单号：20240615001", [("order_id", "20240615001")]),
    ("order #A123456 status", [("order_id", "A123456")]),
    ("order number 98765432", [("order_id", "98765432")]),
    ("订单SO20240615到哪了", [("order_id", "SO20240615")]),
    ("工单 4521 还没处理", [("ticket_id", "4521")]),
    ("ticket INC-20931 is open", [("ticket_id", "INC-20931")]),
    ("报价¥1,200", [("money", "¥1,200")]),
    ("一共50块钱", [("money", "50块钱")]),
    ("预算3万元", [("money", "3万元")]),
    ("it costs $45.50", [("money", "$45.50")]),
    ("pay 300 RMB", [("money", "300 RMB")]),
    ("买三台", [("quantity", "三台")]),
    ("use 80%", [("quantity", "80%")]),
    ("the answer is 42", [("number", "42")]),
    ("重启nginx", [("service", "nginx")]),
    ("数据库报错", [("service", "数据库")]),
    ("send the quote and the invoice", [("doc_type", "quote"), ("doc_type", "invoice")]),
    ("导出报表", [("doc_type", "报表")]),
]


@pytest.mark.parametrize("text,expected", CASES)
def test_entities(text, expected):
    assert ents(text) == expected


@pytest.mark.parametrize("text,_", CASES)
def test_spans_index_original_text(text, _):
    n = normalize(text)
    for e in EX.extract(n, parse_times(n, REF, SH)):
        assert text[e.span[0]:e.span[1]] == e.text


@pytest.mark.parametrize("text,_", CASES)
def test_entities_never_overlap(text, _):
    n = normalize(text)
    es = EX.extract(n, parse_times(n, REF, SH))
    for a, b in zip(es, es[1:]):
        assert a.span[1] <= b.span[0]


def test_values():
    n = normalize("电话 +86 138-1234-5678，预算¥2.5万，张伟")
    es = {e.type: e.value for e in EX.extract(n, [])}
    assert es["phone"] == "+8613812345678"
    assert es["money"] == {"amount": 25000.0, "currency": "CNY"}
    assert es["person"] == "person:sales/zhang"


@pytest.mark.parametrize("text,amount,currency", [
    ("I would like to send one hundred and sixteen bucks.", 116.0, "USD"),
    ("request eighteen bucks from Emma", 18.0, "USD"),
    ("thirty five dollars", 35.0, "USD"),
    ("twenty-one euros", 21.0, "EUR"),
    ("a hundred dollars", 100.0, "USD"),
    ("One hundred and twenty dollars", 120.0, "USD"),
])
def test_money_in_english_words(text, amount, currency):
    (e,) = [e for e in EX.extract(normalize(text), []) if e.type == "money"]
    assert e.value == {"amount": amount, "currency": currency}
    assert e.text.lower().endswith(("bucks", "dollars", "euros"))


def test_vague_amounts_in_words_are_no_money():
    assert [e for e in EX.extract(normalize("it costs a few dollars"), []) if e.type == "money"] == []


def test_datetime_entity_carries_resolution():
    n = normalize("明天下午3点")
    (e,) = EX.extract(n, parse_times(n, REF, SH))
    assert e.type == "datetime" and e.value["start"] == "2026-11-30T15:00:00+08:00"


def test_configurable_id_pattern():
    ex = EntityExtractor(id_patterns=[IdPattern("asset_id", r"(?<![a-z0-9])ast-\d{4}(?![a-z0-9])")])
    n = normalize("检查 AST-0042 的状态")
    assert [(e.type, e.value) for e in ex.extract(n, [])] == [("asset_id", "AST-0042")]


def test_context_required_pattern_needs_its_context():
    n = normalize("数字98765432")
    assert [e.type for e in EX.extract(n, [])] == ["number"]


_CAPS = IdPattern("place", r"(?<=to )[A-Z][a-z]+(?: [A-Z][a-z]+)*", case_sensitive=True)


@pytest.mark.parametrize("text, expected", [
    # a known term over the same span outranks a reading by capitals
    ("something similar to Asian Fusion", [("cuisine", "Asian")]),
    ("I want to go to Sports events", [("category", "Sports")]),
    # the shape still reads a name no gazetteer knows, and a longer span by capitals wins
    ("take me to Palo Alto", [("place", "Palo Alto")]),
    ("going to Asian Fusion Garden", [("place", "Asian Fusion Garden")]),
])
def test_gazetteer_term_outranks_a_reading_by_capitals(text, expected):
    ex = EntityExtractor(gazetteers={"cuisine": {"asian fusion": "Asian"}, "category": {"sports": "Sports"}},
                         id_patterns=[_CAPS])
    assert [(e.type, e.value) for e in ex.extract(normalize(text), [])] == expected


# an order id after its context word is any id shape - letters, digits and dashes with at least one digit -
# not one company's format; the shape with its times: a dashed id is never read as a date ("2024-061")
ORDER_IDS = [
    ("where is my order Q-2024-061", "Q-2024-061"), ("我的订单Q-2024-061到哪了", "Q-2024-061"),
    ("订单号：Q-2024-061", "Q-2024-061"), ("订单 q-2024-061 到哪了", "Q-2024-061"),
    ("has order x-77 shipped?", "X-77"), ("order #A17B status", "A17B"), ("订单A17B-9的状态", "A17B-9"),
    ("order number 2024-0612-3", "2024-0612-3"), ("track order AB-12-CD", "AB-12-CD"),
    ("where is order 7F3K9", "7F3K9"), ("訂單Q-2024-061到哪了", "Q-2024-061"),
    ("订单SO20240615到哪了", "SO20240615"), ("order number 98765432", "98765432"),
]


@pytest.mark.parametrize("text,value", ORDER_IDS)
def test_an_order_id_of_any_shape_after_its_context_word(text, value):
    n = normalize(text)
    got = [(e.type, e.value) for e in EX.extract(n, parse_times(n, REF, SH)) if e.type == "order_id"]
    assert got == [("order_id", value)]


@pytest.mark.parametrize("text", [
    "order 2nd", "order 3 pizzas", "order ab", "order 1-2", "my order from last week", "the 报价单Q-2024-061 draft",
    "Q-2024-061 is the quote", "订单到了吗", "order-",
])
def test_no_order_id_without_its_context_word_or_a_digit(text):
    n = normalize(text)
    assert not [e for e in EX.extract(n, parse_times(n, REF, SH)) if e.type == "order_id"], text
