"""Entities with spans: person, email, phone, order/ticket ids, money, numbers, gazetteer terms (pure).

:class:`EntityExtractor` is built once from config (directory names, id
patterns, gazetteers) and then :meth:`EntityExtractor.extract` is a pure
function of a :class:`~hermesd.nlu.normalize.Normalized` text and the time
expressions found in it.

Conflicts are settled in one pass over all candidates, ranked by
(context bonus, length, type priority): non-overlapping, longest match wins,
one type per span. A context word right before a span (订单号, 工单, order #,
电话, phone) raises its candidate above the bare readings, so the same digits
are an ``order_id`` after 订单号 and a ``phone`` after 电话.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from .. import lazyre
from .normalize import Normalized
from .numbers import en_number
from .scripts import needed_scripts, scripts_of
from .termtrie import longest_term_pattern
from .temporal import TimeExpr
from .zones import place_names, zone_of

__all__ = ["DEFAULT_ID_PATTERNS", "Entity", "EntityExtractor", "IdPattern", "SURNAMES", "TITLES", "place_candidates"]

#: common Chinese surnames (the most frequent ~100 by the 2020 census order, 公安部户政管理研究中心).
SURNAMES = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何林高罗郑梁谢宋唐许韩冯邓曹彭曾萧田董潘袁蔡蒋余于杜叶程魏"
            "苏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵钱严"
            "覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒")
SURNAMES2 = ("欧阳", "司马", "上官", "诸葛", "东方", "慕容", "令狐", "皇甫", "尉迟", "长孙")
#: titles that follow a surname (张工, 李经理, 王总 …), longest first.
TITLES = ("工程师", "总经理", "总监", "经理", "主任", "主管", "老师", "医生", "大夫", "师傅", "律师", "教授", "博士",
          "先生", "女士", "小姐", "老板", "局长", "处长", "科长", "部长", "院长", "组长", "所长", "厂长", "秘书",
          "会计", "助理", "总", "工", "董", "姐", "哥", "叔", "姨", "阿姨", "师兄", "师姐")
# surname+title strings that are ordinary words (施工 = construction, 汪总? no)
_NOT_PERSON = {"施工", "员工", "职工", "手工", "分工", "开工", "完工", "加工", "电工", "化工", "技工", "总工", "童工",
               "石工", "木工", "怠工", "复工", "罢工", "竣工", "动工", "做工", "打工", "月工", "金工", "同工", "常工",
               "包工", "关总", "江总", "向总", "万总", "于总", "余总", "方总", "高总", "温总", "常总", "安总", "文总",
               "齐总", "易总", "包总", "符总", "尚总", "申总", "殷总", "孔总", "乔总", "高工", "康工", "文工", "钱工"}
_DIMINUTIVE_SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗郑梁谢宋唐许韩冯邓曹彭曾田董潘袁蔡蒋杜叶程魏苏吕丁沈姚卢姜崔钟谭陆汪范廖贾夏邹孟熊秦邱尹薛闫雷侯陶黎贺顾毛郝龚邵钱严戴孔汤"
_NOT_DIMINUTIVE = {"小朱", "老马", "小马", "老黄", "小雷", "老孔", "小蔡", "小孙"}


@dataclass(frozen=True, slots=True)
class IdPattern:
    """A configurable identifier pattern.

    :param type: entity type, e.g. ``order_id`` or ``ticket_id``.
    :param regex: Python regex over normalised (lower-case, ASCII-digit) text; group 0 is the id.
    :param context: words that, right before the id (up to 6 characters of gap), mark it as
        this type and let it win over other readings; ``context_required`` makes them mandatory.
    :param case_sensitive: match ``regex`` over the original text instead (capitalisation is a
        cue: "in San Jose"); the value is the matched original text as said, not upper-cased,
        and ``context`` is looked for in the normalised text as for any pattern.
    """

    type: str
    regex: str
    context: tuple[str, ...] = ()
    context_required: bool = False
    case_sensitive: bool = False


DEFAULT_ID_PATTERNS: tuple[IdPattern, ...] = (
    IdPattern("order_id", r"(?<![a-z0-9_-])(?:so|po|ord|dd)-?\d{4,20}(?![a-z0-9_-])"),
    IdPattern("order_id", r"(?<![a-z0-9_-])[a-z]{0,4}-?\d{5,24}(?![a-z0-9_-])",
              ("订单号", "订单编号", "订单", "单号", "order number", "order no.", "order no", "order #", "order", "#"), True),
    IdPattern("ticket_id", r"(?<![a-z0-9_-])(?:tk|inc|tkt|case)-?\d{3,20}(?![a-z0-9_-])"),
    IdPattern("ticket_id", r"(?<![a-z0-9_-])[a-z]{0,4}-?\d{3,24}(?![a-z0-9_-])",
              ("工单号", "工单", "报修单", "ticket number", "ticket no.", "ticket no", "ticket #", "ticket", "case"), True),
)


@dataclass(frozen=True, slots=True)
class Entity:
    """One entity mention.

    :param type: ``person`` ``email`` ``phone`` ``order_id`` ``ticket_id`` ``money`` ``number``
        ``quantity`` ``datetime`` ``recurrence`` ``place`` or a gazetteer type (``doc_type``, ``service``, ``device``, …).
    :param value: canonical value: the directory id/name, the digits of a phone (E.164 when it
        can tell), ``{"amount", "currency"}`` for money, a number, the gazetteer's canonical term,
        or the time expression dict for ``datetime`` and ``recurrence`` (每周一, 每天早上8点: a time that
        comes again, kept apart from the one-off times a ``datetime`` slot takes).
    :param text: the original text of ``span``; :param span: ``(start, end)`` in the original text.
    """

    type: str
    value: Any
    text: str
    span: tuple[int, int]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"type": self.type, "value": self.value, "text": self.text, "span": list(self.span)}


@dataclass(slots=True)
class _Cand:
    start: int
    end: int
    type: str
    value: Any
    rank: int  # base priority of the type
    ctx: int = 0


_EMAIL = lazyre.compile(r"(?<![a-z0-9_.+-])[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?![a-z0-9_])")
_MOBILE = lazyre.compile(r"(?<![\d+])(?:(?:\+|00)?86[\s-]?)?1[3-9]\d[\s-]?\d{4}[\s-]?\d{4}(?!\d)")
_LANDLINE = lazyre.compile(r"(?<![\d+])(?:\(0\d{2,3}\)|0\d{2,3})[\s-]?\d{7,8}(?:-\d{1,5})?(?!\d)")
_E164 = lazyre.compile(r"(?<![a-z0-9_])\+[1-9]\d{0,2}[\s-]?(?:\d[\s-]?){6,13}\d(?!\d)")
_PHONE_CTX = ("电话号码", "电话", "手机号", "手机", "号码", "联系方式", "tel", "phone", "call", "mobile", "cell", "致电", "打给")
_EN_UNITS = ("zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
             "sixteen|seventeen|eighteen|nineteen")
_EN_WORD_NUM = (rf"(?:twenty|thirty|forty|fourty|fifty|sixty|seventy|eighty|ninety)(?:[\s-]+(?:{_EN_UNITS}))?"
                rf"|(?:{_EN_UNITS})")
_MONEY_PRE = lazyre.compile(r"(?<![a-z0-9_])(¥|\$|rmb|cny|usd|us\$|€|eur)\s?(\d+(?:,\d{3})*(?:\.\d+)?)(\s?[万千kK])?")
_MONEY_POST = lazyre.compile(r"(?<![\d.])(\d+(?:,\d{3})*(?:\.\d+)?)\s?(万元|万块|千元|元钱|元|块钱|块|rmb|cny|美元|欧元|dollars?|bucks|usd|euros?)(?![a-z])")
_CURRENCY = {"¥": "CNY", "rmb": "CNY", "cny": "CNY", "元": "CNY", "元钱": "CNY", "块": "CNY", "块钱": "CNY",
             "万元": "CNY", "万块": "CNY", "千元": "CNY", "$": "USD", "us$": "USD", "usd": "USD", "美元": "USD",
             "dollar": "USD", "dollars": "USD", "bucks": "USD", "€": "EUR", "eur": "EUR", "欧元": "EUR",
             "euro": "EUR", "euros": "EUR"}
#: an amount in English words before its currency ("one hundred and sixteen bucks", "thirty five
#: dollars"); read by :func:`hermesd.nlu.numbers.en_number` ("a few dollars" names no amount)
_MONEY_WORDS = lazyre.compile(rf"(?<![a-z0-9])((?:{_EN_UNITS}|a)\s+hundred(?:(?:\s+and)?\s+(?:{_EN_WORD_NUM}))?"
                              rf"|{_EN_WORD_NUM})\s+(dollars?|bucks|euros?)(?![a-z])")
_NUMBER = lazyre.compile(r"(?<![a-z0-9_.])(\d+(?:,\d{3})*(?:\.\d+)?)\s?(%|个|台|份|张|次|条|件|本|位|人|gb|mb|kb|tb|g|m|ms|s|秒|分钟|小时|天|倍|度)?(?![a-z0-9_.])"
                         r"|(?<![a-z0-9_.])(\d+(?:\.\d+)?)(%|个|台|份|张|次|条|件|本|位|人)")
_TITLE_EN = lazyre.compile(r"(?<![a-z])(mr|mrs|ms|miss|dr|prof)\.?\s+([a-z][a-z'-]+)")


def _digits(s: str) -> str:
    return "".join(c for c in s if c.isdigit() or c == "+")


def _phone_value(raw: str) -> str:
    d = _digits(raw)
    if d.startswith("+"):
        return d
    if d.startswith("0086"):
        return "+" + d[2:]
    if len(d) == 13 and d.startswith("86") and d[2] == "1":
        return "+" + d
    if len(d) == 11 and d.startswith("1"):
        return "+86" + d
    return d


@dataclass(slots=True)
class EntityExtractor:
    """Entity extraction configured once, then pure.

    :param people: surface form (full name or alias, any case) → canonical person value
        (e.g. a directory id). Comes from the directory config; the NLU does not read it.
    :param gazetteers: entity type → {surface form → canonical term}, e.g.
        ``{"doc_type": {"报价单": "quote", "quote": "quote"}}``.
    :param id_patterns: order/ticket id patterns (default :data:`DEFAULT_ID_PATTERNS`).
    :param places: also find ``place`` entities (:func:`place_candidates`), when an intent has a
        slot of that type.
    """

    people: Mapping[str, str] = field(default_factory=dict)
    gazetteers: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    id_patterns: Sequence[IdPattern] = DEFAULT_ID_PATTERNS
    places: bool = False
    _people_rx: re.Pattern[str] | None = field(init=False, default=None)
    _people_map: dict[str, str] = field(init=False, default_factory=dict)
    _gaz: list[tuple[str, re.Pattern[str], dict[str, str]]] = field(init=False, default_factory=list)
    _ids: list[tuple[IdPattern, re.Pattern[str], frozenset[str]]] = field(init=False, default_factory=list)
    _person_rx: re.Pattern[str] = field(init=False)

    def __post_init__(self) -> None:
        from .normalize import normalize

        self._people_map = {normalize(k).text: v for k, v in self.people.items()}
        self._people_rx = longest_term_pattern(self._people_map)
        for typ, terms in self.gazetteers.items():
            m = {normalize(k).text: v for k, v in terms.items()}
            rx = longest_term_pattern(m)
            if rx is not None:
                self._gaz.append((typ, rx, m))
        # the scripts every match needs, of the text the pattern runs over (a case-sensitive one
        # reads the original, whose scripts are the normalised text's: normalising maps digits to
        # digits, letters to letters and keeps CJK); nothing is assumed for a case-sensitive one
        self._ids = [(p, rx, frozenset() if p.case_sensitive else needed_scripts(rx))
                     for p, rx in ((p, re.compile(p.regex)) for p in self.id_patterns)]
        sur = "|".join(SURNAMES2) + "|[" + SURNAMES + "]"
        titles = "|".join(sorted(TITLES, key=len, reverse=True))
        self._person_rx = re.compile(rf"(?:{sur})(?:{titles})|[小老][{_DIMINUTIVE_SURNAMES}]")

    def extract(self, norm: Normalized, times: Sequence[TimeExpr] = ()) -> list[Entity]:
        """Entities of ``norm`` (times become ``datetime`` entities, recurrences ``recurrence``), sorted by start.

        :param norm: the normalised utterance. :param times: its parsed time expressions.
        :return: non-overlapping entities whose spans index ``norm.original``.
        """
        t = norm.text
        cands: list[_Cand] = []
        for x in times:
            a, b = norm.nspan(*x.span)
            if b > a:
                cands.append(_Cand(a, b, "recurrence" if x.kind == "recurrence" else "datetime", x.to_dict(), 3))
        # an address has an @, phones, amounts and numbers a digit: a text without one is not scanned for them
        has = scripts_of(t)
        digits = "digit" in has  # any Unicode decimal digit, the \d of the patterns above
        for m in _EMAIL.finditer(t) if "@" in t else ():
            cands.append(_Cand(*m.span(), "email", m.group(), 5))
        for rx in (_MOBILE, _LANDLINE, _E164) if digits else ():
            for m in rx.finditer(t):
                cands.append(_Cand(*m.span(), "phone", _phone_value(m.group()), 2, _ctx(t, m.start(), _PHONE_CTX)))
        for p, rx, needs in self._ids:
            if not needs <= has:  # an id needs a digit (exact: :func:`.scripts.needed_scripts`)
                continue
            for m in rx.finditer(norm.original if p.case_sensitive else t):
                a, b = norm.nspan(*m.span()) if p.case_sensitive else m.span()
                if b <= a:
                    continue
                ctx = _ctx(t, a, p.context) if p.context else 0
                if p.context_required and not ctx:
                    continue
                # a reading by capitals is a guess from the shape of the words: a known term of a
                # gazetteer over the same span outranks it ("similar to Asian Fusion" is a cuisine)
                cands.append(_Cand(a, b, p.type, m.group() if p.case_sensitive else m.group().upper(),
                                   1 if p.case_sensitive else 2, ctx))
        for m in _MONEY_PRE.finditer(t) if digits else ():
            amount = float(m[2].replace(",", "")) * (10_000 if (m[3] or "").strip() == "万" else 1000 if (m[3] or "").strip() in ("千", "k") else 1)
            cands.append(_Cand(*m.span(), "money", {"amount": amount, "currency": _CURRENCY[m[1]]}, 3))
        for m in _MONEY_POST.finditer(t) if digits else ():
            mult = 10_000 if m[2].startswith("万") else 1000 if m[2].startswith("千") else 1
            cands.append(_Cand(*m.span(), "money", {"amount": float(m[1].replace(",", "")) * mult,
                                                     "currency": _CURRENCY[m[2]]}, 3))
        for m in _MONEY_WORDS.finditer(t) if "dollar" in t or "bucks" in t or "euro" in t else ():
            amount = en_number(re.sub(r"^a\s", "one ", m[1]))
            if amount is not None:
                cands.append(_Cand(*m.span(), "money", {"amount": float(amount), "currency": _CURRENCY[m[2]]}, 3))
        for m in _NUMBER.finditer(t) if digits else ():
            num, unit = (m[1], m[2]) if m[1] else (m[3], m[4])
            v = float(num.replace(",", ""))
            value: Any = int(v) if v.is_integer() else v
            if unit:
                cands.append(_Cand(*m.span(), "quantity", {"value": value, "unit": unit}, 0))
            else:
                cands.append(_Cand(*m.span(), "number", value, 0))
        if self._people_rx is not None:
            for m in self._people_rx.finditer(t):
                cands.append(_Cand(*m.span(), "person", self._people_map[m.group()], 4))
        for m in self._person_rx.finditer(t):
            if m.group() in _NOT_PERSON or m.group() in _NOT_DIMINUTIVE:
                continue
            cands.append(_Cand(*m.span(), "person", norm.original[slice(*norm.span(*m.span()))], 1))
        for m in _TITLE_EN.finditer(t):
            s, e = norm.span(*m.span())
            cands.append(_Cand(*m.span(), "person", norm.original[s:e], 3))
        for typ, rx, mapping in self._gaz:
            for m in rx.finditer(t):
                cands.append(_Cand(*m.span(), typ, mapping[m.group()], 2))
        if self.places:  # the weakest reading: any other reading of the same words wins
            for a, b, value, rank in place_candidates(norm):
                cands.append(_Cand(a, b, "place", value, rank))
        # overlaps are judged in the original text: one original character (¼ → 1⁄4) is one place
        chosen: list[tuple[int, int, _Cand]] = []
        for c in sorted(cands, key=lambda c: (-c.ctx, -(c.end - c.start), -c.rank, c.start)):
            s, e = norm.span(c.start, c.end)
            if all(e <= o[0] or s >= o[1] for o in chosen):
                chosen.append((s, e, c))
        out = []
        for s, e, c in sorted(chosen, key=lambda x: x[0]):
            out.append(Entity(c.type, c.value, norm.original[s:e], (s, e)))
        return out


#: a place in English is the object of a locative preposition ("in London", "for Tokyo") or names a
#: zone's time ("London time"); in Chinese it is 在's object or the topic before 现在/当地/那边/时间/几点
_EN_PLACE_BEFORE = lazyre.compile(r"\b(?:in|at|for|of)\s+(?:the\s+)?$")
_EN_PLACE_AFTER = lazyre.compile(r"^\s+time\b")
_ZH_PLACE_AFTER = lazyre.compile(r"^(?:现在|目前|当地|那边|那里|这会儿|的时间|的时区|时间|时区|是几点|几点)")
#: a place no table knows, said in English: capitalised words after "in" (a proper noun: "in Gotham
#: City"); in Chinese: the topic of a time question at the start ("火星现在几点", "火星那边几点了")
_EN_UNKNOWN_PLACE = lazyre.compile(r"\b[Ii]n\s+((?:[A-Z][\w'’.-]*)(?:\s+(?:[A-Z][\w'’.-]*|of|de|del|la|le))*)")
_ZH_UNKNOWN_PLACE = lazyre.compile(r"^(?:请问)?(?:在)?([\u4e00-\u9fff]{2,6}?)(?:现在|目前|当地|那边|那里)?(?:是)?"
                               r"(?:几点|什么时间|什么时候了|的时间)")
#: the first character of a pronoun or a demonstrative: 我们/你们/这边 are no place
_ZH_NOT_PLACE_HEAD = "我你您他她它咱这那哪谁"
#: words of time and of here/there, never the name of a place
_ZH_NOT_PLACE = lazyre.compile(r"现在|目前|当地|那边|那里|这里|此刻|这会|今天|明天|昨天|后天|前天|今晚|早上|晚上|上午|下午|中午|大家")


@functools.cache
def _place_rx() -> re.Pattern[str] | None:
    return longest_term_pattern(place_names())


def place_candidates(norm: Normalized) -> list[tuple[int, int, dict[str, Any], int]]:
    """``(start, end, value, rank)`` in ``norm.text`` of each place said where a place is expected
    (see the patterns above): value ``{"zone": IANA id | None, "name": display name, "text": as said}``
    (zone None: a place no table of :mod:`.zones` knows); rank 0 for a known place, -1 for an
    unknown one, both below every other entity type."""
    t, out = norm.text, []
    rx = _place_rx()
    for m in rx.finditer(t) if rx is not None else ():
        a, b = m.span()
        if _EN_PLACE_BEFORE.search(t[max(0, a - 12):a]) or _EN_PLACE_AFTER.match(t[b:]) or \
                _ZH_PLACE_AFTER.match(t[b:]) or t[max(0, a - 1):a] == "在":
            found = zone_of(m.group())
            if found:
                said = norm.original[slice(*norm.span(a, b))]
                out.append((a, b, {"zone": found[0], "name": found[1], "text": said}, 0))
    known = [(a, b) for a, b, _, _ in out]
    unknown = []
    for m in _EN_UNKNOWN_PLACE.finditer(norm.original):
        a, b = norm.nspan(*m.span(1))
        if b > a:
            said = m.group(1).rstrip(".")
            unknown.append((a, b, {"zone": None, "name": said, "text": said}, -1))
    m = _ZH_UNKNOWN_PLACE.match(t)
    if m and m.group(1)[0] not in _ZH_NOT_PLACE_HEAD and not _ZH_NOT_PLACE.search(m.group(1)):
        a, b = m.span(1)
        said = norm.original[slice(*norm.span(a, b))]
        unknown.append((a, b, {"zone": None, "name": said, "text": said}, -1))
    # words around a known place ("告诉我北京") are no unknown place: the known one is what was said
    return out + [u for u in unknown if all(u[1] <= a or u[0] >= b for a, b in known)]


def _ctx(t: str, pos: int, words: Iterable[str]) -> int:
    """1 when one of ``words`` ends at most 6 characters (of spaces, 是, :, ：, 为, _, -) before ``pos``."""
    before = t[max(0, pos - 24):pos]
    stripped = re.sub(r"[\s:：#是为号码no._-]*$", "", before) if not before.endswith("#") else before[:-1].rstrip()
    for w in words:
        if stripped.endswith(w) or before.rstrip().endswith(w):
            return 1
    return 0
