"""The two-generation Bloom filter on its own: second-touch detection, rotation, early rotation."""

from __future__ import annotations

from hermesd.memory.doorkeeper import Doorkeeper


def test_second_touch_and_two_windows() -> None:
    d = Doorkeeper(capacity=1000, error_rate=0.001)
    assert d.touch("a") is False and d.touch("a") is True
    d.rotate()
    assert d.seen("a")  # the previous window still counts
    assert d.touch("a") is True
    d.rotate()
    assert d.seen("a")  # re-touched in the last window
    d.rotate()
    assert not d.seen("a") and d.generation == 3  # untouched for a whole window


def test_full_generation_rotates_early() -> None:
    d = Doorkeeper(capacity=1000, error_rate=0.001)
    for i in range(2500):
        d.touch(f"k{i}")
    assert d.generation == 2
    assert all(d.seen(f"k{i}") for i in range(1000, 2500))  # no false negatives
    # k0..k999 were only in the dropped generation: at most a few Bloom false positives remain
    assert sum(d.seen(f"k{i}") for i in range(1000)) <= 10


def test_a_generation_holds_no_bit_array_before_its_first_key() -> None:
    # an empty filter answers "not seen" for every key, so none is made until a key comes: the
    # default generation (200,000 keys at 1 %) is a 240 kB array, zero-filled and so resident
    from hermesd.subsystems.footprint import deep_size

    d = Doorkeeper(capacity=200_000, error_rate=0.01)
    assert not d.seen("a") and deep_size([d], set()) < 10_000
    d.rotate()
    assert not d.seen("a") and d.generation == 1 and deep_size([d], set()) < 10_000
    assert d.touch("a") is False and d.seen("a")
    one = deep_size([d], set())
    assert one > 200_000  # the current generation now exists
    d.rotate()
    assert d.seen("a") and d.touch("a") is True  # the previous window still counts
    assert deep_size([d], set()) > 2 * 200_000  # both generations hold a key
    d.rotate()
    d.rotate()
    assert not d.seen("a") and 0 < deep_size([d], set()) < 10_000  # a key-less window drops the filters
