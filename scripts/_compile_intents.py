"""Compile a built pack's intents ahead of time, as ``hermesd build-pack DIR`` does (shared by the pack
builders, ``scripts/build_*_pack.py``): the daemon then loads the scorer in milliseconds instead of
training it at every first start."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def compile_intents(intents: Path) -> int:
    """Build ``intents``'s compiled artifact and print where it went; without hermesd importable, say
    which command does it instead. :return: 0 (the pack itself is built either way)."""
    sys.path.insert(0, str(REPO))
    try:
        from hermesd.nlu import artifact
    except ImportError as exc:
        print(f"intents not compiled ({exc}): run hermesd build-pack {intents}")
        return 0
    path, compiled = artifact.build([intents])
    print(f"compiled {path} ({len(compiled.packs.intents)} intents, {compiled.examples} examples)")
    return 0
