"""The anchor graph: a global pool of anchors + a per-session mention cache.

An anchor is a stable, readable id for a person or document
(``person:sales/zhang``) with ``{type, display, attributes, source,
last_updated_ms, verified_ms}``; the pool lives in L2 (``anchors``, ``aliases``)
with an in-memory index. Resolution of a mention, in order:

1. the session's mention cache (text → anchor, TTL ``mention_ttl_s`` on the monotonic clock);
2. the alias index (directory names, address forms, learnt aliases);
3. the directory tool, if one is configured, called with a deadline;
4. fuzzy match within the type: same surname with another title (张总 → the 张s),
   or a close spelling (``difflib`` ratio ≥ 0.8: "Jon Smith"; a linear scan of the
   aliases, fine for a device's directory of hundreds of people);
5. several candidates left → ``ambiguous`` with (at most 8 of) the candidates, for the
   session to ask;
6. none, but the mention came with context (email, dept) → a new anchor is created;
7. otherwise ``unresolved``: the raw text passes through marked 【张工】 — never an error.

Context (``dept``, ``email``, ``phone``) narrows candidates at steps 2–4.
"""

from __future__ import annotations

import asyncio
import difflib
import hashlib
import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from ..memory import records
from ..memory.l2 import L2Store
from .directory import Directory, Person, cn_address_form, marked, normalize_mention

__all__ = ["Anchor", "AnchorGraph", "Resolution"]

log = logging.getLogger(__name__)

#: ``lookup(mention) -> [Person]``: an external directory (e.g. a directory tool).
DirectoryLookup = Callable[[str], Awaitable[list[Person]]]
FUZZY_RATIO = 0.8
#: most candidates offered for a clarification question (a longer list is not a question).
MAX_CANDIDATES = 8


@dataclass(slots=True)
class Anchor:
    """One pool entry. ``merged_into`` points to the survivor after a merge."""

    anchor_id: str
    type: str
    display: str
    attributes: dict[str, Any]
    source: str
    last_updated_ms: int
    verified_ms: int = 0
    merged_into: str | None = None

    def as_row(self) -> dict[str, Any]:
        return {"anchor_id": self.anchor_id, "type": self.type, "display": self.display,
                "attributes": self.attributes, "source": self.source, "merged_into": self.merged_into,
                "last_updated_ms": self.last_updated_ms, "verified_ms": self.verified_ms}


@dataclass(slots=True)
class Resolution:
    """What a mention resolved to.

    :param status: ``resolved``, ``ambiguous`` or ``unresolved``.
    :param anchor_id: set when resolved.
    :param candidates: when ambiguous, ``[{anchor_id, display, display_en, dept, dept_name, dept_name_en,
        dept_aliases, title, email}]`` (see :meth:`AnchorGraph.candidate`).
    :param text: what to show/use in place of the mention: the display name, or
        ``【mention】`` when unresolved or ambiguous.
    :param via: ``session``, ``alias``, ``directory``, ``fuzzy``, ``created`` or ``""``.
    :param text_en: when resolved, the name as English shows it: "Li Na (李娜)" for a directory person
        with a Latin alias, else ``text``.
    """

    mention: str
    status: str
    anchor_id: str | None = None
    candidates: list[dict[str, Any]] = field(default_factory=list)
    text: str = ""
    via: str = ""
    text_en: str = ""


