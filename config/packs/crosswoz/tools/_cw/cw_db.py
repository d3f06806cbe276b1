"""The CrossWOZ database, read once from ``HERMESD_DATA_DIR`` (the pack's ``tools.data_dir``).

Files: ``attraction_db.json``, ``restaurant_db.json``, ``hotel_db.json``, ``metro_db.json``: each
a JSON list of ``[name, record]`` pairs, as published with CrossWOZ (Zhu et al., TACL 2020,
Apache-2.0; field meanings in its ``database.md``).

Query semantics follow ``database.md``: 门票/评分/人均消费/价格 take ranges (``x-y`` inclusive,
``x…以上`` / ``>x`` at least x, ``x…以下`` / ``<x`` at most x, a bare number exact, 免费 = 0);
推荐菜 and 酒店设施 take several values separated by spaces, each of which must be present;
周边景点/餐馆/酒店 hold when the name is in the record's list; 名称 and the other strings
match after folding (:func:`fold`).
"""

from __future__ import annotations

import heapq
import json
import os
import re
import unicodedata
from pathlib import Path

FILES = {"景点": "attraction_db.json", "餐馆": "restaurant_db.json", "酒店": "hotel_db.json",
         "地铁": "metro_db.json"}
NUMERIC = {"门票", "评分", "人均消费", "价格"}
MULTI = {"推荐菜", "酒店设施"}
NEAR = {"周边景点", "周边餐馆", "周边酒店"}
_DB: dict | None = None


class DataMissing(Exception):
    """The database folder is not there or not readable (code ``DB_MISSING``)."""

    code = "DB_MISSING"


def fold(s) -> str:
    """NFKC (full-width → ASCII), no spaces, lower case, ``4.0`` → ``4``: how values compare."""
    t = unicodedata.normalize("NFKC", str(s)).lower()
    t = re.sub(r"\s+", "", t)
    return re.sub(r"(\d+)\.0(?!\d)", r"\1", t)


def load(folder: str | None = None) -> dict:
    """``{domain: [record, …]}`` (records in file order), cached per process.

    :raises DataMissing: when a file cannot be read.
    """
    global _DB
    if _DB is not None:
        return _DB
    folder = folder or os.environ.get("HERMESD_DATA_DIR") or ""
    db = {}
    for dom, name in FILES.items():
        path = Path(folder) / name
        try:
            pairs = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise DataMissing(f"cannot read {path}: {exc.strerror}") from None
        db[dom] = [rec for _, rec in pairs]
    _DB = db
    return db


def _num(v: str) -> float | None:
    m = re.search(r"\d+(?:\.\d+)?", v)
    return float(m.group()) if m else None


def numeric_test(want: str):
    """A predicate on a number (or None) for ``want`` ("4.5分以上", "100-150元", "免费", "<50")."""
    w = fold(want)
    if w in ("免费", "0元"):
        return lambda have: have == 0
    m = re.match(r"^(\d+(?:\.\d+)?)[^\d]*-(\d+(?:\.\d+)?)", w)
    if m:
        lo, hi = float(m[1]), float(m[2])
        return lambda have: have is not None and lo <= have <= hi
    x = _num(w)
    if x is None:
        return lambda have: False
    if w.startswith(">") or any(k in w for k in ("以上", "大于", "高于")):
        return lambda have: have is not None and have >= x
    if w.startswith("<") or any(k in w for k in ("以下", "小于", "低于", "以内")):
        return lambda have: have is not None and have <= x
    return lambda have: have == x


def numeric_ok(want: str, have) -> bool:
    """``have`` (a number or None) satisfies ``want``."""
    return numeric_test(want)(have)


def _test(slot: str, want: str):
    """A predicate on a folded record view for one constraint."""
    if slot in NUMERIC:
        t = numeric_test(want)
        return lambda view: t(view["_raw"].get(slot))
    if slot in MULTI:
        items = [fold(w) for w in want.split()]
        return lambda view: all(i in view.get(slot, ()) for i in items)
    if slot in NEAR:
        f = fold(want)
        return lambda view: f in view.get(slot, ())
    f = fold(want)
    if slot == "酒店类型":
        return lambda view: view.get(slot, "").startswith(f) if f else False
    return lambda view: view.get(slot) == f


def _view(rec: dict) -> dict:
    view: dict = {"_raw": rec}
    for k, v in rec.items():
        if isinstance(v, list):
            view[k] = frozenset(fold(x) for x in v)
        elif isinstance(v, str):
            view[k] = fold(v)
    return view


_VIEWS: dict = {}


def views(domain: str, db: dict | None = None) -> list[dict]:
    """Folded views of a domain's records (built once)."""
    db = db or load()
    key = (id(db), domain)
    if key not in _VIEWS:
        _VIEWS[key] = [_view(r) for r in db.get(domain, [])]
    return _VIEWS[key]


def matches(rec: dict, slot: str, want: str) -> bool:
    """One constraint of a record."""
    return _test(slot, want)(_view(rec))


#: constraint → the records that meet it, as a bitmask over the domain's records (bit i: record
#: i in database order), kept for the worker's life: a dialogue's state is cumulative, so the same
#: constraints come back turn after turn and a query is then a few ANDs, not a scan of every record
_MASKS: dict = {}
MASK_CACHE = 2048  # entries (a mask is an int of at most 1,133 bits: a few hundred kB in all)


