"""Which reminder a request is about, and a request to move one (pure).

A person names a reminder by what it is about — its *topic* — far more often than by its time or
place in a list: "取消喝水的提醒", "删掉那个吃药的提醒", "不用提醒我开会了", "cancel the dentist reminder",
"delete the reminder about the meeting", "turn off the reminder to call mom". :func:`topic_of` takes
the words that name it: the utterance without the request words (取消 / 删除 / 不用 / cancel / delete /
turn off …), the reminder words (提醒 / 提醒我 / reminder), demonstratives (那个 / that), the linking 的 /
about / for / to, the time phrases (their spans) and the new time of a change; nothing is left for
"取消那个提醒" / "cancel that reminder" (the last one set is meant). The reminder tool matches the topic
against each reminder's text (``about``).

A request to change a reminder's time moves it, never sets a second one that would ring too:

- :func:`asks_change` — a change verb with the time it goes to: zh (把)…提醒 + 改到 / 改成 / 改在 / 挪到 /
  推迟到 / 推到 / 延后到 / 延到 / 提前到 / 调到 / 换到; en move / change / reschedule / push / shift / switch
  (…reminder…) to / until / for + a time ("move the meeting reminder to 4pm", "change my reminder to 10");
- :func:`shift_of` — a move by an amount of time, not to a time: zh 推迟 / 延后 / 往后推 / 晚 / 提前 / 提早 / 早 right
  before the duration ("推迟半小时", "把开会的提醒提前10分钟", "晚一个小时提醒我"); en snooze / postpone / delay / push
  (…) back / put (…) off / move (…) back / bring (…) forward / move (…) up before it ("snooze it for 10 minutes",
  "push the dentist reminder back an hour");
- :func:`corrects_time` — said right after a reminder was set, a contrast of two times or a bare repair
  that names only a time: "不是9点，是10点", "不是明天，是后天", "改成10点", "not 9, 10", "no, make it 10",
  "make it 4pm instead" (Levelt 1983, *Cognition* 14: the repair replaces the reparandum, here the time of
  the request just made — see :mod:`.repair` for a repair inside one utterance).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import lazyre
from ..nlu.normalize import normalize

__all__ = ["TimeRepair", "asks_change", "corrects_time", "bare_shift", "moves_unnamed", "revises", "names_half_day", "relative_shift", "said_shift", "shift_in", "shift_of", "stops_reminding", "time_repair",
           "topic_of"]

_ZH_CHANGE = r"(?:改到|改成|改在|改为|改為|挪到|推迟到|推遲到|推到|延后到|延後到|延到|提前到|调到|調到|换到|換到|换成|換成)"
_EN_CHANGE = r"\b(?:move|change|reschedule|push|shift|switch|bump|put\s+off|postpone)\b"
_ZH_CHANGE_RE = lazyre.compile(r"提醒.{0,6}?" + _ZH_CHANGE + r"|" + _ZH_CHANGE + r".{0,12}?(?:的)?提醒")
_EN_CHANGE_RE = lazyre.compile(_EN_CHANGE + r".{0,60}?\breminders?\b.{0,60}?\b(?:to|until|till|for|back\s+to)\b"
                               r"|" + _EN_CHANGE + r"\s+(?:it|that|this)\s+(?:to|until|till)\b", re.IGNORECASE)

#: a shift verb, then at most a few words (the reminder named: "把开会的提醒推迟" is before), then the duration:
#: zh the verb right before it (个/了 between: "推迟个半小时", "提前了10分钟"); en the verb, the object and its
#: particle, then by / for or nothing ("snooze by an hour", "push it back 30 minutes")
_ZH_LATER = r"(?:推迟|推遲|延后|延後|延迟|延遲|往后推|往後推|往后挪|往後挪|往后延|往後延|推后|推後|顺延|順延|(?<![今明昨每傍当當])晚)"
_ZH_EARLIER = r"(?:提前|提早|往前挪|往前推|往前提|(?<![今明昨每清当當])早)"
_EN_LATER = (r"\b(?:snooze|postpone|delay|push(?:\s+\S+){0,4}?\s+back|put(?:\s+\S+){0,4}?\s+off"
             r"|move(?:\s+\S+){0,4}?\s+back|set(?:\s+\S+){0,4}?\s+back)\b")
_EN_EARLIER = r"\b(?:bring(?:\s+\S+){0,4}?\s+forward|move(?:\s+\S+){0,4}?\s+(?:up|forward)|pull(?:\s+\S+){0,4}?\s+forward)\b"
_ZH_GAP = r"\s*(?:个|個|了|上|下)?\s*$"
_EN_GAP = r"(?:\s+\S+){0,4}?\s+(?:by|for)?\s*$"


# request words around the topic (normalised, lower-case text)
_ZH_DROP = lazyre.compile(r"的事(?:情|儿|兒)?|取消|撤销|撤銷|删除|刪除|删掉|刪掉|删了|刪了|去掉|关掉|關掉|关了|關了|不要了|不用了|不需要了|"
                          r"(?:以后|以後)?(?:我)?(?:不用|不要|别|別|不必|不需要|无需|無需)(?:你|您)?(?:再)?|"
                          r"(?:的)?提醒(?:我|一下)?|把|将|將|那个|那個|这个|這個|那条|那條|这条|這條|刚才|剛才|刚刚|剛剛|"
                          r"一下|帮我|幫我|请|請|吧|了|呢|啊|的|时候|時候|所有|全部|"
                          r"不是|而是|应该是|應該是|不对|不對|是(?=\s|$)|的事(?:情|儿|兒)?")
_EN_DROP = lazyre.compile(r"\b(?:please|can\s+you|could\s+you|i\s+don'?t\s+need|i\s+no\s+longer\s+need|no\s+longer|anymore|any\s+more|"
                          r"cancel|delete|remove|drop|clear|turn\s+off|switch\s+off|get\s+rid\s+of|forget|(?:stop|quit)\s+reminding\s+me|stop|"
                          r"you\s+can|no\s+more|be\s+reminded|"
                          r"move|change|reschedule|push|shift|switch|bump|postpone|put\s+off|"
                          r"don'?t|do\s+not|no\s+need\s+to|remind\s+me|reminders?|my|the|that|this|those|these|it|one|"
                          r"about|for|of|to|with|on|at|please|actually|just|now|again|instead|all|every|"
                          r"no|not|but|make|i\s+meant?|sorry|oops|wait)\b")
#: the words of asking for the list ("我有哪些开会的提醒", "关于吃药的提醒有什么", "do i have any reminders about
#: the dentist"): around the topic, as the request words are
_ZH_LIST = lazyre.compile(r"(?:我)?(?:都)?(?:有没有|有哪些|有什么|有几个|有几条|有多少)|哪些|什么|查看|查一下|查查|看一下|看看|列出|列一下|"
                          r"显示|顯示|我的|待办|待辦|事项|事項|关于|關於|有关|有關|(?:^|(?<=\s))(?:我|看|查|有)(?=\s|$)")
_EN_LIST = lazyre.compile(r"\b(?:show(?:\s+me)?|list|what|which|are|is|do\s+i\s+have|have\s+i\s+got|i\s+have|any|"
                          r"upcoming|pending|there|me|got)\b")
_EN_WORDS = lazyre.compile(r"[a-z0-9][a-z0-9'-]*")
_FILLER = lazyre.compile(r"[\s,，。.!！?？;；:：、\"'“”‘’()（）]+")
#: a word left alone that only leads or links the request ("那提前一小时", "那就改到五点", "好，推迟十分钟"): a
#: discourse marker, never what names a reminder
_ZH_MARKERS = frozenset({"那", "那就", "那么", "那麼", "就", "好", "好吧", "嗯", "呃", "还是", "還是", "再", "要不", "那还是",
                         # and what is left of one, or of a pronoun or an adverb, once the request's words are out
                         # (还是改到后天吧 → 还, 取消它 → 它, 算了，不用提醒了 → 算, 把提醒都取消了 → 都)
                         "还", "還", "它", "算", "算了", "都", "全", "全都", "也", "能不能", "可不可以", "可以", "能", "麻烦", "麻煩",
                         # and English ones ("ok then friday": the topic was "ok then")
                         "ok", "okay", "alright", "then", "so", "actually", "instead", "well"})

# a time repair said right after a time was set (Levelt 1983: editing term — repair): the editing terms and
# the words that lead the repair, zh and en; the reparandum and the repair must both be time phrases (or
# a bare hour, "make that 10": the hour of the time just set)
_EDIT = (r"(?:(?:哦|噢|啊|呃|不对|不對|错了|錯了|说错了|說錯了|搞错了|搞錯了|其实|其實|"
         r"no\s+wait|wait\s*,?\s*no|no|nope|sorry|oops|actually|wait|hmm|um|uh|er|oh|well)\s*[，,]?\s*)")
_LEAD = (r"(?:是|改成|改到|改为|改為|换成|換成|应该是|應該是|我是说|我是說|我的意思是|我说的是|我說的是|"
         r"make\s+it|make\s+that|change\s+it\s+to|change\s+that\s+to|i\s+meant|i\s+mean|it\s+should\s+be|should\s+be|"
         r"it'?s|it\s+is|let'?s\s+say|let'?s\s+do|how\s+about|rather)")
_END = r"(?:\s+instead)?[\s。.!！吧啦了]*$"
#: "不是9点，是10点", "not 9, 10", "no, not 9 but 10": the reparandum first
_A_THEN_B = lazyre.compile(rf"^{_EDIT}*(?:不是|不|not)\s*(?P<a>.+?)\s*(?:[，,;；]|\s+but\b)\s*(?:而)?(?:{_LEAD}\s*)?(?P<b>.+?){_END}",
                       re.IGNORECASE)
#: "no, 10 not 9", "10, not 9", "十点，不是九点": the repair first
_B_NOT_A = lazyre.compile(rf"^{_EDIT}*(?:{_LEAD}\s*)?(?P<b>.+?)\s*[，,]?\s*(?:而不是|不是|\bnot\b|\brather\s+than\b|\binstead\s+of\b)\s*(?P<a>.+?){_END}",
                      re.IGNORECASE)
#: "不对，是十点", "我是说十点", "I meant 10am", "make that 10", "actually 10 o'clock": the repair alone, after
#: an editing term or a lead (a time said alone is no repair)
_LED = lazyre.compile(rf"^{_EDIT}*{_LEAD}\s*(?P<b>.+?){_END}", re.IGNORECASE)
_EDITED = lazyre.compile(rf"^{_EDIT}+(?P<b>.+?){_END}", re.IGNORECASE)
_HOUR = lazyre.compile(r"^(?:at\s*|在\s*)?(?P<h>[01]?\d|2[0-4])$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class TimeRepair:
    """A repair of only the time just set. :param start: :param end: the repair's span in the text.
    :param hour: the repair is a bare hour ("make that 10", "是10"): no time phrase was read from it; its
    hour is the clock hour (``at 10`` / ``10点`` reads it)."""

    start: int
    end: int
    hour: bool = False

    def spelled(self, text: str) -> str:
        """``text`` with a bare hour said as a clock time: "make that at 10", "不对，是10点"."""
        if not self.hour:
            return text
        h = text[self.start:self.end]
        said = f"{h}点" if re.search(r"[\u4e00-\u9fff]", text) else f"at {h}"
        return text[:self.start] + said + text[self.end:]


_HALF = lazyre.compile(r"上午|下午|中午|晚上|早上|早晨|凌晨|傍晚|夜里|今晚|明晚|明早|午饭|晚饭|早饭|半夜|"
                       r"\b(?:am|pm|a\.m\.|p\.m\.|morning|afternoon|evening|night|tonight|noon|midnight)\b|"
                       r"(?<![0-9])(?:1[3-9]|2[0-4])(?:点|點|:[0-5][0-9]|时|時)|\d(?:am|pm)\b", re.IGNORECASE)


def names_half_day(text: str) -> bool:
    """A time phrase ``text`` says which half of the day its hour is in: a part of the day (上午, 晚上,
    "pm", "in the morning") or an hour past 12 ("15点", "15:30"); "10点" / "at 10" do not (either 10:00
    or 22:00 — a moved reminder takes the one nearer its old time).

    >>> names_half_day("下午3点"), names_half_day("15:00"), names_half_day("4pm"), names_half_day("10点")
    (True, True, True, False)
    """
    return bool(_HALF.search(text))


def asks_change(text: str) -> bool:
    """``text`` (normalised, lower case) asks to move a reminder to another time.

    >>> asks_change("把开会的提醒改到明天下午3点"), asks_change("move the meeting reminder to 4pm")
    (True, True)
    >>> asks_change("明天下午3点提醒我开会"), asks_change("remind me to move the car at 4pm")
    (False, False)
    """
    t = text.strip().lower()
    return bool(_ZH_CHANGE_RE.search(t) or _EN_CHANGE_RE.search(t))


#: a verb of moving that leads the utterance, its object left unsaid or a pronoun ("挪到周五", "那就改到下周一中午吧",
#: "把它推迟到晚上", "postpone it to the weekend" is :data:`_EN_CHANGE_RE`'s already): which thing moves is the talk's
_ZH_BARE_CHANGE_RE = lazyre.compile(r"^(?:请|請|帮我|幫我|那就|那|就|还是|還是|不对|不對|算了)?[，,\s]*(?:能不能|可不可以|可以|能|麻烦|麻煩)?(?:帮我|幫我)?"
                                    r"(?:把(?:它|那个|那個|这个|這個))?(?:再)?"
                                    + _ZH_CHANGE)


#: words that make a time said alone a change of what was just settled ("那就周五吧", "还是下周一中午吧",
#: "ok then friday", "friday instead", "actually 5pm"): a discourse marker of revision before it, or instead after
_REVISES = lazyre.compile(r"^(?:那就|那么|那麼|那|还是|還是|要不|不如|改成|换成|換成)|^(?:(?:ok|okay|alright|so)\s*,?\s*)?then\b"
                          r"|^(?:actually|no|nope|wait|hmm)\b|\binstead\b", re.IGNORECASE)


def revises(text: str) -> bool:
    """``text`` (normalised) leads or ends a time said alone with a word of revision: a change of what was just
    settled, not the time of something new.

    >>> revises("那就周五吧"), revises("ok then friday"), revises("friday instead"), revises("周五下午")
    (True, True, True, False)
    """
    return bool(_REVISES.search(text.strip()))


def moves_unnamed(text: str) -> bool:
    """``text`` (normalised, lower case) moves something not named to another time ("挪到周五", "改到下周一中午吧",
    "move it to thursday evening"): a change of a reminder only in a talk about reminders — the caller knows
    (:meth:`hermesd.session.pipeline.Pipeline._changed`); "会议挪到周五" names what moves, and is no such thing.

    >>> moves_unnamed("挪到周五"), moves_unnamed("那就改到下周一中午吧"), moves_unnamed("move it to thursday evening")
    (True, True, True)
    >>> moves_unnamed("会议挪到周五"), moves_unnamed("明天提醒我改到周五")
    (False, False)
    """
    t = text.strip().lower()
    return bool(_ZH_BARE_CHANGE_RE.match(t) or re.match(r"^(?:please\s+|can\s+you\s+|could\s+you\s+|ok\s+|okay\s+|then\s+)?"
                                                       + _EN_CHANGE + r"\s+(?:it|that|this)\s+(?:to|until|till)\b", t))


def shift_of(text: str, span: tuple[int, int]) -> str | None:
    """Whether the duration at ``span`` of ``text`` moves a reminder by that much: ``"later"``, ``"earlier"``
    or None (the duration is no shift: "半小时后提醒我" is a time from now).

    :param text: the utterance, normalised and lower case; :param span: the duration phrase's ``[a, b)``.

    >>> shift_of("推迟半小时", (2, 5)), shift_of("把开会的提醒提前10分钟", (8, 12)), shift_of("snooze by an hour", (10, 17))
    ('later', 'earlier', 'later')
    >>> shift_of("push it back 30 minutes", (13, 23)), shift_of("半小时后提醒我", (0, 3))
    ('later', None)
    """
    before = text[:span[0]].lower()
    if re.search(_ZH_LATER + _ZH_GAP, before) or re.search(_EN_LATER + _EN_GAP, before):
        return "later"
    if re.search(_ZH_EARLIER + _ZH_GAP, before) or re.search(_EN_EARLIER + _EN_GAP, before):
        return "earlier"
    return None


#: "10 minutes earlier", "half an hour later", "a day later": an amount of time, then earlier / later (the
#: NLU reads it as that long before / after now)
_EN_RELATIVE = lazyre.compile(r"^(?P<d>.*?\b(?:minutes?|mins?|hours?|hrs?|days?|weeks?))\s+(?P<w>earlier|later)$", re.IGNORECASE)
#: what may stand beside such a time when it moves the reminder just set: a repair's lead, "instead"
_EN_SHIFT_FRAME = lazyre.compile(r"^(?:(?:no|nope|actually|ok|okay|oh|sorry|wait|hmm|um|please|then|so|and|another|a\s+further|further)\b[\s,]*)*"
                                 r"(?:make\s+(?:it|that)|move\s+(?:it|that)|set\s+(?:it|that)|change\s+(?:it|that)(?:\s+to)?|"
                                 r"push\s+(?:it|that)|remind\s+me|do\s+(?:it|that))?[\s,]*(?:instead|then|please)?[\s.!]*$", re.IGNORECASE)


#: a verb of moving beside it: "move the plants reminder 1.5 hours earlier", "push it an hour later"
_EN_MOVE = lazyre.compile(r"\b(?:move|push|shift|bump|reschedule|postpone)\b", re.IGNORECASE)


def relative_shift(text: str, time_text: str, span: tuple[int, int]) -> tuple[str, str] | None:
    """``("earlier", "10 minutes")`` when the time ``time_text`` at ``span`` of ``text`` is an amount of time then
    earlier / later ("make it 10 minutes earlier", "remind me an hour later instead") said as a move of the
    reminder just set: beside it only a repair's lead or "instead", or a verb of moving ("move the plants reminder
    1.5 hours earlier") — "remind me to call mom 2 hours later"
    names a task, so it is a new reminder two hours from now. None otherwise.

    >>> relative_shift("make it 10 minutes earlier", "10 minutes earlier", (8, 26))
    ('earlier', '10 minutes')
    >>> relative_shift("remind me to call mom 2 hours later", "2 hours later", (22, 35)) is None
    True
    """
    m = _EN_RELATIVE.match(time_text.strip())
    rest = text[:span[0]] + " " + text[span[1]:]
    if m is None or not (_EN_SHIFT_FRAME.match(rest) or _EN_MOVE.search(rest)):
        return None
    return m.group("w").lower(), m.group("d").strip()


#: a shift verb said with no amount ("推迟", "推迟一会儿", "提前一点", "snooze it", "postpone it"): the whole
#: utterance, so "推迟开会" or "snooze the alarm on my phone" is none
_ZH_BARE_SHIFT = lazyre.compile(r"^(?:请|帮我|麻烦)?(?:把(?:它|那个|这个|提醒)?)?(?:再)?(?P<v>推迟|推遲|延后|延後|往后推(?:一推)?|往後推|推后|推後|提前|提早)"
                                r"(?:一下|一会儿?|一點|一点|点|些)?(?:提醒(?:我)?)?(?:吧|了)?[。.!！]*$")
_EN_BARE_SHIFT = lazyre.compile(r"^(?:please\s+)?(?P<v>snooze|postpone|delay|push\s+(?:it|that)\s+back|put\s+(?:it|that)\s+off|bring\s+(?:it|that)\s+forward)"
                                r"(?:\s+(?:it|that|the\s+reminder))?(?:\s+(?:a\s+bit|a\s+little|for\s+a\s+bit|for\s+a\s+while))?[\s.!]*$",
                                re.IGNORECASE)


#: a shift verb beside a reminder named, with no amount ("push back the call mom reminder", "put off the bank
#: reminder", "delay the dentist reminder", "把收衣服的提醒推迟", "收衣服的提醒往后推一下", "把取快递的提醒延后")
_EN_NAMED_SHIFT = lazyre.compile(r"^(?:please\s+)?(?:can\s+you\s+)?(?P<v>snooze|postpone|delay|push\b(?=.*\bback\b)|put\b(?=.*\boff\b)|"
                                 r"bring\b(?=.*\bforward\b))(?=.*\breminders?\b).*$", re.IGNORECASE)
_ZH_NAMED_SHIFT = lazyre.compile(r"提醒(?:再)?(?P<v>推迟|推遲|延后|延後|往后推|往後推|推后|推後|提前|提早)(?:一下|一会儿?|一点|点|些)?(?:吧|了)?[。.!！]*$")


def bare_shift(text: str) -> str | None:
    """``"later"`` / ``"earlier"`` when ``text`` (normalised) is only a shift verb, with no amount said
    ("推迟一会儿", "snooze it"): the amount is asked for (reminder.change.by.ask). None otherwise.

    >>> bare_shift("推迟一会儿"), bare_shift("提前一点"), bare_shift("snooze it"), bare_shift("推迟开会")
    ('later', 'earlier', 'later', None)
    >>> bare_shift("push back the call mom reminder"), bare_shift("把收衣服的提醒推迟")
    ('later', 'later')
    """
    t = text.strip().lower()
    m = _ZH_BARE_SHIFT.match(t) or _EN_BARE_SHIFT.match(t) or _EN_NAMED_SHIFT.match(t) or _ZH_NAMED_SHIFT.search(t)
    if m is None:
        return None
    return "earlier" if m.group("v").startswith(("提前", "提早", "bring")) else "later"


def _verb_only(text: str) -> bool:
    """``text`` is a shift verb alone ("推迟一会儿", "snooze it"): no reminder is named."""
    return bool(_ZH_BARE_SHIFT.match(text) or _EN_BARE_SHIFT.match(text))


def said_shift(text: str, times: Sequence[Any]) -> str | None:
    """The direction the utterance ``text`` (as said, with its time expressions ``times``) moves a reminder:
    :func:`shift_in`, or with no time said :func:`bare_shift` ("推迟一会儿": the amount is asked for); None."""
    return shift_in(text, times) or (None if times else bare_shift(normalize(text).text))


def shift_in(text: str, times: Iterable[Any]) -> str | None:
    """:func:`shift_of` for an utterance as the NLU read it: the direction its first duration that is a shift
    moves a reminder ("推迟半小时" → ``"later"``), or of a time said as an amount earlier / later beside only
    a repair's words (:func:`relative_shift`: "make it 10 minutes earlier"), else None.

    :param text: the utterance as said; :param times: its time expressions (``kind``, ``span`` in ``text``,
        ``text``: :class:`hermesd.nlu.temporal.TimeExpr`).
    """
    for x in times:
        if getattr(x, "kind", None) in ("datetime", "date") and (rel := relative_shift(text, x.text, tuple(x.span))):
            return rel[0]
    durations = [x for x in times if getattr(x, "kind", None) == "duration"]
    if not durations:
        return None
    norm = normalize(text)
    low = norm.text.lower()
    return next((d for x in durations if (d := shift_of(low, norm.nspan(*x.span)))), None)


#: "别再提醒我吃药了", "不用再提醒我X了", "以后不要提醒我X", "X不用再提醒我了": a negator before 提醒(我) — the Mandarin
#: negative imperative (Li & Thompson 1981, on negation) of being reminded; 别忘了提醒我 is no such thing
_ZH_STOP = lazyre.compile(r"(?<![要需])(?:以后|以後|今后|今後)?(?:千万|千萬)?(?:别|別|不要|不用|不必|甭|无需|無需|不需要|用不着|用不著)"
                          r"(?:你|您)?(?:再|继续|繼續)?提醒(?:我|一下)?")
#: "stop reminding me to take my pills", "quit reminding me about it", "don't remind me to X (anymore)", "no
#: more reminders about X", "I don't need to be reminded to X any more"
_EN_STOP = lazyre.compile(r"\b(?:stop|quit|cease)\s+(?:reminding|nagging)\s+me\b"
                          r"|^(?:(?:never\s*mind|nevermind|forget\s+it|actually|no|ok|okay|oh|so)\b[\s,.!]*)*"
                          r"(?:please\s+|you\s+can\s+|so\s+)?(?:don'?t|do\s+not|never|no\s+need\s+to)\s+(?:ever\s+)?remind\s+me\b"
                          r"|\bno\s+(?:more|longer\s+any)\s+reminders?\b"
                          r"|\b(?:don'?t|do\s+not|no\s+longer)\s+need\s+(?:to\s+be\s+)?remind(?:ed|ing)?\b")
_ZH_QUESTION = lazyre.compile(r"(?:吗|嗎|么|麼)\s*[?？]?\s*$|[?？]\s*$")


def stops_reminding(text: str) -> bool:
    """``text`` (normalised, lower case) asks not to be reminded (again) of something: a negative imperative of
    提醒我 / "remind me" — "别再提醒我吃药了", "不用再提醒我开会了", "以后不要提醒我喝水", "stop reminding me to take my
    pills", "don't remind me about the dentist anymore", "no more reminders about the pills". It takes back a
    reminder (the one about what follows, :func:`topic_of`), never sets one and is never a mere "don't".
    A question ("不用提醒我吗？") and 别忘了提醒我 / "don't forget to remind me" are not.

    >>> stops_reminding("别再提醒我吃药了"), stops_reminding("stop reminding me to take my pills")
    (True, True)
    >>> stops_reminding("别忘了提醒我吃药"), stops_reminding("remind me to stop smoking"), stops_reminding("不用提醒我吗？")
    (False, False, False)
    """
    t = text.strip().lower()
    if not t or _ZH_QUESTION.search(t):
        return False
    return bool(_ZH_STOP.search(t) or _EN_STOP.search(t))


def _covered(part: str, times: Iterable[str]) -> bool:
    """``part`` is one of the time phrases ``times`` (their text), give or take spaces and particles."""
    p = _FILLER.sub("", part).lower()
    p = re.sub(r"^(?:at|on|by|in|for)", "", p)
    return bool(p) and any(p == _FILLER.sub("", t).lower() for t in times)


def _hour(part: str) -> bool:
    """``part`` is a bare hour ("10", "at 10", "十"), 0–24."""
    return _HOUR.match(normalize(part.strip()).text.strip()) is not None


def time_repair(text: str, times: Iterable[str]) -> TimeRepair | None:
    """``text`` repairs only the time of what was just asked — its contrast ("不是9点，是10点", "no, 10 not 9")
    or its bare repair ("不对，是十点", "我是说十点", "I meant 10am", "make that 10", "actually 10 o'clock") names
    only times: the time phrases of the utterance (``times``: their text as the parse found them) or a bare
    hour; else None.

    >>> time_repair("no, 10 not 9", []), time_repair("我是说10点", ["10点"])
    (TimeRepair(start=4, end=6, hour=True), TimeRepair(start=3, end=6, hour=False))
    >>> time_repair("不是王芳，是李娜", []), time_repair("是10点的会", ["10点"]), time_repair("10", [])
    (None, None, None)
    """
    t = text.rstrip()
    times = [x for x in times if x and x.strip()]

    def side(part: str) -> str | None:
        return "time" if _covered(part, times) else "hour" if _hour(part) else None

    for pattern, both in ((_A_THEN_B, True), (_B_NOT_A, True), (_LED, False), (_EDITED, False)):
        m = pattern.match(t)
        if m is None:
            continue
        b = side(m.group("b"))
        if b is None or (both and side(m.group("a")) is None):
            continue
        start, end = m.span("b")
        if b == "hour":
            lead = re.match(r"(?i)(?:at\s*|在\s*)", t[start:end])
            start += lead.end() if lead else 0
        return TimeRepair(start, end, b == "hour")
    return None


def corrects_time(text: str, times: Iterable[str]) -> bool:
    """``text`` repairs only the time of what was just asked (:func:`time_repair`).

    >>> corrects_time("不是9点，是10点", ["9点", "10点"]), corrects_time("no, make it 10am", ["10am"])
    (True, True)
    >>> corrects_time("不是王芳，是李娜", []), corrects_time("是10点的会", ["10点"])
    (False, False)
    """
    return time_repair(text, times) is not None


def topic_of(text: str, time_spans: Iterable[tuple[int, int]] = (), shifted: bool = False) -> str | None:
    """The words that name the reminder meant, or None when the request names none.

    :param text: the utterance, normalised and lower case (:func:`hermesd.nlu.normalize.normalize`).
    :param time_spans: spans of its time phrases in ``text``; they never name the topic.
    :return: e.g. "喝水" for "取消喝水的提醒", "吃药" for "不用提醒我吃药了", "dentist" for "cancel the
        dentist reminder", "call mom" for "turn off the reminder to call mom", "开会" for
        "把开会的提醒改到明天下午3点"; None for "取消那个提醒", "cancel that", "move my reminder to 5pm", "那提前一小时".
    :param shifted: the request moves the reminder by a duration (:func:`shift_in`): its verb and particles
        ("把开会的提醒推迟一小时", "push the dentist reminder back an hour") name no reminder either.
    """
    t = text.strip().lower()
    if shifted and _verb_only(t):  # "推迟一会儿", "snooze it": the verb alone names no reminder
        return None
    keep = list(t)
    for a, b in time_spans:
        for i in range(max(a, 0), min(b, len(t))):
            keep[i] = " "
    t = "".join(keep)
    if shifted:
        t = re.sub(r"(?:再|又|还|還)?(?:往)?" + f"(?:{_ZH_LATER}|{_ZH_EARLIER})" + r"(?:一推|个|個|了|一下|一会儿?|一点|点|些)?(?:吧|了)?(?=\s|$)", " ", t)
        t = re.sub(r"\b(?:snooze|delay|bring|pull|set|back|forward|earlier|later|instead|put|off|then|so|and|another|further|"
                   r"please|ok|okay)\b|(?<!其)它", " ", t)
        t = re.sub(r"\b(?:back|forward|up|off)?\s*\b(?:by|for)?\s*$", " ", t.rstrip())
    m = re.search(_ZH_CHANGE + r"|" + _EN_CHANGE + r".{0,80}?\b(?:to|until|till)\b", t)
    if m is not None:  # the change's new time is not the topic: keep what names the reminder
        zh = re.match(_ZH_CHANGE, m.group())
        t = t[:m.start()] if zh else t[:m.start()] + re.sub(r"\b(?:to|until|till)\b\s*$", "", m.group())
    t = _ZH_DROP.sub(" ", t)
    t = _ZH_LIST.sub(" ", _ZH_LIST.sub(" ", t))  # twice: a lone 我 / 看 is a word once its neighbours are gone
    t = _EN_DROP.sub(" ", t)
    t = _EN_LIST.sub(" ", t)
    words = [w for w in _FILLER.split(t) if w and w not in _ZH_MARKERS]
    out = " ".join(words).strip()
    out = re.sub(r"(?<=[\u4e00-\u9fff]) (?=[\u4e00-\u9fff])", "", out)
    return out or None
