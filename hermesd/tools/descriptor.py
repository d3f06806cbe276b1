"""Tool descriptors: ``tools/<name>/tool.yaml`` validated as typed models (:mod:`hermesd.typed`), errors naming file and line.

A tool folder holds ``tool.yaml`` (this model), ``handler.py`` with
``handle(input: dict) -> dict`` and ``test_cases.json`` (see :class:`TestCase`). Several tools
may share one handler module instead: ``handler: ../_shared/api.py`` names it relative to the
tool's folder; it must be a ``.py`` file inside the tools folder (the folder holding the tool
folders, symlinks resolved), and the worker may read that module's folder and the tool's own.
Input and output schemas are JSON Schema or the shorthand of
:mod:`hermesd.tools.schema`. A handler reports an expected, business-level
failure by raising an exception with a ``code`` attribute naming one of the
descriptor's ``errors`` (and ``retryable = True`` when the breaker should count it).
"""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any, Literal

import yaml

from .. import lazyre
from ..rules.phrases import LANGS, Phrase, PhraseError
from .schema import SchemaError, Validator, expand
from ..typed import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

__all__ = ["BreakerSpec", "Descriptor", "DescriptorError", "FsGrants", "Grants", "NetGrants", "PLACEHOLDERS",
           "Sandbox", "Schedules", "TestCase", "load_descriptor"]

_NAME = lazyre.compile(r"^[a-z][a-z0-9_]{0,63}$")
_CODE = lazyre.compile(r"^[A-Z][A-Z0-9_]{1,63}$")
#: consecutive infrastructure failures that open a breaker, by the kind of thing the tool talks to
FAILURE_THRESHOLD_BY_KIND = {"local": 5, "database": 3, "network": 2}


class DescriptorError(ValueError):
    """One or more problems in a tool folder; ``problems`` holds ``"file:line: key: message"`` strings."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Sandbox(_Model):
    """Per-call limits (see :mod:`hermesd.tools.worker` for how each is enforced)."""

    memory_mb: int = Field(64, ge=8, le=4096)
    cpu_ms: int = Field(200, ge=10, le=600_000)
    timeout_ms: int = Field(2000, ge=10, le=600_000)
    max_open_files: int = Field(32, ge=4, le=4096)
    max_output_bytes: int = Field(65536, ge=256, le=64 << 20)
    max_file_bytes: int = Field(16 << 20, ge=0, le=1 << 40)
    max_processes: int = Field(32, ge=1, le=4096)
    network: bool = False

    def limits(self) -> dict[str, int]:
        """The worker's per-call limit dict."""
        return {"memory_mb": self.memory_mb, "cpu_ms": self.cpu_ms, "max_open_files": self.max_open_files,
                "max_output_bytes": self.max_output_bytes, "max_file_bytes": self.max_file_bytes,
                "max_processes": self.max_processes}


#: path placeholders a grant may start with → what they stand for (resolved by the service per call)
PLACEHOLDERS = {
    "{tool_data}": "the caller's data folder of a state: true tool (granted read-write anyway)",
    "{documents}": "tools.documents_dir (needs: [documents_dir])",
    "{outbox}": "tools.outbox_dir (needs: [outbox_dir])",
    "{directory_file}": "tools.directory_file (needs: [directory_file])",
    "{data_dir}": "tools.data_dir, a pack's reference data (needs: [data_dir])",
    "{state}": "the daemon's state folder; only sub-paths outside its own files",
}
_NEEDS_BY_PLACEHOLDER = {"{documents}": "documents_dir", "{outbox}": "outbox_dir",
                         "{directory_file}": "directory_file", "{data_dir}": "data_dir"}
#: ``{state}/<first>`` a grant may never name: other tools' data, the archive, self-test scratch
_STATE_PROTECTED = {"tools", "archive", "selftest", "tmp"}
#: never readable, whatever a tool declares
_NEVER_READ = ("/", "/etc", "/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/etc/hermesd",
               "/root", "/var/lib/hermesd", "/proc/kcore")
#: never writable (the system a worker reads must stay as it is)
_NEVER_WRITE = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/proc", "/sys",
                "/dev", "/var/lib/hermesd")
_GROUP = lazyre.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
_CONNECT = lazyre.compile(r"^(?P<host>\*|\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):(?P<port>\*|[0-9]{1,5})$")


