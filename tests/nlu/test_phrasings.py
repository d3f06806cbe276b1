"""How people say the office and device requests, classified on the shipped packs (zh and en).

The phrasings are written for this table, none copied from the packs' examples: sends said many
ways (发个文件给…, 把…发一下, 给…发…, 传给…, email … to …, send over …, forward … to …), a send
with a person and no document, a document and no person, and "what did I send (to P)" beside them,
then the other office and device intents. The people are the shipped directory's, with the forms
the daemon gives the NLU. Held to 90% as a whole, and the send/list confusion case by case.
Also: the polite words around a template, and the last-clause reading of long utterances.
"""

import asyncio
from pathlib import Path

import pytest

from hermesd.anchors.directory import Directory
from hermesd.nlu.intents import IntentModel, IntentRecognizer, IntentSpec, _compile_template, clause_spans
from hermesd.nlu.normalize import normalize
from hermesd.nlu.parser import parse
from hermesd.subsystems.nlu import NluSubsystem
from hermesd.nlu.settings import NluSettings

from .conftest import REF, REPO
from .test_nearmiss_oos import accepting

SEND, LISTED = "doc.send", "doc.list_sent"

PHRASINGS = [
    # sends: a person and no document (the rule asks which document)
    ("给李经理发个文件", SEND), ("帮我给张工发个东西", SEND), ("发个文件给王会计", SEND),
    ("send a file to Wang Fang", SEND), ("send a document to Mr. Smith", SEND),
    ("I need to send something to Li Na", SEND),
    # sends: a document and no person (the rule asks who)
    ("send the invoice", SEND), ("把报价单发一下", SEND), ("发送发票", SEND), ("发一下周报", SEND),
    ("send over the contract", SEND), ("send the report", SEND),
    # sends: both
    ("把合同传给李娜", SEND), ("给王芳发一份发票", SEND), ("把会议纪要转发给史密斯", SEND), ("发一份报价给张伟", SEND),
    ("我要给李经理发个报价单", SEND), ("麻烦给王会计发一下对账单", SEND), ("把文件发给张工", SEND),
    ("email the quote to Li Na", SEND), ("forward the minutes to Zhang Wei", SEND),
    ("could you send Wang Fang the invoice", SEND), ("please mail the statement to Wang Fang", SEND),
    ("pass the proposal on to Zhang Qiang", SEND), ("share the quote with Li Na", SEND),
    ("get the invoice over to Wang Fang", SEND),
    # what was sent
    ("我给李经理发过什么", LISTED), ("我都发了哪些文件", LISTED), ("昨天发了什么", LISTED),
    ("上周给王会计发过哪些东西", LISTED), ("发过哪些报价单", LISTED), ("what did I send to Wang Fang", LISTED),
    ("what have I sent this week", LISTED), ("which files did I send yesterday", LISTED),
    ("show me what I sent to Li Na", LISTED), ("did I send the invoice to Wang Fang already", LISTED),
    # the other office intents
    ("把那份报价单再发一遍", "doc.resend"), ("send it again to Li Na", "doc.resend"),
    ("下午五点提醒我交报告", "reminder.set"), ("remind me tomorrow at 9 to call the bank", "reminder.set"),
    ("我的提醒有哪些", "reminder.list"), ("list my reminders", "reminder.list"),
    ("把明早的提醒删掉", "reminder.cancel"), ("cancel the reminder about the bank", "reminder.cancel"),
    ("导出上周的报表", "report.export"), ("export the monthly report", "report.export"),
    ("订单SO20300101到哪了", "order.status"), ("where is my parcel now", "order.status"),
    # device
    ("磁盘还剩多少", "device.disk_space"), ("how much space is left on the disk", "device.disk_space"),
    ("设备运行情况怎么样", "device.system_status"), ("how is the cpu doing", "device.system_status"),
    ("今天早上以来有没有报错", "device.errors_since"), ("any errors in the log since yesterday", "device.errors_since"),
    ("nginx挂了吗", "device.service_status"), ("is redis up", "device.service_status"),
    ("网络正常吗", "device.network_check"), ("is the internet working", "device.network_check"),
    ("今晚重启一下设备", "device.reboot"), ("please reboot the device tonight", "device.reboot"),
    ("把mysql重启一下", "device.service_restart"), ("restart the redis service", "device.service_restart"),
]


def _people(directory: Path) -> dict[str, str]:
    """Surface form → anchor id, as the daemon feeds the NLU (names, aliases, a pinyin alias's family name)."""
    out: dict[str, str] = {}
    for person in Directory.load(directory).people.values():
        for form in (person.name, *person.aliases):
            out[form] = person.anchor_id
            words = form.split()
            if len(words) == 2 and words[0].isascii() and words[0].isalpha() and not person.name.isascii():
                out.setdefault(words[0], person.anchor_id)
    return out


