"""The shipped defaults are found wherever hermesd is installed: a wheel, and ``scripts/install``.

``pip wheel . --no-deps`` builds the real wheel; it is installed (``--no-deps``) into a
scratch venv whose only other path is the test venv's site-packages for the runtime
dependencies (a ``.pth`` line: no editable finder of the checkout is activated that way),
and ``hermesd run`` is started from that venv in a folder outside the checkout. The
daemon must answer with the wheel's packs, tools and people directory
(``hermesd/_shipped``). A ``scripts/install --root`` tree is run through
``HERMESD_SHARE_DIR`` the way ``systemd/hermesd.service`` names ``/usr/share/hermesd``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from hermesd_testing import REPO, Daemon

DAY1 = "2026-11-25T10:00:00+08:00"


def _ask(d: Daemon, texts: list[str]) -> list[dict]:
    with d.client(timeout_s=60) as c:
        sid = c.call("session.open", {"locale": "zh"})["session_id"]
        return [c.call("session.turn", {"session_id": sid, "text": t, "reference_time": DAY1})["reply"]
                for t in texts]


def _check_answers(replies: list[dict]) -> None:
    disk, zhang = replies
    # 磁盘还剩多少 ran the shipped disk_usage tool on / and its reply template read the result out
    m = re.search(r"已用 ([0-9.]+)%，还剩 ([0-9.]+) GB（共 ([0-9.]+) GB）", disk["text"])
    assert m, disk
    usage = shutil.disk_usage("/")
    # df and psutil count blocks reserved for root as neither used nor free: used / (used + free)
    assert abs(float(m.group(1)) - 100 * usage.used / (usage.used + usage.free)) < 2.0, (disk, usage)
    # 张工 is two people in the shipped directory (张伟 of 销售部, 张强 of 研发部): the daemon asks which
    assert {c["anchor_id"] for c in zhang["card"]["choices"]} == {"person:rd/zhang", "person:sales/zhang"}, zhang
    assert "张强（研发部）" in zhang["text"] and "张伟（销售部）" in zhang["text"], zhang


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-q", "-w", str(out)],
                   check=True, capture_output=True, timeout=300)
    (whl,) = out.glob("hermesd-*.whl")
    return whl


def test_wheel_carries_the_default_packs_and_no_public_dataset(wheel) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {n.removeprefix("hermesd/_shipped/") for n in names if n.startswith("hermesd/_shipped/")}
    for rel in ("config/hermesd.yaml", "config/directory.yaml", "config/dialogue/lexicon.yaml",
                "tools/disk_usage/tool.yaml", "tools/contacts/handler.py"):
        assert rel in shipped, rel
    # the intents compiled at build time (hermesd build-pack), so the installed daemon never trains
    assert {p.name for p in (REPO / "config/intents").glob("*.yaml")} | {"pack.compiled"} == \
        {Path(n).name for n in shipped if n.startswith("config/intents/")}
    assert {p.name for p in (REPO / "config/rules").glob("*.yaml")} == \
        {Path(n).name for n in shipped if n.startswith("config/rules/")}
    assert not [n for n in names if "packs/" in n.lower() and "hermesd/nlu" not in n or "sgd" in n.lower()]
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_pip_installed_wheel_runs_with_its_own_defaults(wheel, tmp_path) -> None:
    root = tmp_path
    os.chmod(root, 0o755)  # tool workers run as hermesd-tool
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = str(venv / "bin" / "python")
    purelib = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "_deps_from_test_venv.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-compile", "--target", purelib,
                    str(wheel)], check=True, capture_output=True, timeout=300)
    for p in [venv, *venv.rglob("*")]:
        if p.is_dir():
            p.chmod(0o755)
    where = subprocess.run([py, "-c", "import hermesd, hermesd.section as s; print(hermesd.__file__); "
                            "print(s.shipped_path('config', 'intents')); print(s.shipped_path('tools'))"],
                           check=True, capture_output=True, text=True, cwd=root).stdout.split()
    assert all(w.startswith(purelib) for w in where), where
    assert where[1].endswith("hermesd/_shipped/config/intents")
    run = root / "run"
    run.mkdir(mode=0o755)
    d = Daemon(run, None, {}, [], python=py)
    try:
        d.wait_ready()
        d.wait_settled()
        _check_answers(_ask(d, ["磁盘还剩多少", "把报价单发给张工"]))
        assert "from=artifact" in d.log() and "build-pack" not in d.log()
    finally:
        d.stop()


def test_scripts_install_tree_is_what_the_daemon_reads(tmp_path) -> None:
    dest = tmp_path / "root"
    # PYTHON: the interpreter that compiles the intents into the tree (hermesd build-pack)
    subprocess.run(["bash", str(REPO / "scripts/install"), "--root", str(dest), "--no-venv"], check=True,
                   capture_output=True, timeout=300, env={**os.environ, "PYTHON": sys.executable})
    assert (dest / "usr/share/hermesd/config/intents/pack.compiled").is_file()
    share = dest / "usr/share/hermesd"
    for p in [tmp_path, *dest.rglob("*")]:
        if p.is_dir():
            p.chmod(0o755)
    env = {"HERMESD_SHARE_DIR": str(share)}
    where = subprocess.run([sys.executable, "-c", "import hermesd.section as s; "
                            "print(s.shipped_path('config', 'directory.yaml')); print(s.shipped_path('tools')); "
                            "print(s.shipped_path('config', 'rules'))"],
                           check=True, capture_output=True, text=True, env={**os.environ, **env}).stdout.split()
    assert all(w.startswith(str(share)) for w in where), where
    run = tmp_path / "run"
    run.mkdir(mode=0o755)
    d = Daemon(run, None, env, [])
    try:
        d.wait_ready()
        d.wait_settled()
        _check_answers(_ask(d, ["磁盘还剩多少", "把报价单发给张工"]))
        assert "from=artifact" in d.log()
    finally:
        d.stop()
