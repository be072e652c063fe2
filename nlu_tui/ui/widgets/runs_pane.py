"""The Runs tab: start, follow, cancel, resume and annotate runs; the suite's run history.

A run goes in an async worker of this pane (``group="run"``, one per run, so runs of different
suites go at once). The runner calls back on the app's event loop; the session keeps the rows
and the worker posts coalescing :class:`RunUpdated` messages, redrawn a few times a second.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import DataTable, ProgressBar, Static

from nlu_tui.model import RunStatus, Suite
from nlu_tui.runsessions import (
    RunSession,
    active_sessions,
    initial_progress,
    load_stored_rows,
    sessions,
    store_for,
    suite_key_of,
)
from nlu_tui.textsafe import inert
from nlu_tui.ui.commands import PaletteCommand
from nlu_tui.ui.navigation import show_main_tab
from nlu_tui.ui.state import hosting_workbench, workspace_root
from nlu_tui.ui.workers import ReportsFailedWorkers, describe
from nlu_tui.views.summary_text import (
    STATUS_LABEL,
    duration,
    num,
    pct,
    progress_text,
    status_text,
)

HISTORY_COLUMNS = [
    ("mark", " "),
    ("started", "Started"),
    ("status", "Status"),
    ("f1", "F1"),
    ("engine", "Engine"),
    ("stage", "Version"),
    ("precision", "Precision"),
    ("recall", "Recall"),
    ("intent", "Intent %"),
    ("entity", "Entity %"),
    ("tp", "TP"),
    ("tn", "TN"),
    ("fp", "FP"),
    ("fn", "FN"),
    ("errors", "Err"),
    ("duration", "Duration"),
    ("note", "Note"),
]


class RunUpdated(Message):
    """A run made progress (coalesced: only the newest of a burst is handled)."""

    def __init__(self, run_id: str) -> None:
        super().__init__()
        self.run_id = run_id

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, RunUpdated) and message.run_id == self.run_id


class RunEnded(Message):
    """A run of this app ended (any status)."""

    def __init__(self, run_id: str) -> None:
        super().__init__()
        self.run_id = run_id


@dataclass
class HistoryRow:
    """One run in the history table, with raw values for sorting."""

    record: Any
    f1: float | None
    precision: float | None
    recall: float | None
    intent: float | None
    """None when the run measured nothing (it failed, or scored no case): shown as ``-``."""
    entity: float | None

    def value(self, key: str) -> Any:
        r = self.record
        simple = {
            "started": r.started_at,
            "engine": r.engine_name,
            "stage": r.stage,
            "status": STATUS_LABEL[RunStatus(r.status)],
            "f1": -1.0 if self.f1 is None else self.f1,
            "precision": -1.0 if self.precision is None else self.precision,
            "recall": -1.0 if self.recall is None else self.recall,
            "intent": -1.0 if self.intent is None else self.intent,
            "entity": -1.0 if self.entity is None else self.entity,
            "tp": r.tp,
            "tn": r.tn,
            "fp": r.fp,
            "fn": r.fn,
            "errors": r.errors,
            "duration": r.duration_s or 0.0,
            "note": r.note,
        }
        return simple.get(key, "")


def history_row(record: Any, entity: float | None = None) -> HistoryRow:
    """Figures of a stored run from its exact counters, by the scoring core's definitions."""
    if record.scored_f1 is None:  # a failed run is listed with "-", never an F1 of 0.000
        return HistoryRow(record, None, None, None, None, entity)
    counts = record.counts()
    return HistoryRow(
        record, counts.f1, counts.precision, counts.recall, counts.intent_success, entity
    )


def short_engine(name: str) -> str:
    kind, sep, rest = name.partition(":")
    if sep and kind in ("embedded",):
        return f"{kind}:{Path(rest).name}"
    return name


def edit_note(widget: Widget, run_id: str, on_saved: Callable[[str], None] | None = None) -> None:
    """Open the note dialog for a run (running or not) and save what the user writes."""
    from nlu_tui.ui.screens.dialogs import NoteDialog

    store = store_for(widget.app)
    try:
        record = store.get_run(run_id)
    except Exception as exc:
        widget.notify(escape(str(exc)), severity="error")
        return

    def saved(text: str | None) -> None:
        if text is None:
            return
        try:
            store.set_note(run_id, text)
        except Exception as exc:
            widget.notify(escape(str(exc)), title="Note not saved", severity="error")
            return
        widget.notify("Note saved.", timeout=2)
        if on_saved is not None:
            on_saved(run_id)

    widget.app.push_screen(NoteDialog(record.note, f"Note for run {run_id}"), saved)


