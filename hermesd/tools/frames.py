"""Length-prefixed JSON frames (standard library only; used by the fork server and workers).

A frame is a 4-byte big-endian unsigned length followed by that many bytes of
UTF-8 JSON (RFC 8259). Never pickle: a worker that writes anything else is a
crashed worker, and a peer cannot make the reader execute code.
"""

from __future__ import annotations

import json
import os
import struct

__all__ = ["HEADER", "FrameError", "encode", "read_frame", "write_all"]

HEADER = struct.Struct("!I")


class FrameError(Exception):
    """The byte stream is not a valid frame sequence (bad length, bad JSON, early EOF)."""


def encode(obj: object) -> bytes:
    """One frame for ``obj``: header + compact UTF-8 JSON."""
    body = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return HEADER.pack(len(body)) + body


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to the blocking descriptor ``fd``."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _read_exact(fd: int, n: int) -> bytes:
    chunks = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int, max_bytes: int) -> object:
    """Read one frame from the blocking descriptor ``fd``.

    :raises EOFError: clean end of stream before a header.
    :raises FrameError: length above ``max_bytes``, truncated body, or a body
        that is not UTF-8 JSON.
    """
    (n,) = HEADER.unpack(_read_exact(fd, HEADER.size))
    if n > max_bytes:
        raise FrameError(f"frame of {n} bytes exceeds {max_bytes}")
    try:
        return json.loads(_read_exact(fd, n).decode("utf-8"))
    except EOFError:
        raise FrameError("stream ended inside a frame") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise FrameError(f"frame is not UTF-8 JSON: {exc}") from None
