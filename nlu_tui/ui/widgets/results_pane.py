"""The Results tab: one run's header, its per-utterance table with a filter bar and a detail
pane, and the Per intent, Confusion, Charts and Thresholds tabs.

:class:`ResultsPane` puts together widgets of their own modules: the header
(:class:`~nlu_tui.ui.widgets.results_header.RunHeader`), the filter bar
(:class:`~nlu_tui.ui.widgets.results_filters.ResultsFilterBar`, posting ``Changed`` and
``Submitted``), the results table and detail, and one ``TabPane`` widget per tab
(``results_intents``, ``results_confusion`` posting ``CaseChosen``, ``results_charts``). A
finished run is loaded in a thread worker (:class:`RunData`, computed once by the scoring core);
a live run is followed by its base class, :class:`~nlu_tui.ui.widgets.results_live.LiveResults`.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import (
    ProgressBar,
    Static,
    TabbedContent,
    TabPane,
    Tabs,
)

from nlu_tui.model import ResultType, Suite
from nlu_tui.reports.run_data import RunData
from nlu_tui.runsessions import sessions, store_for
from nlu_tui.ui.commands import PaletteCommand
from nlu_tui.ui.state import Workbench, hosting_workbench
from nlu_tui.ui.widgets.results_charts import ChartsTab
from nlu_tui.ui.widgets.results_confusion import ConfusionTab
from nlu_tui.ui.widgets.results_detail import ResultDetail
from nlu_tui.ui.widgets.results_filters import FLAKY, ResultsFilterBar
from nlu_tui.ui.widgets.results_header import RunHeader
from nlu_tui.ui.widgets.results_intents import IntentsTab
from nlu_tui.ui.widgets.results_live import LiveResults
from nlu_tui.ui.widgets.results_table import ResultsTable
from nlu_tui.ui.widgets.results_trend import TrendTab
from nlu_tui.ui.widgets.threshold_view import ThresholdView
from nlu_tui.ui.workers import describe
from nlu_tui.views.result_columns import ResultFilter

__all__ = ["FLAKY", "ResultsPane", "export_dir"]

NO_RUN_OPEN = "No run open. Open one from the Runs tab."

TYPE_CYCLE = ["", "FP", "FN", "ERROR"]


def export_dir(app: Any, suite_path: str | Path | None) -> Path:
    """Where exports go by default: the run's suite folder, else the workspace folder (not the
    folder the app was started from, which under ``make start`` is the source checkout)."""
    if suite_path:
        folder = Path(suite_path).expanduser().parent
        if folder.is_dir():
            return folder
    return app.workspace.root if isinstance(app, Workbench) else Path.cwd()


RESULT_TABS = [
    ("tab-res-cases", "Cases", "The results table with its filters and the case detail"),
    ("tab-res-intents", "Per intent", "Precision, recall and F1 per intent and intent type"),
    ("tab-res-confusion", "Confusion", "Expected × predicted counts; a cell lists its cases"),
    ("tab-res-charts", "Charts", "Confidence histograms (Kore.ai and Rasa) and latencies"),
    (
        "tab-res-thresholds",
        "Thresholds",
        "Precision, recall, F1 and fallback as the threshold sweeps",
    ),
    (
        "tab-res-trend",
        "Trend",
        "F1, precision, recall and errors over the suite's runs; failing and flaky cases",
    ),
]
"""The Results tabs (id, title, what it shows), each opened by a palette command."""


class ResultsPane(LiveResults):
    """Shows one run (finished or live); empty until a run is opened."""

    DEFAULT_CSS = """
    ResultsPane { height: 1fr; }
    ResultsPane #results-header { height: auto; padding: 0 1; background: $boost; }
    ResultsPane #results-live { height: 1; padding: 0 1; display: none; }
    ResultsPane #results-live ProgressBar { width: 1fr; }
    ResultsPane #results-live Bar { width: 1fr; }
    ResultsPane #results-rate { width: auto; margin-left: 1; }
    ResultsPane #results-filters { height: 1; }
    ResultsPane #results-filters Input { width: 2fr; min-width: 14; }
    ResultsPane #results-filters Select { width: 1fr; max-width: 30; min-width: 12; }
    ResultsPane #results-tabs { height: 1fr; }
    ResultsPane #results-tabs Tabs.compact-tabs Tab { padding: 0 0 0 1; }
    ResultsPane #results-split { height: 1fr; }
    ResultsPane ResultsTable { width: 3fr; }
    ResultsPane ResultDetail { width: 2fr; }
    ResultsPane #results-split.stacked { layout: vertical; }
    ResultsPane #results-split.stacked ResultsTable { width: 1fr; height: 3fr; }
    ResultsPane #results-split.stacked ResultDetail {
        width: 1fr; height: 2fr; border-left: none; border-top: solid $primary;
    }
    ResultsPane #results-split.collapsed ResultDetail { display: none; }
    ResultsPane #results-split.collapsed.detail-open ResultsTable { display: none; }
    ResultsPane #results-split.collapsed.detail-open ResultDetail { display: block; height: 1fr; }
    ResultsPane #results-intents { height: 1fr; }
    ResultsPane #results-types { height: auto; max-height: 7; border-top: solid $primary; }
    ResultsPane #results-confusion { height: 1fr; min-height: 4; }
    ResultsPane #results-cell-cases {
        height: 35%; min-height: 3; max-height: 10; border-top: solid $primary;
    }
    """

    BINDINGS = [
        Binding(
            "d",
            "focus_detail",
            "Detail",
            id="results.detail",
            tooltip="Show the case's detail (over a small table): arrows and PgUp/PgDn "
            "scroll it, Esc goes back; Enter in the table too.",
        ),
        Binding(
            "z",
            "zoom",
            "Zoom",
            id="results.zoom",
            tooltip="Give the results table the whole screen (again, or Esc, to go back).",
        ),
        Binding(
            "slash,ctrl+f",
            "focus_search",
            "Search",
            id="results.search",
            tooltip="Search the utterances.",
        ),
        Binding(
            "f",
            "cycle_type",
            "FP/FN",
            id="results.cycle-type",
            tooltip="Cycle the result filter: all, FP only, FN only, errors.",
        ),
        Binding(
            "i",
            "pick_intent",
            "Intent",
            id="results.intent",
            tooltip="Show only the cases of one intent (expected or matched).",
        ),
        Binding(
            "s",
            "pick_sort",
            "Sort",
            id="results.sort",
            tooltip="Sort the table by a column (again to reverse).",
        ),
        Binding(
            "e",
            "edit_case",
            "Edit case",
            id="results.edit",
            tooltip="Open the selected case in the editor.",
        ),
        Binding(
            "x",
            "export",
            "Export",
            id="results.export",
            tooltip="Export the run in any report format.",
        ),
        Binding("n", "note", "Note", id="results.note", tooltip="Add or edit the run's note."),
        Binding(
            "right_square_bracket",
            "scroll_detail(1)",
            "Detail ↓",
            show=False,
            id="results.detail-down",
            tooltip="Scroll the detail pane down a page (from the table).",
        ),
        Binding(
            "left_square_bracket",
            "scroll_detail(-1)",
            "Detail ↑",
            show=False,
            id="results.detail-up",
            tooltip="Scroll the detail pane up a page (from the table).",
        ),
        Binding(
            "escape,ctrl+x",
            "cancel_run",
            "Cancel run",
            show=False,
            id="results.cancel",
            tooltip="Cancel the run shown here (asks first).",
        ),
    ]

    # --- layout -----------------------------------------------------------------------

    STACK_BELOW = 160
    """Below this width the detail pane goes under the table instead of beside it, so the
    table keeps room for result, utterance, expected, matched and confidence (beside the
    detail it has three fifths of the width)."""

    COLLAPSE_BELOW = 30
    """Below this height (stacked) the detail pane is hidden, so the table keeps at least 12
    rows at 80×24; Enter or ``d`` shows it over the table, Esc hides it again."""

    TAB_LABELS_WIDTH = sum(len(title) + 2 for _id, title, _about in RESULT_TABS)
    """Cells the tab bar takes with Textual's tab padding (one cell either side of a label):
    narrower, each tab keeps one cell before its label only, so every label still shows
    (at 80 columns with the suites panel, "Thresholds  Tre" was cut and the bar scrolled)."""

    def on_resize(self) -> None:
        # The classes go on the widgets their rules style, not on the pane: a class changed
        # on the pane restyles every widget of its six tabs (the first show of the tab).
        split = self.split
        stacked = self.size.width < self.STACK_BELOW
        split.set_class(stacked, "stacked")
        split.set_class(stacked and self.size.height < self.COLLAPSE_BELOW, "collapsed")
        tabs = self.query_one("#results-tabs", TabbedContent).query_children(Tabs).first()
        tabs.set_class(self.size.width < self.TAB_LABELS_WIDTH, "compact-tabs")

    @property
    def split(self) -> Horizontal:
        """The table and the detail pane: ``stacked``, ``collapsed`` (a small terminal: the
        detail is hidden) and ``detail-open`` (then shown over the table) are set on it."""
        return self.query_one("#results-split", Horizontal)

    def compose(self) -> ComposeResult:
        yield RunHeader()
        with Horizontal(id="results-live"):  # one line: the bar, then how far
            yield ProgressBar(total=100, show_eta=False, id="results-progress")
            yield Static("starting…", id="results-rate")
        with TabbedContent(id="results-tabs"):
            with TabPane("Cases", id="tab-res-cases"):
                yield ResultsFilterBar()
                with Horizontal(id="results-split"):
                    yield ResultsTable(id="results-table")
                    yield ResultDetail(id="results-detail")
            yield IntentsTab()
            yield ConfusionTab()
            yield ChartsTab()
            with TabPane("Thresholds", id="tab-res-thresholds"):
                yield ThresholdView(id="results-thresholds")
            yield TrendTab()

    def show_tab(self, tab_id: str) -> None:
        """Bring one of the result tabs forward and focus what it holds (the palette's
        ``results: Open …``: the tabs are otherwise reached only by mouse or Shift+Tab)."""
        from textual.widgets import TabbedContent, TabPane

        self.query_one("#results-tabs", TabbedContent).active = tab_id
        if tab_id == "tab-res-cases":
            self.call_after_refresh(self.table.focus_table)
            return
        pane = self.query_one(f"#{tab_id}", TabPane)
        targets = [w for w in pane.query("*") if w.focusable]
        if targets:
            # now, so that the old tab's widget, hidden by the switch, no longer holds the
            # focus when it is blurred (its blur would move the focus to the tabs); and again
            # once the tab is drawn
            targets[0].focus()
            self.call_after_refresh(targets[0].focus)

    # --- the suite's last run, when none is open -----------------------------------------

    _suite: Suite | None = None
    """The workbench's open suite (its last run is opened when the pane shows with none)."""
    _visible = False

    def on_mount(self) -> None:
        host = hosting_workbench(self)
        if host is not None:
            self._suite = host.suite
            self.watch(host, "suite", self._suite_opened, init=False)

    def on_show(self) -> None:
        self._visible = True
        self._open_latest_if_idle()

    def on_hide(self) -> None:
        self._visible = False

    def _suite_opened(self, suite: Suite | None) -> None:
        self._suite = suite
        if self.data is None and self.session is None:
            self.query_one(RunHeader).show_text(NO_RUN_OPEN)
        self._open_latest_if_idle()

    def _open_latest_if_idle(self) -> None:
        """Nothing open (after a restart, say): show the suite's last run, read only once the
        tab is on screen (never at start-up behind another tab)."""
        suite = self._suite
        if not self._visible or suite is None or self.data is not None or self.session:
            return
        self._find_latest(suite)

    @work(
        thread=True,
        exclusive=True,
        group="results-latest",
        exit_on_error=False,
        name="results-latest",
        description="Finding the suite's last run",
    )
    def _find_latest(self, suite: Suite) -> None:
        from nlu_tui.runsessions import suite_key_of

        try:
            runs = store_for(self.app).list_runs(suite_key_of(suite), limit=20)
        except Exception:  # a store that cannot be read says so when a run is opened
            return
        latest = next(
            (r.id for r in runs if r.kind == "suite" and r.status.value != "running"), None
        )
        self.app.call_from_thread(self._latest_found, suite, latest)

    def _latest_found(self, suite: Suite, run_id: str | None) -> None:
        if suite is not self._suite or self.data is not None or self.session is not None:
            return  # another suite, or a run opened meanwhile: that one wins
        if run_id is None:
            self.query_one(RunHeader).show_text(
                f"No run of {suite.name} yet: F5 runs it (the Runs tab lists every run)."
            )
            return
        self.show_run(run_id)

    @property
    def run_id(self) -> str | None:
        if self.session is not None:
            return self.session.run_id
        return self.data.record.id if self.data is not None else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Cancel only while a live run is shown; the rest once a run is open."""
        if action == "cancel_run":
            return self.session is not None and not self.session.finished
        # no run open: no key acts on one
        return self.data is not None or self.session is not None

    # --- opening runs -----------------------------------------------------------------

    def show_run(self, run_id: str) -> None:
        """Open a run: follow it live when this app is running it, else load it."""
        session = sessions(self.app).get(run_id)
        if session is not None and not session.finished:
            self.attach(session)
            return
        self._stop_live()
        self.query_one(RunHeader).show_text(f"Loading run {run_id}…")
        self._load(run_id)

    @work(
        thread=True,
        exclusive=True,
        group="results-load",
        exit_on_error=False,
        name="results-load",
        description="Loading a run's results",
    )
    def _load(self, run_id: str) -> None:
        from nlu_tui.views.result_columns import ResultColumns

        describe(f"Loading the results of run {run_id}")
        try:
            store = store_for(self.app)
            data = RunData.load(store, run_id)
            from nlu_tui.robustness import run_robustness

            data.robustness = run_robustness(store, data.record)
            columns = ResultColumns()
            stability = data.stability.by_case() if data.stability is not None else None
            columns.extend(data.cases, (r for _, _, r in data.rows), stability)
            prepared = (columns, columns.to_arrow())
        except Exception as exc:
            self.app.call_from_thread(self._load_failed, run_id, exc)
            return
        self.app.call_from_thread(self._show_data, data, prepared)

    def _load_failed(self, run_id: str, exc: Exception) -> None:
        self.query_one(RunHeader).show_text(f"Cannot open run {run_id}: {exc}")
        self.notify(escape(str(exc)), title="Cannot open run", severity="error")

    def _show_data(self, data: RunData, prepared: tuple[Any, Any] | None = None) -> None:
        """Show a loaded run; ``prepared`` is its table rows, built off the UI thread."""
        self.data = data
        self.refresh_bindings()
        self.query_one(RunHeader).show_summary(data)
        self.table.show_stability(
            data.stability is not None, raw=any(r.raw_checks for _c, _p, r in data.rows)
        )
        self._set_type_choices(data.stability is not None)
        if prepared is not None:
            self.table.load_prepared(*prepared)
        else:
            self.table.load(data.cases, (r for _, _, r in data.rows))
        self.query_one(ResultsFilterBar).set_intents(data.report.labels)
        self.query_one(IntentsTab).show(data)
        self.query_one(ConfusionTab).show(data)
        self.query_one(ChartsTab).show(data)
        self.query_one(TrendTab).show_run(data.record)
        self.query_one(ThresholdView).set_run(data.record, data.rows)

    def _set_type_choices(self, flaky: bool) -> None:
        """The result filter's choices: "Flaky only" too for a repeated run."""
        flt = self.table.filter
        if flt.flaky and not flaky:  # the run shown now has no flaky cases to filter on
            flt = self.table.filter = ResultFilter(flt.types, flt.intent, flt.text)
        self.query_one(ResultsFilterBar).set_type_choices(flt, flaky)

    # --- per-intent report, confusion, charts -------------------------------------------------

    def sort_intents(self, key: str, descending: bool = False) -> None:
        self.query_one(IntentsTab).sort_intents(key, descending)

    def open_cell(self, true_label: str, predicted: str) -> list[str]:
        """List the cases of one confusion cell below the table; returns their ids."""
        return self.query_one(ConfusionTab).open_cell(true_label, predicted)

    @on(ConfusionTab.CaseChosen)
    def _cell_case_chosen(self, event: ConfusionTab.CaseChosen) -> None:
        event.stop()
        self.jump_to_case(event.case_id)

    def jump_to_case(self, case_id: str) -> None:
        """Show one case in the Cases tab's table, scrolled into view, with the focus on it."""
        self.set_filter(ResultFilter())
        self.query_one("#results-tabs", TabbedContent).active = "tab-res-cases"
        self.table.select_case(case_id)
        self.table.focus_table()
        # the table was hidden until now: scroll once it has its size again
        self.call_after_refresh(self.table.scroll_to_cursor)

    # --- table and detail ---------------------------------------------------------------

    @on(ResultsTable.CaseHighlighted)
    def _case_highlighted(self, event: ResultsTable.CaseHighlighted) -> None:
        event.stop()
        detail = self.query_one(ResultDetail)
        row = self._row(event.case_id)
        if row is None:
            detail.show(None, None, None)
        else:
            case, prediction, result = row
            stability = self.data.stability if self.data is not None else None
            per_case = stability.by_case().get(result.case_id) if stability is not None else None
            detail.show(case, prediction, result, per_case)

    def _row(self, case_id: str | None) -> Any:
        if case_id is None:
            return None
        if self.data is not None:
            return self.data.by_id.get(case_id)
        if self.session is not None:
            return self.session.by_id.get(case_id)
        return None

    def set_filter(self, flt: ResultFilter) -> None:
        """Apply a filter and show it in the filter bar."""
        data = self.data
        self.query_one(ResultsFilterBar).show(
            flt,
            data.report.labels if data is not None else None,
            flaky=data is not None and data.stability is not None,
        )
        self.table.set_filter(flt)

    @on(ResultsFilterBar.Changed)
    def _filters_changed(self, event: ResultsFilterBar.Changed) -> None:
        event.stop()
        self.table.set_filter(event.filter)

    @on(ResultsFilterBar.Submitted)
    def _search_submitted(self, event: ResultsFilterBar.Submitted) -> None:
        event.stop()
        self.table.focus_table()

    # --- actions ----------------------------------------------------------------------

    def action_focus_search(self) -> None:
        self.query_one("#results-tabs", TabbedContent).active = "tab-res-cases"
        self.query_one(ResultsFilterBar).focus_search()

    def action_focus_detail(self) -> None:
        """Focus the detail pane; when it is collapsed (a small terminal), show it over the
        table first (its Esc hides it again)."""
        tabs = self.query_one("#results-tabs", TabbedContent)
        shown = tabs.active == "tab-res-cases" and self.screen.maximized is None
        tabs.active = "tab-res-cases"
        if self.screen.maximized is not None:
            self.screen.minimize()
        split = self.split
        if split.has_class("collapsed") and not split.has_class("detail-open"):
            split.add_class("detail-open")
            shown = False
        detail = self.query_one(ResultDetail)
        detail.scroll_home(animate=False)
        if shown:  # on screen already: focused now (``focus()`` waits for the next turn)
            self.screen.set_focus(detail)
        else:  # once it is laid out (a hidden widget cannot take the focus)
            self.call_after_refresh(detail.focus)

    def on_data_table_row_selected(self, event: Any) -> None:
        """Enter in the results table: the case's detail (the fastdatatable's message)."""
        if isinstance(event.control.parent, ResultsTable):
            event.stop()
            self.action_focus_detail()

    def action_zoom(self) -> None:
        """The results table alone on the whole screen, or back (a toggle)."""
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
            return
        self.query_one("#results-tabs", TabbedContent).active = "tab-res-cases"
        self.split.remove_class("detail-open")
        if screen.maximize(self.table, container=False):
            self.table.focus_table()

    def action_scroll_detail(self, pages: int) -> None:
        detail = self.query_one(ResultDetail)
        if pages > 0:
            detail.scroll_page_down(animate=False)
        else:
            detail.scroll_page_up(animate=False)

    def action_cycle_type(self) -> None:
        current = ",".join(sorted(self.table.filter.types))
        nxt = (
            TYPE_CYCLE[(TYPE_CYCLE.index(current) + 1) % len(TYPE_CYCLE)]
            if current in TYPE_CYCLE
            else ""
        )
        flt = self.table.filter
        self.set_filter(
            ResultFilter(frozenset([nxt]) if nxt else frozenset(), flt.intent, flt.text, flt.flaky)
        )
        self.notify(
            escape(f"Showing {self.table.filter.describe()}: {self.table.view_count} case(s)"),
            timeout=2,
        )

    def action_pick_intent(self) -> None:
        from nlu_tui.ui.screens.dialogs import ChoiceDialog

        if self.data is None:
            return
        from nlu_tui.scoring.intent_report import shown_label

        choices = [("", "All intents")] + [
            (label, shown_label(label)) for label in self.data.report.labels
        ]

        def chosen(value: str | None) -> None:
            if value is not None:
                flt = self.table.filter
                self.set_filter(ResultFilter(flt.types, value, flt.text, flt.flaky))

        self.app.push_screen(ChoiceDialog("Show the cases of intent", choices), chosen)

    def action_pick_sort(self) -> None:
        from nlu_tui.ui.screens.dialogs import ChoiceDialog

        choices = [(key, label) for key, label in self.table.columns]

        def chosen(value: str | None) -> None:
            if value:
                current = self.table.sort
                self.table.sort_by(value, current == (value, False))

        current = self.table.sort
        self.app.push_screen(
            ChoiceDialog("Sort results by", choices, current[0] if current else None), chosen
        )

    def action_edit_case(self) -> None:
        from nlu_tui.ui.messages import EditCaseRequested

        case_id = self.table.current_case_id()
        if case_id is not None:
            self.post_message(EditCaseRequested(case_id))

    def action_note(self) -> None:
        from nlu_tui.ui.widgets.run_dialogs import edit_note

        if self.run_id is not None:
            edit_note(self, self.run_id, on_saved=self._note_saved)

    def _note_saved(self, run_id: str) -> None:
        if self.data is not None and self.data.record.id == run_id:
            self.data.record = store_for(self.app).get_run(run_id)
            self.query_one(RunHeader).show_summary(self.data)

    def action_cancel_run(self) -> None:
        from nlu_tui.ui.widgets.run_dialogs import confirm_cancel

        if self.session is not None and not self.session.finished:
            confirm_cancel(self, self.session)

    @work(
        thread=True,
        exclusive=True,
        group="results-export",
        exit_on_error=False,
        name="results-export",
        description="Exporting the results",
    )
    def _export(self, fmt: str, path: Path, data: RunData, switches: dict[str, bool]) -> None:
        """Write off the UI thread (the Rasa folder's plots take seconds on many intents)."""
        from nlu_tui.reports.export import write_export

        try:
            written = write_export(fmt, path, data, rasa_switches=switches)
        except Exception as exc:
            self.app.call_from_thread(
                self.notify, escape(str(exc)), title="Export failed", severity="error"
            )
            return
        self.app.call_from_thread(self.notify, escape(f"Wrote {written}"), title=f"Exported {fmt}")

    def action_export(self) -> None:
        from nlu_tui.reports.export import export_formats
        from nlu_tui.ui.screens.dialogs import ExportDialog

        data = self.data
        if data is None:
            self.notify("Open a finished run first.", severity="warning")
            return
        formats = export_formats()
        if not formats:
            self.notify("No report formats are available.", severity="error")
            return

        def chosen(value: tuple[str, Path, dict[str, bool]] | None) -> None:
            if value is not None:
                fmt, path, switches = value
                # the Rasa folder's plots take seconds: say at once that it is under way
                self.notify(escape(f"Writing {path}…"), title=f"Exporting {fmt}", timeout=3)
                self._export(fmt, path, data, switches)

        default_dir = export_dir(self.app, data.record.suite_path)
        self.app.push_screen(ExportDialog(formats, default_dir, f"run-{data.record.id}"), chosen)

    def action_run_details(self) -> None:
        """The open run's full header, with the engine's full spec (the header shows at most
        three lines and the engine by its short name)."""
        tooltip = self.query_one(RunHeader).tooltip
        if tooltip is not None:
            text = tooltip.plain if hasattr(tooltip, "plain") else str(tooltip)
            self.notify(escape(text), title="Run details", timeout=20)

    def action_slices(self) -> None:
        """The run's figures per tag, intent kind and parent intent (as ``nlu-tui show``)."""
        from nlu_tui.scoring.slices import slice_lines, slices
        from nlu_tui.ui.screens.slices_dialog import SlicesScreen

        if self.data is None:
            return
        lines = slice_lines(slices(self.data.rows))
        self.app.push_screen(SlicesScreen(self.data.record.id, lines))

    def palette_commands(self) -> list[PaletteCommand]:
        if self.data is None and self.session is None:
            return []
        commands = [
            PaletteCommand(
                "results: Show all",
                lambda: self.set_filter(ResultFilter()),
                "Clear the results filters",
            ),
            PaletteCommand(
                "results: Show FP only",
                lambda: self.set_filter(ResultFilter(frozenset({ResultType.FP.value}))),
                "Only false positives",
            ),
            PaletteCommand(
                "results: Show FN only",
                lambda: self.set_filter(ResultFilter(frozenset({ResultType.FN.value}))),
                "Only false negatives",
            ),
            PaletteCommand(
                "results: Filter by intent…",
                self.action_pick_intent,
                "Only the cases of one intent",
            ),
            PaletteCommand("results: Sort…", self.action_pick_sort, "Sort the results table"),
            PaletteCommand(
                "results: Edit this case",
                self.action_edit_case,
                "Open the selected case in the editor",
            ),
            PaletteCommand("results: Note…", self.action_note, "Add or edit the run's note"),
            PaletteCommand(
                "results: Run details",
                self.action_run_details,
                "The run's full header, with the engine's full spec",
            ),
        ]
        if self.data is not None:
            commands.append(
                PaletteCommand(
                    "results: Export…", self.action_export, "Write the run in any report format"
                )
            )
            commands.append(
                PaletteCommand(
                    "results: Slices",
                    self.action_slices,
                    "Precision, recall and F1 per tag, intent kind and parent intent",
                )
            )
        for tab_id, title, about in RESULT_TABS:
            commands.append(
                PaletteCommand(
                    f"results: Open {title}",
                    partial(self.show_tab, tab_id),
                    about,
                )
            )
        if self.data is not None and self.data.stability is not None:
            commands.append(
                PaletteCommand(
                    "results: Show flaky only",
                    lambda: self.set_filter(ResultFilter(flaky=True)),
                    "Only the cases whose repeated answers disagree",
                )
            )
        if self.session is not None and not self.session.finished:
            commands.append(
                PaletteCommand(
                    "run: Cancel", self.action_cancel_run, "Cancel the run shown in Results"
                )
            )
        return commands
