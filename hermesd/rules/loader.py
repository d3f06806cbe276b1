"""Rule packs from a folder: YAML or JSON, validated in full, errors with file and line.

:func:`load_rules` reads every ``*.yaml``/``*.yml``/``*.json`` file of a folder (sorted by
name), validates each as a :class:`~.model.RulePack`, checks across files (a ``rule_id``
used twice; optionally unknown intents and tools) and either returns a new
:class:`LoadedRules` or raises :class:`RulePackError` listing *every* problem, each with
``file:line`` (YAML node marks from ``yaml.compose``; JSON files are composed the same way,
JSON being YAML).

:class:`RuleSource` is the hot-reload shell: :meth:`RuleSource.poll` checksums the files
(sha256 of names and contents) and reloads when the sum changes; a broken pack is logged
(one ERROR line per problem) and reported in :attr:`RuleSource.last_error` while the
previous rules keep running. Swapping is one attribute assignment, so a turn holding the
old engine finishes on it.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import logging
import threading
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .. import yamlkeys
from ..errors import ConfigInvalid
from .engine import RuleEngine
from .model import Rule, RulePack, ToolAction
from .phrases import Phrase
from ..typed import ValidationError

__all__ = ["LoadedRules", "Problem", "RulePackError", "RuleSource", "checksum", "load_rules", "pack_files"]

log = logging.getLogger(__name__)
SUFFIXES = (".yaml", ".yml", ".json")
_Loc = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Problem:
    """One error in one file: ``line`` is 1-based (None when unknown), ``key`` a dotted path."""

    file: str
    line: int | None
    key: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.key + ': ' if self.key else ''}{self.message}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (for ``admin.status``)."""
        return {"file": self.file, "line": self.line, "key": self.key, "message": self.message}


class RulePackError(ConfigInvalid):
    """The packs did not load; ``problems`` lists every error found, in file order (code ``CONFIG_INVALID``)."""

    def __init__(self, problems: list[Problem], checksum: str | None = None) -> None:
        self.problems = problems
        #: checksum of the files that were read (None when the folder is missing).
        self.checksum = checksum
        super().__init__("\n".join(str(p) for p in problems),
                         data={"problems": [str(p) for p in problems]})


@dataclass(frozen=True, slots=True)
class LoadedRules:
    """A validated set of packs: the engine, where each pack came from, and the checksum."""

    engine: RuleEngine
    files: tuple[str, ...]
    checksum: str
    packs: tuple[tuple[str, RulePack], ...] = ()


