"""Story files (YAML) → :class:`~.model.Story` objects, every problem reported at once with ``file:line``.

The YAML is read with two changes from YAML 1.1 that make conversations safe to
write: only ``true``/``false`` are booleans (``user: yes`` and ``user: no`` are the
words), and timestamps stay text (``at:`` is parsed as ISO 8601 here). ``user:`` and the
``reply_*`` texts are taken exactly as written (``user: 2``, ``reply_not_contains: [true, false]``
are strings).
Unknown keys are errors with a "did you mean".
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Iterable

import yaml

from .model import Expect, Story, Turn, When

__all__ = ["StoryError", "discover", "load_file", "load_paths", "load_text"]

_STORY_KEYS = ("name", "description", "locale", "tz", "at", "setup", "exclusive", "covers", "turns")
_SETUP_KEYS = ("documents", "clear_reminders")
_INPUT_KEYS = ("user", "answer")
_PLAY_KEYS = ("at", "session", "new_session", "wait", "restart", "message_id")
_EXPECT_KEYS = ("intent", "rule", "path", "state", "tools", "not_tools", "reply_contains", "reply_contains_any",
                "reply_not_contains", "reply_plain", "card", "card_choices", "card_fields", "act", "decision",
                "repairs", "error", "offer", "replayed", "events", "not_events")
_TURN_KEYS = _INPUT_KEYS + _PLAY_KEYS + _EXPECT_KEYS
#: keys whose scalars are text as written (``user: 2``, ``reply_not_contains: [true, false]``)
_VERBATIM = frozenset({"user", "reply_contains", "reply_contains_any", "reply_not_contains"})
_OFFSET = re.compile(r"^(now)?\s*(?:([+-])\s*(\d+(?:\.\d+)?)\s*([smhdw]))?$")
_UNITS_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
#: every file's documents must agree on a name's content
_DEFAULT_CONTENT = "%PDF-1.4 story fixture\n"


class StoryError(Exception):
    """One or more story files are wrong. :param problems: ``file:line: message`` strings, in file order."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s) in the stories:\n  " + "\n  ".join(problems))


# --------------------------------------------------------------------------- YAML with lines


class _Map(dict):  # type: ignore[type-arg]
    """A mapping that remembers its line and each key's line."""

    line: int = 0
    key_lines: dict[Any, int]


class _Seq(list):  # type: ignore[type-arg]
    """A sequence that remembers its line and each item's line."""

    line: int = 0
    item_lines: list[int]


class _Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 booleans, no timestamps, and line-carrying containers."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                              list("tTfF"))


def _construct_map(loader: _Loader, node: yaml.MappingNode) -> _Map:
    loader.flatten_mapping(node)
    out = _Map()
    out.line = node.start_mark.line + 1
    out.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if key in out.key_lines:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r} (first at line "
                                                    f"{out.key_lines[key]})", key_node.start_mark)
        if key in _VERBATIM and isinstance(value_node, yaml.ScalarNode):
            value: Any = value_node.value  # exactly as written: "2", "２", "yes", "null", "true"
        elif key in _VERBATIM and isinstance(value_node, yaml.SequenceNode) \
                and all(isinstance(n, yaml.ScalarNode) for n in value_node.value):
            value = _Seq(n.value for n in value_node.value)
            value.line = value_node.start_mark.line + 1
            value.item_lines = [n.start_mark.line + 1 for n in value_node.value]
        else:
            value = loader.construct_object(value_node, deep=True)
        out[key] = value
        out.key_lines[key] = line
    return out


def _construct_seq(loader: _Loader, node: yaml.SequenceNode) -> _Seq:
    out = _Seq(loader.construct_object(child, deep=True) for child in node.value)
    out.line = node.start_mark.line + 1
    out.item_lines = [child.start_mark.line + 1 for child in node.value]
    return out


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)


# --------------------------------------------------------------------------- checking


@dataclass
class _Ctx:
    """Where we are (file name) and what went wrong so far."""

    file: str
    found: list[tuple[int, str]]

    def bad(self, line: int, message: str) -> None:
        self.found.append((line, message))

    @property
    def problems(self) -> list[str]:
        """``file:line: message`` in line order (a turn's checks run key by key, not line by line)."""
        return [f"{self.file}:{line}: {m}" for line, m in sorted(self.found, key=lambda p: p[0])]


