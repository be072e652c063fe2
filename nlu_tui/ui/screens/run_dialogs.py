"""Small typed modals used by the run, results and diff screens.

Each is a ``ModalScreen[T]``: Escape dismisses with None (or False), the caller gets the value
through the ``push_screen`` callback. Text shown in them that comes from files or engines is
escaped or passed as ``Text``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Select, Static, TextArea
from textual.widgets.option_list import Option

from nlu_tui.model import MAX_NOTE_CHARS
from nlu_tui.textsafe import inert
from nlu_tui.ui.compact import make_compact
from nlu_tui.ui.widgets.inert_fields import INERT, InertTextArea

DIALOG_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 76; max-width: 100%; height: auto; max-height: 100%;
    border: round $primary; background: $surface; padding: 0 1;
}}
{name} .dialog-title {{ text-style: bold; }}
{name} .dialog-buttons {{ dock: bottom; height: 1; align-horizontal: right; }}
{name} .dialog-buttons Button {{ margin-left: 1; }}
{name} .dialog-error {{ color: $error; height: auto; }}
{name} .dialog-body {{ height: auto; max-height: 100%; }}
"""
"""Compact dialog frame: a rounded border, no spacer rows, the button row docked at the bottom
so it stays visible however small the terminal (the body scrolls instead)."""


class ConfirmDialog(ModalScreen[bool]):
    """Yes/no: ``y``/Enter confirms, ``n``/Escape declines."""

    DEFAULT_CSS = DIALOG_CSS.format(name="ConfirmDialog")
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes", tooltip="Confirm."),
        Binding("n,escape", "answer(False)", "No", id="confirm.no", tooltip="Decline."),
    ]

    def __init__(self, title: str, body: str | Text = "", yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self._title = title
        self._body = body
        self._yes = yes
        self._no = no

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(inert(self._title, newlines=False)), classes="dialog-title")
            if self._body:
                # a Text body is built by its caller from inert pieces
                yield Static(Text(inert(self._body)) if isinstance(self._body, str) else self._body)
            with Horizontal(classes="dialog-buttons"):
                yield Button(self._yes, variant="warning", id="confirm-yes")
                yield Button(self._no, id="confirm-no")

    def on_mount(self) -> None:
        make_compact(self)
        self.query_one("#confirm-no", Button).focus()

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")


class NoteDialog(ModalScreen[str | None]):
    """Edit a run's note: at most :data:`MAX_NOTE_CHARS` characters, with a live counter."""

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="NoteDialog")
        + """
    NoteDialog TextArea { height: 8; max-height: 1fr; }
    NoteDialog #note-counter { color: $text-muted; }
    NoteDialog #note-counter.over { color: $error; text-style: bold; }
    """
    )
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="note.cancel", tooltip="Close without saving."),
        Binding("ctrl+s,f5", "save", "Save", id="note.save", tooltip="Save the note."),
    ]

    def __init__(self, note: str, title: str = "Run note") -> None:
        super().__init__()
        self._note = note
        self._title = title

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(inert(self._title, newlines=False)), classes="dialog-title")
            yield InertTextArea(self._note, id="note-text", soft_wrap=True, show_line_numbers=False)
            yield Static("", id="note-counter")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save (ctrl+s)", variant="primary", id="note-save")
                yield Button("Cancel", id="note-cancel")

    def on_mount(self) -> None:
        make_compact(self)
        self._count()
        self.query_one(TextArea).focus()

    @property
    def text(self) -> str:
        return self.query_one(TextArea).text

    def _count(self) -> None:
        n = len(self.text)
        counter = self.query_one("#note-counter", Static)
        counter.update(f"{n} / {MAX_NOTE_CHARS}")
        counter.set_class(n > MAX_NOTE_CHARS, "over")
        self.query_one("#note-save", Button).disabled = n > MAX_NOTE_CHARS

    @on(TextArea.Changed)
    def _changed(self) -> None:
        self._count()

    def action_save(self) -> None:
        if len(self.text) <= MAX_NOTE_CHARS:
            self.dismiss(self.text)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "note-save":
            self.action_save()
        else:
            self.action_cancel()


class ChoiceDialog(ModalScreen[str | None]):
    """Pick one of a few labelled values (sort column, intent, report format)."""

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="ChoiceDialog")
        + """
    ChoiceDialog OptionList { height: auto; max-height: 20; }
    """
    )
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="choice.cancel", tooltip="Close.")]

    def __init__(self, title: str, choices: Sequence[tuple[str, str]]) -> None:
        """``choices`` are (value, label)."""
        super().__init__()
        self._title = title
        self._choices = list(choices)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(inert(self._title, newlines=False)), classes="dialog-title")
            yield OptionList(
                *[
                    Option(Text(inert(label, newlines=False)), id=value)
                    for value, label in self._choices
                ]
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ExportDialog(ModalScreen[tuple[str, Path] | None]):
    """Choose a report format and the path to write it to."""

    DEFAULT_CSS = DIALOG_CSS.format(name="ExportDialog")
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="export.cancel", tooltip="Close."),
        Binding("ctrl+s,f5", "export", "Export", id="export.ok", tooltip="Write the report."),
    ]

    def __init__(
        self, formats: Sequence[tuple[str, str, str]], default_dir: Path, stem: str
    ) -> None:
        """``formats`` are (name, description, default file suffix or "" for a directory)."""
        super().__init__()
        self._formats = list(formats)
        self._dir = default_dir
        self._stem = stem

    def _default_path(self, fmt: str) -> str:
        suffix = next((s for n, _, s in self._formats if n == fmt), "")
        return str(self._dir / f"{self._stem}{suffix}")

    def compose(self) -> ComposeResult:
        first = self._formats[0][0] if self._formats else ""
        with Vertical():
            yield Label("Export results", classes="dialog-title")
            yield Select(
                [(f"{name} - {desc}", name) for name, desc, _ in self._formats],
                value=first,
                allow_blank=False,
                id="export-format",
            )
            yield Input(
                self._default_path(first), id="export-path", placeholder="path", highlighter=INERT
            )
            yield Static("", id="export-error", classes="dialog-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Export (ctrl+s)", variant="primary", id="export-ok")
                yield Button("Cancel (esc)", id="export-cancel")

    def on_mount(self) -> None:
        make_compact(self)
        self.query_one("#export-path", Input).focus()

    def action_export(self) -> None:
        self._ok()

    @on(Select.Changed, "#export-format")
    def _format_changed(self, event: Select.Changed) -> None:
        self.query_one("#export-path", Input).value = self._default_path(str(event.value))

    @on(Input.Submitted, "#export-path")
    def _submitted(self) -> None:
        self._ok()

    def _ok(self) -> None:
        fmt = str(self.query_one("#export-format", Select).value)
        raw = self.query_one("#export-path", Input).value.strip()
        if not raw:
            self.query_one("#export-error", Static).update("Give a path.")
            return
        self.dismiss((fmt, Path(raw).expanduser()))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "export-ok":
            self._ok()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
