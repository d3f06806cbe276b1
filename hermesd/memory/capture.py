"""Capture rules (from the packs) and the capture record of one committed turn (pure).

The Memory Control Protocol keeps only what carries an entity, an explicit
memory verb, or a structured tool result (DESIGN.md, MCP). Which entity types
count, which verbs, and which fields of a tool's output are kept are *capture
rules*: the shipped ``config/capture/default.yaml`` plus the files a pack names in
``session.capture_files`` — read in order, each adding to the last (never
removing), re-read on SIGHUP like rule packs. :func:`turn_record` turns a turn
into the dict :func:`hermesd.memory.compress.compress` takes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

import yaml

from ..section import shipped_path
from .compress import MEMORY_VERBS

__all__ = ["CaptureRules", "DEFAULT_RULES_FILE", "load_capture_rules", "turn_record"]

#: libyaml's parser when PyYAML has it (several times faster at start), the same safe constructors
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

DEFAULT_RULES_FILE = shipped_path("config", "capture", "default.yaml")
#: a tool output field longer than this (characters) is not an id, status or amount: not kept
FIELD_MAX_CHARS = 120


@dataclass(frozen=True, slots=True)
class CaptureRules:
    """What makes a turn worth remembering.

    :param memory_verbs: explicit memory verbs, matched case-insensitively as substrings.
    :param entity_types: entity types whose mention makes a turn worth capturing.
    :param tool_fields: output fields of a tool result that are kept (ids, statuses, amounts).
    :param object_fields: output/param fields naming the object a tool acted on, first found wins.
    """

    memory_verbs: tuple[str, ...] = MEMORY_VERBS
    entity_types: frozenset[str] = frozenset()
    tool_fields: tuple[str, ...] = ()
    object_fields: tuple[str, ...] = ()
    files: tuple[str, ...] = field(default=(), compare=False)


def _strings(v: Any, where: str) -> list[str]:
    if v is None:
        return []
    if not isinstance(v, list) or not all(isinstance(x, str) and x.strip() for x in v):
        raise ValueError(f"{where}: expected a list of words")
    return [x.strip() for x in v]


def load_capture_rules(paths: Iterable[Path | str] = ()) -> CaptureRules:
    """The shipped rules, then each of ``paths`` added in order.

    :raises ValueError: a file is missing, not YAML, or has an unknown key or a non-list value
        (the message names the file and key).
    """
    verbs: list[str] = []
    types: set[str] = set()
    fields_: list[str] = []
    objects: list[str] = []
    files = [DEFAULT_RULES_FILE, *(Path(p) for p in paths)]
    for path in files:
        try:
            doc = yaml.load(Path(path).read_text(encoding="utf-8"), Loader=_YAML_LOADER) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise ValueError(f"capture rules {path}: {exc}") from None
        if not isinstance(doc, dict):
            raise ValueError(f"capture rules {path}: expected a mapping")
        unknown = set(doc) - {"memory_verbs", "entity_types", "tool_fields", "object_fields"}
        if unknown:
            raise ValueError(f"capture rules {path}: unknown keys {sorted(unknown)}")
        verbs += [v.lower() for v in _strings(doc.get("memory_verbs"), f"{path}: memory_verbs")]
        types |= set(_strings(doc.get("entity_types"), f"{path}: entity_types"))
        fields_ += _strings(doc.get("tool_fields"), f"{path}: tool_fields")
        objects += _strings(doc.get("object_fields"), f"{path}: object_fields")
    # longest verb first, so 下次提醒 wins over 下次 when the note is cut after the verb
    return CaptureRules(tuple(sorted(dict.fromkeys(verbs), key=len, reverse=True)), frozenset(types),
                        tuple(dict.fromkeys(fields_)), tuple(dict.fromkeys(objects)), tuple(map(str, files)))


def _value_text(e: Mapping[str, Any]) -> str:
    v = e.get("value")
    if isinstance(v, dict):
        if "amount" in v:
            return f"{v.get('amount')} {v.get('currency') or ''}".strip()
        return str(e.get("text") or "")
    return str(v if v is not None else e.get("text") or "")


def _anchor(e: Mapping[str, Any], anchors: Mapping[str, str]) -> str | None:
    t = str(e.get("type"))
    if t == "person":
        return anchors.get(str(e.get("value"))) or anchors.get(str(e.get("text")))
    if t in ("order_id", "ticket_id", "doc_id", "email", "phone"):
        return f"{t}:{_value_text(e)}"
    return None


def turn_record(rules: CaptureRules, *, text: str, intent: str | None, entities: Iterable[Mapping[str, Any]],
                anchors: Mapping[str, str], tool_results: Iterable[tuple[str, Mapping[str, Any], Mapping[str, Any]]],
                kind: str = "") -> dict[str, Any]:
    """The capture input of a turn: ``{text, intent, entities: [{type, value, anchor?}], tool_result?}``.

    :param entities: the parse's entities (``Entity.to_dict()``); only ``rules.entity_types`` are kept.
    :param anchors: the turn's shown name → anchor id (person mentions grounded this turn).
    :param tool_results: ``(tool, params, output)`` of the tools the turn ran; the last with an
        object or a kept field becomes ``tool_result`` (``action`` = the tool).
    :param kind: the document kind said this turn (the tool result's ``object_kind``).
    """
    ents = []
    for e in entities:
        if e.get("type") not in rules.entity_types:
            continue
        item = {"type": str(e["type"]), "value": _value_text(e)}
        a = _anchor(e, anchors)
        if a:
            item["anchor"] = a
        ents.append(item)
    out: dict[str, Any] = {"text": text, "intent": intent, "entities": ents}
    for tool, params, output in tool_results:
        tr = _tool_result(rules, tool, params, output, anchors, kind)
        if tr is not None:
            out["tool_result"] = tr
    return out


def _tool_result(rules: CaptureRules, tool: str, params: Mapping[str, Any], output: Mapping[str, Any],
                 anchors: Mapping[str, str], kind: str) -> dict[str, Any] | None:
    kept = {f: output[f] for f in rules.tool_fields
            if isinstance(output.get(f), (str, int, float)) and not isinstance(output.get(f), bool)
            and len(str(output[f])) <= FIELD_MAX_CHARS}
    obj = next((str(src[f]) for f in rules.object_fields for src in (output, params)
                if isinstance(src.get(f), (str, int)) and str(src[f])), "")
    if not kept and not obj:
        return None
    who = params.get("recipient") or params.get("person")
    target = anchors.get(who) if isinstance(who, str) else None
    return {"action": tool, "object": obj, "object_kind": kind, "target_anchor": target or "",
            "status": str(kept.get("status", "ok")), "fields": kept}


def stage_fact(core: Any, uid: int, source: str, anchor: str, data: dict[str, Any], *, detail: str,
               trace_id: str = "") -> Any:
    """Stage an explicit fact of ``uid`` (class ``person``, key ``user:<uid>``) in L1 with its three
    audit rows (capture, compress, decay); returns the :class:`~.mcp.Staged` to write in the turn's
    transaction. ``detail`` carries the revision (and the value it replaced)."""
    from .mcp import Staged, _nbytes  # the core imports this module's neighbours; keep the cycle lazy

    size = _nbytes(data)
    summary = f"{data.get('subject', '')} {data.get('value', '')}".strip()
    row, slot = core.stage_put(uid, f"user:{uid}", anchor, data, memory_class="person", summary=summary,
                               keywords=summary, actions=["remember"], size_before=size)
    tier = "memory_l1" if slot is not None else "memory_l2"
    audits = [core.audit_row("capture", source, "memory", size, size, uid=uid, subject=anchor, detail=detail,
                             trace_id=trace_id, defer=True),
              core.audit_row("compress", source, tier, size, row["size_after"], uid=uid, subject=anchor,
                             detail=f"version={row['version']}", trace_id=trace_id, defer=True),
              core.audit_row("decay", source, tier, row["size_after"], row["size_after"], uid=uid, subject=anchor,
                             detail=f"class=person {core._decay_rule('person')}", trace_id=trace_id, defer=True)]
    return Staged(row, audits, "memory_verb", None, tier)  # type: ignore[arg-type]
