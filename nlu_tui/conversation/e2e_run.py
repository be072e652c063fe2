"""Running one E2E test case against a conversation engine, as Rasa Pro's
``run_prediction_loop`` does: fixtures first, then each user step sent and each expectation
checked as soon as it is reached; the test case stops at its first unmet expectation (no
further message is sent), and its result is scored by :mod:`e2e_scoring`. A test case with
``assertions:`` (Rasa Pro >= 3.12) is judged by its assertions alone, against the whole
conversation once every message was sent (``run_assertions``)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from nlu_tui.conversation.e2e_scoring import (
    NO_RESPONSE,
    E2ECaseResult,
    Turns,
    find_failures,
    score_assertions,
    score_case,
)
from nlu_tui.conversation_model import (
    E2EFile,
    E2ETestCase,
    EventKind,
    ObservedEvent,
    StepKind,
    Turn,
)
from nlu_tui.engines.conversation import Conversation

if TYPE_CHECKING:
    from nlu_tui.conversation_assertions import Judge


def merged_metadata(data: E2EFile, case: E2ETestCase, step_metadata: str | None) -> dict[str, Any]:
    """The test case's metadata overlaid with the user step's (the step's wins), as Rasa."""
    merged = data.metadata_for(case.metadata_name)
    merged.update(data.metadata_for(step_metadata))
    return merged


def uses_judge(case: E2ETestCase) -> bool:
    """Whether a test case has a generative assertion (an LLM judge scores it)."""
    return any(
        a.type.startswith("generative_response_is_") for s in case.steps for a in s.assertions or []
    )


async def run_case(
    conversation: Conversation,
    data: E2EFile,
    case: E2ETestCase,
    judge: Judge | None = None,
) -> E2ECaseResult:
    """Hold the test case's conversation and score it. Engine failures propagate (the caller
    retries the whole test case under a new sender id, or records the error); so does a
    :class:`~nlu_tui.conversation_assertions.JudgeError` (an error, never a failure). Without
    ``judge``, a test case with generative assertions uses the LLM of ``settings.yaml``."""
    began = time.perf_counter()
    asserted = case.uses_assertions()
    slots: dict[str, Any] = {}
    for fixture in data.fixtures_for(case):
        slots.update(fixture.slots)
    start = await conversation.begin(slots)
    turns: Turns = {-1: start}
    ordered = [start]
    last_user = 0
    for position, step in enumerate(case.steps):
        if step.kind is not StepKind.USER:
            turns[position] = step
            if find_failures(turns, last_user):
                break
            continue
        if not step.text:
            continue  # Rasa warns and skips a user step without text
        last_user = position
        turn = await conversation.send(step.text, merged_metadata(data, case, step.metadata_name))
        if not turn.events and not asserted:
            turn.events = [
                ObservedEvent(EventKind.USER, text=step.text),
                ObservedEvent(EventKind.BOT, text=NO_RESPONSE),
            ]
        turns[position] = turn
        ordered.append(turn)
    if asserted:
        if judge is None and uses_judge(case):
            from nlu_tui.conversation.judge import settings_judge

            judge = settings_judge()
        events = [e for t in ordered for e in t.events]
        result = await score_assertions(
            case,
            events,
            lambda step: (
                merged_metadata(data, case, step.metadata_name) if step.metadata_name else {}
            ),
            judge,
        )
        result.turns = list(ordered)
    else:
        result = score_case(case, turns, ordered=ordered)
    result.sender_id = conversation.sender_id
    result.latency_ms = (time.perf_counter() - began) * 1000.0
    return result


def observed_positions(case: E2ETestCase, result: E2ECaseResult) -> dict[int, Turn]:
    """Which step each observed turn answers (for showing the conversation turn by turn)."""
    out: dict[int, Turn] = {}
    turns = iter(result.turns[1:])
    for position, step in enumerate(case.steps):
        if step.kind is StepKind.USER and step.text:
            turn = next(turns, None)
            if turn is None:
                break
            out[position] = turn
    return out
