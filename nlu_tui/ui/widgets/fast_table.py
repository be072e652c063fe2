"""Show new rows in an existing textual-fastdatatable ``DataTable`` without remounting it.

fastdatatable cannot clear a table; its docs say to remount one. Remounting a table of 100,000
rows costs a full layout and repaint (about half a second here) and loses the focus. Swapping
the table's Arrow backend and dropping its caches shows a sorted or filtered view in a few
milliseconds. Both the cases table and the results table use this.
"""

from __future__ import annotations

from typing import Any


def _relayout(table: Any) -> None:
    """Make a fastdatatable forget its cached rows, columns and sizes and lay out again
    (private state of the pinned textual-fastdatatable: tests/test_private_apis.py)."""
    table._ordered_columns = None
    table._clear_caches()
    table._update_count += 1
    table._require_update_dimensions = True
    table.check_idle()
    table.refresh()


def swap_backend(
    table: Any,
    backend: Any,
    *,
    cursor_row: int | None = None,
    column_labels: list[Any] | None = None,
) -> None:
    """Make ``table`` show ``backend``'s rows (and new header labels, e.g. a sort arrow).

    The cursor goes to ``cursor_row`` when given, else stays on the same row index, clamped
    to the new row count.
    """
    old_cursor = table.cursor_row
    table.backend = backend
    if column_labels is not None:
        table._column_labels = list(column_labels)
    _relayout(table)
    rows = backend.row_count
    if rows:
        target = old_cursor if cursor_row is None else cursor_row
        table.move_cursor(row=min(max(target, 0), rows - 1))


CELL_PADDING = 2
"""Cells a fastdatatable column adds to its content width (one space either side)."""
SCROLLBAR_WIDTH = 2
"""Cells of a table's vertical scrollbar (Textual's default ``scrollbar-size-vertical``)."""


def cells_width(width: int, height: int, rows: int, scrollbar: int = SCROLLBAR_WIDTH) -> int:
    """The width a table's cells get in a ``width`` x ``height`` box holding ``rows`` rows and
    a header: the box's width, less the vertical scrollbar when they do not fit its height."""
    return width - (scrollbar if rows + 1 > height else 0)


def fit_widths(
    widths: list[int],
    mins: list[int],
    available: int,
    *,
    keep: int | None = None,
    shrink_order: list[int] | None = None,
    even: bool = False,
) -> list[int]:
    """Column content widths that fit the first ``keep`` columns into ``available`` cells.

    The columns a tester needs first are the leading ``keep`` (all by default); when they do
    not fit, the columns in ``shrink_order`` (indexes) give up width, each down to its
    minimum, in that order. With ``even``, they give it up together instead: the widest of
    them loses a cell first (ties: the earlier in ``shrink_order``), so an utterance is never
    cut shorter than a column of intent names beside it. The columns after ``keep`` keep their
    width and are reached by scrolling right. Pure arithmetic, so tests can check every width
    without a terminal.
    """
    out = list(widths)
    count = len(out) if keep is None else min(keep, len(out))
    excess = sum(out[:count]) + CELL_PADDING * count - available
    order = list(shrink_order) if shrink_order is not None else list(range(count))
    if even:
        while excess > 0:
            free = [i for i in order if out[i] > mins[i]]
            if not free:
                break
            widest = max(free, key=lambda i: (out[i], -order.index(i)))
            out[widest] -= 1
            excess -= 1
        return out
    for index in order:
        if excess <= 0:
            break
        give = min(excess, max(out[index] - mins[index], 0))
        out[index] -= give
        excess -= give
    return out


def set_column_widths(table: Any, widths: list[int]) -> None:
    """Give ``table`` fixed content widths (text beyond them ends in "…")."""
    if list(getattr(table, "_column_widths", None) or []) == widths:
        return
    table._column_widths = list(widths)
    _relayout(table)


def column_offsets(table: Any) -> list[int]:
    """The x offset of each column's left edge in the table's virtual width."""
    offsets: list[int] = []
    x = 0
    for column in table.ordered_columns:
        offsets.append(x)
        x += column.render_width
    return offsets


_WIDE_TABLE: type | None = None


def wide_table_class() -> type:
    """A fastdatatable ``DataTable`` for tables wider than the screen (built on first use, so
    importing this module does not import pyarrow).

    With a row cursor, → and ← scroll by whole columns (not one cell at a time, which took
    about 60 presses to reach the cases' tags) and Home/End scroll all the way left/right;
    Ctrl+Home/Ctrl+End still go to the first/last row.
    """
    global _WIDE_TABLE
    if _WIDE_TABLE is not None:
        return _WIDE_TABLE
    from textual.binding import Binding
    from textual_fastdatatable import DataTable

    class WideTable(DataTable):
        BINDINGS = [
            Binding("home", "scroll_left_edge", "Leftmost", show=False),
            Binding("end", "scroll_right_edge", "Rightmost", show=False),
        ]

        natural_widths: list[int] | None = None
        """Each column's wanted content width; :meth:`refit` fits them to the table's width."""
        min_widths: list[int] | None = None
        keep_columns: int | None = None
        shrink_order: list[int] | None = None
        shrink_evenly: bool = False
        width_hint: int | None = None
        """The width the table will have, for the fit before it is first laid out (without
        it, the first frame shows the unfitted widths until the first resize)."""

        def set_fit(
            self,
            natural: list[int],
            mins: list[int],
            *,
            keep: int | None = None,
            shrink_order: list[int] | None = None,
            even: bool = False,
            width_hint: int | None = None,
        ) -> None:
            """Remember how the columns fit and fit them now (and on every resize)."""
            self.natural_widths = list(natural)
            self.min_widths = list(mins)
            self.keep_columns = keep
            self.shrink_order = shrink_order
            self.shrink_evenly = even
            self.width_hint = width_hint
            self.refit()

        def refit(self) -> None:
            if self.natural_widths is None or self.min_widths is None:
                return
            available = (
                self.scrollable_content_region.width or self.size.width or self.width_hint or 0
            )
            if available <= 0:
                return
            widths = fit_widths(
                self.natural_widths,
                self.min_widths,
                available,
                keep=self.keep_columns,
                shrink_order=self.shrink_order,
                even=self.shrink_evenly,
            )
            set_column_widths(self, widths)

        def on_resize(self) -> None:
            self.refit()

        def action_scroll_left_edge(self) -> None:
            if self.cursor_type != "row":
                super().action_scroll_home()
                return
            self.scroll_to(x=0, animate=False)

        def action_scroll_right_edge(self) -> None:
            if self.cursor_type != "row":
                super().action_scroll_end()
                return
            self.scroll_to(x=self.max_scroll_x, animate=False)

        def action_cursor_right(self, select: bool = False) -> None:
            if self.cursor_type != "row":
                super().action_cursor_right(select)
                return
            later = [x for x in column_offsets(self) if x > self.scroll_x]
            self.scroll_to(
                x=min(later[0], self.max_scroll_x) if later else self.max_scroll_x, animate=False
            )

        def action_cursor_left(self, select: bool = False) -> None:
            if self.cursor_type != "row":
                super().action_cursor_left(select)
                return
            earlier = [x for x in column_offsets(self) if x < self.scroll_x]
            self.scroll_to(x=earlier[-1] if earlier else 0, animate=False)

    _WIDE_TABLE = WideTable
    return WideTable
