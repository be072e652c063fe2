"""The cases filter box: words, ``intent:X``, ``tag:X``, ``entity:X``, ``has:entities``,
``has:problems`` (the query language is :func:`nlu_tui.views.cases.view_table`'s)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input

from nlu_tui.ui.widgets.inert_fields import TextField

PLACEHOLDER = "/ filter: words  intent:X  tag:X  entity:X  has:entities  has:problems"


class CasesFilter(Horizontal):
    """One line holding the filter input (id ``filter``)."""

    class Changed(Message):
        """The filter text changed: the table shows the matching cases."""

        def __init__(self, query: str) -> None:
            super().__init__()
            self.query = query

    class Submitted(Message):
        """Enter in the filter: the user is done typing (the focus goes to the table)."""

    def __init__(self) -> None:
        super().__init__(id="filter-row")

    def compose(self) -> ComposeResult:
        yield TextField(placeholder=PLACEHOLDER, id="filter", compact=False)

    @property
    def query_text(self) -> str:
        return self.query_one("#filter", Input).value

    def set_blink(self, blink: bool) -> None:
        self.query_one("#filter", Input).cursor_blink = blink

    def focus_input(self) -> None:
        self.query_one("#filter", Input).focus()

    @on(Input.Changed, "#filter")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(event.value))

    @on(Input.Submitted, "#filter")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Submitted())
