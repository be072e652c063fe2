"""The conversation capability: engines that hold a whole conversation, not one utterance.

An engine with ``Capabilities.conversation`` implements :class:`ConversationEngine`: it opens a
:class:`Conversation` by sender id (one per test case, so test cases run side by side), sends
user messages and reports what followed as a :class:`~nlu_tui.conversation_model.Turn` (bot
messages with their response names, actions, slots set, the parsed intent and entities, and
the commands where the engine exposes them). Fixtures are applied as slot events before the
first message.

Test stories need more than a conversation: the dialogue policy is asked for the next action
given the story's own events (teacher forcing, as ``rasa test core`` does). Engines that can
answer that implement :class:`DialogueProbe` too.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from nlu_tui.conversation_model import Turn


class Conversation(abc.ABC):
    """One conversation with the engine, under one sender id."""

    sender_id: str

    @abc.abstractmethod
    async def begin(self, slots: Mapping[str, Any] | None = None) -> Turn:
        """Start the session, set ``slots`` (fixtures) before anything is said, and return
        what happened so far (the session start's events)."""

    @abc.abstractmethod
    async def send(self, text: str, metadata: Mapping[str, Any] | None = None) -> Turn:
        """Say ``text`` as the user; the events that followed, the user message's first."""


@runtime_checkable
class ConversationEngine(Protocol):
    """What an engine with ``Capabilities.conversation`` offers."""

    def conversation(self, sender_id: str) -> Conversation: ...


@dataclass
class ActionPrediction:
    """The policy's choice of next action, with the policy that chose it."""

    action: str
    policy: str | None = None
    confidence: float | None = None


@dataclass
class DialogueDomain:
    """What story evaluation needs of the assistant's domain."""

    slot_types: dict[str, str] = field(default_factory=dict)
    """Slot name to type (``text``, ``bool``, ``list``...)."""
    entity_slots: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """``from_entity`` mappings without an active-loop condition: (slot, mapping) in order."""
    forms: set[str] = field(default_factory=set)
    store_entities_as_slots: bool = True


@runtime_checkable
class DialogueProbe(Protocol):
    """Stateless questions to the dialogue policy, for test stories."""

    async def dialogue_domain(self) -> DialogueDomain: ...

    async def predict_action(self, events: Sequence[Mapping[str, Any]]) -> ActionPrediction:
        """The next action after ``events`` (the engine's own event dicts)."""
        ...

    async def parse_message(self, text: str) -> dict[str, Any]:
        """The NLU's parse of ``text`` (intent, entities), as the engine answers it."""
        ...