def _line(m: _Map, key: str) -> int:
    return getattr(m, "key_lines", {}).get(key, getattr(m, "line", 0))


def _unknown(ctx: _Ctx, m: _Map, allowed: Iterable[str], what: str) -> None:
    allowed = tuple(allowed)
    for key in m:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(allowed)})"
            ctx.bad(_line(m, key), f"unknown {what} key {key!r}{hint}")


def _strs(ctx: _Ctx, m: _Map, key: str, *, nullable: bool = False) -> tuple[Any, ...] | None:
    """A string or a list of strings (``None`` kept when ``nullable``) → tuple; wrong types reported."""
    v = m.get(key)
    items = list(v) if isinstance(v, list) else [v]
    ok = all(isinstance(x, str) or (nullable and x is None) for x in items) and (items or nullable)
    if not ok:
        ctx.bad(_line(m, key), f"{key}: expected a string or a list of strings"
                + (" (null for none)" if nullable else "") + f", got {v!r}")
        return None
    return tuple(items)


def _bool(ctx: _Ctx, m: _Map, key: str) -> bool | None:
    v = m.get(key)
    if not isinstance(v, bool):
        ctx.bad(_line(m, key), f"{key}: expected true or false, got {v!r}")
        return None
    return v


def _instant(ctx: _Ctx, line: int, v: Any, key: str) -> datetime | None:
    try:
        dt = datetime.fromisoformat(str(v))
    except ValueError:
        dt = None
    if dt is None or dt.tzinfo is None:
        ctx.bad(line, f"{key}: expected ISO 8601 with a UTC offset (2030-06-19T10:00:00+08:00), got {v!r}")
        return None
    return dt


def _when(ctx: _Ctx, line: int, v: Any) -> When:
    text = str(v).strip()
    m = _OFFSET.match(text)
    if m and (m.group(1) or m.group(2)):
        offset = timedelta(0)
        if m.group(2):
            seconds = float(m.group(3)) * _UNITS_S[m.group(4)]
            offset = timedelta(seconds=-seconds if m.group(2) == "-" else seconds)
        return When(offset=offset, from_now=bool(m.group(1)))
    dt = _instant(ctx, line, v, "at")
    return When(absolute=dt) if dt else When()


def _expect(ctx: _Ctx, t: _Map) -> Expect:
    kw: dict[str, Any] = {}
    for key in ("intent", "rule"):
        if key in t:
            kw[key] = _strs(ctx, t, key, nullable=True)
    for key in ("path", "state", "act", "decision"):
        if key in t:
            kw[key] = _strs(ctx, t, key)
    for key in ("not_tools", "reply_contains", "reply_contains_any", "reply_not_contains", "repairs", "events",
                "not_events"):
        if key in t:
            kw[key] = _strs(ctx, t, key) or ()
    if "tools" in t:
        v = t["tools"]
        if isinstance(v, dict) and set(v) == {"set"}:
            kw["tools_any_order"] = True
            v = v["set"]
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            kw["tools"] = tuple(v)
        else:
            ctx.bad(_line(t, "tools"), f"tools: expected a list of tool names (in order) or {{set: [...]}}, got {v!r}")
    for key in ("reply_plain", "card", "offer", "replayed"):
        if key in t:
            kw[key] = _bool(ctx, t, key)
    if "card_choices" in t:
        v = t["card_choices"]
        if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
            kw["card_choices"] = v
        elif isinstance(v, list) and all(isinstance(x, str) for x in v):
            kw["card_choices"] = tuple(v)
        else:
            ctx.bad(_line(t, "card_choices"), f"card_choices: expected a count or a list of display names, got {v!r}")
    if "card_fields" in t:
        v = t["card_fields"]
        if isinstance(v, dict):
            kw["card_fields"] = tuple((str(k), str(x)) for k, x in v.items())
        else:
            ctx.bad(_line(t, "card_fields"), f"card_fields: expected a mapping field → value, got {v!r}")
    if "error" in t:
        v = t["error"]
        if isinstance(v, str) and re.fullmatch(r"[A-Z][A-Z_]+", v):
            kw["error"] = v
        else:
            ctx.bad(_line(t, "error"), f"error: expected a stable code such as INPUT_INVALID, got {v!r}")
    return Expect(**{k: v for k, v in kw.items() if v is not None})


