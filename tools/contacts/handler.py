"""contacts: search ``$HERMESD_DIRECTORY_FILE`` (JSON, or YAML when PyYAML is importable).

The file holds ``{"people": [{"id", "name", "aliases": [...], "title", "email", "phone", ...}]}``
(the same directory the anchors use), optionally ``"departments": {code: {"zh", "en"}}``: each
match then carries its department's display names as ``dept_name`` / ``dept_name_en``, its name as an
English reply shows it (``name_en``: "Li Na (李娜)") and its title in English (``title_en``). Besides names and aliases, a person
answers to surname + short title (张工 for 张伟, 工程师; 李经理 for 李娜, 经理) and
"Mr./Ms. <surname>" for a pinyin alias. Exact matches rank before substring
matches; several exact matches (two engineers named 张) are all returned, the
caller asks which one.
"""

import json
import os

SHORT_TITLES = {"工程师": "工", "高级工程师": "工", "总经理": "总", "总监": "总", "经理": "经理", "主任": "主任",
                "会计": "会计", "老师": "老师", "医生": "医生", "律师": "律师"}
#: English words for the directory's Chinese titles (a title already in English is kept)
TITLES_EN = {"工程师": "engineer", "高级工程师": "senior engineer", "总经理": "general manager", "总监": "director",
             "经理": "manager", "主任": "head", "会计": "accountant", "老师": "teacher", "医生": "doctor", "律师": "lawyer"}
KEEP = ("id", "name", "aliases", "title", "dept", "dept_name", "dept_name_en", "department", "email", "phone")


class Failure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _load(path: str) -> tuple:
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
    depts = data.get("departments") if isinstance(data, dict) else None
    return people, depts if isinstance(depts, dict) else {}


def _english(p: dict) -> str:
    """How an English reply shows the person: "Li Na (李娜)" for a Chinese name with a Latin alias,
    the name itself when it is already Latin (John Smith) or has no Latin alias."""
    name = str(p.get("name", ""))
    if name.isascii():
        return name
    latin = next((str(a) for a in p.get("aliases", []) or [] if str(a).isascii() and " " in str(a)), None)
    latin = latin or next((str(a) for a in p.get("aliases", []) or [] if str(a).isascii()), None)
    return f"{latin} ({name})" if latin else name


def _match(p: dict, depts: dict) -> dict:
    out = {k: p[k] for k in KEEP if k in p}
    out["name_en"] = _english(p)
    title = str(p.get("title", ""))
    if title:
        out["title_en"] = title if title.isascii() else TITLES_EN.get(title, title)
    dept = depts.get(p.get("dept"))
    if isinstance(dept, dict):
        out.setdefault("dept_name", dept.get("zh") or dept.get("en"))
        out.setdefault("dept_name_en", dept.get("en") or dept.get("zh"))
    return out


def _names(p: dict) -> list:
    name = str(p.get("name", ""))
    names = [name] + [str(a) for a in p.get("aliases", []) or []]
    title = str(p.get("title", ""))
    if name and "\u4e00" <= name[0] <= "\u9fff" and title:
        names.append(name[0] + SHORT_TITLES.get(title, title))
    for alias in p.get("aliases", []) or []:
        parts = str(alias).split()
        if len(parts) == 2 and parts[0].isascii():
            names += [f"Mr. {parts[0]}", f"Ms. {parts[0]}"]
    return [n.casefold() for n in names if n]


def handle(input: dict) -> dict:
    people, depts = _load(os.environ.get("HERMESD_DIRECTORY_FILE", ""))
    q = input["query"].strip().casefold()
    scored = []
    for p in people:
        if not isinstance(p, dict):
            continue
        names = _names(p)
        if q in names:
            scored.append((0, p))
        elif any(q in n for n in names) or q in str(p.get("title", "")).casefold():
            scored.append((1, p))
    scored.sort(key=lambda sp: (sp[0], str(sp[1].get("name", ""))))
    return {"matches": [_match(p, depts) for _, p in scored[: input["limit"]]],
            "exact": sum(1 for rank, _ in scored if rank == 0)}
