"""The Runs tab: the open suite's runs, the live run's progress, and what to do with a run.

:class:`RunsPane` puts together the live progress
(:class:`~nlu_tui.ui.widgets.run_progress.RunProgressPanel`), the history table
(a ``DataTable`` filled by :class:`~nlu_tui.ui.widgets.run_history.RunHistory`) and the reason line under it; its
base :class:`~nlu_tui.ui.widgets.run_launch.RunLauncher` starts and follows runs, which post
``RunUpdated``/``RunEnded``. Notes and cancelling are shared with the Results pane
(``run_dialogs``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.timer import Timer
from textual.widgets import DataTable, Static

from nlu_tui.model import RunStatus, Suite
from nlu_tui.runsessions import active_sessions, store_for
from nlu_tui.textsafe import inert
from nlu_tui.ui.commands import PaletteCommand
from nlu_tui.ui.navigation import show_main_tab
from nlu_tui.ui.state import hosting_workbench
from nlu_tui.ui.widgets.run_dialogs import confirm_cancel, edit_note
from nlu_tui.ui.widgets.run_history import (
    HISTORY_COLUMNS,
    HistoryRow,
    RunHistory,
    history_row,
    reason_text,
)
from nlu_tui.ui.widgets.run_launch import RunLauncher
from nlu_tui.ui.widgets.run_progress import RunProgressPanel
from nlu_tui.ui.widgets.store_watch import runs_changed

if TYPE_CHECKING:
    from nlu_tui.rundiff import ComputedDiff

__all__ = ["HISTORY_COLUMNS", "RunProgressPanel", "RunsPane", "history_row"]


RUN_MODULES = (
    "nlu_tui.runservice",
    "nlu_tui.run_kinds",
    "nlu_tui.runner.run",
    "nlu_tui.runner.kernel",
    "nlu_tui.runner.kore_batch",
    "nlu_tui.runner.client",
    "nlu_tui.engines.http1",
    "nlu_tui.engines.profiles",
    "nlu_tui.engines.profile_keys",
    "nlu_tui.engines.embedded.engine",
    "nlu_tui.engines.kore",
    "nlu_tui.plugins",
    "nlu_tui.reruns",
    "nlu_tui.repeats",
    "nlu_tui.scoring",
)
"""What opening a run imports on its way (the run service imports most of its parts when
first used): imported ahead by :meth:`RunsPane._prepare_run_service`, and checked against
what a resume really imports by tests/test_ui_resume_fast.py."""

DIFF_AHEAD_DELAY_S = 0.15
"""How long the runs table's cursor rests on a run before its diff is computed ahead."""

DIFF_AHEAD_MAX_CASES = 20_000
"""Runs bigger than this are diffed on ``D`` only (a diff computed ahead on every move of the
cursor would keep the interpreter busy while the user browses)."""

RUN_KEYS = ("note", "open_results", "mark", "diff", "resume", "delete_run", "sort")
"""Keys that act on a run of the history: shown only when there is one."""


