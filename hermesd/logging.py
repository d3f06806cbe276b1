"""journald-friendly logs: one line per event, ``key=value`` fields, secrets redacted.

Use the standard library's loggers under ``hermesd.*`` and pass fields in
``extra={"kv": {...}}``::

    log.info("conn.accept", extra={"kv": {"uid": 1000, "role": "user"}})

renders, under systemd (``JOURNAL_STREAM`` names our stderr)::

    <6>server: conn.accept uid=1000 role=user trace=3f2a…

The ``<N>`` prefix is the syslog priority (sd-daemon(3)), so ``journalctl -p
warning`` filters; run by hand, each line starts with a UTC timestamp and the
level instead. The trace and session ids of the current request (context
variables set by the server) are added to every line logged while it runs.
Values of keys that look secret are replaced by ``***``, and ``key=value`` /
``Bearer …`` fragments in free text are masked the same way.
"""

from __future__ import annotations

import contextvars
import functools
import logging
import os
import sys
import time
from typing import Any, TextIO

import orjson

from . import lazyre

__all__ = ["HIDDEN_MIN_CHARS", "REDACTED", "KVFormatter", "clean_json", "component_of", "hidden_values_var", "is_secret_key", "redact", "redact_json", "secret_values", "session_id_var", "setup", "trace_id_var"]

REDACTED = "***"
trace_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("hermesd_trace_id", default=None)
session_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("hermesd_session_id", default=None)
#: the secrets the user typed in the current turn (:func:`secret_values`: ``"密码是778899"`` →
#: ``("778899",)``), set by the session controller while the turn runs: every line logged meanwhile
#: has them masked wherever they appear — a tool's arguments or a slot built from them, whatever
#: the key — as the stored trace is scrubbed of them. Values shorter than :data:`HIDDEN_MIN_CHARS`
#: are left (masking "12" everywhere would garble every number of the line).
hidden_values_var: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("hermesd_hidden_values", default=())
HIDDEN_MIN_CHARS = 4

#: a field name that holds a secret: token, password / passcode / passphrase / pwd, secret, api key,
#: authorization, cookie, credential, private key, the Chinese words for one (密码 …), and a PIN or a
#: one-time code as a word of the name (``pin``, ``user_pin``, ``pin_code``, ``sms_otp``; not ``ping``)
_SECRET_KEY = lazyre.compile(
    r"(?i)(token|passw|passc|passp|pwd|secret|api[_-]?key|authori[sz]ation|cookie|credential|private[_-]?key"
    r"|密码|口令|令牌|密钥|验证码)|(?:^|[_-])(?:pin|otp)(?:[_-]?code)?$")
#: the code nouns of a secret said in English: a PIN (code), a door / gate / alarm / safe … code
_CODE_NOUNS = r"pin(?:[\s_-]?code)?|(?:door|gate|access|alarm|safe|locker|entry|garage|wifi|security)[\s_-]?code"
#: a value as a secret fragment holds it: never a quote or a backslash (the text may be JSON: the value
#: ends before the quote that closes its string)
_VALUE = r"[^\s,;&\"'\\]+"
_SECRET_TEXT = lazyre.compile(
    r"(?i)\b((?:[\w-]*(?:token|password|passwd|passcode|secret|api[_-]?key|authorization)|" + _CODE_NOUNS + r")\s*[=:]\s*)"
    r"(\"[^\"]*\"|'[^']*'|" + _VALUE + ")"
)
_BEARER = lazyre.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{4,}")
#: "my password is hunter2", "the wifi passcode was sunflower99", "bank PIN is 4821": the English
#: words for a secret, then is/was and the value (the zh twin is _SECRET_TEXT_ZH)
_SECRET_TEXT_EN = lazyre.compile(
    r"(?i)\b((?:password|passwd|passcode|passphrase|secret|token|api\s+key|" + _CODE_NOUNS + r")\s+(?:is|was|are)\s+)"
    r"(\"[^\"]*\"|'[^']*'|[^\s,;.!?\"'\\]+)")
#: "tell Bob the password hunter2", "my door code 5566": the noun right before a value that holds a digit
#: (so "the password manager" is no secret)
_SECRET_BARE_EN = lazyre.compile(
    r"(?i)\b((?:password|passwd|passcode|passphrase|" + _CODE_NOUNS + r")\s+)([A-Za-z!@#$%^&*_-]*\d[^\s,;.!?\"'\\]*)")
