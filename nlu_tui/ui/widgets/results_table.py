"""The per-utterance results table: 100,000 rows, sorted and filtered in Arrow.

Textual's own DataTable builds a Python object per cell and needs seconds for 100,000 rows;
textual-fastdatatable keeps the rows in an Arrow table and renders only what is visible.
Rows are kept column-wise in plain lists (cheap to append while a run streams in), turned
into one Arrow table when the view is rebuilt, and filtered and sorted with Arrow compute.
Cells hold raw values (confidence as a float), so sorting never has to undo formatting, and
markup rendering is off, so an utterance such as ``[bold]x[/]`` shows literally.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.app import ComposeResult
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import get_current_worker

from nlu_tui.model import CaseResult, TestCase
from nlu_tui.ui.widgets.fast_table import GiveWay, give_way_steps
from nlu_tui.ui.workers import ReportsFailedWorkers
from nlu_tui.views.result_columns import (
    COLUMNS,
    ResultColumns,
    ResultFilter,
    compute_view,
    shown_columns,
    sorted_label,
    visible_columns,
)

if TYPE_CHECKING:
    import pyarrow as pa

MAX_WIDTHS = {"utterance": 60, "expected": 24, "matched": 24, "error": 40, "entities": 8}
"""Caps on content widths: a long utterance or error never pushes the columns after it away."""
GIVE_WAY: list[GiveWay] = [
    ("error", None),
    ("order", None),
    ("entities", None),
    ("latency_ms", None),
    ("agreement", None),
    ("expected", 14),
    ("matched", 14),
    ("confidence", None),
    ("utterance", 46),
    ("utterance", 29),
    ("matched", None),
    ("expected", None),
]
"""How the results table's columns give way to the utterance when the table is narrower than
them (see :func:`~nlu_tui.ui.widgets.fast_table.fit_widths`): Error, Order, Entities, Latency
and Agree leave the screen first (a scroll right away), then Expected and Matched shrink to 14
cells, Conf leaves, the utterance shrinks to 46 cells (45 characters and "…") and then to 29,
and last Matched and Expected leave (the utterance takes back what they leave free). At 120×35
with the suites panel that shows #, Result, the utterance (48 cells), Expected and Matched; at
80×24, #, Result and the utterance (40 cells; Enter or ``d`` shows the rest of the case, ``z``
gives the table the whole screen: then Expected and Matched are beside it again)."""


def fitted_natural(widths: list[int], columns: list[tuple[str, str]] = COLUMNS) -> list[int]:
    """Wanted content widths of the visible columns, from measured widths: capped, and never
    narrower than the column's label."""
    return [
        max(len(label), min(width, MAX_WIDTHS.get(key, width)))
        for (key, label), width in zip(columns, widths, strict=True)
    ]


SYNC_ROWS = 5000
"""Below this many rows a view is filtered and sorted in place (a few milliseconds: a live
run's updates and small runs show at once); above it, in a worker thread, because sorting
100,000 rows on the UI thread froze the app for over half a second."""


def _measure(table: pa.Table, columns: list[tuple[str, str]] = COLUMNS) -> list[int]:
    """Content width of each visible column, as fastdatatable measures it."""
    from textual_fastdatatable import ArrowBackend

    backend = ArrowBackend(shown_columns(table.select([k for k, _ in columns])))
    backend.render_markup = False
    return list(backend.column_content_widths)


