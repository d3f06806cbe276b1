"""Database queries of a turn, the records chosen, the requested attributes and the reply (pure given the DB).

:func:`answer` runs one query per changed domain (:mod:`cw_track`), keeps the chosen place when
it still meets the constraints (else takes the first match, in database order), answers every
requested attribute from the chosen record of its domain, and writes one Chinese reply: the
place found (or "没有找到…" with the closest records and the constraints they miss — never an
invented record), then each answer in the order asked.
"""

from __future__ import annotations

import difflib
import re

import cw_db

PLACE_DOMAINS = ("景点", "餐馆", "酒店")
MAX_LIST = 5  # "周边xx… 显示时可截取前五个" (CrossWOZ database.md)
#: other matching records named beside the one recommended, so the user can choose
ALTERNATIVES = 2


def _fmt_value(slot: str, v) -> str:
    if v is None or v == [] or v == "":
        return "无"
    if isinstance(v, list):
        return "、".join(str(x) for x in v[:MAX_LIST])
    if slot in ("门票",) and v == 0:
        return "免费"
    if slot in ("门票", "人均消费", "价格") and isinstance(v, (int, float)):
        return f"{v:g}元"
    if slot == "评分" and isinstance(v, (int, float)):
        return f"{v:g}分"
    return str(v)


def _describe(cons: dict) -> str:
    return "，".join(f"{k}{v}" if k != "名称" else f"名叫{v}" for k, v in cons.items())


def unknown_values(unknown: list, db: dict) -> list[str]:
    """"没有找到…" for values said by their context that the database lacks, with the closest
    names it has (difflib ratio, the standard library's SequenceMatcher)."""
    out = []
    for dom, slot, value in unknown:
        what = f"叫{value}的{dom}" if slot == "名称" else f"有{value}的{dom}"
        close = difflib.get_close_matches(value, cw_db.pool(dom, slot, db), n=3, cutoff=0.4)
        out.append(f"没有找到{what}" + (f"；最接近的有{'、'.join(close)}" if close else "") + "。")
    return out


