"""Two rotating Bloom generations recording which keys were touched in the decay window.

Used twice (DESIGN.md, Memory Control Protocol):

- *doorkeeper*: a key read from L2 is promoted to L1 only if either generation
  already holds it, i.e. on its second touch within the window, so a one-off
  bulk search cannot flush L1 (TinyLFU doorkeeper: Einziger, Friedman, Manes,
  "TinyLFU: A Highly Efficient Cache Admission Policy", ACM ToS 2017, §3.4.2);
- *decay*: a slot that neither generation saw was idle for at least a whole
  window and is demoted from L1.

A generation rotates when the window ends or when it reaches ``capacity`` keys
(TinyLFU's "reset" when the sample size is reached). Bloom false positives only
ever keep a key longer or promote it earlier — never lose data.
Filters come from pybloom-live (``BloomFilter``). A generation's bit array is made at its first
key, not before: an empty filter answers "not seen" for every key, so a generation that holds
none is ``None`` (at the default 200,000 keys, 1 %, each array is 240 kB, set to zero and so
resident: a daemon that has touched no memory held 0.48 MB for two empty filters).
"""

from __future__ import annotations

from pybloom_live import BloomFilter

__all__ = ["Doorkeeper"]


class Doorkeeper:
    """Current + previous Bloom generation over string keys.

    :param capacity: keys per generation before it rotates early.
    :param error_rate: false-positive rate of one full generation.
    """

    def __init__(self, capacity: int, error_rate: float) -> None:
        self.capacity = capacity
        self.error_rate = error_rate
        #: the generations, ``None`` while they hold no key (made by :meth:`_cur_add`)
        self._cur: BloomFilter | None = None
        self._prev: BloomFilter | None = None
        #: increments at every rotation; lets a caller add a key once per generation
        #: (re-adding a present key changes nothing in a Bloom filter).
        self.generation = 0

    def touch(self, key: str) -> bool:
        """Record ``key``; return whether it had been seen in the window already."""
        if self._prev is not None and key in self._prev:
            self._cur_add(key)
            return True
        return self._cur_add(key)

    def seen(self, key: str) -> bool:
        """Whether either generation holds ``key`` (no recording)."""
        return (self._cur is not None and key in self._cur) or (self._prev is not None and key in self._prev)

    def rotate(self) -> None:
        """Start a new window: current becomes previous, previous is dropped."""
        self._prev = self._cur
        self._cur = None
        self.generation += 1

    def _cur_add(self, key: str) -> bool:
        cur = self._cur
        if cur is not None and cur.count >= self.capacity:
            self.rotate()
            cur = None
        if cur is None:
            cur = self._cur = BloomFilter(self.capacity, self.error_rate)
        return cur.add(key)
