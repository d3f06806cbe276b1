"""A request said in the negative: "不要重启nginx", "别查磁盘了", "don't send the quote to Li Na" (pure).

A negative imperative tells the assistant *not* to do something; it is never that request. The
classifier reads the content words (重启, nginx) and would put the action on a card, where a plain
"对" / "right" then ran it. The shapes (a negator opening the utterance: 别 / 不要 are Mandarin's
negative imperative, Li & Thompson 1981, *Mandarin Chinese*, on negation; English "don't" /
"do not" / "never" + verb):

- zh: (请)(千万 | 可千万)(不要 | 别 | 不用 | 甭 | 无需 | 不必 | 不需要 | 勿) + the request;
- en: (please) (don't | do not | never | no need to) + the request;
- the same said inside the clause: after a subject or an adverb (我不想重启nginx, 没必要重启nginx吧, 报价单先别
  发给王芳, 王芳说不用发报价单了; "I don't want to send the quote", "there's no need to restart it") — 要不要 is
  a question, 别人 / 别的 "other", 不用的 "unused", 不想要X "want rid of X".

Not negative requests: 别忘了 / 别让我忘了 / "don't forget" / "don't let me forget" (a reminder,
read elsewhere), 不要紧 /
别担心 / 别客气 / 别着急 / "don't worry", questions (不用重启吗？, "don't I need to restart it?"), and
an utterance of several clauses ("不要发给张伟，发给王芳": its second clause is the request; a
card's correction is read by :mod:`.reader`).
"""

from __future__ import annotations


from .. import lazyre

__all__ = ["negated_request"]

_ZH = lazyre.compile(r"^(?:请|請)?(?:你)?(?:可)?(?:千万|千萬)?(?:不要|别|別|不用|甭|无需|無需|不必|不需要|勿)(?:再|给我|幫我|帮我)?"
                     r"(?!忘|让我忘|讓我忘|让我错过|担心|擔心|客气|客氣|着急|著急|急|紧|緊|怕|介意|管我|理我|谢|謝|(?:了|啦|吧|呀|啊)*[\s。.!！]*$)"
                     r"(?=[\u4e00-\u9fffA-Za-z])")
_EN = lazyre.compile(r"^(?:please\s+)?(?:don'?t|do\s+not|never|no\s+need\s+to)\s+"
                     r"(?!forget|worry|hesitate|mind|bother\s+me|be\s+|let\s+(?:me|us)\s+(?:forget|miss))(?=[a-z])")
# the same negators inside the clause, after a subject, an adverb or a topic: "我不想重启nginx", "没必要重启nginx吧",
# "报价单先别发给王芳", "王芳说不用发报价单了" (要不要 is a question; 别人/别的 are "other", so 别 counts only
# where it starts the predicate: after a pronoun or an adverb of the imperative)
_ZH_INNER = lazyre.compile(r"(?:不想(?!要)|不愿意?|不打算|不需要|没必要|沒必要|不必|不用|无需|無需|(?<![要需])不要"
                           r"|(?:(?<=[我你您咱们們先就可千万萬也])|(?<=还是|還是|最好|暂时|暫時))(?:别|別))"
                           r"(?:再|给我|幫我|帮我)?"
                           r"(?!忘|让我忘|讓我忘|让我错过|担心|擔心|客气|客氣|着急|著急|急|紧|緊|怕|介意|管我|理我|谢|謝|的"
                           r"|(?:了|啦|吧|呀|啊)*[\s。.!！]*$)(?=[\u4e00-\u9fffA-Za-z])")
_EN_INNER = lazyre.compile(r"\b(?:i|we)\s+(?:really\s+|just\s+)?(?:don'?t|do\s+not|didn'?t)\s+(?:want|need|mean)\s+(?:you\s+)?to\s+"
                           r"(?!forget|worry|miss)(?=[a-z])|\b(?:there'?s|there\s+is)\s+no\s+need\s+to\s+(?=[a-z])")
_QUESTION = lazyre.compile(r"(?:吗|嗎|么|麼|呢)?\s*[?？]\s*$|(?:吗|嗎)\s*[。.!！]?\s*$")
_BREAK = lazyre.compile(r"[,，;；。!！]\s*\S")


def negated_request(text: str) -> bool:
    """``text`` (normalised, lower case) is one clause telling the assistant not to do something.

    >>> negated_request("不要重启nginx"), negated_request("don't send the quote to li na")
    (True, True)
    >>> negated_request("别忘了提醒我开会"), negated_request("不用重启吗？"), negated_request("重启nginx")
    (False, False, False)
    """
    t = text.strip().lower()
    if not t or _QUESTION.search(t) or _BREAK.search(t.rstrip("。.!！ ")):
        return False
    return bool(_ZH.match(t) or _EN.match(t) or _ZH_INNER.search(t) or _EN_INNER.search(t))
