"""``hermesd.lazyre``: a pattern made at import is compiled at its first use and then behaves as
``re.compile``'s; the daemon compiles what is left after READY."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest

from hermesd import lazyre


def test_nothing_is_compiled_until_first_use_then_it_is_the_pattern_itself() -> None:
    rx = lazyre.compile(r"(?P<n>\d+)\s*(?:km|公里)", re.I)
    assert rx.pattern == r"(?P<n>\d+)\s*(?:km|公里)" and rx._rx is None  # .pattern reads no compile
    m = rx.search("跑了 12 KM 左右")
    assert m is not None and m.group("n") == "12"
    real = re.compile(r"(?P<n>\d+)\s*(?:km|公里)", re.I)
    assert rx.compiled() is real  # re's cache: the very pattern re.compile gives
    assert (rx.flags, rx.groups, rx.groupindex) == (real.flags, real.groups, real.groupindex)
    assert rx.sub("N", "3km 4 公里") == real.sub("N", "3km 4 公里")
    assert rx.split("1km2km") == real.split("1km2km")
    assert [x.span() for x in rx.finditer("1km 22公里")] == [x.span() for x in real.finditer("1km 22公里")]
    assert rx.fullmatch("5km") and not rx.match("x5km")
    assert rx.findall("1km 2km") == ["1", "2"] and rx.subn("", "1km")[1] == 1


def test_an_invalid_pattern_raises_at_its_first_use() -> None:
    rx = lazyre.compile(r"(unclosed")
    with pytest.raises(re.error):
        rx.search("x")


def test_compile_pending_compiles_the_rest_a_few_at_a_time() -> None:
    while lazyre.compile_pending(1000):  # what this process's imports made before
        pass
    made = [lazyre.compile(rf"pending-{i}-\d") for i in range(7)]
    made[3].search("pending-3-1")  # used already: not counted against the limit
    left = lazyre.compile_pending(2)
    assert made[0]._rx is not None and made[1]._rx is not None
    assert made[2]._rx is None and left == 4
    while lazyre.compile_pending(4):
        pass
    assert all(rx._rx is not None for rx in made) and lazyre.pending() == 0


def test_importing_the_daemon_compiles_no_module_level_pattern_of_ours() -> None:
    code = textwrap.dedent("""
        import re._compiler as C, sys
        seen = []
        orig = C.compile
        def spy(p, flags=0):
            f = sys._getframe(1)
            while f is not None and "/re/" in f.f_code.co_filename:
                f = f.f_back
            if f is not None and "/hermesd/" in f.f_code.co_filename:
                seen.append(f.f_code.co_filename + ":" + str(f.f_lineno))
            return orig(p, flags)
        C.compile = spy
        import hermesd.daemon, hermesd.cli
        from hermesd import lazyre
        print(len(seen), lazyre.pending())
        print("\\n".join(seen))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    first, *where = out.splitlines()
    compiled, pending = map(int, first.split())
    # the time atoms' prefilter patterns and the validator's own field patterns are read at import
    # by design (nlu/scripts.py, typed.py); everything at module level waits
    assert compiled <= 12, where
    assert pending > 200
