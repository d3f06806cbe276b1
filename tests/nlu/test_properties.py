"""Property tests: any string parses without an exception and every span indexes the original."""

from datetime import datetime
from zoneinfo import ZoneInfo

from hypothesis import given, settings, strategies as st

from hermesd.nlu.normalize import normalize
from hermesd.nlu.parser import parse
from hermesd.nlu.temporal import parse_times

SH = ZoneInfo("Asia/Shanghai")
REF = datetime(2026, 11, 29, 7, 30, tzinfo=SH)

# text that looks like what the parser keys on, plus anything at all
PIECES = st.sampled_from(["明天", "下午", "3点", "半", "上周三", "到", "一月二十三", "号", "订单号", "电话", "13812345678",
                          "张工", "报价单", "发给", " ", "，", "next", "monday", "at", "5", "pm", "from", "to", "in",
                          "2 hours", "ago", "ｆｕｌｌ", "十", "两", "点", "2024-06-15", "¥", "@", "example.com", "个月"])
TEXT = st.one_of(st.text(max_size=60), st.lists(PIECES, max_size=12).map("".join),
                 st.lists(st.one_of(PIECES, st.text(max_size=3)), max_size=10).map("".join))
REFS = st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 12, 31)).map(lambda d: d.replace(tzinfo=SH))


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_normalize_offsets_are_monotone_and_in_range(text):
    n = normalize(text)
    assert len(n.starts) == len(n.ends) == len(n.text)
    for i, (s, e) in enumerate(zip(n.starts, n.ends)):
        assert 0 <= s < e <= len(text)
        if i:
            assert s >= n.starts[i - 1] and e >= n.ends[i - 1]


@settings(max_examples=300, deadline=None)
@given(TEXT, REFS)
def test_times_never_raise_and_spans_index_original(text, ref):
    for x in parse_times(text, ref, SH):
        assert 0 <= x.span[0] < x.span[1] <= len(text)
        assert text[x.span[0]:x.span[1]] == x.text
        if x.kind in ("date", "datetime", "range") and x.start is not None and x.end is not None:
            assert x.start < x.end  # a range open at one side (明天后: from tomorrow on) has one bound
        if x.kind == "invalid":
            assert x.reason


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_parse_never_raises_and_entity_spans_index_original(nlu_engine, text):
    r = parse(text, ref=REF, tz=SH, engine=nlu_engine)
    last = 0
    for e in r.entities:
        assert last <= e.span[0] < e.span[1] <= len(text)
        assert text[e.span[0]:e.span[1]] == e.text
        last = e.span[1]
    assert r.kind in ("command", "question", "correction", "affirm", "deny", "cancel")
