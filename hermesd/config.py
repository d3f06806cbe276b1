"""Configuration: typed models (:mod:`hermesd.typed`) and layered loading with every error reported at once.

Layers, later wins, merged key by key (mopidy's scheme):

1. the shipped defaults, ``config/hermesd.yaml`` (models carry the same defaults,
   so an installed package without that file behaves the same);
2. ``/etc/hermesd/hermesd.yaml`` if it exists;
3. ``--config FILE`` (or ``HERMESD_CONFIG``);
   in every file (1–3), a relative path-valued setting is taken from that file's folder (a
   pack's config names its folders beside it, whatever the working directory; see
   :func:`_relative_to_file`); in the environment and on the command line, from the working
   directory;
4. environment: ``HERMESD_<SECTION>__<KEY>=value`` (``__`` separates levels,
   values are YAML scalars, e.g. ``HERMESD_SERVER__MAX_CONNECTIONS=64``), plus the
   aliases ``HERMESD_SOCKET`` → ``paths.socket_path`` and ``HERMESD_STATE_DIR`` →
   ``paths.state_dir``;
5. command-line overrides (``--socket``, ``--state-dir``).

:func:`load` never exits: it raises :class:`ConfigError` holding every problem
found (file and line, key path, bad value, what is allowed, "did you mean …");
``cli.py`` prints them and exits 78 (``EX_CONFIG``, sysexits.h).

Shipped data (the defaults file, intents, rules, dialogue lexicon, tools, people
directory) is found by :func:`hermesd.section.shipped_path`, one order for every
kind of install: ``$HERMESD_SHARE_DIR`` alone when set (``systemd/hermesd.service``
sets ``/usr/share/hermesd``, where ``scripts/install`` puts them); else the source
checkout (``<repo>/config``, ``<repo>/tools``, when ``<repo>/pyproject.toml`` exists);
else the wheel's package data (``hermesd/_shipped``, so ``pip install hermesd &&
hermesd run`` answers); else ``/usr/share/hermesd``. A config key naming a folder or
file (``nlu.intent_dirs``, ``session.rules_dir``, ``tools.tools_dir``,
``memory.directory_path``) wins over all of them.
"""

from __future__ import annotations

import copy
import difflib
import functools
import hashlib
import ipaddress
import os
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Mapping

import orjson
import yaml

from . import lazyre, yamlkeys
from .errors import ConfigInvalid
from .logging import redact
from .llm.settings import LlmSettings
from .memory.archive_settings import ArchiveSettings, UpstreamSettings
from .memory.settings import MemorySettings
from .nlu.settings import NluSettings
from .section import Section, shipped_path
from .session.reminder_settings import RemindersSettings
from .session.settings import SessionSettings
from .tools.settings import ToolsSettings
from .typed import BaseModel, Field, ValidationError, error_sentence, field_validator

__all__ = [
    "ConfigError",
    "ConfigProblem",
    "HermesConfig",
    "LoggingSettings",
    "MetricsSettings",
    "PathsSettings",
    "RoleRule",
    "RolesSettings",
    "Section",
    "ServerSettings",
    "SHIPPED_CONFIG",
    "ETC_CONFIG",
    "digest",
    "load",
    "resolve_socket_path",
    "resolve_state_dir",
    "shipped_path",
]

#: shipped defaults (``config/hermesd.yaml``).
SHIPPED_CONFIG = shipped_path("config", "hermesd.yaml")
ETC_CONFIG = Path("/etc/hermesd/hermesd.yaml")
ENV_PREFIX = "HERMESD_"
#: HERMESD_* variables that are not config keys (read elsewhere).
_ENV_NOT_CONFIG = frozenset({"HERMESD_CONFIG", "HERMESD_SHARE_DIR"})  # the latter: hermesd.section.share_dirs
_ENV_ALIASES = {"HERMESD_SOCKET": ("paths", "socket_path"), "HERMESD_STATE_DIR": ("paths", "state_dir")}


