"""Fixture: its self-test case (mode ``check``) answers only once the test opens the gate (a file
named ``open`` in the tool's folder), so the self-test lasts as long as the test wants; mode
``run`` answers at once."""

import os
import time

GATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "open")


def handle(input):
    while input["mode"] == "check" and not os.path.exists(GATE):
        time.sleep(0.02)
    return {"echo": input["mode"]}
