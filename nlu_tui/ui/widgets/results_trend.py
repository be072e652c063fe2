"""The Results pane's "Trend" tab: the open run's suite over its last runs.

F1, precision, recall and the error rate as sparklines (first and latest value), the runs
they come from (the open run marked), and the cases that fail now ("failing since run X") or
flip ("flaky in K of N"), each with its outcome per run. The figures are the core's
(:func:`nlu_tui.trends.compute_trend`, the same as ``nlu-tui trend``), computed in a thread
worker the first time the tab is shown for a suite; every text from the store is made inert.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.widgets import DataTable, Static, TabPane

from nlu_tui.textsafe import inert
from nlu_tui.ui.workers import ReportsFailedWorkers
from nlu_tui.views.counts import counted

TREND_RUNS = 20
"""How many of the suite's runs the tab reads (``nlu-tui trend``'s default)."""


class TrendTab(ReportsFailedWorkers, TabPane):
    """Sparklines of the suite's figures, its runs, and its failing and flaky cases."""

    DEFAULT_CSS = """
    TrendTab { overflow-y: auto; }
    TrendTab #trend-metrics { height: auto; padding: 0 1; }
    TrendTab #trend-runs { height: 1fr; min-height: 5; }
    TrendTab #trend-cases-title { height: 1; padding: 0 1; text-style: bold; }
    TrendTab #trend-cases { height: 2fr; min-height: 6; }
    """
    """On a small terminal (80x24) the tab scrolls: each table keeps a few rows in sight."""

    def __init__(self) -> None:
        super().__init__("Trend", id="tab-res-trend")
        self._suite: str | None = None
        """The suite (path or name) whose trend the open run asks for."""
        self._shown: str | None = None
        """The suite whose trend is on screen (computed once per suite and opened run)."""
        self._run_id: str | None = None

    def compose(self) -> ComposeResult:
        # The columns are set here, not in on_mount: an app quitting while the pane mounts
        # may run on_mount without the children (NoMatches).
        runs = DataTable[Any](id="trend-runs", cursor_type="row", zebra_stripes=True)
        runs.add_columns(" ", "Run", "Started", "F1", "Precision", "Recall", "Errors", "Engine")
        cases = DataTable[Any](id="trend-cases", cursor_type="row", zebra_stripes=True)
        cases.add_columns("History", "Case", "Since / flaky", "Utterance")
        yield Static("Open a run to see its suite's trend.", id="trend-metrics")
        yield runs
        yield Static("", id="trend-cases-title")
        yield cases

    def show_run(self, record: Any) -> None:
        """The run the Results pane opened: its suite's trend, computed when the tab shows."""
        if record.kind != "suite":
            self._suite = None
            self._message("Trends are drawn for batch-test runs (`nlu-tui run`).")
            return
        self._suite = record.suite_path or record.suite_name
        self._run_id = record.id
        self._shown = None
        if self.is_on_screen:
            self._compute()

    @property
    def is_on_screen(self) -> bool:
        return self.display and self.parent is not None and self.parent.display

    def on_show(self) -> None:
        self._compute()

    def _compute(self) -> None:
        key = f"{self._suite}\0{self._run_id}"
        if self._suite is None or self._shown == key:
            return
        self._shown = key
        self._message("Reading the suite's runs…")
        self._load(self._suite)

    def _message(self, text: str) -> None:
        self.query_one("#trend-metrics", Static).update(text)
        self.query_one("#trend-runs", DataTable).clear()
        self.query_one("#trend-cases", DataTable).clear()
        self.query_one("#trend-cases-title", Static).update("")

    @work(
        thread=True,
        exclusive=True,
        group="results-trend",
        exit_on_error=False,
        name="results-trend",
        description="Computing the suite's trend",
    )
    def _load(self, suite: str) -> None:
        from nlu_tui.errors import NluTuiError
        from nlu_tui.runsessions import store_for
        from nlu_tui.trends import compute_trend

        try:
            trend = compute_trend(store_for(self.app), suite, TREND_RUNS)
        except NluTuiError as exc:
            self.app.call_from_thread(self._message, str(exc))
            return
        self.app.call_from_thread(self._fill, trend)

    def _fill(self, trend: Any) -> None:
        from nlu_tui.views.trend_text import case_status, metric_rows

        metrics = Text()
        metrics.append(
            inert(f"{trend.suite}: {counted(len(trend.runs), 'run')}, oldest first", newlines=False)
        )
        for name, spark, first, latest in metric_rows(trend):
            metrics.append(f"\n{name:<11}")
            metrics.append(spark, style="cyan")
            metrics.append(f"  {latest:.4f}  ({latest - first:+.4f} since the first)")
        self.query_one("#trend-metrics", Static).update(metrics)
        runs = self.query_one("#trend-runs", DataTable)
        runs.clear()
        for point in reversed(trend.runs):  # newest first, as the Runs tab lists them
            started = datetime.fromtimestamp(point.started_at).strftime("%Y-%m-%d %H:%M")
            engine = point.engine + (f" (rerun of {point.rerun_of})" if point.rerun_of else "")
            runs.add_row(
                "▶" if point.run_id == self._run_id else " ",
                point.run_id,
                started,
                f"{point.f1:.4f}",
                f"{point.precision:.4f}",
                f"{point.recall:.4f}",
                f"{point.error_rate:.1%}",
                Text(inert(engine, newlines=False)),
                key=point.run_id,
            )
        cases = self.query_one("#trend-cases", DataTable)
        cases.clear()
        failing = sum(c.failing_since is not None for c in trend.cases)
        flaky = sum(c.flaky for c in trend.cases)
        self.query_one("#trend-cases-title", Static).update(
            f"Cases: {failing} failing now, {flaky} flaky (history oldest first: "
            "P passed, F failed, E errored, - not run)"
        )
        for case in trend.cases:
            if case.failing_since is None and not case.flaky:
                continue
            cases.add_row(
                "".join(case.history),
                Text(inert(case.case_id, newlines=False)),
                case_status(case),
                Text(inert(case.utterance, newlines=False)),
                key=case.case_id,
            )
