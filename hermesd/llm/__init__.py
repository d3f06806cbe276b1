"""The optional LLM executor: the few turns no rule covers (off by default; DESIGN.md).

- :mod:`.settings` — the ``llm:`` config section.
- :mod:`.wire` — the OpenAI-compatible and Ollama chat APIs: request bodies, replies (pure).
- :mod:`.calls` — the gate every proposed tool call passes: allow-list, role, breaker, schema (pure).
- :mod:`.rounds` — the model's rounds of one turn, with the model and tools injected.
- :mod:`.http` — the small HTTP client (the only I/O here).

The prompt is the Memory Control Protocol's (:mod:`hermesd.memory.prompt`); the session side
(when a turn goes here, the card of a ``confirm`` tool, the reply) is
:mod:`hermesd.session.llmturn`; the daemon-facing shell (the endpoint's breaker, the per-uid
rate limit, metrics) is :mod:`hermesd.subsystems.llm`.
"""
