"""Scoring an E2E test case as Rasa Pro does (``rasa/e2e_test/e2e_test_runner.py``):
``find_test_failures``, ``human_readable_diff`` and the result's ``as_dict``.

A test case's conversation is a map of positions: ``-1`` is the session start, a user step's
position holds what the engine did after it (a :class:`Turn`), an expectation's position holds
the expected step. Each expectation is checked against the latest turn before it: a ``bot``
text must equal one bot message's text, an ``utter`` one bot message's response name, a
``slot_was_set`` one slot event (name, and value when given), and ``slot_was_not_set`` must
find none. The diff lists the conversation up to the last failure, expected lines with
``+``, actual ones with ``-`` (``difflib.ndiff(actual, expected)``).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from nlu_tui.conversation_model import (
    E2EStep,
    E2ETestCase,
    EventKind,
    ObservedEvent,
    StepKind,
    Turn,
)

NO_RESPONSE = "* No Bot Response *"
NO_SLOT = "* No Slot Set *"

Turns = dict[int, E2EStep | Turn]


@dataclass
class Failure:
    """One expectation that was not met: its position among the steps and its line."""

    position: int
    line: int | None
    step: E2EStep


@dataclass
class E2ECaseResult:
    """The outcome of one test case; ``turns`` is the conversation as observed (the session
    start first), ``error`` an engine failure that stopped it (then ``pass_status`` is False)."""

    case: E2ETestCase
    pass_status: bool
    difference: list[str] = field(default_factory=list)
    error_line: int | None = None
    failures: list[Failure] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    error: str | None = None
    sender_id: str | None = None
    latency_ms: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """Rasa Pro's ``TestResult.as_dict`` (the ``e2e_results.yml`` entry)."""
        out: dict[str, Any] = {
            "name": self.case.name,
            "pass_status": self.pass_status,
            "expected_steps": [step.as_dict() for step in self.case.steps],
        }
        if self.error_line is not None:
            out["error_path"] = f"{self.case.file}:{self.error_line}"
        if self.difference:
            out["difference"] = list(self.difference)
        return out


def _matches(step: E2EStep, event: ObservedEvent) -> bool:
    """Rasa Pro's ``TestStep.matches_event``."""
    if step.kind is StepKind.BOT:
        return event.kind is EventKind.BOT and event.text == step.text
    if step.kind is StepKind.UTTER:
        return event.kind is EventKind.BOT and event.name == step.text
    if step.kind in (StepKind.SLOT_WAS_SET, StepKind.SLOT_WAS_NOT_SET):
        if event.kind is not EventKind.SLOT:
            return False
        if step.has_value:
            return bool(event.name == step.slot and event.value == step.value)
        return event.name == step.slot
    return False


class _Output:
    """A turn's bot and slot events, consumed as the diff matches them."""

    def __init__(self, turn: Turn) -> None:
        self.turn = turn
        self.bots = [e for e in turn.events if e.kind is EventKind.BOT]
        self.slots = [e for e in turn.events if e.kind is EventKind.SLOT]
        users = [e for e in turn.events if e.kind is EventKind.USER]
        self.user = users[0] if users else None


def _is_bot_text_step(step: E2EStep) -> bool:
    return step.kind in (StepKind.BOT, StepKind.UTTER)


def find_failures(turns: Turns, start: int = 0) -> list[Failure]:
    """Rasa Pro's ``find_test_failures``: every expectation from ``start`` on not met by the
    latest turn before it."""
    latest = turns[-1]
    assert isinstance(latest, Turn)
    failures = []
    for position in range(start, len(turns) - 1):
        if position not in turns:
            continue
        value = turns[position]
        if isinstance(value, Turn):
            latest = value
            continue
        if value.kind is StepKind.SLOT_WAS_NOT_SET:
            match = not any(_matches(value, e) for e in latest.events)
        else:
            match = any(_matches(value, e) for e in latest.events)
        if not match:
            failures.append(Failure(position, value.line, value))
    return failures


