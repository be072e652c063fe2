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


FOCUS_PARTS = frozenset(
    {
        "datatable--cursor",
        "datatable--fixed-cursor",
        "datatable--header",
        "datatable--header-cursor",
    }
)
"""The table's parts styled differently when it has the focus (Textual's DataTable styles,
which apply to fastdatatable's by name): drawn only on the cursor's row and on the header."""

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
    from rich.style import Style
    from textual.binding import Binding
    from textual.geometry import Region
    from textual.strip import Strip
    from textual.widget import PseudoClasses
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

        # --- render caches kept across a change of focus ------------------------------

        _style_changed = False
        _cached_focus: bool | None = None
        _restyle_key: tuple[Any, ...] | None = None

        def notify_style_update(self) -> None:
            """Restyle on the next render (see :meth:`_restyle_caches`), not now: Textual calls
            this for every change of the table's pseudo-classes, the focus's included, before
            it has styled the table's parts (the cursor, the header) anew."""
            self._style_changed = True
            self.refresh()

        def get_pseudo_class_state(self) -> PseudoClasses:
            """The pseudo-classes the render caches are keyed on: focus is left out (only the
            cursor row and the header depend on it; :meth:`_restyle_caches` drops those)."""
            return super().get_pseudo_class_state()._replace(focus=False)

        _pass_styles: dict[tuple[Any, ...], Style] | None = None
        """Styles looked up once per render pass (see :attr:`rich_style`)."""

        def render_lines(self, crop: Region) -> list[Strip]:
            if self._style_changed or self._cached_focus != self.has_focus:
                self._style_changed = False
                self._restyle_caches()
            self._pass_styles = {}
            try:
                return super().render_lines(crop)
            finally:
                self._pass_styles = None

        @property
        def rich_style(self) -> Style:
            """The table's style, computed once per render pass: fastdatatable asks for it
            for every line, and each time Textual walks every ancestor's styles."""
            memo = self._pass_styles
            if memo is None:
                return super().rich_style
            style = memo.get(("base",))
            if style is None:
                style = memo[("base",)] = super().rich_style
            return style

        def _get_row_style(self, row_index: int, base_style: Style) -> Style:
            """A row's style, once per render pass for all even and all odd rows (each is a
            part's style, which Textual computes walking every ancestor)."""
            memo = self._pass_styles
            if memo is None:
                return super()._get_row_style(row_index, base_style)
            key = (row_index == -1, row_index < self.fixed_rows, row_index % 2, base_style)
            style = memo.get(key)
            if style is None:
                style = memo[key] = super()._get_row_style(row_index, base_style)
            return style

        def _restyle_caches(self) -> None:
            """Forget what a style change made stale: everything, unless only the focus
            changed (then the cells of the cursor and of the header, and the lines assembled
            from cells, which are cheap to assemble again).

            fastdatatable clears every cache when the table gains or loses the focus and then
            renders every visible cell again: most of moving the focus from the results table
            to the detail pane (``d``). Here a cell is rendered again only when a style it
            uses changed: its row's style and the table's base style are in its cache key;
            the styles of the parts drawn over it (hover, selection) are compared here."""
            self._cached_focus = self.has_focus
            key = self._restyle_signature()
            if self.cursor_type != "row" or key != self._restyle_key:
                self._restyle_key = key
                self._clear_caches()
                return
            cells = self._cell_render_cache
            stale = [k for k in cells.keys() if k[0] == -1 or k[3]]  # noqa: SIM118 (no __iter__)
            for cell in stale:
                cells.discard(cell)
            self._row_render_cache.clear()  # rows and lines: joined cells, with the
            self._line_cache.clear()  # table's background (tinted when focused) to the right
            self._styles_cache.clear()
            self._get_styles_to_render_cell.cache_clear()

        def _restyle_signature(self) -> tuple[Any, ...]:
            """What a cached cell looks like apart from its key: the styles of the table's
            parts, bar those drawn only on the cursor and the header (focus-dependent)."""
            parts = sorted(set(self.COMPONENT_CLASSES) - FOCUS_PARTS)
            return (
                self.rich_style,
                *(self.get_component_rich_style(part, default=Style.null()) for part in parts),
            )

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
