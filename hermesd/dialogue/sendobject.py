"""What is asked to be sent, when it is no document: "send my regards to Li Na" (pure).

A request to send names its object between the verb and the recipient. English has a closed class
of idioms in which what is sent is a greeting, not a thing: send / pass on / give / convey + a
possessive + regards, love, (best) wishes, thanks, greetings, congratulations, condolences,
apologies, sympathies ("send my regards to …", "forward our thanks to …", "pass on her
congratulations to …"). Such a request is not asked "Which document?" — it is said plainly that
only documents are sent. Any other object ("send my resume to HR": a document the pack has no kind
for), a phrase with a word of a document kind (the pack's ``doc_type`` gazetteer) or a document noun
(the ``references.types.doc_type`` nouns), a reference ("send it to …") or an id is the send request
as before.
"""

from __future__ import annotations

import re
from typing import Iterable

from .. import lazyre

__all__ = ["not_a_document"]

_EN = lazyre.compile(r"^(?:please\s+)?(?:(?:can|could|would)\s+you\s+)?(?:please\s+)?"
                 r"(?:send|forward|email|mail|pass\s+on|pass|give|convey)\s+"
                 r"(?P<obj>(?:my|our|his|her|their|your)\s+(?:(?:very\s+)?(?:best|warm|warmest|kind|kindest|sincere|"
                 r"sincerest|heartfelt|deepest|love\s+and)\s+)*(?:regards|love|wishes|thanks|greetings|"
                 r"congratulations|condolences|apologies|sympathies|best))\s+(?:on\s+)?to\s+\S")


def not_a_document(text: str, doc_words: Iterable[str]) -> str | None:
    """The object asked to be sent (as said, e.g. ``"my regards"``) when it is no document, else None.

    :param text: the utterance, normalised and lower case.
    :param doc_words: every word naming a document (kind names and document nouns), normalised.

    >>> not_a_document("send my regards to li na", ["quote", "file"])
    'my regards'
    >>> not_a_document("send my quote to li na", ["quote", "file"]) is None
    True
    """
    m = _EN.match(text.strip().lower())
    if m is None:
        return None
    obj = m.group("obj").strip()
    words = set(re.findall(r"[a-z]+", obj))
    for w in doc_words:
        w = w.strip().lower()
        if w and (w in obj if " " in w else any(x == w or x.rstrip("s") == w for x in words)):
            return None
    return obj
