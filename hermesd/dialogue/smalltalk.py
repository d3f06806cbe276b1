"""Answers to small talk (greeting, thanks, goodbye, who are you, what can you do), zh and en.

The sentences live in :mod:`.catalogue`; the capability list is not written anywhere: the caller passes the loaded packs'
intents grouped by pack (:func:`capability_lines`), so a new pack shows up in
"你能做什么" without touching this module.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from .catalogue import say

__all__ = ["capabilities", "capability_lines", "smalltalk_reply"]

_SEP = {"zh": "、", "en": ", "}


def capability_lines(groups: Mapping[str, Sequence[str]], lang: str) -> list[str]:
    """One line per pack: ``"<pack>：a、b、c"`` / ``"<pack>: a, b, c"``.

    :param groups: pack display name → the display names of its intents, in pack order.
    """
    colon = "：" if lang == "zh" else ": "
    return [f"{pack}{colon}{_SEP['zh' if lang == 'zh' else 'en'].join(names)}" for pack, names in groups.items() if names]


def capabilities(specs: Iterable[Any], titles: Mapping[str, Mapping[str, str]], lang: str,
                 does: Callable[[str], bool] | None = None, memory: bool = False) -> list[str]:
    """"What can you do" from the loaded intents: each spec's ``description`` in ``lang``, grouped by
    its ``pack`` under the pack's title (generated from the packs, never hand-written).

    :param specs: intent specs with ``pack`` and ``description`` (language → text); those without a
        description are not listed. :param titles: pack → language → title.
    :param does: intent name → whether its rules do it (call a tool, ask, confirm, hand off, say
        something filled in); an intent that is only a fixed sentence — a refusal such as "there is no
        shutdown function here" — is not listed. None lists every described intent.
    :param memory: the session keeps and recalls facts the user tells it: a line for that is added.
    """
    key = "zh" if lang == "zh" else "en"
    groups: dict[str, list[str]] = {}
    for spec in specs:
        desc = getattr(spec, "description", None) or {}
        name = desc.get(key) or desc.get("en")
        if not name or (does is not None and not does(spec.name)):
            continue
        pack = getattr(spec, "pack", "") or ""
        title = (titles.get(pack) or {}).get(key) or (titles.get(pack) or {}).get("en") or pack
        groups.setdefault(title, []).append(name)
    if memory:
        groups.setdefault(say("capabilities_memory_title", lang), []).append(say("capabilities_memory", lang))
    return capability_lines(groups, lang)


def smalltalk_reply(kind: str, lang: str, capabilities: Iterable[str] = ()) -> str:
    """The answer to small talk ``kind`` (one of :data:`hermesd.dialogue.heard.SMALLTALK`).

    :param capabilities: lines of :func:`capability_lines`, for ``capabilities``.
    :raises KeyError: unknown kind.
    """
    if kind == "capabilities":
        lines = list(capabilities)
        if not lines:
            return say("capabilities_none", lang)
        return "\n".join([say("capabilities_head", lang), *lines])
    return say(f"smalltalk_{kind}", lang)