def _turn(ctx: _Ctx, t: Any, line: int) -> Turn | None:
    if not isinstance(t, dict):
        ctx.bad(line, f"a turn must be a mapping (user: …, expectations), got {t!r}")
        return None
    _unknown(ctx, t, _TURN_KEYS, "turn")
    kw: dict[str, Any] = {"line": line}
    given = [k for k in _INPUT_KEYS if k in t]
    if len(given) != 1:
        ctx.bad(line, "a turn needs exactly one of user: (text) or answer: ({accept: true} / {choice: 2})"
                + (f", got {' and '.join(given)}" if given else ""))
    elif "user" in t:
        if not isinstance(t["user"], str) or not t["user"].strip():
            ctx.bad(_line(t, "user"), f"user: expected the text said, got {t['user']!r}")
        else:
            kw["user"] = t["user"]
    else:
        a = t["answer"]
        if isinstance(a, dict) and set(a) == {"accept"} and isinstance(a["accept"], bool):
            kw["accept"] = a["accept"]
        elif isinstance(a, dict) and set(a) == {"choice"} and isinstance(a["choice"], int) \
                and not isinstance(a["choice"], bool) and a["choice"] >= 1:
            kw["choice"] = a["choice"]
        else:
            ctx.bad(_line(t, "answer"), f"answer: expected {{accept: true|false}} or {{choice: n}} (1-based), got {a!r}")
    if "at" in t:
        kw["at"] = _when(ctx, _line(t, "at"), t["at"])
    if "session" in t:
        if isinstance(t["session"], str) and t["session"]:
            kw["session"] = t["session"]
        else:
            ctx.bad(_line(t, "session"), f"session: expected a name, got {t['session']!r}")
    for key in ("new_session", "restart"):
        if key in t and (v := _bool(ctx, t, key)) is not None:
            kw[key] = v
    if "wait" in t:
        v = t["wait"]
        if v == "timeout":
            kw["wait_timeout"] = True
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 600:
            kw["wait_s"] = float(v)
        else:
            ctx.bad(_line(t, "wait"), f"wait: expected seconds (0–600) or 'timeout', got {v!r}")
    if "message_id" in t:
        kw["message_id"] = str(t["message_id"])
    kw["expect"] = _expect(ctx, t)
    if "user" not in kw and "accept" not in kw and "choice" not in kw:
        return None
    return Turn(**kw)


def _setup(ctx: _Ctx, setup: Any, line: int) -> dict[str, Any]:
    """``setup:`` → the Story fields it sets (``documents``, ``clear_reminders``)."""
    if not isinstance(setup, dict):
        ctx.bad(line, f"setup: expected a mapping (documents: …, clear_reminders: true), got {setup!r}")
        return {}
    _unknown(ctx, setup, _SETUP_KEYS, "setup")
    out: dict[str, Any] = {"documents": _documents(ctx, setup)}
    if "clear_reminders" in setup and (v := _bool(ctx, setup, "clear_reminders")) is not None:
        out["clear_reminders"] = v
    return out


def _documents(ctx: _Ctx, setup: _Map) -> tuple[tuple[str, str], ...]:
    docs = setup.get("documents", [])
    if isinstance(docs, list) and all(isinstance(d, str) for d in docs):
        pairs = [(d, _DEFAULT_CONTENT) for d in docs]
    elif isinstance(docs, dict) and all(isinstance(v, str) for v in docs.values()):
        pairs = [(str(k), v) for k, v in docs.items()]
    else:
        ctx.bad(_line(setup, "documents"), "setup.documents: expected a list of file names or a mapping name → content")
        return ()
    for name, _ in pairs:
        if not name or "/" in name or name.startswith("."):
            ctx.bad(_line(setup, "documents"), f"setup.documents: {name!r} must be a plain file name")
    return tuple(pairs)