def _mask(domain: str, slot: str, want, db: dict | None = None) -> int:
    """Bitmask of ``domain``'s records meeting the one constraint ``slot`` = ``want`` (:func:`_test`)."""
    db = db or load()
    key = (id(db), domain, slot, str(want))
    m = _MASKS.get(key)
    if m is None:
        t = _test(slot, want)
        bits = "".join("1" if t(v) else "0" for v in views(domain, db))
        m = int(bits[::-1], 2) if bits else 0
        if len(_MASKS) >= MASK_CACHE:
            _MASKS.pop(next(iter(_MASKS)))  # the oldest
        _MASKS[key] = m
    return m


def _indices(mask: int) -> list[int]:
    """The set bits of ``mask``, lowest first (records in database order)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def query(domain: str, constraints: dict, db: dict | None = None) -> list[dict]:
    """Records of ``domain`` meeting every constraint, in database order."""
    vs = views(domain, db)
    mask = (1 << len(vs)) - 1
    for k, v in constraints.items():
        mask &= _mask(domain, k, v, db)
        if not mask:
            return []
    return [vs[i]["_raw"] for i in _indices(mask)]


def closest(domain: str, constraints: dict, db: dict | None = None, k: int = 3) -> tuple[list[dict], list[str]]:
    """When nothing meets ``constraints``: the records meeting the most of them (best rated
    first, then in database order), and the constraints they miss (for "没有找到…，最接近的有…")."""
    # each part of a multi-valued constraint (推荐菜 "龙虾 刺身") is a condition of its own here, so
    # a record with one of two dishes is closer than one with neither
    tests = []
    for s, v in constraints.items():
        parts = str(v).split() if s in MULTI else [v]
        tests += [(s if len(parts) == 1 else f"{s}{p}", _mask(domain, s, p, db)) for p in parts]
    vs = views(domain, db)
    met = [0] * len(vs)
    for _, m in tests:
        for i in _indices(m):
            met[i] += 1
    order = heapq.nsmallest(k, range(len(vs)), key=lambda i: (len(tests) - met[i], -(vs[i]["_raw"].get("评分") or 0)))
    best = [i for i in order if met[i] > 0]
    return ([vs[i]["_raw"] for i in best],
            sorted({s for i in best for s, m in tests if not (m >> i) & 1}))


_STATIONS: dict = {}


def metro_station(name: str, db: dict | None = None) -> str | None:
    """The metro station (``地铁``) of the first record named ``name`` (folded) in 地铁, 景点, 餐馆,
    酒店 order; None when no record has that name."""
    db = db or load()
    if id(db) not in _STATIONS:
        table: dict = {}
        for dom in ("地铁", "景点", "餐馆", "酒店"):
            for v in views(dom, db):
                table.setdefault(v.get("名称", ""), v["_raw"].get("地铁"))
        _STATIONS.clear()
        _STATIONS[id(db)] = table
    return _STATIONS[id(db)].get(fold(name or ""))


_BY_NAME: dict = {}


def record(domain: str, name: str, db: dict | None = None) -> dict | None:
    """The first record of ``domain`` named exactly ``name`` (None when there is none): a name
    index built once per domain, so answering a request about the chosen place reads one entry
    instead of scanning the domain's records (up to 1,133) on every turn."""
    db = db or load()
    key = (id(db), domain)
    table = _BY_NAME.get(key)
    if table is None:
        table = {}
        for r in db.get(domain, []):
            table.setdefault(r.get("名称"), r)
        _BY_NAME[key] = table
    return table.get(name)


_POOLS: dict = {}


def pool(domain: str, slot: str, db: dict | None = None) -> list[str]:
    """What ``slot`` holds in ``domain``'s records, for "最接近的有…": every 名称 in database order,
    or every part of a list slot (推荐菜, 酒店设施) once, sorted; built once per (domain, slot)."""
    db = db or load()
    key = (id(db), domain, slot)
    if key not in _POOLS:
        recs = db.get(domain, [])
        _POOLS[key] = [r["名称"] for r in recs] if slot == "名称" else \
            sorted({d for r in recs for d in r.get(slot) or []})
    return _POOLS[key]


#: slots whose values are the database's own words (the parts of the MULTI ones each)
CATEGORICAL = {"酒店类型", "酒店设施", "推荐菜"}
_VOCAB: dict = {}


def vocabulary(domain: str, slot: str, db: dict | None = None) -> set[str]:
    """Every value ``slot`` takes in ``domain``'s records (each part of a list), cached."""
    key = (domain, slot)
    if key not in _VOCAB:
        vals: set[str] = set()
        for rec in (db or load()).get(domain, []):
            v = rec.get(slot)
            for x in (v if isinstance(v, list) else [v]):
                if isinstance(x, str) and x.strip():
                    vals.add(x.strip())
        _VOCAB[key] = vals
    return _VOCAB[key]


def canonical(domain: str, slot: str, value: str, db: dict | None = None) -> str:
    """``value`` in the database's own words: for a categorical slot (:data:`CATEGORICAL`), each
    part not itself a database value becomes the one value it begins or ends (经济 → 经济型,
    残疾人 → 残疾人设施, 叫醒 → 叫醒服务); a part that fits none or several is kept as said.
    Other slots are returned unchanged. The rule reads the database, never a dialogue."""
    if slot not in CATEGORICAL or not isinstance(value, str):
        return value
    vocab = vocabulary(domain, slot, db)
    out = []
    for part in value.split() if slot in MULTI else [value.strip()]:
        if part in vocab or len(part) < 2:
            out.append(part)
            continue
        fits = [v for v in vocab if v.startswith(part) or v.endswith(part)]
        out.append(fits[0] if len(fits) == 1 else part)
    return " ".join(out)
