"""Text normalisation with an offset map back to the original text (pure).

Steps, applied character by character so that every output character knows the
original span it came from:

1. Unicode NFKC (full-width → half-width, compatibility forms; UAX #15).
2. Lower-casing of Latin letters (``str.lower``).
3. Punctuation variants folded to ASCII (、。“”‘’～— …); ``o"clock`` (a double quote typed for the
   apostrophe) folded to ``o'clock``.
4. A small traditional → simplified table for characters the parser keys on.
5. Whitespace between CJK characters dropped ("下午 七 点" → "下午七点"), other
   whitespace runs collapsed to one space.
6. Chinese numerals that are numbers rewritten as ASCII digits
   (一月二十三 → 1月23, 三十一号 → 31号, 两点半 → 2点半, 一个半小时 → 1个半小时,
   二〇二四年 → 2024年, 零七年 → 07年: a digit-by-digit numeral keeps its leading 零), with a space
   where the digits would run into ASCII digits (周一9:30 → 周1 9:30).
   A lone 一 is only rewritten before a unit or after
   星期/周/第 (一起, 一下, 统一 stay words). 几十 / 几百 / 几千 (some tens …) are written 20多 / 200多 / 2000多.

:func:`normalize` returns a :class:`Normalized`; :meth:`Normalized.span`
maps a half-open span of the normalised text back to the original text.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from .. import lazyre

__all__ = ["Normalized", "cn_to_int", "normalize"]

_PUNCT = str.maketrans({
    "、": ",", "。": ".", "“": '"', "”": '"', "‘": "'", "’": "'", "～": "~", "〜": "~",
    "—": "-", "–": "-", "―": "-", "‐": "-", "「": '"', "」": '"', "『": '"', "』": '"',
    "【": "[", "】": "]", "《": "<", "》": ">", "·": ".", "•": ".", "…": ".",
})

# Traditional → simplified for characters that matter to the rules (OpenCC STCharacters subset).
_T2S = str.maketrans(
    "個號點週發單報後時鐘頭禮兩萬訂開關啟網絡統錯誤務還這們麼嗎會說請幫給張劉陳趙鄭經醫師東"
    "來過現們歲間題問據費錢塊為與從於對應該機電話碼郵貨運態誌視聽讀寫傳記憶設備狀況確認取消約"
    "週曆節樓區華總長議檔資紀錄輸啓網線連斷線啟動車買賣價錶軟體硬碟盤磁記剩餘聯繫寄轉達晚飯飯",
    "个号点周发单报后时钟头礼两万订开关启网络统错误务还这们么吗会说请帮给张刘陈赵郑经医师东"
    "来过现们岁间题问据费钱块为与从于对应该机电话码邮货运态志视听读写传记忆设备状况确认取消约"
    "周历节楼区华总长议档资纪录输启网线连断线启动车买卖价表软体硬碟盘磁记剩余联系寄转达晚饭饭",
) | str.maketrans(  # names, departments and office words (OpenCC STCharacters subset)
    "強偉銷門財會計黃吳孫馬楊羅許鄧蕭馮韓領導員級專項紙樣擬闆廠裡麼個嗎這們還沒讓謝見為當從頁份鐘點鎖燈聲響溫濕風暫開啟",
    "强伟销门财会计黄吴孙马杨罗许邓萧冯韩领导员级专项纸样拟板厂里么个吗这们还没让谢见为当从页份钟点锁灯声响温湿风暂开启",
) | str.maketrans(  # calendar words: holidays, lunar dates, 內 of 三天內 (OpenCC STCharacters subset)
    "國慶聖誕勞動兒陽農陰舊臘閏龍將幾內裏鬧復萬穌難靈餅齋爾猶歸婦權樹臨"
    "贖灑紅歡衛獨獻穫誦圖豐薩寶麗實龐勝燭蘭歷誕殺紮節",
    "国庆圣诞劳动儿阳农阴旧腊闰龙将几内里闹复万稣难灵饼斋尔犹归妇权树临"
    "赎洒红欢卫独献获诵图丰萨宝丽实庞胜烛兰历诞杀扎节",
) | str.maketrans(  # document kinds (簡歷, 說明書, 對賬單, 採購單; OpenCC STCharacters subset)
    "簡書賬帳採購",
    "简书账帐采购",
) | str.maketrans(  # the world cities of hermesd.nlu.zones (倫敦, 紐約, 華盛頓) and 那邊 (OpenCC TSCharacters)
    "亞佈倫剋囌奧廣彿檯滿烏熱甦畢盧磯穀納紐維臺蘇衚託諾輔陸頓颱鬍魯齊邊",
    "亚布伦克苏奥广佛台满乌热苏毕卢矶谷纳纽维台苏胡托诺辅陆顿台胡鲁齐边",
)

_CN_DIGIT = {"零": 0, "〇": 0, "○": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5,
             "六": 6, "七": 7, "八": 8, "九": 9}
_CN_UNIT = {"十": 10, "百": 100, "千": 1000}
_CN_BIG = {"万": 10_000, "亿": 100_000_000}
_CN_NUM_RE = lazyre.compile("[零〇○一二两三四五六七八九十百千万亿]+")
# A lone 一 is a number only next to one of these (unit after, or 星期/周/第 before).
_YI_UNITS = set("月日号点个天周年岁份元块张台分秒刻小半位条件本")
_YI_BEFORE = ("星期", "礼拜", "周", "第")
_NOT_NUMBER = ("一起", "一下", "一直", "一定", "一样", "一切", "一般", "一旦", "一边", "一些", "一会",
               "统一", "万一", "唯一", "一致", "一律", "一向", "十分", "一点点", "一点儿", "一共")


def _is_cjk(ch: str) -> bool:
    o = ord(ch)
    return 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF


def cn_to_int(s: str) -> int | None:
    """Value of a Chinese numeral string, or None when it is not a well-formed number.

    :param s: e.g. ``"二十三"`` → 23, ``"两千零二十四"`` → 2024, ``"二〇二四"`` → 2024
        (digit-by-digit when there is no unit character), ``"十五"`` → 15.
    """
    if not s:
        return None
    if not any(c in _CN_UNIT or c in _CN_BIG for c in s):
        if all(c in _CN_DIGIT for c in s):
            return int("".join(str(_CN_DIGIT[c]) for c in s))
        return None
    total, section, digit = 0, 0, None
    for c in s:
        if c in _CN_DIGIT:
            if digit is not None and _CN_DIGIT[c] != 0 and digit != 0:
                return None  # two digits in a row inside a unit number (二三十): not a number
            digit = _CN_DIGIT[c]
        elif c in _CN_UNIT:
            section += (1 if digit is None else digit) * _CN_UNIT[c]
            digit = None
        elif c in _CN_BIG:
            if digit is None and section == 0 and total == 0:
                return None
            total = (total + section + (digit or 0)) * _CN_BIG[c]
            section, digit = 0, None
    return total + section + (digit or 0)


@dataclass(frozen=True, slots=True)
class Normalized:
    """Normalised text plus, for each of its characters, the original [start, end).

    :param text: the normalised text.
    :param starts: ``starts[i]`` is the original index where ``text[i]`` begins.
    :param ends: ``ends[i]`` is the original index just past what ``text[i]`` came from.
    :param original: the text given to :func:`normalize`.
    """

    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    original: str

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Map a half-open span of :attr:`text` to a half-open span of :attr:`original`.

        An empty span maps to an empty span at the corresponding original position.
        """
        if end <= start:
            pos = self.starts[start] if start < len(self.starts) else len(self.original)
            return pos, pos
        return self.starts[start], self.ends[end - 1]


    def nspan(self, start: int, end: int) -> tuple[int, int]:
        """Map a half-open span of :attr:`original` to the smallest covering span of :attr:`text`
        (inverse of :meth:`span` for spans that :meth:`span` produced)."""
        a = bisect_left(self.starts, start)
        b = bisect_right(self.ends, end)
        return a, max(a, b)


