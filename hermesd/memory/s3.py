"""S3-compatible upload of archive volumes (blocking; run in a thread), for ``upstream.kind: s3``.

One object per volume at ``<prefix>/<device_id>/YYYY/MM/DD/<volume>``, PUT with a
SigV4 signature (:mod:`hermesd.memory.sigv4`) over the payload's SHA-256
(``x-amz-content-sha256``, which the store checks against the body it received).

Exactly one object per volume, across crashes. The archive marks a volume
``uploaded`` only after the store's 2xx; a crash between the two means the volume
is sent again after the restart. So every PUT carries ``If-None-Match: *``
(S3 conditional writes, AWS 2024; MinIO, Ceph RGW): the store refuses to replace
an existing key with 412 Precondition Failed. A 412 is then checked with a HEAD —
the object's ``x-amz-meta-sha256`` (set by our PUT), or for an object without it
the single-part ETag (the body's MD5) — and, when it is this volume, the volume is
marked uploaded without writing anything. A store that lacks conditional writes
(answers 501, or ``conditional_put: false``) gets the HEAD first and the PUT only
on a 404.

Outcomes beyond the plain HTTP ones (:func:`hermesd.memory.upstream.classify`):
refused credentials (403 ``InvalidAccessKeyId``, ``SignatureDoesNotMatch``,
``AccessDenied``, ``ExpiredToken`` …), a missing bucket and a 409
``ConditionalRequestConflict`` are ``retry`` with a sentence saying what to fix —
the volume stays in the backlog and the credentials file is re-read at the next
pass; a clock the store calls skewed (``RequestTimeTooSkewed``) is corrected from
the reply's ``Date`` and retried once at once. Only the error's ``<Code>`` is read
from a reply body (S3's ``SignatureDoesNotMatch`` body echoes the canonical
request, which can hold a session token), so no secret reaches a log.
"""

from __future__ import annotations

import configparser
import email.utils
import hashlib
import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from .. import lazyre
from .archive_settings import UpstreamSettings, check_secret_file
from .sigv4 import EMPTY_SHA256, Credentials, sign, uri_encode
from .upstream import Client, Reply, Target, TransportError, UploadResult, classify, retry_after

__all__ = ["CredentialsError", "Store", "load_credentials", "object_key"]

_USER_AGENT = "hermesd-upstream/1 (s3)"
_CODE = lazyre.compile(rb"<Code>([A-Za-z0-9.]{1,64})</Code>")
#: error codes that mean the store does not accept who we say we are (S3 API Reference, "Error responses")
_AUTH_CODES = frozenset({"AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken",
                         "InvalidToken", "TokenRefreshRequired", "InvalidSecurity", "AuthorizationHeaderMalformed",
                         "AccountProblem", "AllAccessDisabled"})
_RETRY_CODES = frozenset({"NoSuchBucket", "ConditionalRequestConflict", "SlowDown", "RequestTimeout",
                          "InternalError", "ServiceUnavailable"})


class CredentialsError(Exception):
    """No usable S3 credentials: a missing, unreadable, insecure or incomplete file, or no
    ``AWS_*`` environment. The message names the file or variable, never a key."""


def load_credentials(settings: UpstreamSettings, env: Mapping[str, str] | None = None) -> Credentials:
    """The access key from ``credentials_file`` (its ``credentials_profile`` section), else the environment.

    The file is AWS's shared-credentials format (INI; a file with no ``[section]`` is read
    as ``[default]``) and must pass :func:`check_secret_file` (mode 0600 or stricter).
    The environment is ``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY`` / ``AWS_SESSION_TOKEN``
    (the AWS CLI's names).

    :raises CredentialsError: with a sentence saying what is missing.
    """
    if settings.credentials_file:
        path = settings.credentials_file
        try:
            check_secret_file(path)
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, ValueError) as exc:
            raise CredentialsError(f"upstream.credentials_file: {exc}") from None
        if not re.search(r"(?m)^\s*\[", text):
            text = "[default]\n" + text
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(text, source=path)
        except configparser.Error:
            raise CredentialsError(f"upstream.credentials_file: {path} is not an AWS credentials file") from None
        profile = settings.credentials_profile
        if not parser.has_section(profile):
            raise CredentialsError(f"upstream.credentials_file: {path} has no [{profile}] section")
        sec = parser[profile]
        key_id, secret = sec.get("aws_access_key_id", "").strip(), sec.get("aws_secret_access_key", "").strip()
        if not key_id or not secret:
            raise CredentialsError(f"upstream.credentials_file: [{profile}] in {path} needs aws_access_key_id "
                                   "and aws_secret_access_key")
        return Credentials(key_id, secret, sec.get("aws_session_token", "").strip())
    env = os.environ if env is None else env
    key_id, secret = env.get("AWS_ACCESS_KEY_ID", "").strip(), env.get("AWS_SECRET_ACCESS_KEY", "").strip()
    if not key_id or not secret:
        raise CredentialsError("no S3 credentials: set upstream.credentials_file (mode 0600) or the "
                               "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY environment variables")
    return Credentials(key_id, secret, env.get("AWS_SESSION_TOKEN", "").strip())


