"""``python -m hermesd`` is ``hermesd``."""

from .cli import main

main()
