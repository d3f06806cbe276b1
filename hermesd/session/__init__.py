"""Sessions: the seven-state machine, timers, settings (pure parts; the controller wires them)."""

# hermesd.config will import our settings module to build HermesConfig, and our settings
# import ``Section`` from it: loading config first keeps either import order working.
from .. import config as _config  # noqa: F401
