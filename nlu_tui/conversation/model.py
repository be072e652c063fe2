"""The conversation model's old address: it moved down to :mod:`nlu_tui.conversation_model` (the
formats and engines read and fill it, so it sits below them). Kept for the run kernel's modules
being rewritten on another branch; remove it once nothing imports ``nlu_tui.conversation.model``.
"""

from __future__ import annotations

from nlu_tui.conversation_model import (
    E2EFile,
    E2EStep,
    E2ETestCase,
    EventKind,
    Fixture,
    MetadataEntry,
    ObservedEvent,
    StepKind,
    Story,
    StoryEntity,
    StoryFile,
    StoryStep,
    StoryStepKind,
    Turn,
)

__all__ = [
    "E2EFile",
    "E2EStep",
    "E2ETestCase",
    "EventKind",
    "Fixture",
    "MetadataEntry",
    "ObservedEvent",
    "StepKind",
    "Story",
    "StoryEntity",
    "StoryFile",
    "StoryStep",
    "StoryStepKind",
    "Turn",
]
