"""The shipped people directory and mention normalisation."""

from __future__ import annotations

from pathlib import Path

import pytest
from anchor_helpers import DIRECTORY

from hermesd.anchors.directory import Directory, cn_address_form, normalize_mention


def test_shipped_directory_has_two_zhang_engineers_in_different_departments() -> None:
    d = Directory.load(DIRECTORY)
    zhangs = d.lookup("张工")
    assert {p.anchor_id for p in zhangs} == {"person:sales/zhang", "person:rd/zhang"}
    assert len({p.dept for p in zhangs}) == 2
    assert all(p.email.endswith("@example.com") for p in d.people.values())


@pytest.mark.parametrize(("mention", "anchor"), [
    ("李经理", "person:sales/li"), ("张伟", "person:sales/zhang"), ("王会计", "person:finance/wang"),
    ("Mr. Smith", "person:ops/smith"), ("  SMITH ", "person:ops/smith"), ("zhang.qiang@example.com", "person:rd/zhang"),
])
def test_lookup_by_address_forms(mention: str, anchor: str) -> None:
    assert [p.anchor_id for p in Directory.load(DIRECTORY).lookup(mention)] == [anchor]


def test_normalisation() -> None:
    assert normalize_mention("张工程师") == "张工"
    assert normalize_mention("王总经理") == "王总"
    assert normalize_mention("Mr.  John   Smith") == "john smith"
    assert normalize_mention("Ｗａｎｇ　Ｆａｎｇ") == "wang fang"  # full width, as an IME types it
    assert normalize_mention("Ｍｒ．　Ｌｉ") == "li"
    assert cn_address_form("李经理") == ("李", "经理")
    assert cn_address_form("张伟") is None


def test_bad_directory_reports_every_problem(tmp_path: Path) -> None:
    p = tmp_path / "d.yaml"
    p.write_text("people:\n  - {id: a, name: A}\n  - {id: a, name: B}\n  - {name: C}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"duplicate id a.*people\[2\]: needs id and name"):
        Directory.load(p)
    p.write_text("- just a list\n", encoding="utf-8")
    with pytest.raises(ValueError, match="people"):
        Directory.load(p)
