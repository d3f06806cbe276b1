"""note: remember/recall short notes in ``$HERMESD_TOOL_STATE_DIR/notes.json`` (atomic rename)."""

import json
import os
import time


class Failure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _path() -> str:
    return os.path.join(os.environ["HERMESD_TOOL_STATE_DIR"], "notes.json")


def _load() -> dict:
    try:
        with open(_path(), encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        return {}


def handle(input: dict) -> dict:
    """One call, serialised with other workers' by an exclusive lock (no lost update)."""
    import fcntl

    with open(_path() + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _handle(input)


def _handle(input: dict) -> dict:
    notes = _load()
    if input["action"] == "remember":
        if not input.get("key") or not input.get("text"):
            raise Failure("MISSING_FIELD", "remember needs key and text")
        notes[input["key"]] = {"key": input["key"], "text": input["text"], "saved_at": int(time.time())}
        tmp = f"{_path()}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(notes, fh, ensure_ascii=False)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, _path())
        return {"notes": [notes[input["key"]]]}
    q = (input.get("query") or input.get("key") or "").casefold()
    if not q:
        raise Failure("MISSING_FIELD", "recall needs query or key")
    hits = [n for n in notes.values() if q in n["key"].casefold() or q in n["text"].casefold()]
    return {"notes": sorted(hits, key=lambda n: -n["saved_at"])[:10]}
