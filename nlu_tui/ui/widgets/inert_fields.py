"""Input fields (and a file tree) that show what they hold inertly, without changing it.

An utterance read from a suite file may carry an escape sequence; the case editor and the
dialogs put such text in ``Input`` and ``TextArea`` fields. These show each control character
as a visible stand-in of the same length (``nlu_tui.textsafe.inert_chars``), so the cursor
stays where the text is, and the value saved is the value loaded unless the user edits it.

:class:`TextField` is the workbench's one-line field: inert, never selects its text on focus
(the cursor goes to the end, so a key typed into a filled field adds to it), and ``Tab`` takes
the completion it shows before moving on (a second ``Tab`` moves on).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rich.highlighter import Highlighter
from rich.text import Text
from textual import events
from textual.suggester import Suggester
from textual.widgets import DirectoryTree, Input

from nlu_tui.textsafe import inert, inert_chars
from nlu_tui.ui.keyhold import release_keys

if TYPE_CHECKING:
    from nlu_tui.ui.widgets.inert_text_area import InertTextArea as InertTextArea


def __getattr__(name: str) -> Any:
    """``InertTextArea`` lives in :mod:`nlu_tui.ui.widgets.inert_text_area`: importing Textual's
    ``TextArea`` costs about 10 ms, which the workbench's first screen (a :class:`TextField`,
    the cases filter) does without. Imported from here on first use."""
    if name == "InertTextArea":
        from nlu_tui.ui.widgets.inert_text_area import InertTextArea

        return InertTextArea
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


class NameSuggester(Suggester):
    """Completes a prefix to the first of ``names`` that starts with it (case-insensitive),
    and can answer at once (:meth:`suggest`), not only through Textual's suggestion worker."""

    def __init__(self, names: Iterable[str]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.set_names(names)

    def set_names(self, names: Iterable[str]) -> None:
        """Complete to ``names`` from now on (a reused dialog's new data)."""
        self.names = list(names)
        self._folded = [name.casefold() for name in self.names]

    def suggest(self, value: str) -> str | None:
        if not value:
            return None
        prefix = value.casefold()
        for name, folded in zip(self.names, self._folded, strict=True):
            if folded.startswith(prefix) and len(name) > len(value):
                return value + name[len(value) :]
        return None

    async def get_suggestion(self, value: str) -> str | None:
        return self.suggest(value)


class TextField(Input):
    """A one-line field: inert text, no select-all on focus, ``Tab`` accepts a completion.

    The cursor goes to the end of the text when the field gets the focus, so typing adds to
    what is there (Textual's ``Input`` selects it all, and one key replaced it). ``Tab`` takes
    the completion of the text typed since the field got the focus (the grey one shown, or the
    suggester's answer for characters typed faster than it is drawn); with none, it moves the
    focus on, so a second ``Tab`` leaves the field. It is compact (one row) unless told
    otherwise: set at construction, it costs no second pass of the stylesheet."""

    def __init__(self, value: str | None = None, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("highlighter", INERT)
        kwargs.setdefault("select_on_focus", False)
        kwargs.setdefault("compact", True)  # one row, as every form's; set before the mount
        super().__init__(value, *args, **kwargs)
        self._typed = False

    def on_focus(self, event: events.Focus) -> None:
        self._typed = False
        self.cursor_position = len(self.value)

    def watch_value(self, value: str) -> None:
        self._typed = self.has_focus

    def completion(self) -> str | None:
        """What ``Tab`` would put in the field now, or None (then ``Tab`` moves on)."""
        value = self.value
        if not value or not self.cursor_at_end or not self._typed:
            return None
        shown = self._suggestion  # Textual's suggestion for the value (tests/test_private_apis)
        if len(shown) > len(value) and shown.casefold().startswith(value.casefold()):
            return shown
        if isinstance(self.suggester, NameSuggester):
            return self.suggester.suggest(value)
        return None

    def accept_completion(self) -> bool:
        completion = self.completion()
        if completion is None:
            return False
        self.value = completion
        self.cursor_position = len(completion)
        self._typed = False
        return True

    async def on_key(self, event: events.Key) -> None:
        if event.key != "tab":
            return
        event.stop()
        event.prevent_default()
        if not self.accept_completion():
            self.screen.focus_next()
        release_keys(self, "field-tab")


class InertDirectoryTree(DirectoryTree):
    """A ``DirectoryTree`` whose file names show literally: no markup, no escape sequences."""

    def process_label(self, label: str | Text) -> Text:
        plain = label.plain if isinstance(label, Text) else label
        return super().process_label(Text(inert(plain, newlines=False)))