@pytest.fixture(scope="module")
def shipped(tmp_path_factory) -> NluSubsystem:
    sub = NluSubsystem(NluSettings(intent_dirs=[str(REPO / "config" / "intents")]), clock=lambda: REF)
    asyncio.run(sub.start_standalone(tmp_path_factory.mktemp("nlu-cache")))
    sub.set_people(_people(REPO / "config" / "directory.yaml"))
    return sub


def test_the_table_is_varied_enough():
    intents = {i for _, i in PHRASINGS}
    assert len(PHRASINGS) >= 30 and len(intents) >= 14
    assert sum(1 for t, _ in PHRASINGS if t.isascii()) >= len(PHRASINGS) // 3  # English as well as Chinese


def test_phrasings_are_classified_at_90_percent(shipped):
    wrong = [(t, i, shipped.parse(t).intent) for t, i in PHRASINGS if shipped.parse(t).intent != i]
    assert len(wrong) <= len(PHRASINGS) // 10, wrong


@pytest.mark.parametrize("text", ["给李经理发个文件", "send a file to Wang Fang", "send the invoice", "发个文件给王会计",
                                  "send a document to Mr. Smith", "把报价单发一下"])
def test_a_send_missing_a_person_or_a_document_is_a_send(shipped, text):
    r = shipped.parse(text)
    assert r.intent == SEND, [m.to_dict() for m in r.intents[:3]]


@pytest.mark.parametrize("text", ["我给李经理发过什么", "发了什么", "我都发过哪些", "what did I send to Wang Fang",
                                  "what did I send"])
def test_what_was_sent_stays_a_listing(shipped, text):
    r = shipped.parse(text)
    assert r.intent == LISTED, [m.to_dict() for m in r.intents[:3]]


#: sends and messages no shipped tool makes: near misses of doc.send (messages, posts, parcels,
#: greetings to family and friends), zh and en; none is in a pack
NOT_DOCUMENTS = ["发个朋友圈", "帮我发个红包", "发条微信给我妈", "给女朋友发个表情", "给我讲个故事",
                 "send a text message to my wife", "send flowers to my mom", "text my sister happy birthday",
                 "post a photo on instagram", "send a postcard to grandpa",
                 "给我妈寄个快递", "帮我发条短信给老婆", "在群里发个通知", "给他发个定位", "发个抖音视频", "把照片发到家庭群里",
                 "给同学发个生日祝福", "帮我给奶奶寄点特产", "发个微博说我到了", "给我老公发个语音",
                 "send a birthday card to my aunt", "send my location to my husband", "post this on facebook",
                 "send a voice note to my brother", "mail a gift to my nephew", "send a tweet about the game",
                 "share this video with my friends on whatsapp", "send a thank you note to the neighbours"]
#: at most this share taken: measured 6 of 28 (issue 17); with 10 sentences and a bound of 2 one
#: rebuild's noise flipped the test, so the list is longer and the bound a rate with room
NOT_DOCUMENTS_MAX = 1 / 3


def _taken_sends(engine) -> list[tuple[str, str | None]]:
    out = []
    for t in NOT_DOCUMENTS:
        r = parse(t, ref=REF, tz=REF.tzinfo, engine=engine)
        if not r.out_of_scope:
            out.append((t, r.intent))
    return out


def test_sends_no_tool_makes_are_mostly_out_of_scope(shipped):
    taken = _taken_sends(shipped.engine)
    assert len(taken) <= len(NOT_DOCUMENTS) * NOT_DOCUMENTS_MAX, taken


def test_the_sends_bound_is_one_a_scorer_without_rejection_breaks(shipped):
    # the same scorer taking its top in-scope intent (rejection cut 0): the bound measures the rejection
    assert len(_taken_sends(accepting(shipped.engine))) > len(NOT_DOCUMENTS) * NOT_DOCUMENTS_MAX


# ---- polite words around a template ---------------------------------------------------------

@pytest.mark.parametrize("said", ["couldyousend{person}the{doc_type}", "couldyoupleasesend{person}the{doc_type}",
                                  "idliketosend{person}the{doc_type}", "send{person}the{doc_type}thankyou",
                                  "麻烦你帮我send{person}the{doc_type}"])
def test_polite_words_of_several_words_are_matched_on_the_stripped_text(said):
    rx, names = _compile_template("send {person} the {doc}", {"doc": "doc_type", "person": "person"})
    assert rx.match(said) and names == ["person", "doc"]


def test_polite_words_do_not_make_a_template_match_anything():
    rx, _ = _compile_template("send {person} the {doc}", {"doc": "doc_type", "person": "person"})
    assert not rx.match("couldyoutellmewhattosend{person}the{doc_type}")


