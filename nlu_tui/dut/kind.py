"""The DUT kind of run (``test du``): the strategy the run kernel drives for DUT test cases.

An item is one DUT test case; its id is its file (relative to the run's folder), line and
name. Sending it evaluates each user step with expected commands on its own, with the
conversation so far as the test case writes it (Rasa Pro replays the test case and sends each
message from the tracker just before it), so a step is judged also after an earlier step
failed. Steps are independent requests: each goes through the kernel's sender with the retry
policy (:meth:`~nlu_tui.runner.kernel.Sender.retrying`), under the attempt deadline, and a step
whose attempts all failed is recorded with its error. A test case is stored as soon as all its
steps are in; the run's summary holds Rasa Pro's report dict and the gate failures.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.dut.model import DutCase, DutCaseResult, StepPrediction, normalise_output
from nlu_tui.run_kinds import RunKindInfo
from nlu_tui.runner.item_run import ItemRun, ids_base, unit_id
from nlu_tui.runner.kernel import Halt, Sender, Work
from nlu_tui.runner.options import RunOptions
from nlu_tui.runner.retry import Failure
from nlu_tui.store.records import RunRecord, StoredItem

if TYPE_CHECKING:
    from nlu_tui.dut.reader import DutSuite
    from nlu_tui.engines.command_api import CommandRequest
    from nlu_tui.store.runstore import RunStore

DUT_RUN = "dut"

CaseCallback = Callable[[DutCaseResult, int, int], None]


def item_id(case: DutCase, base: Path | None = None) -> str:
    """A test case's id in the run's store: its file relative to ``base`` (the run's folder, or
    its file's), line and name, so a run resumed with the path spelled otherwise (relative,
    absolute, from another folder) finds the test cases it stored."""
    return unit_id(case.file, case.line, case.name, base)


def item_data(result: DutCaseResult) -> dict[str, Any]:
    data = {
        "name": result.case.name,
        "file": result.case.file,
        "line": result.case.line,
        "steps": {str(i): p.to_json(result.case.dsl) for i, p in result.predictions.items()},
    }
    if result.cached:
        data["cached"] = True
    return data


def result_from_item(case: DutCase, data: dict[str, Any]) -> DutCaseResult:
    steps = data.get("steps") or {}
    return DutCaseResult(
        case, {int(i): StepPrediction.from_json(p) for i, p in steps.items() if isinstance(p, dict)}
    )


def outcome_of(result: DutCaseResult) -> str:
    return "error" if result.errored else ("passed" if result.passed else "failed")


class DutKind(ItemRun):
    """DUT test cases as kernel items (see the module docstring), with the bookkeeping of
    :class:`~nlu_tui.runner.item_run.ItemRun`."""

    kind = DUT_RUN

    def __init__(
        self,
        *,
        path: Path,
        suite: DutSuite,
        engine: Any,
        resolved: Any,
        store: RunStore,
        options: RunOptions,
        run_options: dict[str, Any],
        requests: Callable[[DutCase, int, str], CommandRequest],
        note: str = "",
        previous: RunRecord | None = None,
        scope: set[str] | None = None,
        cache_context: dict[str, Any] | None = None,
    ) -> None:
        self._init_items(store, options, previous)
        self.path = path
        self.suite = suite
        self.engine = engine
        self.resolved = resolved
        self.run_options = run_options
        self.requests = requests
        self.note = note
        self.scope = scope
        """A rerun's test cases (its parent's failed and errored ones); None: all."""
        self.cache_context = cache_context or {}
        """What else shapes an answer besides the test files and the engine (the flows'
        content, the DSL, the commands removed or added): part of the answer cache's key."""
        self.on_case: CaseCallback | None = None
        """Told of each test case as it arrives (the result, how many are done, of how many)."""
        self.results: dict[str, DutCaseResult] = {}
        """Finished test cases (stored or arrived), by item id: the report reads them."""
        self._base = ids_base(path)

    def item_id(self, case: DutCase) -> str:
        return item_id(case, self._base)

    def digest(self) -> str:
        return self.suite.source.digest

    def stored_options(self) -> dict[str, Any]:
        return dict(self.run_options)

    def run_name(self) -> str:
        return self.path.name

    def pending(self, stored: list[StoredItem]) -> list[Work]:
        cases = self._cases()
        by_id = {i.item_id: i for i in stored}
        for case in cases:
            # item_id(case): the ids of runs stored before ids were made relative
            found = by_id.get(self.item_id(case)) or by_id.get(item_id(case))
            if found is not None:
                self.results[self.item_id(case)] = result_from_item(case, found.data)
        seq = {self.item_id(c): n for n, c in enumerate(cases)}
        return [
            Work(seq[self.item_id(c)], self.item_id(c), c)
            for c in cases
            if self.item_id(c) not in self.results
        ]

    def _cases(self) -> list[DutCase]:
        if self.scope is None:
            return list(self.suite.cases)
        return [c for c in self.suite.cases if self.item_id(c) in self.scope]

    def total(self) -> int:
        return len(self._cases())

    # --- the answer cache (a profile's cache: true): a whole test case's answers ------------

    def cache_request(self, work: Work) -> dict[str, Any] | None:
        return {
            "kind": DUT_RUN,
            "tests": self.suite.source.digest,
            "item": work.item_id,
            "context": self.cache_context,
        }

    def cache_answer(self, answer: DutCaseResult) -> str | None:
        if answer.errored or answer.cached:
            return None  # an engine error is never kept
        payload = {"item_id": self.item_id(answer.case), "data": item_data(answer)}
        return json.dumps(payload, ensure_ascii=False, default=str)

    def cached_answer(self, text: str) -> DutCaseResult:
        """The stored answers of every step, marked ``cached`` and without latencies."""
        found = json.loads(text)
        case = next(c for c in self.suite.cases if self.item_id(c) == found["item_id"])
        result = result_from_item(case, found["data"])
        for prediction in result.predictions.values():
            if prediction.output is not None:
                prediction.output.latency_ms = None
        result.cached = True
        return result

    async def open(self, client: Any) -> None:
        await self.engine.open(client)

    async def close(self) -> None:
        await self.engine.close()

    async def send(self, work: Work, sender: Sender) -> DutCaseResult:
        case: DutCase = work.item
        assert self.record is not None
        run_id = self.record.id

        async def step(index: int) -> StepPrediction:
            request = self.requests(case, index, run_id)
            answer = await sender.retrying(
                lambda: self.engine.predict_commands(request), f"{work.item_id} step {index}"
            )
            if isinstance(answer, Failure):
                return StepPrediction(error=answer.reason)
            return StepPrediction(normalise_output(answer))

        indices = case.evaluated_steps()
        predictions = await asyncio.gather(*(step(i) for i in indices))
        return DutCaseResult(case, dict(zip(indices, predictions, strict=True)))

    def failed(self, work: Work, reason: str, latency_ms: float) -> DutCaseResult:
        case: DutCase = work.item
        return DutCaseResult(
            case, {i: StepPrediction(error=reason) for i in case.evaluated_steps()}
        )

    def stored_item(self, work: Work, answer: DutCaseResult) -> StoredItem:
        latencies = [
            p.output.latency_ms
            for p in answer.predictions.values()
            if p.output is not None and p.output.latency_ms is not None
        ]
        return StoredItem(
            work.item_id,
            work.seq,
            outcome_of(answer),
            sum(latencies) if latencies else None,
            item_data(answer),
        )

    def arrived(
        self, work: Work, answer: DutCaseResult, item: StoredItem
    ) -> tuple[Halt, str | None] | None:
        self.results[work.item_id] = answer
        if self.on_case is not None:
            self.on_case(answer, len(self.results), self.total())
        return None

    def ordered(self) -> list[DutCaseResult]:
        return [
            self.results[self.item_id(c)]
            for c in self.suite.cases
            if self.item_id(c) in self.results
        ]

    # The report and the gates are the service's (run_dut): finish() records only the status,
    # and emit() nothing (each test case is reported as it arrives).


DUT_RUN_KIND = RunKindInfo(
    DUT_RUN, "dialogue understanding tests: commands per step", DutKind, "nlu-tui test du"
)
"""The DUT kind in the run-kinds registry (:mod:`nlu_tui.run_kinds`)."""
