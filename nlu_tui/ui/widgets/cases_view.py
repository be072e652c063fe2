"""The cases table of the open suite: filter, sort, multi-select, bulk actions and edits.

Rows live in an Arrow table shown by ``textual-fastdatatable`` (mounting 100,000 rows takes a
fraction of a second, where Textual's DataTable takes seconds). Filtering and sorting build a
new Arrow table in a thread worker and swap the table widget, as the library recommends. Cells
are rendered without markup, so utterances such as ``[bold red]x[/]`` show literally.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Label, Static
from textual.worker import Worker, WorkerState, get_current_worker

from nlu_tui.case_form import (
    known_tags,
    split_list,
)
from nlu_tui.errors import ConflictError
from nlu_tui.model import Suite, TestCase
from nlu_tui.textsafe import inert
from nlu_tui.ui.commands import PaletteCommand
from nlu_tui.ui.messages import SuiteChanged
from nlu_tui.ui.state import cursor_blinks, workbench
from nlu_tui.ui.workers import ReportsFailedWorkers, describe
from nlu_tui.views.cases import (
    COLUMNS,
    SEL_MARK,
    RowCache,
    build_arrow,
    format_row,
    validate_problems,
    view_table,
)

if TYPE_CHECKING:
    from nlu_tui.workspace import Workspace

MIN_WIDTHS = {"utterance": 22, "intents": 22, "parent": 6, "entities": 10, "order": 6, "tags": 5}
"""How narrow a text column may get (its text then ends in "…") so that every column fits
at 120 columns; below that the table scrolls right a column at a time."""
SHRINK_FIRST = ["tags", "order", "parent", "entities", "intents", "utterance"]
"""Which columns give up width first when the table is narrower than the columns."""
UNDO_DEPTH = 20
NO_SUITE = (
    "No suite open: pick one on the left, or in the suites panel (F2) press n for a new suite"
    " or i to import a file (Kore.ai, Rasa, NLU.DevOps, LUIS)."
)
"""What an empty workspace shows a newcomer instead of an empty table."""


class PartialRows:
    """The rows of a suite that is still being read, grown a chunk at a time (in a worker).

    Each chunk becomes its own Arrow table (only the new cases are formatted); the shown table
    is their concatenation, in file order. The formatted rows are kept so that the build of
    the complete suite afterwards does not format the same cases again.
    """

    def __init__(self) -> None:
        self.cases: list[TestCase] = []
        self.row_cache: RowCache = {}
        self._tables: list[Any] = []

    def add(self, cases: Sequence[TestCase]) -> None:
        import pyarrow as pa

        if not cases:
            return
        cache: RowCache = {}
        table = build_arrow(cases, set(), {}, cache)
        start = len(self.cases) + 1
        positions = pa.array(range(start, start + len(cases)), type=pa.int64())
        table = table.set_column(table.schema.get_field_index("n"), "n", positions)
        self._tables.append(table.select([key for key, _, _ in COLUMNS]))
        self.row_cache.update(cache)
        self.cases.extend(cases)

    def view(self) -> tuple[list[TestCase], Any, Any]:
        """A snapshot for the UI thread: (cases so far, their positions, an Arrow backend)."""
        import pyarrow as pa

        table = pa.concat_tables(self._tables)
        return list(self.cases), table.column("n").combine_chunks(), make_backend(table)


def make_backend(table: Any) -> Any:
    """An Arrow backend with fixed column widths, so 100,000 cells are never measured."""
    from textual_fastdatatable import ArrowBackend

    class FixedWidthBackend(ArrowBackend):
        @property
        def column_content_widths(self) -> list[int]:
            return [w for _, _, w in COLUMNS]

    return FixedWidthBackend(table)


class CasesView(ReportsFailedWorkers, Vertical):
    """Filter box, the table, and a status line; owns the open suite's edits and undo."""

    BINDINGS = [
        Binding("a,insert", "add", "Add", id="cases.add", tooltip="Add cases (one per line)."),
        Binding("e", "edit", "Edit", id="cases.edit", tooltip="Edit the case under the cursor."),
        Binding(
            "space",
            "toggle_select",
            "Select",
            id="cases.select",
            tooltip="Mark or unmark the case under the cursor for bulk actions.",
        ),
        Binding(
            "A,ctrl+a",
            "select_all",
            "All",
            show=False,
            id="cases.select-all",
            tooltip="Mark every shown case (again: unmark all).",
        ),
        Binding("t", "tag", "Tag", id="cases.tag", tooltip="Add tags to the marked cases."),
        Binding(
            "G",
            "generate",
            "Generate…",
            id="cases.generate",
            tooltip="Generate test cases for an intent with an LLM, review them, add them.",
        ),
        Binding(
            "delete,D",
            "delete",
            "Delete",
            id="cases.delete",
            tooltip="Delete the marked cases (or the one under the cursor).",
        ),
        Binding(
            "m",
            "move",
            "Move",
            show=False,
            id="cases.move",
            tooltip="Move the marked cases to another suite.",
        ),
        Binding(
            "slash,f",
            "focus_filter",
            "Filter",
            key_display="/",
            id="cases.filter",
            tooltip="Filter: words, intent:X, tag:X, entity:X, has:entities, has:problems.",
        ),
        Binding(
            "s",
            "sort_next",
            "Sort",
            id="cases.sort",
            tooltip="Sort by the next column (1-9 pick a column; again reverses).",
        ),
        Binding(
            "ctrl+z,z",
            "undo",
            "Undo",
            id="cases.undo",
            tooltip="Undo the last change to this suite.",
        ),
        *[
            Binding(str(n), f"sort_column({n - 1})", show=False, id=f"cases.sort-{n}")
            for n in range(1, 10)
        ],
    ]

    def __init__(self) -> None:
        super().__init__(id="cases-view")
        self.suite: Suite | None = None
        self.problems: dict[str, int] = {}
        self.problem_text: dict[str, list[str]] = {}
        self.selected: set[str] = set()
        self.sort: tuple[str, bool] | None = None
        self.view_cases: list[TestCase] = []
        self.view_positions: Any = None
        self._row_cache: RowCache = {}
        self.undo_stack: list[tuple[str, list[TestCase]]] = []
        self._full: tuple[int, Any] | None = None
        self._data_version = 0
        self._save_lock = threading.Lock()
        self._swap_lock = asyncio.Lock()
        self._pending_swaps = 0
        self.last_build_ms: float = 0.0
        self.views_shown = 0
        """How many times rows were put on screen (a mount or an in-place swap); tests and the
        benchmark wait on it."""
        self.loading_path: Path | None = None
        """The suite being read progressively: its first cases may be shown, but nothing can be
        edited, sorted or filtered until the complete suite is in (``app.suite``)."""
        self.loading_fraction = 0.0
        self.partial_views = 0
        """How many times a still-loading suite's rows were put on screen."""
        self.wants_preview = True
        """True until the first suite's first rows are drawn: they are drawn by a
        :class:`TablePreview` at once, while the table and its Arrow data are built."""
        self.previewing = False
        """A preview is on screen (the real table is being built)."""
        self._announced = False

    class FirstShown(Message):
        """The cases area first shows a suite's table (or why it cannot): the first screen is
        complete and usable, and the main screen mounts what it deferred."""

    @property
    def workspace(self) -> Workspace:
        return workbench(self).workspace

    def compose(self) -> ComposeResult:
        with Horizontal(id="filter-row"):
            yield Input(
                placeholder="/ filter: words  intent:X  tag:X  entity:X  has:entities  has:problems",
                id="filter",
            )
        yield Vertical(Static(NO_SUITE, classes="placeholder"), id="cases-host")
        yield Label("", id="cases-status", markup=False)

    def on_mount(self) -> None:
        self.query_one("#filter", Input).cursor_blink = cursor_blinks(self)
        self.watch(workbench(self), "suite", self._suite_set, init=False)

    # --- showing ----------------------------------------------------------------------------

    chunk_size = 2000
    """Cases per progressive-load chunk (tests use smaller ones)."""

    def show_loading(self, path: Path) -> None:
        self.loading_path = path
        self.loading_fraction = 0.0
        self.view_cases = []
        self.view_positions = None
        self._set_host(
            Static(inert(f"Loading {path.name}…"), classes="placeholder loading", markup=False)
        )
        self._update_status()

    def show_error(self, text: str) -> None:
        self.loading_path = None
        self.view_cases = []
        self.view_positions = None
        self._set_host(Static(inert(text), classes="placeholder", markup=False))

    def show_partial(
        self, path: Path, cases: list[TestCase], positions: Any, backend: Any, fraction: float
    ) -> None:
        """Show the first cases of a suite still being read (file order, read-only)."""
        if self.loading_path != path:
            return  # a stale chunk of a suite no longer being opened
        self.view_cases = cases
        self.view_positions = positions
        self.loading_fraction = fraction
        self.partial_views += 1
        current = self.table
        if current is not None and self._pending_swaps == 0:
            from nlu_tui.ui.widgets.fast_table import swap_backend

            swap_backend(current, backend)
            self.views_shown += 1
            self._update_status()
            return
        self._set_host(self._new_table(backend, [label for _, label, _ in COLUMNS]))

    def show_preview(
        self,
        path: Path | None,
        cases: Sequence[TestCase],
        total_rows: int,
        then: Callable[[], object],
    ) -> None:
        """Draw the first screenful of ``cases`` (a :class:`TablePreview`), then call ``then``
        once it is on screen, to build the real table. Stale (another suite is being opened
        by now): nothing is drawn and ``then`` is called at once."""
        self.wants_preview = False
        current = self.loading_path or (self.suite.path if self.suite is not None else None)
        if path != current:
            then()
            return
        from nlu_tui.ui.widgets.table_preview import TablePreview

        labels, widths, mins, order = self._fit()
        page = max(self.size.height, 50)
        rows = [(n, "", None, *format_row(case)[:6]) for n, case in enumerate(cases[:page], 1)]
        self.previewing = True
        preview = TablePreview(
            labels,
            rows,
            total_rows=total_rows,
            widths=widths,
            min_widths=mins,
            shrink_order=order,
            id="cases-preview",
        )
        self._set_host(preview, then=then)

    def _set_host(
        self,
        widget: Widget,
        cursor_row: int | None = None,
        *,
        then: Callable[[], object] | None = None,
    ) -> None:
        """Swap what the table area shows; swaps run one at a time, in order. ``then`` is
        called once the new content has been painted."""
        self._pending_swaps += 1
        if widget.id != "cases-preview":
            self.previewing = False
        self.call_later(self._swap, widget, cursor_row, then)

    async def _swap(
        self, widget: Widget, cursor_row: int | None, then: Callable[[], object] | None = None
    ) -> None:
        async with self._swap_lock:
            host = self.query_one("#cases-host")
            old = self.table
            had_focus = old is not None and old.has_focus
            await host.remove_children()
            await host.mount(widget)
            if cursor_row is not None:
                table: Any = widget  # the cases table (a fastdatatable subclass)
                table.move_cursor(row=cursor_row)
            if had_focus and widget.can_focus:
                widget.focus()
            if widget.id == "cases-table":
                self.views_shown += 1
            self._pending_swaps -= 1
            self._update_status()
            if then is not None:
                self.call_after_refresh(then)
            if widget.id != "cases-preview" and "loading" not in widget.classes:
                self._announce()  # the table, or why there is none

    def _announce(self) -> None:
        if not self._announced:
            self._announced = True
            self.post_message(self.FirstShown())

    @property
    def table(self) -> Any:
        from_host = self.query("#cases-table")
        return from_host.first() if from_host else None

    def focus_table(self) -> None:
        table = self.table
        if table is not None:
            table.focus()

    def reuse_rows(self, cache: RowCache) -> None:
        """Keep rows formatted during a progressive load for the complete suite's build."""
        self._row_cache = cache

    def _suite_set(self, suite: Suite | None) -> None:
        if suite is self.suite:
            return
        if self.suite is None or suite is None or suite.path != self.suite.path:
            self.undo_stack.clear()
            self.selected.clear()
        self.suite = suite
        self.loading_path = None
        self.problems = {}
        self.problem_text = {}
        self._invalidate()
        if suite is not None and suite.cases and self.wants_preview and self.table is None:
            self.show_preview(suite.path, suite.cases, len(suite.cases), self._rebuild_validated)
            return
        self.rebuild(validate=True)

    @on(Worker.StateChanged)
    def _build_failed(self, event: Worker.StateChanged) -> None:
        """A table that could not be built says so where it would be (the failure itself is
        notified and logged by :func:`~nlu_tui.ui.workers.report_failed_worker`)."""
        worker = event.worker
        if event.state is not WorkerState.ERROR or worker.group != "cases-build":
            return
        if worker.is_cancelled or self.suite is None:
            return
        self.show_error(
            f"{_name(self.suite)}: the cases could not be shown ({type(worker.error).__name__}: "
            f"{worker.error}). The details are in the log file; pick the suite again to retry."
        )

    def _rebuild_validated(self) -> None:
        self.rebuild(validate=True)

    def rebuild(self, *, validate: bool = False, keep_cursor: str | None = None) -> None:
        """Recompute the rows (in a worker) and then the problems, when asked."""
        if self.suite is None or self.loading_path is not None:
            return
        query = self.query_one("#filter", Input).value
        cursor_id = keep_cursor or self.cursor_case_id()
        self._build(self.suite, query, self.sort, self._data_version, cursor_id, validate)

    def _invalidate(self) -> None:
        """The rows' content changed (cases, marks or problems): rebuild the full table."""
        self._data_version += 1

    @work(
        thread=True,
        exclusive=True,
        group="cases-build",
        exit_on_error=False,
        name="cases-build",
        description="Showing the cases",
    )
    def _build(
        self,
        suite: Suite,
        query: str,
        sort: tuple[str, bool] | None,
        version: int,
        cursor_id: str | None,
        validate: bool,
    ) -> None:
        import time

        started = time.perf_counter()
        describe(f"Showing the cases of {_name(suite)}")
        worker = get_current_worker()
        cases = suite.cases
        cached = self._full
        if cached is not None and cached[0] == version:
            full = cached[1]
        else:
            full = build_arrow(cases, set(self.selected), dict(self.problems), self._row_cache)
            self._full = (version, full)
        if worker.is_cancelled:
            return
        table = view_table(full, query, sort)
        positions = table.column("n").combine_chunks()
        row: int | None = None
        if cursor_id is not None:
            at = next((i for i, c in enumerate(cases) if c.id == cursor_id), None)
            if at is not None:
                import pyarrow.compute as pc

                found = pc.index(positions, at + 1).as_py()
                row = found if found >= 0 else None
        backend = make_backend(table)
        # the table widget's module, imported here rather than in the UI thread
        import textual_fastdatatable.data_table  # noqa: F401

        elapsed = (time.perf_counter() - started) * 1000
        if worker.is_cancelled:
            return
        self.app.call_from_thread(self._mount_table, suite, cases, backend, positions, row, elapsed)
        if validate:
            self.app.call_from_thread(self._validate_later, suite)

    def _mount_table(
        self,
        suite: Suite,
        cases: list[TestCase],
        backend: Any,
        positions: Any,
        row: int | None,
        ms: float,
    ) -> None:
        if suite is not self.suite or cases is not suite.cases or self.loading_path is not None:
            return
        self.view_cases = cases
        self.view_positions = positions
        self.last_build_ms = ms
        labels = [self._label(key, label) for key, label, _ in COLUMNS]
        current = self.table
        if current is not None and self._pending_swaps == 0:
            # a new sort, filter or edit of the table on screen: swap its rows in place
            # (a remount of 100,000 rows costs about half a second)
            from nlu_tui.ui.widgets.fast_table import swap_backend

            swap_backend(current, backend, cursor_row=row or 0, column_labels=labels)
            self.views_shown += 1
            self._update_status()
            return
        self._set_host(self._new_table(backend, labels), row)

    @staticmethod
    def _fit() -> tuple[list[str], list[int], list[int], list[int]]:
        """The table's column labels, content widths, narrowest widths and shrink order."""
        keys = [key for key, _, _ in COLUMNS]
        widths = [w for _, _, w in COLUMNS]
        mins = [MIN_WIDTHS.get(key, w) for key, w in zip(keys, widths, strict=True)]
        return (
            [label for _, label, _ in COLUMNS],
            widths,
            mins,
            [keys.index(k) for k in SHRINK_FIRST],
        )

    def _new_table(self, backend: Any, labels: list[str]) -> Widget:
        from textual_fastdatatable import DataTable

        _, widths, mins, order = self._fit()
        table = CasesTable(
            backend=backend,
            id="cases-table",
            cursor_type="row",
            render_markup=False,
            column_labels=labels,
            column_widths=widths,
            max_column_content_width=60,
            zebra_stripes=True,
        )
        assert isinstance(table, DataTable)
        fit: Any = table
        fit.set_fit(
            widths, mins, shrink_order=order, width_hint=self._table_width(backend.row_count)
        )
        return table

    def _table_width(self, rows: int) -> int:
        """The width the table's cells will have in the table area."""
        from nlu_tui.ui.widgets.fast_table import cells_width

        width, height = self.query_one("#cases-host").size
        return cells_width(width, height, rows)

    def _validate_later(self, suite: Suite) -> None:
        self._validate_worker(suite, suite.cases)

    @work(
        thread=True,
        exclusive=True,
        group="cases-validate",
        exit_on_error=False,
        name="cases-validate",
        description="Checking the cases for problems",
    )
    def _validate_worker(self, suite: Suite, cases: list[TestCase]) -> None:
        worker = get_current_worker()
        problems = validate_problems(suite)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._problems_ready, suite, cases, problems)

    @property
    def view_ids(self) -> list[str]:
        """Case ids in the order the table shows them."""
        cases = self.view_cases
        return [cases[n - 1].id for n in self.view_positions.to_pylist()] if cases else []

    @property
    def shown_count(self) -> int:
        return len(self.view_positions) if self.view_positions is not None else 0

    def _label(self, key: str, label: str) -> str:
        if self.sort and self.sort[0] == key:
            return f"{label} {'▼' if self.sort[1] else '▲'}"
        return label

    def _problems_ready(
        self, suite: Suite, cases: list[TestCase], problems: dict[str, list[str]]
    ) -> None:
        if suite is not self.suite or cases is not suite.cases:
            return
        self.problem_text = problems
        counts = {cid: len(p) for cid, p in problems.items() if p}
        if counts != self.problems:
            self.problems = counts
            self._invalidate()
            self.rebuild()
        self._update_status()

    def _update_status(self) -> None:
        if self.loading_path is not None:
            self.query_one("#cases-status", Label).update(
                inert(
                    f"loading {self.loading_path.name} {self.loading_fraction:.0%}… · "
                    f"{self.shown_count} cases so far · editing once loaded",
                    newlines=False,
                )
            )
            return
        suite = self.suite
        if suite is None:
            return
        if self.previewing:  # the first rows are drawn; the table is on its way
            self.query_one("#cases-status", Label).update(f"{len(suite.cases)} cases")
            return
        shown = self.shown_count
        parts = [f"{shown} of {len(suite.cases)} cases"]
        if self.selected:
            parts.append(f"{len(self.selected)} marked")
        if self.problems:
            parts.append(f"{len(self.problems)} with problems")
        if self.sort:
            label = next(lbl for k, lbl, _ in COLUMNS if k == self.sort[0])
            parts.append(f"sorted by {label} {'▼' if self.sort[1] else '▲'}")
        if suite.read_only:
            parts.append("read-only")
        if suite.path is not None and self.workspace.is_unsaved(suite.path):
            parts.insert(0, "⚠ NOT SAVED (Ctrl+S saves again)")
        case_id = self.cursor_case_id()
        if case_id and self.problem_text.get(case_id):
            parts.append("⚠ " + inert(self.problem_text[case_id][0], newlines=False))
        self.query_one("#cases-status", Label).update(" · ".join(parts))

    # --- cursor and selection -------------------------------------------------------------------

    def cursor_case_id(self) -> str | None:
        table = self.table
        if table is None or not self.shown_count:
            return None
        row = table.cursor_row
        if not 0 <= row < self.shown_count:
            return None
        n: int = self.view_positions[row].as_py()
        return self.view_cases[n - 1].id

    def case_by_id(self, case_id: str) -> TestCase | None:
        if self.suite is None:
            return None
        return next((c for c in self.suite.cases if c.id == case_id), None)

    def target_ids(self) -> list[str]:
        """The marked cases, or the one under the cursor when none are marked."""
        if self.selected:
            return [i for i in self.view_ids if i in self.selected] or list(self.selected)
        case_id = self.cursor_case_id()
        return [case_id] if case_id else []

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.rebuild()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.focus_table()

    def on_data_table_row_highlighted(self, event: Any) -> None:
        self._update_status()

    def on_data_table_row_selected(self, event: Any) -> None:
        self.action_edit()

    def on_data_table_header_selected(self, event: Any) -> None:
        self.action_sort_column(event.column_index)

    def action_focus_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_toggle_select(self) -> None:
        if self.loading_path is not None:
            return
        table = self.table
        case_id = self.cursor_case_id()
        if table is None or case_id is None:
            return
        if case_id in self.selected:
            self.selected.discard(case_id)
        else:
            self.selected.add(case_id)
        table.update_cell(table.cursor_row, 1, SEL_MARK if case_id in self.selected else "")
        self._invalidate()
        if table.cursor_row + 1 < self.shown_count:
            table.move_cursor(row=table.cursor_row + 1)
        self._update_status()

    def action_select_all(self) -> None:
        if self.loading_path is not None:
            return
        shown = set(self.view_ids)
        if shown and shown <= self.selected:
            self.selected -= shown
        else:
            self.selected |= shown
        self._invalidate()
        self.rebuild()

    def action_sort_column(self, index: int) -> None:
        if not 0 <= index < len(COLUMNS):
            return
        key = COLUMNS[index][0]
        if key == "sel":
            return
        if self.sort and self.sort[0] == key:
            self.sort = (key, not self.sort[1])
        else:
            self.sort = (key, False)
        self.rebuild()

    def action_sort_next(self) -> None:
        keys = [k for k, _, _ in COLUMNS if k != "sel"]
        current = keys.index(self.sort[0]) if self.sort else -1
        key = keys[(current + 1) % len(keys)]
        self.sort = (key, False)
        self.rebuild()

    # --- edits --------------------------------------------------------------------------------

    def _editable(self) -> Suite | None:
        if self.loading_path is not None:
            self.notify("The suite is still loading; edit it once it is in.", severity="warning")
            return None
        suite = self.suite
        if suite is None:
            self.notify("Open a suite first.", severity="warning")
            return None
        if suite.read_only:
            self.notify("This suite is read-only; duplicate it to edit.", severity="warning")
            return None
        return suite

    def action_add(self) -> None:
        self._open_editor(None)

    def action_edit(self) -> None:
        case_id = self.cursor_case_id()
        if case_id is not None:
            self._open_editor(case_id)

    def edit_case(self, case_id: str) -> None:
        """Open the editor on a case (used by results views: "edit this case")."""
        self._open_editor(case_id)

    def _open_editor(self, case_id: str | None) -> None:
        from nlu_tui.ui.screens.case_editor import CaseEditorScreen

        suite = self._editable()
        if suite is None:
            return
        case = self.case_by_id(case_id) if case_id else None

        def done(result: list[TestCase] | None) -> None:
            if not result:
                return
            cases = list(suite.cases)
            if case is None:
                cases.extend(result)
                what = f"Added {len(result)} case{'s' if len(result) != 1 else ''}"
            else:
                index = next(i for i, c in enumerate(cases) if c.id == case.id)
                cases[index : index + 1] = result
                what = "Edited a case"
            self.apply_change(what, cases, cursor=result[0].id)

        self.app.push_screen(CaseEditorScreen(suite, case, self._training_intents()), done)

    def action_generate(self) -> None:
        """The "Generate…" dialog; the accepted cases are appended and saved like an add."""
        from nlu_tui.ui.screens.generate_dialog import GenerateScreen

        suite = self._editable()
        if suite is None:
            return
        intents = list(dict.fromkeys([*self._training_intents(), *suite.intents_covered()]))
        current = self.case_by_id(self.cursor_case_id() or "") if self.cursor_case_id() else None
        intent = current.intents[0].name if current is not None and current.intents else None

        def done(result: list[TestCase] | None) -> None:
            if result:
                what = f"Added {len(result)} generated case{'s' if len(result) != 1 else ''}"
                self.apply_change(what, [*suite.cases, *result], cursor=result[0].id)

        self.app.push_screen(GenerateScreen(suite, intents, intent), done)

    def _training_intents(self) -> list[str]:
        return workbench(self).training_intents

    def action_tag(self) -> None:
        from nlu_tui.ui.screens.dialogs import PromptScreen

        suite = self._editable()
        ids = self.target_ids()
        if suite is None or not ids:
            return

        def tagged(text: str | None) -> None:
            tags = split_list(text or "")
            if not tags:
                return
            wanted = set(ids)
            cases = [
                replace(c, tags=c.tags + [t for t in tags if t not in c.tags])
                if c.id in wanted
                else c
                for c in suite.cases
            ]
            self.apply_change(f"Tagged {len(ids)} cases", cases)

        self.app.push_screen(
            PromptScreen(
                f"Add tags to {len(ids)} case(s)",
                "tags, separated by commas",
                suggestions=known_tags(suite),
            ),
            tagged,
        )

    def action_delete(self) -> None:
        from nlu_tui.ui.screens.dialogs import ConfirmDialog

        suite = self._editable()
        ids = self.target_ids()
        if suite is None or not ids:
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                gone = set(ids)
                self.selected -= gone
                cases = [c for c in suite.cases if c.id not in gone]
                self.apply_change(f"Deleted {len(gone)} cases", cases)

        self.app.push_screen(
            ConfirmDialog(f"Delete {len(ids)} case(s)? Undo with z or Ctrl+Z."), confirmed
        )

    def action_move(self) -> None:
        from nlu_tui.ui.screens.dialogs import PickSuiteScreen

        suite = self._editable()
        ids = self.target_ids()
        if suite is None or not ids:
            return
        others = [p for p in self.workspace.suite_paths() if p != suite.path]
        if not others:
            self.notify("There is no other suite to move to.", severity="warning")
            return

        def picked(target: Path | None) -> None:
            if target is not None:
                self._move_to(suite, ids, target)

        self.app.push_screen(PickSuiteScreen(f"Move {len(ids)} case(s) to…", others), picked)

    @work(
        thread=True,
        group="cases-save",
        exit_on_error=False,
        name="cases-move",
        description="Moving cases",
    )
    def _move_to(self, suite: Suite, ids: list[str], target: Path) -> None:
        wanted = set(ids)
        moving = [c for c in suite.cases if c.id in wanted]
        try:
            self.workspace.append_cases(target, moving)
        except Exception as exc:
            self.app.call_from_thread(
                self.notify, escape(str(exc)), title="Cannot move", severity="error"
            )
            return
        remaining = [c for c in suite.cases if c.id not in wanted]

        def finish() -> None:
            self.selected -= wanted
            self.apply_change(f"Moved {len(moving)} cases to {target.name}", remaining)

        self.app.call_from_thread(finish)

    def action_undo(self) -> None:
        suite = self._editable()
        if suite is None:
            return
        if not self.undo_stack:
            self.notify("Nothing to undo.", severity="warning")
            return
        what, cases = self.undo_stack.pop()
        self._set_cases(suite, cases)
        self._save(suite, f"Undone: {what}")

    def apply_change(self, what: str, cases: list[TestCase], cursor: str | None = None) -> None:
        """Replace the suite's cases (keeping the old list for undo) and save the file."""
        suite = self.suite
        if suite is None:
            return
        self.undo_stack.append((what, suite.cases))
        del self.undo_stack[:-UNDO_DEPTH]
        self._set_cases(suite, cases, cursor)
        self._save(suite, what)

    def _set_cases(self, suite: Suite, cases: list[TestCase], cursor: str | None = None) -> None:
        suite.cases = cases
        self._invalidate()
        self.rebuild(validate=True, keep_cursor=cursor)

    @work(
        thread=True,
        group="cases-save",
        exit_on_error=False,
        name="cases-save",
        description="Saving the suite",
    )
    def _save(self, suite: Suite, what: str) -> None:
        describe(f"Saving {_name(suite)}")
        notes: list[str] = []
        with self._save_lock:
            try:
                self.workspace.save(suite, notes=notes)
            except ConflictError as exc:
                self.app.call_from_thread(self._conflict, suite, str(exc))
                return
            except Exception as exc:
                self.app.call_from_thread(self._save_failed, suite, exc)
                return
            if self.workspace.unsaved():  # the disk has room again: retry the others too
                self.workspace.save_unsaved()
        self.app.call_from_thread(self._saved, suite, what, notes)

    def _saved(self, suite: Suite, what: str, notes: list[str] | None = None) -> None:
        from nlu_tui.textsafe import inert_markup

        text = f"{what}. Saved {suite.path.name if suite.path else ''}"
        text += "".join(f"\n⚠ {note}" for note in notes or [])
        self.notify(inert_markup(text), timeout=6 if notes else 3)
        self.post_message(SuiteChanged(suite))
        workbench(self).refresh_unsaved()

    def _save_failed(self, suite: Suite, exc: Exception) -> None:
        """The edit stays on screen and in memory, marked unsaved; say how it gets saved."""
        from nlu_tui.textsafe import inert_markup

        pending = self.workspace.unsaved_suite(suite.path) if suite.path else None
        reason = next((p.error for p in self.workspace.unsaved() if p.suite is suite), str(exc))
        kept = (
            "\nYour edit is kept but NOT saved: it is saved with your next edit or Ctrl+S "
            "(palette: Save again), and quitting asks first."
            if pending is suite
            else ""
        )
        self.notify(inert_markup(reason + kept), title="Cannot save", severity="error", timeout=10)
        self.post_message(SuiteChanged(suite))
        workbench(self).refresh_unsaved()

    def refresh_status(self) -> None:
        """Redraw the status line (after a save or a retry changed what is unsaved)."""
        if self.is_mounted:
            self._update_status()

    def _conflict(self, suite: Suite, reason: str) -> None:
        from nlu_tui.ui.screens.dialogs import ConflictScreen

        def decided(choice: tuple[str, str] | None) -> None:
            if choice is None or choice[0] == "reload":
                if suite.path is not None:  # the user chose the file's version over the edit
                    self.workspace.discard_unsaved(suite.path)
                    workbench(self).refresh_unsaved()
                self._reload(suite)
            elif choice[0] == "save-as":
                self._save_as(suite, choice[1])

        self.app.push_screen(ConflictScreen(suite, reason), decided)

    def _reload(self, suite: Suite) -> None:
        if suite.path is not None:
            from nlu_tui.ui.messages import SuiteHighlighted

            self.undo_stack.clear()
            self.suite = None
            self.post_message(SuiteHighlighted(suite.path))

    @work(
        thread=True,
        group="cases-save",
        exit_on_error=False,
        name="cases-save-as",
        description="Saving the suite under a new name",
    )
    def _save_as(self, suite: Suite, name: str) -> None:
        from nlu_tui.ui.messages import WorkspaceChanged

        try:
            path = self.workspace.create(name, suite.description, suite.cases)
        except Exception as exc:
            self.app.call_from_thread(
                self.notify, escape(str(exc)), title="Cannot save", severity="error"
            )
            return
        if suite.path is not None:  # the edit is safe in the new suite
            self.workspace.discard_unsaved(suite.path)
        self.app.call_from_thread(self.notify, escape(f"Saved as {path.name}"))
        self.app.call_from_thread(self.post_message, WorkspaceChanged(select=path))

    def palette_commands(self) -> list[PaletteCommand]:
        if self.suite is None:
            return []
        commands = [
            PaletteCommand("cases: Filter", self.action_focus_filter, "Focus the filter box"),
            PaletteCommand("cases: Select all", self.action_select_all, "Mark all shown"),
        ]
        if not self.suite.read_only:
            commands += [
                PaletteCommand("cases: Add", self.action_add, "Add cases, one per line"),
                PaletteCommand("cases: Edit", self.action_edit, "Edit the case under the cursor"),
                PaletteCommand("cases: Tag", self.action_tag, "Tag the marked cases"),
                PaletteCommand(
                    "cases: Generate…",
                    self.action_generate,
                    "Generate test cases for an intent with an LLM, review them, add them (G)",
                ),
                PaletteCommand("cases: Delete", self.action_delete, "Delete the marked cases"),
                PaletteCommand("cases: Move", self.action_move, "Move them to another suite"),
                PaletteCommand("cases: Undo", self.action_undo, "Undo the last change"),
            ]
        for n, (key, label, _) in enumerate(COLUMNS):
            if key != "sel":
                commands.append(
                    PaletteCommand(
                        f"cases: Sort by {label}",
                        _bind(self.action_sort_column, n),
                        "Again to reverse",
                    )
                )
        return commands


def _name(suite: Suite) -> str:
    """How a worker's notice names the suite: its file, else its title."""
    return suite.path.name if suite.path is not None else suite.name


def _bind(fn: Any, arg: Any) -> Any:
    def call() -> None:
        fn(arg)

    return call


def _cases_table_class() -> type:
    from nlu_tui.ui.widgets.fast_table import wide_table_class

    return wide_table_class()


class _LazyTable:
    """Creates the table class on first use, so importing this module does not load pyarrow."""

    _cls: type | None = None

    def __call__(self, **kwargs: Any) -> Any:
        if _LazyTable._cls is None:
            base = _cases_table_class()
            _LazyTable._cls = base
        return _LazyTable._cls(**kwargs)


CasesTable = _LazyTable()
