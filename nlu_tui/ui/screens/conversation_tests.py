"""Conversation tests in the workbench: the workspace's E2E test files, a run with live
progress, the test cases with their status, and the selected one turn by turn with each
mismatch beside what was expected.

The work is the conversation service's (:mod:`nlu_tui.conversation.service`), run on the
app's event loop; this screen only starts it and shows what it stores.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static, TabbedContent, TabPane

from nlu_tui.store.records import StoredItem
from nlu_tui.textsafe import inert
from nlu_tui.ui.commands import PaletteCommand
from nlu_tui.ui.screens.page_export import EXPORT_TOOLTIP
from nlu_tui.ui.state import workbench, workspace_root
from nlu_tui.ui.widgets.fast_table import GiveWay, cells_width, fit_widths, give_way_steps
from nlu_tui.ui.widgets.footer import BudgetFooter
from nlu_tui.ui.widgets.inert_fields import TextField
from nlu_tui.ui.workers import ReportsFailedWorkers
from nlu_tui.views.conversation import MET, MISMATCH, NOT_REACHED, conversation_rows
from nlu_tui.views.counts import counted

DEFAULT_ENGINE = "rasa:http://localhost:5005"
NOT_RUN = "not run"
"""The outcome of a listed test case of a file that was never run."""
STATUS_STYLE = {
    "passed": ("passed", "bold green"),
    "failed": ("FAILED", "bold red"),
    "error": ("ERROR", "bold magenta"),
    "running": ("…", "dim"),
    NOT_RUN: ("not run", "dim"),
}
RESUMABLE = ("canceled", "interrupted", "failed")
"""Run statuses ``u`` resumes (those the service accepts)."""
ROW_STYLE = {MET: ("✓", "green"), MISMATCH: ("✗", "bold red"), NOT_REACHED: ("·", "dim")}
CASES_TAB = "conv-tab-cases"
COVERAGE_TAB = "conv-tab-coverage"
NO_RUN_SHOWN = "No run shown yet: run the file (r), then its flow coverage shows here."


def conversation_files(root: Path) -> list[Path]:
    """E2E test files of a workspace: YAML with ``test_cases:`` in it or its ``tests/``."""
    from nlu_tui.formats import e2e_cases

    found = []
    for folder in (root, root / "tests"):
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if path.suffix not in e2e_cases.EXTENSIONS or not path.is_file():
                continue
            try:
                with path.open(encoding="utf-8-sig", errors="replace") as handle:
                    head = handle.read(4096)
            except OSError:
                continue
            if e2e_cases.sniff(path, head):
                found.append(path)
    return found


TURN_COLUMNS = (("step", "Step"), ("ok", ""), ("expected", "Expected"), ("actual", "Actual"))
TURN_FLEX = "expected"
"""The column holding the user's messages (and what else was expected): it takes the free
width first, as the utterance does in the cases and results tables."""
TURN_GIVE_WAY: list[GiveWay] = [("actual", 16), ("expected", 24)]
"""The turns table's give-way order when the row does not fit: what the bot did shrinks to 16
cells first, then the expectation to 24 (the ends of both stay in the row, cut with "…")."""


def _turn_columns(turns: DataTable[Any]) -> None:
    for key, label in TURN_COLUMNS:
        turns.add_column(label, key=key)


def fit_turn_columns(turns: DataTable[Any], natural: list[int]) -> None:
    """Fix the turns table's column widths: the natural (content) widths fitted to the table's
    width by :func:`~nlu_tui.ui.widgets.fast_table.fit_widths`, the user messages first."""
    available = turns.scrollable_content_region.width or turns.size.width
    if available <= 0 or len(natural) != len(TURN_COLUMNS):
        for n, column in enumerate(turns.columns.values()):
            column.content_width = natural[n] if n < len(natural) else column.content_width
        return
    keys = [key for key, _label in TURN_COLUMNS]
    available = cells_width(available, turns.size.height, turns.row_count)
    widths = fit_widths(
        natural,
        available,
        steps=give_way_steps(keys, TURN_GIVE_WAY),
        flex=keys.index(TURN_FLEX),
        fill=False,  # a short conversation keeps what the bot did beside it, not at the edge
    )
    for column, width in zip(turns.columns.values(), widths, strict=True):
        column.auto_width = False
        column.width = width
    turns._require_update_dimensions = True
    turns.refresh()


def not_run_items(path: Path) -> list[StoredItem]:
    """The test cases of an E2E file not run yet, as items with their steps and no turns (the
    screen lists them, shows their steps as not reached and opens them in the editor)."""
    from nlu_tui.conversation.service import E2E_RUN, load_units

    units = load_units(E2E_RUN, path)
    return [
        StoredItem(
            units.item_id(case),
            seq,
            NOT_RUN,
            data={
                "name": case.name,
                "file": case.file,
                "line": case.line,
                "expected_steps": [step.as_dict() for step in case.steps],
            },
        )
        for seq, case in enumerate(units.order)
    ]


def failed_step(data: dict[str, Any]) -> int | None:
    """The index of the step a stored test case failed at (its first mismatch), if any."""
    failed = [int(i) for i in data.get("failed_steps") or []]
    return min(failed) if failed else None


def diff_text(item: StoredItem) -> Text:
    """The failed test case's first mismatch in Rasa Pro's diff style: expected ``+`` (green),
    actual ``-`` (red), the conversation before it plain."""
    data = item.data
    if item.outcome == "error":
        return Text(f"engine error: {inert(str(data.get('error')))}", style="magenta")
    failure = data.get("assertion_failure")
    if failure:
        where = Path(str(data.get("file") or "")).name + f":{data.get('error_line')}"
        kind = failure.get("assertion", {}).get("type")
        out = Text(f"Assertion '{inert(str(kind))}' failed at {inert(where)}\n", style="bold")
        out.append(inert(str(failure.get("error_message"))), style="red")
        return out
    lines = data.get("difference") or []
    if not lines:
        return Text("")
    where = Path(str(data.get("file") or "")).name + f":{data.get('error_line')}"
    out = Text(f"Mismatch at {inert(where)}\n", style="bold")
    for line in lines:
        line = inert(line.rstrip("\n"))
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else ""
        if line.startswith("?"):
            style = "dim"
        out.append(line + "\n", style=style)
    out.rstrip()
    return out


class ConversationScreen(ReportsFailedWorkers, Screen[None]):
    """The E2E test files of the workspace and their runs."""

    DEFAULT_CSS = """
    ConversationScreen #conv-header { height: auto; padding: 0 1; background: $boost; }
    ConversationScreen #conv-files { width: 24; }
    ConversationScreen #conv-engine { height: 1; }
    ConversationScreen #conv-cases { height: 1fr; }
    ConversationScreen #conv-turns { height: 1fr; }
    ConversationScreen #conv-diff { height: auto; max-height: 9; padding: 0 1; }
    ConversationScreen #conv-tabs { height: 1fr; }
    ConversationScreen #conv-tabs > ContentSwitcher { height: 1fr; }
    ConversationScreen #conv-tabs TabPane { height: 1fr; padding: 0; }
    ConversationScreen #conv-coverage-scroll { height: 1fr; padding: 0 1; }
    ConversationScreen #conv-empty { height: auto; padding: 1 2; display: none; }
    """

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="conv.back", tooltip="Back."),
        Binding("r,f5,ctrl+r", "run", "Run", id="conv.run", tooltip="Run the selected test file."),
        Binding(
            "f",
            "edit_failed",
            "Edit failed step",
            id="conv.edit-failed",
            tooltip="Open the selected test case in the editor, on the step it failed at.",
        ),
        Binding(
            "e", "focus_engine", "Engine", id="conv.engine", tooltip="Change the engine to run."
        ),
        Binding("c", "cancel", "Cancel", id="conv.cancel", tooltip="Cancel the running run."),
        Binding(
            "v",
            "coverage",
            "Coverage",
            id="conv.coverage",
            tooltip="The Coverage tab (and back): each flow's steps visited or not in the shown "
            "run (--coverage-report), and the change since the previous run.",
            show=False,  # in the palette and on `v`; the footer stays as it was
        ),
        Binding("x", "export", "Export", id="conv.export", tooltip=EXPORT_TOOLTIP),
        Binding(
            "u",
            "resume",
            "Resume",
            id="conv.resume",
            tooltip="Finish the file's canceled or interrupted run (stored test cases are not sent "
            "again).",
        ),
    ]

    def __init__(
        self,
        files: list[Path] | None = None,
        *,
        items: list[StoredItem] | None = None,
        engine: str | None = None,
        ask_engine: bool = False,
        coverage: tuple[dict[str, Any] | None, dict[str, Any] | None] | None = None,
    ) -> None:
        """``items`` shows stored results without running (snapshots, a past run), and
        ``coverage`` their run's flow coverage and the previous run's (as the run summaries
        keep them: :data:`nlu_tui.coverage_reports.SUMMARY_KEY`).
        ``engine`` defaults to that of the file's latest run, else :data:`DEFAULT_ENGINE`;
        ``ask_engine`` opens on the engine field (Enter there runs), as F5 on a suite does."""
        super().__init__()
        self.coverage = coverage
        self.files = files
        self.items: list[StoredItem] = list(items or [])
        self.engine = engine or DEFAULT_ENGINE
        self._engine_given = engine is not None
        self.ask_engine = ask_engine
        self.run: Any = None
        self.progress = ""
        self._turn_widths: list[int] = []
        """The shown test case's natural column widths in the turns table."""
        self.last_run: tuple[str, str] | None = None
        """The shown run of the file: (run id, status), for ``u`` to resume."""

    def compose(self) -> ComposeResult:
        yield Static(Text("Conversation tests"), id="conv-header")
        yield Static("", id="conv-empty")
        with TabbedContent(id="conv-tabs", initial=CASES_TAB):
            with TabPane("Test cases", id=CASES_TAB), Horizontal(id="conv-body"):
                yield DataTable(id="conv-files", cursor_type="row")
                with Vertical():
                    yield TextField(
                        self.engine, id="conv-engine", compact=True, placeholder="engine"
                    )
                    yield DataTable(id="conv-cases", cursor_type="row", zebra_stripes=True)
                    yield DataTable(id="conv-turns", cursor_type="row")
                    yield Static("", id="conv-diff")
            with TabPane("Coverage", id=COVERAGE_TAB), VerticalScroll(id="conv-coverage-scroll"):
                yield Static(NO_RUN_SHOWN, id="conv-coverage")
        yield BudgetFooter()

    def on_mount(self) -> None:
        if self.files is None:
            self.files = conversation_files(workbench(self).workspace.root)
        if not self.files:
            self._show_empty()
            return
        files = self.query_one("#conv-files", DataTable)
        files.add_column("E2E test file", key="file")
        for path in self.files:
            files.add_row(inert(path.name), key=str(path))
        # one file (a suite opened from the Suites panel): its name goes in the header and the
        # file list's columns go to the conversation
        files.display = len(self.files) != 1
        cases = self.query_one("#conv-cases", DataTable)
        cases.add_column("Status", key="status")
        cases.add_column("Test case", key="name")
        cases.add_column("Line", key="line")
        _turn_columns(self.query_one("#conv-turns", DataTable))
        self._show_items()
        if self.coverage is not None:
            self._show_coverage(*self.coverage)
        if self.ask_engine:
            self.progress = "the engine to run against: Enter runs"
            self.query_one("#conv-engine", Input).focus()
        else:
            (cases if self.items or not files.display else files).focus()
        self._header()
        if not self.items and len(self.files) == 1:
            self._load_latest(self.files[0])

    def _show_empty(self) -> None:
        """No E2E test file: say what to add instead of empty tables and dead keys."""
        root = workspace_root(self)
        where = inert(str(root)) if root is not None else "the workspace folder"
        text = Text("No conversation tests here yet.\n\n", style="bold")
        text.append(
            f"Conversation tests are Rasa Pro end-to-end test files (test_cases:). Add one to "
            f"{where}, as NAME.e2e.yml or in its tests/ folder (where a Rasa project keeps "
            "them), then open this screen again: each file is listed here and runs with r "
            "against a Rasa server (rasa:URL).\n\n"
        )
        text.append("Escape goes back.", style="italic")
        self.query_one("#conv-tabs").display = False
        empty = self.query_one("#conv-empty", Static)
        empty.update(text)
        empty.display = True
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Only the keys that do something now are in the footer: nothing but Back without a
        test file; Cancel while a run goes; Resume when the shown run can be resumed."""
        if action == "pop_screen":
            return True
        if not self.files:
            return False
        if action == "cancel":
            return self.run is not None
        if action == "export":
            return self.run is None and self.last_run is not None
        if action == "resume":
            return (
                self.run is None and self.last_run is not None and (self.last_run[1] in RESUMABLE)
            )
        return True

    @work(
        thread=True,
        exclusive=True,
        group="conversation-latest",
        exit_on_error=False,
        name="conversation-latest",
        description="Reading the last conversation run",
    )
    def _load_latest(self, path: Path) -> None:
        """Show the file's latest stored E2E run (its history stays in ``nlu-tui runs``)."""
        from nlu_tui.runsessions import store_for

        try:
            store = store_for(self.app)
            latest = next(
                (r for r in store.list_runs(path.resolve(), limit=20) if r.kind == "e2e"), None
            )
            items = store.load_items(latest.id) if latest is not None else []
        except Exception:  # no store yet, or one that cannot be read: nothing to show
            latest, items = None, []
        if latest is None:  # never run: its test cases, to look at and edit before a run
            try:
                unrun = not_run_items(path)
            except Exception:  # a bad file says so when it is run
                return
            self.app.call_from_thread(self._show_not_run, unrun)
            return
        if latest is not None and not self._engine_given:
            self.app.call_from_thread(self._last_engine, latest.engine_name)
        if latest.status.value in RESUMABLE:  # what `u` would still send, listed as not run
            stored = {i.item_id for i in items}
            with contextlib.suppress(Exception):
                items += [i for i in not_run_items(path) if i.item_id not in stored]
        if latest is not None:  # a run canceled before any test case finished has no items
            self.app.call_from_thread(self._show_stored, latest.id, latest.status.value, items)

    def _last_engine(self, engine: str) -> None:
        """The engine of the file's latest run, unless one was typed meanwhile."""
        field = self.query_one("#conv-engine", Input)
        if field.value == DEFAULT_ENGINE and engine:
            field.value = engine

    def _show_stored(self, run_id: str, status: str, items: list[StoredItem]) -> None:
        if self.run is not None or self.items:
            return  # a run started meanwhile: its own results win
        self.items = list(items)
        self.last_run = (run_id, status)
        self._load_coverage(run_id)
        self.progress = f"last run {run_id}: {status}" + self._resume_hint()
        if self.focused is self.query_one("#conv-engine", Input):
            self.progress += " · Enter runs again"
        self._show_items()
        self._header()

    def _show_not_run(self, items: list[StoredItem]) -> None:
        if self.run is not None or self.items:
            return
        self.items = items
        self.progress = "not run yet · r runs it"
        self._show_items()
        self._header()

    def palette_commands(self) -> list[PaletteCommand]:
        return [
            PaletteCommand("conversation: Run", self.action_run, "Run the selected E2E file"),
            PaletteCommand("conversation: Cancel", self.action_cancel, "Cancel the run"),
            PaletteCommand(
                "conversation: Resume",
                self.action_resume,
                "Finish the canceled or interrupted run of the file",
            ),
            PaletteCommand(
                "conversation: Export…",
                self.action_export,
                "The shown run as an HTML page or a Markdown summary",
            ),
            PaletteCommand(
                "conversation: Coverage",
                self.action_coverage,
                "Flow steps visited in the shown run and the change since the previous run",
            ),
            PaletteCommand(
                "conversation: Edit failed step",
                self.action_edit_failed,
                "Open the selected test case in the editor, on its failed step",
            ),
        ]

    # --- showing ----------------------------------------------------------------------------

    def _header(self) -> None:
        passed = sum(i.outcome == "passed" for i in self.items)
        failed = sum(i.outcome == "failed" for i in self.items)
        errors = sum(i.outcome == "error" for i in self.items)
        if self.files is not None and len(self.files) == 1:  # the suite's own screen
            text = Text(f"⇄ {inert(self.files[0].name)}", style="bold")
        else:
            text = Text("Conversation tests", style="bold")
        if self.items and all(i.outcome == NOT_RUN for i in self.items):
            text.append(f"  {counted(len(self.items), 'test case')}")
        elif self.items or self.progress:
            text.append(f"  {passed} passed, {failed} failed")
            if errors:
                text.append(f", {counted(errors, 'error')}")
        if self.progress:
            text.append(f"  {self.progress}", style="italic")
        self.query_one("#conv-header", Static).update(text)
        self.refresh_bindings()  # Cancel and Resume follow the run

    def _show_items(self) -> None:
        cases = self.query_one("#conv-cases", DataTable)
        cases.clear()
        for item in sorted(self.items, key=lambda i: i.seq):
            label, style = STATUS_STYLE.get(item.outcome, (item.outcome, ""))
            cases.add_row(
                Text(label, style=style),
                Text(inert(str(item.data.get("name")))),
                str(item.data.get("line") or ""),
                key=item.item_id,
            )
        if self.items:
            self._show_turns(sorted(self.items, key=lambda i: i.seq)[0])
        else:  # no test case (yet): no conversation of an earlier run may linger
            self.query_one("#conv-turns", DataTable).clear()
            self.query_one("#conv-diff", Static).update("")

    def _show_turns(self, item: StoredItem) -> None:
        turns = self.query_one("#conv-turns", DataTable)
        turns.clear()
        cells = []
        for row in conversation_rows(item.data):
            mark, style = ROW_STYLE.get(row.status, ("", ""))
            expected = Text(
                f"{row.kind}: {inert(row.expected)}" if row.expected else row.kind,
                no_wrap=True,
                overflow="ellipsis",
            )
            actual = Text(
                inert(row.actual),
                style="red" if row.status == MISMATCH else "",
                no_wrap=True,
                overflow="ellipsis",
            )
            if row.status == MISMATCH:
                expected.stylize("green")
            cells.append((Text(str(row.position + 1)), Text(mark, style=style), expected, actual))
            turns.add_row(*cells[-1])
        # the widths fit this test case: the table's own only grow, so one long step of another
        # test case kept Expected wide and cut what the bot did (Actual) off the screen
        self._turn_widths = [
            max([column.label.cell_len, *(row[n].cell_len for row in cells)])
            for n, column in enumerate(turns.columns.values())
        ]
        fit_turn_columns(turns, self._turn_widths)
        self.query_one("#conv-diff", Static).update(diff_text(item))

    def on_resize(self) -> None:
        """Fit the turns table again to its new width (and once it is first laid out)."""
        if self._turn_widths:
            self.call_after_refresh(
                fit_turn_columns, self.query_one("#conv-turns", DataTable), self._turn_widths
            )

    @on(DataTable.RowHighlighted, "#conv-cases")
    def _case_selected(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value
        for item in self.items:
            if item.item_id == key:
                self._show_turns(item)
                return

    # --- editing ----------------------------------------------------------------------------

    def _selected_item(self) -> StoredItem | None:
        cases = self.query_one("#conv-cases", DataTable)
        ordered = sorted(self.items, key=lambda i: i.seq)
        if not ordered or not 0 <= cases.cursor_row < len(ordered):
            return None
        return ordered[cases.cursor_row]

    @on(DataTable.RowSelected, "#conv-cases")
    def _edit_case(self, event: DataTable.RowSelected) -> None:
        """Enter on a test case: the editor, on its failed step when it failed."""
        item = self._selected_item()
        failed = failed_step(item.data) if item is not None else None
        self.edit(focus_step=failed or 0)

    @on(DataTable.RowSelected, "#conv-turns")
    def _edit_step(self, event: DataTable.RowSelected) -> None:
        self.edit(focus_step=event.cursor_row)

    def action_edit_failed(self) -> None:
        """Jump from the selected test case's failed step to the editor."""
        item = self._selected_item()
        failed = failed_step(item.data) if item is not None else None
        if failed is None:
            self.notify("The selected test case has no failed step.", severity="warning")
            return
        self.edit(focus_step=failed)

    def edit(self, focus_step: int = 0) -> None:
        """Open the selected test case in the step editor, on ``focus_step`` (its failed step
        is marked there, with what went wrong)."""
        from nlu_tui.ui.screens.e2e_case_editor import E2ECaseEditor

        item = self._selected_item()
        if item is None or not item.data.get("file"):
            return
        failed = failed_step(item.data)
        failure = ""
        if failed is not None:
            rows = conversation_rows(item.data)
            row = rows[failed] if failed < len(rows) else None
            if row is not None:
                failure = f"expected {row.kind}: {row.expected}; got {row.actual or 'nothing'}"
        try:
            editor = E2ECaseEditor(
                Path(str(item.data["file"])),
                str(item.data.get("name")),
                item.data.get("line"),
                focus_step,
                failed_step=failed,
                failure=failure,
            )
        except Exception as exc:  # the file is gone or no longer reads: said, nothing opens
            self.progress = f"cannot edit: {exc}"
            self._header()
            return

        def done(saved: bool | None) -> None:
            if saved:
                self.progress = f"saved {editor.path.name}" + "".join(
                    f" ({note})" for note in editor.notes
                )
                self._header()

        self.app.push_screen(editor, done)

    # --- running ----------------------------------------------------------------------------

    def action_coverage(self) -> None:
        """``v``: the Coverage tab, or back to the test cases from it."""
        tabs = self.query_one("#conv-tabs", TabbedContent)
        # focus goes with the tab: a focused widget of the hidden tab would switch back to it
        if tabs.active == COVERAGE_TAB:
            tabs.active = CASES_TAB
            self.query_one("#conv-cases", DataTable).focus()
        else:
            tabs.active = COVERAGE_TAB
            self.query_one("#conv-coverage-scroll", VerticalScroll).focus()

    def _show_coverage(
        self, current: dict[str, Any] | None, previous: dict[str, Any] | None
    ) -> None:
        from nlu_tui.views.flow_coverage_text import coverage_text

        self.query_one("#conv-coverage", Static).update(coverage_text(current, previous))

    @work(
        thread=True,
        exclusive=True,
        group="conversation-coverage",
        exit_on_error=False,
        name="conversation-coverage",
        description="Reading the run's flow coverage",
    )
    def _load_coverage(self, run_id: str) -> None:
        """The flow coverage kept with the shown run (``--coverage-report``) and with the
        previous run of the same tests, for the Coverage tab."""
        from nlu_tui.coverage_reports import SUMMARY_KEY, previous_coverage
        from nlu_tui.runsessions import store_for

        store = store_for(self.app)
        run = store.get_run(run_id)
        current = (run.summary or {}).get(SUMMARY_KEY)
        previous = previous_coverage(store, run) if current else None
        self.app.call_from_thread(self._show_coverage, current, previous)

    def action_export(self) -> None:
        """``x``: the shown run as an HTML page or a Markdown summary (as ``nlu-tui show RUN
        -f html|markdown -o FILE`` writes them), by default beside the test file."""
        from nlu_tui.ui.screens.page_export import export_run_page

        if self.run is not None or self.last_run is None:
            self.notify("Run the file first (r): then its run can be exported.", timeout=3)
            return
        files = self.files or []
        table = self.query_one("#conv-files", DataTable)
        path = files[min(table.cursor_row, len(files) - 1)] if files else None
        export_run_page(self, self.last_run[0], path)

    def action_focus_engine(self) -> None:
        self.query_one("#conv-engine", Input).focus()

    @on(Input.Submitted, "#conv-engine")
    def _engine_entered(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#conv-cases", DataTable).focus()
        self.action_run()

    def action_cancel(self) -> None:
        if self.run is not None:
            self.run.cancel()

    def _resume_hint(self) -> str:
        resumable = self.last_run is not None and self.last_run[1] in RESUMABLE
        return " · u resumes" if resumable and self.run is None else ""

    def action_run(self) -> None:
        if self.run is not None or not self.files:
            return
        files = self.query_one("#conv-files", DataTable)
        row = files.cursor_row if files.row_count else 0
        path = self.files[min(row, len(self.files) - 1)]
        engine = self.query_one("#conv-engine", Input).value.strip() or DEFAULT_ENGINE
        self._start(path, engine)

    def _remember_engine(self, final: Any) -> None:
        """A conversation run that succeeded offers its engine (the ``rasa:`` URL) to every
        suite of the workspace."""
        from nlu_tui.engines.choices import remember_engine
        from nlu_tui.model import RunStatus

        root = workspace_root(self)
        if root is not None and final.status in (RunStatus.SUCCESS, RunStatus.SUCCESS_WITH_WARNING):
            with contextlib.suppress(OSError):
                remember_engine(root, final.engine_name)

    def action_resume(self) -> None:
        """Finish the shown run when it was canceled or interrupted: only the test cases not
        stored are sent (the file must be unchanged since)."""
        if self.run is not None:
            return
        if self.last_run is None or self.last_run[1] not in RESUMABLE:
            self.notify(
                "No canceled or interrupted run of this file to resume.", severity="warning"
            )
            return
        self._start(None, None, resume=self.last_run[0])

    @work(
        exclusive=True,
        group="conversation-run",
        exit_on_error=False,
        name="conversation-run",
        description="Running the conversation tests",
    )
    async def _start(
        self, path: Path | None, engine: str | None, resume: str | None = None
    ) -> None:
        from nlu_tui.conversation.service import ConversationRequest, open_conversation_run
        from nlu_tui.runsessions import store_for

        store = store_for(self.app)
        try:
            request = ConversationRequest(kind="e2e", path=path, engine=engine, resume=resume)
            run = open_conversation_run(request, store)
            run.prepare()
            stored = store.load_items(run.run_id) if resume else []
        except Exception as exc:  # bad file or engine: one line, nothing stored
            self.progress = f"cannot {'resume' if resume else 'run'}: {exc}"
            self._header()
            return
        self.run = run
        self.last_run = (run.run_id, "running")
        self.items = list(stored)
        self._show_items()

        def on_progress(p: Any) -> None:
            self.progress = f"{p.done}/{p.total} done" + (
                " (finished)" if p.final else " · c cancels"
            )
            if p.last is not None:
                self.items.append(p.last)
                self._show_items()
            self._header()

        run.on_progress = on_progress
        try:
            final = await run.execute()
            self.last_run = (final.id, final.status.value)
            self._load_coverage(final.id)
            self._remember_engine(final)
            reason = final.reason if final.reason != final.status.value else ""
            self.progress = f"run {final.id}: {final.status.value}" + (
                f" ({reason})" if reason else ""
            )
        finally:
            self.run = None
        self.progress += self._resume_hint()
        self._header()
