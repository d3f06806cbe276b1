"""Two everyday repairs, table-tested (pure): a question about what was just done ("是不是发错了",
"did that go to the wrong person?") is read as such and answered from the session's newest turn that
did something; people coordinated in a one-person request ("发给王芳和李娜") are the request once each."""

import pytest

from hermesd.dialogue.lastaction import asks_about_last, last_done
from hermesd.dialogue.split import one_each
from hermesd.nlu.normalize import normalize

ABOUT_LAST = ["是不是发错了", "是不是发错人了？", "发错了吗", "你是不是弄错了", "刚才发给谁了", "发给谁了", "发给了谁",
              "刚才你做了什么", "发出去了吗", "發錯了嗎", "did that go to the wrong person?", "did it go to the right person",
              "did you send it to the wrong person", "who did that go to?", "who did you send it to",
              "what did you just do", "did that go through?", "was that a mistake?"]
NOT_ABOUT_LAST = ["把报价单发给王芳", "发给李娜", "网络是不是断了", "是不是有报错", "错误日志", "send it to Li Na",
                  "who is Wang Fang", "what did I send yesterday", "did the network go down", "发个报价单给谁都行吗", "是"]


@pytest.mark.parametrize("text", ABOUT_LAST)
def test_a_question_about_what_was_just_done(text):
    assert asks_about_last(normalize(text).text)


@pytest.mark.parametrize("text", NOT_ABOUT_LAST)
def test_a_request_or_another_question_is_not_one(text):
    assert not asks_about_last(normalize(text).text)


def _t(reply, state="LISTENING", actions=(), at=1):
    return {"reply": reply, "state_after": state, "actions": list(actions), "at_ms": at, "trace_id": reply}


SENT = {"kind": "tool", "tool": "send_document", "outcome": "ok"}
FOUND = {"kind": "tool", "tool": "find_document", "outcome": "ok"}


@pytest.mark.parametrize("history,said", [
    ([], None),
    ([_t("磁盘还剩一半。", actions=[{"kind": "reply", "outcome": "ok"}])], None),          # nothing ran
    ([_t("已把报价单发给王芳。", actions=[SENT])], "已把报价单发给王芳。"),
    ([_t("已把报价单发给王芳。", actions=[SENT]), _t("把合同发给李娜吗？", "CONFIRMING", [FOUND])], "已把报价单发给王芳。"),
    ([_t("已把报价单发给王芳。", actions=[SENT]), _t("没找到。", actions=[{**FOUND, "outcome": "NOT_FOUND"}])],
     "已把报价单发给王芳。"),                                                              # a failure did nothing
    ([_t("a", actions=[SENT]), _t("b", actions=[SENT])], "b"),                            # the newest
])
def test_what_was_last_done(history, said):
    got = last_done(history)
    assert (got["reply"] if got else None) == said


@pytest.mark.parametrize("text,people,each", [
    ("把报价单发给王芳和李娜", ["王芳", "李娜"], ["把报价单发给王芳", "把报价单发给李娜"]),
    ("把报价单发给王芳、李娜和张伟", ["王芳", "李娜", "张伟"], ["把报价单发给王芳", "把报价单发给李娜", "把报价单发给张伟"]),
    ("send the quote to Wang Fang and Li Na", ["Wang Fang", "Li Na"],
     ["send the quote to Wang Fang", "send the quote to Li Na"]),
    ("email the invoice to Li Na, Wang Fang and Zhang Wei", ["Li Na", "Wang Fang", "Zhang Wei"],
     ["email the invoice to Li Na", "email the invoice to Wang Fang", "email the invoice to Zhang Wei"]),
    ("让张工把报价单发给王芳", ["张工", "王芳"], None),           # not coordinated: two roles
    ("把报价单发给王芳", ["王芳"], None),
])
def test_coordinated_people_are_the_request_once_each(text, people, each):
    spans = []
    for name in people:
        i = text.index(name)
        spans.append((i, i + len(name)))
    got = one_each(text, spans)
    assert (None if got is None else [t for t, _ in got]) == each
    if got is not None:
        assert [n for _, n in got] == people
