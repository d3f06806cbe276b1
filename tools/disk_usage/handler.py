"""disk_usage: statvfs(2) of the file system holding ``path``."""

import os


class Failure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def handle(input: dict) -> dict:
    path = input["path"]
    try:
        st = os.statvfs(path)
    except OSError as exc:
        raise Failure("PATH_NOT_FOUND", f"{path}: {exc.strerror}") from None
    total = st.f_blocks * st.f_frsize
    free = st.f_bavail * st.f_frsize
    used = total - st.f_bfree * st.f_frsize
    return {"path": path, "total_mb": total >> 20, "used_mb": used >> 20, "free_mb": free >> 20,
            "percent": round(100.0 * used / (used + free), 1) if used + free else 0.0}
