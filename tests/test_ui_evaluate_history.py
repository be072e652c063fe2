"""The Evaluate view and the workbench's history, as a new user meets them (issue 12): the Runs
tab of the training file lists an evaluation's runs as soon as it ends (it kept the history it
had read before), says which `test nlu` made each, refuses to diff a comparison (it has no case
results), the Results header of a comparison shows its F1 table instead of "Cases 0/8", and a
mode change takes the comparison's offered configurations out again."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from textual.widgets import Input, Select, Static
from ui_runs_support import wait_for
from ui_support import SIZE, make_workspace, new_app, settle

from nlu_tui.runsessions import store_for
from nlu_tui.ui.screens.evaluate import EvaluateScreen
from nlu_tui.ui.screens.run_diff import DiffScreen
from nlu_tui.ui.widgets.runs_pane import RunsPane
from tests.conftest import SAMPLES

CONFIGS = ("embedded_default.config.yml", "embedded_words_nb.config.yml")


def _workspace(tmp_path: Path) -> Path:
    root = make_workspace(tmp_path, SAMPLES / "banking_bot.nlu.yml")
    for name in CONFIGS:
        shutil.copy(SAMPLES / name, root / name)
    return root


async def _evaluate(app: Any, pilot: Any, root: Path, mode: str, **values: str) -> None:
    screen = EvaluateScreen(root / "banking_bot.nlu.yml", root)
    await app.push_screen(screen)
    await settle(pilot)
    screen.query_one("#eval-mode", Select).value = mode
    await pilot.pause()
    for widget_id, value in values.items():
        screen.query_one(f"#{widget_id}", Input).value = value
    screen.action_start()
    await settle(pilot, rounds=10)
    app.pop_screen()
    await settle(pilot)


async def test_runs_tab_lists_evaluations_and_tells_them_apart(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = app.screen.query_one(RunsPane)
        assert pane.suite is not None and pane.suite.path == root / "banking_bot.nlu.yml"
        assert pane.history == []  # read before anything ran
        await _evaluate(app, pilot, root, "cross-validation", **{"eval-folds": "3"})
        await _evaluate(
            app, pilot, root, "comparison", **{"eval-runs": "1", "eval-percentages": "0 50"}
        )
        comparison, cv = store_for(app).list_runs()
        assert [r.record.id for r in pane.history] == [comparison.id, cv.id]
        # the line under the table says which evaluation the selected run is
        pane.query_one("#runs-table").move_cursor(row=1)
        await pilot.pause()
        reason = str(pane.query_one("#runs-reason", Static).render())
        assert "test nlu cross-validation · 3 folds · seed 42" in reason
        # a comparison has no case results: no diff of it
        pane.marked = [comparison.id, cv.id]
        pane.action_diff()
        await pilot.pause()
        assert not isinstance(app.screen, DiffScreen)
        assert any("no case results to diff" in str(n.message) for n in app._notifications)
        # its Results header: the F1 table, not empty case counts
        from nlu_tui.ui.widgets.results_pane import ResultsPane

        results = app.screen.query_one(ResultsPane)
        results.show_run(comparison.id)
        await settle(pilot)
        header = str(results.query_one("#results-header", Static).render())
        assert "Cases 0/" not in header
        f1 = comparison.summary["results"]["embedded_default.config"][0]
        assert f"embedded_default.config: {f1[0]:.3f} {f1[1]:.3f}" in header
        assert "mean F1 with 0/50 % left out" in header
        assert "4/4 models trained and tested" in header


async def test_mode_change_takes_the_offered_configs_out(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = EvaluateScreen(root / "banking_bot.nlu.yml", root)
        await app.push_screen(screen)
        await settle(pilot)
        configs = screen.query_one("#eval-configs", Input)
        mode = screen.query_one("#eval-mode", Select)
        mode.value = "comparison"
        await pilot.pause()
        await wait_for(pilot, lambda: configs.value.split() == list(CONFIGS))
        assert configs.value.split() == list(CONFIGS)
        mode.value = "split"
        await pilot.pause()
        await wait_for(pilot, lambda: configs.value == "")
        assert configs.value == ""  # a split takes one configuration, or none
        screen.action_start()
        await settle(pilot, rounds=8)
        assert "intent accuracy" in str(screen.query_one("#eval-text", Static).render())
        # a configuration typed by hand stays
        configs.value = CONFIGS[1]
        mode.value = "cross-validation"
        await pilot.pause()
        assert configs.value == CONFIGS[1]


async def test_evaluate_from_a_suite_opens_its_training_data(tmp_path: Path) -> None:
    """The workbench opens on a suite; "run: Evaluate training data" there evaluates the
    x.nlu.yml beside x.suite.yaml (it only said "Select a training file (*.nlu.yml) first")."""
    from nlu_tui.ui.screens.main import MainScreen

    root = make_workspace(
        tmp_path, SAMPLES / "banking_bot.suite.yaml", SAMPLES / "banking_bot.nlu.yml"
    )
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.suite is not None and app.suite.path == root / "banking_bot.suite.yaml"
        main = app.screen
        assert isinstance(main, MainScreen)
        main.action_evaluate()
        await settle(pilot)
        assert isinstance(app.screen, EvaluateScreen)
        assert app.screen.path == (root / "banking_bot.nlu.yml").resolve()


async def test_split_option_title_is_whole_at_80_columns(tmp_path: Path) -> None:
    """The split's one option read "train fra…" at 80×24."""
    root = _workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = EvaluateScreen(root / "banking_bot.nlu.yml", root)
        await app.push_screen(screen)
        await settle(pilot)
        screen.query_one("#eval-mode", Select).value = "split"
        await settle(pilot)
        shown = app.export_screenshot().replace("&#160;", " ")
        assert "train fraction" in shown and "train fra…" not in shown


async def test_escape_asks_before_leaving_an_evaluation_under_way(tmp_path: Path) -> None:
    """Esc left the view at once, and leaving canceled the evaluation under way."""
    from nlu_tui.evaluation.service import Cancel
    from nlu_tui.ui.screens.dialogs import ConfirmDialog

    root = _workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = EvaluateScreen(root / "banking_bot.nlu.yml", root)
        await app.push_screen(screen)
        await settle(pilot)
        cancel = Cancel()
        screen._cancel = cancel  # an evaluation under way
        await pilot.press("escape")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")  # stay
        await pilot.pause()
        await wait_for(pilot, lambda: app.screen is screen and not cancel.requested)
        assert app.screen is screen and not cancel.requested
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("y")  # leave: the evaluation stops after the unit under way
        await pilot.pause()
        await wait_for(pilot, lambda: app.screen is not screen and cancel.requested)
        assert app.screen is not screen and cancel.requested
        # nothing under way: Esc goes straight back
        idle = EvaluateScreen(root / "banking_bot.nlu.yml", root)
        await app.push_screen(idle)
        await settle(pilot)
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: app.screen is not idle and not isinstance(app.screen, ConfirmDialog)
        )
        assert app.screen is not idle and not isinstance(app.screen, ConfirmDialog)
