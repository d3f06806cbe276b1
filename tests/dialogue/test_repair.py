"""repaired: self-repair inside one utterance (reparandum — editing term — repair), table-tested."""

from __future__ import annotations

import pytest

from hermesd.dialogue.repair import repaired


def _spans(text: str, *mentions: tuple[str, str]) -> list[tuple[str, tuple[int, int]]]:
    """(type, words) → (type, span), each occurrence found left to right."""
    out, at = [], 0
    for etype, words in mentions:
        i = text.index(words, at)
        out.append((etype, (i, i + len(words))))
        at = i + len(words)
    return out


REPAIRED = [
    ("把报价单发给王芳，不对，是李娜", [("doc_type", "报价单"), ("person", "王芳"), ("person", "李娜")], "把报价单发给李娜"),
    ("发票发给王芳，哦不，发给李娜", [("doc_type", "发票"), ("person", "王芳"), ("person", "李娜")], "发票发给李娜"),
    ("把报价单发给王芳，不是，是李娜", [("doc_type", "报价单"), ("person", "王芳"), ("person", "李娜")], "把报价单发给李娜"),
    ("明天提醒我开会，不对，是后天", [("datetime", "明天"), ("datetime", "后天")], "后天提醒我开会"),
    ("把合約發給李經理，我是說王芳", [("doc_type", "合約"), ("person", "李經理"), ("person", "王芳")], "把合約發給王芳"),
    ("send the contract to Zhang Wei, sorry, to Li Na", [("doc_type", "contract"), ("person", "Zhang Wei"),
                                                         ("person", "Li Na")], "send the contract to Li Na"),
    ("remind me to call the bank tomorrow, no wait, on friday", [("datetime", "tomorrow"), ("datetime", "friday")],
     "remind me to call the bank friday"),
    ("把报价单发给王芳，不对，是合同", [("doc_type", "报价单"), ("person", "王芳"), ("doc_type", "合同")], "把合同发给王芳"),
    ("restart nginx, I mean mysql", [("service", "nginx"), ("service", "mysql")], "restart mysql"),
]
NOT_REPAIRED = [
    ("把报价单发给王芳，不是李娜", [("doc_type", "报价单"), ("person", "王芳"), ("person", "李娜")]),  # a contrast
    ("把报价单发给王芳，不对，是李娜和张伟", [("doc_type", "报价单"), ("person", "王芳"), ("person", "李娜"), ("person", "张伟")]),
    ("把报价单发给王芳，不对，再重启nginx", [("doc_type", "报价单"), ("person", "王芳"), ("service", "nginx")]),
    ("把报价单发给王芳", [("doc_type", "报价单"), ("person", "王芳")]),
    ("send the quote to Wang Fang, sorry, and then restart nginx", [("doc_type", "quote"), ("person", "Wang Fang"),
                                                                    ("service", "nginx")]),
    ("不对，是李娜", [("person", "李娜")]),  # an answer to a card: the reader's correction, not this
]


@pytest.mark.parametrize(("text", "mentions", "meant"), REPAIRED)
def test_the_repair_replaces_the_mention_it_corrects(text, mentions, meant):
    assert repaired(text, _spans(text, *mentions)) == meant


@pytest.mark.parametrize(("text", "mentions"), NOT_REPAIRED)
def test_no_repair(text, mentions):
    assert repaired(text, _spans(text, *mentions)) is None
