"""Reading one Chinese travel utterance into CrossWOZ dialogue acts (pure, given the lexicon).

:func:`read` takes an utterance and the dialogue state and returns the constraints the user
states per domain (景点 餐馆 酒店 地铁 出租), the attributes they ask for, the places they name
and the domain the utterance is about. It is built from the rules of the language and the
database's values, never from particular dialogues:

- **normalising**: NFKC (full-width digits and punctuation → ASCII), a small Traditional →
  Simplified table for the words the readers key on, Chinese numerals (四点五, 一百五) → digits;
- **places, dishes, facilities** from the database (longest match first; a branch name with
  full- or half-width brackets matches either way);
- **number readers**: ratings (4.5分以上, 五分), prices and ranges (人均100-150元, 100到150元,
  200元以上, 免费), durations (3-5小时 → "3小时 - 5小时", 1天);
- **context words** decide the slot of a number (票价 → 门票, 人均 → 人均消费, 价格 of a hotel)
  and the domain a constraint or request belongs to (the domain word it is said with, the
  domain of a named place, else the one the dialogue is about);
- **spans by context**: 从…到… with 地铁/打车 gives a trip's 出发地/目的地, …附近/周边的酒店 a
  nearby constraint, 这个景点/那里/酒店 the place chosen earlier in the dialogue.

Field names and value formats are CrossWOZ's (Zhu et al., TACL 2020, Apache-2.0).
"""

from __future__ import annotations

import re
import unicodedata

DOMAINS = ("景点", "餐馆", "酒店", "地铁", "出租")
PLACE_DOMAINS = ("景点", "餐馆", "酒店")
NEAR_SLOT = {"景点": "周边景点", "餐馆": "周边餐馆", "酒店": "周边酒店"}

#: words that name a domain as what is looked for (longest first when matched)
DOMAIN_WORDS = {
    "景点": ["景点", "景区", "旅游景点", "游玩", "去玩", "玩的地方", "逛逛", "去处", "好玩"],
    "餐馆": ["餐馆", "餐厅", "饭店", "饭馆", "馆子", "吃饭", "用餐", "就餐", "吃的", "美食", "小吃店", "吃点"],
    "酒店": ["酒店", "宾馆", "住宿", "旅馆", "住的", "入住", "住一晚", "下榻", "客栈"],
    "地铁": ["地铁"],
    "出租": ["出租车", "出租", "打车", "打的", "叫车", "叫一辆", "的士", "车型", "车牌"],
}
#: a handful of Traditional forms of the characters the readers key on (zh-Hant → zh-Hans)
T2S = str.maketrans("點館廳車費價錢電話設務間無線時鐘華東門麼還們個這說請幫飯廳龍廣場園劇鐵碼圖賓夠買貴評級內觀覽遊樂臺灣餅鴨雞魚麵湯蝦餃燒烤鍋蔥醬涼魷",
                    "点馆厅车费价钱电话设务间无线时钟华东门么还们个这说请帮饭厅龙广场园剧铁码图宾够买贵评级内观览游乐台湾饼鸭鸡鱼面汤虾饺烧烤锅葱酱凉鱿")
_CN_DIG = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_NUM = re.compile(r"[零〇一二两三四五六七八九十百千]+(?:点[零〇一二三四五六七八九]+)?")


