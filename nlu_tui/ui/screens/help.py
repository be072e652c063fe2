"""The help screen (``?`` / F1): every key that works where the user is, with what it does.

The footer shows only the main keys (it cannot wrap), so this screen lists them all, taken
from the live bindings of the screen underneath, plus the filter syntax. Keys remapped in
settings.yaml's ``keymap:`` are shown as remapped, and each row names its binding id (dim) so
users know what to remap.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from nlu_tui.textsafe import inert
from nlu_tui.ui.state import hosting_workbench
from nlu_tui.ui.widgets.rendered_once import RenderedOnce

FILTER_HELP = (
    "Filter box: plain words match the utterance; intent:NAME, tag:NAME, entity:NAME; "
    "has:entities, has:problems, has:order, has:parent, no:intent.\n"
    "Case editor: utterances one per line (each becomes a case); Ctrl+S saves; Escape cancels.\n"
    "Keys a terminal may swallow have an alternative; Ctrl+P opens the command palette "
    "(commands read 'group: Verb'). Run `textual keys` to see what your terminal sends.\n"
    "Remap keys by binding id under keymap: in settings.yaml; the ids are listed here when the "
    "window is at least 100 columns wide."
)


WIDE = 100
"""From this many columns the help screen also shows each key's binding id."""


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
        self.key_rows: list[tuple[str, str, str, str]] = []
        """(keys, action, what it does, binding id) per row shown."""

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield RenderedOnce(self._table(), id="help-keys")
            yield Static(Text(FILTER_HELP), id="help-filter")

    def _table(self) -> Table:
        table = Table(title="Keys", expand=True, show_edge=False)
        # Binding ids (for remapping) only where they fit: at 80 columns a fourth column
        # would wrap every description over four lines.
        with_ids = self.app.size.width >= WIDE
        table.add_column("Key", no_wrap=True)
        if with_ids:
            table.add_column("Action", ratio=1, min_width=8)
            table.add_column("What it does", ratio=2)
            table.add_column("Id", style="dim", no_wrap=True)
        else:
            # narrow (80 columns): the action leads its description in one wide column, so a
            # row takes one or two lines, not four or five in three narrow columns
            table.add_column("What it does", ratio=1)
        host = hosting_workbench(self)
        keymap = host.user_keymap if host is not None else {}
        underneath = self.app.screen_stack[-2] if len(self.app.screen_stack) > 1 else None
        seen: set[tuple[str, str]] = set()
        nodes = list(underneath.query("*")) if underneath is not None else []
        for node in [self.app, *([underneath] if underneath else []), *nodes]:
            for binding in getattr(node, "BINDINGS", []):
                if not isinstance(binding, Binding) or not binding.description:
                    continue
                key_string = keymap.get(binding.id or "", binding.key)
                keys = ", ".join(
                    self.app.get_key_display(Binding(k.strip(), "")) for k in key_string.split(",")
                )
                row = (keys, binding.description)
                if row in seen:
                    continue
                seen.add(row)
                binding_id = binding.id or ""
                self.key_rows.append((keys, binding.description, binding.tooltip, binding_id))
                if with_ids:
                    cells = [Text(binding.description), Text(binding.tooltip), Text(binding_id)]
                else:
                    cells = [Text.assemble((binding.description, "bold"), "  ", binding.tooltip)]
                table.add_row(Text(inert(keys)), *cells)
        return table

    def action_close(self) -> None:
        self.dismiss(None)
