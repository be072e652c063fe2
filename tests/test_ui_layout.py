"""The workbench at real sizes (issue 10, items 22 and 23): the columns a tester needs first
stay on screen, wide tables scroll by column and Home/End reach both edges, the suites panel
collapses (remembered), one key runs the selected suite from any tab, the detail pane
scrolls from the keyboard, import asks for a name and names the format, exports default to
the workspace, and the last suite and tab come back on reopen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_ui_runs_snapshots import record
from ui_runs_support import predictions_v1, screen_text, wait_for
from ui_support import FIXTURES, SAMPLE, make_workspace, new_app, settle

from nlu_tui.model import ExpectedIntent, Prediction, TestCase
from nlu_tui.reports.run_data import RunData
from nlu_tui.scoring import score_case
from nlu_tui.ui.app import NluTuiApp
from nlu_tui.ui.widgets.fast_table import fit_widths
from nlu_tui.workspace import open_workspace

TRAINING = SAMPLE.parent / "banking_bot.nlu.yml"
WIDE = (120, 35)
SMALL = (80, 24)


def _results_pane(app: Any) -> Any:
    from nlu_tui.ui.widgets.results_pane import ResultsPane

    return app.screen.query_one(ResultsPane)


async def _show_results(pilot: Any, data: RunData) -> Any:
    await settle(pilot)
    await pilot.press("f6")
    await settle(pilot)
    pane = _results_pane(pilot.app)
    pane._show_data(data)
    await pilot.pause()
    await pilot.pause()
    return pane


def _small_run() -> RunData:
    rec, rows = record("run000000001", predictions_v1())
    return RunData.from_rows(rec, rows)


def _long_run(count: int = 80) -> RunData:
    """A run of ``count`` cases where only the last one is confused (balance -> greet)."""
    cases = [
        TestCase(f"utterance number {n}", [ExpectedIntent("balance")], id=f"k{n}")
        for n in range(count)
    ]
    preds = [Prediction("balance", 0.9) for _ in range(count - 1)] + [Prediction("greet", 0.6)]
    rec, _ = record("run000000009", predictions_v1())
    rows = [(c, p, score_case(c, p)) for c, p in zip(cases, preds, strict=True)]
    rec.total = rec.done = count
    return RunData.from_rows(rec, rows)


def test_fit_widths_gives_way_in_the_stated_order() -> None:
    """Issue 23: the columns give way to the utterance (index 1) step by step: a floor
    shrinks a column, None takes it and the columns right of it off the screen (at their
    full width, a scroll away); free width goes to the utterance first."""
    steps = [(3, None), (2, 8), (1, 20), (2, None)]
    # 10 + 40 + 20 + 15 (+2 padding each) = 93 cells: all fit in 100, the utterance takes the rest
    assert fit_widths([10, 40, 20, 15], 100, steps=steps, flex=1) == [10, 47, 20, 15]
    # in 80: the last column leaves (76 cells), the utterance takes the 4 left up to its 40
    assert fit_widths([10, 40, 20, 15], 80, steps=steps, flex=1) == [10, 40, 20, 15]
    # in 60: it leaves, the third shrinks to 8, the utterance gets what is left (36)
    assert fit_widths([10, 40, 20, 15], 60, steps=steps, flex=1) == [10, 36, 8, 15]
    # in 40: the utterance goes down to 20, then the third leaves at its full width
    assert fit_widths([10, 40, 20, 15], 40, steps=steps, flex=1) == [10, 26, 20, 15]
    # without a flex column, free width stays free
    assert fit_widths([5, 5], 100, steps=[]) == [5, 5]


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x35", "80x24"])
async def test_results_show_expected_matched_confidence(tmp_path: Path, size: Any) -> None:
    """At 120×35 the columns a tester reads first are on screen; at 80×24 (issue 23: the
    utterance takes the free width first) Matched and Conf are a ``z`` (zoom) away."""
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=size) as pilot:
        await _show_results(pilot, _small_run())
        if size == SMALL:
            await pilot.press("z")
            await pilot.pause()
            await wait_for(pilot, lambda: "Conf" in screen_text(app))
        header = next(line for line in screen_text(app).splitlines() if "Utterance" in line)
        for label in ("Result", "Utterance", "Expected", "Matched", "Conf"):
            assert label in header, header


async def test_results_search_box_and_confusion_rows_at_80x24(tmp_path: Path) -> None:
    from textual.widgets import DataTable, Input, TabbedContent

    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SMALL) as pilot:
        pane = await _show_results(pilot, _small_run())
        assert pane.query_one("#results-search", Input).size.width >= 14
        pane.query_one("#results-tabs", TabbedContent).active = "tab-res-confusion"
        await wait_for(
            pilot,
            lambda: (
                pane.query_one("#results-confusion", DataTable).size.height >= 4
                and "balance" in screen_text(app)
            ),
        )
        confusion = pane.query_one("#results-confusion", DataTable)
        assert confusion.size.height >= 4  # the header and at least three rows
        assert "balance" in screen_text(app)


async def test_jump_from_confusion_cell_shows_the_case(tmp_path: Path) -> None:
    from textual.widgets import OptionList, TabbedContent

    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SMALL) as pilot:
        pane = await _show_results(pilot, _long_run())
        pane.query_one("#results-tabs", TabbedContent).active = "tab-res-confusion"
        await pilot.pause()
        await wait_for(pilot, lambda: pane.open_cell("balance", "greet") == ["k79"])
        assert pane.open_cell("balance", "greet") == ["k79"]
        options = pane.query_one("#results-cell-cases", OptionList)
        options.focus()
        options.highlighted = 0
        await pilot.press("enter")
        await settle(pilot)
        table = pane.table.data_table
        assert pane.table.current_case_id() == "k79"
        assert app.focused is table
        top = int(table.scroll_y)
        assert top <= table.cursor_row < top + table.scrollable_content_region.height - 1
        assert "utterance number 79" in screen_text(app)


async def test_cases_table_fits_and_home_end_scroll_sideways(tmp_path: Path) -> None:
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        header = next(line for line in screen_text(app).splitlines() if "Utterance" in line)
        # issue 23: the utterance first; Entities, Order and Tags are a scroll to the right
        for label in ("Intents", "Parent"):
            assert label in header, header
        table = app.focused
        assert table is not None and table.max_scroll_x > 0
        await pilot.press("end")
        await pilot.pause()
        await wait_for(pilot, lambda: "Tags" in screen_text(app))
        assert "Tags" in screen_text(app)
    (tmp_path / "small").mkdir()
    app = new_app(make_workspace(tmp_path / "small"))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        table = app.focused
        assert table is not None and table.max_scroll_x > 0
        await pilot.press("right")
        await pilot.pause()
        await wait_for(pilot, lambda: table.scroll_x > 3)
        assert table.scroll_x > 3  # a whole column, not one cell
        await pilot.press("end")
        await pilot.pause()
        await wait_for(pilot, lambda: table.scroll_x == table.max_scroll_x)
        assert table.scroll_x == table.max_scroll_x
        assert "Tags" in screen_text(app)
        await pilot.press("home")
        await pilot.pause()
        await wait_for(pilot, lambda: table.scroll_x == 0)
        assert table.scroll_x == 0


async def test_suites_panel_collapses_and_reopen_restores_suite_and_tab(tmp_path: Path) -> None:
    from nlu_tui.ui.widgets.suites_panel import SuitesPanel

    root = make_workspace(tmp_path, SAMPLE, FIXTURES / "markup.suite.yaml")
    app = NluTuiApp(open_workspace(root), cursor_blink=False)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        panel = app.screen.query_one(SuitesPanel)
        assert 20 <= panel.size.width <= 30  # relative to the terminal, not a fixed 30
        await pilot.press("f2", "down")
        await settle(pilot)
        await wait_for(
            pilot,
            lambda: (
                app.suite is not None and app.suite.path == (root / "markup.suite.yaml").resolve()
            ),
        )
        assert app.suite is not None and app.suite.path == (root / "markup.suite.yaml").resolve()
        await pilot.press("f4")
        await settle(pilot)
        await pilot.press("ctrl+b")
        await pilot.pause()
        await wait_for(pilot, lambda: not panel.display or panel.size.width == 0)
        assert not panel.display or panel.size.width == 0
    app = NluTuiApp(open_workspace(root), cursor_blink=False)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await pilot.pause()
        await settle(pilot)
        assert app.suite is not None and app.suite.path == (root / "markup.suite.yaml").resolve()
        assert app.screen.query_one("#main-tabs").active == "tab-runs"
        panel = app.screen.query_one(SuitesPanel)
        assert panel.size.width == 0
        await pilot.press("ctrl+b")
        await pilot.pause()
        await wait_for(pilot, lambda: panel.size.width > 0)
        assert panel.size.width > 0


async def test_f5_runs_the_selected_suite_from_any_tab(tmp_path: Path) -> None:
    from nlu_tui.ui.screens.dialogs import ConfirmDialog, SuiteFormScreen
    from nlu_tui.ui.screens.run_start import StartRunDialog

    app = new_app(make_workspace(tmp_path, SAMPLE, TRAINING))
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await pilot.press("f2")  # in the suites panel, r no longer renames
        await pilot.press("r")
        await pilot.pause()
        assert not isinstance(app.screen, SuiteFormScreen)
        for start_key in ("f3", "f2", "f6"):
            await pilot.press(start_key)
            await settle(pilot)
            await pilot.press("f5")
            await pilot.pause()
            await wait_for(pilot, lambda: isinstance(app.screen, (ConfirmDialog, StartRunDialog)))
            await pilot.pause()  # the screen pushed: composed and mounted
            if isinstance(app.screen, ConfirmDialog):
                await pilot.press("y")
                await pilot.pause()
            await wait_for(pilot, lambda: isinstance(app.screen, StartRunDialog))
            await pilot.pause()  # the screen pushed: composed and mounted
            assert isinstance(app.screen, StartRunDialog), start_key
            assert app.screen_stack[1].query_one("#main-tabs").active == "tab-runs"
            await pilot.press("escape")
            await pilot.pause()
        names = [c.name for c in app.palette_commands()]
        assert "run: Run Test Suite" in names


async def test_detail_pane_scrolls_from_keyboard(tmp_path: Path) -> None:
    from nlu_tui.ui.widgets.results_detail import ResultDetail

    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SMALL) as pilot:
        pane = await _show_results(pilot, _small_run())
        pane.table.select_case("c1")
        await pilot.pause()
        detail = pane.query_one(ResultDetail)
        assert not detail.display or detail.size.height == 0  # collapsed at 80×24 (issue 23)
        await pilot.press("d")  # shown over the table
        await pilot.pause()
        await wait_for(pilot, lambda: app.focused is detail)
        assert app.focused is detail
        assert detail.max_scroll_y > 0
        await pilot.press("pagedown")
        await pilot.pause()
        await wait_for(pilot, lambda: detail.scroll_y > 0)
        assert detail.scroll_y > 0
        await pilot.press("escape")
        await pilot.pause()
        await wait_for(pilot, lambda: app.focused is pane.table.data_table)
        assert app.focused is pane.table.data_table
        assert not pane.split.has_class("detail-open")
        await pilot.press("enter")  # Enter opens it too, at its top
        await pilot.pause()
        await wait_for(pilot, lambda: app.focused is detail and detail.scroll_y == 0)
        assert app.focused is detail and detail.scroll_y == 0


async def test_import_asks_name_names_format_and_refuses_duplicates(tmp_path: Path) -> None:
    from textual.widgets import Input, Static

    from nlu_tui.ui.screens.import_dialog import ImportScreen

    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        source = FIXTURES / "good_kore.csv"
        for round_ in (1, 2):
            await app.push_screen(ImportScreen(tmp_path))
            await pilot.pause()
            screen = app.screen
            screen.query_one("#path", Input).value = str(source)
            await pilot.pause()  # the path's Changed event first, as when typed
            screen.action_preview()
            await settle(pilot)
            summary = str(screen.query_one("#import-summary", Static).render())
            assert "format kore-csv, detected" in summary, summary
            name = screen.query_one("#suite-name", Input)
            if round_ == 2:
                first = name.value.removesuffix(" (2)")
                assert name.value == f"{first} (2)"  # prefilled, made unique
                name.value = first  # a duplicate is refused
                screen.action_do_import()
                await settle(pilot)
                assert app.screen is screen
                assert "already exists" in str(screen.query_one("#import-errors").render())
                name.value = "Cards from Kore"
            screen.query_one("#suite-description", Input).value = f"import {round_}"
            screen.action_do_import()
            # the dialog closes itself once the file is written
            await wait_for(pilot, lambda s=screen: app.screen is not s)
            assert app.screen is not screen  # written before the dialog closed
            await pilot.pause()
        names = sorted(i.name for i in app.workspace.list_suites())
        assert "Cards from Kore" in names and len(names) == len(set(names)) == 3


async def test_import_of_unknown_format_offers_the_format_list(tmp_path: Path) -> None:
    from textual.widgets import Input, Select

    from nlu_tui.ui.screens.import_dialog import ImportScreen

    odd = tmp_path / "notes.txt"
    odd.write_text("nothing any format reads\n", encoding="utf-8")
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await app.push_screen(ImportScreen(tmp_path))
        await pilot.pause()
        screen = app.screen
        screen.query_one("#path", Input).value = str(odd)
        await pilot.pause()
        screen.action_preview()
        await settle(pilot)
        errors = str(screen.query_one("#import-errors").render())
        assert "--format" not in errors and "Choose its format" in errors
        assert app.focused is screen.query_one("#format", Select)


async def test_exports_default_to_the_workspace_folder(tmp_path: Path) -> None:
    from textual.widgets import Input

    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=WIDE) as pilot:
        pane = await _show_results(pilot, _small_run())
        pane.action_export()
        await pilot.pause()
        path = Path(app.screen.query_one("#export-path", Input).value)
        assert path.parent == app.workspace.root and path.is_absolute()
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("f2", "x")
        await pilot.pause()
        path = Path(app.screen.query_one("#path", Input).value)
        assert path.parent == app.workspace.root


def test_remembered_state_survives_a_broken_file(tmp_path: Path) -> None:
    from nlu_tui import paths, ui_state

    paths.state_path().parent.mkdir(parents=True, exist_ok=True)
    paths.state_path().write_text("{not json", encoding="utf-8")
    assert ui_state.workspace_state(tmp_path) == {}
    ui_state.remember_workspace(tmp_path, suite="a.suite.yaml", tab="tab-runs")
    assert ui_state.workspace_state(tmp_path) == {"suite": "a.suite.yaml", "tab": "tab-runs"}


async def test_run_history_shows_status_and_f1_at_80x24(tmp_path: Path) -> None:
    from test_ui_layout_snapshots import _runs
    from textual.widgets import DataTable

    from nlu_tui.ui.widgets.runs_pane import HISTORY_COLUMNS, RunsPane

    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SMALL) as pilot:
        await _runs(pilot)
        header = next(line for line in screen_text(app).splitlines() if "Started" in line)
        for label in ("Started", "Status", "F1"):
            assert label in header, header
        table = app.screen.query_one(RunsPane).query_one("#runs-table", DataTable)
        keys = [k for k, _ in HISTORY_COLUMNS]
        first = table.get_row_at(0)
        assert "canceled" in str(first[keys.index("status")])
        assert str(first[keys.index("engine")]) == "bank-rasa"


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x35", "80x24"])
async def test_footer_offers_run_test_suite_on_every_tab(tmp_path: Path, size: Any) -> None:
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for key in ("f2", "f3", "f4", "f6"):
            await pilot.press(key)
            await settle(pilot)
            footer = screen_text(app).splitlines()[-1]
            assert "F5 Run Test Suite" in footer, (key, footer)
            assert len(footer) <= size[0]


def test_history_lists_a_failed_run_with_dashes_not_zero() -> None:
    """A failed run measured nothing: the workbench history shows ``-``, as ``nlu-tui runs``
    does (issue 10, item 21), and sorts it below every measured run."""
    from nlu_tui.model import RunStatus
    from nlu_tui.store.records import RunRecord
    from nlu_tui.ui.widgets.runs_pane import history_row
    from nlu_tui.views.summary_text import num, pct

    def record(status: RunStatus, tp: int) -> RunRecord:
        return RunRecord(
            "r1", "s", None, "h", "rasa:http://x", {}, "development", status, None, "",
            10, tp, tp, 0, 0, 0, 10 - tp, 0.0, 1.0,
        )  # fmt: skip

    failed = history_row(record(RunStatus.FAILED, 0))
    assert (num(failed.f1), num(failed.precision), pct(failed.intent)) == ("-", "-", "-")
    measured = history_row(record(RunStatus.SUCCESS, 10))
    assert num(measured.f1) == "1.0000"
    assert failed.value("f1") < measured.value("f1")


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x35", "80x24"])
async def test_empty_workspace_says_how_to_start(tmp_path: Path, size: Any) -> None:
    """A newcomer's empty folder says how to create or import a suite, at both sizes."""
    root = tmp_path / "empty"
    root.mkdir()
    app = new_app(root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        text = " ".join(screen_text(app).split())
        assert "No suite open" in text and "n for a new" in text and "import a file" in text


async def test_reopening_on_results_keeps_its_cases_tab(tmp_path: Path) -> None:
    """Restored on the Results tab before any run is open, the focus must not land in a
    table of another (not yet hidden) Results tab and switch to it: opening a run then shows
    its cases, focused."""
    from textual.widgets import TabbedContent

    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=WIDE) as pilot:
        app.screen.show_tab("tab-results")  # as the remembered tab is restored at start-up
        await settle(pilot)
        tabs = app.screen.query_one("#results-tabs", TabbedContent)
        assert tabs.active == "tab-res-cases"
        pane = await _show_results(pilot, _small_run())
        pane.table.focus_table()
        await settle(pilot)
        assert tabs.active == "tab-res-cases"
        assert app.focused is not None and pane.table in app.focused.ancestors_with_self


async def test_export_says_at_once_that_it_is_writing(tmp_path: Path) -> None:
    """The Rasa folder takes seconds (its plots): the dialog closes and a notice says at once
    that the export is under way, then what was written (before, nothing showed meanwhile)."""
    from textual.widgets import Input

    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=WIDE) as pilot:
        pane = await _show_results(pilot, _small_run())
        pane.action_export()
        await pilot.pause()
        target = tmp_path / "out.json"
        app.screen.query_one("#export-path", Input).value = str(target)
        await pilot.press("ctrl+s")
        await pilot.pause()
        titles = [n.title for n in app._notifications]
        assert titles and titles[0] == "Exporting json"
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert target.is_file()
        assert "Exported json" in [n.title for n in app._notifications]
