"""export_report: ``rows`` as ``$HERMESD_OUTBOX_DIR/reports/<title>.csv``. Nested objects are flattened one
level (``output.message_id``); the columns are the union of the keys, in first-seen order."""

import csv
import os


def _flat(row: dict) -> dict:
    out = {}
    for key, value in row.items():
        if isinstance(value, dict):
            for sub, v in value.items():
                out[f"{key}.{sub}"] = v
        else:
            out[key] = value
    return out


def handle(input: dict) -> dict:
    rows = [_flat(r) for r in input["rows"]]
    columns: list[str] = []
    for r in rows:
        columns += [k for k in r if k not in columns]
    folder = os.path.join(os.environ["HERMESD_OUTBOX_DIR"], "reports")
    os.makedirs(folder, exist_ok=True)
    name = f"{input['title']}.csv"
    part = os.path.join(folder, f".{name}.{os.getpid()}.part")  # whole or absent, even after a kill -9
    with open(part, "w", newline="", encoding="utf-8") as fh:
        out = csv.DictWriter(fh, fieldnames=columns or ["empty"], extrasaction="ignore")
        out.writeheader()
        out.writerows(rows)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(part, os.path.join(folder, name))
    return {"file": os.path.join("reports", name), "rows": len(rows)}