class PathsSettings(Section):
    """Where this instance keeps its socket and state.

    ``None`` means automatic: under systemd, ``$RUNTIME_DIRECTORY/hermesd.sock`` and
    ``$STATE_DIRECTORY``; run by hand, ``./var/hermesd.sock`` and ``./var/state``.
    """

    socket_path: Path | None = None
    state_dir: Path | None = None


class ServerSettings(Section):
    """The Unix-socket JSON-RPC server."""

    max_line_bytes: int = Field(65536, ge=256, le=16 * 1024 * 1024)
    max_connections: int = Field(256, ge=1, le=65536)
    idle_timeout_s: float = Field(300.0, gt=0)
    socket_mode: int = Field(0o660, ge=0, le=0o777, description="octal in YAML: 0o660 or 432")
    #: requests one connection may have running at once; past it the server stops
    #: reading that connection (TCP-style backpressure), so a flood slows only its sender.
    max_inflight_per_connection: int = Field(64, ge=1, le=4096)
    shutdown_grace_s: float = Field(10.0, ge=0, le=300)
    #: ``debug.echo`` and ``debug.block`` (admin only) for diagnosing a device; off in production.
    debug_methods: bool = False
    #: the asyncio event loop: ``asyncio`` (the standard library's selector loop; the default) or
    #: ``uvloop`` (libuv: ~12 % faster on ``admin.ping``, 67 vs 76 µs p50 with one client and 100k vs
    #: 88k requests/s with 64, but 6.8 MB more resident, 51.6 vs 44.8 MB idle: its extension module
    #: and the OpenSSL it imports, which :mod:`hermesd.openssl` otherwise leaves unloaded). A turn's
    #: own work (~1 ms) dwarfs the loop's 10 µs. Both serve the same protocol.
    event_loop: Literal["uvloop", "asyncio"] = "asyncio"

    @field_validator("socket_mode", mode="before")
    @classmethod
    def _octal(cls, v: Any) -> Any:
        # "0o660", "0660" and "660" all mean octal (YAML 1.1 reads a bare 0660 as octal too);
        # a bare 660 that only makes sense as octal (> 0o777, octal digits) is read as octal
        if isinstance(v, str) and v.strip().removeprefix("0o").isdigit():
            try:
                return int(v.strip().removeprefix("0o"), 8)
            except ValueError:
                raise ValueError(f"{v.strip()!r} is not an octal file mode: each digit is 0-7, e.g. 0660 "
                                 "(owner and group read-write)") from None
        if isinstance(v, int) and v > 0o777 and set(str(v)) <= set("01234567"):
            return int(str(v), 8)
        return v


class RoleRule(Section):
    """Peers matching any uid or any group (name or gid) get the role."""

    uids: list[int] = Field(default_factory=list)
    groups: list[str | int] = Field(default_factory=list)


class RolesSettings(Section):
    """Role of a peer from its ``SO_PEERCRED`` uid/gid. ``admin`` wins over ``user``.

    The daemon's own uid is always ``admin``; anyone matching neither is refused
    with ``PERMISSION_DENIED``.
    """

    admin: RoleRule = RoleRule(uids=[0])
    user: RoleRule = RoleRule(groups=["hermesd"])


class LoggingSettings(Section):
    """journald-friendly key=value logs on stderr."""

    level: Literal["debug", "info", "warning", "error"] = "info"
    #: ``auto``: syslog priority prefixes when ``JOURNAL_STREAM`` is set, timestamps otherwise.
    format: Literal["auto", "journal", "plain"] = "auto"
    #: log one line per request (method, outcome, duration_ms) at this level.
    access_log: Literal["off", "debug", "info"] = "debug"


