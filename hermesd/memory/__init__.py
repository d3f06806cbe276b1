"""Memory Control Protocol: L1 (in-process LRU), L2 (SQLite), capture/compress/decay."""