class ResultsTable(ReportsFailedWorkers, Widget):
    """A filterable, sortable results table; posts :class:`CaseHighlighted` as the cursor moves."""

    ALLOW_MAXIMIZE = True
    """``z`` in the Results tab gives the table the whole screen."""

    DEFAULT_CSS = """
    ResultsTable { height: 1fr; }
    ResultsTable > DataTable { height: 1fr; max-height: 100%; }
    ResultsTable > #results-empty { color: $text-muted; padding: 1; }
    """

    class CaseHighlighted(Message):
        """The cursor is on this case (None when the view is empty)."""

        def __init__(self, table: ResultsTable, case_id: str | None) -> None:
            super().__init__()
            self.table = table
            self.case_id = case_id

        @property
        def control(self) -> ResultsTable:
            return self.table

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.rows = ResultColumns()
        self.filter = ResultFilter()
        self.sort: tuple[str, bool] | None = None
        self.columns: list[tuple[str, str]] = COLUMNS
        """The visible columns: :data:`COLUMNS`, with the agreement rate for a repeated run."""
        self._full: pa.Table | None = None
        self._view: pa.Table | None = None
        self._shown_rows = -1
        self._widths: list[int] | None = None
        self._table: Any = None
        self._focus_pending = False
        """The table was asked for the focus before it had rows: it takes it when it has."""
        self._focus_asked: Any = None
        """The table asked for the focus and not focused yet (``focus()`` takes effect later):
        a table rebuilt meanwhile passes the focus on to the new one."""
        self._view_version = 0
        self._pending_select: str | None = None
        self.view_pending = False
        """True while a worker computes the next view (the old one stays on screen)."""
        self.views_shown = 0
        """How many views were put on screen; the benchmark waits on it."""

    def compose(self) -> ComposeResult:
        # the fastdatatable (and pyarrow with it) is created on the first rows, so opening
        # the workbench never pays for importing them
        yield Static("No results yet.", id="results-empty")

    @property
    def data_table(self) -> Any:
        """The textual-fastdatatable ``DataTable`` (None until rows were first shown)."""
        return self._table

    def focus_table(self) -> None:
        """Focus the table, or this widget while there are no rows yet."""
        if self._table is not None:
            self._focus_asked = self._table
            self._table.focus()
        else:
            self._focus_pending = True

    @property
    def view_count(self) -> int:
        return 0 if self._view is None else self._view.num_rows

    # --- data -----------------------------------------------------------------------

    def load(self, cases: Mapping[str, TestCase], results: Iterable[CaseResult]) -> None:
        """Replace every row (a finished run)."""
        rows = ResultColumns()
        rows.extend(cases, results)
        self.load_prepared(rows, rows.to_arrow())

    def show_stability(self, on: bool, raw: bool = False) -> None:
        """Show the agreement column (a repeated run) or not, and the raw checks column (a run
        whose cases carry ``raw:`` checks) or not; call before loading rows."""
        columns = visible_columns(on, raw)
        if columns == self.columns:
            return
        self.columns = columns
        self._widths = None
        if self._table is not None:  # a table cannot change its columns: a new one is built
            table, self._table = self._table, None
            refocus = table.has_focus or self._focus_asked is table
            self._focus_asked = None
            table.remove()
            self._focus_pending = self._focus_pending or refocus

    def clear_rows(self) -> None:
        """Forget every row (a live run starts streaming into an empty table)."""
        self.rows = ResultColumns()
        self._full = None
        self._widths = None

    def load_prepared(self, rows: ResultColumns, table: pa.Table) -> None:
        """Replace every row with columns and their Arrow table built elsewhere (a worker
        thread: that is most of the cost of opening 100,000 results)."""
        self.rows = rows
        self._full = table
        self._widths = None
        self.refresh_view(keep_full=True)

    def append(self, cases: Mapping[str, TestCase], results: Iterable[CaseResult]) -> None:
        """Add results without rebuilding the view (call :meth:`refresh_view` when throttled)."""
        self.rows.extend(cases, results)

    def set_filter(self, flt: ResultFilter) -> None:
        self.filter = flt
        self.refresh_view(keep_full=True)

    def sort_by(self, key: str, descending: bool = False) -> None:
        self.sort = (key, descending)
        self.refresh_view(keep_full=True)

    def refresh_view(self, keep_full: bool = False) -> None:
        """Rebuild the view from the rows (new ones are appended to the Arrow table), the
        filter and the sort. ``keep_full`` is kept for callers; rows are never re-converted.

        With no rows and no table yet there is nothing to show: "No results yet." stays, and
        pyarrow is not imported (the results pane sets its filter on mount, before the first
        paint of the workbench)."""
        if self._table is None and self._full is None and not len(self.rows):
            return
        full = self._full
        if full is None or full.num_rows > len(self.rows):
            self._full = self.rows.to_arrow()
            self._widths = None
        elif full.num_rows < len(self.rows):
            import pyarrow as pa

            new = self.rows.to_arrow(start=full.num_rows)
            self._full = pa.concat_tables([full, new])
            if self._widths is not None:
                self._widths = [
                    max(a, b)
                    for a, b in zip(self._widths, _measure(new, self.columns), strict=True)
                ]
        full = self._full
        assert full is not None
        self._view_version += 1
        self._pending_select = None
        if full.num_rows < SYNC_ROWS:
            widths = self._widths if self._widths is not None else _measure(full, self.columns)
            self._apply(self._view_version, compute_view(full, self.filter, self.sort), widths)
            return
        self.view_pending = True
        self._compute_view(
            full, self.filter, self.sort, self._widths, self._view_version, self.columns
        )

    @work(
        thread=True,
        exclusive=True,
        group="results-view",
        exit_on_error=False,
        name="results-view",
        description="Sorting and filtering the results",  # not the repr of 100,000 rows
    )
    def _compute_view(
        self,
        full: pa.Table,
        flt: ResultFilter,
        sort: tuple[str, bool] | None,
        widths: list[int] | None,
        version: int,
        columns: list[tuple[str, str]],
    ) -> None:
        worker = get_current_worker()
        view = compute_view(full, flt, sort)
        if widths is None:
            # measured once over every row: a view is never wider
            widths = _measure(full, columns)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._apply, version, view, widths)

    def _apply(self, version: int, view: pa.Table, widths: list[int]) -> None:
        """Show a computed view unless a newer one was asked for meanwhile."""
        if version != self._view_version:
            return
        self.view_pending = False
        self._view = view
        self._widths = widths
        self._show(view.select([k for k, _ in self.columns]))
        self.views_shown += 1
        pending, self._pending_select = self._pending_select, None
        if pending is not None:
            self.select_case(pending)

    def _show(self, view: pa.Table) -> None:
        """Swap the table's backend for the new view, keeping the cursor's row index.

        fastdatatable cannot clear a table; it asks to remount one. Swapping the backend
        (:func:`~nlu_tui.ui.widgets.fast_table.swap_backend`) does the same without a remount
        (which costs a repaint and loses focus), so live updates stay smooth.
        """
        from textual_fastdatatable import ArrowBackend

        from nlu_tui.ui.widgets.fast_table import swap_backend

        backend = ArrowBackend(shown_columns(view))
        backend.render_markup = False
        if self._widths is not None:
            backend._column_content_widths = list(self._widths)
        table = self._table
        labels = [sorted_label(label, key, self.sort) for key, label in self.columns]
        columns = list(zip([k for k, _ in self.columns], labels, strict=True))
        natural = fitted_natural(list(self._widths or _measure(view, self.columns)), columns)
        keys = [k for k, _ in columns]
        steps, flex = give_way_steps(keys, GIVE_WAY), keys.index("utterance")
        if table is None:
            from nlu_tui.ui.widgets.fast_table import wide_table_class

            table = self._table = wide_table_class()(
                backend=backend,
                column_widths=natural,
                column_labels=labels,
                cursor_type="row",
                render_markup=False,
                max_column_content_width=60,
                show_row_labels=False,
                zebra_stripes=True,
            )
            table.natural_widths, table.fit_steps, table.flex_column = natural, steps, flex
            self.query_one("#results-empty").display = False
            self.mount(table)
            if self._focus_pending:  # asked for before there was a table to focus
                self._focus_pending = False
                self._focus_asked = table
                table.focus()
            self._shown_rows = view.num_rows
            self.post_message(self.CaseHighlighted(self, self.case_id_at(0)))
            return
        swap_backend(table, backend, column_labels=labels)
        table.set_fit(natural, steps, flex=flex)
        self._shown_rows = view.num_rows
        self.post_message(self.CaseHighlighted(self, self.current_case_id()))

    # --- lookups ----------------------------------------------------------------------

    def case_id_at(self, row: int) -> str | None:
        if self._view is None or not 0 <= row < self._view.num_rows:
            return None
        value = self._view["case_id"][row].as_py()
        return str(value) if value is not None else None

    def current_case_id(self) -> str | None:
        if self._table is None:
            return None
        return self.case_id_at(self._table.cursor_row)

    def visible_case_ids(self) -> list[str]:
        if self._view is None:
            return []
        return [str(v) for v in self._view["case_id"].to_pylist()]

    def column_values(self, key: str) -> list[Any]:
        """The view's values of one column, top to bottom (tests and exports use it)."""
        if self._view is None:
            return []
        return list(self._view[key].to_pylist())

    # --- events -----------------------------------------------------------------------

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if event.widget is self._table:
            self._focus_asked = None

    # the fastdatatable's messages, dispatched by name (its class is imported lazily)
    def on_data_table_row_highlighted(self, event: Any) -> None:
        event.stop()
        self.post_message(self.CaseHighlighted(self, self.case_id_at(event.cursor_row)))

    def on_data_table_header_selected(self, event: Any) -> None:
        event.stop()
        key = self.columns[event.column_index][0]
        descending = self.sort is not None and self.sort == (key, False)
        self.sort_by(key, descending)

    def scroll_to_cursor(self) -> None:
        """Bring the cursor's row into view (after the table was hidden, e.g. another tab)."""
        table = self._table
        if table is not None and table.row_count:
            row = table.cursor_row
            table.move_cursor(row=row)
            table.scroll_to(
                y=max(row - table.scrollable_content_region.height // 2, 0), animate=False
            )

    def select_case(self, case_id: str) -> bool:
        """Move the cursor to a case of the current view; False when it is filtered out.

        While a new view is being computed, the case is selected once it is shown."""
        if self.view_pending:
            self._pending_select = case_id
            return True
        if self._view is None:
            return False
        import pyarrow.compute as pc

        index = pc.index(self._view["case_id"], case_id).as_py()
        if index is None or index < 0:
            return False
        if self._table is None:
            return False
        self._table.move_cursor(row=index)
        self.post_message(self.CaseHighlighted(self, case_id))
        return True
