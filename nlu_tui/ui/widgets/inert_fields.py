"""Input fields (and a file tree) that show what they hold inertly, without changing it.

An utterance read from a suite file may carry an escape sequence; the case editor and the
dialogs put such text in ``Input`` and ``TextArea`` fields. These show each control character
as a visible stand-in of the same length (``nlu_tui.textsafe.inert_chars``), so the cursor
stays where the text is, and the value saved is the value loaded unless the user edits it.
"""

from __future__ import annotations

from rich.highlighter import Highlighter
from rich.text import Text
from textual.widgets import DirectoryTree, TextArea

from nlu_tui.textsafe import inert, inert_chars


class InertHighlighter(Highlighter):
    """For ``Input(highlighter=...)``: the field's text as shown, control characters visible."""

    def __call__(self, text: str | Text) -> Text:
        plain = text.plain if isinstance(text, Text) else text
        shown = inert_chars(plain)
        if isinstance(text, Text):
            if shown == plain:
                return text.copy()
            out = text.copy()
            out.plain = shown  # same length: spans stay where they were
            return out
        return Text(shown)

    def highlight(self, text: Text) -> None:
        """Unused: ``__call__`` replaces characters, which ``highlight`` cannot."""


INERT = InertHighlighter()


class InertTextArea(TextArea):
    """A ``TextArea`` whose lines are drawn with their control characters made visible."""

    def get_line(self, line_index: int) -> Text:
        line = super().get_line(line_index)
        shown = inert_chars(line.plain)
        if shown != line.plain:
            line.plain = shown
        return line


class InertDirectoryTree(DirectoryTree):
    """A ``DirectoryTree`` whose file names show literally: no markup, no escape sequences."""

    def process_label(self, label: str | Text) -> Text:
        plain = label.plain if isinstance(label, Text) else label
        return super().process_label(Text(inert(plain, newlines=False)))
