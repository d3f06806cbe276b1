"""Fixtures of the replay tests: the CrossWOZ pack built from the shared data into a scratch folder.

The pack's generated parts are never committed (``config/packs/crosswoz/.gitignore``): a test
builds what it needs with ``scripts/build_crosswoz_pack.py --out``, as a fresh clone would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]
CROSSWOZ = REPO.parent / "shared" / "data" / "crosswoz"


@pytest.fixture(scope="session")
def crosswoz_pack(pack_env: dict[str, str]) -> Iterator[Path]:
    """The CrossWOZ pack built on every shared dialogue into a scratch folder (0755 all the way:
    the tool workers of a root daemon run as another user), through the session's pack cache
    (``pack_cache`` in ``tests/conftest.py``); skipped when the data is absent."""
    if not (CROSSWOZ / "crosswoz_turns.jsonl").exists():
        pytest.skip("public dialogue data not found at ../shared/data (see its README)")
    root = Path(tempfile.mkdtemp(prefix="hd-cw-", dir="/tmp"))
    os.chmod(root, 0o755)
    pack = root / "crosswoz"
    subprocess.run([sys.executable, str(REPO / "scripts" / "build_crosswoz_pack.py"), "--data", str(CROSSWOZ),
                    "--out", str(pack)], check=True, capture_output=True, timeout=1200, env=pack_env)  # hang guard only
    for p in [pack, *pack.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    yield pack
    shutil.rmtree(root, ignore_errors=True)
