"""Following a live run in the Results pane: new rows reach the table a few times a second.

A live run is followed through its :class:`~nlu_tui.runsessions.RunSession`: a 4 Hz timer
appends the rows that arrived since the last tick and redraws the header, so thousands of
results per second cost the screen nothing extra; when the run ends the stored run is loaded as
for any other. A resumed run starts from its earlier part: once the session has its stored rows
(and their columns, built in a worker thread) the table is reloaded from them plus the streamed
ones. :class:`LiveResults` is the base of :class:`~nlu_tui.ui.widgets.results_pane.ResultsPane`.
"""

from __future__ import annotations

from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import ProgressBar, Static

from nlu_tui.reports.run_data import RunData
from nlu_tui.runsessions import RunSession
from nlu_tui.ui.widgets.results_header import RunHeader
from nlu_tui.ui.widgets.results_table import ResultsTable
from nlu_tui.ui.workers import ReportsFailedWorkers
from nlu_tui.views.result_columns import ResultFilter

LIVE_REFRESH_S = 0.25
"""How often a live run's new rows reach the table (4 Hz keeps SSH sessions smooth)."""


class LiveResults(ReportsFailedWorkers, Vertical):
    """Shows one run, finished (``data``) or live (``session``)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data: RunData | None = None
        self.session: RunSession | None = None
        self._seen_rows = 0
        self._seen_version = -1
        self._seen_generation = -1
        self._timer: Timer | None = None

    @property
    def table(self) -> ResultsTable:
        return self.query_one(ResultsTable)

    def show_run(self, run_id: str) -> None:
        raise NotImplementedError

    def set_filter(self, flt: ResultFilter) -> None:
        raise NotImplementedError

    def _set_type_choices(self, flaky: bool) -> None:
        raise NotImplementedError

    def attach(self, session: RunSession) -> None:
        """Follow a live run: rows stream into the table, the header shows live counts."""
        self._stop_live()
        self.session = session
        self.data = None
        self._seen_rows = 0
        self._seen_version = -1
        self._seen_generation = -1
        self._show_live_bar(True)
        self.refresh_bindings()
        self.table.clear_rows()
        plan = getattr(session.run, "plan", None)
        cases = plan.suite.cases if plan is not None else []
        # a repeated run's figures come when it has ended; raw checks are scored as rows arrive
        self.table.show_stability(False, raw=any(c.raw_checks for c in cases))
        self._set_type_choices(False)
        self.table.sort = ("n", True)  # newest first while it runs
        if self.table.data_table is not None:
            self.set_filter(ResultFilter())  # empties the previous run's table
        else:
            self.table.filter = ResultFilter()
        self._tick()
        self._timer = self.set_interval(LIVE_REFRESH_S, self._tick)

    def _stop_live(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.session = None
        self._show_live_bar(False)
        self.refresh_bindings()

    def _show_live_bar(self, on: bool) -> None:
        """Show the progress bar row (a live run) or hide it. Set on the row itself: a class
        on the pane would restyle every widget of its six tabs, most of a key's time."""
        self.query_one("#results-live").display = on

    def _tick(self) -> None:
        session = self.session
        if session is None:
            return
        if session.version != self._seen_version:
            self._seen_version = session.version
            if session.generation != self._seen_generation:
                self._restart_rows(session)
            new = session.rows[self._seen_rows :]
            self._seen_rows += len(new)
            if new:
                self.table.append({c.id: c for c, _, _ in new}, (r for _, _, r in new))
                self.table.refresh_view()
            self._draw_live(session)
        if session.finished:
            run_id = session.run_id
            self._stop_live()
            self.table.sort = None
            if session.record is not None:
                self.show_run(run_id)
            else:
                self.query_one(RunHeader).show_text(
                    f"Run {run_id} failed: {session.error}", style="bold red"
                )

    def _restart_rows(self, session: RunSession) -> None:
        """The session's rows were replaced (a resumed run's stored rows came in): load the
        stored part from its prepared columns; the streamed rows after it are then appended."""
        self._seen_generation = session.generation
        prepared = session.seed_prepared
        if prepared is None:
            self.table.clear_rows()
            self._seen_rows = 0
            return
        columns, arrow = prepared
        self.table.load_prepared(columns.copy(), arrow)
        self._seen_rows = session.seed_count

    def _draw_live(self, session: RunSession) -> None:
        """The header's two lines and the bar row under it (three lines at most, so 80×24
        keeps its rows while a run goes)."""
        from nlu_tui.views.summary_text import progress_rate_text

        event = self.query_one(RunHeader).show_live(session)
        rate = self.query_one("#results-rate", Static)
        if event is None:
            rate.update("starting…")
            return
        bar = self.query_one("#results-progress", ProgressBar)
        bar.update(total=max(event.total, 1), progress=event.done)
        rate.update(progress_rate_text(event))
