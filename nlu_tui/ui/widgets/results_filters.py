"""The filter bar above the results table: search the utterances, result type, intent.

:class:`ResultsFilterBar` (id ``results-filters``) posts :class:`ResultsFilterBar.Changed` with
the :class:`~nlu_tui.views.result_columns.ResultFilter` its fields now say, and
:class:`ResultsFilterBar.Submitted` on Enter in the search box; :meth:`ResultsFilterBar.show`
puts a filter in the fields without posting anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Select

from nlu_tui.scoring.intent_report import shown_label
from nlu_tui.textsafe import inert
from nlu_tui.ui.widgets.inert_fields import TextField
from nlu_tui.views.result_columns import ResultFilter

TYPE_CHOICES = [
    ("All results", ""),
    ("FP only", "FP"),
    ("FN only", "FN"),
    ("Errors", "ERROR"),
    ("Misses (FP+FN+errors)", "FP,FN,ERROR"),
    ("TP only", "TP"),
    ("TN only", "TN"),
]
FLAKY = "flaky"
"""The result filter's "Flaky only" choice, offered for a repeated run."""
FLAKY_CHOICE = ("Flaky only (repeat run)", FLAKY)


class ResultsFilterBar(Horizontal):
    """One line: the search box (``results-search``), the result type (``results-type``) and
    the intent (``results-intent``)."""

    class Changed(Message):
        """The user changed a field: the table shows what ``filter`` selects."""

        def __init__(self, filter: ResultFilter) -> None:
            super().__init__()
            self.filter = filter

    class Submitted(Message):
        """Enter in the search box: the focus goes to the table."""

    def __init__(self) -> None:
        super().__init__(id="results-filters")

    def compose(self) -> ComposeResult:
        yield TextField(placeholder="search utterances ( / )", id="results-search", compact=True)
        yield Select(TYPE_CHOICES, value="", allow_blank=False, id="results-type", compact=True)
        yield Select(
            [("All intents", "")],
            value="",
            allow_blank=False,
            id="results-intent",
            compact=True,
        )

    def read(self) -> ResultFilter:
        """The filter the fields say."""
        text = self.query_one("#results-search", Input).value.strip()
        types = str(self.query_one("#results-type", Select).value or "")
        intent = str(self.query_one("#results-intent", Select).value or "")
        if types == FLAKY:
            return ResultFilter(frozenset(), intent, text, flaky=True)
        return ResultFilter(frozenset(t for t in types.split(",") if t), intent, text)

    def show(self, flt: ResultFilter, labels: Sequence[str] | None, flaky: bool) -> None:
        """Put ``flt`` in the fields (``labels``: the run's intents; ``flaky``: a repeated
        run, which offers "Flaky only"), without a :class:`Changed`."""
        with self.prevent(Input.Changed, Select.Changed):
            self.query_one("#results-search", Input).value = flt.text
            types = FLAKY if flt.flaky else ",".join(sorted(flt.types))
            known = {v for _, v in TYPE_CHOICES}
            if flaky:
                known.add(FLAKY)
            self.query_one("#results-type", Select).value = types if types in known else ""
            intent_select = self.query_one("#results-intent", Select)
            if flt.intent and labels is not None and flt.intent in labels:
                intent_select.value = flt.intent
            elif not flt.intent:
                intent_select.value = ""

    def set_type_choices(self, flt: ResultFilter, flaky: bool) -> None:
        """The result type's choices: "Flaky only" too for a repeated run."""
        select = self.query_one("#results-type", Select)
        choices = [*TYPE_CHOICES, FLAKY_CHOICE] if flaky else TYPE_CHOICES
        types = FLAKY if flt.flaky else ",".join(sorted(flt.types))
        with self.prevent(Select.Changed):
            select.set_options(choices)
            select.value = types if types in {v for _, v in choices} else ""

    def set_intents(self, labels: Sequence[str]) -> None:
        """The intent choices: all, or one of the run's intents."""
        intents: list[tuple[Any, str]] = [("All intents", "")]
        intents += [(Text(inert(shown_label(label), newlines=False)), label) for label in labels]
        select = self.query_one("#results-intent", Select)
        select.set_options(intents)
        select.value = ""

    def focus_search(self) -> None:
        self.query_one("#results-search", Input).focus()

    @on(Input.Changed, "#results-search")
    @on(Select.Changed, "#results-type")
    @on(Select.Changed, "#results-intent")
    def _fields_changed(self, event: Input.Changed | Select.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(self.read()))

    @on(Input.Submitted, "#results-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Submitted())