def confirm_cancel(widget: Widget, session: RunSession) -> None:
    """Ask, then cancel a running run (it stops within a second and keeps its results)."""
    from nlu_tui.ui.screens.dialogs import ConfirmDialog

    progress = session.progress()
    done = progress.done if progress else 0

    def answer(yes: bool | None) -> None:
        if yes and not session.finished:
            session.cancel()
            widget.notify(f"Canceling run {session.run_id}…", timeout=2)

    widget.app.push_screen(
        ConfirmDialog(
            "Cancel this run?",
            f"{session.suite_name} on {session.engine_name}: {done}/{session.total} done. "
            "Finished results are kept; the run can be resumed later.",
            yes="Cancel run",
            no="Keep running",
        ),
        answer,
    )


class RunProgressPanel(Vertical):
    """Progress of the suite's active run: bar, done/total, rate, ETA, elapsed, live counts."""

    DEFAULT_CSS = """
    RunProgressPanel { height: auto; padding: 0 1; border: round $accent; display: none; }
    RunProgressPanel.active { display: block; }
    RunProgressPanel > Horizontal { height: 1; }
    RunProgressPanel ProgressBar { width: 1fr; }
    RunProgressPanel Bar { width: 1fr; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="progress-title")
        with Horizontal(classes="bar-row"):
            yield ProgressBar(total=100, show_eta=False, id="run-progress-bar")
        yield Static("", id="progress-text")

    def show(self, session: RunSession | None) -> None:
        self.set_class(session is not None, "active")
        if session is None:
            return
        title = Text("▶ ", style="bold cyan")
        title.append(
            inert(
                f"Running {session.suite_name} on {short_engine(session.engine_name)}"
                f" ({session.stage}) · run {session.run_id}",
                newlines=False,
            )
        )
        if session.cancel_requested:
            title.append("  canceling…", style="bold dark_orange")
        title.append("   esc/ctrl+x: cancel · n: note", style="dim")
        self.query_one("#progress-title", Static).update(title)
        event = session.progress()
        bar = self.query_one(ProgressBar)
        if event is None:
            bar.update(total=max(session.total, 1), progress=0)
            self.query_one("#progress-text", Static).update(Text("starting…"))
            return
        bar.update(total=max(event.total, 1), progress=event.done)
        self.query_one("#progress-text", Static).update(progress_text(event))


class RunsPane(ReportsFailedWorkers, Vertical):
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
            "start_run",
            "Run",
            show=False,
            id="runs.start",
            tooltip="Run the open suite (F5/Ctrl+R do it from any tab).",
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
        self.suite: Suite | None = None
        self.history: list[HistoryRow] = []
        self.marked: list[str] = []
        self.sort_key: tuple[str, bool] = ("started", True)
        self._entity_cache: dict[str, float | None] = {}

    def compose(self) -> ComposeResult:
        yield Static("Open a suite to see its runs.", id="runs-title")
        yield RunProgressPanel(id="run-progress")
        yield DataTable(id="runs-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="runs-reason")

    def on_mount(self) -> None:
        table = self.query_one("#runs-table", DataTable)
        for key, label in HISTORY_COLUMNS:
            table.add_column(label, key=key)
        host = hosting_workbench(self)
        if host is not None:
            if host.suite is not None:
                self.set_suite(host.suite)
            self.watch(host, "suite", self.set_suite, init=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Cancel is offered (and shown in the footer) only while this suite has a run going."""
        if action == "cancel_run":
            return self.current_session() is not None
        return True

    # --- state --------------------------------------------------------------------------

    @property
    def suite_key(self) -> str | None:
        return suite_key_of(self.suite) if self.suite is not None else None

    def set_suite(self, suite: Suite | None) -> None:
        self.suite = suite
        self.marked = []
        title = self.query_one("#runs-title", Static)
        if suite is None:
            title.update("Open a suite to see its runs.")
        else:
            title.update(
                Text(
                    inert(f"Runs of {suite.name}", newlines=False)
                    + "   F5: run · enter: results · space: mark · D: diff"
                )
            )
        self._show_progress()
        self.reload()

    def current_session(self) -> RunSession | None:
        key = self.suite_key
        if key is None:
            return None
        active = active_sessions(self.app, key)
        return active[-1] if active else None

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

    def _set_history(self, rows: list[HistoryRow]) -> None:
        self.history = rows
        ids = {r.record.id for r in rows}
        self.marked = [m for m in self.marked if m in ids]
        self._fill()

    def _fill(self) -> None:
        table = self.query_one("#runs-table", DataTable)
        selected = self.selected_run_id()
        key, descending = self.sort_key
        rows = sorted(
            self.history, key=lambda r: (r.value(key), r.record.started_at), reverse=descending
        )
        table.clear()
        for row in rows:
            r = row.record
            started = datetime.fromtimestamp(r.started_at).strftime("%Y-%m-%d %H:%M:%S")
            note = r.note.splitlines()[0] if r.note else ""
            cells: dict[str, Any] = {
                "mark": "✓" if r.id in self.marked else " ",
                "started": started,
                "engine": Text(inert(short_engine(r.engine_name), newlines=False)),
                "stage": r.stage,
                "status": status_text(r.status),
                "f1": num(row.f1),
                "precision": num(row.precision),
                "recall": num(row.recall),
                "intent": pct(row.intent),
                "entity": pct(row.entity) if r.id in self._entity_cache else "…",
                "tp": str(r.tp),
                "tn": str(r.tn),
                "fp": str(r.fp),
                "fn": str(r.fn),
                "errors": str(r.errors),
                "duration": duration(r.duration_s),
                "note": Text(inert(note[:60], newlines=False)),
            }
            # in HISTORY_COLUMNS order (what a tester needs first: started, status, F1)
            table.add_row(*[cells[k] for k, _ in HISTORY_COLUMNS], key=r.id)
        if selected is not None:
            with contextlib.suppress(Exception):
                table.move_cursor(row=table.get_row_index(selected))
        self._show_reason()

    def selected_run_id(self) -> str | None:
        table = self.query_one("#runs-table", DataTable)
        if table.row_count == 0:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        except Exception:
            return None
        return str(key.value) if key.value is not None else None

    def selected_record(self) -> Any:
        run_id = self.selected_run_id()
        return next((r.record for r in self.history if r.record.id == run_id), None)

    @on(DataTable.RowHighlighted, "#runs-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_reason()

    def _show_reason(self) -> None:
        """Under the table: the selected run's status reason (the "hover" of Kore.ai's icon)."""
        record = self.selected_record()
        text = Text()
        if record is not None:
            text.append_text(status_text(record.status))
            text.append(f"  run {record.id}")
            from nlu_tui.evaluation.text import stored_title

            evaluation = stored_title(record)
            if evaluation is not None:  # which `test nlu` made it: folds, split, comparison
                text.append(" · " + inert(evaluation, newlines=False))
            if record.reason:
                style = "red" if record.status is RunStatus.FAILED else "dark_orange"
                text.append(" · reason: ", style="bold")
                text.append(inert(record.reason), style=style)
            if record.note:
                text.append("\nNote: ", style="bold")
                text.append(inert(record.note))
        self.query_one("#runs-reason", Static).update(text)

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

    # --- starting a run -----------------------------------------------------------------

    def action_start_run(self) -> None:
        suite = self.suite
        if suite is None:
            self.notify("Open a suite first.", severity="warning")
            return
        problems = self._problems(suite)
        if problems:
            from nlu_tui.ui.screens.dialogs import ConfirmDialog

            body = Text()
            for p in problems[:12]:
                body.append(inert(f"{p}\n"))
            if len(problems) > 12:
                body.append(f"… and {len(problems) - 12} more\n")

            def go_on(yes: bool | None) -> None:
                if yes:
                    self._ask_engine(suite)

            self.app.push_screen(
                ConfirmDialog(
                    inert(f"{len(problems)} validation problem(s) in {suite.name}", newlines=False),
                    body,
                    yes="Run anyway",
                    no="Go back",
                ),
                go_on,
            )
            return
        self._ask_engine(suite)

    def _problems(self, suite: Suite) -> list[str]:
        from nlu_tui.validation import validate_suite

        out = []
        for p in validate_suite(suite):
            where = f" (case {p.case_id})" if getattr(p, "case_id", None) else ""
            out.append(f"{p.severity}: {p.message}{where}")
        return out

    def _ask_engine(self, suite: Suite) -> None:
        from nlu_tui.engines.choices import StartChoice, engine_choices, load_last_choice
        from nlu_tui.ui.screens.run_start import StartRunDialog

        key = suite_key_of(suite)
        workspace = workspace_root(self)
        choices = engine_choices(suite.path, workspace)

        def chosen(choice: StartChoice | None) -> None:
            if choice is None:
                return
            same = [
                s
                for s in active_sessions(self.app, key)
                if s.engine_name == choice.engine or s.engine_name.endswith(choice.engine)
            ]
            if same:
                from nlu_tui.ui.screens.dialogs import ConfirmDialog

                def again(yes: bool | None) -> None:
                    if yes:
                        self.start_run(
                            suite, choice.engine, choice.stage, choice.note, repeat=choice.repeat
                        )

                self.app.push_screen(
                    ConfirmDialog(
                        "This suite is already running on this engine",
                        "Start a second run of the same suite and engine?",
                        yes="Start another",
                        no="Don't",
                    ),
                    again,
                )
                return
            self.start_run(suite, choice.engine, choice.stage, choice.note, repeat=choice.repeat)

        self.app.push_screen(
            StartRunDialog(
                suite.name,
                choices,
                load_last_choice(key),
                workspace=workspace,
                suite_path=suite.path,
            ),
            chosen,
        )

    def start_run(
        self,
        suite: Suite,
        engine: str,
        stage: str = "development",
        note: str = "",
        resume_run_id: str | None = None,
        *,
        repeat: int = 1,
    ) -> None:
        """Start (or resume) a run in a worker; the session appears at once in the panel.
        The spec is remembered for this suite only once the run succeeds (see ``_run_ended``).
        ``repeat`` sends each case that many times (a resume keeps the stored run's count)."""
        self._run_worker(suite, engine, stage, note, resume_run_id, repeat)

    def start_runs_in_order(self, suite: Suite, runs: list[tuple[str, str, str]]) -> None:
        """Start the runs ``(engine, stage, note)`` one after the other, each when the one
        before has ended: a new suite's first runs test development, then published, as the
        command line does (two runs at once would double the load on a rate-limited bot)."""
        self._runs_in_order(suite, runs)

    @work(
        group="run",
        exit_on_error=False,
        name="run-both",
        description="Running a suite on both versions",
    )
    async def _runs_in_order(self, suite: Suite, runs: list[tuple[str, str, str]]) -> None:
        for engine, stage, note in runs:
            await self._run_one(suite, engine, stage, note, None)

    @work(group="run", exit_on_error=False, name="run", description="Running a suite")
    async def _run_worker(
        self,
        suite: Suite,
        engine: str,
        stage: str,
        note: str,
        resume_run_id: str | None,
        repeat: int = 1,
    ) -> None:
        describe(f"Running suite {suite.path.name if suite.path else suite.name} on {engine}")
        await self._run_one(suite, engine, stage, note, resume_run_id, repeat)

    async def _run_one(
        self,
        suite: Suite,
        engine: str,
        stage: str,
        note: str,
        resume_run_id: str | None,
        repeat: int = 1,
    ) -> None:
        """Open the run, show it, run it to its end (errors are notified, never raised)."""
        from nlu_tui.runservice import RunRequest, open_run

        workspace = workspace_root(self)
        request = RunRequest(
            suite=suite,
            engine=engine,
            stage=stage,
            note=note,
            resume=resume_run_id,
            workspace=workspace,
            repeat=repeat if repeat > 1 and not resume_run_id else None,
        )
        try:
            store = store_for(self.app)  # a damaged store file is reported, not swallowed
            # in a thread: it writes every case of a new run, or reads a resumed one's results
            job = await asyncio.to_thread(open_run, request, store)
        except Exception as exc:
            self.notify(escape(str(exc)), title="Cannot start the run", severity="error")
            return
        record = job.record
        session = RunSession(
            run=job,
            suite_key=suite_key_of(suite),
            suite_name=suite.name,
            engine_name=job.engine_name,
            stage=job.stage,
            total=record.total,
            engine_spec=engine if not job.resumed else "",
            initial=initial_progress(record) if job.resumed else None,
            seeded=not job.resumed,
        )

        def progress(event: Any) -> None:
            session.on_progress(event)
            self.post_message(RunUpdated(session.run_id))

        job.on_progress = progress
        sessions(self.app)[session.run_id] = session
        if job.resumed:
            self._seed_session(session)
        self.post_message(RunUpdated(session.run_id))
        self._open_in_results(session.run_id)
        show_main_tab(self, "tab-results")
        self._focus_results()
        try:
            session.record = (await job.execute()).record
        except Exception as exc:
            session.error = str(exc) or type(exc).__name__
        finally:
            self.post_message(RunEnded(session.run_id))

    @work(
        thread=True,
        group="run-seed",
        exit_on_error=False,
        name="run-seed",
        description="Reading the stored results of a run",
    )
    def _seed_session(self, session: RunSession) -> None:
        """Load a resumed run's stored results, so its live view starts from them."""
        try:
            stored, prepared = load_stored_rows(store_for(self.app), session.run_id)
        except Exception as exc:
            self.app.call_from_thread(
                self.notify,
                escape(str(exc)),
                title="Cannot show the run's earlier results",
                severity="warning",
            )
            return
        self.app.call_from_thread(self._seeded, session, stored, prepared)

    def _seeded(self, session: RunSession, stored: list[Any], prepared: Any) -> None:
        session.seed(stored, prepared)
        self.post_message(RunUpdated(session.run_id))

    @on(RunUpdated)
    def _run_updated(self, message: RunUpdated) -> None:
        message.stop()
        session = sessions(self.app).get(message.run_id)
        if session is not None and session.suite_key == self.suite_key:
            self._show_progress()

    @on(RunEnded)
    def _run_ended(self, message: RunEnded) -> None:
        message.stop()
        session = sessions(self.app).get(message.run_id)
        if session is None:
            return
        status = session.status
        progress = session.progress()
        done = progress.done if progress else 0
        if status is RunStatus.CANCELED:
            self.notify(f"Run canceled; {done}/{session.total} cases done.", severity="warning")
        elif status is RunStatus.FAILED:
            reason = session.record.reason if session.record else session.error
            self.notify(escape(f"Run failed: {reason}"), severity="error", timeout=8)
        elif status is RunStatus.SUCCESS_WITH_WARNING:
            reason = session.record.reason if session.record else ""
            self.notify(escape(f"Run finished with a warning: {reason}"), severity="warning")
        else:
            self.notify(f"Run finished: {done}/{session.total} cases.", timeout=3)
        if session.engine_spec and status in (
            RunStatus.SUCCESS,
            RunStatus.SUCCESS_WITH_WARNING,
        ):
            from nlu_tui.engines.choices import StartChoice, save_last_choice

            with contextlib.suppress(OSError):
                save_last_choice(session.suite_key, StartChoice(session.engine_spec, session.stage))
        self._show_progress()
        self.reload()
        host = hosting_workbench(self)
        if host is not None:
            host.refresh_suites()

    # --- other actions --------------------------------------------------------------------

    def _open_in_results(self, run_id: str) -> None:
        from nlu_tui.ui.widgets.results_pane import ResultsPane

        panes = self.screen.query(ResultsPane)
        if panes:
            panes.first().show_run(run_id)

    def _focus_results(self) -> None:
        from nlu_tui.ui.widgets.results_pane import ResultsPane

        panes = self.screen.query(ResultsPane)
        if panes:
            panes.first().table.focus_table()

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

    def action_diff(self) -> None:
        from nlu_tui.ui.screens.run_diff import DiffScreen

        ids = list(self.marked)
        if len(ids) != 2:
            order = [r.record.id for r in sorted(self.history, key=lambda r: r.record.started_at)]
            selected = self.selected_run_id()
            if selected is None or selected not in order or order.index(selected) == 0:
                self.notify("Mark two runs with space, then press D.", severity="warning")
                return
            ids = [order[order.index(selected) - 1], selected]
        started = {r.record.id: r.record.started_at for r in self.history}
        caseless = [
            r.record.id for r in self.history if r.record.id in ids and r.record.kind != "suite"
        ]
        if caseless:  # a `test nlu` comparison stores trained models, not case results
            self.notify(
                f"Run {caseless[0]} has no case results to diff (a pipeline comparison); "
                "mark two runs with cases.",
                severity="warning",
                markup=False,
            )
            return
        before, after = sorted(ids, key=lambda i: started.get(i, 0.0))
        self.app.push_screen(DiffScreen(before, after))

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
                    "run: Open results", self.action_open_results, "Show the selected run's results"
                ),
                PaletteCommand("run: Diff marked runs", self.action_diff, "Compare two runs"),
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