class MetricsSettings(Section):
    """Ways to scrape the metrics besides ``admin.metrics`` on the socket (both off by default).

    :param listen: ``HOST:PORT`` (``[::1]:9464`` for IPv6) of an HTTP listener serving
        ``GET /metrics``; an IP literal or ``localhost``. Prometheus cannot scrape a Unix socket.
    :param textfile: a ``*.prom`` file for node_exporter's textfile collector, rewritten
        atomically (temporary file in the same folder, then rename) every ``textfile_interval_s``.
    """

    listen: str | None = None
    textfile: Path | None = None
    textfile_interval_s: float = Field(15.0, ge=1, le=3600)

    @field_validator("listen")
    @classmethod
    def _host_port(cls, v: str | None) -> str | None:
        if v is None or v == "":
            return None
        split_listen(v)
        return v

    @field_validator("textfile")
    @classmethod
    def _prom(cls, v: Path | None) -> Path | None:
        if v is None or str(v) == "":
            return None
        if v.suffix != ".prom":
            raise ValueError("node_exporter reads only files ending in .prom")
        if not v.is_absolute():
            raise ValueError("give an absolute path (the daemon's working folder is not the collector's)")
        return v


def split_listen(value: str) -> tuple[str, int]:
    """``"127.0.0.1:9464"`` → ``("127.0.0.1", 9464)``; ``"[::1]:9464"`` → ``("::1", 9464)``.

    :raises ValueError: not ``HOST:PORT``, the host is neither an IP literal nor ``localhost``,
        or the port is outside 0–65535 (0: any free port; ``admin.status`` shows the one bound).
    """
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError("expected HOST:PORT, e.g. 127.0.0.1:9464 or [::1]:9464")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise ValueError("write an IPv6 address in brackets, e.g. [::1]:9464")
    if host != "localhost":
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise ValueError(f"host {host!r} is not an IP address or localhost") from None
    if not 0 <= int(port) <= 65535:
        raise ValueError(f"port {port} is outside 0-65535")
    return host, int(port)




class HermesConfig(Section):
    """The whole configuration: the daemon's own sections plus one per subsystem."""

    paths: PathsSettings = PathsSettings()
    server: ServerSettings = ServerSettings()
    roles: RolesSettings = RolesSettings()
    logging: LoggingSettings = LoggingSettings()
    metrics: MetricsSettings = MetricsSettings()
    nlu: NluSettings = NluSettings()
    memory: MemorySettings = MemorySettings()
    tools: ToolsSettings = ToolsSettings()
    session: SessionSettings = SessionSettings()
    reminders: RemindersSettings = RemindersSettings()
    archive: ArchiveSettings = ArchiveSettings()
    upstream: UpstreamSettings = UpstreamSettings()
    llm: LlmSettings = LlmSettings()

    @field_validator("*", mode="before")
    @classmethod
    def _none_is_default(cls, v: Any) -> Any:
        # an empty section in YAML (`server:`) means "all defaults"
        return {} if v is None else v


@dataclass(frozen=True, slots=True)
class ConfigProblem:
    """One error: where (``source``: file:line or env var), which key, what is wrong."""

    source: str
    key: str
    message: str
    value: Any = None
    has_value: bool = False
    #: the whole problem as a clause naming its key ("server.max_connections should be greater than or
    #: equal to 1"), when it came from validation (:func:`~hermesd.typed.error_sentence`)
    clause: str = ""

    def __str__(self) -> str:
        where = f"{self.source}: " if self.source else ""
        val = f" (it is {redact(self.value)!r})" if self.has_value else ""  # never echo a secret
        if self.clause:
            text = f"{self.clause}{val}"
            return f"{where}{text}" if text.endswith(("?", ".")) else f"{where}{text}."
        return f"{where}{self.key or '<top>'}: {self.message}{val}"

    def position(self, files: list[str]) -> tuple[int, int]:
        """Where the problem is, for listing in file order: (the file's place among ``files`` — the
        layers' files in load order —, its line); the environment and command line come after every
        file, in the order found."""
        path, _, line = self.source.rpartition(":")
        if path in files and line.isdigit():
            return files.index(path), int(line)
        if self.source in files:
            return files.index(self.source), 0
        return len(files), 0


class ConfigError(ConfigInvalid):
    """Config could not be loaded; ``problems`` lists every error found (code ``CONFIG_INVALID``).

    ``partial`` is the config with every value in error left at its default (None when even that
    does not validate): what ``hermesd check-config`` checks the rule and intent packs against, so
    one run reports the errors of every file, never only the config's."""

    def __init__(self, problems: list[ConfigProblem], partial: "HermesConfig | None" = None) -> None:
        self.problems = problems
        self.partial = partial
        super().__init__("\n".join(str(p) for p in problems),
                         data={"problems": [str(p) for p in problems]})


