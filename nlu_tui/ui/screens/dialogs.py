"""Every small typed modal of the workbench, in one module so they all behave alike.

Confirm, a suite's name, a prompt, export targets, pick a suite or a training file, conflicts,
a run's note, a choice among a few values. Each is a ``ModalScreen[T]`` that returns its answer
through ``dismiss`` (None, or False, when canceled with Escape), so callers use
``push_screen(screen, callback)``. A confirm focuses "No": Enter never destroys anything.
Text shown in them that comes from files or engines is escaped or passed as ``Text``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import (
    Button,
    Checkbox,
    DirectoryTree,
    Input,
    Label,
    OptionList,
    Select,
    Static,
    TextArea,
)
from textual.widgets.option_list import Option

from nlu_tui.model import MAX_NOTE_CHARS, Suite
from nlu_tui.textsafe import inert
from nlu_tui.ui.compact import make_compact
from nlu_tui.ui.state import cursor_blinks
from nlu_tui.ui.widgets.inert_fields import INERT, InertDirectoryTree, InertTextArea, TextField

DIALOG_CSS = """
.dialog {
    width: 72;
    max-width: 100%;
    height: auto;
    max-height: 100%;
    border: round $primary;
    background: $surface;
    padding: 0 1;
}
.dialog .title { text-style: bold; }
.dialog Label { width: 100%; }
.dialog .error { color: $error; height: auto; }
.dialog .buttons { dock: bottom; height: 1; align-horizontal: right; }
.dialog .buttons Button { margin-left: 1; }
.dialog Input, .dialog Select { margin-bottom: 1; }
"""
"""Compact frame (see nlu_tui/ui/compact.py): fits 80×24, the button row always visible."""

DIALOG_FRAME_CSS = """
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


def _blink_off(screen: ModalScreen[Any]) -> None:
    make_compact(screen)
    blink = cursor_blinks(screen)
    for widget in screen.query(Input):
        widget.cursor_blink = blink


_T = TypeVar("_T")


class _FormDialog(ModalScreen[_T | None]):
    """A compact form that answers None when canceled (Escape, bound per dialog, or Cancel)."""

    def on_mount(self) -> None:
        _blink_off(self)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmDialog(ModalScreen[bool]):
    """Yes/no: ``y`` confirms, ``n``/Escape declines, and Enter presses the focused button,
    which is "No" at first: a confirm (most are destructive) never goes ahead on a stray Enter.
    """

    DEFAULT_CSS = DIALOG_FRAME_CSS.format(name="ConfirmDialog")
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes", tooltip="Confirm."),
        Binding("n,escape", "answer(False)", "No", id="confirm.no", tooltip="Decline."),
    ]

    def __init__(
        self, title: str, body: str | Text = "", yes: str = "Yes (y)", no: str = "No (n)"
    ) -> None:
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


