"""Show new rows in an existing textual-fastdatatable ``DataTable`` without remounting it.

fastdatatable cannot clear a table; its docs say to remount one. Remounting a table of 100,000
rows costs a full layout and repaint (about half a second here) and loses the focus. Swapping
the table's Arrow backend and dropping its caches shows a sorted or filtered view in a few
milliseconds. Both the cases table and the results table use this.
"""

from __future__ import annotations

from typing import Any


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
    table._ordered_columns = None
    table._clear_caches()
    table._update_count += 1
    table._require_update_dimensions = True
    table.check_idle()
    table.refresh()
    rows = backend.row_count
    if rows:
        target = old_cursor if cursor_row is None else cursor_row
        table.move_cursor(row=min(max(target, 0), rows - 1))