# ---------------------------------------------------------------------------
# YAML with line numbers


_STR_TAG = "tag:yaml.org,2002:str"


def _compose_with_lines(text: str, source: str) -> tuple[Any, dict[tuple[str, ...], str], list[ConfigProblem]]:
    """Parse YAML into plain data, a map key path → ``file:line``, and a problem for each key said twice
    in one mapping (:mod:`hermesd.yamlkeys`; PyYAML alone would silently keep the last)."""
    loader = yamlkeys.Loader(text)
    try:
        node = loader.single_node()
        lines: dict[tuple[str, ...], str] = {}
        if node is None:
            return {}, lines, []

        def walk(n: yaml.Node, path: tuple[str, ...]) -> None:
            if isinstance(n, yaml.MappingNode):
                for k, v in n.value:
                    # a plain string key is its own value; anything else (an int, a bool) is constructed
                    key = k.value if k.tag == _STR_TAG else str(yaml.safe_load(yaml.serialize(k)))
                    lines[path + (key,)] = f"{source}:{k.start_mark.line + 1}"
                    walk(v, path + (key,))

        walk(node, ())
        data = loader.construct_document(node)
        return data, lines, [ConfigProblem(f"{source}:{d.line}", d.path, d.message()) for d in loader.duplicates]
    finally:
        loader.dispose()