def answer(state: dict, queries: list[dict], requests: list, db: dict, intent: str | None = None,
           unknown: list = (), text: str = "", conflicts: list = ()) -> dict:
    """:param state: the tracked state after this turn. :param queries: ``[{domain, constraints}]``.
    :param requests: ``[[domain, slot], …]``. :return: ``{state, results: {domain: [names]},
    answers: [{domain, slot, value}], say}``."""
    state = {**state, "chosen": dict(state.get("chosen") or {}), "offered": dict(state.get("offered") or {}),
             "listed": dict(state.get("listed") or {})}
    state.pop("taxi_offer", None)  # an offer stands for the turn right after it only
    state.pop("failed", None)  # so do the closest places offered after a search that found nothing
    chosen = state["chosen"]
    results: dict[str, list[str]] = {}
    parts: list[str] = []
    for q in queries:
        dom, cons = q["domain"], q["constraints"]
        if dom == "出租":
            # a taxi is a booking (a transaction): offered here, booked by crosswoz_taxi only after
            # the user says yes to its card
            a, b = cons.get("出发地"), cons.get("目的地")
            if a and b:
                state["taxi_offer"] = {"from": a, "to": b}  # ASCII keys: rule templates name them
                parts.append(f"从{a}到{b}可以打车。要我帮您叫这辆出租车吗？")
            continue
        if dom == "地铁":
            a, b = cons.get("出发地"), cons.get("目的地")
            sa, sb = cw_db.metro_station(a or "", db), cw_db.metro_station(b or "", db)
            parts.append(f"{a}附近的地铁站是{sa or '（数据库里没有）'}，{b}附近的地铁站是{sb or '（数据库里没有）'}。")
            state.setdefault("metro", {}).update({"出发地附近地铁站": sa, "目的地附近地铁站": sb})
            continue
        found = cw_db.query(dom, cons, db)
        names = [r["名称"] for r in found]
        if not any(k.startswith("周边") for k in cons):
            # the places found now are "these" of the next turn, no longer a list beside a place
            state["listed"].pop(dom, None)
        results[dom] = names[:10]
        if not found:
            alts, missed = cw_db.closest(dom, cons, db)
            text = f"没有找到{_describe(cons)}的{dom}"
            if alts:
                text += "；最接近的有" + "、".join(r["名称"] for r in alts) + f"（不满足：{'、'.join(missed)}）"
            parts.append(text + "。")
            # "这家的电话" next refers to the closest record offered; nothing is offered as a match
            state["offered"][dom] = alts[0]["名称"] if alts else None
            if alts:  # "那他们哪家…" next narrows among them: the slots they miss (cw_track)
                state.setdefault("failed", {})[dom] = sorted(
                    {next((s for s in cons if m == s or (m.startswith(s) and s in cw_db.MULTI)), m) for m in missed})
            if alts and chosen.get(dom) not in [r["名称"] for r in alts]:
                chosen[dom] = alts[0]["名称"]
            continue
        if chosen.get(dom) not in names:
            chosen[dom] = names[0]
        state["offered"][dom] = chosen[dom]
        state["last_place"] = chosen[dom]
        others = [n for n in names if n != chosen[dom]][:ALTERNATIVES]
        more = f"（共{len(names)}家符合；也可以看看{'、'.join(others)}）" if others else ""
        parts.append(f"为您推荐{dom}：{chosen[dom]}{more}。")
    parts = unknown_values(list(unknown), db) + [
        f"{slot}“{a}”和“{b}”不能同时满足，我按后说的“{b}”来找。" for _, slot, a, b in conflicts] + parts
    answers = []
    for dom, slot in requests:
        if dom == "出租":
            answers.append({"domain": dom, "slot": slot, "value": "#CX" if slot == "车型" else "#CP"})
            continue
        if dom == "地铁":
            v = (state.get("metro") or {}).get(slot)
            if v:
                answers.append({"domain": dom, "slot": slot, "value": v})
            continue
        if slot == "名称":
            continue  # answered by the recommendation above
        name = chosen.get(dom)
        if not name:
            parts.append(f"请先告诉我是哪家{dom}。")
            continue
        rec = cw_db.record(dom, name, db)
        if rec is None:
            continue
        if slot.startswith("酒店设施-"):
            fac = slot.split("-", 1)[1]
            has = cw_db.fold(fac) in {cw_db.fold(x) for x in rec.get("酒店设施") or []}
            answers.append({"domain": dom, "slot": slot, "value": "是" if has else "否"})
            parts.append(f"{name}{'有' if has else '没有'}{fac}。")
            continue
        v = rec.get(slot)
        answers.append({"domain": dom, "slot": slot, "value": v})
        if slot.startswith("周边") and v:
            # "这些酒店中哪家…" next searches among them: 酒店 near this place
            listed_dom = {"周边景点": "景点", "周边餐馆": "餐馆", "周边酒店": "酒店"}[slot]
            state.setdefault("listed", {})[listed_dom] = [{"景点": "周边景点", "餐馆": "周边餐馆", "酒店": "周边酒店"}[dom], name]
        parts.append(f"{name}的{slot}：{_fmt_value(slot, v)}。")
    if not parts and text and not re.search(r"[\u4e00-\u9fff]", text):
        parts.append("This travel assistant understands Chinese: tell me, for example, 帮我找一家评分4.5分以上的酒店.")
    if not parts:
        parts.append({"crosswoz.thanks": "不客气。", "crosswoz.bye": "再见，祝您旅途愉快。",
                      "crosswoz.greet": "您好，请问想去哪里玩、吃什么或住哪里？"}.get(
            intent or "", "好的。还想找景点、餐馆、酒店，或者查地铁、叫出租车吗？"))
    return {"state": state, "results": results, "answers": answers, "say": "".join(parts)}
