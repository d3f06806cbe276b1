"""A request for a person: "转人工", "我要找客服", "talk to a human", "agent please" (pure).

Asking for a human is one of the commonest things said to an assistant (call-centre logs put
"agent"/"representative" among the first words callers say); it is never a task of the pack. The
classifier reads its content words (转 reads as "forward", 人 as a person to send to) and opened
a send form. Whatever the NLU makes of it, hermesd hands the session over — the same ``handoff``
event a rule's ``handoff:`` step raises — and says so in one sentence.

The shapes (Simplified and Traditional Chinese, English):

- zh: 转/轉/接 + 人工 (客服), 人工(客服|服务|坐席) said alone, 找/叫/要 + 真人/人工/客服/工作人员/
  技术员, 跟/和 + 真人/人 + 说话/聊/谈;
- en: talk/speak/chat to/with a human/person/agent/operator/representative (someone real),
  transfer/connect me to …, a bare "agent" / "operator" / "human" / "representative" (please).

A negated or withdrawn one ("不用转人工", "我不想找人工", "取消转人工", "no need for an agent", "don't
transfer me", "cancel the handoff") is not a request, nor a
question about one ("人工客服几点上班？", "is there a human agent?") — a question that asks for the act
itself is a polite request ("能转人工吗", "can I talk to a human?"), nor a thing passed on ("把报价单转给客服" moves the quote), nor
a person of the directory ("找王工" is people.lookup), nor 人工智能.
"""

from __future__ import annotations


from .. import lazyre

__all__ = ["asked"]

_WHO_ZH = r"(?:人工(?!智能|智慧|湖|降雨|呼吸|费|費|成本|合成)|真人|客服|工作人员|工作人員|技术员|技術員|值班(?:的)?人|活人)"
_ZH = lazyre.compile(
    r"(?:转|轉|接|切|换|換)(?:到|给|給|成)?(?:一个|一個|个|個)?" + _WHO_ZH
    + r"|(?:找|叫|要|请|請|喊)(?:一?个|一?個|位)?" + _WHO_ZH
    + r"|(?:跟|和|与|與)(?:一?个|一?個)?(?:真人|人工|客服|活人)(?:说话|說話|聊|谈|談|沟通|溝通)"
    + r"|^(?:请|請)?人工(?:客服|服务|服務|坐席)?(?:吧|呢|啊)?[\s。.!！]*$")
_WHO_EN = (r"(?:a\s+|an\s+|the\s+|some\s+|your\s+)?(?:real\s+|live\s+|actual\s+)?"
           r"(?:human(?:\s+being)?|person|agent|operator|representative|rep|someone\s+real|technician|staff|people)")
_EN = lazyre.compile(
    r"(?i)\b(?:talk|speak|chat)\s+(?:to|with)\s+" + _WHO_EN + r"\b"
    r"|\b(?:transfer|connect|put)\s+me\s+(?:through\s+)?to\s+" + _WHO_EN + r"\b"
    r"|\b(?:get|give|need|want)\s+(?:me\s+)?" + _WHO_EN + r"\s*(?:please)?[\s.!]*$"
    r"|^\s*(?:" + _WHO_EN + r")\s*(?:please|now)?[\s.!]*$")
_NOT = lazyre.compile(r"(?i)^(?:请|請)?(?:你)?(?:不用|不要|别|別|无需|無需|不必|不需要|甭)"
                      r"|不想|不愿|不願|没必要|沒必要|不需要|不用|取消|撤销|撤銷"
                      r"|几点|幾點|电话|電話|号码|號碼|(?:把|将|將).+(?:转|轉|发|發|给|給)"
                      r"|\b(?:don'?t|do\s+not|no\s+need|never|not)\b"
                      r"|^\s*(?:is|are|when|what|where|how|do|does|why|who|which)\b")
_QUESTION = lazyre.compile(r"[吗嗎么麼呢]\s*[?？]?\s*$|[?？]\s*$")
# a question that asks for the act itself is a polite request (能转人工吗, "can I talk to a human?")
_POLITE = lazyre.compile(r"(?i)^\s*(?:请|請)?(?:你|您)?(?:能|可以|能不能|可不可以|可否|麻烦|麻煩)"
                         r"|^\s*(?:please\s+)?(?:can|could|may|would|will)\s+(?:you|i|we)\b")


def asked(text: str) -> bool:
    """True when ``text`` (one utterance, raw or normalised) asks for a person to take over.

    >>> asked("转人工"), asked("我要找客服"), asked("talk to a human"), asked("Agent please")
    (True, True, True, True)
    >>> asked("不用转人工"), asked("人工客服几点上班？"), asked("找王工"), asked("send it to the agent")
    (False, False, False, False)
    >>> asked("把报价单转给客服"), asked("我想要人工智能的资料")
    (False, False)
    """
    t = text.strip()
    if not t or _NOT.search(t) or (_QUESTION.search(t) and not _POLITE.search(t)):
        return False
    return bool(_ZH.search(t) or _EN.search(t))
