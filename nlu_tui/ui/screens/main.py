"""The main screen: suites on the left, tabs on the right (Cases, Runs, Results).

The Runs and Results panes belong to part 2 of the workbench; they are imported lazily from the
modules named in :data:`EXTRA_PANES` and replaced by a short notice when absent, so either half
of the UI can land first.
"""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widget import AwaitMount, Widget
from textual.widgets import TabbedContent, TabPane
from textual.worker import get_current_worker

from nlu_tui import ui_state
from nlu_tui.model import Suite
from nlu_tui.ui.commands import PaletteCommand
from nlu_tui.ui.focus_guard import FocusGuard
from nlu_tui.ui.messages import (
    EditCaseRequested,
    SuiteChanged,
    SuiteHighlighted,
    SuiteLoaded,
    WorkspaceChanged,
)
from nlu_tui.ui.state import workbench
from nlu_tui.ui.widgets.cases_rows import PartialRows
from nlu_tui.ui.widgets.cases_view import CasesView
from nlu_tui.ui.widgets.footer import BudgetFooter
from nlu_tui.ui.widgets.suites_panel import SuitesPanel
from nlu_tui.ui.workers import ReportsFailedWorkers, describe

if TYPE_CHECKING:
    from textual.dom import DOMNode
from nlu_tui.views.cases import RowCache
from nlu_tui.workspace import is_conversation_file

EXTRA_PANES: list[tuple[str, str, str]] = [
    ("Runs", "tab-runs", "nlu_tui.ui.widgets.runs_pane:RunsPane"),
    ("Results", "tab-results", "nlu_tui.ui.widgets.results_pane:ResultsPane"),
]
"""(tab title, pane id, "module:WidgetClass") for panes supplied by other modules."""

EXTRA_PANES_AT_LATEST = 1.0
"""Seconds after mounting by which the Runs and Results panes are mounted even when no suite
has been shown (an empty workspace); normally they follow the first full screen."""
FIRST_SCREEN_WAIT_AT_MOST = 5.0
"""Seconds after start-up's deferred work was due that it waits at most for a first full
screen still on its way (:func:`after_first_screen`)."""
FIRST_SCREEN_POLL = 0.05
"""How often deferred work that is due looks again whether the first full screen is up."""
PREVIEW_WAIT = 1.0
"""Longest a suite-loading worker waits for the first rows' preview to be painted before it
builds the Arrow table (the build would otherwise compete with the paint for the GIL)."""

PARTIAL_INTERVAL = 0.25
"""Seconds between two updates of a still-loading suite's table (a swap of 100,000 rows costs
tens of milliseconds on the UI thread, so at most about 4 a second)."""


def _extra_pane(target: str) -> Widget:
    module_name, _, class_name = target.partition(":")
    widget_class = getattr(importlib.import_module(module_name), class_name)
    widget: Widget = widget_class()
    return widget


def after_first_screen(node: DOMNode, delay: float, callback: Callable[[], object]) -> None:
    """Call ``callback`` ``delay`` seconds from now, or, if the first full screen is still on
    its way then, once it is up (at most :data:`FIRST_SCREEN_WAIT_AT_MOST` seconds later).

    Start-up leaves work for after the first screen on timers (the Runs and Results panes, the
    dialogs built ahead, the training files' intents, the collector's return). On a loaded or
    slow machine the first cases came after those timers, which then competed with them for
    the interpreter: the first screen waited for work nobody looks at yet."""
    app = node.app
    waited = 0.0

    def due() -> None:
        nonlocal waited
        main = next((s for s in app.screen_stack if isinstance(s, MainScreen)), None)
        pending = main is not None and main.first_screen_pending()
        if pending and waited < FIRST_SCREEN_WAIT_AT_MOST and app.is_running:
            waited += FIRST_SCREEN_POLL
            app.set_timer(FIRST_SCREEN_POLL, due)
            return
        callback()

    app.set_timer(delay, due)