def _cn_int(s: str) -> int | None:
    """一百五 → 150, 二十 → 20, 十五 → 15, 三 → 3 (up to thousands)."""
    if not s:
        return None
    total, cur, last_unit = 0, None, 1
    for ch in s:
        if ch in _CN_DIG:
            cur = _CN_DIG[ch]
        elif ch in "十百千":
            unit = {"十": 10, "百": 100, "千": 1000}[ch]
            total += (1 if cur is None else cur) * unit
            cur, last_unit = None, unit
        else:
            return None
    if cur is not None:
        # 一百五 = 150: a trailing digit after a unit counts a tenth of that unit
        total += cur * (last_unit // 10 if last_unit >= 100 and len(s) >= 3 and s[-2] in "百千" else 1)
    return total


def _cn_repl(m: re.Match) -> str:
    s = m.group()
    if s == "十" and m.string[m.end():m.end() + 1] == "分" and not m.string[m.end() + 1:m.end() + 3].startswith(("以上", "的")):
        return s  # 十分 is "very" (十分感谢); ratings go up to 5
    whole, _, frac = s.partition("点")
    n = _cn_int(whole)
    if n is None:
        return s
    if frac:
        return f"{n}." + "".join(str(_CN_DIG[c]) for c in frac)
    return str(n)


def normalize(text: str) -> str:
    """NFKC, Traditional → Simplified (the readers' characters), Chinese numerals before units
    (分/元/块/小时/天/星/个) → digits, 〜 ～ 至 between numbers → ``-``. Keeps the length-changing
    steps simple: spans are only ever taken from the normalised text."""
    t = unicodedata.normalize("NFKC", text).translate(T2S)
    t = re.sub(r"(?:(?<![\u4e00-\u9fff])|(?<=[在是为均分格票费玩逛要约达价到至和或~-]))" + _CN_NUM.pattern + r"(?=\s*(?:分|元|块|小时|个小时|天|星|到|至|-))",
               _cn_repl, t)
    t = re.sub(r"(?:(?<![\u4e00-\u9fff])|(?<=[在是为均分格票费玩逛要约达价到至和或~-]))" + _CN_NUM.pattern +
               r"(?=\s*(?:分以上|分的|分及以上|元|块钱|块|小时|个小时|天))", _cn_repl, t)
    t = re.sub(r"(\d)\s*(?:元|块钱|块)?\s*(?:~|〜|至|到|—|–|-)\s*(\d)", r"\1-\2", t)
    t = re.sub(r"(\d)\s*(小时|天)\s*(?:~|〜|至|到|—|–)\s*(\d)", r"\1\2-\3", t)  # 2小时到4小时
    # 玩1、2个小时: two numbers run together before a unit are a range
    t = re.sub(r"(?<![\d.])(\d)\s*[、,]\s*(\d)(?=\s*(?:个)?(?:小时|天))", r"\1-\2", t)
    t = re.sub(r"(\d)\s*-\s*(\d)", r"\1-\2", t)
    t = t.replace("块钱", "元").replace("块", "元")
    # 20元一下: the sound-alike typo of 以下 (yǐxià) after a number and its unit
    # (a price only: "4.5分一下" is as often meant as 以上 — ratings are wished high)
    t = re.sub(r"(\d\s*元)一下(?!\s*(?:吗|呢|吧))", r"\1以下", t)
    t = re.sub(r"(\d)个小时", r"\1小时", t)
    return t


def fold(s) -> str:
    """How values compare: NFKC, no spaces, lower case, brackets half-width."""
    t = unicodedata.normalize("NFKC", str(s)).lower()
    return re.sub(r"\s+", "", t)


#: "dishes" of the database that are phrases of a review, not names of a dish: one that opens
#: with an adverb of scope or 还有 (都可以, 还有牛蹄) or closes with a sentence particle (一般吧)
_NOT_A_DISH = re.compile(r"^(?:都|还有)|(?:吧|呢|吗|啊|了)$")


class Lexicon:
    """Places, dishes and facilities from the database, matched longest first.

    :param db: ``{domain: [record]}`` (:func:`cw_db.load`). :param stop_dishes: dish names that
        are also everyday words in the build dialogues (learned at build time, never matched);
        :param stop_names: likewise for place names (a restaurant called 酒吧).
    """

    def __init__(self, db: dict, stop_dishes: set[str] = frozenset(), stop_names: set[str] = frozenset()) -> None:
        self.terms: dict[str, dict[str, tuple[str, str, str]]] = {}
        facilities = {f.strip() for r in db.get("酒店", []) for f in r.get("酒店设施") or []}
        self.records: dict[tuple[str, str], dict] = {}
        for dom in PLACE_DOMAINS:
            for r in db.get(dom, []):
                if r["名称"] not in stop_names and r["名称"] not in facilities:
                    self._add(r["名称"], ("place", dom, r["名称"]))
                self.records[(dom, r["名称"])] = r
        for r in db.get("地铁", []):
            if (r.get("名称") or "") and len(r["名称"]) >= 2 and r["名称"] not in facilities:
                self._add(r["名称"], ("place", "地铁", r["名称"]), weak=True)
        for r in db.get("餐馆", []):
            for d in r.get("推荐菜") or []:
                d = d.strip()
                if len(d) >= 2 and d not in stop_dishes and not _NOT_A_DISH.search(d) and \
                        not any(d in w for ws in DOMAIN_WORDS.values() for w in ws):
                    self._add(d, ("dish", "餐馆", d), weak=True)
        for r in db.get("酒店", []):
            for f in r.get("酒店设施") or []:
                f = f.strip()
                if len(f) >= 2:
                    self._add(f, ("facility", "酒店", f), weak=True)
                    if f.endswith("服务") and len(f) >= 4:
                        self._add(f[:-2], ("facility", "酒店", f), weak=True)
                    if f.endswith("服务免费") and len(f) >= 6:  # 早餐服务免费 is said 免费早餐
                        self._add("免费" + f[:-4], ("facility", "酒店", f), weak=True)
        for dom, words in DOMAIN_WORDS.items():  # 出租车 is a word, not the 租车 facility
            for w in words:
                if len(w) >= 2:
                    self._add(w, ("word", dom, w), weak=True)
        self.index: dict[str, list[str]] = {}
        for t in sorted(self.terms, key=len, reverse=True):
            self.index.setdefault(t[:2], []).append(t)

    def _add(self, surface: str, info: tuple[str, str, str], weak: bool = False) -> None:
        for form in {fold(surface), fold(surface).replace("(", "（").replace(")", "）")}:
            key = fold(form)
            if weak and key in self.terms:
                continue
            self.terms.setdefault(key, {})[info[0]] = info

    def find(self, text: str) -> list[tuple[int, int, dict[str, tuple[str, str, str]]]]:
        """Non-overlapping ``(start, end, {kind: (kind, domain, canonical)})`` in ``fold(text)``
        coordinates, longest match first, left to right."""
        t = fold(text)
        out, i = [], 0
        while i < len(t) - 1:
            hit = None
            for term in self.index.get(t[i:i + 2], ()):
                if t.startswith(term, i):
                    hit = term
                    break
            if hit:
                out.append((i, i + len(hit), self.terms[hit]))
                i += len(hit)
            else:
                i += 1
        return out


# ---------------------------------------------------------------------------- number readers

_RATING = re.compile(r"(?:评分|评价|分数|打分|得分|星级)?\s*(?:在|是|为|要|有|达到|能|不低于|高于|至少)?\s*"
                     r"(?<![\d.])(\d(?:\.\d)?)\s*分\s*的?\s*(以上|及以上|或以上|以下|左右)?|(?:评分|评价|分数)\s*(?:在|是|为)?\s*"
                     r"(\d(?:\.\d)?)\s*(以上|及以上)?")
_MONEY_RANGE = re.compile(r"(\d+)\s*(?:元)?\s*-\s*(\d+)\s*元")
_MONEY_ONE = re.compile(r"(\d+)\s*元\s*(以上|以下|以内|左右|之内)?")
#: a price word, then a few words ("价格最好在300-400之间") before a bare number or range
_MONEY_CTX_ONE = re.compile(r"(?:人均消费|人均|消费|价格|价位|房价|票价|门票|价钱)[^\d，,。？?！!]{0,4}?(\d+)\s*(以上|以下|以内|之内)")
_MONEY_BARE = re.compile(r"(?:人均|消费|价格|价位|房价|票价|门票|价钱)[^\d，,。？?！!]{0,4}?(\d+)\s*-\s*(\d+)(?!\s*(?:分|小时|天|\d))")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(小时|天)?\s*-\s*(\d+(?:\.\d+)?)\s*(小时|天)|(\d+(?:\.\d+)?)\s*(小时|天)")
_FREE = re.compile(r"(?<!不)(?<!不是)(?<!不要)免费(?!早餐|停车|wifi|wi-fi|市内|国内|电话|上网|接|的早|提供)|"
                   r"(?<!不)(?<!不是)免票|不收费|不收钱|不要钱|不用花钱|不花钱|不要门票|不收门票|不用门票|不需要门票|门票为0|免门票|无需门票|不收取门票|没有门票|无门票|(?<![\d.])0元")
#: a ticket that is not free: at least 1元, in the database's range syntax (门票 "1元以上")
_NOT_FREE = re.compile(r"不免费|不是免费|非免费|不要免费|不想要?免费|不去免费|不免票|不是免票|(?<![不免无])收门票|"
                       r"(?<![不免无])收费(?!停车)|要门票的|需要门票的|花钱的|要花钱")

_PRICE_CTX = [("门票", "门票"), ("票价", "门票"), ("人均消费", "人均消费"), ("人均", "人均消费"), ("消费", "人均消费"),
              ("房价", "价格"), ("最低价格", "价格"), ("价格", None), ("价位", None), ("价钱", None)]
_DUR_CTX = ("游玩时间", "游玩时长", "时长", "玩", "逛", "游览", "参观", "时间")


def _ctx_before(t: str, pos: int, words, width: int = 12):
    """The last of ``words`` (or (word, value) pairs) ending within ``width`` chars before ``pos``."""
    before = t[max(0, pos - width):pos]
    best, best_at = None, -1
    for w in words:
        key, val = (w, w) if isinstance(w, str) else w
        at = before.rfind(key)
        if at >= 0 and at + len(key) > best_at:
            best, best_at = (key, val), at + len(key)
    return best


_GENERIC_PRICE = ("价格", "价位", "价钱", "消费")


def read_numbers(t: str, dom_hint: str | None, loose: bool = False) -> list[tuple[int, str, str | None, str]]:
    """``(position, slot, domain or None, value)`` of the ratings, prices and durations in ``t``.

    :param loose: a generic price word (价格, 消费 …) names no domain (the first pass, which
        looks for the kind of place the utterance is about, lets the domain word decide)."""
    out, used = [], []

    def free(a: int, b: int) -> bool:
        return all(b <= x or a >= y for x, y in used)

    for m in _RATING.finditer(t):
        num = m.group(1) or m.group(3)
        if not num or not free(*m.span()):
            continue
        mod = m.group(2) or m.group(4) or ""
        if float(num) > 5:
            continue
        # a rating wished for is a floor: "评分4分的" is 4分以上 (CrossWOZ's wizards write it so);
        # the top mark 5分 is itself
        # the top mark 5分 is itself, said with 以上 or not ("5分以上" is 5分: nothing rates higher)
        floor = float(num) < 5 and (mod.startswith(("以上", "及以上", "或以上")) or not mod)
        v = f"{_fmt(num)}分以上" if floor else f"{_fmt(num)}分"
        if mod == "以下":
            v = f"{_fmt(num)}分以下"
        out.append((m.start(), "评分", None, v))
        used.append(m.span())
    for rx, kind in ((_MONEY_RANGE, "range"), (_MONEY_BARE, "range"), (_MONEY_CTX_ONE, "one"), (_MONEY_ONE, "one")):
        for m in rx.finditer(t):
            if not free(*m.span()):
                continue
            if kind == "range":
                v = f"{m.group(1)}-{m.group(2)}元"
            else:
                mod = m.group(2) or ""
                mod = "以下" if mod in ("以内", "之内") else mod
                v = f"{m.group(1)}元{mod if mod in ('以上', '以下') else ''}"
                if m.group(1) == "0":
                    v = "免费"
            ctx = _ctx_before(t, m.start() + (2 if rx is _MONEY_CTX_ONE else 0), _PRICE_CTX)
            slot = ctx[1] if ctx else None
            dom = {"门票": "景点", "人均消费": "餐馆"}.get(slot or "") if slot else None
            if slot is None:
                dom = dom_hint
                slot = {"景点": "门票", "餐馆": "人均消费", "酒店": "价格"}.get(dom_hint or "")
            if ctx and ctx[0] in _GENERIC_PRICE and dom_hint in PLACE_DOMAINS:
                # a generic price word takes the price of the kind of place looked for
                slot, dom = {"景点": "门票", "餐馆": "人均消费", "酒店": "价格"}[dom_hint], dom_hint
            if slot == "价格":
                dom = "酒店"
            if slot:
                out.append((m.start(), slot, None if loose and ctx and ctx[0] in _GENERIC_PRICE else dom, v))
                used.append(m.span())
    # a ticket that must not be free is read first: "不要免费的，免费的景点不好玩" says 免费 again
    # only to turn it down
    for m in _NOT_FREE.finditer(t):
        if free(*m.span()) and not any(slot == "门票" for _, slot, _, _ in out):
            out.append((m.start(), "门票", "景点", "1元以上"))
            used.append(m.span())
    not_free = any(v == "1元以上" for _, slot, _, v in out if slot == "门票")
    for m in _FREE.finditer(t):
        if free(*m.span()) and not not_free:
            out.append((m.start(), "门票", "景点", "免费"))
            used.append(m.span())
    for m in _DURATION.finditer(t):
        if not free(*m.span()):
            continue
        if m.group(3):
            u1, u2 = m.group(2) or m.group(4), m.group(4)
            v = f"{_fmt(m.group(1))}{u1} - {_fmt(m.group(3))}{u2}"
        else:
            v = f"{_fmt(m.group(5))}{m.group(6)}"
        ctx = _ctx_before(t, m.start(), _DUR_CTX, 14)
        after = t[m.end():m.end() + 4]
        if ctx or "的景点" in after or dom_hint == "景点" or after.startswith(("的", "左右")):
            if dom_hint in ("酒店", "餐馆") and not ctx:
                continue
            out.append((m.start(), "游玩时间", "景点", v))
            used.append(m.span())
    return sorted(out)


def _fmt(num: str) -> str:
    f = float(num)
    return str(int(f)) if f.is_integer() else str(f)


# ---------------------------------------------------------------------------- requests

#: request words → slot, and the domains the slot exists in
REQUESTS = [
    ("营业时间", "营业时间"), ("几点开门", "营业时间"), ("几点关门", "营业时间"), ("营业", "营业时间"), ("开门", "营业时间"),
    ("地址", "地址"), ("在哪", "地址"), ("在什么地方", "地址"), ("位置", "地址"), ("怎么走", "地址"),
    ("电话", "电话"), ("联系方式", "电话"), ("号码", "电话"), ("联系", "电话"),
    ("门票", "门票"), ("票价", "门票"),
    ("评分", "评分"), ("几分", "评分"), ("分数", "评分"), ("评价", "评分"),
    ("游玩时间", "游玩时间"), ("玩多久", "游玩时间"), ("游玩时长", "游玩时间"), ("多长时间", "游玩时间"), ("玩多长", "游玩时间"), ("玩久", "游玩时间"), ("玩多少", "游玩时间"), ("呆多久", "游玩时间"), ("待多久", "游玩时间"),
    ("推荐菜", "推荐菜"), ("招牌菜", "推荐菜"), ("特色菜", "推荐菜"), ("什么菜", "推荐菜"), ("好吃的", "推荐菜"), ("菜品", "推荐菜"), ("必点", "推荐菜"), ("推荐都有", "推荐菜"), ("不错的菜", "推荐菜"),
    ("人均消费", "人均消费"), ("人均", "人均消费"),
    ("价格", "价格"), ("多少钱", "价格"), ("房价", "价格"), ("价钱", "价格"), ("多钱", "价格"), ("价位", "价格"), ("贵不贵", "价格"),
    ("贵吗", "价格"), ("贵么", "价格"), ("贵嘛", "价格"),
    ("酒店类型", "酒店类型"), ("什么类型", "酒店类型"), ("类型", "酒店类型"), ("档次", "酒店类型"),
    ("酒店设施", "酒店设施"), ("设施", "酒店设施"),
    ("地铁站", "地铁"), ("坐地铁", "地铁"), ("地铁", "地铁"),
    ("车型", "车型"), ("车牌", "车牌"), ("什么车", "车型"),
]
SLOT_DOMAINS = {"营业时间": ("餐馆",), "地址": PLACE_DOMAINS, "电话": PLACE_DOMAINS, "门票": ("景点",),
                "评分": PLACE_DOMAINS, "游玩时间": ("景点",), "推荐菜": ("餐馆",), "人均消费": ("餐馆",),
                "价格": ("酒店", "景点", "餐馆"), "酒店类型": ("酒店",), "酒店设施": ("酒店",), "地铁": PLACE_DOMAINS,
                "车型": ("出租",), "车牌": ("出租",)}
_ASK = re.compile(r"多少|哪|什么|吗|几|？|\?|告诉|知道|查|问|怎么|如何|给我|发|说一下|介绍|有没有|是否|呢|啥|"
                  r"咋|多久|多长|多钱|怎样|还有|我要|看看|看一下|看下|提不提供|有没有")
_NEAR_REQ = re.compile(r"(?:周边|附近|周围|四周|旁边|边上|就近)[^，,。？?！!；;]{0,12}?"
                       r"(景点|景区|餐馆|餐厅|饭店|饭馆|酒店|宾馆|吃饭的地方|玩的地方|住的地方|吃的|玩的|住的|"
                       r"吃饭|用餐|就餐|美味|好吃|住宿|住下|休息|睡觉|游玩|玩玩|玩一玩|溜达|美景|逛的|转的|转转)")
_WORD_DOM = {"景点": "景点", "景区": "景点", "玩的": "景点", "餐馆": "餐馆", "餐厅": "餐馆", "饭店": "餐馆",
             "饭馆": "餐馆", "吃的": "餐馆", "酒店": "酒店", "宾馆": "酒店", "住的": "酒店",
             "吃饭的地方": "餐馆", "玩的地方": "景点", "住的地方": "酒店", "吃饭": "餐馆", "住宿": "酒店",
             "美景": "景点", "逛的": "景点", "转的": "景点", "用餐": "餐馆", "就餐": "餐馆", "住下": "酒店",
             "游玩": "景点", "转转": "景点", "美味": "餐馆", "好吃": "餐馆", "休息": "酒店", "睡觉": "酒店",
             "玩玩": "景点", "玩一玩": "景点", "溜达": "景点"}
#: a word for what one does at a kind of place, and what "…的地方" after it names
_ACTIVITY = {"吃的": "吃饭的地方", "玩的": "玩的地方", "住的": "住的地方", "吃饭": "吃饭的地方", "用餐": "吃饭的地方",
             "就餐": "吃饭的地方", "住宿": "住的地方", "住下": "住的地方", "游玩": "玩的地方", "逛的": "玩的地方",
             "转的": "玩的地方", "转转": "玩的地方", "休息": "住的地方", "睡觉": "住的地方", "好吃": "吃饭的地方"}
#: "these (places)": 这些/这几/这两/那些… — not a count of dishes or hours ("这两道菜", "这两天")
THESE = re.compile(r"(?:这|那)(?:些|几|两|三)(?!\s*(?:个|样|道|种|份)?\s*(?:菜|道|样|种|份|天|晚|小时|位|人|口|点))")
#: the search near a place found nothing and the user looks elsewhere (既然没有, 周边没有的话, 远一点也行)
NEAR_FAILED = re.compile(r"既然(?:都|也)?没有|(?:附近|周边|周围|旁边)(?:都|也|就|并|好像|竟然)?没有|没有的话|"
                         r"远一?点(?:的)?也?(?:行|可以|没关系|无所谓)|不在(?:附近|周边)也?(?:行|可以)|"
                         r"(?:本来|原本|原来)(?:是|还)?想|本想|别处")
_FIND = re.compile(r"找|推荐|介绍|有没有|想去|想吃|想住|要去|要住|帮我|查一下|来一个|来一家|选一个|选一家|安排|订")
_PRONOUN = re.compile(r"(这个|这家|那个|那家|该|此|这|那)(景点|景区|地方|餐馆|餐厅|饭店|店|酒店|宾馆)|它|他家|它家|那里|那儿|这里|这儿")
_TRIP = re.compile(r"从\s*(.+?)\s*(?:出发|坐|乘坐|乘|搭|打车|打的|叫车|到|去|前往|至)")
#: "我在A打车到B": where one takes the taxi or the metro from
_TRIP_AT = re.compile(r"(?:我|我们|咱们)(?:想|要|打算)?在\s*(.+?)\s*(?:打车|打的|叫车|坐地铁|乘地铁|搭地铁|坐出租)")
_TO = re.compile(r"(?:到|去|前往|至)\s*(.+?)\s*(?:的出租|的地铁|的车|的话|帮我|帮忙|请|叫|打个|打辆|，|,|。|？|\?|！|!|怎么|需要|要|坐|乘|搭|打车|打的|玩|吃|用餐|住|游玩|$)")
_TRIP_PRONOUNS = {"景点": "景点", "景区": "景点", "餐馆": "餐馆", "餐厅": "餐馆", "饭店": "餐馆", "饭馆": "餐馆",
                  "酒店": "酒店", "宾馆": "酒店"}


def _domains_in(t: str) -> list[tuple[int, str, str]]:
    """``(position, domain, word)`` of domain words, longest word first at each place."""
    hits = []
    for dom, words in DOMAIN_WORDS.items():
        for w in words:
            for m in re.finditer(re.escape(w), t):
                hits.append((m.start(), m.end(), dom, w))
    hits.sort(key=lambda h: (h[0], -(h[1] - h[0])))
    out, end = [], -1
    for s, e, dom, w in hits:
        if s >= end:
            out.append((s, dom, w))
            end = e
    return out


def _place_value(span: str, lex: Lexicon, state: dict) -> str | None:
    """A trip end: a place the database knows inside the span, a word for a chosen place
    (酒店, 那里), else the span as said (CrossWOZ keeps unknown places verbatim)."""
    span = span.strip(" 的了吧呢")
    if not span or len(span) > 30:
        return None
    hits = lex.find(span)
    places = [info for _, _, infos in hits for k, info in infos.items() if k == "place"]
    f = fold(span)
    if places and any(fold(p[2]) == f for p in places):
        return next(p[2] for p in places if fold(p[2]) == f)
    chosen = state.get("chosen") or {}
    for w, dom in _TRIP_PRONOUNS.items():
        if span.endswith(w) and len(span) <= len(w) + 3 and chosen.get(dom):
            return chosen[dom]
    if span in ("那里", "那儿", "这里", "这儿", "那", "这") and state.get("last_place"):
        return state["last_place"]
    if places and len(places[0][2]) >= len(span) - 4:
        return places[0][2]
    return span


#: words that say a dish is wanted ("想吃X", "有道菜叫X"): what follows is a dish by its context
_WANT = r"(?:想吃|要吃|爱吃|能吃到|吃到|能吃|有道菜叫|菜叫)"
#: a clause that remarks on a place rather than asks for one: praise, liking, a thing it turns
#: out to have or lack ("还有温泉呢", "铁板烧也是我最爱", "这里的蛋糕比较正宗", "它家没有我想吃的X")
_REMARK = re.compile(r"更好|不错|最爱|最喜欢|我喜欢|就喜欢|也喜欢|挺好|太好了|太棒了|真好|真棒|正宗|好久|划算|"
                     r"还有[^，,。？?！!；;]{1,12}[呢啊呀哦耶]|也是[^，,。？?！!；;]{0,12}[了呢]|(?:它|他|这|那)家没有|没有我")
#: words by which a clause looks for a place itself (a remark clause has none of them)
_CLAUSE_LOOKS = re.compile(r"找|(?<!的)推荐(?!菜)|有没有|哪|想要|希望|最好|需要|帮|吗|么|能不能|可以吗|要求|选")
#: words that look for a place somewhere else in the utterance (再联系 and 你的推荐 do not)
_LOOKS_ELSEWHERE = re.compile(r"找|(?<!的)推荐(?!菜|的菜)|有没有|换|再(?!联系|说|见|问)|另|哪家|哪个|订|选|安排|介绍")
_CLAUSE_END = re.compile(r"[，,。？?！!；;~～]")


def _remark_spans(mt: str) -> list[tuple[int, int]]:
    """``(start, end)`` in ``mt`` of the clauses that remark on a place: a remark word, none of
    the words that look for one, and no question mark after it."""
    out, a = [], 0
    for m in [*_CLAUSE_END.finditer(mt), None]:
        b = m.start() if m else len(mt)
        clause = mt[a:b]
        if clause and _REMARK.search(clause) and not _CLAUSE_LOOKS.search(clause) and \
                not (m and m.group() in "？?"):
            out.append((a, b))
        a = b + 1
    return out


def _bare_check(mt: str, focus: str | None, targets, state: dict) -> bool:
    """"人均消费在100-150元吗？": a yes/no question of values alone — no kind of place named as
    looked for, no 有…的吗 (is there one that …) — asks about the place the dialogue has of the
    kind talked about (chosen, offered or listed beside a place), not for a new search."""
    if focus not in PLACE_DOMAINS or targets or re.search(r"有[^，,。？?！!]{0,30}的[吗么]", mt):
        return False
    return any((state.get(k) or {}).get(focus) for k in ("chosen", "offered", "listed"))


def _looks_for(rest: str, dom: str, doms) -> bool:
    """The utterance outside a remark (``rest``, the clause blanked) looks for a place of
    ``dom``: it names the kind (not as where to look near, nor as 这个X, nor in a question about
    what is nearby, nor in 游玩时间), or it has a search word and names no other kind. ``doms``:
    :func:`_domains_in` of ``rest``."""
    kinds = set()
    asked = _near_requests(rest)[1]
    for pos, d, w in doms:
        after = rest[pos + len(w):pos + len(w) + 3]
        if d in PLACE_DOMAINS and not re.match(r"(?:的)?(?:附近|周边|周围|旁边|边上|一带)|时", after) and \
                not re.search(r"(?:这个|这家|那个|那家|该|此|这|那)$", rest[max(0, pos - 4):pos]) and \
                not any(a <= pos < b for a, b in asked):
            kinds.add(d)
    return dom in kinds or (bool(_LOOKS_ELSEWHERE.search(rest)) and not kinds)


def _leading_place(t: str, start: int, lex: Lexicon) -> str | None:
    """The database place whose name begins the span at ``start`` (longest match), whole: a
    trip end is read by the words around it (到…的出租车), and those words may stand inside a name
    (护国寺小吃店 holds 吃) or the clause may run on after it (到…酒店我还不知道怎么去)."""
    hits = lex.find(t[start:start + 60])
    if hits and hits[0][0] == 0 and "place" in hits[0][2]:
        return hits[0][2]["place"][2]
    return None


def read(text: str, state: dict, lex: Lexicon) -> dict:
    """Dialogue acts of one user utterance.

    :param text: the utterance as typed. :param state: the tracked state (``focus``: the domain
        the dialogue is about; ``chosen``: {domain: name of the place chosen}; ``last_place``).
    :return: ``{"target": domain|None, "inform": {domain: {slot: value}}, "request": [(domain, slot)],
        "names": [(domain, name)], "trip": {domain: {出发地, 目的地}}, "near": {domain: (slot, name)}}``.
    """
    t = normalize(text)
    ft = fold(t)
    chosen = state.get("chosen") or {}
    hits = lex.find(t)
    names = []
    dishes, facilities = [], []
    masked = list(ft)
    for s, e, infos in hits:
        if "place" in infos:
            k, dom, name = infos["place"]
            names.append((s, dom, name))
            masked[s:e] = "＃" * (e - s)
        elif "dish" in infos:
            dishes.append((s, infos["dish"][2]))
            masked[s:e] = "＃" * (e - s)
        elif "facility" in infos:
            facilities.append((s, infos["facility"][2]))
            masked[s:e] = "＃" * (e - s)
    mt = "".join(masked)  # the utterance with named things masked, for word readers
    doms = _domains_in(mt)
    # a value said in a remark on a place of its kind that the dialogue has (chosen, or named
    # here) — "还有温泉呢，太好了", "铁板烧也是我最爱呢", "1个小时也很不错呀" — is a comment, no
    # constraint, unless the rest of the utterance looks for a place of that kind
    remarks = _remark_spans(mt)
    named = {dom for _, dom, _ in names}

    def remark(pos: int, dom: str | None) -> bool:
        span = next(((a, b) for a, b in remarks if a <= pos < b), None)
        if span is None or dom not in PLACE_DOMAINS or not (chosen.get(dom) or dom in named):
            return False
        rest = mt[:span[0]] + "，" * (span[1] - span[0]) + mt[span[1]:]
        return not _looks_for(rest, dom, _domains_in(rest))

    dishes = [x for x in dishes if not remark(x[0], "餐馆")]
    facilities = [x for x in facilities if not remark(x[0], "酒店")]
    types = [m for m in re.finditer(r"(经济|舒适|高档|豪华)(型)?(?!实惠)", mt) if not remark(m.start(), "酒店")]
    inform: dict[str, dict[str, str]] = {}
    request: list[tuple[str, str]] = []
    out = {"target": None, "inform": inform, "request": request, "names": [], "near": {}, "trip": {}, "refer": []}

    # trips: 从A到B with 地铁 / 打车
    trip_dom = "出租" if re.search(r"出租|打车|打的|叫车|的士|叫一辆|车型|车牌", mt) else ("地铁" if "地铁" in mt else None)
    if trip_dom == "出租" and re.search(r"地铁站", mt) and not re.search(r"车型|车牌|什么车", mt):
        trip_dom = "地铁"  # the stations near both ends are the metro's (出发地附近地铁站, CrossWOZ)
    m = _TRIP.search(t) or _TRIP_AT.search(t)
    if trip_dom and m:
        a = _leading_place(t, m.start(1), lex) or _place_value(m.group(1), lex, state)
        m2 = _TO.search(t, m.end() - 1)
        b = (_leading_place(t, m2.start(1), lex) or _place_value(m2.group(1), lex, state)) if m2 else None
        if a and b:
            out["trip"][trip_dom] = {"出发地": a, "目的地": b}
            inform[trip_dom] = {"出发地": a, "目的地": b}
    if trip_dom and not out["trip"]:
        # "定都阁到八奇洞怎么坐地铁", "我想A坐地铁到B": two places of the database with 到/去 between
        # them, the first said as the start
        for (s1, _, n1), (s2, _, n2) in zip(names, names[1:]):
            if re.fullmatch(r"\s*(?:坐地铁|乘地铁|搭地铁|打车|打的|坐车|坐出租车?)?\s*(?:到|去|至|前往)\s*", ft[s1 + len(fold(n1)):s2]):
                out["trip"][trip_dom] = inform[trip_dom] = {"出发地": n1, "目的地": n2}
                break
    other_mode = {"出租": "地铁", "地铁": "出租"}.get(trip_dom or "")
    had = state.get("cons") or {}
    if trip_dom and not out["trip"] and had.get(other_mode) and not had.get(trip_dom) and \
            re.search(r"如果|要是|改|换|还是|那|呢", mt):
        # "如果我坐出租车呢？": the trip just asked about by metro, by the other way
        trip = {k: had[other_mode][k] for k in ("出发地", "目的地") if had[other_mode].get(k)}
        if len(trip) == 2:
            out["trip"][trip_dom] = inform[trip_dom] = trip
    if trip_dom == "出租" and re.search(r"车型|车牌|什么车", mt):
        request += [("出租", "车型"), ("出租", "车牌")] if "车牌" in mt and "车型" in mt else \
            [("出租", "车牌" if "车牌" in mt else "车型")]
    # the stations of a metro trip: both, or the one end named ("那目的地附近的地铁站呢？" asks
    # about the trip already made)
    ends = [slot for words, slot in (("出发地|起点|上车", "出发地附近地铁站"), ("目的地|终点|下车", "目的地附近地铁站"))
            if re.search(f"(?:{words})[^，,。？?！!]{{0,12}}站", mt)]
    if trip_dom == "地铁" and re.search(r"地铁站|站", mt) or ends and (state.get("cons") or {}).get("地铁"):
        request += [("地铁", e) for e in (ends if len(ends) == 1 else ("出发地附近地铁站", "目的地附近地铁站"))]

    # the domain the utterance looks for: a domain word not said as a reference (…附近的酒店 keeps 酒店)
    targets, asked_near = [], []
    near_words, near_spans = _near_requests(mt)
    for pos, dom, w in doms:
        if any(a <= pos < b for a, b in near_spans):
            # 周边有什么酒店: asked about, not looked for — unless it is the one kind named with a
            # search word (推荐一个周边的酒店)
            if _SEARCH.search(mt):
                asked_near.append((pos, dom))
            continue
        after = mt[pos + len(w):pos + len(w) + 3]
        before = mt[max(0, pos - 4):pos]
        if dom in ("地铁", "出租"):
            continue
        if re.match(r"(?:的)?(?:附近|周边|周围|旁边|边上|一带)", after):
            continue  # 景点附近的酒店: 景点 is where, not what
        if re.search(r"(?:这个|这家|那个|那家|该|此|这|那)$", before):
            continue  # 这个景点: a reference to the chosen one
        targets.append((pos, dom))
    targets = targets or asked_near
    name_doms = [dom for _, dom, _ in names if dom in PLACE_DOMAINS]
    numbers = read_numbers(mt, None, loose=True)
    asked_kinds = list(dict.fromkeys(_WORD_DOM[w] for _, w in near_words))
    said_for_asked = read_numbers(mt, asked_kinds[0]) if not targets and len(asked_kinds) == 1 else []
    if said_for_asked and all(d in (None, asked_kinds[0]) for _, _, d, _ in said_for_asked):
        # "养心殿附近还有什么餐馆么？价格在100-150元左右的": a value said with no kind of its own
        # constrains the kind asked for beside the place — a search near it, not the list
        targets = [(p, d) for p, d, w in doms if d == asked_kinds[0]] or \
            [(near_spans[0][0], asked_kinds[0])]
    slot_doms = {d for _, slot, d, _ in numbers if d}
    if dishes:
        slot_doms.add("餐馆")
    if facilities or any(m.group(2) for m in types):
        slot_doms.add("酒店")
    target = None
    if targets:
        cands = [d for _, d in targets]
        agree = [d for d in cands if d in slot_doms]
        target = agree[-1] if agree else (cands[-1] if not slot_doms else (sorted(slot_doms)[0] if len(slot_doms) == 1 else cands[-1]))
    elif len(slot_doms) == 1:
        target = next(iter(slot_doms))
    elif name_doms:
        target = name_doms[0]
    elif trip_dom:
        target = trip_dom
    out["target"] = target
    focus = target or state.get("focus")
    numbers = read_numbers(mt, focus if focus in PLACE_DOMAINS else None)
    def kind_before(pos: int) -> str | None:
        return next((d for p, d, _ in reversed(doms) if p < pos and d in PLACE_DOMAINS), None)

    if target in ("景点", "酒店") and targets and not dishes:
        # "…的酒店，人均消费是400-500元": 人均 (per person) of the kind of place looked for, when no
        # restaurant is spoken of, or the kind named last before it is the one looked for
        # ("吃饭了，我得去酒店睡一觉…，人均消费是400-500元") — an attraction's ticket, a hotel's price
        no_food = not any(d == "餐馆" for _, d in targets)
        numbers = [(p, {"景点": "门票", "酒店": "价格"}[target], target, v)
                   if slot == "人均消费" and (no_food or kind_before(p) == target) else (p, slot, d, v)
                   for p, slot, d, v in numbers]
    # a clause that praises a value ("不收费更好呀", "不用花钱也挺不错") says it of the place chosen
    # in that domain: a comment, no constraint
    numbers = [x for x in numbers if not remark(x[0], x[2])]

    # "它的评分有4分以上吗?": a check on the chosen place, not a new constraint
    # (a place named as where to look near — "云蒙山森林公园周边的餐馆…吗" — is not the one checked)
    checked = [n for n in names if not re.match(r"(?:的)?(?:附近|周边|周围|旁边|边上|一带)",
                                                ft[n[0] + len(fold(n[2])):n[0] + len(fold(n[2])) + 4])]
    checking = bool(re.search(r"[吗么]\W*$|是不是|是否", ft)) and not _SEARCH.search(mt) and \
        not re.search(r"找|推荐|介绍|换|再|还有|其他|别的|这些|哪", mt) and \
        not re.search(r"有[^，,。？?！!]{0,30}的(?:景点|景区|餐馆|餐厅|饭店|饭馆|酒店|宾馆|地方)", mt) and \
        (bool(_PRONOUN.search(mt)) or bool(checked) or bool(re.search(r"^\W*(?:景点|餐馆|餐厅|酒店|宾馆)的", mt)) or
         _bare_check(mt, focus, targets, state))
    if checking:
        for _, slot, dom, v in numbers:
            request.append((focus if slot == "评分" else dom or focus, slot))
        numbers = []
        if types and (chosen.get("酒店") or "酒店" in named):  # "酒店类型是高档型的吗": its type, asked
            request.append(("酒店", "酒店类型"))
            types = []

    # constraints
    conflicts: list[tuple[str, str, str, str]] = []

    def put(dom: str | None, slot: str, value: str) -> None:
        if dom:
            had = inform.get(dom, {}).get(slot)
            if had is not None and had != value and slot in ("门票", "人均消费", "价格", "评分", "游玩时间") \
                    and not _compatible(had, value):
                conflicts.append((dom, slot, had, value))  # 免费的…200元以上: the later one is kept
            inform.setdefault(dom, {})[slot] = value

    for _, slot, dom, v in numbers:
        if slot == "评分":
            dom = focus if focus in PLACE_DOMAINS else None
        put(dom or (focus if focus in PLACE_DOMAINS else None), slot, v)
    # 想吃火星烤肉: the dish said by its context is not in the database, though a shorter one
    # inside it (烤肉) is — the one asked for is unknown ("没有找到…", never the shorter one in its place)
    wanted = re.search(_WANT + r"([\u4e00-\u9fff]{3,10}?)(?:了|的|这道菜|这个菜|就行|就好|就可以|，|,|。|！|!|？|\?|$)", ft)
    unknown_dish = None
    if wanted:
        span = wanted.group(1)
        inner = [(s, d) for s, d in dishes if wanted.start(1) <= s and s + len(fold(d)) <= wanted.end(1)]
        rest = span.replace(fold(inner[0][1]), "") if len(inner) == 1 else ""
        if len(inner) == 1 and len(rest) >= 2 and not re.search(r"饭|东西|点|菜|些|个|的|就|一|那|这|特|正宗|好吃|地道|北京|老", rest):
            unknown_dish = span
            dishes = [x for x in dishes if x not in inner]
    dish_names = list(dict.fromkeys(d for _, d in dishes))
    dish_names = [d for d in dish_names if not any(d != o and d in o for o in dish_names)]
    if dish_names:
        put("餐馆", "推荐菜", " ".join(dish_names))
    for m in types:  # 经济实惠 is "good value", no type
        put("酒店", "酒店类型", m.group(1) + (m.group(2) or ""))
    if facilities:
        hotel_named = any(d == "酒店" for _, d, _ in names)
        # (么 of 什么/怎么/那么 asks nothing yes or no; 哪家/这些… ask which hotel has it: a search)
        asks_facility = bool(re.search(r"有没有|提不提供|有无|是否|有.{0,16}(?:吗|(?<![什怎那这多])么|没)|"
                                       r"提供.{0,16}(?:吗|(?<![什怎那这多])么|没)|能不能|可不可以|..(?:吗|(?<![什怎那这多])么)", ft)) and \
            (chosen.get("酒店") or hotel_named or _PRONOUN.search(mt)) and not re.search(r"找|推荐|换|再", mt) and \
            not _REFINE_WORDS.search(mt) and \
            not any(d == "酒店" for _, _, d, _ in numbers) and not re.search(r"经济|舒适|高档|豪华", mt)
        if asks_facility:
            for _, f in facilities:
                request.append(("酒店", "酒店设施-" + f))
        else:
            put("酒店", "酒店设施", " ".join(dict.fromkeys(f for _, f in facilities)))  # each once

    # places named: a selection, or (said with the domain's words, as a goal) a 名称 constraint
    for s, dom, name in names:
        if dom not in PLACE_DOMAINS:
            continue
        if any(name in (v.get("出发地"), v.get("目的地")) for v in out["trip"].values()):
            continue
        after = ft[s + len(fold(name)):s + len(fold(name)) + 4]
        if re.match(r"(?:的)?(?:附近|周边|周围|旁边|边上|一带)", after):
            near_dom = _near_target(mt, s, targets)
            if near_dom and _near_search(mt, near_dom, inform):
                out["near"][near_dom] = (NEAR_SLOT[dom], name)
                continue
        out["names"].append((dom, name))
    # 这个景点附近的酒店 / 景点周边找一家酒店: the chosen place of the named domain
    for pos, dom, w in doms:
        if dom not in PLACE_DOMAINS:
            continue
        after = mt[pos + len(w):pos + len(w) + 3]
        if re.match(r"(?:的)?(?:附近|周边|周围|旁边|边上|一带)", after) and chosen.get(dom):
            near_dom = _near_target(mt, pos, targets)
            if near_dom and near_dom not in out["near"] and _near_search(mt, near_dom, inform):
                out["near"][near_dom] = (NEAR_SLOT[dom], chosen[dom])
    # 这些酒店中 / 周边的酒店里 / 其中: a search among the nearby places just listed
    listed = state.get("listed") or {}
    m = re.search(THESE.pattern + r"|其中|周边的|附近的|周围的|周边(?:酒店|餐馆|景点)[中里]", mt)
    if re.search(r"不(?:是)?(?:很|太)?(?:适合|合适|行|满意|喜欢|想去)|都不|没有合适|去过了|另外|别的|别处", mt):
        m = None  # the places listed are turned down: a search elsewhere
    if NEAR_FAILED.search(mt):
        # "既然（附近）没有，那你推荐一个吧" / "周边没有的话，远一点也行": the search near that place
        # found nothing, and this one is made without it
        m = None
        out["near"].clear()
    for dom, (slot, name) in listed.items():
        if m and inform.get(dom) and dom not in out["near"]:
            out["near"][dom] = (slot, name)
    if not NEAR_FAILED.search(mt):
        for dom, ref in _bare_near(mt, doms, targets, near_spans, inform, state):
            if dom not in out["near"]:
                out["near"][dom] = (NEAR_SLOT[ref], chosen[ref])
    for dom, (slot, name) in list(out["near"].items()):
        if not inform.get(dom) and dom in PLACE_DOMAINS:
            # "推荐一个故宫周边的餐馆" / "颐和园周边有什么酒店": nothing asked of the place but that it be
            # near — the list the database keeps beside that place answers it (a request), no search
            place_dom = next(d for d, s2 in NEAR_SLOT.items() if s2 == slot)
            request.append((place_dom, NEAR_SLOT[dom]))
            out["refer"].append((place_dom, name))  # the place asked about becomes the chosen one
            del out["near"][dom]
            continue
        put(dom, slot, name)

    # requests
    asking = bool(_ASK.search(mt))
    for start, word in near_words:
        wdom = _WORD_DOM[word]
        other = re.match(r"\w{0,14}?(?:其他|其它|别的|另外)", mt[start:])
        if (wdom in out["near"] or wdom in inform) and not other:
            # a search near a place, not a question about it — unless it asks for the *other*
            # places beside it ("找个评分5分的餐馆，再看看它周边有什么其它餐馆")
            continue
        of = _near_subject(mt, start, names, doms, focus, near_spans, chosen, state.get("focus"), state.get("last_place"))
        if of:
            request.append((of, NEAR_SLOT[wdom]))
    if asking:
        taken, stated = set(), set()
        for w, slot in REQUESTS:
            for m in re.finditer(re.escape(w), mt):
                if any(a <= m.start() < b for a, b in taken) or any(a <= m.start() < b for a, b in near_spans) or \
                        m.start() in stated:
                    continue
                tail = mt[m.end():m.end() + 6]
                if re.match(r"\s*(?:是|在|为|要|能|有|达到|能达到|不低于|高于|至少)*\s*\d", tail):
                    stated.add(m.start())  # (人均 inside 人均消费是400元 is no question either)
                    continue  # a constraint with its number ("人均100元"), not a question
                taken.add((m.start(), m.end()))
                of = _subject(mt, m.start(), names, [x for x in doms if not any(a <= x[0] < b for a, b in near_spans)],
                              state, focus, SLOT_DOMAINS.get(slot))
                if of and slot in ("车型", "车牌"):
                    continue
                if of and (of, slot) not in request:
                    if slot == "价格" and of != "酒店":
                        slot = "门票" if of == "景点" else "人均消费"
                    request.append((of, slot))
        if re.search(r"推荐|哪家|哪个|哪些|什么(?:景点|餐馆|酒店|地方)|找一|有没有", mt) and target in PLACE_DOMAINS:
            request.append((target, "名称"))
    # values said by their context that the database does not know: 想吃X (no dish X), 叫X的酒店
    out["unknown"] = [("餐馆", "推荐菜", unknown_dish)] if unknown_dish else []
    # 人均50元以下，不对，100-150元: a correction, the later value stands without a word about it
    out["conflicts"] = [] if re.search(r"不对|不是|改成|换成|还是|算了|哦不", t) else conflicts
    if not dishes and not unknown_dish:
        m = re.search(_WANT + r"([\u4e00-\u9fff]{1,8}?)(?:了|的|这道菜|就行|就好|就可以|，|,|。|！|!|？|\?|$)", mt)
        if m and len(m.group(1)) >= 2 and "＃" not in m.group(1) and not re.search(r"饭|东西|点|的|菜|就行|就好|什么|啥", m.group(1)):
            out["unknown"].append(("餐馆", "推荐菜", m.group(1)))
    m = re.search(r"(?:叫|名叫|名为|叫做)([^，,。？?！!的]{2,20})的(景点|餐馆|餐厅|饭店|酒店|宾馆)", mt)
    if m and "＃" not in m.group(1):
        out["unknown"].append((_WORD_DOM.get(m.group(2), "酒店"), "名称", m.group(1)))
    out["request"] = list(dict.fromkeys(request))
    return out


def _bounds(v: str) -> tuple[float, float] | None:
    """The interval a number constraint allows ("100-150元" → (100, 150), "4分以上" → (4, inf),
    "免费" → (0, 0)), or None when it is not a number constraint."""
    v = fold(v)
    if v in ("免费", "0元"):
        return (0.0, 0.0)
    nums = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", v)]
    if not nums:
        return None
    if len(nums) >= 2:
        return (min(nums[:2]), max(nums[:2]))
    if "以上" in v:
        return (nums[0], float("inf"))
    if "以下" in v:
        return (float("-inf"), nums[0])
    return (nums[0], nums[0])


def _compatible(a: str, b: str) -> bool:
    """Two values said for one number slot in one utterance can both hold (their intervals meet)."""
    x, y = _bounds(a), _bounds(b)
    if x is None or y is None:
        return True
    return max(x[0], y[0]) <= min(x[1], y[1])


def _near_requests(mt: str) -> tuple[list[tuple[int, str]], list[tuple[int, int]]]:
    """"…周边有什么餐馆和酒店": ``(start, domain word)`` of each asked kind, and the spans."""
    words, spans = [], []
    for m in _NEAR_REQ.finditer(mt):
        word = m.group(1)
        end = m.end()
        # 周边好吃的餐馆 / 附近好玩的景点: the kind named right after 吃的/玩的 is the one asked
        m3 = re.match(r"(?:的)?(景点|景区|餐馆|餐厅|饭店|饭馆|酒店|宾馆|地方)", mt[end:])
        # (likewise after the activity: 可以游玩的景点, 就餐的地方)
        if word in _ACTIVITY and m3:
            word = {"地方": _ACTIVITY[word]}.get(m3.group(1), m3.group(1))
            end += m3.end()
        words.append((m.start(), word))
        while True:  # each domain word of a list is asked
            # … or the next question goes on with the list ("周边有什么景点吗？还有其它餐馆吗？",
            # "…有酒店没？有景点没？"): the place asked about is left out, as it was said once
            m2 = re.match(r"(?:[吗么呢没嘛]?\s*[？?，,]\s*(?:那|那么)?(?:还有|有没有|有)(?:什么|啥|哪些)?|"
                          r"和|与|及|还有|以及|跟|、|或者?)(?:其他|别的|其它)?的?"
                          r"(景点|景区|餐馆|餐厅|饭店|饭馆|酒店|宾馆|吃的|玩的|住的)", mt[end:])
            if not m2:
                break
            words.append((m.start(), m2.group(1)))
            end += m2.end()
        spans.append((m.start(), end))
    return words, spans


_SEARCH = re.compile(r"(?:找|推荐|订|选|安排)(?:一(?!下)|个|家)|来(?:一[个家]|个|家)|哪(?:个|家)|有没有[^，,。？?！!]{0,12}(?:的|是)")


#: words that ask which of several places ("哪家提供宽带上网", "这些酒店中…"): a search, not a
#: question about the place chosen
_REFINE_WORDS = re.compile(r"哪家|哪个|哪一|其中|" + THESE.pattern)
#: a word of nearness with nothing named before it, or only a pronoun ("在附近找一家", "它附近",
#: "周边的餐馆中…"); a place name before it is masked (＃) and a domain word is read by its own rule
_BARE_NEAR = re.compile(r"(?:(?:它|他|她)家?|这|那|这儿|那儿|这里|那里)?的?(附近|周边|周围|旁边|边上|一带)")


def _bare_near(mt: str, doms, targets, near_spans, inform: dict, state: dict) -> list[tuple[str, str]]:
    """``(domain searched, domain of the place it is near)`` for a search said near no place
    named ("我想在附近找一家评分4分以上的餐馆", "去它家附近找个酒店住宿"): near the place the dialogue is at
    — the chosen place of the domain talked about before this utterance, else the one chosen or
    proposed last. Only a search with a constraint of its own (a bare "周边有什么酒店" asks for the
    list beside a place, a request) and only when that place is of another kind than the one
    searched (a search near a place of the same kind names it: "这家餐馆周边的餐馆")."""
    chosen = state.get("chosen") or {}
    prior = state.get("focus")
    ref = prior if prior in PLACE_DOMAINS and chosen.get(prior) else \
        _last_place_domain(chosen, state.get("last_place"), PLACE_DOMAINS)
    if not ref:
        return []
    ends = {p + len(w) for p, d, w in doms}
    out = []
    for m in _BARE_NEAR.finditer(mt):
        s = m.start()
        if re.search(r"＃的?$", mt[:s]) or s in ends or (mt[s - 1:s] == "的" and s - 1 in ends):
            continue  # near a place named, or near a kind of place (景点附近: its own rule)
        clause = re.split(r"[，,。？?！!；;]", mt[s:], maxsplit=1)[0]
        after = [d for p, d, _ in doms if s < p < s + len(clause) and d in PLACE_DOMAINS]
        dom = after[0] if after else None
        if re.match(r"[^，,。？?！!；;]{0,3}?(?:还|都|是否|是不是)?(?:有|是)", mt[m.end():]) and \
                (not any(d == dom for _, d in targets) or any(d == dom and p < s for p, d in targets)):
            # "看看周边有什么酒店": the list beside the place found, asked for — unless that kind is
            # itself looked for with a value, first named here ("它附近有什么景点，最好评分在4.5分以上";
            # "找个5分的餐馆，再看看它周边有什么其它餐馆" asks beside the restaurant found)
            continue
        if dom in PLACE_DOMAINS and dom != ref and inform.get(dom) and (dom, ref) not in out:
            out.append((dom, ref))
    return out


def _near_search(mt: str, dom: str, inform: dict) -> bool:
    """…附近的酒店 is a search (a nearby constraint) when the user also constrains the hotel or
    asks for one (找一家, 推荐一个, 哪家); "…附近有什么酒店" alone asks for the nearby list."""
    return bool(inform.get(dom)) or bool(_SEARCH.search(mt))


def _established(cands: list[tuple[int, str]], names, chosen: dict, focus: str | None) -> list[tuple[int, str]]:
    """A question asks about a place the dialogue already has: among ``cands`` (position,
    domain), a domain word whose domain has no place chosen or named ("它家周边有啥好吃的餐馆"
    when only a hotel is chosen) is dropped while another candidate, or the focus, has one."""
    named = {d for _, d, _ in names}
    have = [c for c in cands if c[1] in named or chosen.get(c[1])]
    if have or (focus and chosen.get(focus)):
        return have
    return cands


def _last_place_domain(chosen: dict, last_place: str | None, allowed) -> str | None:
    """The domain whose chosen place is the one named or proposed last, among ``allowed``."""
    return next((d for d in allowed if last_place and chosen.get(d) == last_place), None)


def _near_subject(mt: str, pos: int, names, doms, focus: str | None, asked=(), chosen=None,
                  prior_focus: str | None = None, last_place: str | None = None) -> str | None:
    """Whose neighbourhood a "…周边有什么酒店" asks about: the place or domain word right before
    周边/附近 (景点附近, 故宫周边, 这家店附近) that is not itself asked about, else the focus."""
    before = [(p, d) for p, d, _ in names if p < pos and d in PLACE_DOMAINS] + \
             [(p, d) for p, d, w in doms if p < pos and d in PLACE_DOMAINS
              and not any(a <= p < b for a, b in asked)]
    before = _established(before, names, chosen or {}, focus)
    if before:
        p, d = max(before)
        if pos - p <= 24:
            return d
    for f in (focus, prior_focus):  # the domain talked about now, else the one before, with a place
        if f in PLACE_DOMAINS and (chosen or {}).get(f):
            return f
    # else the kind of the place talked about last ("那周边还有什么景点吗" right after a hotel's
    # address was asked by name), else the focus
    return _last_place_domain(chosen or {}, last_place, PLACE_DOMAINS) or (focus if focus in PLACE_DOMAINS else None)


def _near_target(mt: str, pos: int, targets: list[tuple[int, str]]) -> str | None:
    """The domain looked for near a place named at ``pos``: the first target word after it."""
    after = [d for p, d in targets if p > pos]
    if after:
        return after[0]
    m = _NEAR_REQ.search(mt, pos)
    return _WORD_DOM[m.group(1)] if m else None


def _subject(mt: str, pos: int, names, doms, state: dict, focus: str | None, allowed=None) -> str | None:
    """The domain a request at ``pos`` is about: the closest named place or domain word before
    it (else after it), else the dialogue's focus — among ``allowed`` domains."""
    allowed = allowed or PLACE_DOMAINS
    cands = [(p, d) for p, d, _ in names if d in PLACE_DOMAINS] + \
            [(p, d) for p, d, w in doms if d in PLACE_DOMAINS and not mt[p + len(w):p + len(w) + 3].startswith(("附近", "周边", "的附近", "的周边"))]
    cands = _established(cands, names, state.get("chosen") or {}, focus)
    before = [(p, d) for p, d in cands if p < pos and d in allowed]
    if before:
        return max(before)[1]
    after = [(p, d) for p, d in cands if p > pos and d in allowed]
    if after and len(allowed) > 1:
        return min(after)[1]
    chosen = state.get("chosen") or {}
    for f in (focus, state.get("focus")):  # the domain talked about now, else the one before
        if f in allowed and chosen.get(f):
            return f
    last = _last_place_domain(chosen, state.get("last_place"), allowed)
    if last:
        return last
    if focus in allowed:
        return focus
    return allowed[0] if len(allowed) == 1 else None
