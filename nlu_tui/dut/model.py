"""DUT test cases as evaluated, and what an engine answered for their user steps.

A :class:`DutCase` is built by the reader (:mod:`nlu_tui.dut.reader`) from the E2E test-case
model; its user steps carry expected commands. Only user steps *with* commands are evaluated
and counted, as in Rasa Pro (``iterate_over_user_steps``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nlu_tui.dialogue_understanding.commands import Command, command_from_json, dedupe
from nlu_tui.dialogue_understanding.compare import CaseOutcome, StepOutcome, are_command_lists_equal
from nlu_tui.engines.command_api import CommandOutput, Turn


@dataclass
class DutStep:
    actor: str  # "user" or "bot"
    text: str | None = None
    template: str | None = None
    line: int | None = None
    commands: list[Command] = field(default_factory=list)
    metadata: str | None = None
    metadata_values: dict[str, Any] = field(default_factory=dict)
    """The metadata sent with the message: the test case's, then the step's own."""

    def turn(self) -> Turn:
        return Turn(
            self.actor, self.text, self.template, tuple(self.commands), self.metadata_values
        )


@dataclass
class DutCase:
    name: str
    steps: list[DutStep]
    file: str = ""
    line: int | None = None
    fixtures: list[str] = field(default_factory=list)
    metadata: str | None = None
    dsl: str = "v2"
    """The DSL version its commands were read in (and are written back in)."""

    @property
    def full_name(self) -> str:
        return f"{self.file}::{self.name}"

    def evaluated_steps(self) -> list[int]:
        """Indices of the user steps with expected commands."""
        return [i for i, s in enumerate(self.steps) if s.actor == "user" and s.commands]

    def conversation_before(self, index: int) -> tuple[Turn, ...]:
        return tuple(s.turn() for s in self.steps[:index])


@dataclass
class StepPrediction:
    """What the engine answered for one evaluated user step (or the error that took its place)."""

    output: CommandOutput | None = None
    error: str | None = None

    def predicted(self) -> list[Command]:
        return [] if self.output is None else self.output.all_commands()

    @property
    def not_evaluated(self) -> str | None:
        return None if self.output is None else self.output.not_evaluated

    def to_json(self, version: str) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.output is not None:
            data["commands"] = {
                comp: [c.as_json() for c in cs] for comp, cs in self.output.commands.items()
            }
            data["dsl"] = {
                comp: [c.to_dsl(version) for c in cs] for comp, cs in self.output.commands.items()
            }
            if self.output.prompts:
                data["prompts"] = self.output.prompts
            if self.output.latency_ms is not None:
                data["latency_ms"] = self.output.latency_ms
            if self.output.not_evaluated:
                data["not_evaluated"] = self.output.not_evaluated
            if self.output.history_note:
                data["history_note"] = self.output.history_note
        if self.error:
            data["error"] = self.error
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StepPrediction:
        output = None
        if "commands" in data:
            commands: dict[str, list[Command]] = {}
            for comp, items in (data.get("commands") or {}).items():
                parsed = [command_from_json(i) for i in items if isinstance(i, dict)]
                commands[str(comp)] = [c for c in parsed if c is not None]
            output = CommandOutput(
                commands,
                list(data.get("prompts") or []),
                data.get("latency_ms"),
                data.get("not_evaluated"),
                data.get("history_note"),
            )
        return cls(output, data.get("error"))


def normalise_output(output: CommandOutput) -> CommandOutput:
    """Drop duplicate commands per component, as Rasa's runner does."""
    output.commands = {comp: dedupe(cs) for comp, cs in output.commands.items()}
    return output


@dataclass
class DutCaseResult:
    case: DutCase
    predictions: dict[int, StepPrediction] = field(default_factory=dict)
    """By step index; a missing index was never evaluated (e.g. a canceled run)."""
    cached: bool = False
    """Answered from the answer cache (a profile's ``cache: true``), not the engine: its steps
    carry no latency."""

    def step_passed(self, index: int) -> bool:
        prediction = self.predictions.get(index)
        predicted = prediction.predicted() if prediction else []
        return are_command_lists_equal(self.case.steps[index].commands, predicted)

    @property
    def errored(self) -> bool:
        return any(p.error for p in self.predictions.values())

    @property
    def passed(self) -> bool:
        """Every evaluated step passed (a step that errored has no prediction and so fails
        unless it expected nothing, which evaluated steps never do). Steps after the point
        where the simulation stopped are not evaluated and do not fail the test case, as in
        Rasa Pro's ``run_test_case`` (they still count as failed user steps)."""
        return all(
            self.step_passed(i)
            for i in self.case.evaluated_steps()
            if not (i in self.predictions and self.predictions[i].not_evaluated)
        )

    def failed_steps(self) -> list[int]:
        return [i for i in self.case.evaluated_steps() if not self.step_passed(i)]

    def outcome(self) -> CaseOutcome:
        steps = [
            StepOutcome(
                self.case.steps[i].commands,
                self.predictions[i].predicted() if i in self.predictions else [],
            )
            for i in self.case.evaluated_steps()
        ]
        return CaseOutcome(steps, self.passed)
