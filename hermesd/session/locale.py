"""BCP 47 language tags (what apps send as ``locale``) → the session language, ``zh`` or ``en``.

Sources: RFC 5646 §2.1 (the ``langtag`` grammar: language, script, region,
variants, extensions, private use; tags are case-insensitive) and the IANA
language subtag registry (``Hans``/``Hant`` are the Simplified and Traditional
Han scripts, ``Latn`` Latin). Pure: no I/O.

::

    >>> session_language("zh-Hans-CN"), session_language("zh-TW"), session_language("en-US")
    ('zh', 'zh', 'en')

Both Chinese scripts map to ``zh``: the NLU normalises Traditional characters
itself, and the session's language decides only which reply templates are used.
"""

from __future__ import annotations

import re

from .. import lazyre

__all__ = ["UnknownLocale", "session_language"]

# RFC 5646 §2.1 langtag (the grandfathered irregular tags are not languages hermesd speaks)
_LANGTAG = lazyre.compile(
    r"""^(?P<language>[a-z]{2,3}(?:-[a-z]{3}){0,3}|[a-z]{4}|[a-z]{5,8})
        (?:-(?P<script>[a-z]{4}))?
        (?:-(?P<region>[a-z]{2}|[0-9]{3}))?
        (?P<variants>(?:-(?:[a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*)
        (?P<extensions>(?:-[0-9a-wyz](?:-[a-z0-9]{2,8})+)*)
        (?:-x(?:-[a-z0-9]{1,8})+)?$""",
    re.VERBOSE,
)
#: primary language subtag → (session language, scripts it may be written in here)
_LANGUAGES = {"zh": ("zh", ("hans", "hant")), "en": ("en", ("latn",))}
_SPOKEN = "Chinese (zh, zh-CN, zh-Hans-CN, zh-TW, zh-Hant) or English (en, en-US, en-GB)"


class UnknownLocale(ValueError):
    """A tag that is not BCP 47, or names a language (or script) hermesd does not speak."""


def session_language(tag: str) -> str:
    """Map a BCP 47 tag to the session language.

    :param tag: e.g. ``zh``, ``zh-CN``, ``zh-Hans-CN``, ``zh-TW``, ``zh-Hant``, ``en``, ``en-US``;
        case-insensitive (RFC 5646 §2.1.1).
    :return: ``"zh"`` or ``"en"``.
    :raises UnknownLocale: not a well-formed tag, another language (``fr-FR``), or a script the
        language is not read in here (``zh-Latn``, pinyin); the message says what is accepted.
    """
    if not isinstance(tag, str) or not tag.strip():
        raise UnknownLocale(f"locale must be a BCP 47 language tag such as zh-CN or en-US; hermesd speaks {_SPOKEN}")
    m = _LANGTAG.match(tag.strip().lower())
    if m is None:
        hint = " (BCP 47 separates subtags with '-', e.g. zh-CN)" if "_" in tag else ""
        raise UnknownLocale(f"{tag!r} is not a BCP 47 language tag{hint}; hermesd speaks {_SPOKEN}")
    spec = _LANGUAGES.get(m["language"].split("-")[0])  # zh-cmn: an extended language subtag of zh
    if spec is None:
        raise UnknownLocale(f"unsupported locale {tag!r}: hermesd speaks {_SPOKEN}")
    language, scripts = spec
    if m["script"] is not None and m["script"] not in scripts:
        raise UnknownLocale(f"unsupported locale {tag!r}: script {m['script'].title()} is not read here; "
                            f"hermesd speaks {_SPOKEN}")
    return language
