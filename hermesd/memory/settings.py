"""The ``memory:`` config section (L1, L2, decay, per-role hidden fields)."""

from __future__ import annotations

from typing import Literal

from ..section import Section
from ..typed import Field, model_validator

__all__ = ["DecaySettings", "L1Settings", "L2Settings", "MemorySettings"]


class L1Settings(Section):
    """The in-process hot tier.

    :param max_bytes: byte budget of all slots (estimated size, see ``l1.slot_size``).
    :param max_entries: slot count budget; whichever bound is hit first evicts (LRU).
    :param max_sessions: L1 holds slots of at most this many sessions (the most recently used);
        past it the least recently used slots go until one session fewer is held — a device with
        many sessions keeps the idle ones' memories in L2 only (a read there is ~0.1 ms and is
        promoted on its second touch). 10,000 sessions' memories: 8 MB of L1 at the byte bound
        alone, ~0.8 MB with this bound (scripts/bench/footprint.py).
    :param ttl_s: how long a slot may stay in L1 after it was put or promoted
        (monotonic clock); after that a get falls through to L2.
    :param doorkeeper: promote an L2 read into L1 only on its second touch in the
        window (TinyLFU doorkeeper, Einziger et al. 2017); off = promote every read.
    :param bloom_capacity: keys one Bloom generation holds before it rotates early.
    :param bloom_error_rate: false-positive rate of one generation at capacity.
    :param preload_items: at ``session.open``, at most this many of the caller's memories (most
        used first, then the last captured) are warmed into L1; 0 = no preloading.
    :param preload_bytes: and at most this many bytes of them (estimated slot size).
    """

    max_bytes: int = Field(8 * 1024 * 1024, ge=4096)
    max_entries: int = Field(100_000, ge=16)
    max_sessions: int = Field(1000, ge=16)
    ttl_s: float = Field(7200.0, gt=0)
    doorkeeper: bool = True
    bloom_capacity: int = Field(200_000, ge=1000)
    bloom_error_rate: float = Field(0.01, gt=0, lt=0.5)
    preload_items: int = Field(64, ge=0, le=10_000)
    preload_bytes: int = Field(64 * 1024, ge=0)


class L2Settings(Section):
    """The SQLite warm tier (rollback journal, never WAL).

    :param journal_mode: ``truncate``/``delete``/``persist``; ``off`` and ``memory``
        only with ``unsafe: true`` (they corrupt the file on a crash: measured 1/20
        and 17/20 kill -9 runs for OFF, 2/20 and 20/20 for MEMORY).
    :param synchronous: ``full`` (default) or ``normal``/``off`` (the latter two may
        lose acknowledged batches on power loss).
    :param locking_mode: ``exclusive`` keeps the file lock for the daemon's life
        (point reads ~3x faster, single process); ``normal`` lets a technician's
        ``sqlite3`` shell read while the daemon runs.
    :param busy_timeout_ms: how long a statement waits for another connection's lock.
    :param batch_ms: longest a batch of writes stays open before its COMMIT.
    :param max_batch_ops: most writes in one transaction.
    :param max_queue: operations waiting for the L2 thread beyond which a put or event
        that did not ask for durability waits for its commit anyway (backpressure: a
        write flood cannot pile rows up in memory; measured +37 MB RSS for an
        unbounded 30,000-put burst).
    """

    journal_mode: Literal["truncate", "delete", "persist", "memory", "off"] = "truncate"
    synchronous: Literal["full", "normal", "off"] = "full"
    locking_mode: Literal["exclusive", "normal"] = "exclusive"
    busy_timeout_ms: int = Field(5000, ge=2000)
    batch_ms: int = Field(50, ge=1, le=1000)
    max_batch_ops: int = Field(1000, ge=1)
    max_queue: int = Field(1000, ge=1)
    unsafe: bool = False

    @model_validator(mode="after")
    def _unsafe_modes_need_unsafe(self) -> "L2Settings":
        if self.journal_mode in ("off", "memory") and not self.unsafe:
            raise ValueError(f"journal_mode {self.journal_mode!r} corrupts the file on a crash; "
                             "set memory.l2.unsafe: true to allow it")
        return self


class DecaySettings(Section):
    """Decay per memory class (DESIGN.md, Memory Control Protocol).

    :param window_s: period of the decay job and of one Bloom generation: session
        scratch untouched for a whole window (default 2 h) is demoted from L1 to L2.
    :param project_keep_s: project items are deleted this long after their project closes.
    :param person_verify_s: person anchors are re-checked against the directory this often.
    :param retrieval_decay_per_hour: λ in ``score = raw · e^(−λ·hours)``.
    """

    window_s: float = Field(7200.0, gt=0)
    project_keep_s: float = Field(30 * 86400.0, ge=0)
    person_verify_s: float = Field(90 * 86400.0, gt=0)
    retrieval_decay_per_hour: float = Field(0.001, ge=0)


class MemorySettings(Section):
    """``memory:`` — the Memory Control Protocol stack.

    :param hidden_fields: role → dotted field paths removed from what that role
        reads through ``memory.*`` (e.g. ``{"user": ["data.phone"]}``).
    :param default_k: results ``memory.search`` returns when ``k`` is not given.
    :param mention_ttl_s: life of a per-session mention → anchor binding.
    :param directory_path: people directory (YAML); relative paths resolve from the
        working directory; empty = the shipped ``config/directory.yaml`` if present.
    """

    l1: L1Settings = L1Settings()
    l2: L2Settings = L2Settings()
    decay: DecaySettings = DecaySettings()
    hidden_fields: dict[str, list[str]] = Field(default_factory=dict)
    default_k: int = Field(3, ge=1, le=100)
    mention_ttl_s: float = Field(7200.0, gt=0)
    directory_path: str = ""
