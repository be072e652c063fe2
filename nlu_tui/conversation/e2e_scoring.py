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
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from nlu_tui.conversation_model import (
    E2EStep,
    E2ETestCase,
    EventKind,
    ObservedEvent,
    StepKind,
    Turn,
)

if TYPE_CHECKING:
    from nlu_tui.conversation_assertions import AssertionResult, Judge

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
    assertion_results: dict[int, list[AssertionResult]] = field(default_factory=dict)
    """Per user step (its position): the verdicts of the assertions that ran, in order."""
    assertion_failure: dict[str, Any] | None = None
    """Rasa Pro's ``AssertionFailure.as_dict`` of the assertion that failed."""

    def assertion_rows(self) -> list[dict[str, Any]]:
        """Every assertion of the test case in order: its step's line, type, line and status
        (``passed``, ``failed`` or ``not_run``), with the judge's score and reason."""
        rows = []
        for position, step in enumerate(self.case.steps):
            ran = self.assertion_results.get(position, [])
            for index, assertion in enumerate(step.assertions or []):
                row: dict[str, Any] = {
                    "step_line": step.line,
                    "type": assertion.type,
                    "line": assertion.line,
                    "status": "not_run",
                }
                if index < len(ran):
                    row.update(ran[index].as_dict())
                    row["status"] = "passed" if ran[index].passed else "failed"
                    del row["passed"]
                rows.append(row)
        return rows

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
        if self.assertion_failure is not None:
            out["assertion_failure"] = self.assertion_failure
        if self.case.uses_assertions():
            out["assertions"] = self.assertion_rows()
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


# --- assertions (Rasa Pro >= 3.12) ------------------------------------------------------------


def _user_matches(event: ObservedEvent, text: str | None, metadata: dict[str, Any]) -> bool:
    """Rasa's ``split_events`` condition: the user text, and the step's metadata as a subset
    of the message's (only when the step names metadata)."""
    if event.kind is not EventKind.USER or event.text != text:
        return False
    if not metadata:
        return True
    sent = event.raw.get("metadata")
    return isinstance(sent, dict) and all(k in sent and sent[k] == v for k, v in metadata.items())


def turn_and_prior(
    events: list[ObservedEvent], text: str | None, metadata: dict[str, Any]
) -> tuple[list[ObservedEvent], list[ObservedEvent]]:
    """Rasa's ``_get_current_user_turn_and_prior_events``: the events from the first user
    message with the step's text up to the next user message with another text, and the
    events before it; ([], []) when the message is not in the conversation."""
    hits = [i for i, e in enumerate(events) if _user_matches(e, text, metadata)]
    if not hits or hits[0] == 0:
        return [], []
    end = hits[1] if len(hits) > 1 else len(events)
    turn = []
    for event in events[hits[0] : end]:
        if event.kind is EventKind.USER and event.text != text:
            break
        turn.append(event)
    return turn, events[: hits[0]]


def assertion_as_dict(assertion: Any) -> dict[str, Any]:
    """Rasa Pro's ``Assertion.as_dict``: the assertion's fields and its ``type``."""
    import dataclasses

    data = {f.name: getattr(assertion, f.name) for f in dataclasses.fields(assertion)}
    data.pop("written", None)
    if assertion.type in ("slot_was_set", "slot_was_not_set"):
        data.pop("line", None)
    data = dict(json.loads(json.dumps(data, default=dataclasses.asdict)))
    if assertion.type in ("generative_response_is_relevant",):
        data.pop("ground_truth", None)
    data["type"] = assertion.type
    return data


async def score_assertions(
    case: E2ETestCase,
    events: list[ObservedEvent],
    step_metadata: Callable[[E2EStep], dict[str, Any]],
    judge: Judge | None = None,
) -> E2ECaseResult:
    """Rasa Pro's ``run_assertions``: each user step's assertions against its turn, in order,
    stopping at the first that fails (the rest are ``not_run``). A user message missing from
    the conversation fails the test case at the step's line with no assertion failure.
    ``events`` are the whole conversation's, session start first."""
    from nlu_tui import conversation_assertions as a

    result = E2ECaseResult(case=case, pass_status=True)
    calm = a.is_calm(events)
    failed_at: tuple[int, int] | None = None
    for position, step in enumerate(case.steps):
        if not step.assertions or failed_at is not None or not result.pass_status:
            continue
        turn, prior = turn_and_prior(events, step.text, step_metadata(step))
        if not turn:
            result.pass_status = False
            result.error_line = step.line
            continue
        ev = a.TurnEvents(turn, prior, position, step.text or "", calm, judge)
        checks = cast("list[a.Assertion]", list(step.assertions))  # the reader builds them
        verdicts = await a.run_step(checks, ev, ordered=step.assertion_order_enabled)
        result.assertion_results[position] = verdicts
        bad = next((v for v in verdicts if not v.passed), None)
        if bad is not None:
            failed_at = (position, len(verdicts) - 1)
            result.pass_status = False
            result.error_line = bad.line
            failed = step.assertions[len(verdicts) - 1]
            result.assertion_failure = {
                "assertion": assertion_as_dict(failed),
                "error_message": bad.message,
                "actual_events_transcript": a.transcript(prior + turn),
            }
    return result
