"""find_document: documents in ``$HERMESD_DOCUMENTS_DIR`` whose name contains every one of ``terms`` and at
least one of ``any_of`` (case-insensitive), newest first. ``any_of`` carries a document kind's names in every
language (报价单 / quote), so "send the quote" finds 报价单Q-2024-061.pdf; a name holding any of ``none_of`` is never
found (a kind the caller may not send, when only an id was said). No match is the business error
``NO_MATCH``, so a rule's fallback can say so."""

import os


class Failure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def handle(input: dict) -> dict:
    folder = os.environ["HERMESD_DOCUMENTS_DIR"]
    terms = [t.casefold() for t in input.get("terms", []) if t.strip()]
    any_of = [t.casefold() for t in input.get("any_of", []) if t.strip()]
    none_of = [t.casefold() for t in input.get("none_of", []) if t.strip()]
    if not terms and not any_of:
        raise Failure("MISSING_FIELD", "give terms or any_of")
    found = []
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        names = []
    for name in names:
        path = os.path.join(folder, name)
        if name.startswith(".") or not os.path.isfile(path):
            continue
        folded = name.casefold()
        if all(t in folded for t in terms) and (not any_of or any(t in folded for t in any_of)) \
                and not any(t in folded for t in none_of):
            st = os.stat(path)
            found.append({"document": name, "bytes": st.st_size, "modified": int(st.st_mtime)})
    if not found:
        raise Failure("NO_MATCH", f"no document matches {' + '.join(terms)} {'/'.join(any_of)}".strip())
    found.sort(key=lambda d: (-d["modified"], d["document"]))
    return {"matches": found[: input.get("limit", 5)], "count": len(found)}
