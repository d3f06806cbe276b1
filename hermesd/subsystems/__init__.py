"""The daemon-facing shells: one :class:`Subsystem` per engine, with its JSON-RPC methods,
settings and metrics. Engines (``nlu``, ``rules``, ``dialogue``, ``session``, ``tools``,
``memory``, ``anchors``) never import from here; ``daemon.py`` wires these together.
"""