def _grant_path(path: str, write: bool) -> str:
    """Check one ``fs`` grant; return it normalised, or raise ValueError saying why not."""
    if not isinstance(path, str) or not path:
        raise ValueError("a path must be a non-empty string")
    head, _, rest = path.partition("/")
    if head.startswith("{"):
        if head not in PLACEHOLDERS:
            raise ValueError(f"{path!r}: unknown placeholder {head}; use one of {', '.join(PLACEHOLDERS)}")
        if head == "{state}" and (not rest or rest.split("/")[0] in _STATE_PROTECTED):
            raise ValueError(f"{path!r}: {{state}} alone, {{state}}/tools, /archive, /selftest and /tmp hold "
                             "other data; name a sub-folder of its own, e.g. {state}/documents")
    elif not path.startswith("/"):
        raise ValueError(f"{path!r}: an absolute path or a placeholder ({', '.join(PLACEHOLDERS)})")
    parts = [p for p in path.split("/") if p]
    if any(p in (".", "..") for p in parts):
        raise ValueError(f"{path!r}: no . or .. components")
    norm = (head + "/" + "/".join(parts[1:])).rstrip("/") if head.startswith("{") else "/" + "/".join(parts)
    if not head.startswith("{"):
        if norm in _NEVER_READ or any(norm.startswith(p + "/") for p in ("/etc/hermesd", "/var/lib/hermesd")):
            raise ValueError(f"{path!r}: never granted (system secrets or hermesd's own state)")
        if write and any(norm == p or norm.startswith(p + "/") for p in _NEVER_WRITE):
            raise ValueError(f"{path!r}: system folders are never writable")
    return norm