def _read_layer(path: Path) -> tuple[dict[str, Any], dict[tuple[str, ...], str], list[ConfigProblem]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        return {}, {}, [ConfigProblem(str(path), "", f"cannot read: {exc.strerror or exc}")]
    except UnicodeDecodeError as exc:
        return {}, {}, [ConfigProblem(str(path), "", f"not UTF-8 text (byte {exc.start})")]
    try:
        data, lines, duplicates = _compose_with_lines(text, str(path))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        problem = getattr(exc, "problem", None) or str(exc)
        return {}, {}, [ConfigProblem(where, "", f"invalid YAML: {problem}")]
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return {}, {}, [ConfigProblem(str(path), "", f"top level must be a mapping, not {type(data).__name__}")]
    return _relative_to_file(data, path), lines, duplicates


#: a setting whose name ends so names a file or folder even when typed ``str`` ("" = the default)
_PATH_NAME = lazyre.compile(r"(?:_dirs?|_files?|_path)$|^dictionary$")


def _is_path_type(annotation: Any) -> bool:
    """True when ``annotation`` is ``Path`` or holds it (``Path | None``, ``list[Path]``)."""
    if annotation is Path:
        return True
    return any(_is_path_type(a) for a in typing.get_args(annotation))


@functools.cache
def _path_keys(model: type[BaseModel] | None = None, prefix: tuple[str, ...] = ()) -> frozenset[tuple[str, ...]]:
    """Key paths of every path-valued setting of :class:`HermesConfig` (see :func:`_relative_to_file`)."""
    model = model or HermesConfig
    out: set[tuple[str, ...]] = set()
    for name, field in model.model_fields.items():
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            out |= _path_keys(ann, prefix + (name,))
        elif _is_path_type(ann) or _PATH_NAME.search(name):
            out.add(prefix + (name,))
    return frozenset(out)


def _relative_to_file(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """``data`` (one config file's mapping) with every relative path-valued setting resolved
    against ``path``'s folder — one rule for every file layer, so a file means the same whatever
    the working directory (a pack's ``hermesd.yaml`` names its intents, rules, tools and data
    beside it; ``/etc/hermesd/hermesd.yaml``'s ``rules_dir: rules`` is ``/etc/hermesd/rules``).

    Path-valued: a setting typed ``Path`` (``Path | None``, ``list[Path]``), or named ``*_dir``,
    ``*_dirs``, ``*_file``, ``*_files``, ``*_path`` or ``dictionary`` (those typed ``str``, where
    ``""`` means the default). Absolute paths, ``""``, ``null`` and anything not a string are kept;
    a ``~`` is not expanded. The environment and command-line layers are not files: their
    relative paths stay relative to the working directory.
    """
    base = path.absolute().parent

    def fix(v: Any) -> Any:
        return str(base / v) if isinstance(v, str) and v and not Path(v).is_absolute() else v

    for keys in _path_keys():
        sec: Any = data
        for k in keys[:-1]:
            sec = sec.get(k) if isinstance(sec, dict) else None
        if not isinstance(sec, dict) or keys[-1] not in sec:
            continue
        v = sec[keys[-1]]
        sec[keys[-1]] = [fix(x) for x in v] if isinstance(v, list) else fix(v)
    return data


def _env_layer(env: Mapping[str, str]) -> tuple[dict[str, Any], dict[tuple[str, ...], str], list[ConfigProblem]]:
    data: dict[str, Any] = {}
    lines: dict[tuple[str, ...], str] = {}
    problems: list[ConfigProblem] = []
    for name in sorted(env):
        if not name.startswith(ENV_PREFIX) or name in _ENV_NOT_CONFIG:
            continue
        if name in _ENV_ALIASES:
            path = _ENV_ALIASES[name]
        else:
            rest = name[len(ENV_PREFIX):]
            if "__" not in rest:
                problems.append(ConfigProblem(f"env {name}", "", "not a config key: use HERMESD_<SECTION>__<KEY> "
                                              f"(or one of {', '.join(sorted(_ENV_ALIASES))})"))
                continue
            path = tuple(p.lower() for p in rest.split("__"))
        raw = env[name]
        try:
            value = yaml.safe_load(raw) if raw.strip() else None
        except yaml.YAMLError:
            value = raw
        cur = data
        for part in path[:-1]:
            cur = cur.setdefault(part, {})
        cur[path[-1]] = value
        for i in range(1, len(path) + 1):
            lines[path[:i]] = f"env {name}"
    return data, lines, problems


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def _model_at(loc: tuple[Any, ...]) -> type[BaseModel] | None:
    model: Any = HermesConfig
    for part in loc:
        field = model.model_fields.get(part) if isinstance(part, str) else None
        if field is None:
            return None
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            model = ann
        else:
            return None
    return model


def _problems_from(exc: ValidationError, sources: dict[tuple[str, ...], str]) -> list[ConfigProblem]:
    out: list[ConfigProblem] = []
    for err in exc.errors(include_url=False):
        loc = tuple(str(p) for p in err["loc"])
        source = ""
        for i in range(len(loc), 0, -1):
            if loc[:i] in sources:
                source = sources[loc[:i]]
                break
        key = ".".join(loc)
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            parent = _model_at(tuple(err["loc"][:-1]))
            allowed = sorted(parent.model_fields) if parent else []
            close = difflib.get_close_matches(loc[-1], allowed, n=1, cutoff=0.6)
            msg = "unknown key" + (f"; did you mean '{close[0]}'?" if close else "")
            hint = f"; did you mean '{close[0]}'?" if close else f" (allowed: {', '.join(allowed)})" if allowed else ""
            if allowed:
                msg += f" (allowed: {', '.join(allowed)})"
            out.append(ConfigProblem(source, key, msg, clause=f"{key} is not a known key{hint}"))
            continue
        out.append(ConfigProblem(source, key, msg, err.get("input"), "input" in err,
                                 clause=error_sentence(err, key, detail=False)))
    return out


def load(
    config_file: Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    shipped: Path | None = SHIPPED_CONFIG,
    etc: Path | None = ETC_CONFIG,
) -> HermesConfig:
    """Load and validate the layered config.

    :param config_file: the ``--config`` file; ``None`` falls back to ``$HERMESD_CONFIG``.
    :param env: environment to read ``HERMESD_*`` from (default ``os.environ``).
    :param overrides: dotted key → value, highest layer (e.g. ``{"paths.socket_path": p}``).
    :param shipped: the shipped defaults file (skipped when missing or None).
    :param etc: the system file (skipped when missing or None).
    :return: a frozen :class:`HermesConfig`.
    :raises ConfigError: with every problem of every layer at once.
    """
    env = os.environ if env is None else env
    if config_file is None and env.get("HERMESD_CONFIG"):
        config_file = Path(env["HERMESD_CONFIG"])
    merged: dict[str, Any] = {}
    sources: dict[tuple[str, ...], str] = {}
    problems: list[ConfigProblem] = []
    layers: list[tuple[dict[str, Any], dict[tuple[str, ...], str], list[ConfigProblem]]] = []
    files: list[str] = []
    for path, required in ((shipped, False), (etc, False), (config_file, True)):
        if path is None:
            continue
        if not required and not path.exists():
            continue
        files.append(str(path))
        layers.append(_read_layer(path))
    layers.append(_env_layer(env))
    if overrides:
        over: dict[str, Any] = {}
        lines: dict[tuple[str, ...], str] = {}
        for dotted, value in overrides.items():
            parts = tuple(dotted.split("."))
            cur = over
            for p in parts[:-1]:
                cur = cur.setdefault(p, {})
            cur[parts[-1]] = value
            lines[parts] = "command line"
        layers.append((over, lines, []))
    for data, lines, errs in layers:
        merged = _merge(merged, data)
        sources.update(lines)
        problems.extend(errs)
    try:
        cfg = HermesConfig.model_validate(merged)
    except ValidationError as exc:
        problems.extend(_problems_from(exc, sources))
    if problems:
        # in the order a person reads the files (validation finds them in the models' field order)
        raise ConfigError(sorted(problems, key=lambda p: p.position(files)), _without_errors(merged))
    return cfg


def _without_errors(merged: dict[str, Any], rounds: int = 5) -> HermesConfig | None:
    """``merged`` validated with each value in error dropped (so at its default); None when a few
    rounds of dropping do not make it valid. Never raises."""
    data = copy.deepcopy(merged)
    for _ in range(rounds):
        try:
            return HermesConfig.model_validate(data)
        except ValidationError as exc:
            dropped = False
            for err in exc.errors(include_url=False):
                loc = tuple(err["loc"])
                # the deepest mapping key the data has (a union adds tags; a bad list item drops its list)
                for i in range(len(loc), 0, -1):
                    parent = _walk(data, loc[:i - 1])
                    if isinstance(parent, dict) and loc[i - 1] in parent:
                        del parent[loc[i - 1]]
                        dropped = True
                        break
            if not dropped:
                return None
    return None


def _walk(data: Any, path: tuple[Any, ...]) -> Any:
    for seg in path:
        if isinstance(data, dict) and seg in data:
            data = data[seg]
        elif isinstance(data, list) and isinstance(seg, int) and seg < len(data):
            data = data[seg]
        else:
            return None
    return data


def digest(cfg: HermesConfig) -> str:
    """sha256 (first 16 hex chars) of the effective config, for ``admin.status``."""
    blob = orjson.dumps(cfg.model_dump(mode="json"), option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(blob).hexdigest()[:16]


def resolve_state_dir(cfg: HermesConfig, env: Mapping[str, str] | None = None) -> Path:
    """The state folder: config, else systemd's ``$STATE_DIRECTORY``, else ``./var/state``."""
    env = os.environ if env is None else env
    if cfg.paths.state_dir is not None:
        return cfg.paths.state_dir
    if env.get("STATE_DIRECTORY"):
        return Path(env["STATE_DIRECTORY"].split(":")[0])
    return Path("var") / "state"


def resolve_socket_path(cfg: HermesConfig, env: Mapping[str, str] | None = None) -> Path:
    """The socket: config, else ``$RUNTIME_DIRECTORY/hermesd.sock``, else ``./var/hermesd.sock``."""
    env = os.environ if env is None else env
    if cfg.paths.socket_path is not None:
        return cfg.paths.socket_path
    if env.get("RUNTIME_DIRECTORY"):
        return Path(env["RUNTIME_DIRECTORY"].split(":")[0]) / "hermesd.sock"
    return Path("var") / "hermesd.sock"
