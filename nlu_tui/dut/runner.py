"""Evaluating DUT test cases against an engine that predicts commands.

Every user step with expected commands is evaluated on its own, with the conversation so far
as the test case writes it, so a step is judged also after an earlier step failed (Rasa Pro
replays the test case and sends each message from the tracker just before it). Steps of all
cases share one concurrency limit; a transport failure is retried with backoff; a case's
result is handed to ``on_case`` as soon as all its steps are in (the caller stores it).
"""

from __future__ import annotations

import asyncio
import time
import zlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from nlu_tui.dut.model import DutCase, DutCaseResult, StepPrediction, normalise_output
from nlu_tui.engines.command_api import CommandEngine, CommandRequest


@dataclass(frozen=True)
class DutRunSettings:
    concurrency: int = 4
    retries: int = 3
    timeout: float = 60.0
    backoff_base: float = 0.25
    backoff_max: float = 20.0


def build_request(
    case: DutCase,
    index: int,
    run_key: str,
    metadata: dict[str, dict[str, object]] | None = None,
    slots: dict[str, object] | None = None,
    stubs: dict[str, object] | None = None,
) -> CommandRequest:
    """The request for one step: text, conversation before it, merged metadata (the test
    case's, then the step's, as Rasa's ``filter_metadata`` merges them)."""
    step = case.steps[index]
    key = f"{run_key}-{zlib.crc32(case.full_name.encode()):08x}-{case.line or 0}"
    merged: dict[str, object] = {}
    if metadata:
        if case.metadata and case.metadata in metadata:
            merged.update(metadata[case.metadata])
        if step.metadata and step.metadata in metadata:
            merged.update(metadata[step.metadata])
    return CommandRequest(
        text=step.text or "",
        conversation=case.conversation_before(index),
        conversation_id=f"{key}-{index}",
        case_key=key,
        metadata=merged,
        slots=dict(slots or {}),
        stub_actions=dict(stubs or {}),
    )


async def evaluate_cases(
    cases: Sequence[DutCase],
    engine: CommandEngine,
    settings: DutRunSettings,
    *,
    run_key: str = "dut",
    requests: Callable[[DutCase, int], CommandRequest] | None = None,
    on_case: Callable[[DutCaseResult], Awaitable[None] | None] | None = None,
) -> list[DutCaseResult]:
    """Evaluate every case (cancellable: cancelling stops the pending steps)."""
    from nlu_tui.runner.retry import backoff_delay, classify

    limit = asyncio.Semaphore(max(1, settings.concurrency))

    async def one_step(case: DutCase, index: int) -> StepPrediction:
        request = (
            requests(case, index) if requests is not None else build_request(case, index, run_key)
        )
        attempt = 0
        while True:
            async with limit:
                started = time.perf_counter()
                try:
                    output = await asyncio.wait_for(
                        engine.predict_commands(request), settings.timeout
                    )
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # classified: retried or recorded
                    failure = classify(exc)
                    if not failure.retryable or attempt >= settings.retries:
                        return StepPrediction(error=failure.reason)
                    delay = failure.retry_after or backoff_delay(
                        attempt, settings.backoff_base, settings.backoff_max
                    )
                else:
                    if output.latency_ms is None:
                        output.latency_ms = (time.perf_counter() - started) * 1000.0
                    return StepPrediction(normalise_output(output))
            attempt += 1
            await asyncio.sleep(delay)

    async def one_case(case: DutCase) -> DutCaseResult:
        indices = case.evaluated_steps()
        predictions = await asyncio.gather(*(one_step(case, i) for i in indices))
        result = DutCaseResult(case, dict(zip(indices, predictions, strict=True)))
        if on_case is not None:
            maybe = on_case(result)
            if maybe is not None:
                await maybe
        return result

    return list(await asyncio.gather(*(one_case(c) for c in cases)))
