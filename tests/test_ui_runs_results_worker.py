"""A big results table filters and sorts in a worker: the old view stays until the new one is in."""

from __future__ import annotations

import time

from textual.app import App, ComposeResult

from nlu_tui.model import CaseResult, ExpectedIntent, ResultType, TestCase
from nlu_tui.ui.widgets.results_table import SYNC_ROWS, ResultsTable
from nlu_tui.views.result_columns import ResultFilter

N = SYNC_ROWS + 1000


class _TableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ResultsTable()


def _rows() -> tuple[dict[str, TestCase], list[CaseResult]]:
    cases = {
        f"c{i}": TestCase(
            utterance=f"utterance {i}", intents=[ExpectedIntent(f"i{i % 7}")], id=f"c{i}"
        )
        for i in range(N)
    }
    results = [
        CaseResult(
            case_id=f"c{i}",
            result=ResultType.FP if i % 10 == 0 else ResultType.TP,
            matched_intent=f"i{i % 7}",
            confidence=round((i * 37 % 1000) / 1000, 3),
        )
        for i in range(N)
    ]
    return cases, results


async def _shown(table: ResultsTable, before: int, pilot) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + 60  # generous: CI runs this on loaded cores
    while table.views_shown <= before:
        assert time.monotonic() < deadline, "the new view never arrived"
        await pilot.pause(0.005)


async def test_big_view_is_computed_in_a_worker_and_swapped_in() -> None:
    cases, results = _rows()
    app = _TableApp()
    async with app.run_test(size=(140, 40)) as pilot:
        table = app.query_one(ResultsTable)
        table.load(cases, results)
        assert table.view_pending  # not computed on the UI thread
        await _shown(table, 0, pilot)
        assert table.view_count == N
        first = table.data_table

        before = table.views_shown
        table.sort_by("confidence", descending=True)
        assert table.view_pending
        assert table.column_values("n")[:3] == [1, 2, 3]  # the old view until the new is in
        assert table.select_case("c0")  # remembered, applied to the new view
        await _shown(table, before, pilot)
        values = table.column_values("confidence")
        assert values == sorted(values, reverse=True)
        assert table.data_table is first  # swapped in place, not remounted
        assert table.current_case_id() == "c0"

        before = table.views_shown
        table.set_filter(ResultFilter(frozenset({"FP"})))
        table.sort_by("utterance")  # a newer request replaces the pending one
        await _shown(table, before, pilot)
        await pilot.pause(0.05)
        assert table.views_shown == before + 1
        ids = table.visible_case_ids()
        assert len(ids) == N // 10 + (1 if N % 10 else 0)
        assert ids == sorted(ids, key=lambda cid: f"utterance {cid[1:]}")
