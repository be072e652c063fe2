"""The workbench's ``results: Slices`` (Pilot): the run's figures per tag, intent kind and
parent intent, as ``nlu-tui show`` prints them, with names shown inert."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ui_runs_support import (
    PaneApp,
    predictions_v1,
    screen_text,
    show_run,
    small_suite,
    stored_run,
    wait_for,
)

from nlu_tui.store import RunStore
from nlu_tui.ui.screens.slices_dialog import SlicesScreen
from nlu_tui.ui.widgets.results_pane import ResultsPane

SIZE = (100, 40)


async def test_slices_of_the_run_shown(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    suite = small_suite()
    suite.cases[0] = replace(suite.cases[0], tags=["voice"])
    suite.cases[1] = replace(suite.cases[1], tags=["voice", "\x1b[2Jevil"])
    suite.cases[3] = replace(suite.cases[3], parent_intents=["balance"])
    run_id = stored_run(store, suite, predictions_v1())
    app = PaneApp(ResultsPane, store)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(ResultsPane)
        await show_run(pilot, pane, run_id)
        names = [c.name for c in pane.palette_commands()]
        assert "results: Slices" in names
        pane.action_slices()
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, SlicesScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, SlicesScreen)
        text = screen_text(app)
        assert f"Slices of run {run_id}" in text
        assert "  by tag" in text and "  by parent intent" in text
        assert "by intent kind" not in text  # no case has a kind
        rows = {
            line.strip("│ ").split("  ")[0]: line.strip("│ ").split() for line in text.splitlines()
        }
        # c1, c2 (voice) TP; c4 (parent balance) FP; c3 FP, c5 TN, c6 an error
        assert rows["voice"][1:] == ["2", "0", "1.000", "1.000", "1.000", "100.0%"]
        assert rows["balance"][1:] == ["1", "0", "0.000", "0.000", "0.000", "0.0%"]
        assert rows["(none)"][1:3] == ["5", "1"]  # by parent intent: the other five
        assert "\x1b" not in text and "␛[2Jevil" in text
        await pilot.press("escape")
        await pilot.pause()
        await wait_for(pilot, lambda: not isinstance(app.screen, SlicesScreen))
        assert not isinstance(app.screen, SlicesScreen)


async def test_slices_fit_and_scroll_at_80x24(tmp_path: Path) -> None:
    """Many tags at 80x24: the dialog stays on screen with its key line, the list scrolls
    down to the last slice and right to the intent column (it used to be cut off, unscrollable)."""
    store = RunStore(tmp_path / "runs.sqlite")
    suite = small_suite()
    for n, case in enumerate(suite.cases):
        suite.cases[n] = replace(case, tags=[f"tag{n}{k:02d}" for k in range(5)])
    suite.cases[3] = replace(suite.cases[3], parent_intents=["balance"])
    run_id = stored_run(store, suite, predictions_v1())
    app = PaneApp(ResultsPane, store)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(ResultsPane)
        await show_run(pilot, pane, run_id)
        pane.action_slices()
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, SlicesScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, SlicesScreen)
        text = screen_text(app)
        assert "Esc close" in text and "tag000" in text
        assert "by parent intent" not in text  # 30 tag lines above it: below the fold
        await pilot.press("end")
        await pilot.pause()
        text = screen_text(app)
        assert "by parent intent" in text and "Esc close" in text
        assert "intent " not in text.splitlines()[2]
        for _ in range(10):
            await pilot.press("right")
        await pilot.pause()
        await wait_for(pilot, lambda: "intent" in screen_text(app))
        assert "intent" in screen_text(app)


async def test_palette_opens_each_results_tab(tmp_path: Path) -> None:
    """Every Results tab has a palette entry (the guide: an entry for every action); the
    Thresholds tab, otherwise reached only with the mouse or Shift+Tab, shows the analysis."""
    from textual.widgets import TabbedContent

    store = RunStore(tmp_path / "runs.sqlite")
    run_id = stored_run(store, small_suite(), predictions_v1())
    app = PaneApp(ResultsPane, store)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(ResultsPane)
        await show_run(pilot, pane, run_id)
        commands = {c.name: c for c in pane.palette_commands()}
        tabs = pane.query_one("#results-tabs", TabbedContent)
        for name, tab in [
            ("results: Open Thresholds", "tab-res-thresholds"),
            ("results: Open Charts", "tab-res-charts"),
            ("results: Open Confusion", "tab-res-confusion"),
            ("results: Open Per intent", "tab-res-intents"),
            ("results: Open Cases", "tab-res-cases"),
        ]:
            commands[name].callback()
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert tabs.active == tab, name
            focused = app.focused
            assert focused is not None and tabs.get_pane(tab) in focused.ancestors_with_self
            if tab == "tab-res-thresholds":
                assert "best F1" in screen_text(app)
