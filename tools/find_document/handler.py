"""find_document: documents in ``$HERMESD_DOCUMENTS_DIR`` whose name contains every term (case-insensitive),
newest first. No match is the business error ``NO_MATCH``, so a rule's fallback can say so."""

import os


class Failure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def handle(input: dict) -> dict:
    folder = os.environ["HERMESD_DOCUMENTS_DIR"]
    terms = [t.casefold() for t in input["terms"] if t.strip()]
    found = []
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        names = []
    for name in names:
        path = os.path.join(folder, name)
        if name.startswith(".") or not os.path.isfile(path):
            continue
        if all(t in name.casefold() for t in terms):
            st = os.stat(path)
            found.append({"document": name, "bytes": st.st_size, "modified": int(st.st_mtime)})
    if not found:
        raise Failure("NO_MATCH", f"no document matches {' + '.join(input['terms'])}")
    found.sort(key=lambda d: (-d["modified"], d["document"]))
    return {"matches": found[: input.get("limit", 5)], "count": len(found)}
