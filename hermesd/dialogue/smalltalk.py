"""Answers to small talk (greeting, thanks, goodbye, who are you, what can you do), zh and en.

The capability list is not written here: the caller passes the loaded packs'
intents grouped by pack (:func:`capability_lines`), so a new pack shows up in
"你能做什么" without touching this module.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

__all__ = ["capabilities", "capability_lines", "smalltalk_reply"]

_REPLIES: dict[str, dict[str, str]] = {
    "greeting": {"zh": "你好！我是 hermesd，有什么可以帮你？", "en": "Hello! I am hermesd. What can I do for you?"},
    "thanks": {"zh": "不客气，还有别的需要吗？", "en": "You're welcome. Anything else?"},
    "goodbye": {"zh": "再见，有事随时找我。", "en": "Goodbye. I am here whenever you need me."},
    "identity": {"zh": "我是 hermesd，这台设备上的助手，不联网也能用。",
                 "en": "I am hermesd, the assistant on this device; I work offline."},
}
_CAPS_HEAD = {"zh": "我可以帮你：", "en": "I can help with:"}
_SEP = {"zh": "、", "en": ", "}


def capability_lines(groups: Mapping[str, Sequence[str]], lang: str) -> list[str]:
    """One line per pack: ``"<pack>：a、b、c"`` / ``"<pack>: a, b, c"``.

    :param groups: pack display name → the display names of its intents, in pack order.
    """
    colon = "：" if lang == "zh" else ": "
    return [f"{pack}{colon}{_SEP['zh' if lang == 'zh' else 'en'].join(names)}" for pack, names in groups.items() if names]


def capabilities(specs: Iterable[Any], titles: Mapping[str, Mapping[str, str]], lang: str) -> list[str]:
    """"What can you do" from the loaded intents: each spec's ``description`` in ``lang``, grouped by
    its ``pack`` under the pack's title (generated from the packs, never hand-written).

    :param specs: intent specs with ``pack`` and ``description`` (language → text); those without a
        description are not listed. :param titles: pack → language → title.
    """
    key = "zh" if lang == "zh" else "en"
    groups: dict[str, list[str]] = {}
    for spec in specs:
        desc = getattr(spec, "description", None) or {}
        name = desc.get(key) or desc.get("en")
        if not name:
            continue
        pack = getattr(spec, "pack", "") or ""
        title = (titles.get(pack) or {}).get(key) or (titles.get(pack) or {}).get("en") or pack
        groups.setdefault(title, []).append(name)
    return capability_lines(groups, lang)


def smalltalk_reply(kind: str, lang: str, capabilities: Iterable[str] = ()) -> str:
    """The answer to small talk ``kind`` (one of :data:`hermesd.dialogue.heard.SMALLTALK`).

    :param capabilities: lines of :func:`capability_lines`, for ``capabilities``.
    :raises KeyError: unknown kind.
    """
    key = "zh" if lang == "zh" else "en"
    if kind == "capabilities":
        lines = list(capabilities)
        if not lines:
            return {"zh": "现在没有加载任何功能包。", "en": "No skill packs are loaded right now."}[key]
        return "\n".join([_CAPS_HEAD[key], *lines])
    return _REPLIES[kind][key]
