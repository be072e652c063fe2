"""Engines side by side in the workbench: the matrix of a comparison.

Opened from the Runs tab (``c``): the stored comparison the selected run belongs to
(``nlu-tui run SUITE --engine a --engine b``), or the two marked runs. The figures come from
:mod:`nlu_tui.engine_compare` (computed in a thread worker), laid out by
:mod:`nlu_tui.engine_compare_report` as the CLI lays them out; the screen only shows them: a
column per engine with the run's figures and the F1 of every intent, and the cases where the
engines disagree.
"""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Static, TabbedContent, TabPane

from nlu_tui.engine_compare import EngineComparison
from nlu_tui.engine_compare_report import disagreement_line, intent_rows, metric_rows, title
from nlu_tui.runsessions import store_for
from nlu_tui.textsafe import inert
from nlu_tui.ui.commands import PaletteCommand
from nlu_tui.ui.widgets.footer import BudgetFooter
from nlu_tui.ui.workers import ReportsFailedWorkers


class ComparisonScreen(ReportsFailedWorkers, Screen[None]):
    """A stored comparison (``comparison_id``) or runs picked by hand (``run_ids``)."""

    DEFAULT_CSS = """
    ComparisonScreen #matrix-header { height: auto; padding: 0 1; background: $boost; }
    ComparisonScreen #matrix-tabs { height: 1fr; }
    ComparisonScreen DataTable { height: 1fr; }
    """

    BINDINGS = [
        Binding(
            "escape,q", "app.pop_screen", "Back", id="matrix.back", tooltip="Back to the runs."
        ),
    ]

    def __init__(
        self, *, comparison_id: str | None = None, run_ids: list[str] | None = None
    ) -> None:
        super().__init__()
        self.comparison_id = comparison_id
        self.run_ids = list(run_ids or [])
        self.result: EngineComparison | None = None

    def compose(self) -> ComposeResult:
        what = self.comparison_id or " and ".join(self.run_ids)
        yield Static(Text(inert(f"Comparing engines: {what}…")), id="matrix-header")
        with TabbedContent(id="matrix-tabs"):
            with TabPane("Per-intent F1", id="tab-matrix-f1"):
                yield DataTable(id="matrix-f1", cursor_type="row", zebra_stripes=True)
            with TabPane("Disagreements", id="tab-matrix-disagreements"):
                yield DataTable(id="matrix-disagreements", cursor_type="row", zebra_stripes=True)
        yield BudgetFooter()

    def on_mount(self) -> None:
        self._compute()

    @work(
        thread=True,
        exclusive=True,
        group="matrix",
        exit_on_error=False,
        name="matrix",
        description="Comparing engines",
    )
    def _compute(self) -> None:
        from nlu_tui.engine_compare import compare_run_ids, compare_stored
        from nlu_tui.store.comparisons import get_comparison

        store = store_for(self.app)
        try:
            if self.comparison_id is not None:
                result = compare_stored(store, get_comparison(store, self.comparison_id))
            else:
                result = compare_run_ids(store, self.run_ids)
        except Exception as exc:
            self.app.call_from_thread(self._failed, exc)
            return
        self.app.call_from_thread(self._show, result)

    def _failed(self, exc: Exception) -> None:
        self.query_one("#matrix-header", Static).update(
            Text(inert(f"Cannot compare: {exc}"), style="red")
        )
        self.notify(escape(str(exc)), title="Cannot compare", severity="error")

    def _show(self, result: EngineComparison) -> None:
        self.result = result
        keys = [f"[{i}]" for i in range(1, len(result.engines) + 1)]
        header = Text(inert(title(result), newlines=False), style="bold")
        for key, column in zip(keys, result.engines, strict=True):
            header.append(inert(f"\n{key} {column.label}", newlines=False))
        if result.missing_runs:
            header.append("\ndeleted runs: " + ", ".join(result.missing_runs), style="yellow")
        header.append("\n" + disagreement_line(result))
        self.query_one("#matrix-header", Static).update(header)
        matrix = self.query_one("#matrix-f1", DataTable)
        matrix.clear(columns=True)
        matrix.add_column("", key="name")  # run ids and figures below: the core's, no markup
        for key in keys:
            matrix.add_column(key, key=key)
        for name, cells in metric_rows(result):
            matrix.add_row(Text(name, style="bold"), *cells)
        for name, cells in intent_rows(result):
            matrix.add_row(Text(inert(name, newlines=False)), *cells, key=f"intent:{name}")
        table = self.query_one("#matrix-disagreements", DataTable)
        table.clear(columns=True)
        for key, label in (("case", "Case"), ("utterance", "Utterance"), ("expected", "Expected")):
            table.add_column(label, key=key)
        for key in keys:
            table.add_column(key, key=key)
        for d in result.disagreements:
            table.add_row(
                Text(inert(d.case_id, newlines=False)),
                Text(inert(d.utterance, newlines=False)),
                Text(inert("|".join(d.expected) or "-", newlines=False)),
                *(Text(inert(a, newlines=False)) for a in d.answers),
                key=d.case_id,
            )

    def palette_commands(self) -> list[PaletteCommand]:
        """One entry per key of :attr:`BINDINGS`, running the same action."""
        return [PaletteCommand("compare: Back", self.app.pop_screen, "Close the matrix (Esc)")]