class FsGrants(_Model):
    """Paths a worker may read, or read and write, besides the system, its folder and its temp folder."""

    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()

    @field_validator("read", "write")
    @classmethod
    def _paths(cls, v: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        return tuple(_grant_path(p, info.field_name == "write") for p in v)


class NetGrants(_Model):
    """TCP connections a ``sandbox.network: true`` tool may open, ``HOST:PORT`` with ``*`` for either.

    Landlock (ABI 4) filters TCP by port only: the port is enforced, the host is a
    declaration (``hermesctl tools`` says so); UDP and other protocols are not filtered.
    """

    connect: tuple[str, ...] = ()

    @field_validator("connect")
    @classmethod
    def _endpoints(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for item in v:
            m = _CONNECT.match(item) if isinstance(item, str) else None
            if m is None or (m["port"] != "*" and not 1 <= int(m["port"]) <= 65535):
                raise ValueError(f"{item!r}: HOST:PORT, e.g. 127.0.0.1:8080, *:53 or 127.0.0.1:*")
        return v

    def ports(self) -> list[int] | None:
        """The ports to allow, or ``None`` when a grant allows any port."""
        ports: set[int] = set()
        for item in self.connect:
            port = item.rsplit(":", 1)[1]
            if port == "*":
                return None
            ports.add(int(port))
        return sorted(ports)


class Grants(_Model):
    """What a tool needs beyond the bare sandbox (``grants:`` in tool.yaml).

    ``fs.read``/``fs.write``: absolute paths or placeholders (:data:`PLACEHOLDERS`);
    ``groups``: supplementary groups the worker gets (``systemd-journal`` to read the
    journal); ``network.connect``: TCP endpoints (:class:`NetGrants`).
    """

    fs: FsGrants = FsGrants()
    groups: tuple[str, ...] = ()
    network: NetGrants = NetGrants()

    @field_validator("groups")
    @classmethod
    def _groups(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for g in v:
            if not isinstance(g, str) or not _GROUP.match(g):
                raise ValueError(f"{g!r}: a group name")
            if g in ("root", "wheel", "sudo", "shadow", "disk", "adm", "hermesd", "docker", "lxd"):
                raise ValueError(f"{g!r}: a group that amounts to root or to hermesd's own files is never granted")
        return v

    def summary(self) -> dict[str, Any]:
        """JSON-ready, for ``tools.list`` and ``hermesctl tools``."""
        return {"fs": {"read": list(self.fs.read), "write": list(self.fs.write)}, "groups": list(self.groups),
                "network": {"connect": list(self.network.connect)}}


class BreakerSpec(_Model):
    """Per-tool breaker overrides; ``None`` takes the ``tools.breaker`` config (threshold: by ``kind``)."""

    failure_threshold: int | None = Field(None, ge=1, le=1000)
    cooldown_ms: int | None = Field(None, ge=10, le=3_600_000)
    cooldown_max_ms: int | None = Field(None, ge=10, le=86_400_000)


_FIELD = lazyre.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


class Schedules(_Model):
    """A tool's scheduled side: calls that create items due later (a reminder) and calls that cancel
    them. The daemon keeps one event per item in its schedule and publishes it when due
    (``events.subscribe``), across restarts; the handler only stores and lists its items.

    ``action`` is the input field saying what a call does; a call whose ``action`` is ``create``
    schedules each object of the output array ``items``: named ``key`` (a template over the item's
    fields, ``"reminder:{id}"``), due at the item's ``due`` field (RFC 3339; a time without an offset
    is in the device zone; an item whose ``due`` does not parse is not scheduled), with ``data``
    (event field → item field; ``session_id`` is added). A call whose ``action`` is ``cancel``
    unschedules the key of each listed item that has the field values of ``cancelled``, and the key
    filled from the call's own input when the input gives every field the key names (cancel by id).
    ``kind`` is the event kind published (one of the kinds ``events.subscribe`` knows).
    ``repeat`` names the item field holding a repeating item's rule (:meth:`hermesd.recurrence.Rule.to_json`;
    absent or null for a one-off): each time its event fires the daemon arms the next occurrence under
    the same key, the ``data`` fields filled from ``due`` rewritten to it.
    """

    kind: str = Field(pattern=r"^[a-z][a-z0-9_.]{0,63}$")
    action: str = Field("action", pattern=_FIELD.pattern)
    create: str = "create"
    cancel: str = "cancel"
    items: str = Field(pattern=_FIELD.pattern)
    key: str = Field(min_length=1, max_length=200)
    due: str = Field(pattern=_FIELD.pattern)
    data: dict[str, str] = {}
    cancelled: dict[str, Any] = {}
    repeat: str | None = Field(None, pattern=_FIELD.pattern)

    @field_validator("key")
    @classmethod
    def _key(cls, v: str) -> str:
        try:
            fields = [f for _, f, _, _ in string.Formatter().parse(v) if f is not None]
        except ValueError as exc:
            raise ValueError(f"key template {v!r}: {exc}") from None
        if not fields or not all(_FIELD.match(f) for f in fields):
            raise ValueError(f"key template {v!r} must name item fields as {{field}} (at least one)")
        return v

    @field_validator("data")
    @classmethod
    def _data(cls, v: dict[str, str]) -> dict[str, str]:
        bad = [f"{k}: {f}" for k, f in v.items() if not (_FIELD.match(k) and isinstance(f, str) and _FIELD.match(f))]
        if bad:
            raise ValueError(f"data maps an event field to an item field (names): {bad}")
        if "session_id" in v:
            raise ValueError("data: session_id is added by the daemon")
        if "_repeat" in v:
            raise ValueError("data: _repeat is the daemon's (how a repeating event is armed again)")
        return v

    @property
    def key_fields(self) -> tuple[str, ...]:
        """The item fields the key template names."""
        return tuple(f for _, f, _, _ in string.Formatter().parse(self.key) if f)

    def check(self, input_schema: dict[str, Any], output_schema: dict[str, Any]) -> None:
        """The declared fields exist in the tool's schemas.

        :raises ValueError: ``action`` is not an input field whose enum holds ``create`` and ``cancel``,
            or ``items`` is not an output array.
        """
        prop = (input_schema.get("properties") or {}).get(self.action)
        if prop is None:
            raise ValueError(f"schedules.action: {self.action!r} is not an input field")
        enum = prop.get("enum")
        if enum is not None and not {self.create, self.cancel} <= set(enum):
            raise ValueError(f"schedules: input {self.action!r} allows {enum}, not {self.create!r} and {self.cancel!r}")
        out = (output_schema.get("properties") or {}).get(self.items)
        if out is None or out.get("type") != "array":
            raise ValueError(f"schedules.items: {self.items!r} is not an output array")


class TestCase(_Model):
    """One self-test: ``input`` and what to expect.

    ``expect`` holds any of ``keys`` (output keys that must be present),
    ``values`` (exact values of output keys) or ``error`` (a stable code such as
    ``INPUT_INVALID`` or one of the tool's business ``errors``); ``any_of`` lists
    alternatives, e.g. a result where systemd runs or ``SYSTEMD_UNAVAILABLE``.
    """

    __test__ = False  # not a pytest class
    name: str
    input: dict[str, Any] = {}
    expect: dict[str, Any] = {}
    any_of: list[dict[str, Any]] = []

    @model_validator(mode="after")
    def _has_expectation(self) -> "TestCase":
        for exp in [self.expect, *self.any_of]:
            bad = set(exp) - {"keys", "values", "error"}
            if bad:
                raise ValueError(f"unknown expectation {sorted(bad)}; use keys, values or error")
        if not self.expect and not self.any_of:
            raise ValueError("a case needs expect or any_of")
        return self

    def check(self, output: dict | None, error: str | None) -> str | None:
        """``None`` when the result meets an expectation, else why not (first alternative's reason)."""
        reasons = []
        for exp in ([self.expect] if self.expect else []) + list(self.any_of):
            why = _meets(exp, output, error)
            if why is None:
                return None
            reasons.append(why)
        return reasons[0]


def _meets(exp: dict[str, Any], output: dict | None, error: str | None) -> str | None:
    if "error" in exp:
        return None if error == exp["error"] else f"expected error {exp['error']}, got {error or 'success'}"
    if error is not None:
        return f"expected success, got {error}"
    assert output is not None
    missing = [k for k in exp.get("keys", []) if k not in output]
    if missing:
        return f"output lacks keys {missing}"
    for key, want in exp.get("values", {}).items():
        if output.get(key) != want:
            return f"output {key}={output.get(key)!r}, expected {want!r}"
    return None


class Descriptor(_Model):
    """A validated ``tool.yaml`` plus its folder.

    ``description`` may be a string or ``{en, zh}``; ``roles`` may call it
    (``admin``, ``user``); ``confirm`` asks the user first (session layer);
    ``secrets`` are input fields never logged; ``errors`` maps the business error
    codes the handler may raise to a sentence — a string (a technician's description,
    English) or ``{zh, en}`` (what a person is told, with what to do next; ``en`` is then
    also the description); ``state`` gives the tool a data folder
    (``HERMESD_TOOL_STATE_DIR``); ``needs`` lists other daemon-provided paths
    (``documents_dir``, ``outbox_dir``, ``directory_file``, ``data_dir``); ``grants`` is what the
    worker may reach beyond the bare sandbox (:class:`Grants`), each placeholder backed
    by the ``needs`` entry that gives the tool its path.

    ``subject`` names what the tool does as the subject of a sentence, ``{zh: 网络检查, en:
    the network check}``, for failure sentences; ``reply`` is the tool's own reply template
    over its output (:mod:`hermesd.rules.phrases`), which may name only declared output fields.
    ``schedules`` declares the tool's scheduled side (:class:`Schedules`: reminders), checked
    against its input and output schemas.
    """

    name: str
    version: str = "0.1.0"
    description: dict[str, str]
    input: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})
    output: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})
    sandbox: Sandbox = Sandbox()
    confirm: bool = False
    idempotent: bool = False
    roles: frozenset[Literal["admin", "user"]] = frozenset({"admin", "user"})
    kind: Literal["local", "database", "network"] = "local"
    breaker: BreakerSpec = BreakerSpec()
    secrets: tuple[str, ...] = ()
    errors: dict[str, str] = {}
    state: bool = False
    needs: tuple[Literal["documents_dir", "outbox_dir", "directory_file", "data_dir"], ...] = ()
    grants: Grants = Grants()
    subject: dict[str, str] = {}
    #: the handler module, relative to the tool's folder (a module shared by several tools)
    handler: str = "handler.py"
    schedules: Schedules | None = None
    #: the parsed ``reply:`` (:class:`~hermesd.rules.phrases.Phrase`), None when the tool has none
    reply: Any = None
    #: business code → {lang: sentence}, from the codes ``errors`` gives as ``{zh, en}``
    error_texts: dict[str, dict[str, str]] = {}
    #: business code → the entity type of the one value it refuses (``ask_again: datetime`` beside the
    #: sentences: a time already gone); the session then waits for another value of that type, the rest
    #: of the request kept (:meth:`hermesd.session.planrun.PlanRunner._ask_again`)
    error_asks: dict[str, str] = {}
    folder: Path = Path(".")

    @model_validator(mode="before")
    @classmethod
    def _bilingual_errors(cls, data: Any) -> Any:
        # errors: {CODE: {zh, en}} keeps ``errors`` a code → description map (en) for older readers
        if not (isinstance(data, dict) and isinstance(data.get("errors"), dict)):
            return data
        given = {c: v for c, v in data["errors"].items() if isinstance(v, dict)}
        if not given:
            return data
        asks = {c: v["ask_again"] for c, v in given.items() if "ask_again" in v}
        for code, etype in asks.items():
            if not (isinstance(etype, str) and etype.strip()):
                raise ValueError(f"errors.{code}.ask_again: the entity type of the value to ask for again, e.g. datetime")
        texts = {c: {k: x for k, x in v.items() if k != "ask_again"} for c, v in given.items()}
        for code, v in texts.items():
            if set(v) - set(LANGS) or not v or not all(isinstance(x, str) and x.strip() for x in v.values()):
                raise ValueError(f"errors.{code}: give a sentence per language, {{zh: …, en: …}}")
        errors = {c: (v.get("en") or v.get("zh")) if isinstance(v, dict) else v for c, v in data["errors"].items()}
        return {**data, "errors": errors, "error_texts": texts, "error_asks": asks}

    @model_validator(mode="after")
    def _grants_match_needs(self) -> "Descriptor":
        used = {p.split("/", 1)[0] for p in (*self.grants.fs.read, *self.grants.fs.write) if p.startswith("{")}
        if "{tool_data}" in used and not self.state:
            raise ValueError("grants: {tool_data} exists only for a state: true tool")
        for placeholder, need in _NEEDS_BY_PLACEHOLDER.items():
            if placeholder in used and need not in self.needs:
                raise ValueError(f"grants: {placeholder} needs `needs: [{need}]` (the tool would not know the path)")
            if need in self.needs and placeholder not in used:
                raise ValueError(f"needs: {need} without a grant on {placeholder}: the worker could not reach it; "
                                 f"add it to grants.fs.read or grants.fs.write")
        if self.grants.network.connect and not self.sandbox.network:
            raise ValueError("grants.network needs sandbox.network: true (the worker has no network otherwise)")
        return self

    @model_validator(mode="after")
    def _schedules_match_schemas(self) -> "Descriptor":
        if self.schedules is not None:
            self.schedules.check(self.input, self.output)
        return self

    @field_validator("reply")
    @classmethod
    def _reply_template(cls, v: Any, info: ValidationInfo) -> Phrase | None:
        if v is None or isinstance(v, Phrase):
            return v
        output = info.data.get("output")
        if output is None:
            return None  # the output schema is broken: reported on its own
        fields = tuple((output.get("properties") or {}).keys())
        if "reply" in fields:
            raise ValueError("an output field named 'reply' would clash with the rendered reply")
        try:
            return Phrase.parse(v, fields)
        except PhraseError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _NAME.match(v):
            raise ValueError("must match ^[a-z][a-z0-9_]{0,63}$")
        return v

    @field_validator("description", mode="before")
    @classmethod
    def _description(cls, v: Any) -> Any:
        if isinstance(v, str):
            return {"en": v}
        if isinstance(v, dict) and not ({"en", "zh"} & v.keys()):
            raise ValueError("needs en and/or zh")
        return v

    @field_validator("input", "output", mode="before")
    @classmethod
    def _schema(cls, v: Any) -> Any:
        try:
            schema = expand(v)
            Validator(schema)
        except SchemaError as exc:
            raise ValueError(f"invalid JSON Schema: {exc}") from None
        return schema

    @field_validator("errors")
    @classmethod
    def _errors(cls, v: dict[str, str]) -> dict[str, str]:
        for code in v:
            if not _CODE.match(code):
                raise ValueError(f"error code {code!r} must be UPPER_SNAKE_CASE")
        return v

    @field_validator("subject")
    @classmethod
    def _subject(cls, v: dict[str, str]) -> dict[str, str]:
        if v and (set(v) - set(LANGS) or not all(isinstance(x, str) and x.strip() for x in v.values())):
            raise ValueError("a noun phrase per language, {zh: 网络检查, en: the network check}")
        return v

    @property
    def reply_template(self) -> Phrase | None:
        """The parsed ``reply:`` template, or None when the tool has none."""
        return self.reply

    def subject_text(self, lang: str) -> str | None:
        """What the tool does as a sentence's subject in ``lang`` (网络检查 / the network check), or None."""
        return self.subject.get("zh" if lang == "zh" else "en")

    def error_text(self, code: str, lang: str) -> str | None:
        """The tool's own sentence for business error ``code`` in ``lang`` (from ``{zh, en}``), or None."""
        texts = self.error_texts.get(code) or {}
        return texts.get("zh" if lang == "zh" else "en")

    @property
    def handler_path(self) -> Path:
        """The handler module: ``handler.py`` in the tool's folder, or the shared module ``handler`` names."""
        return self.folder / self.handler

    def failure_threshold(self, default_by_kind: dict[str, int] | None = None) -> int:
        """The breaker threshold: the descriptor's, else the default for its ``kind``."""
        table = default_by_kind or FAILURE_THRESHOLD_BY_KIND
        return self.breaker.failure_threshold or table[self.kind]

    def text(self, lang: str = "en") -> str:
        """Description in ``lang``, falling back to the other language."""
        return self.description.get(lang) or next(iter(self.description.values()))


