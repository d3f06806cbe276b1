"""``scripts/install`` into a scratch root (``--root``): never the real /etc, /opt or /usr/share.

Covers what an operator relies on: a reinstall replaces the shipped packs and tools (nothing
stale), the SGD pack only with ``--with-pack sgd`` (the CrossWOZ pack with ``--with-pack crosswoz``), ``/etc/hermesd/hermesd.yaml`` a short commented
file of overrides written once, the same tree after a second run, and ``--uninstall`` keeping
/etc/hermesd and /var/lib/hermesd unless ``--purge``.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

#: installs that build a pack take minutes on a loaded 2-core box (a hang guard, not a speed test)
pytestmark = pytest.mark.timeout(1800)

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "install"
REAL = [Path("/opt/hermesd"), Path("/usr/share/hermesd"), Path("/etc/hermesd"),
        Path("/etc/systemd/system/hermesd.service")]


@pytest.fixture(autouse=True)
def _packs_from_the_session_cache(pack_cache, monkeypatch):
    """Every ``--with-pack`` install here builds its pack through the session's pack cache (the
    builders' ``HD_PACK_CACHE``, keyed by all their inputs): built once per run, then copied.
    :func:`test_install_is_idempotent` also builds one without it, fresh."""
    monkeypatch.setenv("HD_PACK_CACHE", str(pack_cache))


def _real_state() -> dict[str, float | None]:
    return {str(p): (p.stat().st_mtime if p.exists() else None) for p in REAL}


@pytest.fixture
def root(tmp_path):
    before = _real_state()
    yield tmp_path / "root"
    assert _real_state() == before, "scripts/install --root touched the real system"


def install(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    p = subprocess.run(["bash", str(SCRIPT), "--root", str(root), "--no-venv", *args],
                       capture_output=True, text=True, timeout=900)  # a hang guard, not a speed test: a pack build is minutes on a loaded 2-core box
    if check:
        assert p.returncode == 0, p.stderr
    return p


def tree(root: Path) -> dict[str, tuple[str, int]]:
    """relative path → (sha256 of the bytes, or "dir"; mode)."""
    return {str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir",
                                       p.stat().st_mode & 0o7777)
            for p in sorted(root.rglob("*"))}


def test_fresh_install_lays_out_the_device(root):
    install(root)
    share = root / "usr/share/hermesd"
    for rel in ("config/hermesd.yaml", "config/directory.yaml", "tools/journal_query/tool.yaml"):
        assert (share / rel).is_file(), rel
    assert {p.name for p in (share / "config/intents").iterdir()} == \
        {p.name for p in (REPO / "config/intents").iterdir()}
    assert (root / "etc/hermesd/rules").is_dir()
    assert (root / "usr/share/doc/hermesd/README.md").is_file()
    assert (root / "usr/lib/sysusers.d/hermesd.conf").is_file()
    unit = (root / "etc/systemd/system/hermesd.service").read_text()
    assert "ExecStart=/opt/hermesd/venv/bin/hermesd run" in unit
    assert not list(share.rglob("__pycache__"))
    # the CC BY-SA SGD pack is not copied unless asked for
    assert not (share / "config/packs").exists()


def test_etc_config_is_a_short_commented_override_file(root):
    from hermesd.config import load

    install(root)
    etc = root / "etc/hermesd/hermesd.yaml"
    text = etc.read_text()
    lines = text.splitlines()
    assert len(lines) <= 20 and all(not ln.strip() or ln.lstrip().startswith("#") for ln in lines), text
    assert text != (REPO / "config/hermesd.yaml").read_text()
    assert load(None, env={}, etc=etc) == load(None, env={}, etc=None)  # overrides nothing yet
    # its examples, uncommented, are a valid config
    examples = "\n".join(ln[2:] for ln in lines[lines.index("#") + 1:])
    assert yaml.safe_load(examples)["nlu"]["timezone"] == "Asia/Shanghai"
    f = root / "uncommented.yaml"
    f.write_text(examples)
    assert load(f, env={}, etc=None).nlu.timezone == "Asia/Shanghai"


def test_etc_config_is_never_overwritten(root):
    install(root)
    etc = root / "etc/hermesd/hermesd.yaml"
    etc.write_text("nlu:\n  timezone: Europe/Berlin\n")
    install(root)
    assert etc.read_text() == "nlu:\n  timezone: Europe/Berlin\n"


def test_install_is_idempotent(root, monkeypatch, pack_cache):
    """Two installs give the same tree, byte for byte: the first with the SGD pack from the session's
    cache (built there if this runs first), the second building it afresh — so two builds of the pack
    give the same bytes too."""
    install(root, "--with-pack", "sgd")
    first = tree(root)
    assert [p for p in pack_cache.iterdir() if p.name.startswith("sgd-") and p.is_dir()]  # it went through it
    monkeypatch.delenv("HD_PACK_CACHE")
    install(root, "--with-pack", "sgd")
    assert tree(root) == first
    assert not [p for p in (root / "usr/share").iterdir() if p.name.startswith("hermesd.")]  # no swap leftovers


def test_reinstall_leaves_no_stale_packs_or_tools(root):
    install(root)
    share = root / "usr/share/hermesd"
    (share / "config/rules/retired.yaml").write_text("pack: retired\nrules: []\n")
    (share / "config/intents/retired.yaml").write_text("intents: []\n")
    (share / "tools/retired").mkdir()
    (share / "tools/retired/tool.yaml").write_text("name: retired\n")
    install(root)
    assert not (share / "config/rules/retired.yaml").exists()
    assert not (share / "config/intents/retired.yaml").exists()
    assert not (share / "tools/retired").exists()
    assert (share / "config/rules").is_dir() and (share / "tools/journal_query").is_dir()


def test_sgd_pack_only_with_the_flag_and_gone_when_no_longer_asked_for(root):
    share = root / "usr/share/hermesd"
    install(root, "--with-pack", "sgd")
    sgd = share / "config/packs/sgd"
    assert (sgd / "ATTRIBUTION.md").is_file() and (sgd / "LICENSE").is_file() and (sgd / "rules").is_dir()
    install(root)
    assert not (share / "config/packs").exists()
    bad = install(root, "--with-pack", "nope", check=False)
    assert bad.returncode == 2 and "unknown pack 'nope'" in bad.stderr


@pytest.mark.skipif(not (REPO.parent / "shared/data/crosswoz/crosswoz_turns.jsonl").exists(),
                    reason="CrossWOZ data not found at ../shared/data (see its README)")
def test_crosswoz_pack_built_at_install_with_one_handler_source(root, tmp_path):
    """--with-pack crosswoz builds the pack into the staging folder: its generated parts there,
    the handler sources once (tools/_cw, named by the descriptor), its own config alone enough."""
    install(root, "--with-pack", "crosswoz")
    pack = root / "usr/share/hermesd/config/packs/crosswoz"
    for rel in ("ATTRIBUTION.md", "LICENSE", "intents/crosswoz.yaml", "rules/crosswoz.yaml",
                "tools/_cw/query.py", "tools/_cw/learned.json", "tools/crosswoz_query/tool.yaml"):
        assert (pack / rel).is_file(), rel
    assert not (pack / ".gitignore").exists()
    assert [p.name for p in (pack / "tools/crosswoz_query").iterdir() if p.suffix == ".py"] == []
    assert yaml.safe_load((pack / "tools/crosswoz_query/tool.yaml").read_text())["handler"] == "../_cw/query.py"
    p = subprocess.run([sys.executable, "-m", "hermesd", "check-config", str(pack / "hermesd.yaml")],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert p.returncode == 0 and "config ok" in p.stdout and str(pack / "rules") in p.stdout, p.stderr


def test_the_staged_packs_pass_check_config(root, tmp_path):
    install(root)
    share = root / "usr/share/hermesd"
    cfg = tmp_path / "device.yaml"
    cfg.write_text(f"nlu:\n  intent_dirs: [{share}/config/intents]\n"
                   f"session:\n  rules_dir: {share}/config/rules\n"
                   f"tools:\n  tools_dir: {share}/tools\n")
    p = subprocess.run([sys.executable, "-m", "hermesd", "check-config", str(cfg)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "config ok" in p.stdout, p.stderr


def test_uninstall_keeps_config_and_state_unless_purge(root):
    install(root)
    state = root / "var/lib/hermesd"
    state.mkdir(parents=True)
    (state / "l2.sqlite").write_bytes(b"memories")
    (root / "etc/hermesd/rules/site.yaml").write_text("pack: site\nrules: []\n")
    out = install(root, "--uninstall")
    assert "kept" in out.stdout
    for gone in ("usr/share/hermesd", "usr/share/doc/hermesd", "etc/systemd/system/hermesd.service",
                 "etc/systemd/system/hermesd.socket", "usr/lib/sysusers.d/hermesd.conf",
                 "usr/lib/tmpfiles.d/hermesd.conf"):
        assert not (root / gone).exists(), gone
    assert (state / "l2.sqlite").read_bytes() == b"memories"
    assert (root / "etc/hermesd/hermesd.yaml").is_file() and (root / "etc/hermesd/rules/site.yaml").is_file()
    install(root, "--uninstall")  # again: nothing left to remove, still fine
    install(root, "--uninstall", "--purge")
    assert not state.exists() and not (root / "etc/hermesd").exists()
    assert install(root, "--purge", check=False).returncode == 2  # --purge only with --uninstall
