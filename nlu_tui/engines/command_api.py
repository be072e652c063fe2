"""The optional command capability of the engine contract (dialogue understanding tests).

An engine whose ``capabilities.commands`` is true implements :meth:`CommandEngine.
predict_commands`: given the conversation so far and the next user message, it returns the
commands its dialogue-understanding component predicted, per component, with the prompts and
LLM output when it has them (the shape Rasa Pro records in a user event's ``parse_data``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nlu_tui.dialogue_understanding.commands import Command


@dataclass(frozen=True)
class Turn:
    """One earlier step of the conversation: a user message or a bot text / response name."""

    actor: str  # "user" or "bot"
    text: str | None = None
    template: str | None = None
    commands: tuple[Command, ...] = ()
    """A user step's expected commands: Rasa Pro's DUT runner replays the earlier user
    messages with these in ``parse_data`` (``TestCaseTrackerSimulator._create_user_message``)."""
    metadata: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """A user step's metadata (its test case's, then its own: Rasa's ``filter_metadata``),
    sent with the message when it is replayed."""

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
    not_evaluated: str | None = None
    """Why the step was not evaluated (no message sent): Rasa Pro stops simulating a test case
    when the bot's responses differ from its bot steps and evaluates no later user step
    (``du_test_runner.py``, ``run_test_case``); such a step counts as a failed user step, and
    the test case passes when every evaluated step passed."""
    history_note: str | None = None
    """Where the conversation before the step differs from the one Rasa Pro's DUT runner
    would have built (see :mod:`nlu_tui.engines.rasa_pro`)."""

    def all_commands(self) -> list[Command]:
        return [c for cs in self.commands.values() for c in cs]


class CommandEngine:
    """Mixin of engines that predict commands."""

    async def predict_commands(self, request: CommandRequest) -> CommandOutput:
        raise NotImplementedError