def _inside_fixed_word(text: str, pos: int) -> bool:
    """True when ``pos`` lies inside a fixed word such as 一起 or 十分 (not 十分钟)."""
    for w in _NOT_NUMBER:
        for k in range(len(w)):
            if pos - k >= 0 and text.startswith(w, pos - k) and any(c in _CN_DIGIT or c in _CN_UNIT or c in _CN_BIG for c in w[k:k + 1]):
                if w == "十分" and text.startswith("钟", pos - k + 2):
                    return False
                return True
    return False


def _number_runs(text: str):
    """Yield (start, end, value) for the Chinese numeral runs of ``text`` that are numbers (value an int,
    or a str of digits when a leading 零 must stay)."""
    for m in _CN_NUM_RE.finditer(text):
        s, e = m.span()
        run = m.group()
        after_weekday = any(text.endswith(b, 0, s) for b in _YI_BEFORE)
        if not after_weekday and _inside_fixed_word(text, s):
            continue
        if run in _CN_UNIT and s > 0 and text[s - 1] == "几":
            # 几十 / 几百: some tens / hundreds (几 is 2 to 9, 现代汉语词典), written as its lower bound and 多 as
            # 20多 / 200多 are (几十年 = 20多年), not as 10 with a stray 几
            yield s - 1, e, f"{2 * _CN_UNIT[run]}多"
            continue
        if run in ("万", "亿", "千", "百"):
            continue
        if run == "一":
            after = text[e:e + 1]
            before_ok = any(text.endswith(b, 0, s) for b in _YI_BEFORE)
            if not before_ok and after not in _YI_UNITS:
                continue
            if after == "点" and not before_ok:
                # 一点 is 1 o'clock only after a part of day or a digit context (快一点 = a bit)
                if not re.search(r"(上午|下午|中午|晚上|凌晨|早上|早晨|今天|明天|昨天|后天|夜里|傍晚|今晚|明晚|\d)$", text[max(0, s - 3):s]):
                    continue
        val = cn_to_int(run)
        if val is None:
            continue
        if run[0] in "零〇○" and len(run) > 1 and all(c in _CN_DIGIT for c in run):
            val = str(val).zfill(len(run))  # read digit by digit, a leading 零 is a digit: 零七年 is 07年
        elif _approximate(run, text[e:e + 1], after_weekday):
            val = min(_CN_DIGIT[run[0]], _CN_DIGIT[run[1]])
        yield s, e, val


