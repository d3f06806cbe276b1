"""Build hook: the wheel carries the shipped defaults as package data under ``hermesd/_shipped``.

``config/`` and ``tools/`` live beside the package in the checkout (where the daemon reads
them directly), so setuptools' ``package-data`` cannot name them; this ``build_py`` copies
them into the built package. Copied: everything in ``config/`` (the defaults, the people
directory, intents, rules, the dialogue lexicon, capture rules …) but ``config/packs/``, and
``tools/`` — what the defaults need for ``pip install hermesd && hermesd run`` to answer, as
``scripts/install`` copies it. Never copied:
``config/packs/`` (packs built from public data sets, e.g. the CC BY-SA SGD pack, install
only on request with ``scripts/install --with-pack``), caches and compiled files.
The shipped intents are then compiled into the wheel (``hermesd build-pack``'s artifact,
``_shipped/config/intents/pack.compiled``), so an installed daemon never trains at start;
the build needs orjson and PyYAML for that (``[build-system] requires``).
Everything else is in ``pyproject.toml``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SHIPPED = tuple(sorted(f"config/{p.name}" for p in (ROOT / "config").iterdir() if p.name != "packs")) + ("tools",)
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", ".*", "pack.compiled")


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
        self._compile_intents(dest / "config" / "intents")

    @staticmethod
    def _compile_intents(folder: Path) -> None:
        import sys

        sys.path.insert(0, str(ROOT))  # the hermesd being built, not an installed one
        try:
            from hermesd.nlu import artifact
        except ImportError as exc:  # a build without orjson/PyYAML: the daemon trains once instead
            print(f"warning: shipped intents not compiled ({exc}); hermesd will train them once at start")
            return
        finally:
            sys.path.remove(str(ROOT))
        artifact.build([folder])


setup(cmdclass={"build_py": BuildWithShipped})
