"""A statement is not a request (hermesd.dialogue.statement): reports of what the speaker did, remarks
about how a thing is — zh and en, against the requests, questions and corrections they resemble."""

from __future__ import annotations

import pytest

from hermesd.dialogue.statement import statement
from hermesd.nlu.normalize import normalize

CASES = [
    # reports of what the speaker did
    ("我昨天已经把报价单发给李娜了", "done"),
    ("我已经把合同发给王芳了", "done"),
    ("我们刚刚重启了nginx", "done"),
    ("我把报价单发给李娜了", "done"),
    ("我发过了", "done"),
    ("I sent the quote to Li Na yesterday", "done"),
    ("I already restarted nginx", "done"),
    ("we have forwarded the contract to Wang Fang", "done"),
    ("I just emailed the invoice to Zhang Wei", "done"),
    # remarks about a thing
    ("this printer is dead again", "state"),
    ("the printer keeps jamming", "state"),
    ("it's broken again", "state"),
    # requests
    ("把报价单发给李娜", None),
    ("我要把报价单发给李娜", None),
    ("我想重启nginx", None),
    ("我需要把合同发给王芳了", None),
    ("帮我把报价单发给李娜", None),
    ("send the quote to Li Na", None),
    ("I need to send the quote to Li Na", None),
    ("I wanted to send the quote to Li Na", None),
    ("I'd like to send the invoice", None),
    ("the disk is full, check it", None),
    ("the printer is broken, can you restart it", None),
    # questions
    ("我发给李娜了吗", None),
    ("我把报价单发给李娜了没有", None),
    ("I sent it to Li Na?", None),
    ("我上周发了哪些文件", None),
    ("我的订单到哪了", None),
    ("我昨天发给谁了", None),
    # corrections
    ("I meant Li Na", None),
    ("我刚才说的是李娜", None),
    ("the other one", None),
    ("the second one", None),
]


@pytest.mark.parametrize("raw,kind", CASES)
def test_statement(raw: str, kind: str | None) -> None:
    assert statement(normalize(raw).text) == kind