class SuiteFormScreen(_FormDialog[tuple[str, str]]):
    """A suite's name (required) and description."""

    DEFAULT_CSS = "SuiteFormScreen { align: center middle; }" + DIALOG_CSS
    AUTO_FOCUS = "#name"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="suite-form.cancel", tooltip="Cancel")]

    def __init__(self, title: str, name: str = "", with_description: bool = True) -> None:
        super().__init__()
        self.title_text = title
        self.initial_name = name
        self.with_description = with_description

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(inert(self.title_text), classes="title", markup=False)
            yield TextField(self.initial_name, placeholder="Name", id="name", highlighter=INERT)
            if self.with_description:
                yield TextField(placeholder="Description (optional)", id="description")
            yield Label("", id="error", classes="error", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("OK", id="ok", variant="primary")
                yield Button("Cancel", id="cancel")

    @on(Input.Submitted)
    @on(Button.Pressed, "#ok")
    def _submit(self) -> None:
        name = self.query_one("#name", Input).value.strip()
        if not name:
            self.query_one("#error", Label).update("A suite needs a name.")
            return
        description = ""
        if self.with_description:
            description = self.query_one("#description", Input).value.strip()
        self.dismiss((name, description))


class PromptScreen(_FormDialog[str]):
    """One line of text, with optional completion."""

    DEFAULT_CSS = "PromptScreen { align: center middle; }" + DIALOG_CSS
    AUTO_FOCUS = "#value"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel", tooltip="Cancel")]

    def __init__(
        self,
        title: str,
        placeholder: str = "",
        value: str = "",
        suggestions: list[str] | None = None,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.placeholder = placeholder
        self.value = value
        self.suggestions = suggestions or []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(inert(self.title_text), classes="title", markup=False)
            yield TextField(
                self.value,
                highlighter=INERT,
                placeholder=self.placeholder,
                id="value",
                suggester=SuggestFromList(self.suggestions) if self.suggestions else None,
            )
            with Horizontal(classes="buttons"):
                yield Button("OK", id="ok", variant="primary")
                yield Button("Cancel", id="cancel")

    @on(Input.Submitted)
    @on(Button.Pressed, "#ok")
    def _submit(self) -> None:
        self.dismiss(self.query_one("#value", Input).value)


class ExportScreen(_FormDialog[tuple[Path, str]]):
    """Where to export a suite, and in which format (guessed from the extension)."""

    DEFAULT_CSS = "ExportScreen { align: center middle; }" + DIALOG_CSS
    AUTO_FOCUS = "#path"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="export.cancel", tooltip="Cancel")]

    def __init__(self, source: Path) -> None:
        super().__init__()
        self.source = source

    def compose(self) -> ComposeResult:
        from nlu_tui.formats.registry import format_names

        stem = self.source.name.removesuffix(".suite.yaml")
        with Vertical(classes="dialog"):
            yield Label(inert(f"Export {self.source.name}"), classes="title", markup=False)
            yield TextField(str(self.source.parent / f"{stem}.json"), id="path", highlighter=INERT)
            yield Select(
                [(n, n) for n in format_names()], value="kore-json", id="format", allow_blank=False
            )
            with Horizontal(classes="buttons"):
                yield Button("Export", id="ok", variant="primary")
                yield Button("Cancel", id="cancel")

    @on(Input.Submitted)
    @on(Button.Pressed, "#ok")
    def _submit(self) -> None:
        text = self.query_one("#path", Input).value.strip()
        fmt = self.query_one("#format", Select).value
        if text and isinstance(fmt, str):
            self.dismiss((Path(text).expanduser(), fmt))


class PickSuiteScreen(_FormDialog[Path]):
    DEFAULT_CSS = "PickSuiteScreen { align: center middle; }" + DIALOG_CSS
    AUTO_FOCUS = "OptionList"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="pick-suite.cancel", tooltip="Cancel")]

    def __init__(self, title: str, paths: list[Path]) -> None:
        super().__init__()
        self.title_text = title
        self.paths = paths

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(inert(self.title_text), classes="title", markup=False)
            yield OptionList(
                *[Option(Text(inert(p.name, newlines=False)), id=str(p)) for p in self.paths]
            )

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(Path(event.option.id) if event.option.id else None)


class ConflictScreen(ModalScreen[tuple[str, str] | None]):
    """The suite file changed on disk: reload it (losing this change) or save as a new suite."""

    DEFAULT_CSS = "ConflictScreen { align: center middle; }" + DIALOG_CSS
    AUTO_FOCUS = "#reload"
    BINDINGS = [
        Binding("r", "reload", "Reload", id="conflict.reload", tooltip="Reload from disk"),
        Binding("s", "save_as", "Save as", id="conflict.save-as", tooltip="Save as a new suite"),
    ]

    def __init__(self, suite: Suite, reason: str) -> None:
        super().__init__()
        self.suite = suite
        self.reason = reason

    def compose(self) -> ComposeResult:
        name = self.suite.path.name if self.suite.path else self.suite.name
        with Vertical(classes="dialog"):
            yield Label(inert(f"{name} changed on disk"), classes="title", markup=False)
            yield Label(
                "Someone else changed this file after it was opened, so your change was NOT "
                "saved. Reload it (your change is lost) or save your version as a new suite.",
                markup=False,
            )
            yield Label(inert(self.reason), classes="error", markup=False)
            yield TextField(f"{self.suite.name} (mine)", id="new-name", highlighter=INERT)
            with Horizontal(classes="buttons"):
                yield Button("Reload (r)", id="reload", variant="warning")
                yield Button("Save as (s)", id="save-as", variant="primary")

    def on_mount(self) -> None:
        _blink_off(self)

    @on(Button.Pressed, "#reload")
    def action_reload(self) -> None:
        self.dismiss(("reload", ""))

    @on(Input.Submitted)
    @on(Button.Pressed, "#save-as")
    def action_save_as(self) -> None:
        name = self.query_one("#new-name", Input).value.strip() or f"{self.suite.name} (mine)"
        self.dismiss(("save-as", name))


