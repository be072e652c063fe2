"""The Results pane's Thresholds tab: is the confidence threshold right for this run?

Shows what ``nlu-tui analyze RUN`` prints (best threshold, F1 there and as run, fallback share,
calibration error, near-ties, the sweep and the reliability bins as text bars). The analysis
(:mod:`nlu_tui.scoring.thresholds`) runs in a thread worker when a run is shown; its text comes
from the core with untrusted names already made inert, and is shown as plain text (no markup).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from nlu_tui.textsafe import inert
from nlu_tui.ui.workers import ReportsFailedWorkers

if TYPE_CHECKING:
    from nlu_tui.scoring.thresholds import Row, ThresholdAnalysis
    from nlu_tui.store.records import RunRecord

EMPTY_TEXT = "Open a finished run to see its threshold analysis."


class ThresholdView(ReportsFailedWorkers, VerticalScroll):
    """Plain text of the threshold analysis of the run shown; replaced when another run opens."""

    DEFAULT_CSS = """
    ThresholdView { overflow-x: auto; }
    ThresholdView > #threshold-text { width: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.analysis: ThresholdAnalysis | None = None
        self._generation = 0

    def compose(self) -> ComposeResult:
        yield Static(Text(EMPTY_TEXT), id="threshold-text")

    def set_run(self, record: RunRecord, rows: Sequence[Row]) -> None:
        """Analyse this run (off the UI thread) and show it; an older analysis is dropped."""
        self._generation += 1
        self.analysis = None
        self.query_one("#threshold-text", Static).update(Text("Analysing thresholds…"))
        self._analyse(record, list(rows), self._generation)

    @work(
        thread=True,
        exclusive=True,
        group="threshold-analysis",
        exit_on_error=False,
        name="threshold-analysis",
        description="Analysing the confidence thresholds",
    )
    def _analyse(self, record: RunRecord, rows: list[Row], generation: int) -> None:
        from nlu_tui.scoring.thresholds import analyze
        from nlu_tui.views.threshold_text import run_threshold, summary_text

        analysis: ThresholdAnalysis | None = None
        try:
            # scores outside 0..1 (Kore.ai points) are rescaled, and the summary says so
            analysis = analyze(rows, run_threshold=run_threshold(record), out_of_range="rescale")
            text = summary_text(record, analysis)
        except Exception as exc:  # shown in the tab, never a crash of the workbench
            text = inert(f"Cannot analyse run {record.id}: {exc}")
        self.app.call_from_thread(self._show, generation, text, analysis)

    def _show(self, generation: int, text: str, analysis: ThresholdAnalysis | None) -> None:
        if generation != self._generation:  # another run was opened meanwhile
            return
        self.analysis = analysis
        self.query_one("#threshold-text", Static).update(Text(text))
