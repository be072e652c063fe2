"""The Results pane's "Confusion" tab: expected × predicted counts; a cell lists its cases,
and choosing one posts :class:`ConfusionTab.CaseChosen` (the pane shows it in its table)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import DataTable, OptionList, TabPane
from textual.widgets.option_list import Option

from nlu_tui.reports.run_data import RunData
from nlu_tui.scoring.intent_report import shown_label
from nlu_tui.textsafe import inert, inert_markup


class ConfusionTab(TabPane):
    """The confusion table (id ``results-confusion``) and a cell's cases (``results-cell-cases``)."""

    class CaseChosen(Message):
        """A case of a confusion cell was chosen: show it in the results table."""

        def __init__(self, case_id: str) -> None:
            super().__init__()
            self.case_id = case_id

    def __init__(self) -> None:
        super().__init__("Confusion", id="tab-res-confusion")
        self.data: RunData | None = None
        self._cell: tuple[str, str] | None = None

    def compose(self) -> ComposeResult:
        yield DataTable(id="results-confusion", cursor_type="cell")
        yield OptionList(id="results-cell-cases")

    def show(self, data: RunData | None) -> None:
        self.data = data
        self._fill_confusion()

    def _fill_confusion(self) -> None:
        table = self.query_one("#results-confusion", DataTable)
        table.clear(columns=True)
        self.query_one("#results-cell-cases", OptionList).clear_options()
        if self.data is None:
            return
        confusion = self.data.confusion
        labels = confusion.labels
        table.add_column(Text("expected \\ predicted"), key="__row__")
        for label in labels:
            table.add_column(Text(inert(shown_label(label), newlines=False)), key=label)
        for true_label in labels:
            row: list[Any] = [Text(inert(shown_label(true_label), newlines=False), style="bold")]
            for predicted in labels:
                count = confusion.count(true_label, predicted)
                style = "green" if true_label == predicted else ("red" if count else "dim")
                row.append(Text(str(count) if count else "·", style=style, justify="right"))
            table.add_row(*row, key=true_label)

    @on(DataTable.CellSelected, "#results-confusion")
    def _cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        true_label = str(event.cell_key.row_key.value)
        predicted = str(event.cell_key.column_key.value)
        if predicted == "__row__":
            return
        self.open_cell(true_label, predicted)

    def open_cell(self, true_label: str, predicted: str) -> list[str]:
        """List the cases of one confusion cell below the table; returns their ids."""
        assert self.data is not None
        self._cell = (true_label, predicted)
        ids = self.data.cell_case_ids(true_label, predicted)
        options = self.query_one("#results-cell-cases", OptionList)
        options.clear_options()
        options.border_title = inert_markup(
            f"{len(ids)} case(s): expected {true_label}, predicted {predicted}", newlines=False
        )
        for cid in ids:
            case = self.data.by_id[cid][0]
            options.add_option(Option(Text(inert(case.utterance, newlines=False)), id=cid))
        return ids

    @on(OptionList.OptionSelected, "#results-cell-cases")
    def _cell_case_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is None:
            return
        self.post_message(self.CaseChosen(event.option.id))
