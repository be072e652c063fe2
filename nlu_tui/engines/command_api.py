"""The optional command capability of the engine contract (dialogue understanding tests).

An engine whose ``capabilities.commands`` is true implements :meth:`CommandEngine.
predict_commands`: given the conversation so far and the next user message, it returns the
commands its dialogue-understanding component predicted, per component, with the prompts and
LLM output when it has them (the shape Rasa Pro records in a user event's ``parse_data``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nlu_tui.dut.commands import Command


@dataclass(frozen=True)
class Turn:
    """One earlier step of the conversation: a user message or a bot text / response name."""

    actor: str  # "user" or "bot"
    text: str | None = None
    template: str | None = None

    def readable(self) -> str:
        """Rasa's ``to_str``: ``user: ...``, ``bot: ...`` or ``utter: utter_x``."""
        if self.actor == "user":
            return f"user: {self.text}"
        if self.text:
            return f"bot: {self.text}"
        return f"utter: {self.template}"


@dataclass(frozen=True)
class CommandRequest:
    """Everything an engine may use to predict the commands of one user message."""

    text: str
    conversation: tuple[Turn, ...] = ()
    """The steps before this message, as the test case writes them."""
    conversation_id: str = ""
    case_key: str = ""
    """Shared by the steps of one test case (engines may simulate its conversation once)."""
    metadata: dict[str, Any] = field(default_factory=dict)
    slots: dict[str, Any] = field(default_factory=dict)
    """Fixture slots to set before the conversation."""
    stub_actions: dict[str, Any] = field(default_factory=dict)


@dataclass
class CommandOutput:
    """Predicted commands by component, plus prompts (Rasa's ``prompts`` list of dicts with
    ``component_name``, ``prompt_name``, ``user_prompt``, ``system_prompt`` and
    ``llm_response_metadata`` holding ``latency_ms``, ``usage`` and ``choices``)."""

    commands: dict[str, list[Command]] = field(default_factory=dict)
    prompts: list[dict[str, Any]] = field(default_factory=list)
    latency_ms: float | None = None
    """The whole message's round trip, measured by the runner."""

    def all_commands(self) -> list[Command]:
        return [c for cs in self.commands.values() for c in cs]


class CommandEngine:
    """Mixin of engines that predict commands."""

    async def predict_commands(self, request: CommandRequest) -> CommandOutput:
        raise NotImplementedError
