"""Small typed modals: confirm, a suite's name, a prompt, export target, pick a suite, conflicts.

Each is a ``ModalScreen[T]`` that returns its answer through ``dismiss`` (None when canceled
with Escape), so callers use ``push_screen(screen, callback)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Button, Input, Label, OptionList, Select
from textual.widgets.option_list import Option

from nlu_tui.model import Suite
from nlu_tui.ui.compact import make_compact

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


def _blink_off(screen: ModalScreen[Any]) -> None:
    make_compact(screen)
    blink = getattr(screen.app, "cursor_blink", True)
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


class ConfirmScreen(ModalScreen[bool]):
    """Yes or no; ``y``/``n`` work as well as the buttons."""

    DEFAULT_CSS = "ConfirmScreen { align: center middle; }" + DIALOG_CSS
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes", tooltip="Yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no", tooltip="No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question, markup=False, classes="title")
            with Horizontal(classes="buttons"):
                yield Button("Yes (y)", id="yes", variant="error")
                yield Button("No (n)", id="no")

    def on_mount(self) -> None:
        make_compact(self)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


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
            yield Label(self.title_text, classes="title", markup=False)
            yield Input(self.initial_name, placeholder="Name", id="name")
            if self.with_description:
                yield Input(placeholder="Description (optional)", id="description")
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
            yield Label(self.title_text, classes="title", markup=False)
            yield Input(
                self.value,
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
        from nlu_tui.formats.registry import FORMAT_MODULES

        stem = self.source.name.removesuffix(".suite.yaml")
        with Vertical(classes="dialog"):
            yield Label(f"Export {self.source.name}", classes="title", markup=False)
            yield Input(str(self.source.parent / f"{stem}.json"), id="path")
            yield Select(
                [(n, n) for n in FORMAT_MODULES], value="kore-json", id="format", allow_blank=False
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
            yield Label(self.title_text, classes="title", markup=False)
            yield OptionList(*[Option(Text(p.name), id=str(p)) for p in self.paths])

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
            yield Label(f"{name} changed on disk", classes="title", markup=False)
            yield Label(
                "Someone else changed this file after it was opened, so your change was NOT "
                "saved. Reload it (your change is lost) or save your version as a new suite.",
                markup=False,
            )
            yield Label(self.reason, classes="error", markup=False)
            yield Input(f"{self.suite.name} (mine)", id="new-name")
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
