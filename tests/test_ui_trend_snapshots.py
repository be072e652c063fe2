"""Snapshots of the Results pane's Trend tab (80x24 and 120x35): three stored runs of one
suite, their sparklines, runs and the failing and flaky cases, from the core's trend."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import TabbedContent
from ui_runs_support import PaneApp, predictions_v1, predictions_v2, settle, small_suite

from nlu_tui.model import RunStatus
from nlu_tui.scoring import score_case
from nlu_tui.store import RunStore
from nlu_tui.ui.widgets.results_trend import TrendTab

T0 = 1_790_000_000.0


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


class TrendHost(Vertical):
    def compose(self) -> ComposeResult:
        with TabbedContent():
            yield TrendTab()


def three_runs(path: Path) -> tuple[RunStore, Any]:
    """v1, v2, then v1 with c3 fixed, an hour apart, with fixed ids."""
    store = RunStore(path)
    suite = small_suite()
    last = None
    fixed = predictions_v1()
    fixed[2] = predictions_v2()[2]  # c3: pay_bill, right
    for n, predictions in enumerate((predictions_v1(), predictions_v2(), fixed)):
        run_id = f"run00000000{n + 1}"
        store.create_run(suite, engine_name="bank-rasa", run_id=run_id)
        items = [
            (i, p, score_case(c, p))
            for i, (c, p) in enumerate(zip(suite.cases, predictions, strict=True))
        ]
        store.add_results(run_id, items)
        store.finish_run(run_id, RunStatus.SUCCESS)
        with store._tx() as db:
            db.execute(
                "UPDATE runs SET started_at=?, finished_at=? WHERE id=?",
                (T0 + 3600 * n, T0 + 3600 * n + 12.5, run_id),
            )
        last = store.get_run(run_id)
    return store, last


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
def test_snapshot_trend_tab(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    store, last = three_runs(tmp_path / "runs.sqlite3")
    app = PaneApp(TrendHost, store)

    async def before(pilot: Any) -> None:
        tab = app.query_one(TrendTab)
        tab.show_run(last)
        await settle(pilot)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=before)
