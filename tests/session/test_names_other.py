""""The other one" said anywhere in an answer at a card whose person was chosen from two
(hermesd.session.pipeline._names_other), outside a negation."""

from __future__ import annotations

import pytest

from hermesd.dialogue.lexicon import default_lexicon
from hermesd.nlu.normalize import normalize
from hermesd.session.pipeline import _names_other


@pytest.mark.parametrize("raw,other", [
    ("等等，发给另一个张工", True), ("发给另外那位", True), ("另一个", True),
    ("wait, send it to the other Zhang", True), ("no, the other one", True),
    ("不是另一个", False), ("not the other one", False), ("发给张伟", False), ("send it to Zhang Wei", False),
])
def test_names_other(raw: str, other: bool) -> None:
    assert _names_other(normalize(raw).text, default_lexicon()) is other
