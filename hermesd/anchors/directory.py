"""The people directory (``config/directory.yaml``): who exists, with titles, departments and aliases.

File shape::

    people:
      - {id: person:sales/zhang, name: 张伟, title: 工程师, dept: sales, dept_name: 销售部,
         email: zhang.wei@example.com, phone: "...", aliases: [Zhang Wei]}

Besides the listed aliases every person answers to a few derived forms: the
full name, the e-mail address, surname + short title (张工 for a 工程师, 李经理,
王会计 — the usual Chinese workplace address forms) and for Latin names
"Mr./Ms. <surname>" and the surname alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

__all__ = ["TITLE_SHORT", "Directory", "Person", "cn_address_form", "normalize_mention"]

#: title → the short form used after a surname (张工程师 → 张工, 王总经理 → 王总).
TITLE_SHORT: dict[str, str] = {
    "工程师": "工", "工": "工", "经理": "经理", "总经理": "总", "总": "总", "主任": "主任",
    "会计": "会计", "老师": "老师", "博士": "博士", "主管": "主管",
}
_EN_HONORIFICS = ("mr.", "mr", "ms.", "ms", "mrs.", "mrs", "dr.", "dr")


@dataclass(frozen=True, slots=True)
class Person:
    """One directory entry; ``anchor_id`` is the stable id (``person:<dept>/<slug>``)."""

    anchor_id: str
    name: str
    title: str
    dept: str
    dept_name: str
    email: str
    phone: str
    aliases: tuple[str, ...]

    def attributes(self) -> dict[str, Any]:
        return {k: v for k, v in (("name", self.name), ("title", self.title), ("dept", self.dept),
                                  ("dept_name", self.dept_name), ("email", self.email), ("phone", self.phone)) if v}

    def address_forms(self) -> set[str]:
        """Every normalised mention that names this person."""
        forms = {self.name, self.email, *self.aliases}
        if _is_cjk(self.name[:1]):
            short = TITLE_SHORT.get(self.title)
            if short:
                forms.add(self.name[0] + short)
            # a pinyin alias puts the family name first ("Zhang Wei"): "Mr. Zhang" names this person too
            for alias in self.aliases:
                words = alias.split()
                if len(words) == 2 and words[0].isascii() and words[0].isalpha():
                    forms.add(words[0])
        else:
            last = self.name.split()[-1] if self.name.split() else self.name
            forms.add(last)
        return {normalize_mention(f) for f in forms if f}


def _is_cjk(ch: str) -> bool:
    return bool(ch) and "\u4e00" <= ch <= "\u9fff"


def normalize_mention(text: str) -> str:
    """Canonical form of a mention: trimmed, case-folded, English honorific removed,
    Chinese surname + long title shortened (张工程师 → 张工, 王总经理 → 王总)."""
    t = " ".join(text.strip().split()).casefold()
    parts = t.split(" ")
    if len(parts) > 1 and parts[0] in _EN_HONORIFICS:
        t = " ".join(parts[1:])
    if len(t) >= 2 and _is_cjk(t[0]):
        rest = t[1:]
        if rest in TITLE_SHORT:
            t = t[0] + TITLE_SHORT[rest]
    return t


def cn_address_form(mention: str) -> tuple[str, str] | None:
    """``(surname, short title)`` when the mention is surname + title (张工, 李经理), else None."""
    t = normalize_mention(mention)
    if len(t) >= 2 and _is_cjk(t[0]) and t[1:] in TITLE_SHORT.values():
        return t[0], t[1:]
    return None


class Directory:
    """People loaded from a YAML file.

    :raises ValueError: the file is not a mapping with a ``people`` list, or an
        entry lacks ``id``/``name``, or two entries share an id (all problems at once).
    """

    def __init__(self, people: list[Person]) -> None:
        self.people: dict[str, Person] = {p.anchor_id: p for p in people}
        self._forms: dict[str, list[Person]] = {}
        for p in people:
            for form in p.address_forms():
                self._forms.setdefault(form, []).append(p)

    @classmethod
    def load(cls, path: str | Path) -> "Directory":
        doc = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        errors: list[str] = []
        people: list[Person] = []
        seen: set[str] = set()
        rows = doc.get("people") if isinstance(doc, dict) else None
        if not isinstance(rows, list):
            raise ValueError(f"{path}: expected a mapping with a 'people' list")
        for i, r in enumerate(rows):
            if not isinstance(r, dict) or not r.get("id") or not r.get("name"):
                errors.append(f"people[{i}]: needs id and name")
                continue
            if r["id"] in seen:
                errors.append(f"people[{i}]: duplicate id {r['id']}")
                continue
            seen.add(r["id"])
            people.append(Person(str(r["id"]), str(r["name"]), str(r.get("title", "")), str(r.get("dept", "")),
                                 str(r.get("dept_name", "")), str(r.get("email", "")), str(r.get("phone", "")),
                                 tuple(str(a) for a in r.get("aliases") or ())))
        if errors:
            raise ValueError(f"{path}: " + "; ".join(errors))
        return cls(people)

    def lookup(self, mention: str) -> list[Person]:
        """People whose name, e-mail, alias or derived address form equals the mention."""
        return list(self._forms.get(normalize_mention(mention), ()))

    def get(self, anchor_id: str) -> Person | None:
        return self.people.get(anchor_id)
