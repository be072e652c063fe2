"""Where the cases table goes: the table, the preview of its first rows, or why there is none.

:class:`CasesArea` (id ``cases-host``) swaps what it shows one swap at a time, in order, and
keeps the focus on the table across swaps. It posts :class:`CasesArea.Swapped` after each swap;
:class:`~nlu_tui.ui.widgets.cases_view.CasesView` decides what to show.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from nlu_tui.textsafe import inert
from nlu_tui.ui.keyhold import TABLE_HOLD_SECONDS, hold_keys, release_keys


class CasesArea(Vertical):
    """Shows one of: a placeholder (a sentence), a :class:`TablePreview`, the cases table."""

    class Swapped(Message):
        """What the area shows changed; ``table`` when it is now the cases table, ``final``
        when it is the table or a sentence (not the preview, not "Loading…")."""

        def __init__(self, table: bool, final: bool) -> None:
            super().__init__()
            self.table = table
            self.final = final

    def __init__(self, placeholder: str) -> None:
        super().__init__(Static(placeholder, classes="placeholder"), id="cases-host")
        self._lock = asyncio.Lock()
        self.pending = 0
        """Swaps asked for and not yet done (an in-place row swap waits for none)."""
        self.previewing = False
        """A preview is on screen (the real table is being built)."""
        self.focus_wanted = False
        """The table was asked for the focus before it existed: it gets it when swapped in,
        and the keys typed meanwhile (held by the app) are delivered to it then."""

    def want_focus(self) -> None:
        """Focus the table once it is shown; hold the keys typed until then."""
        self.focus_wanted = True
        hold_keys(self, "cases-table", TABLE_HOLD_SECONDS)

    @property
    def table(self) -> Any:
        """The cases table on show, else None."""
        found = self.query("#cases-table")
        return found.first() if found else None

    def show_text(self, text: str, *, loading: bool = False) -> None:
        """A sentence instead of the table (why there is none, or what is being read).

        When a sentence is on show already and no swap is queued, its text is replaced in
        place: no widget removed and mounted, no new layout, and only its line repainted
        (the workbench's first screen goes from "No suite" to "Loading …" to the first rows;
        a swap there cost a full repaint before those rows)."""
        classes = "placeholder loading" if loading else "placeholder"
        shown = self.children[0] if len(self.children) == 1 else None
        if isinstance(shown, Static) and shown.has_class("placeholder") and not self.pending:
            shown.update(Content(inert(text)))  # literally, never markup
            shown.set_classes(classes)
            self.previewing = False
            self.post_message(self.Swapped(table=False, final=not loading))
            return
        self.show(Static(inert(text), classes=classes, markup=False))

    def show(
        self,
        widget: Widget,
        cursor_row: int | None = None,
        *,
        then: Callable[[], object] | None = None,
    ) -> None:
        """Swap what the area shows; swaps run one at a time, in order. ``then`` is called
        once the new content has been painted."""
        self.pending += 1
        if widget.id != "cases-preview":
            self.previewing = False
        self.call_later(self._swap, widget, cursor_row, then)

    def swap_rows(self, backend: Any, **kwargs: Any) -> bool:
        """Put ``backend``'s rows into the table on show, in place (a remount of 100,000
        rows costs about half a second); False when there is no table or a swap is queued."""
        current = self.table
        if current is None or self.pending:
            return False
        from nlu_tui.ui.widgets.fast_table import swap_backend

        swap_backend(current, backend, **kwargs)
        return True

    def cells_width(self, rows: int) -> int:
        """The width the table's cells will have here (beside its scrollbar, if it needs one)."""
        from nlu_tui.ui.widgets.fast_table import cells_width

        width, height = self.size
        return cells_width(width, height, rows)

    async def _swap(
        self, widget: Widget, cursor_row: int | None, then: Callable[[], object] | None = None
    ) -> None:
        async with self._lock:
            old = self.table
            had_focus = old is not None and old.has_focus
            await self.remove_children()
            await self.mount(widget)
            if cursor_row is not None:
                table: Any = widget  # the cases table (a fastdatatable subclass)
                table.move_cursor(row=cursor_row)
            wanted = self.focus_wanted and widget.id == "cases-table"
            if (had_focus or wanted) and widget.can_focus:
                widget.focus()
            self.pending -= 1
            final = widget.id != "cases-preview" and "loading" not in widget.classes
            if final and self.focus_wanted:  # the table (focused above), or why there is none
                self.focus_wanted = False
                release_keys(self, "cases-table")
            self.post_message(self.Swapped(widget.id == "cases-table", final))
            if then is not None:
                self.call_after_refresh(then)