#: cheap pre-filter: free text is only scanned for secrets when one of these appears
#: "密码是 hunter2", "口令：1234": the Chinese words for a secret, then 是/为/:/= and the value
#: the Chinese words for a secret
_ZH_SECRET_NOUNS = r"密码|口令|令牌|密钥|验证码|门禁码|pin码|PIN码"
_SECRET_TEXT_ZH = lazyre.compile(r"((?:" + _ZH_SECRET_NOUNS + r")\s*(?:是|为|[:：=])\s*)([^\s，。,;；、\"'\\]+)")
#: "门禁密码8642", "把密码246810告诉老婆": the word right before a value of ASCII letters and digits, no 是 between
_SECRET_BARE_ZH = lazyre.compile(r"((?:" + _ZH_SECRET_NOUNS + r")\s*)([A-Za-z0-9][A-Za-z0-9!@#$%^&*_-]{2,})")
#: key = value, then 密码是 …, then "password is …": group 1 the lead-in kept, group 2 the value masked
_SECRET_PATTERNS = (_SECRET_TEXT, _SECRET_TEXT_ZH, _SECRET_TEXT_EN, _SECRET_BARE_ZH, _SECRET_BARE_EN)
_SECRET_HINT = lazyre.compile(r"(?i)token|passw|passc|passp|secret|api[_-]?key|api key|authori|bearer|basic|\bpin|code|密码|口令|令牌|密钥|验证码|门禁码|pin码")
#: a literal every _SECRET_HINT match contains (case-folded): the hint is looked for only in a text
#: that has one; the regex alone costs µs per string, and every string of a stored trace is checked
_HINT_WORDS = ("token", "passw", "passc", "passp", "secret", "api", "authori", "bearer", "basic", "pin", "code",
               "密码", "口令", "令牌", "密钥", "验证码", "门禁码")
#: the non-ASCII characters that (?i) matches with an ASCII letter (İ ı ſ K): a text with one goes
#: straight to the regex
_FOLDS_TO_ASCII = lazyre.compile("[\u0130\u0131\u017f\u212a]")
_PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3, logging.CRITICAL: 2}
_NEEDS_QUOTES = lazyre.compile(r'[\s="\\]')


@functools.lru_cache(maxsize=4096)
def is_secret_key(key: str) -> bool:
    """True when a field name looks like it holds a secret (token, password, api_key, …)."""
    return bool(_SECRET_KEY.search(key))


def redact(value: Any, _depth: int = 0) -> Any:
    """Copy of ``value`` with secret-looking keys' values replaced by ``***``.

    Walks dicts, lists and tuples (depth ≤ 8); strings are scanned for
    ``token=…``/``password: …``/``Bearer …`` fragments.
    """
    if _depth > 8:
        return value
    if isinstance(value, dict):
        return {k: (REDACTED if isinstance(k, str) and is_secret_key(k) else redact(v, _depth + 1)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v, _depth + 1) for v in value]
    if isinstance(value, str):
        return _redact_text(value)
    return value


#: a literal that every match of _SECRET_KEY and of _SECRET_HINT contains (case-folded)
_ANY_SECRET_WORDS = _HINT_WORDS + ("cookie", "credential", "private", "pwd", "otp")
#: what :func:`redact_json` serialises: the JSON types only (a datetime, dataclass or str/int subclass
#: such as an enum member raises instead, and then takes :func:`redact`'s walk)
_JSON_ONLY = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS


def redact_json(value: Any) -> Any:
    """``redact(value)`` for a value on its way to JSON (an L2 row, the turn log): the same copy.

    The value is serialised once (orjson); when that text holds no backslash (so every key and
    string stands in it verbatim between quotes), no fold-to-ASCII character and none of the
    literals every secret key, secret fragment or hint contains, nothing in it can be redacted
    and the copy is that text read back — one C round trip instead of a walk that looks at
    every key and string (µs per node; a session row holds hundreds). Anything else (such a
    literal, a non-JSON type, a non-string key, nesting past what orjson takes) is
    :func:`redact`'s walk, unchanged. Tuples come back as lists, as with :func:`redact`; a
    non-finite float comes back None, as it is written to JSON anyway.
    """
    text = clean_json(value)
    return redact(value) if text is None else orjson.loads(text)


def clean_json(value: Any) -> str | None:
    """``value``'s JSON text when nothing in it can be redacted (:func:`redact_json`'s one-pass
    check), else None — then :func:`redact` may change it. A value with a clean text is its own
    redacted form: no copy of it is needed unless it may change afterwards."""
    try:
        text = orjson.dumps(value, option=_JSON_ONLY).decode()
    except (TypeError, orjson.JSONEncodeError):
        return None
    if "\\" in text or ("@" in text and "://" in text) or (not text.isascii() and _FOLDS_TO_ASCII.search(text)):
        return None
    low = text.lower()
    for w in _ANY_SECRET_WORDS:
        if w in low:
            return None
    return text


def _has_secret_hint(text: str) -> bool:
    """``_SECRET_HINT.search(text)``, answered without the regex when no word of it can be there."""
    if text.isascii() or _FOLDS_TO_ASCII.search(text) is None:
        low = text.lower()
        for w in _HINT_WORDS:
            if w in low:
                break
        else:
            return False
    return _SECRET_HINT.search(text) is not None


def secret_values(text: str) -> list[str]:
    """The values :func:`redact` masks in ``text`` (``"密码是778899"`` → ``["778899"]``), so what was
    read out of them (an entity, a slot) can be masked too."""
    if not text or not _has_secret_hint(text):
        return []
    found = [m.group(2) for rx in _SECRET_PATTERNS for m in rx.finditer(text)]
    return [v.strip("\"'") for v in found if v.strip("\"'")]


#: a URL's user information (RFC 3986 §3.2.1: ``scheme://user:password@host``), masked whole
_URL_USERINFO = lazyre.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]+@")


