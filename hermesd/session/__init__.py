"""Sessions: the seven-state machine, timers, settings (pure parts; the controller wires them)."""
