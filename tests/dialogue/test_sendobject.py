"""What is asked to be sent when it is no document (hermesd.dialogue.sendobject), against the send
requests it resembles."""

from __future__ import annotations

import pytest

from hermesd.dialogue.sendobject import not_a_document
from hermesd.nlu.normalize import normalize

DOC_WORDS = ["quote", "contract", "invoice", "minutes", "document", "file", "doc", "attachment"]


@pytest.mark.parametrize("raw,obj", [
    ("send my regards to Li Na", "my regards"),
    ("please send my best wishes to Zhang Wei", "my best wishes"),
    ("forward our thanks to Wang Fang", "our thanks"),
    ("can you pass on her congratulations to Li Na", "her congratulations"),
    ("give my love to Wang Fang", "my love"),
    ("send my warmest regards to Li Na", "my warmest regards"),
    ("send my resume to HR", None),  # a document the pack has no kind for: asked which, as before
    ("send my report to Li Na", None),
    ("send my quote to Li Na", None),
    ("send my contracts to Li Na", None),
    ("send my files to Li Na", None),
    ("send our meeting minutes to Wang Fang", None),
    ("send it to Li Na", None),
    ("send the quote to Li Na", None),
    ("send that one to Li Na", None),
    ("send Q-2024-061 to Li Na", None),
    ("把报价单发给李娜", None),
])
def test_not_a_document(raw: str, obj: str | None) -> None:
    assert not_a_document(normalize(raw).text, DOC_WORDS) == obj
