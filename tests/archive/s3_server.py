"""A real S3-compatible server process on 127.0.0.1 that checks SigV4: moto in server mode.

Why moto (``moto[server]``, PyPI, test-only): of the S3 servers that install here
from PyPI or Debian it is the one that runs as a plain process in seconds —
MinIO is not packaged; Debian's ``radosgw`` (Ceph RGW) is, but needs a running Ceph
cluster (monitors and OSDs) behind it; Garage and SeaweedFS are in neither registry
as a server. moto's S3 implements ``If-None-Match: *`` conditional
writes (412 ``PreconditionFailed``), HEAD, user metadata and the S3 error XML.
It checks signatures only when asked: with ``INITIAL_NO_AUTH_ACTION_COUNT=N`` the
first N actions run unauthenticated (we use them to create an IAM user, its
access key and an ``s3:*`` policy) and every later request must carry a valid
SigV4 ``Authorization`` for a known access key (``moto/iam/access_control.py``
recomputes the signature with botocore's ``S3SigV4Auth`` and answers 403
``SignatureDoesNotMatch`` / ``InvalidAccessKeyId``), so a wrong key or a wrong
signature fails here as it would on AWS.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

#: IAM calls made before authentication starts: create_user, create_access_key, put_user_policy.
_SETUP_ACTIONS = 3
REGION = "eu-central-1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MotoS3:
    """``python -m moto.server`` as a child process, SigV4 checking on, one IAM key with ``s3:*``.

    :param port: 0 = any free port. ``access_key_id`` / ``secret_access_key`` are the key's.
    """

    def __init__(self, port: int = 0, *, log_dir: Path | None = None) -> None:
        self.port = port or free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        env.update(INITIAL_NO_AUTH_ACTION_COUNT=str(_SETUP_ACTIONS), AWS_DEFAULT_REGION=REGION)
        self._log = open(log_dir / f"moto-{self.port}.log", "wb") if log_dir else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                     env=env, stdout=self._log, stderr=subprocess.STDOUT)
        self._wait_listening(60.0)
        iam = self.client("iam", "setup", "setup")
        iam.create_user(UserName="hermesd")
        key = iam.create_access_key(UserName="hermesd")["AccessKey"]
        iam.put_user_policy(UserName="hermesd", PolicyName="archive", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
        self.access_key_id, self.secret_access_key = key["AccessKeyId"], key["SecretAccessKey"]
        self.s3 = self.client("s3")

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _wait_listening(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"moto server exited with {self.proc.returncode}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("moto server did not listen in time")

    def client(self, service: str, key_id: str | None = None, secret: str | None = None) -> Any:
        """A botocore client of this server (path-style addressing)."""
        import botocore.config
        import botocore.session

        return botocore.session.get_session().create_client(
            service, region_name=REGION, endpoint_url=self.endpoint,
            aws_access_key_id=key_id or self.access_key_id, aws_secret_access_key=secret or self.secret_access_key,
            config=botocore.config.Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))

    def credentials_file(self, path: Path, *, secret: str | None = None) -> Path:
        """Write an AWS shared-credentials file for this key (mode 0600)."""
        path.write_text(f"[default]\naws_access_key_id = {self.access_key_id}\n"
                        f"aws_secret_access_key = {secret or self.secret_access_key}\n")
        path.chmod(0o600)
        return path

    def objects(self, bucket: str) -> dict[str, dict[str, Any]]:
        """key → {body, metadata, etag, last_modified} of every object in ``bucket``."""
        out = {}
        for item in self.s3.list_objects_v2(Bucket=bucket).get("Contents", []):
            got = self.s3.get_object(Bucket=bucket, Key=item["Key"])
            out[item["Key"]] = {"body": got["Body"].read(), "metadata": got["Metadata"], "etag": got["ETag"],
                                "last_modified": got["LastModified"]}
        return out

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self._log is not subprocess.DEVNULL:
            self._log.close()
