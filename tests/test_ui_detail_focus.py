"""``d`` on the results tab (issue 23, item 5: fast keys): a detail pane already on screen
takes the focus in the same step, not a frame later; a collapsed one (a small terminal) is
shown first and focused once laid out."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from textual.widgets import DataTable, TabbedContent
from ui_runs_support import predictions_v1, stored_run
from ui_support import SIZE, make_workspace, new_app, settle

from nlu_tui.runsessions import store_for
from nlu_tui.ui.widgets.results_detail import ResultDetail
from nlu_tui.ui.widgets.results_pane import ResultsPane
from nlu_tui.ui.widgets.runs_pane import RunsPane


async def _results_of_a_run(pilot: Any, app: Any) -> ResultsPane:
    main = app.screen_stack[1]
    pane = main.query_one(RunsPane)
    pane.reload()
    deadline = time.monotonic() + 60
    while not pane.history:
        assert time.monotonic() < deadline, "the run never showed"
        await pilot.pause(0.05)
    main.query_one("#main-tabs", TabbedContent).active = "tab-runs"
    table = pane.query_one("#runs-table", DataTable)
    table.focus()
    table.move_cursor(row=0)
    await pilot.press("enter")
    await settle(pilot)
    results = main.query_one(ResultsPane)
    while results.table is None or not results.table.view_count:
        assert time.monotonic() < deadline, "the run's results never showed"
        await pilot.pause(0.05)
    return results


async def test_d_focuses_a_shown_detail_pane_at_once(tmp_path: Path) -> None:
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.suite is not None
        stored_run(store_for(app), app.suite, predictions_v1())
        results = await _results_of_a_run(pilot, app)
        assert not results.split.has_class("collapsed")
        results.table.focus_table()
        await pilot.pause()
        detail = results.query_one(ResultDetail)
        results.action_focus_detail()
        assert app.focused is not None and detail in app.focused.ancestors_with_self
