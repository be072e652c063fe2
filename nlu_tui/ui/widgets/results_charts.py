"""The Results pane's "Charts" tab: confidence histograms (Kore.ai's and Rasa's) and latencies."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import TabPane

from nlu_tui.reports.run_data import RunData
from nlu_tui.ui.widgets.charts import Chart


class ChartsTab(TabPane):
    """Three charts in a scrolling column."""

    def __init__(self) -> None:
        super().__init__("Charts", id="tab-res-charts")

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Chart(id="chart-confidence")
            yield Chart(id="chart-latency")
            yield Chart(id="chart-rasa-histogram")

    def show(self, data: RunData) -> None:
        from nlu_tui.views.charts import confidence_bins, latency_bins

        results = [r for _, _, r in data.rows]
        self.query_one("#chart-confidence", Chart).set_hits_misses(
            "Confidence: hits vs misses [Kore.ai]", confidence_bins(data.histogram)
        )
        self.query_one("#chart-rasa-histogram", Chart).set_paired_histogram(
            data.rasa_histogram, "Intent Prediction Confidence Distribution [Rasa]"
        )
        self.query_one("#chart-latency", Chart).set_distribution(
            "Latency distribution (ms)", latency_bins(results)
        )
