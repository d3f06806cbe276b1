"""contacts: search ``$HERMESD_DIRECTORY_FILE`` (JSON, or YAML when PyYAML is importable).

The file holds ``{"people": [{"id", "name", "aliases": [...], "title", "email", "phone"}]}``.
Exact name/alias matches rank before substring matches.
"""

import json
import os


class Failure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _load(path: str) -> list:
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise Failure("DIRECTORY_MISSING", f"cannot read the directory: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except ValueError:
        import yaml  # the directory may be YAML; PyYAML ships with hermesd

        data = yaml.safe_load(text)
    people = data.get("people") if isinstance(data, dict) else data
    if not isinstance(people, list):
        raise Failure("DIRECTORY_MISSING", "the directory has no people list")
    return people


def handle(input: dict) -> dict:
    people = _load(os.environ.get("HERMESD_DIRECTORY_FILE", ""))
    q = input["query"].strip().casefold()
    scored = []
    for p in people:
        if not isinstance(p, dict):
            continue
        names = [str(p.get("name", ""))] + [str(a) for a in p.get("aliases", [])]
        folded = [n.casefold() for n in names if n]
        if q in folded:
            scored.append((0, p))
        elif any(q in n for n in folded) or q in str(p.get("title", "")).casefold():
            scored.append((1, p))
    scored.sort(key=lambda sp: (sp[0], str(sp[1].get("name", ""))))
    keep = ("id", "name", "aliases", "title", "department", "email", "phone")
    return {"matches": [{k: p[k] for k in keep if k in p} for _, p in scored[: input["limit"]]]}
