"""send_document: copy ``$HERMESD_DOCUMENTS_DIR/<document>`` to ``$HERMESD_OUTBOX_DIR/<message_id>/``
and append one JSON line to ``$HERMESD_OUTBOX_DIR/manifest.jsonl`` (the office demo's stand-in for mail)."""

import hashlib
import json
import os
import shutil
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
    dst = os.path.join(folder, os.path.basename(src))
    shutil.copyfile(src, dst)
    digest = hashlib.sha256()
    with open(dst, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            digest.update(block)
    record = {"message_id": message_id, "document": os.path.basename(src), "recipient": input["recipient"],
              "bytes": os.path.getsize(dst), "sha256": digest.hexdigest()}
    with open(os.path.join(outbox, "manifest.jsonl"), "a", encoding="utf-8") as fh:
        fh.write(json.dumps({**record, "note": input.get("note", ""), "sent_at": int(time.time())},
                            ensure_ascii=False) + "\n")
    return record
