"""Our SigV4 signer (``hermesd.memory.sigv4``) against botocore's ``S3SigV4Auth`` and AWS's published examples.

botocore is a test-only dependency (the ``test`` extra): for each request the
canonical request must be byte-identical and the ``Authorization`` header that
botocore's ``add_auth`` writes must equal ours, signed at the same instant.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, datetime
from urllib.parse import quote

import pytest
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials as BotoCredentials

from hermesd.memory import sigv4

SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
BODY = b"\x28\xb5\x2f\xfd zstd frame bytes \x00\x01"
SHA = hashlib.sha256(BODY).hexdigest()

CASES = [
    pytest.param("PUT", "http", "127.0.0.1:9000", "/fleet/archives/v1/dev1/2026/11/29/s1.zst", None,
                 {"Content-Type": "application/zstd", "Content-Length": str(len(BODY)), "If-None-Match": "*",
                  "x-amz-meta-sha256": SHA}, BODY, "session-token/with+chars=", "eu-central-1", id="conditional-put"),
    pytest.param("HEAD", "http", "127.0.0.1:9000", "/fleet/archives/v1/dev1/2026/11/29/s1.zst", None, {}, b"", "",
                 "us-east-1", id="head"),
    pytest.param("PUT", "https", "fleet.s3.eu-west-1.amazonaws.com", "/" + quote("a b/张工+报价=1.zst", safe="/"), None,
                 {"Content-Type": "application/zstd", "X-Amz-Meta-Note": "  two   spaces  "}, BODY, "", "eu-west-1",
                 id="virtual-host-encoded-key-trimall"),
    pytest.param("GET", "https", "s3.amazonaws.com", "/fleet", {"list-type": "2", "prefix": "archives/v1/dev 1/"}, {},
                 b"", "", "us-east-1", id="query-string"),
]


@pytest.mark.parametrize("method, scheme, host, path, query, headers, body, token, region", CASES)
def test_same_canonical_request_and_authorization_as_botocore(method, scheme, host, path, query, headers, body, token,
                                                              region) -> None:
    qs = "&".join(f"{sigv4.uri_encode(k, keep_slash=False)}={sigv4.uri_encode(v, keep_slash=False)}"
                  for k, v in (query or {}).items())
    url = f"{scheme}://{host}{path}" + (f"?{qs}" if qs else "")
    payload = hashlib.sha256(body).hexdigest()
    boto_auth = S3SigV4Auth(BotoCredentials("AKIDEXAMPLE", SECRET, token or None), "s3", region)
    req = AWSRequest(method=method, url=url, data=body, headers={"Host": host, **headers})
    boto_auth.add_auth(req)  # botocore's own clock; we sign at the instant it used
    stamp = req.headers["X-Amz-Date"]
    when = datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    ours = sigv4.sign(method, host, path, headers, payload, sigv4.Credentials("AKIDEXAMPLE", SECRET, token), region,
                      when, query=query)
    assert ours.authorization == req.headers["Authorization"]
    assert ours.headers["x-amz-content-sha256"] == req.headers["X-Amz-Content-SHA256"]
    # the canonical request botocore builds from exactly the headers we send
    same = AWSRequest(method=method, url=url, data=body,
                      headers={k: v for k, v in ours.headers.items() if k != "Authorization"})
    same.context["timestamp"] = stamp
    assert boto_auth.canonical_request(same) == ours.canonical_request
    assert boto_auth.string_to_sign(same, ours.canonical_request) == ours.string_to_sign


def test_aws_s3_documentation_example_get_object() -> None:
    """Amazon S3 API Reference, "Signature Calculations for the Authorization Header: Transferring
    Payload in a Single Chunk", example "GET Object" (bucket examplebucket, key test.txt, Range 0-9)."""
    creds = sigv4.Credentials("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    signed = sigv4.sign("GET", "examplebucket.s3.amazonaws.com", "/test.txt", {"Range": "bytes=0-9"},
                        sigv4.EMPTY_SHA256, creds, "us-east-1", datetime(2013, 5, 24, tzinfo=UTC))
    assert signed.authorization == (
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")


def test_aws_sigv4_test_suite_get_vanilla() -> None:
    """AWS SigV4 test suite, ``get-vanilla``: signing key derivation and string to sign for service ``service``."""
    creq, signed = sigv4.canonical_request("GET", "/", None, {"Host": "example.amazonaws.com",
                                                               "X-Amz-Date": "20150830T123600Z"}, sigv4.EMPTY_SHA256)
    assert signed == "host;x-amz-date"
    to_sign = "\n".join(("AWS4-HMAC-SHA256", "20150830T123600Z", "20150830/us-east-1/service/aws4_request",
                         hashlib.sha256(creq.encode()).hexdigest()))
    key = sigv4.signing_key(SECRET, "20150830", "us-east-1", "service")
    assert hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest() == \
        "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"


def test_user_agent_is_sent_but_not_signed_and_naive_time_is_refused() -> None:
    creds = sigv4.Credentials("AKID", "s3cr3t-value")
    s = sigv4.sign("HEAD", "h", "/b/k", {"User-Agent": "x"}, sigv4.EMPTY_SHA256, creds, "us-east-1",
                   datetime(2026, 1, 1, tzinfo=UTC))
    assert s.headers["User-Agent"] == "x" and "user-agent" not in s.authorization
    assert "s3cr3t-value" not in repr(creds)
    with pytest.raises(ValueError, match="aware"):
        sigv4.sign("HEAD", "h", "/", {}, sigv4.EMPTY_SHA256, creds, "us-east-1", datetime(2026, 1, 1))
