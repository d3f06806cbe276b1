"""document_kind: the kind a sent document's event is filed under (table)."""

from __future__ import annotations

import pytest

from hermesd.session.capture_turn import document_kind

BOTH = {"报价单": "quote", "合同": "contract"}


@pytest.mark.parametrize(("document", "kinds", "kind"), [
    ("合同HT-2024-0012.pdf", BOTH, "contract"),          # the first said was the quote: never that
    ("报价单Q-2024-061.pdf", BOTH, "quote"),
    ("报价单Q-2024-061.pdf", {"quote": "quote"}, "quote"),  # said in English: the only kind held
    ("Quote-2024.pdf", {"quote": "quote", "contract": "contract"}, "quote"),
    ("scan-0001.pdf", BOTH, ""),                          # two kinds, neither in the name: not guessed
    ("", BOTH, ""),
    ("", {"报价单": "quote"}, ""),                        # no document: no kind
    ("报价单Q-2024-061.pdf", {}, ""),
])
def test_the_kind_is_the_documents_own(document, kinds, kind):
    assert document_kind(document, kinds) == kind


WORDS = {"quote": ["quote", "报价", "报价单"], "contract": ["contract", "合同"]}


@pytest.mark.parametrize(("document", "kinds", "kind"), [
    # the quote's part was sent while the session's kinds held the contract alone (the next part's)
    ("报价单Q-2024-061.pdf", {"合同": "contract"}, "quote"),
    ("报价单Q-2024-061.pdf", {"quote": "quote", "contract": "contract"}, "quote"),
    ("合同HT-2024-0012.pdf", {"quote": "quote", "contract": "contract"}, "contract"),
])
def test_a_kinds_every_word_tells_the_file(document, kinds, kind):
    assert document_kind(document, kinds, WORDS) == kind
