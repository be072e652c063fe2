"""Show new rows in an existing textual-fastdatatable ``DataTable`` without remounting it.

fastdatatable cannot clear a table; its docs say to remount one. Remounting a table of 100,000
rows costs a full layout and repaint (about half a second here) and loses the focus. Swapping
the table's Arrow backend and dropping its caches shows a sorted or filtered view in a few
milliseconds. Both the cases table and the results table use this.
"""

from __future__ import annotations

from collections.abc import Sequence
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


GiveWay = tuple[str, "int | None"]
"""One step of a table's give-way order: (column key, floor). With a floor, the column
shrinks down to that many cells (its text then ends in "…"); with None, it leaves the screen,
with every column right of it, and comes back at its full width by scrolling right."""


def give_way_steps(keys: Sequence[str], order: Sequence[GiveWay]) -> list[tuple[int, int | None]]:
    """A give-way order by column index (steps naming a column the table lacks are skipped)."""
    return [(list(keys).index(key), floor) for key, floor in order if key in keys]


def fit_widths(
    widths: Sequence[int],
    available: int,
    *,
    steps: Sequence[tuple[int, int | None]],
    flex: int | None = None,
    fill: bool = True,
) -> list[int]:
    """Content widths that fit a table's columns into ``available`` cells, the utterance first.

    Every table of the workbench fits its columns here, the same way:

    1. every column starts at its wanted width (``widths``: measured, capped);
    2. while the columns on screen do not fit, the ``steps`` (the table's give-way order, by
       column index) are taken in order: a step with a floor shrinks its column down to it, a
       step without one takes its column, and every column right of it, off the screen (they
       keep their full width and come back by scrolling right);
    3. width left over goes to the ``flex`` column (the utterance) first, up to its wanted
       width, then back to the shrunk columns, the last shrunk first; when every column is on
       screen, the utterance takes the rest too (unless ``fill`` is false), so no cell on the
       right stays empty (when some are off screen, the rest shows the start of the next
       column).

    Pure arithmetic, so tests can check every width without a terminal.
    """
    wanted = list(widths)
    out = list(widths)
    shown = len(out)

    def used() -> int:
        return sum(out[:shown]) + CELL_PADDING * shown

    shrunk: list[int] = []
    for index, floor in steps:
        if used() <= available:
            break
        if index >= shown:
            continue
        if floor is None:
            out[index:shown] = wanted[index:shown]
            shown = index
            continue
        give = min(used() - available, max(out[index] - max(floor, 1), 0))
        if give:
            out[index] -= give
            shrunk.append(index)
    free = available - used()
    if free > 0:
        regrow = ([flex] if flex is not None else []) + shrunk[::-1]
        for index in regrow:
            if index < shown and free > 0:
                take = min(free, wanted[index] - out[index])
                out[index] += take
                free -= take
        if fill and flex is not None and flex < shown == len(out):
            out[flex] += free
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
        fit_steps: list[tuple[int, int | None]] = []
        """The table's give-way order (see :func:`fit_widths`)."""
        flex_column: int | None = None
        """The column that takes the free width first (the utterance)."""
        width_hint: int | None = None
        """The width the table will have, for the fit before it is first laid out (without
        it, the first frame shows the unfitted widths until the first resize)."""

        def set_fit(
            self,
            natural: list[int],
            steps: list[tuple[int, int | None]],
            *,
            flex: int | None = None,
            width_hint: int | None = None,
        ) -> None:
            """Remember how the columns fit and fit them now (and on every resize)."""
            self.natural_widths = list(natural)
            self.fit_steps = list(steps)
            self.flex_column = flex
            if width_hint is not None:
                self.width_hint = width_hint
            self.refit()

        def refit(self) -> None:
            if self.natural_widths is None:
                return
            available = (
                self.scrollable_content_region.width or self.size.width or self.width_hint or 0
            )
            if available <= 0:
                return
            widths = fit_widths(
                self.natural_widths, available, steps=self.fit_steps, flex=self.flex_column
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
