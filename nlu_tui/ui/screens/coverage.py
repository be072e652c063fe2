"""Coverage and health of the selected suite: what ``nlu-tui coverage`` prints, in the workbench.

The report is built in a thread worker by the same service call as the CLI
(:func:`nlu_tui.coverage_service.build_coverage`), against the engine of the suite's newest
finished run (else the embedded engine on its training data); the screen only shows the text,
made inert (suite, intent and utterance texts come from files and engines).
"""

from __future__ import annotations

from pathlib import Path

from rich.markup import escape
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from nlu_tui.runsessions import store_for
from nlu_tui.textsafe import inert
from nlu_tui.ui.commands import PaletteCommand
from nlu_tui.ui.state import workbench
from nlu_tui.ui.widgets.footer import BudgetFooter
from nlu_tui.ui.workers import ReportsFailedWorkers


class CoverageScreen(ReportsFailedWorkers, Screen[None]):
    """Test coverage, leakage, performance per intent and training recommendations."""

    DEFAULT_CSS = """
    CoverageScreen #coverage-header { height: auto; padding: 0 1; background: $boost; }
    CoverageScreen #coverage-body { height: 1fr; padding: 0 1; }
    """

    BINDINGS = [
        Binding(
            "escape,q", "app.pop_screen", "Back", id="coverage.back", tooltip="Back to the suites."
        ),
        Binding("r", "refresh", "Refresh", id="coverage.refresh", tooltip="Compute it again."),
    ]

    def __init__(self, suite_path: Path, engine: str | None = None) -> None:
        super().__init__()
        self.suite_path = suite_path
        self.engine = engine
        self.text: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(
            Text(inert(f"Coverage of {self.suite_path.name}: computing…")), id="coverage-header"
        )
        with VerticalScroll(id="coverage-body"):
            yield Static("", id="coverage-text")
        yield BudgetFooter()

    def on_mount(self) -> None:
        self._compute()

    def action_refresh(self) -> None:
        self._compute()

    def palette_commands(self) -> list[PaletteCommand]:
        """One entry per key of :attr:`BINDINGS`, running the same action."""
        return [
            PaletteCommand("coverage: Back", self.app.pop_screen, "Close the view (Esc)"),
            PaletteCommand("coverage: Refresh", self.action_refresh, "Compute it again (r)"),
        ]

    @work(
        thread=True,
        exclusive=True,
        group="coverage",
        exit_on_error=False,
        name="coverage",
        description="Computing the coverage",
    )
    def _compute(self) -> None:
        from nlu_tui.coverage_service import (
            CoverageRequest,
            build_coverage,
            coverage_text,
            default_engine,
        )

        store = store_for(self.app)
        try:
            engine = self.engine or default_engine(self.suite_path, store)
            report = build_coverage(CoverageRequest(self.suite_path, engine=engine), store)
            text = coverage_text(report)
            if "listed by the engine" in report.inventory:
                self.app.call_from_thread(workbench(self).engine_intents.update, report.tested)
        except Exception as exc:
            self.app.call_from_thread(self._failed, exc)
            return
        self.app.call_from_thread(self._show, engine, text)

    def _failed(self, exc: Exception) -> None:
        self.query_one("#coverage-header", Static).update(
            Text(inert(f"Cannot compute the coverage: {exc}"), style="red")
        )
        self.notify(escape(str(exc)), title="Coverage", severity="error")

    def _show(self, engine: str, text: str) -> None:
        self.text = text
        self.query_one("#coverage-header", Static).update(
            Text(inert(f"Coverage and health of {self.suite_path.name} on {engine}  (r refresh)"))
        )
        self.query_one("#coverage-text", Static).update(Text(inert(text)))
