"""The workbench's matrix of engines side by side (Runs tab, ``c``): a stored comparison opened
from one of its runs, or the two marked runs; figures from the core, untrusted text inert."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from ui_runs_support import (
    history_shows,
    open_runs_tab,
    predictions_v1,
    predictions_v2,
    screen_text,
    settle,
    stored_run,
    suite_of,
    wait_for,
)
from ui_support import SAMPLE, SIZE, make_workspace, new_app

from nlu_tui.runsessions import store_for
from nlu_tui.store.comparisons import add_run, create_comparison
from nlu_tui.ui.screens.engine_matrix import ComparisonScreen


@pytest.mark.slow
async def test_a_runs_comparison_and_two_marked_runs_open_the_matrix(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, SAMPLE)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_runs_tab(pilot)
        store = store_for(app)
        suite = suite_of(app)
        first = stored_run(store, suite, predictions_v1(), engine="engine-a")
        time.sleep(0.01)
        second = stored_run(store, suite, predictions_v2(), engine="engine-b")
        comparison = create_comparison(store, suite.name, None)
        add_run(store, comparison.id, first)
        add_run(store, comparison.id, second)
        await history_shows(pilot, pane, 2)
        table = pane.query_one("#runs-table")
        table.focus()
        table.move_cursor(row=0)
        await pilot.press("c")  # the selected run's comparison
        await wait_for(pilot, lambda: isinstance(app.screen, ComparisonScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        screen = app.screen
        assert isinstance(screen, ComparisonScreen)
        assert screen.comparison_id == comparison.id
        await wait_for(pilot, lambda: screen.result is not None)
        assert screen.result is not None
        assert [c.engine for c in screen.result.engines] == ["engine-a", "engine-b"]
        assert [d.case_id for d in screen.result.disagreements] == ["c1", "c3"]
        await settle(pilot)
        text = screen_text(app)
        assert "[1] engine-a" in text and "engines disagree on 2 of 6 cases" in text
        matrix = screen.query_one("#matrix-f1")
        assert matrix.row_count == 10 + len(screen.result.intents)
        screen.query_one("#matrix-tabs").active = "tab-matrix-disagreements"
        await pilot.pause()
        text = screen_text(app)
        assert "[bold red]x[/] pay my bill" in text  # markup from a file shown as written
        await pilot.press("escape")
        await pilot.pause()
        await wait_for(pilot, lambda: not isinstance(app.screen, ComparisonScreen))
        assert not isinstance(app.screen, ComparisonScreen)

        # two marked runs: compared without a stored comparison
        pane.query_one("#runs-table").focus()
        table.move_cursor(row=0)
        await pilot.press("space")
        table.move_cursor(row=1)
        await pilot.press("space")
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, ComparisonScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        marked = app.screen
        assert isinstance(marked, ComparisonScreen) and marked.comparison_id is None
        await wait_for(pilot, lambda: marked.result is not None)
        assert marked.result is not None and len(marked.result.disagreements) == 2


@pytest.mark.slow
async def test_a_run_outside_any_comparison_says_so(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, SAMPLE)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        pane = await open_runs_tab(pilot)
        store = store_for(app)
        suite = suite_of(app)
        stored_run(store, suite, predictions_v1())
        await history_shows(pilot, pane, 1)
        pane.query_one("#runs-table").focus()
        await pilot.press("c")
        said = lambda: [str(n.message) for n in app._notifications]  # noqa: E731
        await wait_for(pilot, lambda: any("not part of a comparison" in m for m in said()))
        assert not isinstance(app.screen, ComparisonScreen)
