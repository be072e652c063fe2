"""A long Rich renderable (the help screen's table of keys), rendered in a thread.

A ``Static`` holding a Rich ``Table`` renders the whole table to measure its width, again to
measure its height, and again to draw it, all in the UI thread: for the hundred rows of the
help screen, the key that opened it took more than a second under load (issue 23, fast keys).
This widget shows its screen at once with a one-line placeholder, renders the renderable once
for its width in a worker thread, and then draws the stored lines (again after a resize).
"""

from __future__ import annotations

from rich.console import RenderableType
from textual import work
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from nlu_tui.ui.workers import ReportsFailedWorkers

PLACEHOLDER = "Reading the keys…"


class RenderedOnce(ReportsFailedWorkers, Widget):
    """``renderable`` rendered once per width, off the UI thread; read-only, takes no focus."""

    DEFAULT_CSS = """
    RenderedOnce { height: auto; }
    """

    def __init__(self, renderable: RenderableType, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.renderable = renderable
        self._width = -1
        self._asked = -1
        self._lines: list[Strip] = []
        self._shown = 0
        """How many times :meth:`show` replaced the renderable (a late render of an older one
        is dropped)."""

    def show(self, renderable: RenderableType) -> None:
        """Show ``renderable`` instead (drawn again, off the UI thread, for the width)."""
        self.renderable = renderable
        self._shown += 1
        self._width = self._asked = -1
        self._lines = []
        self.refresh(layout=True)

    @property
    def ready(self) -> bool:
        """The lines for the current width are drawn (tests and the benchmark wait on it)."""
        return self._width == self.size.width and self._width > 0

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._ask(width)
        return max(1, len(self._lines))

    def _ask(self, width: int) -> None:
        if width > 0 and width != self._width and width != self._asked:
            self._asked = width
            self._render_lines(width, self.renderable, self._shown)

    @work(
        thread=True,
        exclusive=True,
        group="rendered-once",
        exit_on_error=False,
        name="rendered-once",
        description="Drawing a table",
    )
    def _render_lines(self, width: int, renderable: RenderableType, shown: int) -> None:
        console = self.app.console
        options = console.options.update_width(width)
        style = self.rich_style
        rendered = console.render_lines(renderable, options, style=style)
        lines = [Strip(line).adjust_cell_length(width, style) for line in rendered]
        self.app.call_from_thread(self._rendered, width, lines, shown)

    def _rendered(self, width: int, lines: list[Strip], shown: int) -> None:
        if shown != self._shown:
            return  # drawn for a renderable replaced meanwhile: its own render is under way
        self._width, self._lines = width, lines
        self.refresh(layout=True)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        self._ask(width)
        if not self._lines:
            text = PLACEHOLDER if y == 0 else ""
            return Strip.blank(width, self.rich_style) if not text else self._text(text, width)
        if 0 <= y < len(self._lines):
            return self._lines[y].adjust_cell_length(width, self.rich_style)
        return Strip.blank(width, self.rich_style)

    def _text(self, text: str, width: int) -> Strip:
        from rich.segment import Segment

        return Strip([Segment(text[:width], self.rich_style)]).adjust_cell_length(
            width, self.rich_style
        )
