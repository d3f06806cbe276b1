"""send_document: copy ``$HERMESD_DOCUMENTS_DIR/<document>`` to ``$HERMESD_OUTBOX_DIR/<message_id>/``
and append one JSON line to ``$HERMESD_OUTBOX_DIR/manifest.jsonl`` (the office demo's stand-in for mail).

Crash safety (a ``kill -9`` at any point): the copy is written to a hidden temp file in the
message folder, fsynced, then renamed to its name, and the folder fsynced; the manifest line is
appended last. A reader that sees a file sees it whole, and a message is sent only once its
manifest line exists (a crash before it leaves at most a hidden ``.*.part`` file, never a
partial document under its own name)."""

import hashlib
import json
import os
import time
import uuid


class Failure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def handle(input: dict) -> dict:
    docs = os.path.realpath(os.environ["HERMESD_DOCUMENTS_DIR"])
    outbox = os.environ["HERMESD_OUTBOX_DIR"]
    src = os.path.realpath(os.path.join(docs, input["document"]))
    if os.path.dirname(src) != docs or not os.path.isfile(src):  # no escape through .. or symlinks
        raise Failure("DOCUMENT_NOT_FOUND", f"no document named {input['document']!r}")
    message_id = time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
    folder = os.path.join(outbox, message_id)
    os.makedirs(folder)
    name = os.path.basename(src)
    dst = os.path.join(folder, name)
    part = os.path.join(folder, f".{name}.part")
    digest = hashlib.sha256()
    with open(src, "rb") as fin, open(part, "wb") as fout:
        for block in iter(lambda: fin.read(1 << 16), b""):
            digest.update(block)
            fout.write(block)
        fout.flush()
        os.fsync(fout.fileno())
    os.replace(part, dst)
    _fsync_dir(folder)
    record = {"message_id": message_id, "document": name, "recipient": input["recipient"],
              "bytes": os.path.getsize(dst), "sha256": digest.hexdigest()}
    with open(os.path.join(outbox, "manifest.jsonl"), "a", encoding="utf-8") as fh:
        fh.write(json.dumps({**record, "note": input.get("note", ""), "sent_at": int(time.time())},
                            ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    return record


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
