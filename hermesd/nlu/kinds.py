"""Utterance kind: command, question, correction, affirm, deny, cancel (zh and en; pure).

Checked in that order of precedence: a correction ("不对，是李工", "no, I meant
Thursday") names a replacement, so it wins over deny; a bare cancel/affirm/deny
is the whole utterance (取消我的闹钟 is a command whose intent cancels something,
not a "cancel" of the dialogue); a polite request (请/帮我/can you … / could you …)
is a command even when it ends in 吗 or "?".
"""

from __future__ import annotations


from .. import lazyre

__all__ = ["KINDS", "utterance_kind"]

KINDS = ("command", "question", "correction", "affirm", "deny", "cancel")

_END = r"[\s,.!?~;:，。！？～、吧啊呀呢哦哈的了嘛]*$"
_CORRECTION = lazyre.compile(
    r"^(?:不对|不是的?|错了|搞错了|说错了|我是说|我的意思是|应该是|改成|换成|改为|更正|纠正|是.{1,12}不是)"
    r"|^(?:no|nope|not that|wrong|sorry|oops|actually)?[\s,.!]*(?:i meant|i mean|i said|make (?:it|that)|change (?:it|that) to|correction|actually)\b"
    r"|^no[\s,.!]+(?:it'?s|it is|the|on|at|to|for)\b")
_CANCEL = lazyre.compile(
    r"^(?:取消|算了|不用了|不要了|别发了|别弄了|停止|停下|停|退出|撤销|放弃|不办了|cancel(?: it| that| this)?|never ?mind|"
    r"forget (?:it|about it)|stop|abort|quit|exit|nothing|that'?s all)" + _END)
_AFFIRM = lazyre.compile(
    r"^(?:是|是的|对|对的|对啊|好|好的|好啊|嗯|嗯嗯|行|可以|没问题|确认|确定|同意|发吧|就这样|没错|ok|okay|k|yes|yeah|yep|yup|"
    r"sure|confirm(?:ed)?|correct|right|exactly|go ahead|do it|please do|sounds good|of course|absolutely|fine)" + _END)
_DENY = lazyre.compile(
    r"^(?:不|不是|不对|不要|不用|不行|否|没有|别|no|nope|nah|negative|don'?t|do not|not really|wrong|incorrect)" + _END)
_POLITE = lazyre.compile(r"^(?:请|麻烦|帮我|帮忙|给我|please|pls|can you|could you|would you|will you|can u|could u|kindly)"
                         r"|(?:帮我|帮忙|please)")
_QUESTION = lazyre.compile(
    r"[?？]\s*$|[吗呢么嘛]\s*[?？.。]?\s*$|什么|怎么|为什么|为何|哪|谁|几[点号个天时]|多少|多久|多长|是否|有没有|是不是|能不能|可不可以|会不会|要不要|"
    r"^(?:what|when|where|who|whom|whose|why|how|which|is|are|am|was|were|do|does|did|can|could|will|would|should|shall|may|might|have|has|had)\b")


def utterance_kind(text: str) -> str:
    """Kind of an utterance, one of :data:`KINDS`.

    :param text: the normalised text (lower-case; see :mod:`.normalize`) — any string is accepted.
    """
    t = text.strip()
    if _CORRECTION.search(t):
        return "correction"
    if _CANCEL.match(t):
        return "cancel"
    if _AFFIRM.match(t):
        return "affirm"
    if _DENY.match(t):
        return "deny"
    if _QUESTION.search(t) and not _POLITE.search(t):
        return "question"
    return "command"
