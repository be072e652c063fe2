"""A ``TextArea`` that shows what it holds inertly (see :mod:`nlu_tui.ui.widgets.inert_fields`).

Its own module: Textual's ``TextArea`` takes about 10 ms to import, and only dialogs use it (the
case editor's utterances, a run's note), not the workbench's first screen.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import TextArea

from nlu_tui.textsafe import inert_chars


class InertTextArea(TextArea):
    """A ``TextArea`` whose lines are drawn with their control characters made visible; the
    cursor starts at the end of the text, so typing adds to it (Textual's starts at 0, 0)."""

    def on_mount(self) -> None:
        self.move_cursor(self.document.end)

    def get_line(self, line_index: int) -> Text:
        line = super().get_line(line_index)
        shown = inert_chars(line.plain)
        if shown != line.plain:
            line.plain = shown
        return line
