"""Memory Control Protocol: L1 (in-process LRU), L2 (SQLite), capture/compress/decay."""

# hermesd.config imports our settings module to build HermesConfig, and our settings
# import ``Section`` from it: loading config first keeps either import order working.
from .. import config as _config  # noqa: F401
