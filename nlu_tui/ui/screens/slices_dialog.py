"""The run's slices in the workbench (palette: ``results: Slices``): precision, recall, F1 and
intent success per tag, per intent kind and per parent intent — the same lines ``nlu-tui show
RUN`` prints (:func:`nlu_tui.scoring.slices.slice_lines`, names already made inert), shown as
plain text."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from nlu_tui.textsafe import inert


class SlicesScreen(ModalScreen[None]):
    """Plain text of the slices, scrolling in both directions; Escape closes."""

    DEFAULT_CSS = """
    SlicesScreen { align: center middle; }
    SlicesScreen > Vertical {
        width: 100; max-width: 100%; height: auto; max-height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    SlicesScreen .dialog-title { text-style: bold; }
    SlicesScreen VerticalScroll { height: auto; max-height: 100%; overflow-x: auto; }
    SlicesScreen #slices-text { width: auto; }
    SlicesScreen #slices-keys { color: $text-muted; dock: bottom; height: 1; }
    """
    BINDINGS = [Binding("escape,q", "close", "Close", id="slices.close")]

    def __init__(self, run_id: str, lines: list[str]) -> None:
        super().__init__()
        self.run_id = run_id
        self.lines = lines

    def compose(self) -> ComposeResult:
        body = "\n".join(self.lines) or (
            "No slices: no case of this run has a tag, an intent kind or a parent intent."
        )
        with Vertical():
            yield Label(
                Text(inert(f"Slices of run {self.run_id}", newlines=False)), classes="dialog-title"
            )
            with VerticalScroll():
                yield Static(Text(body), id="slices-text")
            yield Static("Esc close", id="slices-keys")

    def on_mount(self) -> None:
        # Focused, so arrows, Page keys and Home/End scroll a list taller or wider than the
        # terminal (the key line is docked, always visible).
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)