class MainScreen(FocusGuard, ReportsFailedWorkers, Screen[None]):
    first_screen_up = False
    """Whether the first full screen has been shown (:class:`CasesView.FirstShown`)."""
    _restore_tab: str | None = None
    """The tab to show once the extra panes are in (remembered from the last session)."""
    _restoring = True
    """True until then: the tab shown first at start is not the user's choice to remember."""
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
            tooltip="Show the Cases tab and move the focus to the cases table.",
        ),
        Binding(
            "f4,ctrl+t",
            "view_runs",
            "Runs",
            id="main.view-runs",
            tooltip="Show the Runs tab (run history, start a run with r/F5).",
        ),
        Binding(
            "f6,ctrl+g",
            "view_results",
            "Results",
            id="main.view-results",
            tooltip="Show the Results tab (the open run's results).",
        ),
        Binding(
            "f5,ctrl+r",
            "run_suite",
            "Run Test Suite",
            key_display="F5",
            id="main.run-suite",
            tooltip="Run the selected suite (asks for the engine first), from any tab.",
        ),
        Binding(
            "ctrl+b",
            "toggle_suites",
            "Hide/show suites",
            show=False,
            id="main.toggle-suites",
            tooltip="Collapse or expand the suites panel (remembered).",
        ),
        Binding(
            "q",
            "app.quit",
            "Quit",
            show=False,
            id="main.quit",
            tooltip="Quit nlu-tui (asks first if an edit could not be saved).",
        ),
    ]

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            yield SuitesPanel()
            with TabbedContent(id="main-tabs", initial="tab-cases"):
                with TabPane("Cases", id="tab-cases"):
                    yield CasesView()
                for title, pane_id, _target in EXTRA_PANES:
                    yield TabPane(title, id=pane_id)
        yield BudgetFooter()

    def on_mount(self) -> None:
        remembered = self._remembered()
        tab = remembered.get("tab")
        self._restore_tab = str(tab) if tab in ("tab-runs", "tab-results") else None
        self._restoring = True  # the first tab shown at start is not a choice to remember
        panel = self.query_one(SuitesPanel)
        if self._remembers and ui_state.panel_collapsed():
            panel.add_class("-collapsed")
        suite_name = remembered.get("suite")
        root = workbench(self).workspace.root
        panel.reload(select=root / suite_name if isinstance(suite_name, str) else None)
        # what the suites panel left for after the first screen, at the latest by then
        after_first_screen(self, EXTRA_PANES_AT_LATEST, panel.first_screen_shown)
        if self._restore_tab is not None:  # reopened on Runs or Results: they are the screen
            self.call_after_refresh(self.ensure_extra_panes)
        else:
            # the run and results panes (their imports, styles and first queries) come after
            # the first full screen: CasesView.FirstShown, a key that needs them, or this timer
            after_first_screen(self, EXTRA_PANES_AT_LATEST, self.ensure_extra_panes)

    def first_screen_pending(self) -> bool:
        """Whether the first full screen is still on its way: the suites are being listed, or
        listed and the cases of the one shown are not on screen yet. Not once shown, nor for
        a workspace without suites (nothing more is coming), nor over Runs or Results."""
        if self.first_screen_up or self._restore_tab is not None:
            return False
        try:
            panel = self.query_one(SuitesPanel)
        except NoMatches:  # closing
            return False
        return not panel.listed or bool(panel.infos)

    @property
    def _root(self) -> Path:
        root = workbench(self).workspace.root
        return root

    @property
    def _remembers(self) -> bool:
        """Whether this app reads and writes the user's files (tests and snapshots turn it off
        with ``user_themes=False``)."""
        return workbench(self).user_themes

    def _remembered(self) -> dict[str, object]:
        if not self._remembers:
            return {}
        return ui_state.workspace_state(self._root)

    @on(CasesView.FirstShown)
    def _first_screen_shown(self) -> None:
        self.first_screen_up = True
        self.call_after_refresh(self.ensure_extra_panes)
        self.call_after_refresh(self.query_one(SuitesPanel).first_screen_shown)

    def ensure_extra_panes(self) -> list[AwaitMount]:
        """Mount the Runs and Results panes, once: after the first full screen, or earlier when
        a key needs them (later calls do nothing). A caller that uses a pane at once awaits the
        returned mounts (a pane just mounted has not composed its widgets yet)."""
        tabs = self.query_one("#main-tabs", TabbedContent)
        mounts: list[AwaitMount] = []
        for _title, pane_id, target in EXTRA_PANES:
            pane = tabs.get_pane(pane_id)
            if not pane.children:
                mounts.append(pane.mount(_extra_pane(target)))
        if mounts:
            self.call_after_refresh(self._restore)
        return mounts

    def _restore(self) -> None:
        self._restoring = False
        if self._restore_tab is not None:
            self.show_tab(self._restore_tab)

    @on(TabbedContent.TabActivated, "#main-tabs")
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        pane_id = event.pane.id
        if self._remembers and pane_id and not self._restoring:
            ui_state.remember_workspace(self._root, tab=pane_id)

    def action_focus_suites(self) -> None:
        panel = self.query_one(SuitesPanel)
        if panel.has_class("-collapsed"):
            self._set_collapsed(False)
        panel.focus_list()

    def action_toggle_suites(self) -> None:
        panel = self.query_one(SuitesPanel)
        self._set_collapsed(not panel.has_class("-collapsed"))

    def _set_collapsed(self, collapsed: bool) -> None:
        panel = self.query_one(SuitesPanel)
        inside = self.focused is not None and panel in self.focused.ancestors_with_self
        panel.set_class(collapsed, "-collapsed")
        if collapsed and inside:
            self.show_tab(self.query_one("#main-tabs", TabbedContent).active or "tab-cases")
        if self._remembers:
            ui_state.remember_panel_collapsed(collapsed)

    async def action_run_suite(self) -> None:
        """Run the selected suite from anywhere: the Runs tab opens and asks for the engine."""
        panel = self.query_one(SuitesPanel)
        selected = panel.selected_path
        suite = workbench(self).suite
        if selected is None:
            self.notify("Select a suite first.", severity="warning")
            return
        info = panel.infos.get(str(selected))
        if info is not None and info.kind == "e2e":  # runs in its own screen, same key
            panel.open_conversation(selected, ask_engine=True)
            return
        if suite is None or suite.path is None or Path(suite.path) != selected:
            self.notify("The suite is still loading; try again in a moment.", severity="warning")
            return
        for mounting in self.ensure_extra_panes():  # F5 right after start-up: wait for the pane
            await mounting
        pane = self.query_one("#main-tabs", TabbedContent).get_pane("tab-runs")
        runs = pane.children[0] if pane.children else None
        start = getattr(runs, "action_start_run", None)
        if start is None:
            self.notify("Runs are not available.", severity="error")
            return
        self.show_tab("tab-runs")
        start()

    def action_focus_cases(self) -> None:
        self.query_one("#main-tabs", TabbedContent).active = "tab-cases"
        self.query_one(CasesView).focus_table()

    def action_view_runs(self) -> None:
        self.show_tab("tab-runs")

    def action_view_results(self) -> None:
        self.show_tab("tab-results")

    def show_tab(self, pane_id: str) -> None:
        """Switch the right-hand tabs and move the focus into the new pane, so its keys
        (``r`` to run, ``/`` to search, ...) work at once."""
        if pane_id == "tab-cases":
            self.action_focus_cases()
            return
        self.ensure_extra_panes()
        tabs = self.query_one("#main-tabs", TabbedContent)
        tabs.active = pane_id
        pane = tabs.get_pane(pane_id)
        if self.focused is None or pane not in self.focused.ancestors_with_self:
            self.call_after_refresh(self._focus_into, pane)

    def _focus_into(self, pane: Widget) -> None:
        """Focus the pane's main table (its DataTable), else its first focusable widget."""
        # only what is shown: a table in another tab of the pane would switch to that tab
        candidates = [w for w in pane.query("*") if w.focusable and w.visible and _shown(w)]
        # by class name: the fastdatatable and Textual's DataTable (and their subclasses)
        tables = [w for w in candidates if any(c.__name__ == "DataTable" for c in type(w).__mro__)]
        found = tables or candidates
        if found:
            found[0].focus()

    def palette_commands(self) -> list[PaletteCommand]:
        return [
            PaletteCommand("view: Cases", self.action_focus_cases, "Show the Cases tab (F3)"),
            PaletteCommand("view: Runs", self.action_view_runs, "Show the Runs tab (F4)"),
            PaletteCommand("view: Results", self.action_view_results, "Show the Results tab (F6)"),
            PaletteCommand("view: Suites", self.action_focus_suites, "Focus the suites (F2)"),
            PaletteCommand(
                "view: Hide/show suites panel",
                self.action_toggle_suites,
                "Collapse or expand the suites panel (Ctrl+B)",
            ),
            PaletteCommand(
                "run: Run Test Suite",
                self.action_run_suite,
                "Run the selected suite (F5 or Ctrl+R, from any tab)",
            ),
            PaletteCommand(
                "run: Evaluate training data",
                self.action_evaluate,
                "Train and test the selected *.nlu.yml: split, cross-validation, comparison",
            ),
            PaletteCommand(
                "dut: Latest DUT run results",
                self.action_dut_results,
                "Per-command metrics and failed steps of the newest `test du` run",
            ),
            PaletteCommand(
                "simulate: Simulated conversations",
                self.action_simulate,
                "Simulate runs: pass rates per scenario, transcripts; s starts one, live",
            ),
            PaletteCommand(
                "dut: Edit DUT test cases",
                self.action_dut_editor,
                "The workspace's DUT files: steps and expected commands as rows",
            ),
        ]

    def action_evaluate(self) -> None:
        """Open the Evaluate view for the selected training file (``*.nlu.yml``)."""
        from nlu_tui.engines.profiles import sibling_training_data
        from nlu_tui.ui.screens.evaluate import EvaluateScreen

        selected = self.query_one(SuitesPanel).selected_path
        if selected is not None and not selected.name.endswith((".nlu.yml", ".nlu.yaml")):
            # a suite: the training data it is run against (x.nlu.yml beside x.suite.yaml)
            selected = sibling_training_data(selected)
        if selected is None:
            self.notify(
                "Select a training file (*.nlu.yml), or a suite with x.nlu.yml beside it, first.",
                severity="warning",
            )
            return
        self.app.push_screen(EvaluateScreen(selected, self._root))

    def action_dut_editor(self) -> None:
        from nlu_tui.ui.screens.dut_editor import DutEditorScreen, dut_files

        files = dut_files(self._root)
        if not files:
            self.app.notify(
                "No DUT file (test_cases: with commands:) in the workspace or its tests/.",
                severity="warning",
            )
            return
        self.app.push_screen(DutEditorScreen(files))

    def action_simulate(self) -> None:
        from nlu_tui.ui.screens.simulate_results import open_simulate

        open_simulate(self.app, self._root)

    def action_dut_results(self) -> None:
        from nlu_tui.ui.screens.dut_results import open_latest_dut_run

        open_latest_dut_run(self.app)

    @on(SuitesPanel.CasesWanted)
    def _cases_wanted(self) -> None:
        self.action_focus_cases()

    @on(SuiteHighlighted)
    def _open_suite(self, message: SuiteHighlighted) -> None:
        if self._remembers:
            ui_state.remember_workspace(self._root, suite=message.path.name)
        view = self.query_one(CasesView)
        if is_conversation_file(message.path):
            workbench(self).suite = None
            view.show_error(
                f"{message.path.name}: a conversation suite (E2E test cases). Enter in the "
                "suites list opens it (its test cases, steps and last run); F5 runs it."
            )
            return
        view.show_loading(message.path)
        self._load_suite(message.path, view)

    @work(
        thread=True,
        exclusive=True,
        group="suite-load",
        exit_on_error=False,
        name="suite-load",
        description="Loading a suite",
    )
    def _load_suite(self, path: Path, view: CasesView) -> None:
        """Read the suite a chunk at a time: the cases table shows the first cases at once and
        grows (at most about 4 times a second); only the complete suite becomes ``app.suite``."""
        describe(f"Loading suite {path.name}")
        worker = get_current_worker()
        rows = PartialRows()
        suite: Suite | None = None
        shown_at: float | None = None
        try:
            chunks = workbench(self).workspace.load_chunks(path, chunk_size=view.chunk_size)
            for chunk in chunks:  # to the end, even after the complete suite is in
                if worker.is_cancelled:
                    return
                if chunk.suite is not None:
                    suite = chunk.suite
                    continue
                if view.wants_preview:  # the first rows on screen before Arrow is imported
                    painted = threading.Event()
                    total = len(chunk.cases) + (1 if chunk.fraction < 1 else 0)
                    self.app.call_from_thread(
                        view.show_preview, path, chunk.cases, total, painted.set
                    )
                    painted.wait(PREVIEW_WAIT)
                rows.add(chunk.cases)
                now = time.monotonic()
                if shown_at is None or now - shown_at >= PARTIAL_INTERVAL:
                    shown_at = now
                    cases, positions, backend = rows.view()
                    self.app.call_from_thread(
                        view.show_partial, path, cases, positions, backend, chunk.fraction
                    )
        except Exception as exc:
            if not worker.is_cancelled:
                self.app.call_from_thread(self._load_failed, path, exc)
            return
        if suite is not None and not worker.is_cancelled:
            self.app.call_from_thread(self._set_suite, suite, rows.row_cache)

    def _load_failed(self, path: Path, exc: Exception) -> None:
        self.query_one(CasesView).show_error(f"{path.name}: {exc}")
        self.notify(escape(str(exc)), title="Cannot open suite", severity="error")

    def _set_suite(self, suite: Suite, row_cache: RowCache | None = None) -> None:
        if row_cache:
            self.query_one(CasesView).reuse_rows(row_cache)
        workbench(self).suite = suite
        self.query_one(SuitesPanel).refresh_suite(suite)  # exact counts once it is read
        self.post_message(SuiteLoaded(suite))

    @on(SuiteChanged)
    def _suite_changed(self, message: SuiteChanged) -> None:
        self.query_one(SuitesPanel).refresh_suite(message.suite)

    @on(WorkspaceChanged)
    def _workspace_changed(self, message: WorkspaceChanged) -> None:
        self.query_one(SuitesPanel).reload(select=message.select)

    @on(EditCaseRequested)
    def _edit_case(self, message: EditCaseRequested) -> None:
        self.query_one("#main-tabs", TabbedContent).active = "tab-cases"
        cases = self.query_one(CasesView)
        if message.case_id is None:
            cases.action_add()
        else:
            cases.edit_case(message.case_id)


def _shown(widget: Widget) -> bool:
    """Whether ``widget`` is on screen: displayed, and in the active pane of every tab set
    around it (an inactive pane may not be hidden yet right after start-up)."""
    for node in widget.ancestors_with_self:
        if isinstance(node, Widget) and not node.display:
            return False
        if isinstance(node, TabPane):
            tabs = next((a for a in node.ancestors if isinstance(a, TabbedContent)), None)
            if tabs is not None and tabs.active != node.id:
                return False
    return True
