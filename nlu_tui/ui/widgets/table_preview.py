"""A table's first screenful, drawn before the table widget itself can be.

The cases table is a textual-fastdatatable ``DataTable`` over an Arrow table, and Arrow (pyarrow
with numpy) takes about 0.1 s to import: on the workbench's first screen that import is most of
the time between the suites list and the first cases. This widget draws the same first rows
with the same columns, widths and styles (it mirrors the table's rendering: padded cells, right-
aligned numbers, "…" for cut text, zebra rows, the cursor on the first row) from plain Python
values, and the real table replaces it as soon as it is built. It is read-only and takes no
focus: nothing can be done to a row until the real table is there.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.align import Align
from rich.console import RenderableType
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.renderables.styled import Styled
from textual.strip import Strip
from textual.widget import Widget

from nlu_tui.ui.widgets.fast_table import CELL_PADDING, cells_width, fit_widths

Cell = str | int | None
"""A value as the table gets it: text, a number (right-aligned), or None (an empty cell)."""


class TablePreview(Widget, can_focus=False):
    """Header and first rows of a table, in the table's look, without its data library."""

    COMPONENT_CLASSES = {
        "datatable--header",
        "datatable--even-row",
        "datatable--odd-row",
        "datatable--cursor",
    }
    # as tall as the table would be (its rows and header, at most its container's height);
    # its colours are the cases table's, set for both in app.tcss
    DEFAULT_CSS = """
    TablePreview { height: auto; max-height: 100%; }
    """

    def __init__(
        self,
        labels: Sequence[str],
        rows: Sequence[Sequence[Cell]],
        *,
        total_rows: int,
        widths: Sequence[int],
        steps: Sequence[tuple[int, int | None]],
        flex: int | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.labels = list(labels)
        self.rows = [list(row) for row in rows]
        self.total_rows = total_rows
        """Rows of the whole table (more than ``rows`` when only the first page is given):
        the real table then has a vertical scrollbar, whose width the preview leaves free."""
        self.widths = list(widths)
        self.steps = list(steps)
        self.flex = flex
        self._lines: dict[tuple[int, int], Strip] = {}

    def cells_width(self) -> int:
        """The width of the real table's cells: this width, less its vertical scrollbar when
        the rows (and the header) do not fit (the scrollbar's place is left blank)."""
        width, height = self.size
        return cells_width(width, height, self.total_rows, self.styles.scrollbar_size_vertical)

    def column_widths(self) -> list[int]:
        """Content widths fitted to the space the real table's cells would have."""
        return fit_widths(self.widths, self.cells_width(), steps=self.steps, flex=self.flex)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """The header, then every row of the table, then the blank line of the horizontal
        scrollbar when the columns are wider than the cells (the columns that give way to the
        utterance are a scroll away), so that it never covers the last row."""
        cells = cells_width(
            width, container.height, self.total_rows, self.styles.scrollbar_size_vertical
        )
        widths = fit_widths(self.widths, cells, steps=self.steps, flex=self.flex)
        wider = sum(widths) + CELL_PADDING * len(widths) > cells
        return self.total_rows + 1 + (1 if wider else 0)

    def on_resize(self) -> None:  # new widths, and maybe a scrollbar line
        self._lines.clear()

    def scrolls_right(self) -> bool:
        """Whether the columns are wider than the cells' width: the real table then has a
        horizontal scrollbar on its last line, which the preview leaves blank too."""
        widths = self.column_widths()
        return sum(widths) + CELL_PADDING * len(widths) > self.cells_width()

    def render_line(self, y: int) -> Strip:
        width, height = self.size
        key = (y, width)
        line = self._lines.get(key)
        if line is None:
            if y == height - 1 and self.scrolls_right():
                line = Strip.blank(width, self.rich_style)
            else:
                line = self._render_row(y, width)
            self._lines[key] = line
        return line

    def _render_row(self, y: int, width: int) -> Strip:
        base = self.rich_style
        post = Style.null()
        if y == 0:
            style = self.get_component_styles("datatable--header").rich_style
            cells: Sequence[Cell] = self.labels
        elif y - 1 < len(self.rows):
            part = "datatable--odd-row" if (y - 1) % 2 else "datatable--even-row"
            style = self.get_component_styles(part).rich_style
            if y == 1:  # the cursor, as the table puts it on its first row (colour on top)
                cursor = self.get_component_rich_style("datatable--cursor")
                style += cursor
                post = Style.from_color(color=cursor.color)
            cells = self.rows[y - 1]
        else:
            return Strip.blank(width, base)
        console = self.app.console
        segments: list[Segment] = []
        for value, content in zip(cells, self.column_widths(), strict=False):
            options = console.options.update_dimensions(content + CELL_PADDING, 1)
            options.overflow = "ellipsis"
            options.no_wrap = True
            cell = Padding(_renderable(value, header=y == 0), (0, 1))
            lines = console.render_lines(Styled(cell, base + style, post), options)
            segments.extend(lines[0])
        row = Strip(segments).crop(0, self.cells_width())
        return row.adjust_cell_length(width, self.rich_style).simplify()


def _renderable(value: Cell, *, header: bool) -> RenderableType:
    """A cell as the fastdatatable renders it: text literally (never markup), numbers to the
    right, an empty cell for None."""
    if value is None:
        return Text("")
    if isinstance(value, int) and not header:
        return Align(str(value), align="right")
    return Text(str(value).split("\n", 1)[0])
