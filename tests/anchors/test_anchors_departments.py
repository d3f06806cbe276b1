"""Departments: display names in zh and en, the words people use for them, on the choice candidates."""

from __future__ import annotations

from pathlib import Path

import pytest
from anchor_helpers import DIRECTORY

from hermesd.anchors.directory import Directory
from hermesd.anchors.graph import AnchorGraph
from hermesd.memory.l2 import L2Store


def test_shipped_directory_names_every_department_in_both_languages() -> None:
    d = Directory.load(DIRECTORY)
    assert d.department_names() == {"sales": {"zh": "销售部", "en": "Sales"}, "rd": {"zh": "研发部", "en": "R&D"},
                                    "finance": {"zh": "财务部", "en": "Finance"},
                                    "ops": {"zh": "运维部", "en": "Operations"}}
    for p in d.people.values():
        assert p.dept_name and p.dept_name_en and p.dept in d.departments, p
    assert d.get("person:sales/zhang").display_en == "Zhang Wei"
    assert d.get("person:ops/smith").display_en == "John Smith"


@pytest.mark.parametrize(("word", "code"), [
    ("研发", "rd"), ("研发部", "rd"), ("R&D", "rd"), ("r&d", "rd"), ("rd", "rd"), ("engineering", "rd"),
    ("销售", "sales"), ("Sales", "sales"), ("sales team", "sales"), ("财务", "finance"), ("Operations", "ops"),
])
def test_a_department_by_any_of_its_words(word: str, code: str) -> None:
    dept = Directory.load(DIRECTORY).department(word)
    assert dept is not None and dept.code == code


def test_unknown_department_word() -> None:
    assert Directory.load(DIRECTORY).department("法务部") is None


def test_old_directory_without_departments_still_loads(tmp_path: Path) -> None:
    f = tmp_path / "d.yaml"
    f.write_text("people:\n  - {id: person:qa/liu, name: 刘洋, dept: qa, dept_name: 质量部}\n", encoding="utf-8")
    d = Directory.load(f)
    p = d.get("person:qa/liu")
    assert (p.dept_name, p.dept_name_en) == ("质量部", "")
    assert d.department_names() == {"qa": {"zh": "质量部", "en": "qa"}}
    assert d.department("质量部").code == "qa"


def test_a_persons_dept_name_comes_from_departments(tmp_path: Path) -> None:
    f = tmp_path / "d.yaml"
    f.write_text("departments:\n  qa: {zh: 质量部, en: Quality, aliases: [质检]}\n"
                 "people:\n  - {id: person:qa/liu, name: 刘洋, dept: qa, aliases: [Liu Yang]}\n", encoding="utf-8")
    d = Directory.load(f)
    p = d.get("person:qa/liu")
    assert (p.dept_name, p.dept_name_en, p.display_en) == ("质量部", "Quality", "Liu Yang")
    assert d.department("质检").en == "Quality"


def test_bad_departments_are_reported(tmp_path: Path) -> None:
    f = tmp_path / "d.yaml"
    f.write_text("departments:\n  qa: {aliases: [x]}\n  hr: {zh: 人事部, aliases: 人事}\npeople: []\n",
                 encoding="utf-8")
    with pytest.raises(ValueError) as info:
        Directory.load(f)
    assert "departments.qa: needs zh and/or en" in str(info.value)
    assert "departments.hr.aliases: expected a list" in str(info.value)


async def test_choice_candidates_carry_department_names_in_both_languages(graph: AnchorGraph) -> None:
    r = await graph.resolve("张工", session_id="s1")
    assert r.status == "ambiguous"
    by_id = {c["anchor_id"]: c for c in r.candidates}
    sales = by_id["person:sales/zhang"]
    assert sales == {"anchor_id": "person:sales/zhang", "display": "张伟", "display_en": "Zhang Wei",
                     "dept": "sales", "dept_name": "销售部", "dept_name_en": "Sales",
                     "dept_aliases": ["销售", "销售部门", "sales team", "sales department"],
                     "title": "工程师", "email": "zhang.wei@example.com"}
    assert by_id["person:rd/zhang"]["dept_name_en"] == "R&D"
    # a card line is then "张伟（销售部）" / "Zhang Wei (Sales)"
    assert f"{sales['display_en']} ({sales['dept_name_en']})" == "Zhang Wei (Sales)"


async def test_an_english_department_narrows_an_ambiguous_mention(graph: AnchorGraph) -> None:
    r = await graph.resolve("张工", session_id="s1", context={"dept": "R&D"})
    assert (r.status, r.anchor_id) == ("resolved", "person:rd/zhang")


async def test_candidates_of_anchors_from_an_older_pool_get_names_from_the_directory(l2: L2Store) -> None:
    g = AnchorGraph(l2, None, now_ms=lambda: 1)
    await g.load()
    await g.create("赵工", attributes={"dept": "sales", "email": "zhao@example.com"})
    a = next(iter(g.pool.values()))
    g.directory = Directory.load(DIRECTORY)
    c = g.candidate(a)
    assert (c["dept_name"], c["dept_name_en"], c["display_en"]) == ("销售部", "Sales", "赵工")
