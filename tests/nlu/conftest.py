"""Shared NLU fixtures: the shipped packs trained once per session (cached by content hash)."""

import asyncio
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from hermesd.subsystems.nlu import NluSubsystem
from hermesd.nlu.settings import NluSettings

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / ".." / "shared" / "data"
SH = ZoneInfo("Asia/Shanghai")
REF = datetime(2026, 11, 29, 7, 30, tzinfo=SH)  # a Sunday


@pytest.fixture(scope="session")
def nlu(tmp_path_factory) -> NluSubsystem:
    sub = NluSubsystem(NluSettings(intent_dirs=[str(REPO / "config" / "intents")]), clock=lambda: REF)
    asyncio.run(sub.start_standalone(tmp_path_factory.mktemp("nlu-cache")))
    sub.set_people({"张伟": "person:sales/zhang", "李娜": "person:sales/li"})
    return sub


@pytest.fixture(scope="session")
def nlu_engine(nlu):
    return nlu.engine
