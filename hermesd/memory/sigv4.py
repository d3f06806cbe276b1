"""AWS Signature Version 4 for S3 requests (pure: no clock, no I/O; stdlib ``hmac``/``hashlib``).

The signer of the ``upstream.kind: s3`` uploader. It is a few dozen lines, so we
write it rather than take botocore (tens of MB) as a runtime dependency; the
tests check it against botocore's ``S3SigV4Auth`` on the same request (same
canonical request, same ``Authorization`` header) and against a real
S3-compatible server that verifies signatures.

Sources:

- AWS IAM User Guide, "Create a signed AWS API request" / "Elements of an AWS API
  request signature" (Signature Version 4): the canonical request, the string to
  sign, the derived signing key and the ``Authorization`` header layout.
- Amazon S3 API Reference, "Authenticating Requests: Using the Authorization
  Header (AWS Signature Version 4)" and "Signature Calculations for the
  Authorization Header: Transferring Payload in a Single Chunk": S3 puts the
  payload's SHA-256 hex in ``x-amz-content-sha256`` (and so in the canonical
  request), and the canonical URI of S3 is the request path URI-encoded once
  (no double encoding, no ``.``/``..`` normalisation, unlike other services).

Shapes::

    CanonicalRequest = Method \\n CanonicalURI \\n CanonicalQueryString \\n
                       CanonicalHeaders \\n SignedHeaders \\n HexPayloadHash
    StringToSign     = "AWS4-HMAC-SHA256" \\n AmzDate \\n Scope \\n Hex(SHA256(CanonicalRequest))
    Scope            = YYYYMMDD/<region>/<service>/aws4_request
    SigningKey       = HMAC(HMAC(HMAC(HMAC("AWS4"+secret, YYYYMMDD), region), service), "aws4_request")
    Authorization    = AWS4-HMAC-SHA256 Credential=<key id>/<Scope>, SignedHeaders=<h1;h2>, Signature=<hex>
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote

__all__ = ["ALGORITHM", "EMPTY_SHA256", "UNSIGNED_HEADERS", "Credentials", "Signed", "amz_date", "canonical_request",
           "sign", "signing_key", "uri_encode"]

ALGORITHM = "AWS4-HMAC-SHA256"
#: SHA-256 of the empty string: the payload hash of a HEAD or GET.
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
#: headers a proxy may rewrite or that carry no meaning for the request; never signed
#: (the same list botocore keeps, ``botocore.auth.SIGNED_HEADERS_BLACKLIST``).
UNSIGNED_HEADERS = frozenset({"authorization", "baggage", "connection", "expect", "keep-alive", "proxy-authenticate",
                              "proxy-authorization", "te", "traceparent", "tracestate", "trailer",
                              "transfer-encoding", "upgrade", "user-agent", "x-amzn-trace-id"})
_UNRESERVED = "-_.~"  # RFC 3986 §2.3 unreserved, besides ALPHA and DIGIT


@dataclass(frozen=True, slots=True)
class Credentials:
    """An access key: ``access_key_id``, ``secret_access_key`` and an optional STS ``session_token``.

    ``repr`` shows the key id only, so a stray log of the object leaks no secret.
    """

    access_key_id: str
    secret_access_key: str
    session_token: str = ""

    def __repr__(self) -> str:
        return f"Credentials(access_key_id={self.access_key_id!r}, secret_access_key='***')"


@dataclass(frozen=True, slots=True)
class Signed:
    """The result of :func:`sign`: ``headers`` to send (the input's, plus ``x-amz-date``,
    ``x-amz-content-sha256``, ``x-amz-security-token`` if any, and ``Authorization``),
    and the ``canonical_request`` and ``string_to_sign`` (for tests and debugging; they hold
    no secret)."""

    headers: dict[str, str]
    canonical_request: str
    string_to_sign: str
    authorization: str


def uri_encode(text: str, *, keep_slash: bool) -> str:
    """SigV4's UriEncode: every byte but ALPHA / DIGIT / ``-_.~`` as ``%XX`` (upper-case hex).

    :param keep_slash: True for an object key path (``/`` stays), False for query names and values.
    """
    return quote(text, safe=_UNRESERVED + ("/" if keep_slash else ""))


def amz_date(now: datetime) -> str:
    """``YYYYMMDD'T'HHMMSS'Z'`` (ISO 8601 basic format, UTC) of an aware datetime.

    :raises ValueError: ``now`` is naive.
    """
    if now.tzinfo is None:
        raise ValueError("amz_date needs an aware datetime")
    return now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _trimall(value: str) -> str:
    # "Trimall": strip both ends and squeeze runs of spaces to one (the spec's CanonicalHeaders rule)
    return " ".join(value.split())


def _canonical_query(query: Mapping[str, str] | None) -> str:
    if not query:
        return ""
    pairs = sorted((uri_encode(k, keep_slash=False), uri_encode(v, keep_slash=False)) for k, v in query.items())
    return "&".join(f"{k}={v}" for k, v in pairs)


def canonical_request(method: str, path: str, query: Mapping[str, str] | None, headers: Mapping[str, str],
                      payload_sha256: str) -> tuple[str, str]:
    """The canonical request and its SignedHeaders list.

    :param path: the request path exactly as sent, already URI-encoded once (S3 rule:
        the canonical URI is that path, not encoded again and not normalised).
    :param query: decoded query parameters (None or empty = no query string).
    :param headers: the headers to sign, any case; values are trimmed per "Trimall".
    :param payload_sha256: lower-case hex SHA-256 of the body (``x-amz-content-sha256``).
    :return: ``(canonical_request, "h1;h2;…")``.
    :raises ValueError: a header name appears twice with different case.
    """
    lowered: dict[str, str] = {}
    for name, value in headers.items():
        key = name.strip().lower()
        if key in UNSIGNED_HEADERS:
            continue
        if key in lowered:
            raise ValueError(f"header {key!r} given twice")
        lowered[key] = _trimall(value)
    names = sorted(lowered)
    canon_headers = "".join(f"{n}:{lowered[n]}\n" for n in names)
    signed = ";".join(names)
    return "\n".join((method.upper(), path or "/", _canonical_query(query), canon_headers, signed,
                      payload_sha256)), signed


def signing_key(secret_access_key: str, date: str, region: str, service: str) -> bytes:
    """The derived key: HMAC-SHA256 chained over date (``YYYYMMDD``), region, service, ``aws4_request``."""
    k = hmac.new(("AWS4" + secret_access_key).encode("utf-8"), date.encode("ascii"), hashlib.sha256).digest()
    for part in (region, service, "aws4_request"):
        k = hmac.new(k, part.encode("utf-8"), hashlib.sha256).digest()
    return k


def sign(method: str, host: str, path: str, headers: Mapping[str, str], payload_sha256: str, creds: Credentials,
         region: str, now: datetime, *, service: str = "s3", query: Mapping[str, str] | None = None) -> Signed:
    """Sign one request with SigV4 (header-based authentication, single-chunk payload).

    :param method: ``PUT``, ``HEAD`` …
    :param host: the ``Host`` header value (``host`` or ``host:port`` when not the scheme's default).
    :param path: URI-encoded request path, e.g. ``/bucket/fleet/dev1/2026/11/29/s1.zst``.
    :param headers: extra headers to send and sign (``Content-Type``, ``If-None-Match``,
        ``x-amz-meta-*`` …); ``Host``, ``x-amz-date``, ``x-amz-content-sha256`` and the
        session token are added here.
    :param payload_sha256: lower-case hex SHA-256 of the body (:data:`EMPTY_SHA256` for none).
    :param creds: the access key; :param region: e.g. ``us-east-1`` (the store's, any string
        for MinIO/Garage, which default to ``us-east-1`` / ``garage``).
    :param now: aware datetime of the request (the caller's clock; S3 refuses a skew over 15 min).
    :return: :class:`Signed` with the full header set to send.
    :raises ValueError: naive ``now`` or a repeated header.
    """
    stamp = amz_date(now)
    out: dict[str, str] = {"Host": host, **headers, "x-amz-date": stamp, "x-amz-content-sha256": payload_sha256}
    if creds.session_token:
        out["x-amz-security-token"] = creds.session_token
    creq, signed_names = canonical_request(method, path, query, out, payload_sha256)
    scope = f"{stamp[:8]}/{region}/{service}/aws4_request"
    to_sign = "\n".join((ALGORITHM, stamp, scope, hashlib.sha256(creq.encode("utf-8")).hexdigest()))
    signature = hmac.new(signing_key(creds.secret_access_key, stamp[:8], region, service), to_sign.encode("utf-8"),
                         hashlib.sha256).hexdigest()
    auth = f"{ALGORITHM} Credential={creds.access_key_id}/{scope}, SignedHeaders={signed_names}, Signature={signature}"
    out["Authorization"] = auth
    return Signed(out, creq, to_sign, auth)