def _bot_steps_after(turns: Turns, start: int) -> list[E2EStep]:
    """Rasa's ``_select_bot_utter_turns``: the bot/utter steps from ``start`` to the next turn."""
    out = []
    for index in range(start, len(turns) - 1):
        value = turns.get(index)
        if isinstance(value, E2EStep):
            if _is_bot_text_step(value):
                out.append(value)
        elif isinstance(value, Turn):
            break
    return out


def _first_unmatched_bot(output: _Output, steps: list[E2EStep]) -> ObservedEvent | None:
    for event in output.bots:
        if not any(_matches(step, event) for step in steps):
            return event
    return None


def _slot_text(name: str | None, value: Any) -> str:
    return f"slot_was_set: {name}: {_py_str(value)} ({_type_name(value)})"


def _type_name(value: Any) -> str:
    return "NoneType" if value is None else type(value).__name__


def _py_str(value: Any) -> str:
    """``str()`` as Python prints the value (True, None, lists with quotes)."""
    return str(value)


def _fail_lines(step: E2EStep, output: _Output, bot_steps: list[E2EStep]) -> tuple[str, str]:
    """Rasa's ``_handle_fail_diff``: (expected line, actual line) of a failed step."""
    if step.kind is StepKind.BOT or step.kind is StepKind.UTTER:
        expected = f"bot: {step.text}"
        actual = NO_RESPONSE
        event = _first_unmatched_bot(output, bot_steps)
        if event is not None:
            output.bots.remove(event)
            actual = f"bot: {event.text if step.kind is StepKind.BOT else event.name}"
        return expected, actual
    name = step.slot
    if step.kind is StepKind.SLOT_WAS_SET:
        expected = f"slot_was_set: {name}"
        if step.has_value:
            expected += f": {_py_str(step.value)} ({_type_name(step.value)})"
    else:
        expected = f"slot_was_not_set: {name}"
        if step.has_value:
            expected += f": {_py_str(step.value)}"
    actual = NO_SLOT
    for event in output.slots:
        if event.name == name:
            actual = _slot_text(event.name, event.value)
            output.slots.remove(event)
            break
    return expected, actual


def human_readable_diff(turns: Turns, failures: list[Failure]) -> list[str]:
    """Rasa's ``human_readable_diff``: the conversation to the last failure, as ndiff lines."""
    actual_lines: list[str] = []
    expected_lines: list[str] = []
    points = {f.position for f in failures}
    first = turns[-1]
    assert isinstance(first, Turn)
    latest = _Output(first)
    text = ""
    for index in range(max(points) + 1):
        value = turns.get(index)
        if value is None:  # a user step without text: Rasa skips it (and repeats the line)
            actual_lines.append(text)
            expected_lines.append(text)
            continue
        if index in points:
            assert isinstance(value, E2EStep)
            expected, actual = _fail_lines(value, latest, _bot_steps_after(turns, index))
            actual_lines.append(actual)
            expected_lines.append(expected)
            continue
        if isinstance(value, E2EStep):
            if _is_bot_text_step(value):
                for event in latest.bots:
                    if _matches(value, event):
                        latest.bots.remove(event)
                        text = f"bot: {value.text}"
                        break
            elif value.kind is StepKind.SLOT_WAS_SET:
                text = f"slot_was_set: {value.slot}"
                for event in latest.slots:
                    if _matches(value, event):
                        latest.slots.remove(event)
                        if event.value is not None:
                            text += f": {_py_str(event.value)} ({_type_name(event.value)})"
                        break
            else:
                text = f"slot_was_not_set: {value.slot}"
                if value.has_value:
                    text += f": {_py_str(value.value)}"
        else:
            latest = _Output(value)
            user = latest.user
            text = f"user: {user.text if user is not None else value.user_text}"
        actual_lines.append(text)
        expected_lines.append(text)
    return list(difflib.ndiff(actual_lines, expected_lines))


def score_case(
    case: E2ETestCase, turns: Turns, *, ordered: list[Turn] | None = None
) -> E2ECaseResult:
    """Rasa's ``generate_test_result``: pass status, first failure's line and the diff."""
    failures = find_failures(turns)
    result = E2ECaseResult(case=case, pass_status=not failures, failures=failures)
    if failures:
        result.difference = human_readable_diff(turns, failures)
        result.error_line = failures[0].line
    result.turns = list(ordered or [])
    return result
