"""The results of a DUT run (``nlu-tui test du``): figures, the per-command metrics table and
the failed steps with their EXPECTED | PREDICTED diff, read from the run's stored summary."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from nlu_tui.textsafe import inert
from nlu_tui.ui.screens.page_export import EXPORT_TOOLTIP
from nlu_tui.views.dut_view import METRIC_COLUMNS, failed_step_lines, headline, metric_rows


class DutResultsScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    DutResultsScreen { align: center middle; }
    DutResultsScreen > VerticalScroll {
        width: 95%; height: 95%;
        border: thick $primary 60%; background: $surface; padding: 0 1;
    }
    """
    BINDINGS = [
        Binding("escape,q", "close", "Close", id="dut.close", tooltip="Close"),
        Binding("x", "export", "Export", id="dut.export", tooltip=EXPORT_TOOLTIP),
    ]

    def __init__(
        self,
        title: str,
        summary: dict[str, Any],
        *,
        run_id: str | None = None,
        suite_path: str | None = None,
    ) -> None:
        """``run_id`` (the stored run shown) makes ``x`` export it; ``suite_path`` is where
        the export goes by default (beside the test file)."""
        super().__init__()
        self.title_text = title
        self.summary = summary
        self.run_id = run_id
        self.suite_path = suite_path

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            title = Text(inert(self.title_text), style="bold")
            if self.run_id is not None:
                title.append("  x exports it (HTML, Markdown) · Esc closes", style="dim")
            yield Static(title, id="dut-title")
            yield Static(Text("\n".join(inert(x) for x in headline(self.summary))), id="dut-head")
            yield Static(self._metrics(), id="dut-metrics")
            yield Static(Text("Failed steps", style="bold"), id="dut-failed-title")
            lines = failed_step_lines(self.summary)
            yield Static(Text("\n".join(inert(x) for x in lines)), id="dut-failed")

    def _metrics(self) -> Table:
        table = Table(title="Command metrics", expand=False, show_edge=False)
        for column in METRIC_COLUMNS:
            table.add_column(column, justify="left" if column == "command" else "right")
        for row in metric_rows(self.summary):
            table.add_row(*(inert(cell) for cell in row))
        return table

    def action_close(self) -> None:
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "export" or self.run_id is not None

    def action_export(self) -> None:
        """``x``: the run as an HTML page or a Markdown summary, as ``nlu-tui show RUN -f
        html|markdown -o FILE`` writes them."""
        from nlu_tui.ui.screens.page_export import export_run_page

        if self.run_id is not None:
            export_run_page(self, self.run_id, self.suite_path)


def open_latest_dut_run(app: Any) -> None:
    """Show the newest DUT run of the store (a notice when there is none)."""
    from nlu_tui.runsessions import store_for

    store = store_for(app)
    runs = [r for r in store.list_runs() if r.kind == "dut"]
    if not runs:
        app.notify("No DUT run yet: run `nlu-tui test du PATH --engine E`.", severity="warning")
        return
    run = max(runs, key=lambda r: r.started_at)
    title = f"DUT run {run.id}: {run.suite_name} on {run.engine_name} ({run.status})"
    app.push_screen(DutResultsScreen(title, run.summary, run_id=run.id, suite_path=run.suite_path))