class UnsavedQuitScreen(ModalScreen[str | None]):
    """Quitting with edits that could not be saved: save and quit, quit anyway, or stay.

    Answers ``"save"``, ``"discard"`` or None (stay). The safe choice has the focus, so an
    Enter pressed out of habit never throws an edit away.
    """

    DEFAULT_CSS = "UnsavedQuitScreen { align: center middle; }" + DIALOG_CSS
    AUTO_FOCUS = "#save"
    BINDINGS = [
        Binding("s", "answer('save')", "Save and quit", id="quit.save", tooltip="Save, then quit"),
        Binding(
            "d",
            "answer('discard')",
            "Quit without saving",
            id="quit.discard",
            tooltip="Quit and lose the unsaved edits",
        ),
        Binding("escape,c", "answer(None)", "Cancel", id="quit.cancel", tooltip="Stay"),
    ]

    def __init__(self, unsaved: list[Any]) -> None:
        super().__init__()
        self.unsaved = unsaved
        """The workspace's :class:`nlu_tui.workspace.UnsavedSuite` entries."""

    def compose(self) -> ComposeResult:
        count = len(self.unsaved)
        with Vertical(classes="dialog"):
            yield Label(
                f"{count} suite{'s have' if count != 1 else ' has'} unsaved edits",
                classes="title",
                markup=False,
            )
            for pending in self.unsaved:
                yield Label(
                    inert(f"{pending.path.name}: {pending.error}", newlines=False),
                    classes="error",
                    markup=False,
                )
            with Horizontal(classes="buttons"):
                yield Button("Save and quit (s)", id="save", variant="primary")
                yield Button("Quit without saving (d)", id="discard", variant="error")
                yield Button("Cancel (Esc)", id="cancel")

    def on_mount(self) -> None:
        make_compact(self)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id if event.button.id in ("save", "discard") else None)

    def action_answer(self, choice: str | None) -> None:
        self.dismiss(choice)


