"""The focus never lands on a widget that is leaving the screen (nlu_tui/ui/focus_guard.py).

``Widget.focus()`` takes effect later; a widget removed in between was focused anyway, and with
the focus on a widget outside the DOM no key reached a binding, not even Ctrl+P (the results
table rebuilt for a repeated run's stability column, right after the run's end focused it:
CI's tmux repeat test, one start in ten on a busy machine)."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandPalette
from textual.widgets import Input
from ui_runs_support import wait_for
from ui_support import SIZE, make_workspace, new_app, settle


async def test_a_widget_removed_before_its_focus_takes_effect_is_not_focused(
    tmp_path: Path,
) -> None:
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = app.screen.focused
        leaving = Input(id="leaving")
        await app.screen.mount(leaving)
        leaving.focus()  # queued on the app...
        leaving.remove()  # ...and the widget removed before it takes effect
        await pilot.pause()
        await pilot.pause()
        assert not leaving.is_attached
        assert app.screen.focused is not leaving
        assert app.screen.focused is before
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))


async def test_the_results_table_rebuilt_for_a_repeated_run_takes_the_focus_asked_for() -> None:
    """The run's end asks the results table for the focus, then the stability column of a
    repeated run rebuilds the table before that focus took effect: the new table has it."""
    from textual.app import App, ComposeResult

    from nlu_tui.model import CaseResult, ExpectedIntent, ResultType, TestCase
    from nlu_tui.ui.widgets.results_table import ResultsTable

    class TableApp(App[None]):
        def compose(self) -> ComposeResult:
            yield Input(id="elsewhere")
            yield ResultsTable()

    cases = {
        f"c{i}": TestCase(utterance=f"u {i}", intents=[ExpectedIntent("greet")], id=f"c{i}")
        for i in range(5)
    }
    results = [
        CaseResult(case_id=f"c{i}", result=ResultType.TP, matched_intent="greet", confidence=0.9)
        for i in range(5)
    ]
    app = TableApp()
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.query_one(ResultsTable)
        table.load(cases, results)
        await wait_for(pilot, lambda: table.data_table is not None and table.view_count == 5)
        app.query_one("#elsewhere", Input).focus()
        await pilot.pause()
        old = table.data_table
        table.focus_table()  # queued on the app...
        table.show_stability(True)  # ...and the table rebuilt before it takes effect
        table.load(cases, results)
        await wait_for(pilot, lambda: table.data_table is not None and table.data_table is not old)
        await wait_for(pilot, lambda: app.focused is table.data_table)
