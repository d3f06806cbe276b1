"""reminder: create/list/cancel, kept in ``$HERMESD_TOOL_STATE_DIR/reminders.json`` (atomic rename)."""

import json
import os


class Failure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _path() -> str:
    return os.path.join(os.environ["HERMESD_TOOL_STATE_DIR"], "reminders.json")


def _load() -> dict:
    try:
        with open(_path(), encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        return {"next": 1, "items": []}


def _save(data: dict) -> None:
    tmp = _path() + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, _path())


def handle(input: dict) -> dict:
    data = _load()
    action = input["action"]
    if action == "create":
        for field in ("text", "due"):
            if not input.get(field):
                raise Failure("MISSING_FIELD", f"create needs {field}")
        item = {"id": f"r{data['next']}", "text": input["text"], "due": input["due"], "status": "pending"}
        data["next"] += 1
        data["items"].append(item)
        _save(data)
        return {"reminders": [item]}
    if action == "cancel":
        if not input.get("id"):
            raise Failure("MISSING_FIELD", "cancel needs id")
        for item in data["items"]:
            if item["id"] == input["id"] and item["status"] == "pending":
                item["status"] = "cancelled"
                _save(data)
                return {"reminders": [item]}
        raise Failure("NOT_FOUND", f"no pending reminder {input['id']}")
    return {"reminders": [i for i in data["items"] if i["status"] == "pending"]}