# ---- long utterances: the last clause --------------------------------------------------------

RAMBLE = ("so I was wondering, since the device has been acting a bit slow lately and we had that power cut "
          "last week and then the technician came by on Thursday and changed a few cables and said everything "
          "looked fine but I am still not sure, whether you could tell me how much disk space is left")


def test_clauses_split_at_punctuation_and_openers_but_not_in_numbers_or_entities():
    t = normalize("we met at 10:30, but the printer was off. then call mr. smith please").text
    spans = clause_spans(t, keep=[(t.index("mr."), t.index("mr.") + len("mr. smith"))])
    assert [t[a:b] for a, b in spans] == ["we met at 10:30", "but the printer was off", "then call mr. smith",
                                          "please"]
    zh = normalize("我跟你说，昨天投影仪连不上，能不能帮我检查一下网络").text
    assert [zh[a:b] for a, b in clause_spans(zh)] == ["我跟你说", "昨天投影仪连不上", "能不能帮我检查一下网络"]


def test_a_long_request_is_read_by_its_last_clause(shipped):
    r = shipped.parse(RAMBLE)
    assert r.intent == "device.disk_space" and not r.out_of_scope
    # the rejection model may accept the whole (its content words are the intent's) even where the
    # out-of-scope class leads; when it does not, the last clause decides
    if r.clause is not None:
        assert RAMBLE[r.clause[0]:r.clause[1]].endswith("how much disk space is left")
    assert r.to_dict()["clause"] == (list(r.clause) if r.clause else None)


def test_a_short_utterance_is_read_whole(shipped):
    r = shipped.parse("how much disk space is left")
    assert r.clause is None and r.intent == "device.disk_space"


@pytest.mark.parametrize("text", [
    "my daughter has a school play on friday and I still have to buy her costume, and then there is the birthday "
    "party on sunday, so I was wondering what a good present for a ten year old would be",
    "我今天早上起得很晚，然后路上又堵车，到了公司发现忘带工牌了，你说我是不是应该买个闹钟",
    "the weather has been terrible all week and the roads are flooded near the office, so do you think it will "
    "rain again tomorrow afternoon",
    "昨天晚上看了一部电影，讲的是一个机器人的故事，挺感人的，你能推荐几部类似的电影吗",
    # the request in the last clause is negated: nothing is asked for
    "no, wait, I just remembered that Wang Fang asked for the revised version with the new payment terms, and legal "
    "has not signed off on that yet, so please do not send this one, and there is no need to remind me about it",
])
def test_a_long_text_out_of_scope_stays_out_of_scope(shipped, text):
    r = shipped.parse(text)
    assert r.out_of_scope and r.intent is None and r.clause is None, [m.to_dict() for m in r.intents[:3]]


def _hand_model(threshold: float) -> IntentRecognizer:
    """A scorer with hand-set weights: "disk"/"network" say their intent, the story words say out of scope."""
    words = {"disk": {"disk": 3.0}, "network": {"net": 3.0}, "bus": {"oos": 2.0}, "late": {"oos": 2.0},
             "cat": {"oos": 2.0}, "lunch": {"oos": 2.0}}
    model = IntentModel(["disk", "net", "oos"], {"w" + w: 1.0 for w in words},
                        {"w" + w: row for w, row in words.items()}, threshold, "oos")
    return IntentRecognizer([IntentSpec("disk"), IntentSpec("net")], model)


def _clause(rec: IntentRecognizer, text: str) -> str | None:
    t = normalize(text).text
    whole = rec.score(t)
    assert rec.decide(whole)[1], "the whole utterance must be out of scope for the test to mean anything"
    reading = rec.rank_clauses(t, (), whole)
    return reading.ranked[0].intent if reading else None


LONG = "the bus was very late and my cat was sick and then we had lunch"


def test_the_last_clause_decides_when_the_whole_leaned_to_it():
    rec = _hand_model(threshold=0.5)
    assert _clause(rec, LONG + ", so check the disk") == "disk"
    assert _clause(rec, LONG + ", so check the disk, thank you") == "disk"  # thanks is not the request
    assert _clause(rec, "the bus was late, check the disk") is None  # not long: read whole
    assert _clause(rec, LONG + ", so do not check the disk") is None  # negated: asks for nothing
    assert _clause(rec, "check the disk, " + LONG) is None  # the request is not last
    assert _clause(rec, "the disk, the disk " + LONG + ", check the network") is None  # the whole leaned to disk


def test_the_last_clause_does_not_decide_when_the_whole_did_not_reach_the_threshold():
    assert _clause(_hand_model(threshold=2.0), LONG + ", so check the disk") is None
