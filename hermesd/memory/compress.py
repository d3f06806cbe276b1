"""Capture rule and deterministic compression of a turn into ``{summary, entities, actions}``.

Pure functions, no I/O, no LLM. A turn is captured only when it carries an
entity, an explicit memory verb, or a structured tool result (DESIGN.md, MCP).
The summary follows the reference design's template
``用户X在Y时间执行Z操作，结果为W``; keywords are the entity values, the object,
its kind and the target anchor, so the trigram index finds them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timezone, tzinfo
from typing import Any

from .facts import transient

__all__ = ["MEMORY_VERBS", "Compressed", "capture_reason", "compress"]

#: explicit memory verbs (zh + en); matched case-insensitively as substrings.
MEMORY_VERBS: tuple[str, ...] = ("记住", "别忘了", "下次提醒", "提醒我", "下次", "remember", "don't forget",
                                 "note that", "remind me")
#: longest free-text remainder kept from a memory-verb turn, in characters.
NOTE_MAX_CHARS = 120


@dataclass(frozen=True, slots=True)
class Compressed:
    """A compressed memory.

    :param summary: one sentence from the template.
    :param entities: entity type → list of values (strings).
    :param actions: actions performed (``send``, ``remember``, an intent name …).
    :param keywords: space-separated search keywords.
    :param anchor: the key the memory is filed under (first anchored entity,
        the tool result's target, or ``turn:<hash>``: a captured turn about nobody — never ``note:``,
        the key of a note the person asked to keep, which a list of what they told says back).
    :param summary_en: the template's English twin ("user X did Z at Y, result: W").
    """

    summary: str
    entities: dict[str, list[str]]
    actions: list[str]
    keywords: str
    anchor: str
    summary_en: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"summary": self.summary, "summary_en": self.summary_en, "entities": self.entities,
                "actions": self.actions}


def memory_verb(text: str, verbs: tuple[str, ...] = MEMORY_VERBS) -> str | None:
    """The first of ``verbs`` (default :data:`MEMORY_VERBS`; a pack's capture rules bring their own)
    found in ``text``, or None."""
    low = text.lower()
    for verb in verbs:
        if verb in low:
            return verb
    return None


def capture_reason(turn: dict[str, Any], verbs: tuple[str, ...] = MEMORY_VERBS) -> str | None:
    """Why ``turn`` is worth remembering: ``tool_result``, ``memory_verb``, ``entity``, or None.

    A turn that carries only entities, asked nothing (no intent) and tells a passing state
    (:func:`~.facts.transient`: 今天好累, "I'm so tired today") is not kept.

    :param turn: ``{text?, entities?: [{type, value, anchor?}], intent?, tool_result?: {...}}``.
    :param verbs: the explicit memory verbs (the capture rules').
    """
    if isinstance(turn.get("tool_result"), dict):
        return "tool_result"
    if memory_verb(turn.get("text") or "", verbs):
        return "memory_verb"
    if turn.get("entities") and not (turn.get("intent") is None and transient(turn.get("text") or "")):
        # "今天好累" names a day, but asks nothing and tells a passing state: not worth remembering
        return "entity"
    return None


def compress(turn: dict[str, Any], *, uid: int, at_ms: int, tz: tzinfo = timezone.utc,
             verbs: tuple[str, ...] = MEMORY_VERBS) -> Compressed:
    """Compress a captured turn.

    :param turn: see :func:`capture_reason`; ``tool_result`` may hold ``action``,
        ``object``, ``object_kind``, ``target_anchor``, ``status``.
    :param uid: the user, for the template's 用户X.
    :param at_ms: when it happened (ms since epoch); rendered in ``tz``.
    """
    ents: dict[str, list[str]] = {}
    anchors: list[str] = []
    for e in turn.get("entities") or []:
        value = str(e.get("value", ""))
        ents.setdefault(str(e.get("type", "entity")), []).append(value)
        if e.get("anchor"):
            anchors.append(str(e["anchor"]))
    when = datetime.fromtimestamp(at_ms / 1000, tz).strftime("%Y-%m-%d %H:%M")
    text = (turn.get("text") or "").strip()
    tr = turn.get("tool_result")
    words: list[str] = []
    if isinstance(tr, dict):
        action = str(tr.get("action") or turn.get("intent") or "tool")
        obj, kind, target = str(tr.get("object", "")), str(tr.get("object_kind", "")), str(tr.get("target_anchor", ""))
        status = str(tr.get("status", "ok"))
        result = " ".join(x for x in (status, kind, obj, f"→{target}" if target else "") if x)
        words += [obj, kind, target]
        if target:
            anchors.insert(0, target)
    elif (verb := memory_verb(text, verbs)) is not None:
        action = "remember"
        i = text.lower().find(verb)
        result = (text[i + len(verb):].strip(" ，,：:") or text)[:NOTE_MAX_CHARS]
        words.append(result)
    else:
        action = str(turn.get("intent") or "mention")
        result = "、".join(v for vs in ents.values() for v in vs)
    words += [v for vs in ents.values() for v in vs] + anchors
    summary = f"用户{uid}在{when}执行{action}操作，结果为{result}"
    summary_en = f"user {uid} did {action} at {when}, result: {result}"
    keywords = " ".join(dict.fromkeys(w for w in words if w))
    # a turn about nobody is filed as a turn: "note:" is the person's own notes (memory.remember), whose
    # value a list says back — a captured turn has none, and was listed as an empty item
    anchor = anchors[0] if anchors else "turn:" + _stable_hash(summary)
    return Compressed(summary, ents, [action], keywords, anchor, summary_en)


def _stable_hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()