class AnchorGraph:
    """Global anchor pool (persisted in L2) and per-session mention caches.

    :param l2: opened L2 store (tables ``anchors``, ``aliases``).
    :param directory: the YAML directory, imported into the pool at :meth:`load`.
    :param lookup: optional external directory, called at step 3 with ``lookup_deadline_ms``.
    :param mention_ttl_s: life of a session's mention → anchor binding.
    :param clock: monotonic seconds; :param now_ms: wall-clock ms (both injected by tests).
    """

    def __init__(self, l2: L2Store, directory: Directory | None = None, *, lookup: DirectoryLookup | None = None,
                 lookup_deadline_ms: int = 200, mention_ttl_s: float = 7200.0,
                 clock: Callable[[], float] = time.monotonic,
                 now_ms: Callable[[], int] = lambda: time.time_ns() // 1_000_000) -> None:
        self.l2 = l2
        self.directory = directory
        self.lookup = lookup
        self.lookup_deadline_s = lookup_deadline_ms / 1000.0
        self.mention_ttl_s = mention_ttl_s
        self.clock = clock
        self.now_ms = now_ms
        self.pool: dict[str, Anchor] = {}
        self._aliases: dict[str, set[str]] = {}
        self._sessions: dict[str, dict[str, tuple[str, float]]] = {}

    # -- pool ---------------------------------------------------------------

    async def load(self) -> None:
        """Read the pool from L2, then import directory people that are new or changed."""
        anchors, aliases = await self.l2.aread(records.load_anchors)
        for a in anchors:
            self.pool[a["anchor_id"]] = Anchor(a["anchor_id"], a["type"], a["display"], a["attributes"], a["source"],
                                               a["last_updated_ms"], a["verified_ms"], a["merged_into"])
        for alias, anchor_id, _src in aliases:
            self._aliases.setdefault(alias, set()).add(anchor_id)
        if self.directory is not None:
            for p in self.directory.people.values():
                self._import_person(p, "directory")
        await self.l2.awrite(lambda conn: None)  # barrier: the import is committed

    async def set_directory(self, directory: Directory | None) -> int:
        """Swap in a reloaded directory and import its new or changed people; returns how many."""
        self.directory = directory
        people = list(directory.people.values()) if directory else []
        for p in people:
            self._import_person(p, "directory")
        await self.l2.awrite(lambda conn: None)
        return len(people)

    def _import_person(self, p: Person, source: str) -> Anchor:
        now = self.now_ms()
        old = self.pool.get(p.anchor_id)
        attrs = p.attributes()
        if old is None or old.display != p.name or any(old.attributes.get(k) != v for k, v in attrs.items()):
            a = Anchor(p.anchor_id, "person", p.name, {**(old.attributes if old else {}), **attrs}, source, now,
                       old.verified_ms if old else now, old.merged_into if old else None)
            self.pool[p.anchor_id] = a
            self.l2.write(records.upsert_anchor, a.as_row())
        for form in p.address_forms():
            self.add_alias(form, p.anchor_id, source)
        return self.pool[p.anchor_id]

    def add_alias(self, alias: str, anchor_id: str, source: str = "learnt") -> None:
        """Map a normalised mention to an anchor (kept in L2)."""
        form = normalize_mention(alias)
        ids = self._aliases.setdefault(form, set())
        if anchor_id not in ids:
            ids.add(anchor_id)
            self.l2.write(records.upsert_alias, form, anchor_id, source)

    def get(self, anchor_id: str) -> Anchor | None:
        """The anchor, following merges to the survivor."""
        a = self.pool.get(anchor_id)
        hops = 0
        while a is not None and a.merged_into and hops < 16:
            a = self.pool.get(a.merged_into)
            hops += 1
        return a

    # -- resolution -----------------------------------------------------------

    def bind(self, session_id: str, mention: str, anchor_id: str) -> None:
        """Remember in this session that ``mention`` means ``anchor_id`` (e.g. after the user chose)."""
        self._sessions.setdefault(session_id, {})[normalize_mention(mention)] = (
            anchor_id, self.clock() + self.mention_ttl_s)

    def forget_session(self, session_id: str) -> None:
        """Drop a closed session's mention cache."""
        self._sessions.pop(session_id, None)

    def prune_mentions(self) -> int:
        """Drop expired mention bindings (and empty sessions); returns how many were dropped."""
        now = self.clock()
        dropped = 0
        for sid in list(self._sessions):
            cache = self._sessions[sid]
            for form in [f for f, (_, exp) in cache.items() if exp <= now]:
                del cache[form]
                dropped += 1
            if not cache:
                del self._sessions[sid]
        return dropped

    async def resolve(self, mention: str, *, session_id: str = "", type: str = "person",
                      context: dict[str, Any] | None = None, fuzzy: bool = True) -> Resolution:
        """Map a mention to an anchor (see the module docstring for the order). Never raises."""
        ctx = {k: v for k, v in (context or {}).items() if v}
        form = normalize_mention(mention)
        cached = self._sessions.get(session_id, {}).get(form)
        if cached is not None:
            anchor_id, expires = cached
            if self.clock() < expires and self.get(anchor_id) is not None:
                return self._resolved(mention, self.get(anchor_id), "session", session_id)  # type: ignore[arg-type]
            self._sessions[session_id].pop(form, None)
        steps: list[tuple[str, Callable[[], Awaitable[list[Anchor]]]]] = [
            ("alias", lambda: self._by_alias(form, type)),
            ("directory", lambda: self._by_lookup(mention)),
            ("fuzzy", lambda: self._by_fuzzy(form, type)),
        ]
        if not fuzzy:  # the caller is under load: exact steps only
            steps.pop()
        for via, step in steps:
            found = self._narrow(await step(), ctx)
            if len(found) == 1:
                return self._resolved(mention, found[0], via, session_id)
            if len(found) > 1:
                cands = [self.candidate(a) for a in sorted(found, key=lambda a: a.anchor_id)[:MAX_CANDIDATES]]
                log.info("anchor ambiguous", extra={"kv": {"mention": mention, "candidates": len(cands)}})
                return Resolution(mention, "ambiguous", None, cands, marked(mention), via)
        if ctx.get("email") or ctx.get("dept"):
            a = await self.create(mention, type=type, attributes=ctx)
            return self._resolved(mention, a, "created", session_id)
        return Resolution(mention, "unresolved", None, [], marked(mention), "")

    def candidate(self, a: Anchor) -> dict[str, Any]:
        """One choice of a clarification card, with what the card shows and an answer may name.

        ``display`` (张伟) and ``display_en`` (Zhang Wei: a Latin alias, else the name); ``dept``
        (the code, ``sales``) with ``dept_name`` / ``dept_name_en`` (销售部 / Sales) and
        ``dept_aliases`` (销售, sales team …) from the directory's ``departments``; ``title``,
        ``email``. Missing values are ``""`` (``[]`` for the aliases), never absent.
        """
        attrs = a.attributes
        code = str(attrs.get("dept", ""))
        dept = self.directory.departments.get(code) if self.directory is not None and code else None
        person = self.directory.get(a.anchor_id) if self.directory is not None else None
        return {"anchor_id": a.anchor_id, "display": a.display,
                "display_en": person.display_en if person is not None else a.display,
                "dept": code,
                "dept_name": str(attrs.get("dept_name") or (dept.zh if dept else "")),
                "dept_name_en": str(attrs.get("dept_name_en") or (dept.en if dept else "")),
                "dept_aliases": list(dept.aliases) if dept else [],
                "title": str(attrs.get("title", "")), "email": str(attrs.get("email", ""))}

    def _resolved(self, mention: str, a: Anchor, via: str, session_id: str) -> Resolution:
        if session_id:
            self.bind(session_id, mention, a.anchor_id)
        person = self.directory.get(a.anchor_id) if self.directory is not None else None
        latin = person.display_en if person is not None else a.display
        shown_en = a.display if latin == a.display else f"{latin} ({a.display})"
        return Resolution(mention, "resolved", a.anchor_id, [], a.display, via, shown_en)

    async def _by_alias(self, form: str, type: str) -> list[Anchor]:
        return self._live(self._aliases.get(form, ()), type)

    async def _by_lookup(self, mention: str) -> list[Anchor]:
        if self.lookup is None:
            return []
        try:
            people = await asyncio.wait_for(self.lookup(mention), self.lookup_deadline_s)
        except Exception as exc:  # a slow or broken directory never fails a turn
            log.warning("directory lookup failed", extra={"kv": {"mention": mention, "error": repr(exc)}})
            return []
        return [self._import_person(p, "directory_tool") for p in people]

    async def _by_fuzzy(self, form: str, type: str) -> list[Anchor]:
        cn = cn_address_form(form)
        if cn is not None:
            surname = cn[0]
            return [a for a in self._live(self.pool, type) if a.display.startswith(surname)]
        close = difflib.get_close_matches(form, list(self._aliases), n=5, cutoff=FUZZY_RATIO)
        return self._live({i for c in close for i in self._aliases[c]}, type)

    def _live(self, ids: Any, type: str) -> list[Anchor]:
        out: dict[str, Anchor] = {}
        for i in ids:
            a = self.get(i)
            if a is not None and a.type == type:
                out[a.anchor_id] = a
        return list(out.values())

    @staticmethod
    def _narrow(found: list[Anchor], ctx: dict[str, Any]) -> list[Anchor]:
        for k in ("email", "phone", "dept"):
            if ctx.get(k) and len(found) > 1:
                want = normalize_mention(str(ctx[k]))
                hit = [a for a in found if want in (normalize_mention(str(a.attributes.get(k, ""))),
                                                    normalize_mention(str(a.attributes.get(k + "_name", ""))),
                                                    normalize_mention(str(a.attributes.get(k + "_name_en", ""))))]
                if hit:
                    found = hit
        return found

    # -- creation, merge, verification ---------------------------------------------

    async def create(self, mention: str, *, type: str = "person", attributes: dict[str, Any] | None = None) -> Anchor:
        """Create an anchor for a first mention with context; the mention becomes its alias.

        Id: ``<type>:<dept or "unknown">/<slug>`` where slug is the e-mail's local part
        (``[a-z0-9._-]``) or a short hash of the mention; ``-2``, ``-3`` … on collision.
        """
        attrs = dict(attributes or {})
        dept = _slug(str(attrs.get("dept", ""))) or "unknown"
        local = _slug(str(attrs.get("email", "")).split("@")[0])
        slug = local or hashlib.blake2b(normalize_mention(mention).encode(), digest_size=4).hexdigest()
        base = f"{type}:{dept}/{slug}"
        anchor_id, n = base, 1
        while anchor_id in self.pool:
            n += 1
            anchor_id = f"{base}-{n}"
        now = self.now_ms()
        a = Anchor(anchor_id, type, mention, attrs, "mention", now, now)
        self.pool[anchor_id] = a
        await self.l2.awrite(records.upsert_anchor, a.as_row())
        self.add_alias(mention, anchor_id, "mention")
        if attrs.get("email"):
            self.add_alias(str(attrs["email"]), anchor_id, "mention")
        log.info("anchor created", extra={"kv": {"anchor": anchor_id}})
        return a

    async def merge(self, old: str, new: str) -> dict[str, int]:
        """Merge anchor ``old`` into ``new``: memories, events and aliases move, nothing is lost.

        :raises KeyError: either anchor is unknown.
        """
        a_old, a_new = self.pool[old], self.pool[new]
        counts = await self.l2.awrite(records.merge_anchor, old, new)
        a_old.merged_into = new
        a_new.attributes = {**a_old.attributes, **a_new.attributes}
        a_new.last_updated_ms = self.now_ms()
        await self.l2.awrite(records.upsert_anchor, a_new.as_row())
        for ids in self._aliases.values():
            if old in ids:
                ids.discard(old)
                ids.add(new)
        log.info("anchors merged", extra={"kv": {"old": old, "new": new, **counts}})
        return counts

    async def reverify(self, cutoff_ms: int) -> list[tuple[str, str]]:
        """Re-check person anchors last verified before ``cutoff_ms`` against the directory.

        :return: ``[(anchor_id, "verified" | "stale")]``; stale anchors get ``attributes.stale = True``.
        """
        out: list[tuple[str, str]] = []
        now = self.now_ms()
        for a in list(self.pool.values()):
            if a.type != "person" or a.merged_into or a.verified_ms >= cutoff_ms:
                continue
            ok = self.directory is not None and (
                self.directory.get(a.anchor_id) is not None
                or bool(a.attributes.get("email") and self.directory.lookup(str(a.attributes["email"]))))
            if ok:
                a.verified_ms = now
                a.attributes.pop("stale", None)
            else:
                a.attributes["stale"] = True
            a.last_updated_ms = now
            self.l2.write(records.upsert_anchor, a.as_row())
            out.append((a.anchor_id, "verified" if ok else "stale"))
        return out


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9._-]+", "", text.lower())