def object_key(prefix: str, device_id: str, rel_path: str) -> str:
    """``<prefix>/<device_id>/<rel_path>`` (no prefix → ``<device_id>/<rel_path>``), e.g.
    ``fleet/dev1/2026/11/29/s1.zst``."""
    return "/".join(p for p in (prefix.strip("/"), device_id, rel_path) if p)


def _code(body: bytes) -> str:
    m = _CODE.search(body)
    return m.group(1).decode("ascii") if m else ""


@dataclass(slots=True)
class Store:
    """One bucket of an S3-compatible store, as configured in ``upstream:``.

    :param settings: the ``upstream:`` section (``kind: s3``).
    :param wall: the wall clock (aware datetime) used for ``x-amz-date``; a learned skew
        (from a ``RequestTimeTooSkewed`` reply) is added to it.
    :raises ValueError: the endpoint is not an http(s) URL with a host.
    """

    settings: UpstreamSettings
    wall: Callable[[], datetime] = lambda: datetime.now(UTC)
    skew_s: float = field(default=0.0, init=False)
    conditional: bool = field(default=True, init=False)
    _scheme: str = field(default="", init=False)
    _host: str = field(default="", init=False)
    _port: int = field(default=0, init=False)
    _base: str = field(default="", init=False)

    def __post_init__(self) -> None:
        parts = urlsplit(self.settings.endpoint or "")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("upstream.endpoint must be an http:// or https:// URL with a host")
        self._scheme, self._host = parts.scheme, parts.hostname
        self._port = parts.port or (443 if parts.scheme == "https" else 80)
        self._base = parts.path.rstrip("/")
        self.conditional = self.settings.conditional_put

    def target(self, key: str) -> Target:
        """Where ``key`` lives: path-style ``/<bucket>/<key>`` or virtual-hosted ``<bucket>.<host>/<key>``."""
        quoted = uri_encode(key, keep_slash=True)
        if self.settings.addressing == "virtual":
            return Target(self._scheme, f"{self.settings.bucket}.{self._host}", self._port, f"{self._base}/{quoted}")
        return Target(self._scheme, self._host, self._port, f"{self._base}/{self.settings.bucket}/{quoted}")

    @property
    def probe(self) -> tuple[str, int]:
        """``(host, port)`` the network probe connects to."""
        return (self.target("probe").host, self._port)

    def key_for(self, rel_path: str) -> str:
        return object_key(self.settings.prefix, self.settings.device_id, rel_path)

    # -- requests ---------------------------------------------------------------------

    def _signed(self, client: Client, method: str, t: Target, headers: dict[str, str], body: bytes,
                payload_sha256: str, creds: Credentials) -> Reply:
        """Sign and send; on ``RequestTimeTooSkewed`` learn the store's clock from ``Date`` and send once more."""
        for attempt in range(2):
            now = self.wall() + timedelta(seconds=self.skew_s)
            signed = sign(method, t.host_header, t.path, {**headers, "User-Agent": _USER_AGENT}, payload_sha256,
                          creds, self.settings.region, now)
            reply = client.request(method, t, signed.headers, body)
            if attempt == 0 and reply.status == 403 and _code(reply.body) == "RequestTimeTooSkewed":
                try:
                    server = email.utils.parsedate_to_datetime(reply.headers.get("date", ""))
                except (TypeError, ValueError):
                    return reply
                self.skew_s = (server - self.wall()).total_seconds()
                continue
            return reply
        return reply

    def head(self, client: Client, key: str, creds: Credentials) -> Reply:
        """HEAD ``key`` (signed). :raises TransportError: no reply."""
        return self._signed(client, "HEAD", self.target(key), {}, b"", EMPTY_SHA256, creds)

    def upload(self, client: Client, rel_path: str, data: bytes, sha256_hex: str,
               creds: Credentials) -> UploadResult:
        """Store one volume exactly once; never raises for network trouble (it becomes ``retry``).

        :param rel_path: the volume's archive path (``2026/11/29/s1.zst``).
        :param sha256_hex: SHA-256 of ``data`` (payload hash and ``x-amz-meta-sha256``).
        :return: ``ok`` (``already=True`` when the store held it before), ``retry`` or ``failed``.
        """
        start = time.monotonic()
        key = self.key_for(rel_path)
        try:
            if not self.conditional:
                return self._head_then_put(client, key, data, sha256_hex, creds, start)
            reply = self._put(client, key, data, sha256_hex, creds, conditional=True)
            if reply.status == 501:  # the store lacks conditional writes: check with a HEAD from now on
                self.conditional = False
                return self._head_then_put(client, key, data, sha256_hex, creds, start)
            if reply.status == 412:
                return self._existing(client, key, data, sha256_hex, creds, start)
            return self._result(reply, "PUT", start)
        except TransportError as exc:
            return UploadResult("retry", None, str(exc), None, time.monotonic() - start)

    def _put(self, client: Client, key: str, data: bytes, sha256_hex: str, creds: Credentials, *,
             conditional: bool) -> Reply:
        headers = {"Content-Type": "application/zstd", "Content-Length": str(len(data)),
                   "x-amz-meta-sha256": sha256_hex}
        if conditional:
            headers["If-None-Match"] = "*"
        return self._signed(client, "PUT", self.target(key), headers, data, sha256_hex, creds)

    def _head_then_put(self, client: Client, key: str, data: bytes, sha256_hex: str, creds: Credentials,
                       start: float) -> UploadResult:
        head = self.head(client, key, creds)
        if head.status == 200:
            return self._compare(head, data, sha256_hex, start)
        if head.status != 404:
            return self._result(head, "HEAD", start)
        return self._result(self._put(client, key, data, sha256_hex, creds, conditional=False), "PUT", start)

    def _existing(self, client: Client, key: str, data: bytes, sha256_hex: str, creds: Credentials,
                  start: float) -> UploadResult:
        head = self.head(client, key, creds)
        if head.status == 200:
            return self._compare(head, data, sha256_hex, start)
        if head.status == 404:  # deleted between the two requests: try again later, never overwrite blindly
            return UploadResult("retry", 412, "HTTP 412 but the object is gone: PUT again next pass", None,
                                time.monotonic() - start)
        return self._result(head, "HEAD", start)

    @staticmethod
    def _compare(head: Reply, data: bytes, sha256_hex: str, start: float) -> UploadResult:
        meta = head.headers.get("x-amz-meta-sha256", "")
        etag = head.headers.get("etag", "").strip('"')
        same = meta == sha256_hex if meta else etag == hashlib.md5(data, usedforsecurity=False).hexdigest()
        if same:
            return UploadResult("ok", 200, "", None, time.monotonic() - start, already=True)
        return UploadResult("failed", 200, "a different object already exists at this key (its sha256 or ETag "
                            "differs from the volume's): not overwritten", None, time.monotonic() - start)

    def _result(self, reply: Reply, method: str, start: float) -> UploadResult:
        elapsed = time.monotonic() - start
        status, code = reply.status, _code(reply.body)
        label = f"S3 {method} HTTP {status}" + (f" {code}" if code else f" {reply.reason}")
        if 200 <= status < 300:
            return UploadResult("ok", status, "", None, elapsed)
        if code in _AUTH_CODES or (status in (401, 403) and not code):
            return UploadResult("retry", status, f"{label}: the store refused the credentials; check "
                                "upstream.credentials_file (or AWS_* variables), region and bucket policy; "
                                "the volumes stay queued", None, elapsed)
        if code == "NoSuchBucket":
            return UploadResult("retry", status, f"{label}: bucket {self.settings.bucket!r} does not exist; "
                                "the volumes stay queued", None, elapsed)
        if code == "RequestTimeTooSkewed":
            return UploadResult("retry", status, f"{label}: the device clock is too far from the store's",
                                None, elapsed)
        outcome = "retry" if code in _RETRY_CODES else classify(status)
        ra = retry_after(reply.headers.get("retry-after")) if status in (429, 503) else None
        return UploadResult(outcome, status, label[:200], ra, elapsed)