def _approximate(run: str, after: str, after_weekday: bool) -> bool:
    """一两天, 两三个小时, 三五天, 七八个人: two neighbouring numerals side by side are an approximate number,
    "one or two" (现代汉语 概数: 相邻的两个数连用), written as the smaller one, not as 12 / 23 / 35. 两 is never
    read digit by digit, so a pair with it always is one; a pair without it (八九, 三四) before 年 stays a
    two-digit year (八九年 = 1989), and after 星期/周 it is two weekdays (星期一二)."""
    if len(run) != 2 or after_weekday or not all(c in _CN_DIGIT for c in run) or "零" in run or "〇" in run:
        return False
    a, b = _CN_DIGIT[run[0]], _CN_DIGIT[run[1]]
    if "两" in run:
        return abs(a - b) == 1 or run == "三两"
    return (b == a + 1 or run == "三五") and after != "年"


#: character → its normalised form (steps 1–4 are per character): filled as characters are met,
#: bounded so an adversary's text cannot grow it without limit
_CHAR_FORM: dict[str, str] = {}
_CHAR_FORM_MAX = 8192  # the common hanzi (~3,500) and Latin fit; at most ~1 MB
_SPACE_RUN = lazyre.compile(r"\s+")  # \s on str patterns is exactly str.isspace (Py_UNICODE_ISSPACE)
#: whitespace that step 5 would change: at an end, a run, not a plain space, or next to CJK (_is_cjk)
_CJK_CLASS = "\u3400-\u4dbf\u4e00-\u9fff\u3000-\u303f\uff00-\uffef"
_SPACE_CHANGES = lazyre.compile(rf"\A\s|\s\Z|\s\s|[^\S ]|[{_CJK_CLASS}] | [{_CJK_CLASS}]")


