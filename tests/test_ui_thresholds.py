"""The Results pane's Thresholds tab (Pilot): the analysis of the run shown, markup inert."""

from __future__ import annotations

from pathlib import Path

from ui_runs_support import PaneApp, predictions_v1, screen_text, show_run, small_suite, stored_run

from nlu_tui.model import IntentScore, Prediction
from nlu_tui.store import RunStore
from nlu_tui.ui.widgets.results_pane import ResultsPane
from nlu_tui.ui.widgets.threshold_view import ThresholdView

SIZE = (140, 60)


async def test_thresholds_tab_shows_the_analysis_of_the_run(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    predictions = predictions_v1()
    # c3 ("[bold red]x[/] pay my bill", expects pay_bill): a near-tie the engine got wrong
    predictions[2] = Prediction(
        "balance", 0.55, [IntentScore("balance", 0.55), IntentScore("pay_bill", 0.54)]
    )
    run_id = stored_run(store, small_suite(), predictions)
    app = PaneApp(ResultsPane, store)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(ResultsPane)
        await show_run(pilot, pane, run_id)
        await app.workers.wait_for_complete()
        await pilot.pause()
        view = pane.query_one(ThresholdView)
        analysis = view.analysis
        assert analysis is not None
        # TP c1 (.95) c2 (.81), FP c3 (.55), FN c4, TN c5, c6 an error
        assert (analysis.scored, analysis.errors) == (5, 1)
        assert [t.case_id for t in analysis.near_ties] == ["c3"]
        from textual.widgets import TabbedContent

        pane.query_one("#results-tabs", TabbedContent).active = "tab-res-thresholds"
        await pilot.pause()
        text = screen_text(app)
        assert "as run     threshold unknown: P 0.667 R 0.667 F1 0.667" in text
        assert "best F1    threshold 0:" in text
        assert "near-ties  1 of 2" in text  # c1 and c3 rank two intents
        assert "[bold red]x[/] pay my bill" in text  # markup shown as typed
        assert "threshold  precision recall" in text


async def test_opening_another_run_replaces_the_analysis(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    first = stored_run(store, small_suite(), predictions_v1())
    second = stored_run(store, small_suite(), [Prediction(error="down")] * 6)
    app = PaneApp(ResultsPane, store)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(ResultsPane)
        for run_id in (first, second):
            await show_run(pilot, pane, run_id)
            await app.workers.wait_for_complete()
            await pilot.pause()
        analysis = pane.query_one(ThresholdView).analysis
        assert analysis is not None and analysis.scored == 0 and analysis.errors == 6
        assert analysis.best is not None and analysis.best.f1 == 0.0