def _story(ctx: _Ctx, s: Any, line: int) -> Story | None:
    if not isinstance(s, dict):
        ctx.bad(line, f"a story must be a mapping (name:, turns:), got {type(s).__name__}")
        return None
    _unknown(ctx, s, _STORY_KEYS, "story")
    name = s.get("name")
    if not isinstance(name, str) or not name.strip():
        ctx.bad(line, "a story needs a name:")
        name = f"<unnamed at line {line}>"
    kw: dict[str, Any] = {"name": name, "file": ctx.file, "line": line}
    if "description" in s:
        kw["description"] = str(s["description"])
    if "locale" in s:
        if s["locale"] in ("zh", "en"):
            kw["locale"] = s["locale"]
        else:
            ctx.bad(_line(s, "locale"), f"locale: expected zh or en, got {s['locale']!r}")
    if "tz" in s:
        kw["tz"] = str(s["tz"])
    if "at" in s and (clock := _instant(ctx, _line(s, "at"), s["at"], "at")) is not None:
        kw["clock"] = clock
    if "setup" in s:
        kw.update(_setup(ctx, s["setup"], _line(s, "setup")))
    if "exclusive" in s and (v := _bool(ctx, s, "exclusive")) is not None:
        kw["exclusive"] = v
    if "covers" in s:
        kw["covers"] = _strs(ctx, s, "covers") or ()
    turns_raw = s.get("turns")
    if not isinstance(turns_raw, list) or not turns_raw:
        ctx.bad(_line(s, "turns"), "a story needs turns: (a non-empty list)")
        return None
    lines = getattr(turns_raw, "item_lines", [line] * len(turns_raw))
    turns = [_turn(ctx, t, ln) for t, ln in zip(turns_raw, lines)]
    kw["turns"] = tuple(t for t in turns if t is not None)
    if kw.get("clear_reminders") or any(t.wait_s or t.wait_timeout or t.restart for t in kw["turns"]):
        kw["exclusive"] = True
    return Story(**kw)


def load_text(text: str, file: str = "<story>") -> list[Story]:
    """Parse one file's text: a list of stories, or one story (a mapping).

    :param file: the name used in problems (``file:line: …``).
    :raises StoryError: with every problem of the file.
    """
    ctx = _Ctx(file, [])
    try:
        doc = yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader is a SafeLoader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = mark.line + 1 if mark is not None else 0
        raise StoryError([f"{file}:{where}: not valid YAML: {getattr(exc, 'problem', None) or exc}"]) from None
    if doc is None:
        raise StoryError([f"{file}:1: empty file (expected a list of stories)"])
    items: list[Any] = [doc] if isinstance(doc, dict) else doc if isinstance(doc, list) else []
    if not items:
        raise StoryError([f"{file}:1: expected a list of stories (or one story mapping), got {type(doc).__name__}"])
    lines = getattr(doc, "item_lines", None) or [getattr(doc, "line", 1)] * len(items)
    stories = [_story(ctx, s, ln) for s, ln in zip(items, lines)]
    if ctx.problems:
        raise StoryError(ctx.problems)
    return [s for s in stories if s is not None]


def load_file(path: Path) -> list[Story]:
    """The stories of one YAML file. :raises StoryError: unreadable file or bad content (``file:line``)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise StoryError([f"{path}:0: cannot read: {exc}"]) from None
    return load_text(text, str(path))


def discover(paths: Iterable[Path | str]) -> list[Path]:
    """Story files among ``paths``: files as given, folders searched for ``*.yaml``/``*.yml`` (sorted).

    :raises StoryError: a path that does not exist, or a folder without story files.
    """
    out: list[Path] = []
    problems: list[str] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(x for x in p.rglob("*") if x.suffix in (".yaml", ".yml") and x.is_file())
            if not found:
                problems.append(f"{p}:0: no *.yaml story files in this folder")
            out += found
        elif p.is_file():
            out.append(p)
        else:
            problems.append(f"{p}:0: no such file or folder")
    if problems:
        raise StoryError(problems)
    return out


def load_paths(paths: Iterable[Path | str]) -> list[Story]:
    """Every story under ``paths`` (see :func:`discover`), problems of all files reported together.

    Story names must be unique across the run, and files must agree on a shared
    document's content (one documents folder serves the whole run).

    :raises StoryError: every problem found, ``file:line: message``.
    """
    problems: list[str] = []
    stories: list[Story] = []
    for path in discover(paths):
        try:
            stories += load_file(path)
        except StoryError as exc:
            problems += exc.problems
    seen: dict[str, Story] = {}
    docs: dict[str, tuple[str, Story]] = {}
    for s in stories:
        if s.name in seen:
            problems.append(f"{s.where}: story name {s.name!r} is already used at {seen[s.name].where}")
        seen.setdefault(s.name, s)
        for name, content in s.documents:
            if name in docs and docs[name][0] != content:
                problems.append(f"{s.where}: document {name!r} has other content at {docs[name][1].where}")
            docs.setdefault(name, (content, s))
    if problems:
        raise StoryError(problems)
    return stories

