"""handoff.asked: a request for a person, table-tested (zh Simplified/Traditional and en)."""

from __future__ import annotations

import pytest

from hermesd.dialogue.handoff import asked

ASKED = ["转人工", "转人工客服", "帮我转接人工", "我要找人工客服", "人工", "人工服务", "请人工客服", "叫个工作人员来",
         "我想跟真人说话", "找客服", "轉人工", "我要和客服溝通", "换个真人来", "要人工",
         "talk to a human", "I want to speak to a real person", "can you transfer me to an agent please",
         "connect me to a representative", "agent", "Operator please", "human!", "get me a human",
         "I need a real person", "let me chat with a live agent",
         "能帮我转人工吗？", "可以转人工客服吗", "can I talk to a human?", "could you connect me to an operator?"]
NOT_ASKED = ["不用转人工", "我不想找人工", "取消转人工", "算了，不用转人工", "没必要找客服", "cancel the handoff",
             "I don't want to talk to a human", "别转人工了", "人工客服几点上班？", "人工客服电话是多少", "有人工客服吗", "把报价单转给客服",
             "我想要人工智能的资料", "找王工", "把报价单发给李经理", "人工智能是什么", "人工湖在哪",
             "send it to the agent", "don't transfer me to an agent", "is there a human agent?",
             "how do I talk to a human", "what does an operator do", "the agent said the order shipped",
             "restart nginx", "human resources report"]


@pytest.mark.parametrize("text", ASKED)
def test_a_request_for_a_person(text):
    assert asked(text)


@pytest.mark.parametrize("text", NOT_ASKED)
def test_not_a_request_for_a_person(text):
    assert not asked(text)
