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
from rich.console import Console, RenderableType
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
        self._looks: dict[tuple[int, int], tuple[Style, Style, Style]] = {}
        """Per kind of row (header, even, odd, cursor) and width: the base style, the row's
        and the one over it, worked out once (each walks the widget's ancestors)."""
        self._widths: dict[int, list[int]] = {}
        """The columns' content widths for this width."""

    def cells_width(self) -> int:
        """The width of the real table's cells: this width, less its vertical scrollbar when
        the rows (and the header) do not fit (the scrollbar's place is left blank)."""
        width, height = self.size
        return cells_width(width, height, self.total_rows, self.styles.scrollbar_size_vertical)

    def column_widths(self) -> list[int]:
        """Content widths fitted to the space the real table's cells would have."""
        width = self.size.width
        widths = self._widths.get(width)
        if widths is None:
            cells = self.cells_width()
            widths = fit_widths(self.widths, cells, steps=self.steps, flex=self.flex)
            self._widths[width] = widths
        return widths

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
        self._forget()

    def notify_style_update(self) -> None:  # new colours (a theme)
        self._forget()
        super().notify_style_update()

    def _forget(self) -> None:
        self._lines.clear()
        self._looks.clear()
        self._widths.clear()

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

    def _look(self, y: int, width: int) -> tuple[Style, Style, Style]:
        """Row ``y``'s styles: the widget's, the row's (header, zebra, cursor) and the colour
        put over its cells (the cursor's)."""
        kind = y if y < 2 else 2 + (y - 1) % 2  # header, cursor, then even and odd rows
        look = self._looks.get((kind, width))
        if look is None:
            post = Style.null()
            if y == 0:
                style = self.get_component_styles("datatable--header").rich_style
            else:
                part = "datatable--odd-row" if (y - 1) % 2 else "datatable--even-row"
                style = self.get_component_styles(part).rich_style
                if y == 1:  # the cursor, as the table puts it on its first row (colour on top)
                    cursor = self.get_component_rich_style("datatable--cursor")
                    style += cursor
                    post = Style.from_color(color=cursor.color)
            look = (self.rich_style, style, post)
            self._looks[kind, width] = look
        return look

    def _render_row(self, y: int, width: int) -> Strip:
        if y == 0:
            cells: Sequence[Cell] = self.labels
        elif y - 1 < len(self.rows):
            cells = self.rows[y - 1]
        else:
            return Strip.blank(width, self.rich_style)
        base, style, post = self._look(y, width)
        console = self.app.console
        cell_style = base + style + post
        segments: list[Segment] = []
        for value, content in zip(cells, self.column_widths(), strict=False):
            text = plain_cell(value, content, header=y == 0)
            if text is None:
                segments.extend(rich_cell(console, value, content, y == 0, base + style, post))
            else:
                segments.append(Segment(text, cell_style))
        row = Strip(segments).crop(0, self.cells_width())
        return row.adjust_cell_length(width, base).simplify()


def plain_cell(value: Cell, content: int, *, header: bool) -> str | None:
    """A cell's text (its padding included) as :func:`rich_cell` lays it out, worked out
    directly for printable ASCII (one character, one cell): what almost every cell holds, and
    about ten times cheaper than Rich's layout, which draws the first screen's rows. None for
    anything else (wide or combining characters, control characters, a number wider than its
    column): Rich lays those out."""
    if content < 1:
        return None
    if value is None:
        return " " * (content + CELL_PADDING)
    if isinstance(value, int) and not header:
        number = str(value)
        if len(number) > content:
            return None
        return f" {number:>{content}} "
    text = str(value).split("\n", 1)[0]
    if not (text.isascii() and text.isprintable()):
        return None
    if len(text) > content:
        text = text[: content - 1] + "…"
    return f" {text:<{content}} "


def rich_cell(
    console: Console, value: Cell, content: int, header: bool, style: Style, post: Style
) -> list[Segment]:
    """A cell as the fastdatatable renders it, through Rich: padded by one on each side, cut
    with "…", ``style`` under the cell's own and ``post`` over it."""
    options = console.options.update_dimensions(content + CELL_PADDING, 1)
    options.overflow = "ellipsis"
    options.no_wrap = True
    cell = Padding(_renderable(value, header=header), (0, 1))
    return console.render_lines(Styled(cell, style, post), options)[0]


def _renderable(value: Cell, *, header: bool) -> RenderableType:
    """A cell as the fastdatatable renders it: text literally (never markup), numbers to the
    right, an empty cell for None."""
    if value is None:
        return Text("")
    if isinstance(value, int) and not header:
        return Align(str(value), align="right")
    return Text(str(value).split("\n", 1)[0])