def pack_files(folder: Path) -> list[Path]:
    """Pack files of ``folder`` sorted by name (hidden and editor backup files skipped)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir()
                  if p.suffix in SUFFIXES and not p.name.startswith(".") and p.is_file())


def checksum(folder: Path) -> str:
    """sha256 hex of the pack files' names and bytes (what a reload would read)."""
    h = hashlib.sha256()
    for p in pack_files(folder):
        try:
            data = p.read_bytes()
        except OSError:
            data = b"\0unreadable"
        h.update(p.name.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    return h.hexdigest()


# ---- YAML nodes with marks -------------------------------------------------------------------
class _Marks:
    """Node tree of one document, to turn a validation error's ``loc`` into a line."""

    def __init__(self, node: yaml.Node | None) -> None:
        self.node = node

    @staticmethod
    def _child(node: yaml.Node, seg: Any) -> yaml.Node | None:
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value == str(seg):
                    return v
        elif isinstance(node, yaml.SequenceNode) and isinstance(seg, int) and 0 <= seg < len(node.value):
            return node.value[seg]
        return None

    def _key_line(self, node: yaml.Node, seg: Any) -> int | None:
        if isinstance(node, yaml.MappingNode):
            for k, _ in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value == str(seg):
                    return k.start_mark.line + 1
        return None

    def _resolve(self, node: yaml.Node, loc: _Loc) -> tuple[int, int]:
        """(segments consumed, line) of the deepest node reachable, skipping segments that
        are not in the document (:mod:`hermesd.typed` puts union tags such as ``tool`` in ``loc``)."""
        if not loc:
            return 0, node.start_mark.line + 1
        best = (0, node.start_mark.line + 1)
        child = self._child(node, loc[0])
        if child is not None:
            used, line = self._resolve(child, loc[1:])
            if len(loc) == 1:
                line = self._key_line(node, loc[0]) or line
            best = (used + 1, line)
        skipped = self._resolve(node, loc[1:])
        return best if best[0] >= skipped[0] else skipped

    def line(self, loc: _Loc) -> int | None:
        if self.node is None:
            return None
        return self._resolve(self.node, tuple(loc))[1]


def _compose(text: str, name: str) -> tuple[Any, _Marks, list[Problem]]:
    """Data and marks of one YAML document; each duplicate key is a problem (:mod:`hermesd.yamlkeys`:
    PyYAML alone keeps the last)."""
    loader = yamlkeys.Loader(text)
    try:
        node = loader.single_node()
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    problems = [Problem(name, d.line, d.path, d.message()) for d in loader.duplicates]
    return data, _Marks(node), problems


def _read(path: Path) -> tuple[Any, _Marks, list[Problem]]:
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        return None, _Marks(None), [Problem(name, None, "", f"cannot read: {exc.strerror or exc}")]
    except UnicodeDecodeError as exc:
        return None, _Marks(None), [Problem(name, None, "", f"not UTF-8 text (byte {exc.start})")]
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            return None, _Marks(None), [Problem(name, exc.lineno, "", f"invalid JSON: {exc.msg} (column {exc.colno})")]
        try:
            _, marks, dups = _compose(text, name)
        except yaml.YAMLError:
            marks, dups = _Marks(None), []  # valid JSON PyYAML cannot compose (rare): no line numbers
        return data, marks, dups
    try:
        return _compose(text, name)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        return None, _Marks(None), [Problem(name, mark.line + 1 if mark else None, "", f"invalid YAML: {problem}")]


def _validation_problems(exc: ValidationError, name: str, marks: _Marks, data: Any) -> list[Problem]:
    out = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        key = ".".join(str(p) for p in loc)
        rule_id = _rule_id_at(data, loc)
        if rule_id:
            msg = f"{msg} (rule {rule_id})"
        out.append(Problem(name, marks.line(loc), key, msg))
    return out


def _rule_id_at(data: Any, loc: _Loc) -> str | None:
    if len(loc) >= 2 and loc[0] == "rules" and isinstance(loc[1], int) and isinstance(data, dict):
        rules = data.get("rules")
        if isinstance(rules, list) and loc[1] < len(rules) and isinstance(rules[loc[1]], dict):
            rid = rules[loc[1]].get("rule_id")
            return str(rid) if rid is not None else None
    return None


def _rule_note(data: Any, loc: _Loc) -> str:
    rule_id = _rule_id_at(data, loc)
    return f" (rule {rule_id})" if rule_id else ""


def _did_you_mean(name: str, known: Collection[str]) -> str:
    """``; did you mean 'x'?`` for the closest known name (difflib ratio >= 0.6), else ``""``."""
    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


_Indexed = Sequence[tuple[int, Rule]]


def _tool_locs(rules: _Indexed, fallback: list[Any]) -> Iterable[tuple[_Loc, str]]:
    def walk(actions: list[Any], base: _Loc) -> Iterable[tuple[_Loc, str]]:
        for i, a in enumerate(actions):
            if isinstance(a, ToolAction):
                yield (*base, i, "tool"), a.tool
                yield from walk(a.on_failure, (*base, i, "on_failure"))
    for r, rule in rules:
        yield from walk(rule.actions, ("rules", r, "actions"))
        yield from walk(rule.fallback, ("rules", r, "fallback"))
    yield from walk(fallback, ("fallback",))


def _tool_actions(pack: RulePack) -> Iterable[ToolAction]:
    def walk(actions: list[Any]) -> Iterable[ToolAction]:
        for a in actions:
            if isinstance(a, ToolAction):
                yield a
                yield from walk(a.on_failure)
    for rule in pack.rules:
        yield from walk(rule.actions)
        yield from walk(rule.fallback)
    yield from walk(pack.fallback)


def _reply_problems(rules: _Indexed, name: str, marks: _Marks,
                    tool_replies: Mapping[str, Phrase | None]) -> list[Problem]:
    """``{{steps.<id>.reply}}`` read where step ``<id>``'s tool has no reply template."""
    out = []
    for r, rule in rules:
        tools = {a.id: a.tool for a in rule.actions if isinstance(a, ToolAction) and a.id}
        for where, actions in (("actions", rule.actions), ("fallback", rule.fallback)):
            for i, a in enumerate(actions):
                paths = list(a.paths) + [p for c in getattr(a, "on_failure", []) for p in c.paths]
                read = dict.fromkeys(p[1] for p in paths if len(p) == 3 and p[0] == "steps" and p[2] == "reply")
                for step in read:
                    if step in tools and tools[step] in tool_replies and tool_replies[tools[step]] is None:
                        out.append(Problem(name, marks.line(("rules", r, where, i)), f"rules.{r}.{where}.{i}",
                                           f"{{{{steps.{step}.reply}}}}: tool {tools[step]!r} has no reply "
                                           f"template (add reply: to its tool.yaml) (rule {rule.rule_id})"))
    return out


def _salvage(data: Any) -> tuple[list[tuple[int, Rule]], list[Any], list[tuple[_Loc, str]], list[tuple[_Loc, str]]]:
    """What can still be checked of a pack that did not validate, so one run reports every error of
    the file (a schema error in one rule no longer hides an unknown intent in it or the next one):
    the rules that validate on their own (with their index), the pack fallback when it does, and of
    each rule that does not, the intent its trigger names and the tools its actions name, as written
    (``(loc, name)`` pairs)."""
    if not isinstance(data, dict):
        return [], [], [], []
    rules: list[tuple[int, Rule]] = []
    intents: list[tuple[_Loc, str]] = []
    tools: list[tuple[_Loc, str]] = []

    def raw_tools(actions: Any, base: _Loc) -> None:
        for i, a in enumerate(actions if isinstance(actions, list) else ()):
            if isinstance(a, dict) and isinstance(a.get("tool"), str):
                tools.append(((*base, i, "tool"), a["tool"]))
                raw_tools(a.get("on_failure"), (*base, i, "on_failure"))

    raw = data.get("rules")
    for r, item in enumerate(raw if isinstance(raw, list) else ()):
        try:
            rules.append((r, Rule.model_validate(item)))
            continue
        except ValidationError:
            pass  # its own errors are the pack's, reported already
        if not isinstance(item, dict):
            continue
        trigger = item.get("trigger")
        if isinstance(trigger, dict) and isinstance(trigger.get("intent"), str):
            intents.append((("rules", r, "trigger", "intent"), trigger["intent"]))
        raw_tools(item.get("actions"), ("rules", r, "actions"))
        raw_tools(item.get("fallback"), ("rules", r, "fallback"))
    try:
        fallback = RulePack.model_validate({"pack": "x", "fallback": data.get("fallback") or []}).fallback
    except ValidationError:
        fallback = []
        raw_tools(data.get("fallback"), ("fallback",))
    return rules, fallback, intents, tools


def load_rules(folder: Path, *, known_intents: Collection[str] | None = None,
               known_tools: Collection[str] | None = None,
               tool_replies: Mapping[str, Phrase | None] | None = None) -> LoadedRules:
    """Load and validate every pack in ``folder``.

    :param known_intents: if given, a trigger on any other intent is an error (naming the
        closest known one: "did you mean").
    :param known_tools: if given, a ``tool`` action naming any other tool is an error (likewise).
    :param tool_replies: tool name → its reply template (``reply:`` of its tool.yaml, None when it
        has none). Each tool step of the packs is bound to its tool's template, so the executor
        can render ``{{steps.<id>.reply}}``; reading that of a tool without a template is an error.
    :return: :class:`LoadedRules` (an empty folder gives an engine with no rules).
    :raises RulePackError: every problem of every file at once (the folder missing is one).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise RulePackError([Problem(str(folder), None, "", "rule folder does not exist")])
    digest = checksum(folder)
    problems: list[Problem] = []
    packs: list[tuple[str, RulePack]] = []
    where: dict[str, tuple[str, int | None]] = {}
    pack_names: dict[str, str] = {}
    files = pack_files(folder)
    for path in files:
        name = str(path)
        data, marks, errs = _read(path)
        problems.extend(errs)
        if errs and data is None:
            continue
        pack: RulePack | None
        try:
            pack = RulePack.model_validate(data)
            rules, fallback = list(enumerate(pack.rules)), pack.fallback
            raw_intents: list[tuple[_Loc, str]] = []
            raw_tools: list[tuple[_Loc, str]] = []
        except ValidationError as exc:
            problems.extend(_validation_problems(exc, name, marks, data))
            pack = None
            rules, fallback, raw_intents, raw_tools = _salvage(data)
        if pack is not None:
            if pack.pack in pack_names:
                problems.append(Problem(name, marks.line(("pack",)), "pack",
                                        f"pack name {pack.pack!r} is also used by {pack_names[pack.pack]}"))
            pack_names.setdefault(pack.pack, name)
        for r, rule in rules:
            line = marks.line(("rules", r, "rule_id"))
            if rule.rule_id in where:
                f, ln = where[rule.rule_id]
                problems.append(Problem(name, line, f"rules.{r}.rule_id",
                                        f"rule_id {rule.rule_id!r} is also defined at {f}:{ln}"))
            else:
                where[rule.rule_id] = (name, line)
        intent_refs = [(("rules", r, "trigger", "intent"), rule.trigger.intent) for r, rule in rules] + raw_intents
        if known_intents is not None:
            for loc, intent in intent_refs:
                if intent not in known_intents:
                    problems.append(Problem(name, marks.line(loc), ".".join(map(str, loc)),
                                            f"unknown intent {intent!r}{_rule_note(data, loc)}"
                                            f"{_did_you_mean(intent, known_intents)}"))
        if known_tools is not None:
            for loc, tool in [*_tool_locs(rules, fallback), *raw_tools]:
                if tool not in known_tools:
                    problems.append(Problem(name, marks.line(loc), ".".join(map(str, loc)),
                                            f"unknown tool {tool!r}{_rule_note(data, loc)}"
                                            f"{_did_you_mean(tool, known_tools)}"))
        if tool_replies is not None:
            problems.extend(_reply_problems(rules, name, marks, tool_replies))
            if pack is not None:
                for action in _tool_actions(pack):
                    action.bind_reply(tool_replies.get(action.tool))
        if pack is not None and not errs:
            packs.append((name, pack))
    if problems:
        # each check above walks the whole pack: listed as a person reads the files, file by file, top down
        order = {str(p): i for i, p in enumerate(files)}
        problems.sort(key=lambda p: (order.get(p.file, len(order)), p.line or 0))
        raise RulePackError(problems, digest)
    return LoadedRules(RuleEngine([p for _, p in packs]), tuple(str(p) for p in files), digest, tuple(packs))


@dataclass
class RuleSource:
    """Hot-reloadable rules from one folder (the I/O shell around :func:`load_rules`).

    Call :meth:`poll` every ``session.poll_interval_ms`` (it hashes a few KB), and
    :meth:`reload` on SIGHUP / ``admin.reload``. Read :attr:`engine` once per turn.

    :ivar current: the rules in use (None until a load succeeded).
    :ivar last_error: the last failed load, cleared by a successful one.
    """

    folder: Path
    known_intents: Collection[str] | None = None
    known_tools: Collection[str] | None = None
    #: tool name → reply template, bound into every load (see :func:`load_rules`)
    tool_replies: Mapping[str, Phrase | None] | None = None
    current: LoadedRules | None = None
    last_error: RulePackError | None = None
    _seen: str | None = field(default=None, repr=False)
    # poll (timer) and reload (SIGHUP, admin.reload) may run in two worker threads at once
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def engine(self) -> RuleEngine:
        """The engine in use; with no successful load yet, an empty one (all fallback)."""
        return self.current.engine if self.current is not None else _EMPTY

    def poll(self) -> bool:
        """Reload if the files' checksum changed since the last attempt. :return: True if a new pack set is in use."""
        with self._lock:
            if checksum(Path(self.folder)) == self._seen:
                return False
            return self._reload()

    def reload(self) -> bool:
        """Load now; on success swap :attr:`current`, on failure keep it and set :attr:`last_error`.

        :return: True when the new rules are in use. Never raises for a broken pack.
        """
        with self._lock:
            return self._reload()

    def _reload(self) -> bool:
        t0 = time.perf_counter()
        try:
            loaded = load_rules(Path(self.folder), known_intents=self.known_intents, known_tools=self.known_tools,
                                tool_replies=self.tool_replies)
        except RulePackError as exc:
            self._seen = exc.checksum
            self.last_error = exc
            for p in exc.problems:
                log.error("rule pack rejected", extra={"kv": {"file": p.file, "line": p.line, "key": p.key,
                                                               "error": p.message, "kept": self.current is not None}})
            return False
        self._seen = loaded.checksum
        self.current, self.last_error = loaded, None
        log.info("rules loaded", extra={"kv": {"folder": str(self.folder), "files": len(loaded.files),
                                               "rules": len(loaded.engine), "checksum": loaded.checksum[:16],
                                               "duration_ms": round((time.perf_counter() - t0) * 1000, 2)}})
        return True

    def status(self) -> dict[str, Any]:
        """JSON-ready status for ``admin.status``."""
        cur = self.current
        return {"folder": str(self.folder), "rules": len(self.engine),
                "checksum": cur.checksum[:16] if cur else None, "files": list(cur.files) if cur else [],
                "errors": [p.to_dict() for p in self.last_error.problems] if self.last_error else []}


_EMPTY = RuleEngine([])
