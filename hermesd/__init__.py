"""hermesd — an LLM-free conversational session engine for edge devices."""

__version__ = "0.1.0"

__all__ = ["__version__"]