class RunsPane(RunLauncher):
    """The open suite's runs: a live progress panel and the sortable history."""

    DEFAULT_CSS = """
    RunsPane { height: 1fr; }
    RunsPane #runs-title { height: auto; padding: 0 1; text-style: bold; }
    RunsPane #runs-table { height: 1fr; }
    RunsPane #runs-reason { height: auto; padding: 0 1; }
    """

    BINDINGS = [
        Binding(
            "r",
            "rerun_failed",
            "Rerun failed",
            show=False,
            id="runs.rerun-failed",
            tooltip="Send the run's failed cases again as a child run (no run yet: run the suite).",
        ),
        Binding(
            "escape,ctrl+x",
            "cancel_run",
            "Cancel",
            id="runs.cancel",
            tooltip="Cancel the open suite's running run (asks first).",
        ),
        Binding(
            "n",
            "note",
            "Note",
            id="runs.note",
            tooltip="Add or edit the note of the selected (or running) run.",
        ),
        Binding(
            "enter,o",
            "open_results",
            "Results",
            id="runs.open",
            tooltip="Show the selected run's results.",
        ),
        Binding(
            "space,m",
            "mark",
            "Mark",
            id="runs.mark",
            tooltip="Mark the selected run for a diff (mark two).",
        ),
        Binding(
            "D,equals_sign",
            "diff",
            "Diff",
            id="runs.diff",
            tooltip="Diff the two marked runs (or the selected one with the one before).",
        ),
        Binding(
            "c",
            "compare_engines",
            "Engines",
            show=False,
            id="runs.compare",
            tooltip="Engines side by side: the comparison the selected run belongs to "
            "(run --engine a --engine b), or the two marked runs.",
        ),
        Binding(
            "u",
            "resume",
            "Resume",
            id="runs.resume",
            tooltip="Resume the selected canceled or interrupted run.",
        ),
        Binding(
            "delete,ctrl+d",
            "delete_run",
            "Delete",
            id="runs.delete",
            tooltip="Delete the selected run (asks first).",
        ),
        Binding(
            "s",
            "sort",
            "Sort",
            show=False,
            id="runs.sort",
            tooltip="Sort the history by a column (again to reverse).",
        ),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.history: list[HistoryRow] = []
        self.marked: list[str] = []
        self.sort_key: tuple[str, bool] = ("started", True)
        self._entity_cache: dict[str, float | None] = {}
        self._diff_ahead: ComputedDiff | None = None
        self._diff_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static("Open a suite to see its runs.", id="runs-title")
        yield RunProgressPanel(id="run-progress")
        yield DataTable(id="runs-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="runs-reason")

    def on_mount(self) -> None:
        self.history_table.add_columns()
        # another writer (a CLI, CI, a colleague) added or ended a run: read the history again
        runs_changed(self).subscribe(self, lambda _counter: self.reload())
        host = hosting_workbench(self)
        if host is not None:
            if host.suite is not None:
                self.set_suite(host.suite)
            self.watch(host, "suite", self.set_suite, init=False)

    def on_show(self) -> None:
        if not self._run_service_ready:
            self._run_service_ready = True
            self._prepare_run_service()
        self._diff_soon()

    _run_service_ready = False
    """The run service and the HTTP stack were imported ahead (see :meth:`_prepare_run_service`)."""

    @work(
        thread=True,
        exclusive=True,
        group="runs-prepare",
        exit_on_error=False,
        name="runs-prepare",
        description="Preparing the run service",
    )
    def _prepare_run_service(self) -> None:
        """Import what starting or resuming a run needs, while the user reads the runs.

        Imported on ``u`` (or ``r``, F5), the run service took a tenth of a second in the run's
        thread, and the runner's HTTP client imported aiohttp on the UI thread, after the run
        had been opened: the run showed most of a second after the key (issue 23, fast keys).
        The HTTP stack is loaded as the command line loads it, in its own thread."""
        import importlib

        from nlu_tui.runner.client import preload_http

        preload_http()
        for name in RUN_MODULES:
            importlib.import_module(name)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Cancel is offered (and shown in the footer) only while this suite has a run going."""
        if action == "cancel_run":
            return self.current_session() is not None
        # no run to act on: not in the footer
        return action not in RUN_KEYS or bool(self.history)

    # --- state --------------------------------------------------------------------------

    def set_suite(self, suite: Suite | None) -> None:
        self.suite = suite
        self.marked = []
        self._history_read = False
        title = self.query_one("#runs-title", Static)
        if suite is None:
            title.update("Open a suite to see its runs.")
        else:
            title.update(
                Text(
                    inert(f"Runs of {suite.name}", newlines=False)
                    + "   F5: run · enter: results · space: mark · D: diff · r: rerun failed"
                )
            )
        self._show_progress()
        self.reload()

    def _show_progress(self) -> None:
        self.query_one(RunProgressPanel).show(self.current_session())
        self.refresh_bindings()

    # --- history ------------------------------------------------------------------------

    def reload(self) -> None:
        """Re-read the suite's runs from the store (in a thread: the store may be busy)."""
        if self.suite is None:
            self.history = []
            self._fill()
            return
        self._load_history(self.suite)

    @work(
        thread=True,
        exclusive=True,
        group="runs-history",
        exit_on_error=False,
        name="runs-history",
        description="Reading the suite's runs",
    )
    def _load_history(self, suite: Suite) -> None:
        store = store_for(self.app)
        key = suite.path if suite.path is not None else suite.name
        try:
            records = store.list_runs(key)
            if suite.path is not None:
                seen = {r.id for r in records}
                records += [
                    r
                    for r in store.list_runs(suite.name)
                    if r.id not in seen and r.suite_path is None
                ]
        except Exception as exc:
            self.app.call_from_thread(
                self.notify, escape(str(exc)), title="Cannot read runs", severity="error"
            )
            return
        rows = [history_row(r, self._entity_cache.get(r.id)) for r in records]
        self.app.call_from_thread(self._set_history, rows)
        missing = [
            r
            for r in records
            if r.id not in self._entity_cache and r.status is not RunStatus.RUNNING
        ]
        if missing:
            self.app.call_from_thread(self._load_entity_rates, missing)

    @work(
        thread=True,
        exclusive=True,
        group="runs-entity",
        exit_on_error=False,
        name="runs-entity",
        description="Reading the runs' entity rates",
    )
    def _load_entity_rates(self, records: list[Any]) -> None:
        """Entity success needs the results; summarise each finished run once, in the background."""
        from nlu_tui.scoring import summarize

        store = store_for(self.app)
        for record in records:
            try:
                summary = summarize(r for _, _, r in store.load_results(record.id))
            except Exception:
                continue
            self._entity_cache[record.id] = summary.entity_success
        self.app.call_from_thread(self._apply_entity_rates)

    def _apply_entity_rates(self) -> None:
        for row in self.history:
            if row.record.id in self._entity_cache:
                row.entity = self._entity_cache[row.record.id]
        self._fill()

    _history_read = False
    """The open suite's history has been read (an empty one means: never run)."""

    def _set_history(self, rows: list[HistoryRow]) -> None:
        self._history_read = True
        self.history = rows
        ids = {r.record.id for r in rows}
        self.marked = [m for m in self.marked if m in ids]
        self._fill()

    def _fill(self) -> None:
        self.history_table.show(self.history, self.sort_key, self.marked, self._entity_cache)
        self._show_reason()
        self._diff_soon()

    def selected_run_id(self) -> str | None:
        return self.history_table.selected_run_id()

    @property
    def history_table(self) -> RunHistory:
        return RunHistory(self.query_one("#runs-table", DataTable))

    def selected_record(self) -> Any:
        run_id = self.selected_run_id()
        return next((r.record for r in self.history if r.record.id == run_id), None)

    @on(DataTable.RowHighlighted, "#runs-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_reason()
        self._diff_soon()

    def _show_reason(self) -> None:
        """Under the table: the selected run's status reason and note; with no run yet, how
        to start one."""
        reason = self.query_one("#runs-reason", Static)
        if self.suite is not None and self._history_read and not self.history:
            reason.update(
                Text(
                    "No runs of this suite yet: F5 (or r here) starts one; it shows in the "
                    "Results tab as it goes, and here once it ends."
                )
            )
        else:
            reason.update(reason_text(self.selected_record()))
        self.refresh_bindings()

    @on(DataTable.HeaderSelected, "#runs-table")
    def _header(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        key = str(event.column_key.value)
        self.sort_by(key, self.sort_key == (key, False))

    def sort_by(self, key: str, descending: bool = False) -> None:
        self.sort_key = (key, descending)
        self._fill()

    def action_sort(self) -> None:
        from nlu_tui.ui.screens.dialogs import ChoiceDialog

        def chosen(key: str | None) -> None:
            if key:
                self.sort_by(key, self.sort_key == (key, False))

        choices = [(key, label) for key, label in HISTORY_COLUMNS if key != "mark"]
        self.app.push_screen(ChoiceDialog("Sort runs by (again to reverse)", choices), chosen)

    # --- other actions --------------------------------------------------------------------

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # The focused DataTable takes Enter as its own select key before the pane's
        # binding sees it; a selected history row opens its results, as `o` does.
        if event.data_table.id == "runs-table":
            event.stop()
            self.action_open_results()

    def action_open_results(self) -> None:
        run_id = self.selected_run_id()
        if run_id is None:
            return
        self._open_in_results(run_id)
        show_main_tab(self, "tab-results")
        self._focus_results()

    def action_cancel_run(self) -> None:
        session = self.current_session()
        if session is None:
            self.notify("No run of this suite is going.", timeout=2)
            return
        confirm_cancel(self, session)

    def action_note(self) -> None:
        session = self.current_session()
        run_id = self.selected_run_id() if session is None else session.run_id
        if run_id is None:
            return
        edit_note(self, run_id, on_saved=lambda _id: self.reload())

    def action_mark(self) -> None:
        run_id = self.selected_run_id()
        if run_id is None:
            return
        if run_id in self.marked:
            self.marked.remove(run_id)
        else:
            self.marked = [*self.marked, run_id][-2:]
        self._fill()

    def _diff_pair(self) -> tuple[str, str] | str:
        """The runs ``D`` diffs now, older first: the two marked runs, else the selected run
        and the one before it; or why there is no pair (a message for the user)."""
        ids = list(self.marked)
        if len(ids) != 2:
            order = [r.record.id for r in sorted(self.history, key=lambda r: r.record.started_at)]
            selected = self.selected_run_id()
            if selected is None or selected not in order or order.index(selected) == 0:
                return "Mark two runs with space, then press D."
            ids = [order[order.index(selected) - 1], selected]
        started = {r.record.id: r.record.started_at for r in self.history}
        caseless = [
            r.record.id for r in self.history if r.record.id in ids and r.record.kind != "suite"
        ]
        if caseless:  # a `test nlu` comparison stores trained models, not case results
            return (
                f"Run {caseless[0]} has no case results to diff (a pipeline comparison); "
                "mark two runs with cases."
            )
        before, after = sorted(ids, key=lambda i: started.get(i, 0.0))
        return before, after

    def _diff_key(self, before: str, after: str) -> tuple[object, ...]:
        """What a diff computed ahead for ``before``/``after`` depends on: the pair, the state
        of every run of the suite as last read (a run resumed, rerun, renoted, added or
        deleted drops it) and the thresholds file the screen would check."""
        from nlu_tui.rundiff import default_thresholds, thresholds_stamp
        from nlu_tui.ui.state import workspace_root

        runs = tuple(
            (r.id, r.status, r.done, r.finished_at, r.note)
            for r in (row.record for row in self.history)
        )
        suite_path = next((r.record.suite_path for r in self.history if r.record.id == after), None)
        thresholds = default_thresholds(suite_path, workspace_root(self))
        return (before, after, runs, thresholds_stamp(thresholds))

    def _in_shown_tab(self) -> bool:
        """Whether the tab holding this pane (if any) is the active one."""
        from textual.widgets import TabbedContent, TabPane

        pane = next((a for a in self.ancestors if isinstance(a, TabPane)), None)
        tabs = next((a for a in self.ancestors if isinstance(a, TabbedContent)), None)
        return pane is None or tabs is None or tabs.active == pane.id

    def _diff_soon(self) -> None:
        """Compute the diff ``D`` would show once the cursor rests (see :meth:`_diff_ahead_of`)."""
        if self._diff_timer is not None:
            self._diff_timer.stop()
        self._diff_timer = self.set_timer(DIFF_AHEAD_DELAY_S, self._start_diff_ahead)

    def _start_diff_ahead(self) -> None:
        self._diff_timer = None
        if not self._in_shown_tab():  # not while the runs are not read (e.g. at start-up)
            return
        pair = self._diff_pair()
        if isinstance(pair, str):
            return
        sizes = {r.record.id: r.record.total for r in self.history}
        if max(sizes.get(pair[0], 0), sizes.get(pair[1], 0)) > DIFF_AHEAD_MAX_CASES:
            return
        key = self._diff_key(*pair)
        if self._diff_ahead is not None and self._diff_ahead.key == key:
            return
        self._diff_ahead_of(key, *pair)

    @work(
        thread=True,
        exclusive=True,
        group="runs-diff-ahead",
        exit_on_error=False,
        name="runs-diff-ahead",
        description="Comparing the selected run with the one before",
    )
    def _diff_ahead_of(self, key: tuple[object, ...], before: str, after: str) -> None:
        """The diff ``D`` would show, computed while the user reads the runs: ``D`` then shows
        it in its first frame instead of computing it after (issue 23, fast keys)."""
        from nlu_tui.rundiff import diff_ahead
        from nlu_tui.ui.state import workspace_root

        try:
            computed = diff_ahead(store_for(self.app), key, before, after, workspace_root(self))
        except Exception:  # D computes it again and says what went wrong
            return
        self.app.call_from_thread(self._keep_diff_ahead, computed)

    def _keep_diff_ahead(self, computed: ComputedDiff) -> None:
        self._diff_ahead = computed

    def action_diff(self) -> None:
        from nlu_tui.ui.reuse import keep, spare
        from nlu_tui.ui.screens.run_diff import DiffScreen

        pair = self._diff_pair()
        if isinstance(pair, str):
            self.notify(pair, severity="warning", markup=False)
            return
        before, after = pair
        ahead = self._diff_ahead
        if ahead is not None and ahead.key != self._diff_key(before, after):
            ahead = None  # computed for another pair, or the runs changed since
        screen = spare(self.app, DiffScreen)
        if screen is None:
            screen = DiffScreen(before, after)  # not built ahead yet: computes on mount
            keep(self.app, screen)
        else:
            screen.refill(before, after, ahead)
        self.app.push_screen(screen)

    def action_compare_engines(self) -> None:
        """The matrix of engines side by side: the two marked runs, else the stored
        comparison the selected run belongs to."""
        from nlu_tui.ui.screens.engine_matrix import ComparisonScreen

        if len(self.marked) == 2:
            self.app.push_screen(ComparisonScreen(run_ids=list(self.marked)))
            return
        run_id = self.selected_run_id()
        if run_id is None:
            return
        self._open_comparison_of(run_id)

    @work(
        thread=True,
        exclusive=True,
        group="runs-comparison",
        exit_on_error=False,
        name="runs-comparison",
        description="Finding the run's comparison",
    )
    def _open_comparison_of(self, run_id: str) -> None:
        from nlu_tui.store.comparisons import comparisons_of_run

        try:
            found = comparisons_of_run(store_for(self.app), run_id)
        except Exception as exc:
            self.app.call_from_thread(
                self.notify, escape(str(exc)), title="Cannot compare", severity="error"
            )
            return
        self.app.call_from_thread(self._push_comparison, run_id, found[0].id if found else None)

    def _push_comparison(self, run_id: str, comparison_id: str | None) -> None:
        from nlu_tui.ui.screens.engine_matrix import ComparisonScreen

        if comparison_id is None:
            self.notify(
                f"Run {run_id} is not part of a comparison (nlu-tui run SUITE --engine a "
                "--engine b); mark two runs with space to compare them.",
                severity="warning",
                markup=False,
            )
            return
        self.app.push_screen(ComparisonScreen(comparison_id=comparison_id))

    def action_rerun_failed(self) -> None:
        """``r``: rerun the selected run's failed and errored cases through the run service
        (what ``nlu-tui run --rerun-failed RUN`` does); the child run is shown live, and its
        merged result is what the suite now scores. With no run listed, start one."""
        record = self.selected_record()
        if record is None:
            if not self.history:
                self.action_start_run()
            return
        if record.status is RunStatus.RUNNING:
            self.notify(f"Run {record.id} is still running.", severity="warning")
            return
        if record.kind == "suite" and not (record.fp or record.fn or record.errors):
            self.notify(
                f"Run {record.id} has no failed or errored case: nothing to rerun.", timeout=3
            )
            return
        suite = self.suite if self.suite is not None else Suite(name=record.suite_name)
        self.start_run(suite, record.engine_name, record.stage, rerun_of=record.id)

    def action_resume(self) -> None:
        record = self.selected_record()
        if record is None:
            return
        if not record.resumable:
            self.notify(
                f"A `test nlu` {record.evaluation} run cannot be resumed (its cases were tested "
                "on models trained for it): evaluate the training file again, its trained "
                "models are cached."
                if record.evaluation is not None and record.done < record.total
                else "Only canceled, interrupted or failed runs with missing cases can be resumed.",
                severity="warning",
                markup=False,
            )
            return
        if any(s.run_id == record.id for s in active_sessions(self.app)):
            return
        suite = self.suite if self.suite is not None else Suite(name=record.suite_name)
        self.start_run(suite, record.engine_name, record.stage, resume_run_id=record.id)

    def action_delete_run(self) -> None:
        from nlu_tui.ui.screens.dialogs import ConfirmDialog

        record = self.selected_record()
        if record is None:
            return
        if any(s.run_id == record.id for s in active_sessions(self.app)):
            self.notify("Cancel the run before deleting it.", severity="warning")
            return

        def answer(yes: bool | None) -> None:
            if not yes:
                return
            try:
                store_for(self.app).delete_run(record.id)
            except Exception as exc:
                self.notify(escape(str(exc)), title="Not deleted", severity="error")
                return
            self.notify(f"Run {record.id} deleted.", timeout=2)
            self.reload()

        self.app.push_screen(
            ConfirmDialog(
                "Delete this run?",
                f"Run {record.id} of {record.suite_name} and all its "
                "results will be removed from the store.",
                yes="Delete",
                no="Keep",
            ),
            answer,
        )

    def palette_commands(self) -> list[PaletteCommand]:
        commands = []
        if self.suite is not None:
            commands.append(
                PaletteCommand("run: Start", self.action_start_run, "Run the open suite")
            )
        if self.current_session() is not None:
            commands.append(
                PaletteCommand(
                    "run: Cancel", self.action_cancel_run, "Cancel the open suite's running run"
                )
            )
            commands.append(
                PaletteCommand("run: Note…", self.action_note, "Add or edit the running run's note")
            )
        if self.history:
            commands += [
                PaletteCommand(
                    "run: Rerun failed cases",
                    self.action_rerun_failed,
                    "Send the selected run's failed and errored cases again (a child run)",
                ),
                PaletteCommand(
                    "run: Open results", self.action_open_results, "Show the selected run's results"
                ),
                PaletteCommand("run: Diff marked runs", self.action_diff, "Compare two runs"),
                PaletteCommand(
                    "run: Engines side by side",
                    self.action_compare_engines,
                    "The selected run's comparison, or the two marked runs (c)",
                ),
                PaletteCommand(
                    "run: Resume",
                    self.action_resume,
                    "Resume the selected canceled or interrupted run",
                ),
                PaletteCommand("run: Delete", self.action_delete_run, "Delete the selected run"),
                PaletteCommand(
                    "run: Edit note",
                    lambda: edit_note(
                        self, self.selected_run_id() or "", on_saved=lambda _id: self.reload()
                    ),
                    "Edit the selected run's note",
                ),
            ]
        return commands
