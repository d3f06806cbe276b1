"""Build hook: the wheel carries the shipped defaults as package data under ``hermesd/_shipped``.

``config/`` and ``tools/`` live beside the package in the checkout (where the daemon reads
them directly), so setuptools' ``package-data`` cannot name them; this ``build_py`` copies
them into the built package. Copied: ``config/hermesd.yaml``, ``config/directory.yaml``,
``config/intents``, ``config/rules``, ``config/dialogue``, ``config/capture`` (memory capture
rules) and ``tools/`` — what the
defaults need for ``pip install hermesd && hermesd run`` to answer. Never copied:
``config/packs/`` (packs built from public data sets, e.g. the CC BY-SA SGD pack, install
only on request with ``scripts/install --with-pack``), caches and compiled files.
Everything else is in ``pyproject.toml``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SHIPPED = ("config/hermesd.yaml", "config/directory.yaml", "config/intents", "config/rules", "config/dialogue",
           "config/capture", "tools")
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", ".*")


class BuildWithShipped(build_py):
    """``build_py`` that also copies :data:`SHIPPED` to ``<build>/hermesd/_shipped``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout itself (hermesd.section.share_dirs)
        dest = Path(self.build_lib) / "hermesd" / "_shipped"
        if dest.exists():
            shutil.rmtree(dest)  # a rebuild carries nothing stale
        for rel in SHIPPED:
            src, out = ROOT / rel, dest / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            if src.is_dir():
                shutil.copytree(src, out, ignore=_IGNORE)
            else:
                shutil.copy2(src, out)


setup(cmdclass={"build_py": BuildWithShipped})