#: libyaml's parser when PyYAML has it (several times faster at start), the same safe constructors
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _KeyLines:
    """YAML key path → 1-based line, composed only when a problem needs a line (rarely)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._lines: dict[tuple, int] | None = None

    def _get(self) -> dict[tuple, int]:
        if self._lines is None:
            self._lines = _key_lines(self._text)
        return self._lines

    def __contains__(self, key: tuple) -> bool:
        return key in self._get()

    def __getitem__(self, key: tuple) -> int:
        return self._get()[key]

    def get(self, key: tuple, default: int) -> int:
        return self._get().get(key, default)


def _key_lines(text: str) -> dict[tuple, int]:
    """YAML key path → 1-based line, from the composed node tree."""
    lines: dict[tuple, int] = {}

    def walk(node: yaml.Node, path: tuple) -> None:
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                key = (*path, k.value)
                lines[key] = k.start_mark.line + 1
                walk(v, key)
        elif isinstance(node, yaml.SequenceNode):
            for i, v in enumerate(node.value):
                lines[(*path, i)] = v.start_mark.line + 1
                walk(v, (*path, i))

    root = yaml.compose(text, Loader=_YAML_LOADER)
    if root is not None:
        walk(root, ())
    return lines


def load_descriptor(folder: Path) -> tuple[Descriptor, list[TestCase]]:
    """Load and validate ``folder``/tool.yaml, handler.py and test_cases.json.

    :raises DescriptorError: every problem found, each as ``"path:line: key: message"``.
    """
    path = folder / "tool.yaml"
    problems: list[str] = []
    try:
        text = path.read_text(encoding="utf-8")
        raw = yaml.load(text, Loader=_YAML_LOADER)
        lines = _KeyLines(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise DescriptorError([f"{path}: cannot read: {exc}"]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise DescriptorError([f"{where}: invalid YAML: {getattr(exc, 'problem', exc)}"]) from None
    if not isinstance(raw, dict):
        raise DescriptorError([f"{path}:1: the descriptor must be a mapping"])
    descriptor = None
    try:
        descriptor = Descriptor.model_validate({**raw, "folder": folder})
    except ValidationError as exc:
        for err in exc.errors():
            loc = tuple(err["loc"])
            line = next((lines[loc[:i]] for i in range(len(loc), 0, -1) if loc[:i] in lines), 1)
            msg = err["msg"].removeprefix("Value error, ")
            problems.append(f"{path}:{line}: {'.'.join(map(str, loc)) or '(top)'}: {msg}")
    if descriptor is not None and descriptor.name != folder.name:
        problems.append(f"{path}:{lines.get(('name',), 1)}: name: {descriptor.name!r} must match "
                        f"its folder {folder.name!r}")
    handler = str(raw.get("handler") or "handler.py")
    module = folder / handler
    tools_root = folder.resolve().parent
    if not handler.endswith(".py") or Path(handler).is_absolute():
        problems.append(f"{path}:{lines.get(('handler',), 1)}: handler: {handler!r} must be a relative path to a .py file")
    elif not module.is_file():
        problems.append(f"{module}: missing")
    elif not module.resolve().is_relative_to(tools_root):
        problems.append(f"{path}:{lines.get(('handler',), 1)}: handler: {handler!r} lies outside the tools folder "
                        f"{tools_root} (a worker may read only its tool's folder and modules shared beside it)")
    cases: list[TestCase] = []
    cases_path = folder / "test_cases.json"
    try:
        data = json.loads(cases_path.read_text(encoding="utf-8"))
        if not isinstance(data, list) or not data:
            raise ValueError("must be a non-empty JSON array of cases")
        for i, item in enumerate(data):
            try:
                cases.append(TestCase.model_validate(item))
            except ValidationError as exc:
                problems.append(f"{cases_path}: case {i}: {exc.errors()[0]['msg']}")
    except OSError as exc:
        problems.append(f"{cases_path}: cannot read: {exc.strerror}")
    except ValueError as exc:
        problems.append(f"{cases_path}: {exc}")
    if problems:
        raise DescriptorError(problems)
    assert descriptor is not None
    return descriptor, cases