def _char_form(ch: str) -> str:
    n = unicodedata.normalize("NFKC", ch).translate(_PUNCT).translate(_T2S).lower()
    if len(_CHAR_FORM) < _CHAR_FORM_MAX:
        _CHAR_FORM[ch] = n
    return n


#: the last text normalised and its form: a turn normalises its utterance three times (the pronoun
#: pass, the parse, the reference pass), the same text each time; one tuple, swapped whole, so a
#: thread reading it sees a consistent pair
_LAST: tuple[str, Normalized] | None = None


def normalize(text: str) -> Normalized:
    """Normalise ``text`` (see module docstring); never raises on any ``str``.

    :return: :class:`Normalized` whose ``starts``/``ends`` index ``text``.

    Each step takes its fast path when it changes nothing or maps one character to one (the
    common case: the offset map is then the identity); the result is the same either way.
    The result is immutable and depends on ``text`` alone, so the same text said again in a row
    returns the form computed last time.
    """
    global _LAST
    last = _LAST
    if last is not None and last[0] == text:
        return last[1]
    n = _normalize(text)
    _LAST = (text, n)
    return n


def _normalize(text: str) -> Normalized:
    form = _CHAR_FORM
    forms = [form.get(ch) or _char_form(ch) for ch in text]
    out = "".join(forms)
    if 'o"clock' in out:  # 3 o"clock (a typed " for the apostrophe) reads as 3 o'clock; one char for one
        out = out.replace('o"clock', "o'clock")
    if len(out) == len(text):
        starts: list[int] | range = range(len(text))
        ends: list[int] | range = range(1, len(text) + 1)
    else:
        starts, ends = [], []
        for i, n in enumerate(forms):
            for _ in n:
                starts.append(i)
                ends.append(i + 1)
    # whitespace: drop between CJK characters, collapse elsewhere, strip at the ends
    if _SPACE_CHANGES.search(out) is None:  # single spaces between kept words: nothing changes
        mid, s2, e2 = out, starts, ends
    else:
        parts: list[str] = []
        s2, e2 = [], []
        pos = 0
        for m in _SPACE_RUN.finditer(out):
            k, j = m.span()
            parts.append(out[pos:k])
            s2.extend(starts[pos:k])
            e2.extend(ends[pos:k])
            pos = j
            prev = out[k - 1] if k > 0 else ""
            nxt = out[j] if j < len(out) else ""
            if prev and nxt and (not (_is_cjk(prev) or _is_cjk(nxt)) or (prev.isdigit() and nxt.isdigit())):
                parts.append(" ")
                s2.append(starts[k])
                e2.append(ends[j - 1])
        parts.append(out[pos:])
        s2.extend(starts[pos:])
        e2.extend(ends[pos:])
        mid = "".join(parts)
    # Chinese numerals → digits
    runs = list(_number_runs(mid)) if _CN_NUM_RE.search(mid) else []
    if not runs:
        return Normalized(mid, tuple(s2), tuple(e2), text)
    o3: list[str] = []
    s3: list[int] = []
    e3: list[int] = []
    pos = 0
    for rs, re_, val in runs:
        o3.append(mid[pos:rs])
        s3.extend(s2[pos:rs])
        e3.extend(e2[pos:rs])
        digits = str(val)
        if rs > 0 and mid[rs - 1].isascii() and mid[rs - 1].isdigit():
            o3.append(" ")  # 12点三十 stays apart from a digit before it
            s3.append(s2[rs])
            e3.append(e2[rs])
        o3.append(digits)
        s3.extend([s2[rs]] * len(digits))
        e3.extend([e2[re_ - 1]] * len(digits))
        if re_ < len(mid) and mid[re_].isascii() and mid[re_].isdigit():
            o3.append(" ")  # 周一9:30, 周三 9:30: the weekday's number and the clock stay two numbers
            s3.append(s2[re_ - 1])
            e3.append(e2[re_ - 1])
        pos = re_
    o3.append(mid[pos:])
    s3.extend(s2[pos:])
    e3.extend(e2[pos:])
    return Normalized("".join(o3), tuple(s3), tuple(e3), text)
