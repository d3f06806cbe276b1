"""CrossWOZ dialogue state: this turn's acts folded into the tracked constraints (pure).

State (``session.cw``): ``{"focus": domain, "cons": {domain: {slot: value}}, "chosen": {domain:
name}, "last_place": name}``. :func:`step` returns the new state and the domains whose
constraints changed this turn — the database queries to make, one per changed domain.

Rules (CrossWOZ's wizard keeps one cumulative query per domain, Zhu et al., TACL 2020):
- a trip (地铁/出租) is replaced whole by a new 从…到…;
- a place domain's constraints are merged with what the user says, unless a new search
  starts over one already done (再/另外/换/还想… with constraints, or a value for a slot
  that already had one while a place was chosen): then they are replaced;
- a place named as the goal (no constraints yet for its domain, or said with 叫/名叫) becomes
  the ``名称`` constraint; any place named becomes the chosen one of its domain;
- a nearby constraint (…附近的酒店) names the chosen place of the other domain;
- a narrowing (这些, 哪家, 他们 …) said right after a search of that domain found nothing is
  among the closest places its reply offered: the constraints those places miss are dropped
  (the last turn's ``failed``: {domain: [slots]}; a near slot among them when they lie elsewhere);
- a value said of a domain whose place is chosen, with no word that looks for a place
  (找, 推荐, 有没有, 哪家, 再, 附近 …), checks or praises that place: the constraints stay.
"""

from __future__ import annotations

import re

from cw_read import NEAR_SLOT, PLACE_DOMAINS, THESE

NEAR_SLOTS = set(NEAR_SLOT.values())

#: words that narrow the search already made (among these, which of them …) instead of starting one
_REFINE = re.compile(THESE.pattern + r"|其中|里面|当中|之中|哪个|哪家|哪一")
#: words that narrow to the places just offered (这些, 哪家, 他们 …): after a search that found
#: nothing, those are the closest places named in its reply (``state["failed"]``, :mod:`cw_answer`)
_AMONG = re.compile(_REFINE.pattern + r"|(?:他|她|它)们")
#: words that look for a place (a search or a narrowing of one; 再联系/再说/再见/再问 close or
#: defer, as in the reader's _LOOKS_ELSEWHERE); a value said about the place
#: already chosen without any of them checks or praises that place ("评分是4.5分以上吗？",
#: "真是一个经济实惠的酒店") and starts no query
_SEARCH = re.compile(r"找|推荐|有没有|有什么|有哪些|哪个|哪家|哪些|哪一|哪里|再(?!联系|说|见|问)|换|另|还想|还要|想去|想吃|想住|"
                     r"附近|周边|帮|查|安排|订|选|介绍|要求|希望|最好|想要|需要|来一|要一|"
                     r"其中|里面|当中|之中|" + THESE.pattern)
#: the places offered are turned down ("你说的这些不太想去"): what follows is a search of its own
_REJECT = re.compile(r"不太?(?:想|喜欢|适合|合适|行|满意)|都不|没有合适|去过了")


#: words that ask for a place to be proposed (推荐一个景点, 有什么好玩的景点, 找家餐馆)
_LOOK_FOR = re.compile(r"推荐|找|介绍|有什么|有哪些|有没有|哪[个家些里]|来[一个家]|安排")


#: "周边有什么景点" asks for the list beside a place (a request), not for a search
_NEAR = re.compile(r"周边|附近|周围|旁边|边上|就近")


def _copy(state: dict) -> dict:
    return {"focus": state.get("focus"), "cons": {d: dict(c) for d, c in (state.get("cons") or {}).items()},
            "chosen": dict(state.get("chosen") or {}), "last_place": state.get("last_place"),
            "offered": dict(state.get("offered") or {}), "listed": dict(state.get("listed") or {}),
            "metro": dict(state.get("metro") or {}),
            "queries_made": state.get("queries_made"), "query_log": list(state.get("query_log") or [])}


def step(state: dict, acts: dict, text: str) -> tuple[dict, list[str]]:
    """Fold ``acts`` (:func:`cw_read.read`) into ``state``. :return: (new state, changed domains)."""
    new = _copy(state)
    cons, chosen = new["cons"], new["chosen"]
    before = {d: dict(c) for d, c in cons.items()}
    target = acts.get("target")
    for dom, said in acts["inform"].items():
        # said of the chosen place: a check or a comment, not a new search — when no word looks
        # for a place, or the words that do look for another kind ("铁板烧也是我最爱，它附近有什么酒店")
        if dom in PLACE_DOMAINS and chosen.get(dom) and (
                not _SEARCH.search(text) or (target in PLACE_DOMAINS and target != dom)):
            continue
        if dom in ("地铁", "出租"):
            cons[dom] = dict(said)
            continue
        old = cons.get(dom) or {}
        near_now = any(k in NEAR_SLOTS and said[k] != old.get(k) for k in said)
        if old and (not _REFINE.search(text) or _REJECT.search(text) or near_now):
            # a new search states its constraints afresh; so does one among the places listed
            # beside a place ("这些附近的酒店里有高档型的吗": near that place, not among the last results)
            cons[dom] = dict(said)  # a new search states its constraints afresh
        else:
            # a narrowing right after a search that found nothing ("那他们哪家是经济型的？") is among
            # the closest places offered instead: the constraints they did not meet are let go
            missed = set((state.get("failed") or {}).get(dom) or ()) if _AMONG.search(text) else set()
            merged = {k: v for k, v in old.items() if k not in missed or k in said}
            merged.update(said)
            cons[dom] = merged
    for dom, name in acts["names"]:
        goal = not cons.get(dom) or re.search(r"(?:叫|名叫|名为|叫做)\s*" + re.escape(name[:2]), text)
        if goal and dom not in acts["inform"]:
            cons[dom] = {"名称": name}
        chosen[dom] = name
        new["last_place"] = name
    for dom, name in acts.get("refer") or ():  # a place asked about by name, not searched for
        chosen[dom] = name
        new["last_place"] = name
    if target in PLACE_DOMAINS and _LOOK_FOR.search(text) and not _NEAR.search(text) and target not in cons \
            and not acts["names"] and not acts.get("unknown") and not acts.get("request"):
        cons[target] = {}  # "推荐一个景点": a search with no constraint yet, over every record
    if acts.get("target"):
        new["focus"] = acts["target"]
    elif acts["names"]:
        new["focus"] = acts["names"][-1][0]
    changed = [d for d in cons if cons[d] != before.get(d)]
    return new, changed