class NoteDialog(ModalScreen[str | None]):
    """Edit a run's note: at most :data:`MAX_NOTE_CHARS` characters, with a live counter."""

    DEFAULT_CSS = (
        DIALOG_FRAME_CSS.format(name="NoteDialog")
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
        DIALOG_FRAME_CSS.format(name="ChoiceDialog")
        + """
    ChoiceDialog OptionList { height: auto; max-height: 20; }
    """
    )
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="choice.cancel", tooltip="Close.")]

    def __init__(
        self, title: str, choices: Sequence[tuple[str, str]], selected: str | None = None
    ) -> None:
        """``choices`` are (value, label); the list opens on ``selected`` when given."""
        super().__init__()
        self._title = title
        self._choices = list(choices)
        self._selected = selected

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
        options = self.query_one(OptionList)
        values = [value for value, _ in self._choices]
        if self._selected in values:
            options.highlighted = values.index(self._selected)
        options.focus()

    @on(OptionList.OptionSelected)
    def _selected_option(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


RASA_SWITCHES = (
    ("successes", "successes", False, "also *_successes.json (rasa test nlu --successes)"),
    ("errors", "errors", True, "the *_errors.json files (off: rasa test nlu --no-errors)"),
    ("plots", "plots", True, "the PNG plots (off: rasa test nlu --no-plot)"),
)
"""(key, label, default, tooltip) of the Rasa folder's switches, as the CLI's ``--rasa-*``."""


class ExportDialog(ModalScreen[tuple[str, Path, dict[str, bool]] | None]):
    """Choose a report format and the path to write it to (and, for the Rasa folder, the
    ``rasa test nlu`` switches: successes, errors, plots)."""

    DEFAULT_CSS = (
        DIALOG_FRAME_CSS.format(name="ExportDialog")
        + """
ExportDialog #export-rasa { height: auto; }
ExportDialog #export-rasa Checkbox { margin-right: 2; }
ExportDialog #export-rasa .rasa-head { width: auto; margin-right: 1; color: $text-muted; }
"""
    )
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
            yield TextField(
                self._default_path(first), id="export-path", placeholder="path", highlighter=INERT
            )
            with Horizontal(id="export-rasa"):
                yield Label("rasa test nlu:", classes="rasa-head")
                for key, label, default, tip in RASA_SWITCHES:
                    box = Checkbox(label, default, id=f"export-rasa-{key}", compact=True)
                    box.tooltip = tip
                    yield box
            yield Static("", id="export-error", classes="dialog-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Export (ctrl+s)", variant="primary", id="export-ok")
                yield Button("Cancel (esc)", id="export-cancel")

    def on_mount(self) -> None:
        make_compact(self)
        self._show_rasa_switches(str(self.query_one("#export-format", Select).value))
        self.query_one("#export-path", Input).focus()

    def _show_rasa_switches(self, fmt: str) -> None:
        self.query_one("#export-rasa", Horizontal).display = fmt == "rasa"

    def action_export(self) -> None:
        self._ok()

    @on(Select.Changed, "#export-format")
    def _format_changed(self, event: Select.Changed) -> None:
        self.query_one("#export-path", Input).value = self._default_path(str(event.value))
        self._show_rasa_switches(str(event.value))

    @on(Input.Submitted, "#export-path")
    def _submitted(self) -> None:
        self._ok()

    def _ok(self) -> None:
        fmt = str(self.query_one("#export-format", Select).value)
        raw = self.query_one("#export-path", Input).value.strip()
        if not raw:
            self.query_one("#export-error", Static).update("Give a path.")
            return
        switches = {
            key: self.query_one(f"#export-rasa-{key}", Checkbox).value
            for key, _label, _default, _tip in RASA_SWITCHES
        }
        self.dismiss((fmt, Path(raw).expanduser(), switches))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "export-ok":
            self._ok()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class _TrainingTree(InertDirectoryTree):
    """Folders and Rasa-style ``*.yml``/``*.yaml`` files (hidden entries left out)."""

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        out = []
        for path in paths:
            if path.name.startswith("."):
                continue
            try:
                if path.is_dir() or path.suffix in (".yml", ".yaml"):
                    out.append(path)
            except OSError:
                continue
        return out


class TrainingFilePicker(ModalScreen[Path | None]):
    """Pick a training file (``*.yml``/``*.yaml``) for the embedded engine: type its path, or
    pick it in the trees of the workspace, the folder nlu-tui started in and the home folder
    (``tab`` moves between them; Enter on a file picks it)."""

    DEFAULT_CSS = (
        DIALOG_FRAME_CSS.format(name="TrainingFilePicker")
        + """
    TrainingFilePicker DirectoryTree { height: 8; }
    TrainingFilePicker .picker-root { color: $text-muted; }
    """
    )
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="picker.cancel", tooltip="Close.")]

    def __init__(self, roots: Sequence[Path]) -> None:
        super().__init__()
        seen: set[Path] = set()
        self._roots: list[Path] = []
        for root in roots:
            path = Path(root).expanduser()
            key = path.resolve()
            if key not in seen and path.is_dir():
                seen.add(key)
                self._roots.append(path)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Training file for the embedded engine", classes="dialog-title")
            yield TextField(
                placeholder="path to a Rasa NLU training file (or pick one below), Enter",
                id="picker-path",
                highlighter=INERT,
            )
            yield Static("", id="picker-error", classes="dialog-error")
            for root in self._roots:
                yield Label(Text(inert(str(root), newlines=False)), classes="picker-root")
                yield _TrainingTree(root)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel (esc)", id="picker-cancel")

    def on_mount(self) -> None:
        make_compact(self)
        self.query_one("#picker-path", Input).focus()

    @on(Input.Submitted, "#picker-path")
    def _typed(self, event: Input.Submitted) -> None:
        raw = event.value.strip()
        if not raw:
            return
        path = Path(raw).expanduser()
        if not path.is_absolute():
            # relative to the folder nlu-tui started in, as a shell would read it
            path = Path.cwd() / path
        if not path.is_file():
            self.query_one("#picker-error", Static).update(
                Text(inert(f"No such file: {path}", newlines=False))
            )
            return
        self.dismiss(path)

    @on(DirectoryTree.FileSelected)
    def _picked(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        self.dismiss(Path(event.path))

    @on(Button.Pressed, "#picker-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
