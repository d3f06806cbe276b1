"""Configuration models (pydantic v2) and layered loading. (foundation in progress)"""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Section(BaseModel):
    """Base of every config section: unknown keys are errors, models are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)
