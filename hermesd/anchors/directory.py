"""The people directory (``config/directory.yaml``): who exists, with titles, departments and aliases.

File shape::

    departments:                     # optional: code → display names and what people call it
      sales: {zh: 销售部, en: Sales, aliases: [销售, sales team]}
    people:
      - {id: person:sales/zhang, name: 张伟, title: 工程师, dept: sales, dept_name: 销售部,
         email: zhang.wei@example.com, phone: "...", aliases: [Zhang Wei]}

A person's ``dept_name`` (zh) defaults to its department's ``zh``, and ``dept_name_en`` to its
``en`` (a person may also give ``dept_name_en`` itself); without a ``departments`` entry the
English name is the code, so an old directory loads unchanged.

Besides the listed aliases every person answers to a few derived forms: the
full name, the e-mail address, surname + short title (张工 for a 工程师, 李经理,
王会计 — the usual Chinese workplace address forms) and for Latin names
"Mr./Ms. <surname>" and the surname alone.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

__all__ = ["TITLE_SHORT", "Department", "Directory", "Person", "cn_address_form", "marked", "normalize_mention",
           "unmarked"]


def marked(mention: str) -> str:
    """``mention`` as a resolution (:mod:`.graph`) shows it when no one (or more than one) fits: ``【张工】``."""
    return f"【{mention}】"


def unmarked(value: str) -> str | None:
    """The mention inside a :func:`marked` value, or None when ``value`` is a resolved name."""
    if len(value) > 2 and value.startswith("【") and value.endswith("】"):
        return value[1:-1]
    return None


#: libyaml's parser when PyYAML has it (several times faster at start), the same safe constructors
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: title → the short form used after a surname (张工程师 → 张工, 王总经理 → 王总).
TITLE_SHORT: dict[str, str] = {
    "工程师": "工", "工": "工", "经理": "经理", "总经理": "总", "总": "总", "主任": "主任",
    "会计": "会计", "老师": "老师", "博士": "博士", "主管": "主管",
}
_EN_HONORIFICS = ("mr.", "mr", "ms.", "ms", "mrs.", "mrs", "dr.", "dr")


@dataclass(frozen=True, slots=True)
class Department:
    """A department: its ``code`` (``sales``), display names and the other words for it.

    :param zh: 销售部. :param en: Sales. :param aliases: 销售, sales team … (any language).
    """

    code: str
    zh: str
    en: str
    aliases: tuple[str, ...] = ()

    def name(self, lang: str) -> str:
        """The display name in ``lang`` (``zh``; anything else is English)."""
        return self.zh if lang == "zh" else self.en

    def words(self) -> set[str]:
        """Every normalised word that names this department (code, names, aliases)."""
        return {normalize_mention(w) for w in (self.code, self.zh, self.en, *self.aliases) if w}


@dataclass(frozen=True, slots=True)
class Person:
    """One directory entry; ``anchor_id`` is the stable id (``person:<dept>/<slug>``).

    ``dept_name`` / ``dept_name_en``: the department's display names (销售部 / Sales).
    """

    anchor_id: str
    name: str
    title: str
    dept: str
    dept_name: str
    email: str
    phone: str
    aliases: tuple[str, ...]
    dept_name_en: str = ""

    def attributes(self) -> dict[str, Any]:
        return {k: v for k, v in (("name", self.name), ("title", self.title), ("dept", self.dept),
                                  ("dept_name", self.dept_name), ("dept_name_en", self.dept_name_en),
                                  ("email", self.email), ("phone", self.phone)) if v}

    @property
    def display_en(self) -> str:
        """The name to show in English: a Latin name as is, else the first Latin alias (张伟 → Zhang Wei)."""
        if not _is_cjk(self.name[:1]):
            return self.name
        return next((a for a in self.aliases if a.isascii() and any(c.isalpha() for c in a) and " " in a),
                    self.name)

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
    """Canonical form of a mention: NFKC (full-width ｗａｎｇ　ｆａｎｇ is wang fang, as an IME types
    it), trimmed, case-folded, English honorific removed, Chinese surname + long title shortened
    (张工程师 → 张工, 王总经理 → 王总)."""
    t = " ".join(unicodedata.normalize("NFKC", text).strip().split()).casefold()
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

    def __init__(self, people: list[Person], departments: list[Department] | None = None) -> None:
        self.people: dict[str, Person] = {p.anchor_id: p for p in people}
        #: code → department (those the file lists, then any code only people name)
        self.departments: dict[str, Department] = {d.code: d for d in departments or ()}
        for p in people:
            if p.dept and p.dept not in self.departments:
                self.departments[p.dept] = Department(p.dept, p.dept_name or p.dept, p.dept_name_en or p.dept)
        self._dept_words: dict[str, str] = {}
        for d in self.departments.values():
            for w in d.words():
                self._dept_words.setdefault(w, d.code)
        self._forms: dict[str, list[Person]] = {}
        for p in people:
            for form in p.address_forms():
                self._forms.setdefault(form, []).append(p)

    @classmethod
    def load(cls, path: str | Path) -> "Directory":
        doc = yaml.load(Path(path).read_text(encoding="utf-8"), Loader=_YAML_LOADER) or {}
        errors: list[str] = []
        people: list[Person] = []
        seen: set[str] = set()
        rows = doc.get("people") if isinstance(doc, dict) else None
        if not isinstance(rows, list):
            raise ValueError(f"{path}: expected a mapping with a 'people' list")
        depts: dict[str, Department] = {}
        raw_depts = doc.get("departments") or {}
        if not isinstance(raw_depts, dict):
            errors.append("departments: expected a mapping code → {zh, en, aliases}")
            raw_depts = {}
        for code, d in raw_depts.items():
            if not isinstance(d, dict) or not (d.get("zh") or d.get("en")):
                errors.append(f"departments.{code}: needs zh and/or en")
                continue
            aliases = d.get("aliases") or []
            if not isinstance(aliases, list):
                errors.append(f"departments.{code}.aliases: expected a list")
                aliases = []
            depts[str(code)] = Department(str(code), str(d.get("zh") or d["en"]), str(d.get("en") or d["zh"]),
                                          tuple(str(a) for a in aliases))
        for i, r in enumerate(rows):
            if not isinstance(r, dict) or not r.get("id") or not r.get("name"):
                errors.append(f"people[{i}]: needs id and name")
                continue
            if r["id"] in seen:
                errors.append(f"people[{i}]: duplicate id {r['id']}")
                continue
            seen.add(r["id"])
            code = str(r.get("dept", ""))
            dept = depts.get(code)
            people.append(Person(str(r["id"]), str(r["name"]), str(r.get("title", "")), code,
                                 str(r.get("dept_name") or (dept.zh if dept else "")), str(r.get("email", "")),
                                 str(r.get("phone", "")), tuple(str(a) for a in r.get("aliases") or ()),
                                 str(r.get("dept_name_en") or (dept.en if dept else ""))))
        if errors:
            raise ValueError(f"{path}: " + "; ".join(errors))
        return cls(people, list(depts.values()))

    def lookup(self, mention: str) -> list[Person]:
        """People whose name, e-mail, alias or derived address form equals the mention."""
        return list(self._forms.get(normalize_mention(mention), ()))

    def get(self, anchor_id: str) -> Person | None:
        return self.people.get(anchor_id)

    def department(self, word: str) -> Department | None:
        """The department a word names: its code, zh/en name or an alias (研发, R&D, sales team)."""
        code = self._dept_words.get(normalize_mention(word))
        return self.departments.get(code) if code else None

    def english_names(self) -> dict[str, str]:
        """name as written → its English form, for the people whose name is not Latin (张伟 → Zhang Wei):
        the ``| person`` filter's table (hermesd.rules.filters.Style); a name two people share with
        different English forms is left out (which one it is cannot be told from the name)."""
        out: dict[str, str] = {}
        clash: set[str] = set()
        for p in self.people.values():
            en = p.display_en
            if en and en != p.name:
                if out.setdefault(p.name, en) != en:
                    clash.add(p.name)
        return {k: v for k, v in out.items() if k not in clash}

    def department_names(self) -> dict[str, dict[str, str]]:
        """code → ``{"zh": 销售部, "en": Sales}``: the ``| dept`` filter's table (hermesd.rules.filters.Style)."""
        return {c: {"zh": d.zh, "en": d.en} for c, d in self.departments.items()}
