"""order_status: the line for ``order_id`` in ``$HERMESD_DOCUMENTS_DIR/orders.jsonl`` (one JSON object per
order: ``{"order_id", "status", "updated"?, "detail"?}``; the last line for an id wins). Ids compare
case-insensitively, ignoring dashes."""

import json
import os


class Failure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _key(order_id: str) -> str:
    return order_id.replace("-", "").casefold()


def handle(input: dict) -> dict:
    want = _key(input["order_id"])
    found = None
    try:
        with open(os.path.join(os.environ["HERMESD_DOCUMENTS_DIR"], "orders.jsonl"), encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    rec = json.loads(line)
                    if _key(str(rec.get("order_id", ""))) == want:
                        found = rec
    except FileNotFoundError:
        pass
    if found is None:
        raise Failure("NOT_FOUND", f"no order {input['order_id']} in the order book")
    out = {"order_id": str(found["order_id"]), "status": str(found.get("status", "unknown"))}
    for key in ("updated", "detail"):
        if found.get(key):
            out[key] = str(found[key])
    return out
