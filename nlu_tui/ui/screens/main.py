"""The main screen: suites on the left, tabs on the right (Cases, Runs, Results).

The Runs and Results panes belong to part 2 of the workbench; they are imported lazily from the
modules named in :data:`EXTRA_PANES` and replaced by a short notice when absent, so either half
of the UI can land first.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Static, TabbedContent, TabPane
from textual.worker import get_current_worker

from nlu_tui.model import Suite
from nlu_tui.ui.messages import (
    EditCaseRequested,
    SuiteChanged,
    SuiteHighlighted,
    SuiteLoaded,
    WorkspaceChanged,
)
from nlu_tui.ui.widgets.cases_view import CasesView
from nlu_tui.ui.widgets.suites_panel import SuitesPanel

EXTRA_PANES: list[tuple[str, str, str]] = [
    ("Runs", "tab-runs", "nlu_tui.ui.screens.run_pane:RunsPane"),
    ("Results", "tab-results", "nlu_tui.ui.widgets.results_pane:ResultsPane"),
]
"""(tab title, pane id, "module:WidgetClass") for panes supplied by other modules."""


def _extra_pane(target: str) -> Widget:
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
        widget_class = getattr(module, class_name)
    except (ImportError, AttributeError):
        return Static("Not available yet.", classes="placeholder")
    widget: Widget = widget_class()
    return widget


class MainScreen(Screen[None]):
    BINDINGS = [
        Binding(
            "f2,ctrl+o",
            "focus_suites",
            "Suites",
            id="main.focus-suites",
            tooltip="Move the focus to the suites panel.",
        ),
        Binding(
            "f3,ctrl+e",
            "focus_cases",
            "Cases",
            id="main.focus-cases",
            tooltip="Move the focus to the cases table.",
        ),
        Binding(
            "q",
            "app.quit",
            "Quit",
            show=False,
            id="main.quit",
            tooltip="Quit nlu-tui (edits are already saved).",
        ),
    ]

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            yield SuitesPanel()
            with TabbedContent(id="main-tabs", initial="tab-cases"):
                with TabPane("Cases", id="tab-cases"):
                    yield CasesView()
                for title, pane_id, target in EXTRA_PANES:
                    with TabPane(title, id=pane_id):
                        yield _extra_pane(target)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(SuitesPanel).reload()

    def action_focus_suites(self) -> None:
        self.query_one(SuitesPanel).focus_list()

    def action_focus_cases(self) -> None:
        self.app.show_tab("tab-cases")  # type: ignore[attr-defined]
        self.query_one(CasesView).focus_table()

    @on(SuiteHighlighted)
    def _open_suite(self, message: SuiteHighlighted) -> None:
        self.query_one(CasesView).show_loading(message.path)
        self._load_suite(message.path)

    @work(thread=True, exclusive=True, group="suite-load", exit_on_error=False)
    def _load_suite(self, path: Path) -> None:
        worker = get_current_worker()
        try:
            suite = self.app.workspace.load(path)  # type: ignore[attr-defined]
        except Exception as exc:
            if not worker.is_cancelled:
                self.app.call_from_thread(self._load_failed, path, exc)
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._set_suite, suite)

    def _load_failed(self, path: Path, exc: Exception) -> None:
        self.query_one(CasesView).show_error(f"{path.name}: {exc}")
        self.notify(escape(str(exc)), title="Cannot open suite", severity="error")

    def _set_suite(self, suite: Suite) -> None:
        self.app.suite = suite  # type: ignore[attr-defined]
        self.post_message(SuiteLoaded(suite))

    @on(SuiteChanged)
    def _suite_changed(self, message: SuiteChanged) -> None:
        self.query_one(SuitesPanel).refresh_suite(message.suite)

    @on(WorkspaceChanged)
    def _workspace_changed(self, message: WorkspaceChanged) -> None:
        self.query_one(SuitesPanel).reload(select=message.select)

    @on(EditCaseRequested)
    def _edit_case(self, message: EditCaseRequested) -> None:
        self.app.show_tab("tab-cases")  # type: ignore[attr-defined]
        cases = self.query_one(CasesView)
        if message.case_id is None:
            cases.action_add()
        else:
            cases.edit_case(message.case_id)
