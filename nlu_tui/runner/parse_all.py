"""Parsing a list of cases on the run kernel, answers kept in memory (not stored per case).

For callers that store the answers their own way once all are in (the held-out evaluation of
``nlu-tui test nlu`` writes its run's results after computing its figures): the kernel still
gives them concurrency, the attempt deadline, retries with the capped ``Retry-After`` and
cancel. Nothing is persisted as it arrives: such a run is not resumable.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

from nlu_tui.engines.base import Engine, ParseContext
from nlu_tui.errors import EngineError
from nlu_tui.model import Prediction, TestCase
from nlu_tui.runner.kernel import Ending, Halt, Kernel, KernelState, Sender, Work
from nlu_tui.runner.options import RunOptions
from nlu_tui.store.records import RunRecord


class ParseAllKind:
    """Every case once, one request each; the answers in suite order (:attr:`predictions`)."""

    kind = "parse"

    def __init__(
        self, engine: Engine, cases: Sequence[TestCase], record: RunRecord, options: RunOptions
    ) -> None:
        self.engine = engine
        self.cases = list(cases)
        self.record: RunRecord | None = record
        self.options = options
        self.predictions: list[Prediction | None] = [None] * len(self.cases)
        self.ending: Ending | None = None

    def prepare(self) -> RunRecord:
        assert self.record is not None
        return self.record

    def total(self) -> int:
        return len(self.cases)

    def work(self) -> list[Work]:
        return [Work(i, case.id, case) for i, case in enumerate(self.cases)]

    async def open(self, client: Any) -> None:
        await self.engine.open(client)

    async def close(self) -> None:
        await self.engine.close()

    async def send(self, work: Work, sender: Sender) -> Prediction:
        case: TestCase = work.item
        context = ParseContext(case_id=case.id)
        began = time.perf_counter()
        prediction = await sender.request(lambda: self.engine.parse(case.utterance, context))
        if prediction.latency_ms is None:
            prediction.latency_ms = (time.perf_counter() - began) * 1000.0
        return prediction

    def failed(self, work: Work, reason: str, latency_ms: float) -> Prediction:
        return Prediction(error=reason, latency_ms=latency_ms)

    def arrive(self, work: Work, answer: Prediction) -> tuple[Halt, str | None] | None:
        self.predictions[work.seq] = answer
        return None

    def take_writes(self) -> Callable[[], object] | None:
        return None

    def finish(self, ending: Ending) -> RunRecord:
        self.ending = ending
        assert self.record is not None
        return self.record

    def emit(self, state: KernelState, *, final: bool, record: RunRecord | None) -> None:
        return None


async def parse_all(
    engine: Engine, cases: Sequence[TestCase], record: RunRecord, options: RunOptions
) -> list[Prediction]:
    """Every case's answer, in order (an errored case: a Prediction with its error). Raises
    EngineError when the engine cannot be opened, CancelledError when canceled."""
    kind = ParseAllKind(engine, cases, record, options)
    await Kernel(kind).execute()
    ending = kind.ending
    if ending is not None and ending.failed_reason:
        raise EngineError(ending.failed_reason)
    if ending is not None and ending.canceled:
        raise asyncio.CancelledError
    return [p if p is not None else Prediction(error="not sent") for p in kind.predictions]
