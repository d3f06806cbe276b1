"""Pure framing and request parsing (no I/O)."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from hermesd.errors import FrameTooLarge, InvalidRequest, ParseError
from hermesd.protocol import LineDecoder, parse_request


def test_lines_split_and_joined_across_feeds():
    d = LineDecoder(100)
    assert d.feed(b'{"a":') == []
    assert d.feed(b'1}\n{"b":2}\n{"c"') == [b'{"a":1}', b'{"b":2}']
    assert d.feed(b":3}\r\n") == [b'{"c":3}']


def test_oversized_line_reported_once_and_not_buffered():
    d = LineDecoder(10)
    out = d.feed(b"x" * 11)
    assert len(out) == 1 and isinstance(out[0], FrameTooLarge)
    for _ in range(1000):
        assert d.feed(b"y" * 4096) == []
        assert d.buffered_bytes == 0
    assert d.feed(b"tail\nok\n") == [b"ok"]


def test_line_exactly_at_the_limit():
    d = LineDecoder(5)
    assert d.feed(b"12345\n") == [b"12345"]
    assert isinstance(d.feed(b"123456\n")[0], FrameTooLarge)


@given(st.binary(max_size=400), st.lists(st.integers(min_value=1, max_value=50), max_size=20))
def test_any_chunking_gives_the_same_lines(data, cuts):
    whole = LineDecoder(1 << 20).feed(data)
    d = LineDecoder(1 << 20)
    got, pos = [], 0
    for c in cuts:
        got += d.feed(data[pos:pos + c])
        pos += c
    got += d.feed(data[pos:])
    assert got == whole


def test_parse_request_errors():
    with pytest.raises(ParseError):
        parse_request(b"{")
    with pytest.raises(ParseError):
        parse_request(b'{"x": "\xff"}')
    for bad in (b"1", b"[]", b'{"jsonrpc":"2.0"}', b'{"jsonrpc":"2.0","method":"m","id":true}',
                b'{"jsonrpc":"2.0","method":"m","params":3}', b'{"method":"m"}'):
        with pytest.raises(InvalidRequest):
            parse_request(bad)
    r = parse_request(b'{"jsonrpc":"2.0","method":"m"}')
    assert r.is_notification and r.params == {}
    r = parse_request(b'{"jsonrpc":"2.0","method":"m","id":null}')
    assert not r.is_notification and r.id is None