def _redact_text(text: str) -> str:
    if text and "@" in text and "://" in text:
        text = _URL_USERINFO.sub(lambda m: m.group(1) + REDACTED + "@", text)
    if not text or not _has_secret_hint(text):
        return text
    for rx in _SECRET_PATTERNS:
        text = rx.sub(lambda m: m.group(1) + REDACTED, text)
    return _BEARER.sub(lambda m: m.group(1) + " " + REDACTED, text)


def _fmt_value(v: Any) -> str:
    t = type(v)
    if t is int:
        return str(v)
    if t is str:
        s = _redact_text(v)
    elif t is bool:
        return "true" if v else "false"
    elif v is None:
        return "-"
    elif t is float:
        s = f"{v:.3f}".rstrip("0").rstrip(".")
        return s or "0"
    elif isinstance(v, (dict, list, tuple)):
        s = orjson.dumps(redact(v), default=str).decode()
    else:
        s = _redact_text(str(v))
    if s and not _NEEDS_QUOTES.search(s):
        return s
    s = s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return '"' + s + '"'


@functools.lru_cache(maxsize=256)
def component_of(logger_name: str) -> str:
    """The part a line comes from, for its ``component:`` prefix: ``hermesd.session.controller`` →
    ``session``, ``hermesd.subsystems.tools`` → ``tools``, ``hermesd`` → ``hermesd``. Every module
    logs to ``getLogger(__name__)``; a technician reads (and greps) the part."""
    parts = logger_name.split(".")
    if parts[0] != "hermesd" or len(parts) == 1:
        return logger_name
    if parts[1] == "subsystems" and len(parts) > 2 and parts[2] not in ("subsystem", "admin"):
        return parts[2]
    return parts[1]


class KVFormatter(logging.Formatter):
    """Render records as one ``key=value`` line.

    :param journal: prefix ``<priority>`` and omit the timestamp (journald adds its own).
    """

    def __init__(self, journal: bool) -> None:
        super().__init__()
        self.journal = journal

    def format(self, record: logging.LogRecord) -> str:
        component = component_of(record.name)
        parts = [f"{component}: {_redact_text(record.getMessage())}".replace("\n", "\\n")]
        kv: dict[str, Any] = dict(getattr(record, "kv", None) or {})
        trace = trace_id_var.get()
        session = session_id_var.get()
        if session and "session" not in kv:
            kv["session"] = session
        if trace and "trace" not in kv:
            kv["trace"] = trace
        for k, v in kv.items():
            parts.append(f"{k}={REDACTED if is_secret_key(k) else _fmt_value(v)}")
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            parts.append(f"exc_type={type(exc).__name__} exc={_fmt_value(str(exc))}")
            tb = exc.__traceback__
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            if tb is not None:
                parts.append(f"at={os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno}")
        line = " ".join(parts)
        for value in hidden_values_var.get():
            if len(value) >= HIDDEN_MIN_CHARS:
                line = line.replace(value, REDACTED)
        if self.journal:
            return f"<{_PRIORITY.get(record.levelno, 6)}>{line}"
        return f"{_utc_second(int(record.created))}.{int(record.msecs):03d}Z {record.levelname:<7} {line}"


@functools.lru_cache(maxsize=2)
def _utc_second(epoch_s: int) -> str:
    """``2026-12-01T18:56:20`` for an epoch second (lines of one second share it)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(epoch_s))


def _journal_attached(stream: TextIO) -> bool:
    """True when ``JOURNAL_STREAM`` names ``stream`` (systemd.exec(5): "dev:inode")."""
    value = os.environ.get("JOURNAL_STREAM", "")
    if not value:
        return False
    try:
        dev, ino = (int(x) for x in value.split(":", 1))
        st = os.fstat(stream.fileno())
    except (ValueError, OSError, AttributeError):
        return False
    return st.st_dev == dev and st.st_ino == ino


def setup(level: str = "info", fmt: str = "auto", stream: TextIO | None = None) -> logging.Logger:
    """Configure the ``hermesd`` logger tree; idempotent (replaces its handler).

    :param level: ``debug`` | ``info`` | ``warning`` | ``error``.
    :param fmt: ``journal`` | ``plain`` | ``auto`` (journal when ``JOURNAL_STREAM`` is ours).
    :param stream: default ``sys.stderr``.
    """
    stream = stream or sys.stderr
    journal = fmt == "journal" or (fmt == "auto" and _journal_attached(stream))
    # a line says where it comes from by its component and event, never by source file, line,
    # thread or process: the logging module is told not to look them up for every record (the
    # stack walk of findCaller was half the cost of a line; the "Optimization" table of the
    # Logging HOWTO, https://docs.python.org/3/howto/logging.html#optimization)
    logging._srcfile = None  # type: ignore[attr-defined]  # noqa: SLF001 - the documented switch
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    root = logging.getLogger("hermesd")
    for h in list(root.handlers):
        root.removeHandler(h)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(KVFormatter(journal))
    root.addHandler(handler)
    root.setLevel(level.upper())
    root.propagate = False
    return root
