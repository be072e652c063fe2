"""The help screen (``?`` / F1): every key that works where the user is, with what it does.

The footer shows only the main keys (it cannot wrap), so this screen lists them all, taken
from the live bindings of the screen underneath, plus the filter syntax.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

FILTER_HELP = (
    "Filter box: plain words match the utterance; intent:NAME, tag:NAME, entity:NAME; "
    "has:entities, has:problems, has:order, has:parent, no:intent.\n"
    "Case editor: utterances one per line (each becomes a case); Ctrl+S saves; Escape cancels.\n"
    "Keys a terminal may swallow have an alternative; Ctrl+P opens the command palette "
    "(commands read 'group: Verb'). Run `textual keys` to see what your terminal sends."
)


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90%; max-width: 110; height: 90%;
        border: thick $primary 60%; background: $surface; padding: 0 1;
    }
    """
    BINDINGS = [
        Binding("escape,q,question_mark,f1", "close", "Close", id="help.close", tooltip="Close")
    ]

    def __init__(self) -> None:
        super().__init__()
        self.key_rows: list[tuple[str, str, str]] = []

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self._table(), id="help-keys")
            yield Static(Text(FILTER_HELP), id="help-filter")

    def _table(self) -> Table:
        table = Table(title="Keys", expand=True, show_edge=False)
        table.add_column("Key", no_wrap=True)
        table.add_column("Action")
        table.add_column("What it does")
        underneath = self.app.screen_stack[-2] if len(self.app.screen_stack) > 1 else None
        seen: set[tuple[str, str]] = set()
        nodes = list(underneath.query("*")) if underneath is not None else []
        for node in [self.app, *([underneath] if underneath else []), *nodes]:
            for binding in getattr(node, "BINDINGS", []):
                if not isinstance(binding, Binding) or not binding.description:
                    continue
                keys = ", ".join(
                    self.app.get_key_display(Binding(k.strip(), "")) for k in binding.key.split(",")
                )
                row = (keys, binding.description)
                if row in seen:
                    continue
                seen.add(row)
                self.key_rows.append((keys, binding.description, binding.tooltip))
                table.add_row(Text(keys), Text(binding.description), Text(binding.tooltip))
        return table

    def action_close(self) -> None:
        self.dismiss(None)
