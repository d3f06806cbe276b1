"""Sparse text features for the intent scorer (pure).

English and other Latin-script text: word unigrams and bigrams plus character
3- and 4-grams inside each word (with ``<``/``>`` word boundaries), which
carries morphology and typos (Cavnar & Trenkle 1994; the char-n-gram SVM
baseline of Larson et al. 2019). Chinese: character unigrams, bigrams and
trigrams over each CJK run (Chinese has no spaces; character bigrams are the
standard strong baseline, Li & Sun 2007). Values are sublinear TF-IDF,
L2-normalised (Salton & Buckley 1988).

Cues (:data:`CUES`): one feature per closed class of function words that tells sibling requests
apart by a rule of the language rather than by the example's content words — repetition (再, 重新,
again, re-send: doc.resend against doc.send), a question about what was done (哪些, 发过, what did,
have I: doc.list_sent, reminder.list), changing (改, 推迟, move, postpone), cancelling (取消, 去掉,
delete), a service (服务, daemon, ``*.service``) against the device as a whole (机器, 系统, the box).
An n-gram spreads each of them over every word it occurs in ("再发一遍", "再发一次", "再把"), so
with ~20 examples an intent a phrasing the examples lack reads as its sibling; the cue is one
feature the whole class shares, whichever word says it. The cues are features of the intent model's
ranker only (``raw_features(…, cues=True)``, :attr:`hermesd.nlu.intents.IntentModel.ranker`), which
orders the in-scope intents once the cue-free scorer has decided the utterance is in scope: in the
deciding scorer a cue word alone ("again", 取消, "which") lifted everyday sentences over the
out-of-scope class.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Mapping

from .. import lazyre

__all__ = ["CUE_COUNT", "CUES", "raw_features", "tfidf_vector", "vocab_units"]

_TOKEN = lazyre.compile(r"[a-z0-9]+(?:'[a-z]+)?|[\u3400-\u4dbf\u4e00-\u9fff]+")


def _en(*words: str) -> str:
    """English words or phrases as one alternation, at word boundaries (a space: any spaces)."""
    return r"(?<![a-z0-9'])(?:" + "|".join(w.replace(" ", r"\s+") for w in words) + r")(?![a-z0-9'])"


#: the term count a cue's feature is given (its TF is 1 + ln 4 ≈ 2.4): one feature stands for a
#: whole class of words, against the dozens of n-grams of the content words. Closed-set top-1 over
#: the shipped pack's 5-fold CV (the folds of scripts/bench/nlu_pack_oos.py, the scorer alone), seed
#: 13: 0.690 without cues; with them counted 1: 0.733, 2: 0.785, 4: 0.797, 8: 0.806, 20: 0.813. At 8,
#: seeds 13/1/2: 0.802 (0.683 without cues).
CUE_COUNT = 4

#: cue name → the words that say it (normalised text: lower case, half width); see the module
#: docstring. A text has the feature ``q<name>`` (count :data:`CUE_COUNT`) when any of them occurs.
CUES: dict[str, lazyre.LazyRe] = {
    # the same thing a second time; 再见 is a goodbye, 重启 a restart (no "re-" of its own); 再 with
    # 也 later in its clause is "and then … too" (再把发票也发给张工: another document), 再也 "never again";
    # 再 opening a 把/将 phrase with no 遍/次 in its clause is "next" (再把发票发给张工: the next request),
    # 再把合同发一遍 is again
    "again": lazyre.compile(
        _en("again", "once more", "one more time", "another time", r"re-?send\w*", "resent", r"re-?forward\w*",
            r"re-?mail\w*", r"re-?email\w*", r"re-?share\w*", r"re-?submit\w*", "redo", "repeat")
        + r"|再(?!见|也)(?![^,.!?;:，。！？；：]*也)(?![把将](?![^,.!?;:，。！？；：]*[遍次]))|重新|重发|重传|补发|又"),
    # a question about what was done or what there is: which, what did/have, how many, the list of;
    # not a yes/no 了吗 / 了没 ("报价单发给王芳了吗": the request's own intent, asked about, answers it)
    "what": lazyre.compile(
        _en("which", r"what (?:did|have|has|had|was|were|do|does|are|is) (?:i|we|you)", "what did", "what have",
            "how many", "list", "history", "so far", "did i", "have i", "did we", "have we", "already")
        + r"|哪些|哪个|哪份|哪几|什么|几份|几个|多少|列出|列一下|清单|列表|记录|历史|有没有|没有|都有"
          r"|(?<=[发寄传转送交设定做看])过|已经|已发"),
    # a different time or content for an existing thing
    "change": lazyre.compile(
        _en("change", "changed", "changing", "move", "moved", "moving", "push", "pushed", r"postpon\w*", r"reschedul\w*", r"shift\w*", r"delay\w*",
            "instead", "bring forward", "make it", r"updat\w*", r"edit\w*", "later", "earlier")
        + r"|改|推迟|推后|延后|延期|延迟|提前|挪|换到|换成|调到|调整|移到|往后|往前|晚一点|早一点|晚点|早点"),
    # an existing thing no longer wanted
    "cancel": lazyre.compile(
        _en(r"cancel\w*", r"delet\w*", r"remov\w*", "drop", "turn off", "get rid of", "no longer", "anymore",
            "any more", r"clear\w*", "don't need", "do not need", "stop", "scrap", "discard", "forget about")
        + r"|取消|删除|删掉|删了|去掉|不要了|不用|别再|关掉|撤销|撤掉|清空|清除|移除|作废|算了"),
    # a service, daemon or unit (systemd's ``name.service``), not the machine
    "service": lazyre.compile(
        _en(r"services?", r"daemons?", r"servers?", r"process(?:es)?", r"units?", r"containers?", r"[a-z0-9_-]+\.service")
        + r"|服务|进程|守护|容器"),
    # the device as a whole
    "device": lazyre.compile(
        _en("machine", "device", "box", "system", "computer", "host", "whole", "everything", "the unit",
            "gateway", "router", "hardware")
        + r"|机器|设备|系统|整机|主机|电脑|盒子|本机|网关|路由器|这台|整个|硬件"),
}


def raw_features(text: str, cues: bool = False) -> Counter[str]:
    """Term counts of a normalised text (see :func:`hermesd.nlu.normalize.normalize`).

    Keys are listed in a fixed order (per token its n-grams, then words, then bigrams, then, with
    ``cues``, the cues of :data:`CUES` in their order, ``q<name>`` of count :data:`CUE_COUNT`) and
    counted in one pass: the order is the scorer's summation order, so it is part of the result.
    Without ``cues`` the counts are the n-grams, words and bigrams alone (the scorer whose scores
    decide in or out of scope; the cues only reorder the in-scope intents, see
    :attr:`hermesd.nlu.intents.IntentModel.ranker`).
    """
    keys: list[str] = []
    words = _TOKEN.findall(text)
    for tok in words:
        if tok[0].isascii():
            w = "<" + tok + ">"
            keys += ["c" + w[i:i + 3] for i in range(len(w) - 2)]
            keys += ["c" + w[i:i + 4] for i in range(len(w) - 3)]
        else:
            r = "<" + tok + ">"
            keys += ["h" + c for c in tok]  # the 1-grams of r but its two boundary marks
            keys += ["h" + r[i:i + 2] for i in range(len(r) - 1)]
            keys += ["h" + r[i:i + 3] for i in range(len(r) - 2)]
    keys += ["w" + w for w in words]
    keys += ["b" + a + " " + b for a, b in zip(words, words[1:])]
    out = Counter(keys)
    if not cues:
        return out
    for name, rx in CUES.items():
        if rx.search(text):
            out["q" + name] = CUE_COUNT
    return out


#: 1 + ln(c) for the term counts a short text has (sublinear TF); the same floats math.log gives
_SUBLINEAR = tuple(1.0 + math.log(c) if c else 0.0 for c in range(64))


def tfidf_vector(counts: Mapping[str, int], idf: Mapping[str, float]) -> dict[str, float]:
    """Sublinear TF-IDF, L2-normalised; features without an idf (unseen in training) are dropped."""
    v = {}
    get = idf.get
    for k, c in counts.items():
        x = get(k)
        if x is not None:
            v[k] = (_SUBLINEAR[c] if c < 64 else 1.0 + math.log(c)) * x
    n = math.sqrt(sum([a * a for a in v.values()]))
    return {k: a / n for k, a in v.items()} if n else {}


def vocab_units(counts: Mapping[str, int]) -> list[str]:
    """The vocabulary units among a text's features (:func:`raw_features`): its words (Latin
    script) and its CJK character bigrams — the units of the out-of-scope ``coverage`` and
    ``unseen`` features (:mod:`.rejection`). A one-character CJK run has no bigram and no unit."""
    return [k for k in counts if (k[0] == "w" and k[1:2].isascii())
            or (k[0] == "h" and len(k) == 3 and "<" not in k and ">" not in k)]
