"""The help screen (``?`` / F1): every key that works where the user is, with what it does.

The footer shows only the main keys (it cannot wrap), so this screen lists them all, taken
from the live bindings of the screen underneath, plus the filter syntax. Keys remapped in
settings.yaml's ``keymap:`` are shown as remapped, and each row names its binding id (dim) so
users know what to remap.

The screen is built once, in idle time, and refilled for each use (:mod:`nlu_tui.ui.reuse`):
the keys are read again from the screen it opens over, and the table is drawn again only when
they (or the layout for the window's width) changed. It dims the screen below once per change
(:mod:`nlu_tui.ui.backdrop`).
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from nlu_tui.textsafe import inert
from nlu_tui.ui.backdrop import CachedBackdrop
from nlu_tui.ui.reuse import ReusedScreen, prebuild
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


class HelpScreen(ReusedScreen, CachedBackdrop, ModalScreen[None]):
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
        self.with_ids = False
        """Whether the table has a column of binding ids (a window at least WIDE columns)."""
        self._drawn: tuple[bool, list[tuple[str, str, str, str]]] | None = None
        """The columns and rows of the table the screen holds (None before it is composed)."""
        self._filled = False

    @classmethod
    def blank(cls) -> HelpScreen:
        """A help screen to build in idle time and :meth:`refill` for each use."""
        return cls()

    def compose(self) -> ComposeResult:
        if not self._filled:  # pushed without a refill: the keys of the screen it opened over
            stack = self.app.screen_stack
            self.refill(stack[-2] if len(stack) > 1 and stack[-1] is self else stack[-1])
        with VerticalScroll():
            yield RenderedOnce(self._table(), id="help-keys")
            yield Static(Text(FILTER_HELP), id="help-filter")
        self._drawn = (self.with_ids, list(self.key_rows))

    def refill(self, underneath: Screen[Any] | None) -> None:
        """Show the keys that work over ``underneath`` (the screen it is about to open over),
        from the top; the table is drawn again only when they changed."""
        self.key_rows = self._rows(underneath)
        self.with_ids = self.app.size.width >= WIDE
        self._filled = True
        if not self.is_mounted or self._drawn is None:
            return  # compose draws them
        if self._drawn != (self.with_ids, self.key_rows):
            self._drawn = (self.with_ids, list(self.key_rows))
            self.query_one("#help-keys", RenderedOnce).show(self._table())
        self.query_one(VerticalScroll).scroll_home(animate=False, immediate=True)

    def _rows(self, underneath: Screen[Any] | None) -> list[tuple[str, str, str, str]]:
        """(keys, action, what it does, binding id) of every key with a description that works
        over ``underneath``: the app's, that screen's and its widgets', remapped as the user's
        keymap says, each (keys, action) once."""
        host = hosting_workbench(self)
        keymap = host.user_keymap if host is not None else {}
        rows: list[tuple[str, str, str, str]] = []
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
                rows.append((keys, binding.description, binding.tooltip, binding.id or ""))
        return rows

    def _table(self) -> Table:
        """The table of :attr:`key_rows`."""
        table = Table(title="Keys", expand=True, show_edge=False)
        # Binding ids (for remapping) only where they fit: at 80 columns a fourth column
        # would wrap every description over four lines.
        with_ids = self.with_ids
        table.add_column("Key", no_wrap=True)
        if with_ids:
            table.add_column("Action", ratio=1, min_width=8)
            table.add_column("What it does", ratio=2)
            table.add_column("Id", style="dim", no_wrap=True)
        else:
            # narrow (80 columns): the action leads its description in one wide column, so a
            # row takes one or two lines, not four or five in three narrow columns
            table.add_column("What it does", ratio=1)
        for keys, action, tooltip, binding_id in self.key_rows:
            if with_ids:
                cells = [Text(action), Text(tooltip), Text(binding_id)]
            else:
                cells = [Text.assemble((action, "bold"), "  ", tooltip)]
            table.add_row(Text(inert(keys)), *cells)
        return table

    def action_close(self) -> None:
        self.dismiss(None)


async def prebuild_help(app: App[Any]) -> None:
    """Build the help screen in idle time, filled (and its table drawn) for the screen on top,
    so the first F1 over it only shows it."""
    screen = HelpScreen.blank()
    screen.refill(app.screen)
    await prebuild(app, screen)
