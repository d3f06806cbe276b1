"""Role-filtered fields: what a role may not see is taken out of an item and of its derived text.

``memory.hidden_fields`` (config) maps a role to dotted field paths; every path that shows memory
to a caller (``memory.search`` / ``memory.get``, a recall reply, a trace) passes the item through
:func:`hide` first.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["hide"]

_DERIVED = ("keywords", "summary", "snippet")


def hide(obj: Any, paths: list[str]) -> Any:
    """A copy of ``obj`` (dict or list of dicts) without the dotted ``paths`` — and without their values
    in the item's derived text (``keywords``, ``summary``, ``snippet``), so a hidden field never comes
    back through a search result's keywords."""
    if not paths:
        return obj
    if isinstance(obj, list):
        return [hide(o, paths) for o in obj]
    out = copy.deepcopy(obj)
    removed: list[str] = []
    for path in paths:
        node, parts = out, path.split(".")
        for p in parts[:-1]:
            node = node.get(p) if isinstance(node, dict) else None
        if isinstance(node, dict) and parts[-1] in node:
            removed.extend(_leaves(node.pop(parts[-1])))
    if removed and isinstance(out, dict):
        _scrub(out, sorted({r for r in removed if r}, key=len, reverse=True))
    return out


def _leaves(v: Any) -> list[str]:
    if isinstance(v, dict):
        return [x for item in v.values() for x in _leaves(item)]
    if isinstance(v, (list, tuple)):
        return [x for item in v for x in _leaves(item)]
    return [str(v)] if isinstance(v, (str, int, float)) and not isinstance(v, bool) else []


def _scrub(node: dict[str, Any], values: list[str]) -> None:
    for key, v in list(node.items()):
        if key in _DERIVED and isinstance(v, str):
            if key == "keywords":
                node[key] = " ".join(w for w in v.split() if w not in values and not any(x in w for x in values))
            else:
                for x in values:
                    v = v.replace(x, "***")
                node[key] = v
        elif isinstance(v, dict):
            _scrub(v, values)
