"""Loading intent packs (``config/intents/*.yaml``) — the only file reading of the NLU, done at start.

A pack::

    pack: office
    gazetteers: {doc_type: {报价单: quote, quote: quote}}
    intents:
      - name: doc.send
        slots: {doc: doc_type, person: person}
        templates: [把{doc}发给{person}, send the {doc} to {person}]
        keywords: [发给, send]
        examples: [把报价单发给张工, send the quote to Mr. Smith]
    out_of_scope: [讲个笑话, what's the capital of France]   # trains the "oos" class
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import yaml

from .. import yamlkeys
from ..errors import InputInvalid
from .intents import IntentSpec

__all__ = ["OOS_LABEL", "Packs", "load_packs", "read_packs"]


#: training label of a pack's ``out_of_scope`` examples (things no intent should claim).
OOS_LABEL = "oos"


@dataclass(slots=True)
class Packs:
    """All intents and gazetteers of the loaded packs. :param files: the files read, in order."""

    intents: list[IntentSpec] = field(default_factory=list)
    gazetteers: dict[str, dict[str, str]] = field(default_factory=dict)
    out_of_scope: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    #: pack name → language → display title ("设备", "Device"), in load order
    titles: dict[str, dict[str, str]] = field(default_factory=dict)

    def examples(self) -> list[tuple[str, str]]:
        """``(text, intent)`` training pairs; out-of-scope examples carry :data:`OOS_LABEL`."""
        return [(e, s.name) for s in self.intents for e in s.examples] + [(t, OOS_LABEL) for t in self.out_of_scope]


def _strs(v: Any, where: str) -> tuple[str, ...]:
    if v is None:
        return ()
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise InputInvalid(f"{where}: expected a list of strings")
    return tuple(v)


def _lang_map(v: Any, default: str) -> dict[str, str]:
    """``{zh: …, en: …}`` from a mapping, or a plain string (taken as English); empty when absent."""
    if isinstance(v, dict):
        return {str(k): str(x) for k, x in v.items()}
    if isinstance(v, str):
        return {"en": v}
    return {"en": default} if default else {}


def load_packs(dirs: Iterable[Path | str]) -> Packs:
    """Read every ``*.yaml`` in ``dirs`` (sorted by name) into one :class:`Packs`.

    :raises InputInvalid: a file is not valid YAML, has unknown keys, or defines an intent twice;
        ``data.violations`` lists every problem found.
    """
    out, problems = read_packs(dirs)
    if problems:
        # every problem in the message too: the daemon's start-up failure line says what to fix
        raise InputInvalid(f"intent packs are invalid ({len(problems)} error(s)): " + "; ".join(problems),
                           data={"violations": problems})
    return out


def read_packs(dirs: Iterable[Path | str]) -> tuple[Packs, list[str]]:
    """What :func:`load_packs` reads, never raising: the packs of every intent that loaded and every
    problem found, in file order (``path: where: what`` sentences). Never raises for a bad file."""
    out = Packs()
    problems: list[str] = []
    seen: dict[str, str] = {}
    for d in dirs:
        for path in sorted(Path(d).glob("*.yaml")):
            try:
                doc, duplicates = yamlkeys.load(path.read_text(encoding="utf-8"))
                doc = doc or {}
            except yaml.YAMLError as exc:
                problems.append(f"{path}: {exc}")
                continue
            except (OSError, UnicodeDecodeError) as exc:
                problems.append(f"{path}: cannot read as UTF-8 text ({exc})")
                continue
            # each key said twice is an error (the last would silently win), the rest of the file still read
            problems += [f"{path}:{d.line}: {d.path}: {d.message()}" for d in duplicates]
            if not isinstance(doc, dict):
                problems.append(f"{path}: expected a mapping (pack, title, gazetteers, intents, out_of_scope)")
                continue
            out.files.append(str(path))
            unknown = set(doc) - {"pack", "title", "gazetteers", "intents", "out_of_scope"}
            if unknown:
                problems.append(f"{path}: unknown keys {sorted(unknown)}")
            pack = str(doc.get("pack") or path.stem)
            out.titles.setdefault(pack, {}).update(_lang_map(doc.get("title"), pack))
            for typ, terms in (doc.get("gazetteers") or {}).items():
                if not isinstance(terms, dict):
                    problems.append(f"{path}: gazetteers.{typ} must map surface form → canonical term")
                    continue
                out.gazetteers.setdefault(typ, {}).update({str(k): str(v) for k, v in terms.items()})
            try:
                out.out_of_scope.extend(_strs(doc.get("out_of_scope"), f"{path}: out_of_scope"))
            except InputInvalid as exc:
                problems.append(exc.message)
            for i, it in enumerate(doc.get("intents") or []):
                where = f"{path}: intents[{i}]"
                try:
                    if not isinstance(it, dict) or not isinstance(it.get("name"), str):
                        raise InputInvalid(f"{where}: needs a name")
                    bad = set(it) - {"name", "slots", "templates", "keywords", "examples", "description"}
                    if bad:
                        raise InputInvalid(f"{where}: unknown keys {sorted(bad)}")
                    if it["name"] in seen:
                        raise InputInvalid(f"{where}: intent {it['name']} already defined in {seen[it['name']]}")
                    seen[it["name"]] = str(path)
                    out.intents.append(IntentSpec(
                        it["name"], _strs(it.get("examples"), where + ".examples"),
                        _strs(it.get("templates"), where + ".templates"),
                        _strs(it.get("keywords"), where + ".keywords"), dict(it.get("slots") or {}),
                        pack, _lang_map(it.get("description"), "")))
                except InputInvalid as exc:
                    problems.append(exc.message)
    return out, problems
